/* test_flight.c - the flight-recorder reader and its cross-rank analysis
 * (parse/flight*.c) on the real dumps of torch 2.11 and the synthetic cases
 * of fixtures/flight: kind by content, rank from the name, the fields of
 * each format version, the stop, culprits and their last entries, the
 * mismatches, ranks without a dump, and the JSON section. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "parse/flight.h"
#include "testlib.h"

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		*n = 0;
		return NULL;
	}
	char *b = malloc(1 << 20);
	*n = fread(b, 1, 1 << 20, f);
	fclose(f);
	return b;
}

/* Every file of a case folder (ranks 0..7, as torch names them). */
static struct flight *load_case(const char *dir, const char *pattern, int nranks, struct msgs *m)
{
	struct flight *f = flight_new();
	for (int r = 0; r < nranks; r++) {
		char path[512];
		snprintf(path, sizeof path, pattern, dir, r);
		size_t n;
		char *b = slurp(path, &n);
		if (b)
			flight_add_doc(f, path, b, n, 1, m);
		free(b);
	}
	flight_finish(f, NULL);
	return f;
}

static const cJSON *stop0(const cJSON *j)
{
	return cJSON_GetArrayItem(json_get(j, "stops"), 0);
}

static int ints_are(const cJSON *a, const int *v, int n)
{
	if (json_size(a) != n)
		return 0;
	for (int i = 0; i < n; i++) {
		const cJSON *x = cJSON_GetArrayItem(a, i);
		if (!cJSON_IsNumber(x) || (int)x->valuedouble != v[i])
			return 0;
	}
	return 1;
}

static void sniff(void)
{
	size_t n;
	char *b = slurp("fixtures/flight/real/timeout/nccl_trace_rank_0", &n);
	CHECK(b && flight_sniff(b, n) == 1);
	free(b);
	b = slurp("fixtures/flight/real/ondemand/pending_json/rank_0.json", &n);
	CHECK(b && flight_sniff(b, n) == 2);
	free(b);
	CHECK(flight_sniff("\x80\x02]q\x00(K\x01K\x02" "e.xxxxxxxxxxxx", 20) == 0); /* a pickle, not a dump */
	CHECK(flight_sniff("{\"name\": \"x\", \"entries\": []}  ", 30) == 0);
	CHECK(flight_sniff("short", 5) == 0);
}

static void behind(void)
{
	struct msgs m = {0};
	struct flight *f = load_case("fixtures/flight/synthetic/behind", "%s/nccl_trace_rank_%d", 4, &m);
	CHECK_INT(m.list.n, 0);
	CHECK_INT(flight_ndumps(f), 4);
	CHECK_STR(flight_headline(f), "hang: rank 2 behind at _all_gather_base #6 in gen_timeout.py:21");
	cJSON *j = flight_json(f);
	const cJSON *s = stop0(j);
	CHECK_STR(json_str(s, "kind"), "collective");
	int b[] = {2}, w[] = {0, 1, 3};
	CHECK(ints_are(json_get(s, "behind"), b, 1));
	CHECK(ints_are(json_get(s, "waiting"), w, 3));
	CHECK_STR(json_str(json_get(s, "call"), "op"), "_all_gather_base");
	CHECK_STR(json_str(json_get(s, "call"), "state"), "started");
	const cJSON *cul = cJSON_GetArrayItem(json_get(s, "culprits"), 0);
	const cJSON *last = json_get(cul, "last_in_group");
	CHECK_STR(json_str(last, "op"), "all_reduce");
	CHECK_STR(json_str(last, "state"), "completed");
	double seq = 0;
	CHECK(json_num(last, "seq", &seq) && seq == 5);
	CHECK(json_str(last, "frames") && strstr(json_str(last, "frames"), "gen_timeout.py:20"));
	CHECK_STR(json_str(last, "where"), "/work/main/.dev/flight/gen_timeout.py:20 (<module>)");
	/* pg_status of each dump, as torch wrote it */
	const cJSON *d0 = cJSON_GetArrayItem(json_get(j, "dumps"), 0);
	const cJSON *st = cJSON_GetArrayItem(json_get(d0, "pg_status"), 0);
	double enq = 0, comp = 0;
	CHECK(json_num(st, "last_enqueued", &enq) && enq == 6);
	CHECK(json_num(st, "last_completed", &comp) && comp == 5);
	CHECK_STR(json_str(d0, "version"), "2.10");
	CHECK_INT(json_size(json_get(j, "mismatches")), 0);
	/* the lanes: the culprit first, its last collectives, the stop marked on the others */
	const cJSON *l0 = cJSON_GetArrayItem(json_get(j, "lanes"), 0), *l1 = cJSON_GetArrayItem(json_get(j, "lanes"), 1);
	CHECK_STR(json_str(l0, "role"), "behind");
	const cJSON *c, *mark = NULL;
	cJSON_ArrayForEach(c, json_get(l1, "calls")) if (cJSON_IsTrue(json_get(c, "stop"))) mark = c;
	CHECK(mark != NULL);
	cJSON_Delete(j);
	size_t ni;
	const struct flight_item *it = flight_items(f, &ni);
	CHECK(ni >= 1 && it[0].kind == FF_BEHIND && it[0].nranks == 1 && it[0].ranks[0] == 2);
	flight_free(f);
	msgs_free(&m);
}

