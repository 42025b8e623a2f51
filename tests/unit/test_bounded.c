/* test_bounded.c - issue 27: bounded work on every input.  Each reproducer
 * of the issue, at a size where the code before it did quadratic work (or
 * kept memory per line), checked by a count of work the code keeps (hash
 * probes, table cells, bytes looked at, entries kept), never by time.  The
 * counts before the fix are in the comments (measured on the reproducer;
 * the code then had no counter: the loops it ran are counted by hand). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cisafe.h"
#include "engine/analysis.h"
#include "engine/bundle.h"
#include "input/input.h"
#include "match/match.h"
#include "match/sigdb.h"
#include "parse/logline.h"
#include "parse/ranks.h"
#include "parse/sysparse.h"
#include "report/summary.h"
#include "rules/rules.h"
#include "testlib.h"

static struct sigdb db;

/* n lines of fmt (one %d or %x: the line number, twice at most) */
static void feed_lines(struct ranks *r, const char *fmt, int n)
{
	char line[512];
	for (int i = 0; i < n; i++) {
		int len = snprintf(line, sizeof line, fmt, i, i);
		struct logline ll;
		logline_parse(line, (size_t)len, &ll);
		ranks_note(r, &ll, "run.log", (uint64_t)i + 1, 0);
	}
}

/* Item 1: communicators, members, uniqueId waits.  Before: a strcmp against
 * every communicator per Init line (80000 lines: 3.2e9), every member, every
 * earlier wait. */
static void test_comms(void)
{
	enum { N = 20000 };
	struct ranks *r = ranks_new();
	feed_lines(r, "host0:1:1 [0] NCCL INFO comm 0x%x rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 10 commId 0x%x - Init START", N);
	CHECK_INT(r->ncomms, RANKS_MAX_COMMS);
	CHECK_INT(r->untracked_comm, N - RANKS_MAX_COMMS);
	CHECK(r->work < 8ull * N); /* was N * 4096 / 2 comparisons and more */
	ranks_finish(r);
	ranks_free(r);

	/* distinct comm pointers in one commId: one communicator, members capped */
	r = ranks_new();
	feed_lines(r, "host0:1:1 [0] NCCL INFO comm 0x%x rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 10 commId 0xabc - Init START", RANKS_MAX_MEMBERS + 1000);
	CHECK_INT(r->ncomms, 1);
	CHECK_INT(r->comms[0].n, RANKS_MAX_MEMBERS);
	CHECK_INT(r->untracked_member, 1000);
	CHECK(r->work < 16ull * (RANKS_MAX_MEMBERS + 1000));
	/* an Abort line finds its member through the index */
	uint64_t w0 = r->work;
	feed_lines(r, "host0:1:1 [0] NCCL INFO comm 0x%x rank 0 nRanks 2 - Abort START", 1000);
	CHECK(r->work - w0 < 16ull * 1000);
	ranks_finish(r);
	ranks_free(r);

	/* uniqueId waits: by (waiter, root), each pair once */
	r = ranks_new();
	feed_lines(r, "[1] is setting up NCCL communicator and retrieving ncclUniqueId from [%d] via c10d key-value store by key '0', but store->get('0') got error: timeout", N);
	CHECK_INT(r->nuid, RANKS_MAX_UID);
	CHECK_INT(r->untracked_uid, N - RANKS_MAX_UID);
	CHECK(r->work < 8ull * N);
	ranks_free(r);
	r = ranks_new();
	feed_lines(r, "[1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: timeout", 500);
	CHECK_INT(r->nuid, 1); /* the report said "rank(s) 1, 1, 1, 1, 1" */
	ranks_free(r);
}

/* Item 11: [rankN]: lines of 8192 ranks.  Before: a scan of every process
 * per line (8192 ranks x 1M lines: 3.6 s). */
static void test_torch_ranks(void)
{
	enum { N = 100000 };
	struct ranks *r = ranks_new();
	char line[128];
	for (int i = 0; i < N; i++) {
		int len = snprintf(line, sizeof line, "[rank%d]: step %d loss 1.0", i % 8192, i);
		struct logline ll;
		logline_parse(line, (size_t)len, &ll);
		ranks_note(r, &ll, "run.log", (uint64_t)i + 1, 0);
	}
	CHECK_INT(r->n, RANKS_MAX_PROCS);
	CHECK(r->work < 4ull * N); /* was about N * 4096 / 2 */
	ranks_finish(r);
	CHECK(ranks_by_rank(r, 4095) != NULL && ranks_by_rank(r, 4095)->rank == 4095);
	CHECK(ranks_by_rank(r, 5000) == NULL);
	ranks_free(r);
}

