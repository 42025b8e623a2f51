/* correlate.h - from a bundle's evidence and facts to ranked diagnoses and
 * a verdict.  Diagnoses are owned by the bundle (freed by correlate_free). */
#ifndef NT_CORRELATE_H
#define NT_CORRELATE_H

#include <stddef.h>
#include <stdint.h>
#include "sigdb.h"

struct bundle;

struct diagnosis {
	const struct diagdef *def;   /* borrowed from the database */
	enum role role;              /* def->role, or ROLE_CASCADE when an echo */
	const char *echo_of;         /* id of the diagnosis this echoes, or NULL */
	const char *supports;        /* id of a higher-ranked root of the same category
	                                that this one corroborates (role becomes context) */
	double confidence;
	char *title, *explanation;   /* placeholders filled in */
	size_t *ev;                  /* indexes into bundle->ev.v, earliest first */
	size_t nev;
	size_t ev_total;             /* occurrences counted, kept or not */
	int *ranks;                  /* sorted, unique */
	size_t nranks;
	uint64_t first_seq;
};

void correlate(struct bundle *b);
void correlate_free(struct bundle *b);
/* Rank diagnoses: most likely root cause first (see correlate.c). */
void correlate_sort(struct diagnosis *v, size_t n);
/* Fill {name}, {env.NAME}, {ranks} placeholders.  Caller frees. */
char *render_template(const char *tpl, const struct bundle *b, const struct diagnosis *d);

#endif
