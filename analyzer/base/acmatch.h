/* acmatch.h - the literal prefilter over the signatures' literals: one pass over a
 * line finds every literal it contains, so the prefilter costs the same for
 * 10 or 1000 signatures.  Immutable after acmatch_build(); thread-safe to
 * search. */
#ifndef NT_ACMATCH_H
#define NT_ACMATCH_H

#include <stddef.h>
#include <stdint.h>

struct acmatch;

struct acmatch *acmatch_new(void);
/* Add a literal that reports value when found.  Before build only. */
void acmatch_add(struct acmatch *ac, const char *lit, size_t len, uint32_t value);
void acmatch_build(struct acmatch *ac);
void acmatch_free(struct acmatch *ac);
/* Calls hit(ctx, value) for every value whose literal occurs in s (a value
 * may be reported more than once).  */
void acmatch_search(const struct acmatch *ac, const char *s, size_t n,
                    void (*hit)(void *ctx, uint32_t value), void *ctx);
size_t acmatch_states(const struct acmatch *ac);
/* The largest stride, and the literal length that allows it: the scan of a
 * line tests every ACMATCH_MAX_STRIDE-th position when every literal has
 * ACMATCH_FAST_LEN bytes or more. */
#define ACMATCH_MAX_STRIDE 4
#define ACMATCH_FAST_LEN (ACMATCH_MAX_STRIDE + 3)
/* After build: the scan tests every stride-th position (1..ACMATCH_MAX_STRIDE;
 * 1 when a literal has fewer than 4 bytes). */
unsigned acmatch_stride(const struct acmatch *ac);

#endif