/* A wrapper's pid ("(pid=N) ...": Ray's worker tag) names the one NCCL
 * process of that pid: through a pid index, not a scan of every process
 * per line (4096 processes x 100000 tagged lines: 4e8 comparisons). */
static void test_wrapper_pids(void)
{
	enum { N = 100000 };
	struct ranks *r = ranks_new();
	feed_lines(r, "host%d:%d:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>", RANKS_MAX_PROCS);
	CHECK_INT(r->n, RANKS_MAX_PROCS);
	uint64_t w0 = r->work;
	char line[128];
	for (int i = 0; i < N; i++) {
		int len = snprintf(line, sizeof line, "(RayWorker pid=%d) step %d", i % RANKS_MAX_PROCS, i);
		struct logline ll;
		logline_parse(line, (size_t)len, &ll);
		ranks_note(r, &ll, "run.log", (uint64_t)i + 1, 0);
	}
	CHECK(r->work - w0 < 4ull * N);
	CHECK_INT(r->n, RANKS_MAX_PROCS); /* each line went to its NCCL process */
	CHECK_INT(r->untracked, 0);
	CHECK(r->v[7].own_lines > 0 && r->v[7].pid == 7);
	ranks_free(r);
}

/* Item 11: launcher exit records of one process past the cap are merged
 * into its record (the message said "more than 4096 processes"), those of
 * other processes counted as such. */
static void test_exit_records(void)
{
	struct ranks *r = ranks_new();
	feed_lines(r, "E1130 14:16:26.028000 1183 torch/distributed/elastic/multiprocessing/api.py:986] failed (exitcode: 1) local_rank: 0 (pid: 1225) of binary: /usr/bin/python3%.0d", 5000);
	ranks_finish(r);
	CHECK_INT(r->untracked, 0);
	CHECK_INT(r->untracked_exit, 0);
	CHECK_INT(r->n, 1);
	ranks_free(r);
	r = ranks_new();
	feed_lines(r, "E1130 14:16:26.028000 1183 torch/distributed/elastic/multiprocessing/api.py:986] failed (exitcode: 1) local_rank: 0 (pid: %d) of binary: /usr/bin/python3", 5000);
	ranks_finish(r);
	CHECK_INT(r->untracked_exit, 5000 - RANKS_MAX_PROCS);
	CHECK(r->work < 4ull * 5000);
	ranks_free(r);
}

static struct bundle *run_text(const char *name, const char *text, size_t len)
{
	struct bundle *b = bundle_new("t", &db, NULL);
	bundle_add_memory(b, name, text, len);
	analysis_finish(b);
	return b;
}

/* The rules over a bundle's input, with their work counted. */
static uint64_t rules_work(const char *text, size_t len, struct bundle **out)
{
	struct bundle *b = bundle_new("t", &db, NULL);
	bundle_add_memory(b, "run.log", text, len);
	bundle_end_input(b);
	struct rule_ctx rc;
	analysis_rule_ctx(b, &rc);
	rules_run_all(&rc);
	*out = b;
	return rc.work;
}

static char *lines_of(const char *fmt, int n, size_t *len)
{
	struct buf b;
	buf_init(&b);
	for (int i = 0; i < n; i++) {
		buf_printf(&b, fmt, i, i);
		buf_addc(&b, '\n');
	}
	*len = b.len;
	return buf_steal(&b);
}

/* Item 3: communicators claiming nranks 999999.  Before: two arrays of
 * nranks and a walk over them for each (20000 lines: 15.5 s). */
