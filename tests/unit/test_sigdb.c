/* Unit tests for the signature database loader: good files load, every
 * kind of mistake is reported with file, JSON path and regex offset, a bad
 * file loads nothing, the self-test catches wrong samples, and literals
 * are derived only when they are provably required. */
#include <stdlib.h>
#include <string.h>
#include "match/sigdb.h"
#include "testlib.h"

static int has_msg(const struct msgs *m, const char *needle)
{
	for (size_t i = 0; i < m->list.n; i++)
		if (strstr(m->list.v[i], needle))
			return 1;
	return 0;
}

#define SIG(id, on, re, sample, neg) \
	"{\"id\":\"" id "\",\"on\":\"" on "\",\"regex\":\"" re "\",\"samples\":[{\"line\":\"" sample \
	"\"}],\"negative_samples\":[\"" neg "\"]}"
#define DIAG(id, any) \
	"{\"id\":\"" id "\",\"category\":\"OTHER\",\"severity\":\"error\",\"role\":\"root\"," \
	"\"title\":\"t\",\"explanation\":\"e\",\"fix\":[\"f\"],\"when\":{\"any\":[\"" any "\"]}}"

static const char *GOOD =
	"{\"signatures\":[" SIG("a.x", "warn", "Duplicate GPU detected : rank (?<r>\\\\d+)",
	                          "h:1:1 [0] init.cc:9 NCCL WARN Duplicate GPU detected : rank 0 and rank 1",
	                          "h:1:1 [0] NCCL INFO Duplicate GPU detected : rank 0") "],"
	"\"diagnoses\":[" DIAG("a.d", "a.x") "]}";

