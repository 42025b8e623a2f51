/* fuzz_scan.c - the readers of spans and of text that reaches a report:
 * the bounded scanners (scan.h) and sys_parse_mib_n on the input as a span
 * that ends exactly at the end of the allocation (the replay program and
 * libFuzzer both pass an exact-size buffer: one byte read past the span is
 * an ASan report), the secret masking (str_mask_secrets) and --redact
 * (redact_string: SLURM host lists, ip-a-b-c-d names, IPv4 glued to words).
 * Checks beyond "no crash": every scanner stays inside the span and agrees
 * with strtol / strtod on a terminated copy; masking never lengthens the
 * text, leaves no known token shape and is idempotent; redaction of valid
 * UTF-8 is valid UTF-8. */
#include <math.h>

#include "fuzz_common.h"
#include "report/redact.h"
#include "base/scan.h"
#include "parse/sysparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void scanners_at(const char *p, const char *end)
{
	size_t n = (size_t)(end - p);
	char *z = malloc(n + 1); /* the same bytes, terminated: the reference */
	memcpy(z, p, n);
	z[n] = 0;
	const char *q = p;
	long v;
	if (scan_long(&q, end, &v)) {
		FUZZ_ASSERT(q > p && q <= end);
		char *e;
		long ref = strtol(z, &e, 10);
		FUZZ_ASSERT(ref == v && e - z == q - p);
	}
	q = p;
	double d;
	if (scan_double(&q, end, &d)) {
		FUZZ_ASSERT(q > p && q <= end);
		char tmp[80];
		size_t l = (size_t)(q - p);
		FUZZ_ASSERT(l < sizeof tmp);
		memcpy(tmp, p, l);
		tmp[l] = 0;
		FUZZ_ASSERT(strtod(tmp, NULL) == d || (isnan(d) && isnan(strtod(tmp, NULL))));
	}
	q = p;
	scan_blanks(&q, end);
	FUZZ_ASSERT(q >= p && q <= end);
	q = p;
	size_t w = scan_word(&q, end, " ,)", 64);
	FUZZ_ASSERT(w <= 64 && q == p + w && q <= end);
	const char *e = NULL;
	double mib = sys_parse_mib_n(p, end, &e);
	FUZZ_ASSERT(isnan(mib) || (e > p && e <= end && mib >= 0));
	free(z);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	for (size_t i = 0; i < size && i < 48; i++)
		scanners_at(p + i, end);
	if (size >= 4) {
		const char *f = scan_find(p, end, (const char *)data + size - 2, 2);
		FUZZ_ASSERT(f && f >= p && f + 2 <= end);
	}

	/* masking: in place, never longer, idempotent, no token shape left */
	char *m = malloc(size + 1);
	memcpy(m, data, size);
	m[size] = 0;
	size_t n1 = str_mask_secrets(m, size);
	FUZZ_ASSERT(n1 <= size && m[n1] == 0);
	char *again = malloc(n1 + 1);
	memcpy(again, m, n1 + 1);
	size_t n2 = str_mask_secrets(again, n1);
	FUZZ_ASSERT(n2 == n1 && memcmp(again, m, n1) == 0);
	free(again);
	free(m);

	/* redaction of the text as a C string (NULs become spaces) */
	char *t = malloc(size + 1);
	for (size_t i = 0; i < size; i++)
		t[i] = data[i] ? (char)data[i] : ' ';
	t[size] = 0;
	struct redactor *r = redactor_new();
	char *x = redact_string(r, t);
	FUZZ_ASSERT(x != NULL);
	char *fix = str_utf8_fix(t);
	if (!fix) {
		char *xf = str_utf8_fix(x);
		FUZZ_ASSERT(xf == NULL); /* valid in, valid out */
	}
	free(fix);
	char *y = redact_string(r, x);
	FUZZ_ASSERT(y != NULL);
	free(y);
	free(x);
	redactor_free(r);
	free(t);
	return 0;
}