static void test_nranks(void)
{
	size_t len;
	char *t = lines_of("host0:%d:1 [0] NCCL INFO comm 0x1 rank 0 nranks 999999 cudaDev 0 nvmlDev 0 busId 10 commId 0x%x - Init START",
	                   8000, &len);
	struct bundle *b;
	uint64_t w = rules_work(t, len, &b);
	CHECK(w > 0);
	CHECK(w < 1000ull * RANKS_MAX_COMMS); /* was 999999 x 4096 */
	CHECK(evlist_count(&b->ev, "ranks.missing_from_comm") > 0);
	bundle_free(b);
	free(t);
	/* and one rank missing of 4 is still named, with the ranks seen */
	const char *four = "h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 4 cudaDev 0 nvmlDev 0 busId 10 commId 0xc - Init START\n"
	                   "h:2:2 [1] NCCL INFO comm 0x2 rank 1 nranks 4 cudaDev 1 nvmlDev 1 busId 20 commId 0xc - Init START\n"
	                   "h:4:4 [3] NCCL INFO comm 0x4 rank 3 nranks 4 cudaDev 3 nvmlDev 3 busId 40 commId 0xc - Init START\n";
	rules_work(four, strlen(four), &b);
	int found = 0;
	for (size_t i = 0; i < b->ev.n; i++)
		if (strcmp(b->ev.v[i].id, "ranks.missing_from_comm") == 0 && b->ev.v[i].rank == 2 &&
		    strstr(b->ev.v[i].text, "only ranks 0, 1, 3 reached Init START; rank 2 never did"))
			found++;
	CHECK_INT(found, 1);
	bundle_free(b);
}

/* Item 2: "NCCL_X set by environment to Y" of 80000 names and of 60 kB
 * values.  Before: a linear lookup per line (80000 names: 48 s), values kept
 * whole (3000 x 60 kB: 553 MB), an edit distance against the whole table. */
static void test_env(void)
{
	size_t len;
	char *t = lines_of("host0:1:1 [0] NCCL INFO NCCL_X%06d set by environment to 1", 20000, &len);
	struct bundle *b = bundle_new("t", &db, NULL);
	bundle_add_memory(b, "run.log", t, len);
	uint64_t probes = b->envix.work;
	CHECK(probes < 4ull * 20000);
	bundle_end_input(b);
	CHECK_INT(json_size(json_get(b->facts, "env")), SYS_ENV_MAX);
	CHECK_INT(b->env_dropped, 20000 - SYS_ENV_MAX);
	struct rule_ctx rc;
	analysis_rule_ctx(b, &rc);
	rules_run_all(&rc);
	/* the closest-name search: a band of the table, not all 64 x 64 cells
	 * of every known name (about 4096 x 400 x 120 before) */
	CHECK(rc.work < 60ull * 1000 * 1000);
	bundle_free(b);
	free(t);

	struct buf v;
	buf_init(&v);
	for (int i = 0; i < 3; i++) {
		buf_printf(&v, "host0:1:1 [0] NCCL INFO NCCL_SOCKET_IFNAME%d set by environment to ", i);
		for (int k = 0; k < 60000; k++)
			buf_addc(&v, 'a');
		buf_addc(&v, '\n');
	}
	b = run_text("run.log", v.data, v.len);
	const cJSON *e = json_get(json_get(json_get(b->facts, "env"), "NCCL_SOCKET_IFNAME1"), "value");
	CHECK(cJSON_IsString(e) && strlen(e->valuestring) == SYS_ENV_VALUE_MAX + 3); /* and "…" */
	double l = 0;
	CHECK(json_num(json_get(json_get(b->facts, "env"), "NCCL_SOCKET_IFNAME1"), "length", &l) && l == 60000);
	bundle_free(b);
	buf_free(&v);
}

/* Item 4: a failure message, 1450 (and 65000) blanks and a character: the
 * signature must still match that line and the next (before: "exceeded the
 * regex match limit; skipped for the rest of this bundle"). */
static void test_padded(void)
{
	const char *w = "ubuntu:39964:40075 [0] misc/socket.cc:483 NCCL WARN socketStartConnect: Connect to 10.0.0.2<45763> failed : Software caused connection abort";
	for (int nb = 1450; nb <= 65000; nb += 63550) {
		struct buf t;
		buf_init(&t);
		buf_adds(&t, w);
		for (int i = 0; i < nb; i++)
			buf_addc(&t, ' ');
		buf_printf(&t, "x\n%s\n", w);
		struct bundle *b = run_text("run.log", t.data, t.len);
		CHECK_INT(evlist_count(&b->ev, "socket.connect_failed"), 2);
		int limit = 0;
		for (size_t i = 0; i < b->warnings.list.n; i++)
			limit += strstr(b->warnings.list.v[i], "match limit") != NULL;
		CHECK_INT(limit, 0);
		bundle_free(b);
		buf_free(&t);
	}
}

