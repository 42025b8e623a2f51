/* rules.h - fact rules: checks written in C over a bundle's facts (topology,
 * versions, memory, environment, rank timelines) that produce evidence with
 * a rule id, just like a signature produces evidence from a line.  Diagnoses
 * in patterns/ refer to rule ids in their "when" lists.
 *
 * Each family of rules is a provider with a table of the ids it may emit
 * (check-db verifies that every id a diagnosis names exists) and one run
 * function.  Providers are listed in rules.c. */
#ifndef NT_RULES_H
#define NT_RULES_H

#include <stddef.h>

struct bundle;

struct rule_def {
	const char *id;
	const char *summary;
};

struct rule_provider {
	const char *name;
	const struct rule_def *rules;
	size_t nrules;
	void (*run)(struct bundle *b);
};

/* NULL-terminated list of providers. */
extern const struct rule_provider *const RULE_PROVIDERS[];
const struct rule_def *rules_find(const char *id);
void rules_run_all(struct bundle *b);

#endif