int main(void)
{
	struct sigdb db;
	struct msgs m = {0};
	size_t ok;

	sigdb_init(&db);
	CHECK_INT(sigdb_load_text(&db, "good.json", GOOD, strlen(GOOD), &m), 0);
	CHECK_INT(sigdb_finalize(&db, &m), 0);
	CHECK_INT(db.nsigs, 1);
	CHECK_INT(sigdb_selftest(&db, &m, &ok), 0);
	CHECK_INT(ok, 2); /* one sample, one negative (an INFO line is not tried by an "on: warn" signature) */
	CHECK_STR(db.sigs[0].literals.n ? db.sigs[0].literals.v[0] : "", "Duplicate GPU detected : rank ");
	CHECK(db.sigs[0].literals_derived);
	CHECK_STR(db.sigs[0].capnames[1], "r");
	sigdb_free(&db);

	/* JSON syntax error: line and column */
	sigdb_init(&db);
	msgs_free(&m);
	CHECK_INT(sigdb_load_text(&db, "bad.json", "{\n  \"signatures\": [,]\n}", 22, &m), 1);
	CHECK(has_msg(&m, "bad.json: line 2, column"));
	sigdb_free(&db);

	/* regex error with offset, bad category, unknown on, nothing loaded */
	const char *bad =
		"{\"signatures\":[{\"id\":\"b.x\",\"on\":\"sometimes\",\"regex\":\"abc(def\","
		"\"samples\":[\"x\"],\"negative_samples\":[\"y\"]}],"
		"\"diagnoses\":[{\"id\":\"b.d\",\"category\":\"NOT_A_CATEGORY\",\"severity\":\"fatal\",\"role\":\"root\","
		"\"title\":\"t\",\"explanation\":\"e\",\"fix\":[],\"when\":{\"any\":[\"b.x\"],\"nccl\":\">=2.x\"}}]}";
	sigdb_init(&db);
	msgs_free(&m);
	CHECK(sigdb_load_text(&db, "p/bad.json", bad, strlen(bad), &m) >= 5);
	CHECK(has_msg(&m, "p/bad.json:1: signatures[0].regex: missing closing parenthesis at offset 7"));
	CHECK(has_msg(&m, "signatures[0].on: unknown value \"sometimes\""));
	CHECK(has_msg(&m, "diagnoses[0].category: unknown category \"NOT_A_CATEGORY\""));
	CHECK(has_msg(&m, "diagnoses[0].severity: unknown severity"));
	CHECK(has_msg(&m, "diagnoses[0]: \"fix\" must list at least one step"));
	CHECK(has_msg(&m, "diagnoses[0].when.nccl: bad version range"));
	CHECK_INT(db.nsigs, 0);
	CHECK_INT(db.ndiags, 0);
	sigdb_free(&db);

	/* references that do not resolve; duplicate ids across files; a wrong sample */
	const char *f1 = "{\"signatures\":[" SIG("c.x", "any", "foo", "foo bar", "baz") "],"
	                 "\"diagnoses\":[" DIAG("c.d", "c.nope") "]}";
	const char *f2 = "{\"signatures\":[" SIG("c.x", "any", "qux", "not it", "qux") "],"
	                 "\"diagnoses\":[" DIAG("c.e", "c.x") "]}";
	sigdb_init(&db);
	msgs_free(&m);
	CHECK_INT(sigdb_load_text(&db, "f1.json", f1, strlen(f1), &m), 0);
	CHECK_INT(sigdb_load_text(&db, "f2.json", f2, strlen(f2), &m), 0);
	CHECK(sigdb_finalize(&db, &m) >= 2);
	CHECK(has_msg(&m, "f2.json:1: signatures[0].id: duplicate id \"c.x\""));
	CHECK(has_msg(&m, "f1.json:1: diagnoses[0].when.any[0]: no signature or fact rule \"c.nope\""));
	CHECK(sigdb_selftest(&db, &m, &ok) >= 2);
	CHECK(has_msg(&m, "f2.json: signatures[0].samples[0]: \"c.x\" does not match"));
	CHECK(has_msg(&m, "f2.json: signatures[0].negative_samples[0]: \"c.x\" matches but must not"));
	sigdb_free(&db);

	/* fact-rule ids are known only from the tables the loader is given */
	static const struct rule_def rdefs[] = {{"r.one", "a rule"}};
	const char *f4 = "{\"signatures\":[],\"diagnoses\":[" DIAG("r.d", "r.one") "]}";
	sigdb_init(&db);
	msgs_free(&m);
	CHECK_INT(sigdb_load_text(&db, "f4.json", f4, strlen(f4), &m), 0);
	CHECK(sigdb_finalize(&db, &m) >= 1);
	CHECK(has_msg(&m, "f4.json:1: diagnoses[0].when.any[0]: no signature or fact rule \"r.one\""));
	sigdb_free(&db);
	sigdb_init(&db);
	msgs_free(&m);
	sigdb_add_rules(&db, rdefs, 1);
	CHECK_INT(sigdb_load_text(&db, "f4.json", f4, strlen(f4), &m), 0);
	CHECK_INT(sigdb_finalize(&db, &m), 0);
	CHECK(sigdb_rule(&db, "r.one") == &rdefs[0]);
	CHECK(sigdb_rule(&db, "r.two") == NULL);
	sigdb_free(&db);

	/* literal derivation: alternation and optional parts give nothing unsafe */
	const char *f3 = "{\"signatures\":["
		SIG("d.alt", "any", "foo|barbaz", "foo", "x") ","
		SIG("d.opt", "any", "ab?cdefg", "acdefg", "x") ","
		SIG("d.grp", "any", "(?:Connect|connect) to (?<peer>\\\\S+) failed", "Connect to 1.2.3.4<5> failed", "x") ","
		SIG("d.esc", "any", "Call to ibv_reg_mr\\\\(\\\\) failed", "Call to ibv_reg_mr() failed", "x") "],"
		"\"diagnoses\":[{\"id\":\"d.d\",\"category\":\"OTHER\",\"severity\":\"error\",\"role\":\"root\","
		"\"title\":\"t\",\"explanation\":\"e\",\"fix\":[\"f\"],\"when\":{\"any\":[\"d.alt\",\"d.opt\",\"d.grp\",\"d.esc\"]}}]}";
	sigdb_init(&db);
	msgs_free(&m);
	CHECK_INT(sigdb_load_text(&db, "f3.json", f3, strlen(f3), &m), 0);
	CHECK_INT(sigdb_finalize(&db, &m), 0);
	CHECK_INT(db.sigs[0].literals.n, 0);
	CHECK_STR(db.sigs[1].literals.v[0], "cdefg");
	CHECK_STR(db.sigs[2].literals.v[0], " failed");
	CHECK_STR(db.sigs[3].literals.v[0], "Call to ibv_reg_mr() failed");
	CHECK_INT(sigdb_selftest(&db, &m, &ok), 0);
	sigdb_free(&db);
	msgs_free(&m);

	TEST_MAIN_END();
}