static void count_cb(void *ctx, const struct signature *s, const struct logline *ll, const PCRE2_SIZE *ov, int n)
{
	(void)s;
	(void)ll;
	(void)ov;
	(void)n;
	(*(int *)ctx)++;
}

/* A catastrophic user regex: the lines that hit the limit are skipped and
 * counted, the others still matched. */
static void test_limit_line(void)
{
	struct sigdb u;
	struct msgs m = {0};
	sigdb_init(&u);
	const char *j = "{\"family\": \"user\", \"description\": \"d\", \"signatures\": [{\"id\": \"u.cat\", \"on\": \"any\", "
	                "\"regex\": \"^(a+)+$|^ok$\", \"samples\": [{\"line\": \"ok\"}], \"negative_samples\": [\"b\"]}], "
	                "\"diagnoses\": [{\"id\": \"u.d\", \"category\": \"OTHER\", \"severity\": \"warning\", \"role\": \"root\", "
	                "\"confidence\": 0.1, \"title\": \"t\", \"explanation\": \"e\", \"fix\": [\"f\"], \"when\": {\"any\": [\"u.cat\"]}}]}";
	CHECK_INT(sigdb_load_text(&u, "u.json", j, strlen(j), &m), 0);
	CHECK_INT(sigdb_finalize(&u, &m), 0);
	struct matcher *mt = matcher_new(&u);
	char bad[4000];
	memset(bad, 'a', sizeof bad - 2);
	bad[sizeof bad - 2] = 'b';
	bad[sizeof bad - 1] = 0;
	int hits = 0;
	for (int i = 0; i < 6; i++) {
		struct logline ll;
		const char *s = i % 2 ? "ok" : bad;
		logline_parse(s, strlen(s), &ll);
		matcher_run(mt, &ll, "x.log", count_cb, &hits, &m);
	}
	CHECK_INT(hits, 3); /* every "ok" line, the one after a limit hit too */
	CHECK_INT(matcher_limited(mt, 0), 3);
	struct msgs rep = {0};
	matcher_report_limits(mt, "t", &rep);
	CHECK_INT(rep.list.n, 1);
	CHECK(rep.list.n && strstr(rep.list.v[0], "x.log: signature \"u.cat\" (u.json) exceeded the regex match limit on 3 line(s)"));
	msgs_free(&rep);
	matcher_free(mt);
	msgs_free(&m);
	sigdb_free(&u);
}

/* The check-db probe refuses a lazy capture before \s*$, and passes the
 * atomic form docs/signature-format.md gives. */
static void test_probe(void)
{
	const char *fmt = "{\"family\": \"user\", \"description\": \"d\", \"signatures\": [{\"id\": \"u.p\", \"on\": \"any\", "
	                  "\"regex\": \"%s\", \"samples\": [{\"line\": \"Call to connect failed : refused\", \"captures\": {\"error\": \"refused\"}}], "
	                  "\"negative_samples\": [\"b\"]}], "
	                  "\"diagnoses\": [{\"id\": \"u.d\", \"category\": \"OTHER\", \"severity\": \"warning\", \"role\": \"root\", "
	                  "\"confidence\": 0.1, \"title\": \"t\", \"explanation\": \"e\", \"fix\": [\"f\"], \"when\": {\"any\": [\"u.p\"]}}]}";
	const char *re[2] = {"failed ?: (?<error>.+?)\\\\s*$", "failed ?: (?<error>(?>\\\\s*\\\\S+)+)\\\\s*+$"};
	for (int k = 0; k < 2; k++) {
		struct sigdb u;
		struct msgs m = {0};
		sigdb_init(&u);
		char *j = xasprintf(fmt, re[k]);
		CHECK_INT(sigdb_load_text(&u, "u.json", j, strlen(j), &m), 0);
		CHECK_INT(sigdb_finalize(&u, &m), 0);
		size_t ok = 0;
		int fails = sigdb_selftest(&u, &m, &ok);
		CHECK_INT(fails, k == 0 ? 1 : 0);
		int named = 0;
		for (size_t i = 0; i < m.list.n; i++)
			named += strstr(m.list.v[i], "followed by 65000 blanks and a character") != NULL;
		CHECK_INT(named, k == 0 ? 1 : 0);
		if (k == 1) {
			/* and it matches, the probe line too */
			struct matcher *mt = matcher_new(&u);
			struct buf t;
			buf_init(&t);
			buf_adds(&t, "Call to connect failed : refused");
			for (int i = 0; i < 65000; i++)
				buf_addc(&t, ' ');
			buf_addc(&t, 'x');
			struct logline ll;
			logline_parse(t.data, t.len, &ll);
			int n = 0;
			matcher_run(mt, &ll, "x", count_cb, &n, &m);
			CHECK_INT(n, 1);
			CHECK_INT(matcher_limited(mt, 0), 0);
			buf_free(&t);
			matcher_free(mt);
		}
		free(j);
		msgs_free(&m);
		sigdb_free(&u);
	}
}