/* the same hang in the formats 1.1 (no pg_config), 1.4 (pg_config {0: [ranks]}) and JSON */
static void versions(void)
{
	static const char *const cases[][2] = {
		{"fixtures/flight/synthetic/v1_1_behind", "%s/nccl_trace_rank_%d"},
		{"fixtures/flight/synthetic/v1_4_behind", "%s/nccl_trace_rank_%d"},
		{"fixtures/flight/synthetic/json_behind", "%s/rank_%d.json"},
		{"fixtures/flight/synthetic/ringwrap", "%s/nccl_trace_rank_%d"},
	};
	for (size_t i = 0; i < 4; i++) {
		struct msgs m = {0};
		struct flight *f = load_case(cases[i][0], cases[i][1], 4, &m);
		cJSON *j = flight_json(f);
		int b[] = {2};
		double seq = 0;
		CHECK(ints_are(json_get(stop0(j), "behind"), b, 1));
		CHECK(json_num(stop0(j), "seq", &seq) && seq == 6);
		CHECK_INT(m.list.n, 0);
		const cJSON *v = cJSON_GetArrayItem(json_get(j, "versions"), 0);
		CHECK(cJSON_IsString(v) && !strcmp(v->valuestring, i == 0 ? "1.1" : i == 1 ? "1.4" : "2.10"));
		cJSON_Delete(j);
		flight_free(f);
		msgs_free(&m);
	}
}

static void mismatches(void)
{
	static const struct { const char *c; const char *kind; int rank; } M[] = {
		{"desync_op", "op", 3}, {"desync_dtype", "dtypes", 1}, {"desync_size", "sizes", 2}, {"membership", "membership", 3},
	};
	for (size_t i = 0; i < 4; i++) {
		char dir[128];
		snprintf(dir, sizeof dir, "fixtures/flight/synthetic/%s", M[i].c);
		struct msgs m = {0};
		struct flight *f = load_case(dir, "%s/nccl_trace_rank_%d", 4, &m);
		cJSON *j = flight_json(f);
		const cJSON *mi = cJSON_GetArrayItem(json_get(j, "mismatches"), 0);
		CHECK_STR(json_str(mi, "kind"), M[i].kind);
		int r[] = {M[i].rank};
		CHECK(ints_are(json_get(mi, "ranks"), r, 1));
		CHECK(cJSON_IsTrue(json_get(mi, "first_in_group")));
		CHECK(flight_headline(f) && !strncmp(flight_headline(f), "desync: ", 8));
		cJSON_Delete(j);
		flight_free(f);
		msgs_free(&m);
	}
}

