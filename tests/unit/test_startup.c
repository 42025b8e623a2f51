/* Unit tests for what start-up does less of.  The JIT compile on first use
 * (sigdb.h): after loading the
 * built-in database no regex is JIT-compiled; a line JIT-compiles exactly
 * the signatures the prefilter makes candidates for it; two threads that
 * match the samples of every signature at once over one database find what
 * one thread finds (the TSan build of this file is the race check: make
 * check-tsan runs the threads suites; run this binary under TSan by hand);
 * sigdb_jit_all compiles the rest.  The id lookups find every id.  The
 * database version's hash of each diagnosis (sigdb_hash_json) is the hash
 * of cJSON_PrintUnformatted's text, for every diagnosis of the built-in
 * database and for strings of every byte. */
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

static int hash_same(const cJSON *it)
{
	char *s = cJSON_PrintUnformatted(it);
	int same = sigdb_hash_json(HASH_SEED, it) == hash_bytes(HASH_SEED, s, strlen(s));
	if (!same)
		fprintf(stderr, "hash differs for %s\n", s);
	free(s);
	return same;
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
	size_t same_hash = 0;
	for (size_t i = 0; i < db.ndiags; i++)
		same_hash += hash_same(db.diags[i].json);
	CHECK_INT(same_hash, db.ndiags);
	cJSON *o = cJSON_CreateObject();
	char all[256];
	for (int i = 1; i < 256; i++)
		all[i - 1] = (char)i;
	all[255] = 0;
	cJSON_AddStringToObject(o, all, all);
	cJSON_AddStringToObject(o, "", "");
	cJSON_AddItemToObject(o, "a", cJSON_CreateArray());
	cJSON_AddItemToObject(o, "o", cJSON_CreateObject());
	cJSON *arr = cJSON_AddArrayToObject(o, "v");
	double nums[] = {0, -1, 0.1, 0.85, 1e300, -2.5e-7, 123456789012.0, 1.0 / 3};
	for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateNumber(nums[i]));
	cJSON_AddItemToArray(arr, cJSON_CreateTrue());
	cJSON_AddItemToArray(arr, cJSON_CreateFalse());
	cJSON_AddItemToArray(arr, cJSON_CreateNull());
	cJSON_AddItemToArray(arr, cJSON_CreateString("\xc3\xa9 \"q\" \\ /"));
	CHECK(hash_same(o));
	cJSON_Delete(o);

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