/* Items 8, 9: 200 long lines matched far in: the offsets cost what the
 * kept text is (500 bytes), not the line (before: a sanitising of the
 * whole prefix per offset, 1.1 MB/s); captures cut like the text. */
static void test_evidence_lines(void)
{
	struct buf t;
	buf_init(&t);
	for (int i = 0; i < 200; i++) {
		buf_adds(&t, "host0:1:1 [0] misc/socket.cc:483 NCCL WARN socketStartConnect:\t");
		for (int k = 0; k < 60000; k++)
			buf_addc(&t, k % 7 ? 'a' : ':');
		buf_adds(&t, " Connect to 10.0.0.2<45763> failed : ");
		for (int k = 0; k < 4000; k++)
			buf_addc(&t, 'b');
		buf_addc(&t, '\n');
	}
	struct bundle *b = run_text("run.log", t.data, t.len);
	CHECK_INT(evlist_count(&b->ev, "socket.connect_failed"), 200);
	CHECK(b->offset_work <= 200ull * 6 * 500); /* was 200 x 6 x 60000 bytes sanitised */
	size_t longest = 0;
	for (size_t i = 0; i < b->ev.n; i++)
		for (size_t k = 0; k < b->ev.v[i].ncaps; k++)
			if (strlen(b->ev.v[i].caps[k].value) > longest)
				longest = strlen(b->ev.v[i].caps[k].value);
	CHECK_INT(longest, EVIDENCE_TEXT_MAX + 3); /* 500 bytes and "…" (was 4000) */
	bundle_free(b);
	buf_free(&t);
}

/* Item 11: an NCCL WARN without its file:line is a WARN line. */
static void test_warn_without_source(void)
{
	struct logline ll;
	const char *l = "host0:1:1 [0] NCCL WARN something odd happened here";
	logline_parse(l, strlen(l), &ll);
	CHECK_INT(ll.level, LINE_WARN);
	CHECK(ll.msg.n == 27 && memcmp(ll.msg.p, "something odd happened here", 27) == 0);
	struct bundle *b = run_text("run.log", "host0:1:1 [0] NCCL WARN something odd happened here\n", 52);
	CHECK_STR(verdict_name(b->verdict), "unknown_failure");
	bundle_free(b);
}

/* Item 7: a JSONL bundle line of 80000 diagnoses (before: strvec_contains
 * over every earlier id, 26-30 s), bad numbers, control characters. */
static void test_summary(void)
{
	enum { N = 80000 };
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", "b\033]0;x\007");
	cJSON_AddStringToObject(o, "verdict", "diagnosed");
	cJSON *in = cJSON_AddArrayToObject(o, "inputs");
	cJSON *d0 = cJSON_CreateObject();
	cJSON_AddNumberToObject(d0, "bytes", -5);
	cJSON_AddItemToArray(in, d0);
	cJSON *d1 = cJSON_CreateObject();
	cJSON_AddNumberToObject(d1, "bytes", 1e300);
	cJSON_AddItemToArray(in, d1);
	cJSON *ds = cJSON_AddArrayToObject(o, "diagnoses");
	for (int i = 0; i < N; i++) {
		cJSON *d = cJSON_CreateObject();
		char id[32];
		snprintf(id, sizeof id, "d%06d", i);
		cJSON_AddStringToObject(d, "id", id);
		cJSON_AddStringToObject(d, "role", "root");
		cJSON_AddStringToObject(d, "category", "OTHER\033[2J");
		cJSON_AddItemToArray(ds, d);
	}
	struct summary *s = summary_new();
	CHECK_INT(summary_add_bundle(s, o), 0);
	CHECK(summary_work(s) < 8ull * N);
	CHECK_INT(summary_bad_numbers(s), 2);
	cJSON *j = summary_json(s);
	char *p = cJSON_PrintUnformatted(j);
	CHECK(p && !strchr(p, '\033') && strstr(p, "\"bytes\":0"));
	free(p);
	cJSON_Delete(j);
	summary_free(s);
	cJSON_Delete(o);
}

