/* rules.h - fact rules: checks written in C over a bundle's facts (topology,
 * versions, memory, environment, rank timelines) that produce evidence with
 * a rule id, just like a signature produces evidence from a line.  Diagnoses
 * in patterns/ refer to rule ids in their "when" lists.
 *
 * Each family of rules is a provider with a table of the ids it may emit
 * and one run function.  Providers are listed in rules.c; rules_register
 * hands their tables to the signature loader (which knows no rule code), so
 * check-db verifies that every id a diagnosis names exists.
 *
 * A rule sees a narrow context, not the bundle: the facts, the evidence so
 * far (rules add theirs with rule_emit), the database, the rank timelines
 * (read-only) and the log lines that failed without a signature. */
#ifndef NT_RULES_H
#define NT_RULES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "match/evidence.h"
#include "match/sigdb.h"

struct ranks;
struct flight;

struct rule_ctx {
	const char *name;                    /* the bundle's name: the place of evidence with no document */
	cJSON *facts;                        /* rules may add derived facts (sys_derive) */
	struct evlist *ev;                   /* evidence so far; rule_emit adds, rules may place it on a rank */
	const struct sigdb *db;
	const struct ranks *ranks;           /* finished timelines (ranks_finish), read-only */
	const struct failure_line *failures; /* failure lines no signature explained, the first few */
	size_t nfailures;
	uint64_t failure_count;              /* all of them, kept or not */
	int saw_nccl;                        /* any NCCL-prefixed line at all */
	const struct chain_clue *clues;      /* NCCL return-chain frames, first per process */
	size_t nclues;
	const struct crash_clue *crashes;    /* native crashes and stack dumps (parse/crash.h) */
	size_t ncrashes;
	const struct floor_pick *floor;      /* the keyword tier's pick (rules_floor.c) */
	const struct flight *flight;         /* flight-recorder dumps, finished (flight_finish); NULL none */
	int logs_cut;                        /* a log document was cut (inputs[].complete false): a
	                                        rank's output that stops may just have lost the rest */
	uint64_t work;                       /* steps of the rules whose cost follows the input
	                                        (tests/unit/test_bounded.c bounds it) */
};

struct rule_provider {
	const char *name;
	const struct rule_def *rules;
	size_t nrules;
	void (*run)(struct rule_ctx *c);
};

/* NULL-terminated list of providers. */
extern const struct rule_provider *const RULE_PROVIDERS[];
extern const struct rule_provider RULES_ENV, RULES_SYS, RULES_RANKS, RULES_HOST, RULES_INFER, RULES_DERIVED,
	RULES_FLIGHT, RULES_COLLECT, RULES_FLOOR;
/* The floor's evidence (rules_floor.c), for the engine once the diagnoses
 * show that nothing named a category; its id for a category. */
void rules_floor_emit(struct rule_ctx *c);
const char *rules_floor_id(const char *category, char *buf, size_t n);

/* Give every provider's table to the loader: before sigdb_finalize. */
void rules_register(struct sigdb *db);
void rules_run_all(struct rule_ctx *c);
/* Record evidence that a rule fired (statement is the evidence text, a
 * derived sentence: path:line is where it was computed from).
 * Returns the stored item (borrowed), or NULL past the per-id cap. */
static inline struct evidence *rule_emit(struct rule_ctx *c, const char *rule_id, const char *path,
                                         uint64_t line, const char *statement,
                                         const struct capture *caps, size_t ncaps)
{
	struct evidence *e = evlist_add(c->ev, rule_id, path, line, statement, strlen(statement), caps, ncaps);
	if (e)
		e->derived = 1; /* a sentence, not the line path:line (docs/json.md "kind") */
	return e;
}

/* Whether evidence e of list l has the id whose evlist_slot() is slot (-1:
 * no evidence of it): strcmp(e->id, id) == 0 without the strcmp where e's
 * id is l's own (every id evlist_add stores is l->counts[e->id_slot].id,
 * and l->counts holds each id once), strcmp otherwise.  For a loop over
 * the evidence that looks for one id: the slot is looked up once before
 * it (and again after anything that adds evidence of a new id). */
static inline int rule_ev_is(const struct evlist *l, const struct evidence *e, long slot, const char *id)
{
	if (e->id_slot < l->ncounts && l->counts[e->id_slot].id == e->id)
		return slot >= 0 && e->id_slot == (size_t)slot;
	return e->id && strcmp(e->id, id) == 0;
}

#endif
