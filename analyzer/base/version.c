/* version.c - see version.h. */
#include "base/version.h"

#include <string.h>

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

int version_parse(const char *s, struct version *v)
{
	memset(v, 0, sizeof *v);
	if (!s)
		return 0;
	if (*s == 'v' || *s == 'V')
		s++;
	if (!is_digit(*s))
		return 0;
	for (;;) {
		long x = 0;
		while (is_digit(*s)) {
			if (x < 100000000)
				x = x * 10 + (*s - '0');
			s++;
		}
		v->part[v->n++] = x;
		if (*s == '.' && is_digit(s[1]) && v->n < VERSION_PARTS) {
			s++;
			continue;
		}
		break;
	}
	/* the suffix */
	if (*s == 0 || *s == '+' || *s == '-' || *s == '_' || *s == ' ' || *s == '(' || is_letter(*s))
		return 1;
	if (*s == '.' && (!is_digit(s[1]) || v->n == VERSION_PARTS))
		return s[1] != '.' && s[1] != 0 ? 1 : 0;
	memset(v, 0, sizeof *v);
	return 0;
}

int version_cmp(const struct version *a, const struct version *b)
{
	for (int i = 0; i < VERSION_PARTS; i++)
		if (a->part[i] != b->part[i])
			return a->part[i] < b->part[i] ? -1 : 1;
	return 0;
}

int version_cmp_str(const char *a, const char *b)
{
	struct version x, y;
	int ox = version_parse(a, &x), oy = version_parse(b, &y);
	if (!ox || !oy)
		return ox - oy;
	return version_cmp(&x, &y);
}

long version_code(const char *s)
{
	struct version v;
	if (!version_parse(s, &v) || v.n < 2 || v.part[1] > 99 || v.part[2] > 99 || v.part[0] > 99999)
		return -1;
	return v.part[0] * 10000 + v.part[1] * 100 + v.part[2];
}
