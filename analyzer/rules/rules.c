/* rules.c - the list of fact-rule providers (see rules.h).  Each family
 * lives in its own rules_*.c; add its provider here. */
#include "rules/rules.h"

const struct rule_provider *const RULE_PROVIDERS[] = {
	&RULES_ENV,
	&RULES_SYS,
	&RULES_RANKS,
	&RULES_FLIGHT,
	&RULES_HOST,
	&RULES_INFER,
	&RULES_DERIVED,
	&RULES_COLLECT,
	&RULES_FLOOR,
	NULL,
};

void rules_register(struct sigdb *db)
{
	for (size_t p = 0; RULE_PROVIDERS[p]; p++)
		sigdb_add_rules(db, RULE_PROVIDERS[p]->rules, RULE_PROVIDERS[p]->nrules);
}

void rules_run_all(struct rule_ctx *c)
{
	for (size_t p = 0; RULE_PROVIDERS[p]; p++)
		RULE_PROVIDERS[p]->run(c);
}
