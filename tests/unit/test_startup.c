/* Unit tests for what start-up does less of.  The JIT compile on first use
 * (sigdb.h): after loading the
 * built-in database no regex is JIT-compiled; a line JIT-compiles exactly
 * the signatures the prefilter makes candidates for it; two threads that
 * match the samples of every signature at once over one database find what
 * one thread finds (the TSan build of this file is the race check: make
 * check-tsan runs the threads suites; run this binary under TSan by hand);
 * sigdb_jit_all compiles the rest.  The id lookups find every id.  The
 * database version is a hash of the pattern files' text (no walk over the
 * parsed diagnoses): equal texts, equal versions; one byte more, another. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "base/hash.h"
#include "parse/logline.h"
#include "match/match.h"
#include "rules/rules.h"
#include "match/sigdb.h"
#include "testlib.h"

static struct sigdb db;
static char **lines;  /* every sample line of every signature, padded */
static size_t nlines;

static void count_cb(void *ctx, const struct signature *s, const struct logline *ll, const PCRE2_SIZE *ov, int n)
{
	(void)s, (void)ll, (void)ov, (void)n;
	(*(size_t *)ctx)++;
}

/* matches per line of lines[], into out[] */
static void match_all(size_t *out)
{
	struct matcher *mt = matcher_new(&db);
	for (size_t i = 0; i < nlines; i++) {
		struct logline ll;
		logline_parse(lines[i], strlen(lines[i]), &ll);
		out[i] = 0;
		size_t nc = matcher_scan(mt, &ll);
		matcher_match_list(mt, &ll, matcher_candidates(mt), nc, "t", count_cb, &out[i], NULL);
		/* entries of the benign list match through matcher_benign only */
		out[i] += matcher_benign(mt, &ll, matcher_candidates(mt), nc) != NULL;
	}
	matcher_free(mt);
}

static void *thread_main(void *arg)
{
	match_all(arg);
	return NULL;
}

static char *padded(const char *s)
{
	size_t n = strlen(s);
	char *p = calloc(n + 64, 1);
	memcpy(p, s, n);
	return p;
}

