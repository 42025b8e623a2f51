/* Unit tests for patids.c: every id C code names is in the built-in
 * database (the check check-db runs), a database without them is told
 * which are missing and where C names them, and the table has no
 * duplicates. */
#include <stdlib.h>
#include <string.h>
#include "match/patids.h"
#include "rules/rules.h"
#include "match/sigdb.h"
#include "testlib.h"

static int has_msg(const struct msgs *m, const char *needle)
{
	for (size_t i = 0; i < m->list.n; i++)
		if (strstr(m->list.v[i], needle))
			return 1;
	return 0;
}

int main(void)
{
	struct sigdb db;
	struct msgs m = {0};
	size_t dups = 0;
	for (size_t i = 0; i < NPATIDS; i++)
		for (size_t j = i + 1; j < NPATIDS; j++)
			dups += strcmp(PATIDS[i].id, PATIDS[j].id) == 0 && PATIDS[i].kind == PATIDS[j].kind;
	CHECK_INT(dups, 0);

	sigdb_init(&db);
	rules_register(&db);
	CHECK_INT(sigdb_load_dir(&db, "patterns", &m), 0);
	CHECK_INT(sigdb_finalize(&db, &m), 0);
	CHECK_INT(sigdb_check_patids(&db, &m), 0);
	CHECK_INT(m.list.n, 0);
	sigdb_free(&db);

	/* the minimal test database has none of the signatures or diagnoses */
	sigdb_init(&db);
	rules_register(&db);
	CHECK_INT(sigdb_load_dir(&db, "tests/db-min", &m), 0);
	CHECK_INT(sigdb_finalize(&db, &m), 0);
	size_t sigs = 0, diags = 0, rules = 0;
	for (size_t i = 0; i < NPATIDS; i++) {
		sigs += PATIDS[i].kind == PATID_SIGNATURE;
		diags += PATIDS[i].kind == PATID_DIAGNOSIS;
		rules += PATIDS[i].kind == PATID_RULE;
	}
	/* rules are registered from C and oom./memory. are families of them or
	 * of patterns/ only; categories are C's own list */
	int missing = sigdb_check_patids(&db, &m);
	CHECK(missing >= (int)(sigs + diags));
	CHECK(has_msg(&m, "the signature \"" SIG_IB_NO_DEVICE "\" (named in rules_env.c, rules_host.c) is not in the database"));
	CHECK(has_msg(&m, "the diagnosis \"" DIAG_RANKS_NEVER_REACHED_NCCL "\" (named in cascade.c) is not in the database"));
	CHECK(!has_msg(&m, "\"" RULE_RANKS_STUCK_IN_INIT "\" (named in nextsteps.c, rules_host.c)"));
	CHECK(rules > 0);
	sigdb_free(&db);

	/* without the rules' tables, the rule ids are missing too */
	msgs_free(&m);
	sigdb_init(&db);
	CHECK_INT(sigdb_load_dir(&db, "tests/db-min", &m), 0);
	CHECK_INT(sigdb_finalize(&db, &m), 0);
	CHECK(sigdb_check_patids(&db, &m) >= (int)(sigs + diags + rules));
	CHECK(has_msg(&m, "the fact rule \"" RULE_RANKS_STUCK_IN_INIT "\" (named in nextsteps.c, rules_host.c)"));
	sigdb_free(&db);
	msgs_free(&m);
	TEST_MAIN_END();
}
