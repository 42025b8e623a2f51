/* scan.c - see scan.h. */
#include "base/scan.h"

#include <stdlib.h>
#include <string.h>

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

size_t scan_blanks(const char **pp, const char *end)
{
	const char *p = *pp;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	size_t n = (size_t)(p - *pp);
	*pp = p;
	return n;
}

int scan_lit(const char **pp, const char *end, const char *lit, size_t n)
{
	const char *p = *pp;
	if (p > end || (size_t)(end - p) < n || memcmp(p, lit, n) != 0)
		return 0;
	*pp = p + n;
	return 1;
}

const char *scan_find(const char *p, const char *end, const char *lit, size_t n)
{
	if (!p || p >= end || n == 0 || (size_t)(end - p) < n)
		return NULL;
	return memmem(p, (size_t)(end - p), lit, n);
}

const char *scan_chr(const char *p, const char *end, char c)
{
	if (!p || p >= end)
		return NULL;
	return memchr(p, c, (size_t)(end - p));
}

int scan_u64(const char **pp, const char *end, uint64_t *v)
{
	const char *p = *pp;
	uint64_t x = 0;
	int nd = 0;
	while (p < end && is_digit(*p)) {
		if (++nd > 18)
			return 0;
		x = x * 10 + (uint64_t)(*p++ - '0');
	}
	if (!nd)
		return 0;
	*v = x;
	*pp = p;
	return 1;
}

int scan_long(const char **pp, const char *end, long *v)
{
	const char *p = *pp;
	int neg = p < end && *p == '-';
	if (neg)
		p++;
	uint64_t x;
	if (!scan_u64(&p, end, &x))
		return 0;
	*v = neg ? -(long)x : (long)x;
	*pp = p;
	return 1;
}

int scan_double(const char **pp, const char *end, double *v)
{
	const char *p = *pp, *s = p;
	if (p < end && *p == '-')
		p++;
	size_t ip = 0, fp = 0;
	while (p < end && is_digit(*p))
		p++, ip++;
	if (p < end && *p == '.' && p + 1 < end && is_digit(p[1])) {
		p++;
		while (p < end && is_digit(*p))
			p++, fp++;
	}
	if (ip + fp == 0)
		return 0;
	if (p < end && (*p == 'e' || *p == 'E')) {
		const char *q = p + 1;
		if (q < end && (*q == '+' || *q == '-'))
			q++;
		if (q < end && is_digit(*q)) {
			while (q < end && is_digit(*q))
				q++;
			p = q;
		}
	}
	char tmp[64];
	size_t n = (size_t)(p - s);
	if (n >= sizeof tmp)
		return 0;
	memcpy(tmp, s, n);
	tmp[n] = 0;
	*v = strtod(tmp, NULL);
	*pp = p;
	return 1;
}

size_t scan_word(const char **pp, const char *end, const char *stop, size_t max)
{
	const char *p = *pp;
	while (p < end && (size_t)(p - *pp) < max && *p && !strchr(stop, *p))
		p++;
	size_t n = (size_t)(p - *pp);
	*pp = p;
	return n;
}