int main(void)
{
	struct msgs m = {0};
	/* eager (user pattern files, check-db): every regex compiled at load */
	sigdb_init(&db);
	rules_register(&db);
	CHECK_INT(sigdb_load_dir(&db, "patterns", &m), 0);
	CHECK_INT(sigdb_finalize(&db, &m), 0);
	size_t compiled = 0;
	for (size_t i = 0; i < db.nsigs; i++)
		compiled += db.sigs[i].code != NULL && db.sigs[i].capnames != NULL;
	CHECK_INT(compiled, db.nsigs);
	size_t maxg = db.max_capture_groups;
	sigdb_free(&db);
	/* lazy (the built-in database in analyze): none compiled at load, room
	 * for every capture group all the same */
	sigdb_init(&db);
	sigdb_set_lazy(&db, 1);
	rules_register(&db);
	CHECK_INT(sigdb_load_dir(&db, "patterns", &m), 0);
	CHECK_INT(sigdb_finalize(&db, &m), 0);
	CHECK(db.nsigs > 100);
	compiled = 0;
	for (size_t i = 0; i < db.nsigs; i++)
		compiled += db.sigs[i].code != NULL;
	CHECK_INT(compiled, 0);
	CHECK(db.max_capture_groups >= maxg);
	CHECK_INT(sigdb_jit_count(&db), 0); /* nothing JIT-compiled at load */

	/* the ids: every one found at its place, a missing one not */
	size_t found = 0;
	for (size_t i = 0; i < db.nsigs; i++)
		found += sigdb_sig(&db, db.sigs[i].id) == &db.sigs[i];
	CHECK_INT(found, db.nsigs);
	found = 0;
	for (size_t i = 0; i < db.ndiags; i++)
		found += sigdb_diag(&db, db.diags[i].id) == &db.diags[i];
	CHECK_INT(found, db.ndiags);
	CHECK(sigdb_sig(&db, "no.such.id") == NULL);
	CHECK(sigdb_diag(&db, "no.such.id") == NULL);

	/* the version's hash of a diagnosis: that of cJSON's text */
	/* the version is the files' text: the same texts give the same version,
	 * one byte changed another (hash_words over every file as it is read) */
	{
		static const char t1[] = "{\"family\": \"x\", \"description\": \"d\", \"signatures\": [], \"diagnoses\": []}";
		char t2[sizeof t1];
		memcpy(t2, t1, sizeof t1);
		t2[sizeof t1 - 4] = ' ';
		struct sigdb a, b, c;
		struct msgs ma = {0};
		sigdb_init(&a);
		sigdb_init(&b);
		sigdb_init(&c);
		sigdb_load_text(&a, "x.json", t1, sizeof t1 - 1, &ma);
		sigdb_load_text(&b, "x.json", t1, sizeof t1 - 1, &ma);
		sigdb_load_text(&c, "x.json", t2, sizeof t2 - 1, &ma);
		sigdb_finalize(&a, &ma);
		sigdb_finalize(&b, &ma);
		sigdb_finalize(&c, &ma);
		CHECK(strcmp(a.version, b.version) == 0);
		CHECK(strcmp(a.version, c.version) != 0);
		CHECK(strncmp(a.version, "0.0-", 4) == 0);
		sigdb_free(&a);
		sigdb_free(&b);
		sigdb_free(&c);
		msgs_free(&ma);
	}
	CHECK(hash_words(HASH_SEED, "abcdefghij", 10) != hash_words(HASH_SEED, "abcdefghik", 10));
	CHECK(hash_words(HASH_SEED, "", 0) == HASH_SEED);

	for (size_t i = 0; i < db.nsigs; i++) {
		const cJSON *it;
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(db.sigs[i].json, "samples")) {
			const char *l = cJSON_IsString(it) ? it->valuestring
			              : cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "line"));
			if (!l)
				continue;
			lines = realloc(lines, (nlines + 1) * sizeof *lines);
			lines[nlines++] = padded(l);
		}
	}
	CHECK(nlines >= db.nsigs);

	/* one line: exactly its candidates are JIT-compiled */
	struct matcher *mt = matcher_new(&db);
	struct logline ll;
	logline_parse(lines[0], strlen(lines[0]), &ll);
	size_t ncand = matcher_scan(mt, &ll);
	size_t hits = 0;
	matcher_match_list(mt, &ll, matcher_candidates(mt), ncand, "t", count_cb, &hits, NULL);
	hits += matcher_benign(mt, &ll, matcher_candidates(mt), ncand) != NULL; /* lines[0] may be a benign entry's */
	CHECK(hits >= 1);
	CHECK(ncand >= 1 && ncand < db.nsigs / 10);
	CHECK_INT(sigdb_jit_count(&db), ncand);
	compiled = 0;
	for (size_t i = 0; i < db.nsigs; i++)
		compiled += db.sigs[i].code != NULL;
	CHECK_INT(compiled, ncand); /* compiled with its JIT, on the same first use */
	matcher_free(mt);

	/* two threads at once, then one: the same matches */
	size_t *a = calloc(nlines, sizeof *a), *b = calloc(nlines, sizeof *b), *c = calloc(nlines, sizeof *c);
	pthread_t ta, tb;
	CHECK_INT(pthread_create(&ta, NULL, thread_main, a), 0);
	CHECK_INT(pthread_create(&tb, NULL, thread_main, b), 0);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	match_all(c);
	size_t same = 0, matched = 0;
	for (size_t i = 0; i < nlines; i++) {
		same += a[i] == c[i] && b[i] == c[i];
		matched += c[i] > 0;
	}
	CHECK_INT(same, nlines);
	CHECK_INT(matched, nlines); /* every sample matches its signature at least */
	size_t after = sigdb_jit_count(&db);
	CHECK(after > ncand && after <= db.nsigs);
	sigdb_jit_all(&db);
	CHECK_INT(sigdb_jit_count(&db), db.nsigs);

	/* a lazy database whose regex does not compile (tests/db-bad/bad-regex):
	 * loaded, and on the first candidate line skipped with a message */
	struct sigdb bad;
	sigdb_init(&bad);
	sigdb_set_lazy(&bad, 1);
	struct msgs bm = {0};
	CHECK_INT(sigdb_load_dir(&bad, "tests/db-bad/bad-regex", &bm), 0);
	CHECK_INT(sigdb_finalize(&bad, &bm), 0);
	CHECK_INT(bad.nsigs, 1);
	struct matcher *bmt = matcher_new(&bad);
	char *bl = padded("vm:1159:1159 [0] bootstrap.cc:114 NCCL WARN Bootstrap : no socket interface found");
	logline_parse(bl, strlen(bl), &ll);
	size_t bn = matcher_scan(bmt, &ll), bh = 0;
	CHECK_INT(bn, 1);
	CHECK_INT(matcher_match_list(bmt, &ll, matcher_candidates(bmt), bn, "t.log", count_cb, &bh, &bm), 0);
	CHECK_INT(bh, 0);
	CHECK(bm.list.n == 1 && strstr(bm.list.v[0], "\"t.no_socket_if\"") && strstr(bm.list.v[0], "does not compile"));
	CHECK(bad.sigs[0].code == NULL);
	free(bl);
	matcher_free(bmt);
	msgs_free(&bm);
	sigdb_free(&bad);

	for (size_t i = 0; i < nlines; i++)
		free(lines[i]);
	free(lines);
	free(a);
	free(b);
	free(c);
	msgs_free(&m);
	sigdb_free(&db);
	TEST_MAIN_END();
}
