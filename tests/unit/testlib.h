/* testlib.h - a minimal test harness: each test binary prints one line per
 * failed check and a final "N passed, N failed" line; tests/run.sh sums them. */
#ifndef NT_TESTLIB_H
#define NT_TESTLIB_H

#include <stdio.h>
#include <string.h>

static int t_passed, t_failed;

#define CHECK(cond) do { \
	if (cond) t_passed++; \
	else { t_failed++; fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } \
} while (0)

#define CHECK_STR(a, b) do { \
	const char *a_ = (a), *b_ = (b); \
	if (a_ && b_ && strcmp(a_, b_) == 0) t_passed++; \
	else { t_failed++; fprintf(stderr, "FAIL %s:%d: %s == \"%s\" (got \"%s\")\n", \
	        __FILE__, __LINE__, #a, b_ ? b_ : "(null)", a_ ? a_ : "(null)"); } \
} while (0)

#define CHECK_INT(a, b) do { \
	long long a_ = (long long)(a), b_ = (long long)(b); \
	if (a_ == b_) t_passed++; \
	else { t_failed++; fprintf(stderr, "FAIL %s:%d: %s == %lld (got %lld)\n", \
	        __FILE__, __LINE__, #a, b_, a_); } \
} while (0)

#define TEST_MAIN_END() do { \
	printf("%d passed, %d failed\n", t_passed, t_failed); \
	return t_failed ? 1 : 0; \
} while (0)

#endif