static void missing_and_names(void)
{
	struct msgs m = {0};
	struct flight *f = load_case("fixtures/flight/synthetic/missing_rank", "%s/nccl_trace_rank_%d", 4, &m);
	cJSON *j = flight_json(f);
	int miss[] = {3};
	CHECK(ints_are(json_get(j, "ranks_without_dump"), miss, 1));
	CHECK(ints_are(json_get(stop0(j), "without_dump"), miss, 1));
	size_t ni;
	const struct flight_item *it = flight_items(f, &ni);
	CHECK(ni >= 1 && it[0].kind == FF_WAIT_MISSING && it[0].ranks[0] == 3);
	cJSON_Delete(j);
	flight_free(f);
	msgs_free(&m);
	/* a second dump of one rank; a name without a rank in a job of several ranks */
	size_t n;
	char *b = slurp("fixtures/flight/synthetic/behind/nccl_trace_rank_1", &n);
	f = flight_new();
	flight_add_doc(f, "a/nccl_trace_rank_1", b, n, 1, &m);
	flight_add_doc(f, "b/rank_1.pkl", b, n, 1, &m);
	flight_add_doc(f, "c/trace", b, n, 1, &m);
	CHECK_INT(m.list.n, 2);
	CHECK(m.list.n == 2 && strstr(m.list.v[0], "b/rank_1.pkl: a second flight-recorder dump of rank 1"));
	CHECK(m.list.n == 2 && strstr(m.list.v[1], "c/trace: a flight-recorder dump whose rank is unknown"));
	flight_finish(f, NULL);
	flight_free(f);
	free(b);
	msgs_free(&m);
}

static void real(void)
{
	struct msgs m = {0};
	struct flight *f = load_case("fixtures/flight/real/timeout", "%s/nccl_trace_rank_%d", 1, &m);
	CHECK_STR(flight_headline(f), "hang: every rank waits in all_reduce #7 (never started) at gen_timeout.py:25");
	cJSON *j = flight_json(f);
	CHECK_STR(json_str(stop0(j), "waiting_state"), "scheduled");
	cJSON_Delete(j);
	flight_free(f);
	/* the on-demand dump: every collective type of torch 2.11, all completed
	 * (its p2p ops to itself completed with their coalesced group's marker) */
	f = load_case("fixtures/flight/real/ondemand/pickle", "%s/rank_%d", 1, &m);
	j = flight_json(f);
	CHECK_INT(json_size(json_get(j, "stops")), 0);
	CHECK_INT(json_size(json_get(j, "mismatches")), 0);
	CHECK_INT(json_size(json_get(j, "process_groups")), 2);
	size_t ni;
	const struct flight_item *it = flight_items(f, &ni);
	CHECK(ni == 1 && it[0].kind == FF_ALL_DONE);
	cJSON_Delete(j);
	flight_free(f);
	/* a cut dump: one line, naming the file and the offset */
	size_t n;
	char *b = slurp("fixtures/flight/real/timeout/nccl_trace_rank_0", &n);
	f = flight_new();
	flight_add_doc(f, "x/nccl_trace_rank_0", b, n / 2, 0, &m);
	CHECK_INT(m.list.n, 1);
	CHECK(m.list.n == 1 && !strncmp(m.list.v[0], "x/nccl_trace_rank_0: offset ", 28) &&
	      strstr(m.list.v[0], "(the input was cut before its end)"));
	flight_finish(f, NULL);
	j = flight_json(f);
	CHECK_INT(json_size(json_get(j, "dumps_not_read")), 1);
	cJSON_Delete(j);
	flight_free(f);
	free(b);
	msgs_free(&m);
}

int main(void)
{
	sniff();
	behind();
	versions();
	mismatches();
	missing_and_names();
	real();
	TEST_MAIN_END();
}
