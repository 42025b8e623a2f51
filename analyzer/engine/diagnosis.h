/* diagnosis.h - one diagnosis of a bundle: a diagnosis of the database
 * whose conditions hold, with its evidence, ranks and role.  Made by
 * correlate.c and cascade.c, owned by the bundle (bundle_clear_diagnoses). */
#ifndef NT_DIAGNOSIS_H
#define NT_DIAGNOSIS_H

#include <stddef.h>
#include <stdint.h>
#include "match/sigdb.h"

struct diagnosis {
	const struct diagdef *def;   /* borrowed from the database */
	enum role role;              /* def->role, or ROLE_CASCADE when an echo */
	const char *echo_of;         /* id of the diagnosis this echoes, or NULL */
	const char *supports;        /* id of a higher-ranked root of the same category
	                                that this one corroborates (role becomes context) */
	const char *refined_by;      /* a generic diagnosis ("generic": true, derived OTHER or
	                                CUDA_ERROR_OTHER): the id of the derived diagnosis whose
	                                clue (the WARN's source file, the return chain's deepest
	                                frame) names the component; this one became its echo */
	double confidence;
	char *title, *explanation;   /* placeholders filled in */
	size_t *ev;                  /* indexes into bundle->ev.v, earliest first */
	size_t nev;
	size_t ev_total;             /* occurrences counted, kept or not */
	int *ranks;                  /* sorted, unique */
	size_t nranks;
	uint64_t first_seq;
	int unseen_action;           /* it blames a user action ("blames") that the bundle does
	                                not show: a lead (correlate.c action_visible) */
	int defect_version;          /* an NCCL defect with a version range (NCCL_BUG_UPGRADE):
	                                DEFECT_CONFIRMED, DEFECT_VERSION_UNKNOWN, or 0 */
};

enum { DEFECT_CONFIRMED = 1, DEFECT_VERSION_UNKNOWN = 2 };

#endif