/* Item 6: the CI filter, whatever the chunks. */
static void test_cisafe(void)
{
	static const struct { enum cisafe_kind k; const char *in, *out; } T[] = {
		{CISAFE_TEXT, "##[error]x\n  ::error::y\nok::z", "##\xe2\x80\x8b[error]x\n  :\xe2\x80\x8b:error::y\nok::z"},
		{CISAFE_CMD, "::error file=a##[b]::c ##[stop-commands]t", "::error file=a##\xe2\x80\x8b[b]::c ##\xe2\x80\x8b[stop-commands]t"},
		{CISAFE_JSON, "\"##[error]\"", "\"##\\u005b" "error]\""},
		{CISAFE_JSON, "a #[b] ##x ###[c] ## [d] ##[e", "a #[b] ##x ###\\u005b" "c] ## [d] ##\\u005b" "e"},
		{CISAFE_XML, "<p>##[x]</p>\n::warning::w", "<p>##&#91;x]</p>\n&#58;:warning::w"},
		{CISAFE_TEXT, "#[ok] # #[ ok:\r::w", "#[ok] # #[ ok:\r:\xe2\x80\x8b:w"},
	};
	for (size_t i = 0; i < sizeof T / sizeof *T; i++) {
		char *s = cisafe_str(T[i].in, T[i].k);
		CHECK_STR(s, T[i].out);
		free(s);
		/* one byte at a time: a pattern split across writes */
		struct cisafe g;
		cisafe_init(&g, T[i].k);
		struct buf b;
		buf_init(&b);
		for (const char *c = T[i].in; *c; c++)
			cisafe_feed(&g, c, 1, &b);
		cisafe_end(&g, &b);
		buf_addc(&b, 0);
		CHECK_STR(b.data, T[i].out);
		buf_free(&b);
	}
}

/* Item 5 (and a tar of members of one name): the names budget and the
 * " (N)" search, counted by the sink. */
struct namesink {
	size_t docs, name_max, taken_calls;
	struct strvec names;
};

static void ns_begin(void *ctx, const char *name)
{
	struct namesink *s = ctx;
	s->docs++;
	if (strlen(name) > s->name_max)
		s->name_max = strlen(name);
	strvec_push(&s->names, name);
}
static void ns_data(void *ctx, const void *p, size_t n) { (void)ctx; (void)p; (void)n; }
static void ns_end(void *ctx, int complete) { (void)ctx; (void)complete; }
static int ns_taken(void *ctx, const char *name)
{
	struct namesink *s = ctx;
	s->taken_calls++;
	return strvec_contains(&s->names, name); /* the test's own cost, not counted */
}

