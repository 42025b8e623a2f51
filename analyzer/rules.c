/* rules.c - the list of fact-rule providers (see rules.h).  Each family
 * lives in its own rules_*.c; add its provider here. */
#include "rules.h"

#include <string.h>

#include "envvars.h"

extern const struct rule_provider RULES_SYS;
extern const struct rule_provider RULES_RANKS; /* rules_ranks.c */

const struct rule_provider *const RULE_PROVIDERS[] = {
	&RULES_ENV,
	&RULES_SYS,
	&RULES_RANKS,
	NULL,
};

const struct rule_def *rules_find(const char *id)
{
	for (size_t p = 0; RULE_PROVIDERS[p]; p++)
		for (size_t i = 0; i < RULE_PROVIDERS[p]->nrules; i++)
			if (strcmp(RULE_PROVIDERS[p]->rules[i].id, id) == 0)
				return &RULE_PROVIDERS[p]->rules[i];
	return NULL;
}

void rules_run_all(struct bundle *b)
{
	for (size_t p = 0; RULE_PROVIDERS[p]; p++)
		RULE_PROVIDERS[p]->run(b);
}
