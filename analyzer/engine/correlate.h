/* correlate.h - from a bundle's evidence and facts to ranked diagnoses and
 * a verdict.  Diagnoses are owned by the bundle (freed by correlate_free). */
#ifndef NT_CORRELATE_H
#define NT_CORRELATE_H

#include <stddef.h>
#include <stdint.h>
#include "engine/diagnosis.h"
#include "match/sigdb.h"

struct bundle;


void correlate(struct bundle *b);
/* Rank diagnoses: most likely root cause first (see correlate.c). */
void correlate_sort(struct diagnosis *v, size_t n);
/* Fill {name}, {env.NAME}, {ranks} placeholders.  Caller frees. */
char *render_template(const char *tpl, const struct bundle *b, const struct diagnosis *d);

#endif