/* a ustar member: name (< 100 bytes) or a pax path record before it */
static void tar_member(struct buf *t, const char *name, const char *data)
{
	char h[512];
	size_t nl = strlen(name);
	if (nl >= 100) {
		char rec[8192];
		int rl = (int)nl + 9, len;
		for (;;) { /* "%d path=%s\n", the length counting its own digits */
			len = snprintf(rec, sizeof rec, "%d path=%s\n", rl, name);
			if (len == rl)
				break;
			rl = len;
		}
		memset(h, 0, sizeof h);
		strcpy(h, "pax");
		snprintf(h + 100, 8, "%07o", 0644);
		snprintf(h + 124, 12, "%011o", (unsigned)len);
		snprintf(h + 136, 12, "%011o", 0u);
		h[156] = 'x';
		memcpy(h + 257, "ustar\0" "00", 8);
		memset(h + 148, ' ', 8);
		unsigned sum = 0;
		for (int i = 0; i < 512; i++)
			sum += (unsigned char)h[i];
		snprintf(h + 148, 8, "%06o", sum);
		buf_add(t, h, 512);
		buf_add(t, rec, (size_t)len);
		static const char zero[512];
		buf_add(t, zero, (512 - (size_t)len % 512) % 512);
	}
	memset(h, 0, sizeof h);
	snprintf(h, 100, "%.99s", nl >= 100 ? "long" : name);
	snprintf(h + 100, 8, "%07o", 0644);
	snprintf(h + 124, 12, "%011o", (unsigned)strlen(data));
	snprintf(h + 136, 12, "%011o", 0u);
	h[156] = '0';
	memcpy(h + 257, "ustar\0" "00", 8);
	memset(h + 148, ' ', 8);
	unsigned sum = 0;
	for (int i = 0; i < 512; i++)
		sum += (unsigned char)h[i];
	snprintf(h + 148, 8, "%06o", sum);
	buf_add(t, h, 512);
	buf_add(t, data, strlen(data));
	static const char zero[512];
	buf_add(t, zero, (512 - strlen(data) % 512) % 512);
}

static void test_names(void)
{
	/* 3000 members of 2000-byte names: 6 MB of names before, kept whole */
	struct buf t;
	buf_init(&t);
	char name[2100];
	for (int i = 0; i < 3000; i++) {
		int n = snprintf(name, sizeof name, "d/%06d", i);
		memset(name + n, 'n', 2000 - (size_t)n);
		strcpy(name + 2000, ".log");
		tar_member(&t, name, "x\n");
	}
	static const char end[1024];
	buf_add(&t, end, sizeof end);
	struct namesink s = {0};
	struct doc_sink sink = {&s, ns_begin, ns_data, ns_end, ns_taken, NULL};
	struct msgs m = {0};
	struct input_stats st = {0};
	struct limits lim;
	limits_default(&lim);
	CHECK_INT(input_walk_memory("t.tar", t.data, t.len, &lim, &sink, &m, &st), 0);
	CHECK_INT(s.docs, 3000);
	CHECK(st.name_bytes <= (1u << 20) + 3000 * 131);
	CHECK(st.names_cut > 2000);
	CHECK_STR(s.names.v[2999] + strlen(s.names.v[2999]) - 8, "nnnn.log"); /* the tail is kept */
	int said = 0;
	for (size_t i = 0; i < m.list.n; i++)
		said += strstr(m.list.v[i], "the document names of this bundle reached 1048576 bytes") != NULL;
	CHECK_INT(said, 1);
	msgs_free(&m);
	strvec_free(&s.names);
	buf_free(&t);

	/* 5000 members of one name: one lookup each, not one per earlier copy
	 * (20000 members took 120 s) */
	buf_init(&t);
	for (int i = 0; i < 5000; i++)
		tar_member(&t, "x.log", "x\n");
	buf_add(&t, end, sizeof end);
	memset(&s, 0, sizeof s);
	memset(&st, 0, sizeof st);
	CHECK_INT(input_walk_memory("t.tar", t.data, t.len, &lim, &sink, &m, &st), 0);
	CHECK_INT(s.docs, 5000);
	CHECK(s.taken_calls < 3 * 5000);
	CHECK_STR(s.names.v[4999], "x.log (5000)");
	msgs_free(&m);
	strvec_free(&s.names);
	buf_free(&t);
}

int main(void)
{
	struct msgs m = {0};
	sigdb_init(&db);
	rules_register(&db);
	CHECK_INT(sigdb_load_dir(&db, "patterns", &m), 0);
	CHECK_INT(sigdb_finalize(&db, &m), 0);
	for (size_t i = 0; i < m.list.n; i++)
		fprintf(stderr, "%s\n", m.list.v[i]);
	msgs_free(&m);
	test_comms();
	test_torch_ranks();
	test_wrapper_pids();
	test_exit_records();
	test_nranks();
	test_env();
	test_padded();
	test_limit_line();
	test_probe();
	test_evidence_lines();
	test_warn_without_source();
	test_summary();
	test_cisafe();
	test_names();
	sigdb_free(&db);
	TEST_MAIN_END();
}
