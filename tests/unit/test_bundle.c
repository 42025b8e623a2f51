/* End-to-end tests of the analysis library on in-memory bundles with the
 * core test database (tests/db-min): verdicts, facts from log lines, rank
 * resolution, evidence caps, long lines, CRLF and invalid UTF-8.  The log
 * lines are real NCCL 2.28.9 output from fixtures/captures. */
#include <stdlib.h>
#include <string.h>
#include "engine/analysis.h"
#include "engine/bundle.h"
#include "engine/correlate.h"
#include "parse/ranks.h"
#include "rules/rules.h"
#include "match/sigdb.h"
#include "match/evidence.h"
#include "base/util.h"
#include "testlib.h"

static struct sigdb db;

static struct bundle *run(const char *name, const char *text)
{
	struct bundle *b = bundle_new("t", &db, NULL);
	bundle_add_memory(b, name, text, strlen(text));
	analysis_finish(b);
	return b;
}

static const char *fact_first(const struct bundle *b, const char *key)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(b->facts, key);
	const cJSON *v = cJSON_GetArrayItem(a, 0);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int has_warning(const struct bundle *b, const char *needle)
{
	for (size_t i = 0; i < b->warnings.list.n; i++)
		if (strstr(b->warnings.list.v[i], needle))
			return 1;
	return 0;
}

/* evlist_add keeps a line's text and its captures as str_sanitize_cut and
 * str_sanitize make them (its printable-ASCII path copies straight into the
 * list's arena): the same bytes, secrets masked, cut with "…" */
static void test_evidence_text(void)
{
	static char longa[700], longu[700], longt[700];
	memset(longa, 'a', sizeof longa - 1);
	memset(longu, 'b', sizeof longu - 1);
	memcpy(longu + 498, "\xc3\xa9", 2); /* a 2-byte sequence across the cut (500) */
	memset(longt, 'c', sizeof longt - 1);
	memcpy(longt, "HF_TOKEN=abcdef\tx", 17);
	const char *texts[] = {
		"", "plain text", "a\ttab\tor two", "HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz0123456789 rest",
		"export WANDB_API_KEY=0123456789abcdef; next", "\"password\": \"hunter2\"", "key AKIAABCDEFGHIJKLMNOP end",
		"ctl\x01byte", "caf\xc3\xa9 and \xff bad", "NCCL_SOCKET_IFNAME=eth0 host:1234:5678 x==y", longa, longu, longt,
	};
	struct evlist l;
	evlist_init(&l);
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		size_t n = strlen(texts[i]);
		struct capture cap = {(char *)"v", (char *)texts[i]};
		struct evidence *e = evlist_add(&l, "t.id", "run.log", i + 1, texts[i], n, &cap, 1);
		char *want = str_sanitize_cut(texts[i], n, EVIDENCE_TEXT_MAX);
		char *wantc = str_sanitize(texts[i], n);
		CHECK(e != NULL);
		if (e) {
			CHECK_STR(e->text, want);
			CHECK_STR(e->caps[0].value, wantc);
		}
		free(want);
		free(wantc);
	}
	evlist_free(&l);
}

/* One str_sanitize_cut(s, n, max) per cut, against evlist_keep_line with
 * the memo lm: the same bytes; then what the memo says (evline_clean) must
 * hold of that result.  Returns whether all agree. */
static int line_same(struct evlist *l, const char *s, size_t n, size_t max, struct evline *lm)
{
	char *want = str_sanitize_cut(s, n, max);
	char *got = evlist_keep_line(l, s, n, max, lm);
	int same = strcmp(want, got) == 0;
	if (evline_clean(lm, n, max)) { /* then it is the line cut, unchanged */
		size_t k = n <= max ? n : max;
		same &= strlen(got) == k + (n > max ? 3 : 0) && memcmp(got, s, k) == 0;
	}
	free(want);
	return same;
}

/* evlist_keep_line with a line's memo (struct evline): a line's copies look
 * at it once (bundle.c: its context line at 240 bytes, its evidence text at
 * 500, in either order, and the ring's copy of its first 244 bytes with the
 * memo carried over).  Each must be str_sanitize_cut's bytes: a secret at
 * the start or the end of the line, right at a cut, just past it (masked
 * in the longer cut only), a byte to replace at the cut or past it. */
static void test_evline(void)
{
	static const char *const piece[] = {"x", "abc ", "NCCL INFO ", "host:12:34 ", "12:34:56 ", "TOKEN=abc",
	                                    "password: hunter2", "\"secret\":\"v\"", "KEY=", "=", ":", ": ", "_",
	                                    "hf_abcdefghijklmnopqrstuvwxyz0123456", "AKIAABCDEFGHIJKLMNOP", "AKI", "A",
	                                    "ghp_", "\t", "\xc3\xa9", "\xff", "\x01", "\xe2\x80\xae", "***", " "};
	const size_t np = sizeof piece / sizeof *piece;
	static const size_t cuts[] = {EVIDENCE_CONTEXT_TEXT, EVIDENCE_TEXT_MAX, SIZE_MAX, 0, 1, 3};
	unsigned seed = 4242;
	size_t same = 0, runs = 0, fast = 0, slow = 0;
	struct evlist l;
	evlist_init(&l);
	for (int t = 0; t < 20000; t++) {
		char line[800];
		size_t n = 0, want = ((seed = seed * 1103515245u + 12345u) >> 16) % 4;
		/* lengths around the cuts: up to 240 / 244, to 500, beyond */
		want = want == 0 ? 200 + (seed >> 8) % 60 : want == 1 ? 480 + (seed >> 8) % 40 : (seed >> 8) % 700;
		/* mostly plain filler, a piece now and then: both paths taken */
		while (n < want) {
			unsigned r = (seed = seed * 1103515245u + 12345u) >> 16;
			const char *pc = r % 8 ? "filler " : piece[(r >> 3) % np];
			size_t pl = strlen(pc);
			if (n + pl > sizeof line)
				break;
			memcpy(line + n, pc, pl);
			n += pl;
		}
		if (n > want)
			n = want;
		struct evline lm = {0, 0};
		int k = 1 + (int)(((seed = seed * 1103515245u + 12345u) >> 16) % 4);
		for (int j = 0; j < k; j++) {
			unsigned r = (seed = seed * 1103515245u + 12345u) >> 16;
			size_t max = r % 8 < 6 ? cuts[r % 6] : n - (n ? r % 2 : 0);
			same += line_same(&l, line, n, max, &lm);
			runs++;
		}
		fast += lm.state == 1;
		slow += lm.state == 2;
		/* the ring's copy (context_push): the first 244 bytes, the memo carried */
		size_t rn = n < EVIDENCE_CONTEXT_TEXT + 4 ? n : EVIDENCE_CONTEXT_TEXT + 4;
		char ring[EVIDENCE_CONTEXT_TEXT + 4];
		memcpy(ring, line, rn);
		struct evline rm = lm;
		same += line_same(&l, ring, rn, EVIDENCE_CONTEXT_TEXT, &rm);
		runs++;
	}
	CHECK(same == runs);
	CHECK(fast > 1000 && slow > 1000); /* both kinds of line were tried */
	/* a secret at the edges: at the start, at the end, its '=' or ": " at the
	 * cuts (before them, on them, just past them), after a masked region */
	size_t masked = 0, tried = 0;
	static const char *const secret[] = {"TOKEN=abc", "password: hunter2", "AKIAABCDEFGHIJKLMNOP",
	                                     "hf_abcdefghijklmnopqrstuvwxyz0123456", "\xc3\xa9"};
	for (size_t w = 0; w < sizeof secret / sizeof *secret; w++) {
		size_t sl = strlen(secret[w]);
		for (size_t len = 230; len <= 520; len += len < 250 || (len >= 480 && len < 510) ? 1 : 10)
			for (size_t at = 0; at + sl <= len; at += at + sl + 12 < len ? (at < 20 || (at > 220 && at < 250) || (at > 480 && at < 505) ? 1 : 37) : 1) {
				char line[600];
				for (size_t i = 0; i < len; i++)
					line[i] = i % 4 == 3 ? ' ' : 'y'; /* a name stops at the blank (one of 129+ is none) */
				if (at > 0)
					line[at - 1] = ' ';
				memcpy(line + at, secret[w], sl);
				masked += !str_sanitize_keeps(line, len); /* a secret to mask (or a byte to replace) */
				tried++;
				for (int order = 0; order < 2; order++) {
					struct evline lm = {0, 0};
					size_t a = order ? EVIDENCE_TEXT_MAX : EVIDENCE_CONTEXT_TEXT;
					size_t b = order ? EVIDENCE_CONTEXT_TEXT : EVIDENCE_TEXT_MAX;
					CHECK(line_same(&l, line, len, a, &lm));
					CHECK(line_same(&l, line, len, b, &lm));
					struct evline rm = lm;
					size_t rn = len < EVIDENCE_CONTEXT_TEXT + 4 ? len : EVIDENCE_CONTEXT_TEXT + 4;
					CHECK(line_same(&l, line, rn, EVIDENCE_CONTEXT_TEXT, &rm));
				}
			}
	}
	CHECK(masked == tried); /* every one of them had something to mask */
	/* a cut line whose byte at the cut is no ASCII: the slow path's cut */
	{
		char line[300];
		memset(line, 'z', sizeof line);
		memcpy(line + EVIDENCE_CONTEXT_TEXT - 1, "\xc3\xa9", 2);
		struct evline lm = {0, 0};
		CHECK(line_same(&l, line, sizeof line, EVIDENCE_CONTEXT_TEXT, &lm));
		CHECK_INT(lm.state, 2);
		CHECK(line_same(&l, line, sizeof line, EVIDENCE_CONTEXT_TEXT - 1, &lm));
	}
	evlist_free(&l);
}

int main(void)
{
	test_evidence_text();
	test_evline();
	struct msgs m = {0};
	sigdb_init(&db);
	rules_register(&db);
	CHECK_INT(sigdb_load_dir(&db, "tests/db-min", &m), 0);
	CHECK_INT(sigdb_finalize(&db, &m), 0);

	/* the bad_socket_ifname failure */
	struct bundle *b = run("run.log",
		"vm:1159:1159 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to nonexist0\n"
		"\n"
		"[2026-11-30 14:16:13] vm:1159:1159 [0] bootstrap.cc:114 NCCL WARN Bootstrap : no socket interface found\n"
		"vm:1159:1159 [0] NCCL INFO init.cc:126 -> 5\n");
	CHECK_INT(b->verdict, VERDICT_DIAGNOSED);
	CHECK_INT(b->ndiags, 1);
	CHECK_STR(b->diags[0].def->category, "SOCKET_NETWORK");
	CHECK_STR(b->diags[0].title, "No usable socket interface (NCCL_SOCKET_IFNAME=nonexist0)");
	CHECK_INT(b->diags[0].nev, 1);
	CHECK_INT(b->ev.v[b->diags[0].ev[0]].line, 3);
	CHECK_STR(b->ev.v[b->diags[0].ev[0]].ts, "2026-11-30 14:16:13");
	CHECK_STR(b->docs[0].path, "run.log");
	CHECK_INT(b->docs[0].kind, DOC_NCCL_LOG);
	CHECK_INT(b->docs[0].lines, 4);
	/* the evidence's context lines: one before (the blank line is one), one after */
	{
		const struct evidence *e = &b->ev.v[b->diags[0].ev[0]];
		CHECK_INT(e->nbefore, 2);
		CHECK_INT(e->nafter, 1);
		CHECK_STR(e->after[0], "vm:1159:1159 [0] NCCL INFO init.cc:126 -> 5");
		/* and where the signature matched in its text (the report's "spans") */
		CHECK_INT(e->match.end > e->match.start, 1);
		CHECK_INT(e->match.end <= strlen(e->text), 1);
	}
	bundle_free(b);

	/* a wrapper that quotes NCCL's last WARN (XLA's "Last NCCL warning(error)
	 * log entry (may be unrelated) '%s'.", the text of ncclGetLastError()):
	 * the quoted message is matched as a line of its own, on the wrapper's
	 * line number, and the document still counts one line; without the
	 * closing quote there is no such line */
	b = run("xla.log",
		"2024-02-22 09:25:32.707642: W external/xla/xla/service/gpu/runtime/support.cc:58] Intercepted XLA runtime error:\n"
		"INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:305: NCCL operation ncclCommInitRank(&comm, nranks, id, rank) "
		"failed: invalid usage (run with NCCL_DEBUG=WARN for details). Last NCCL warning(error) log entry (may be "
		"unrelated) 'Bootstrap : no socket interface found'.; current tracing scope: all-reduce-start.163\n");
	CHECK_INT(b->ndiags >= 1, 1);
	CHECK_STR(b->diags[0].def->category, "SOCKET_NETWORK");
	CHECK_INT(b->ev.v[b->diags[0].ev[0]].line, 2);
	{
		/* its evidence is the whole line 2, the match a span of it: the quote */
		const struct evidence *e = &b->ev.v[b->diags[0].ev[0]];
		CHECK_INT(strncmp(e->text, "INTERNAL: external/xla/", 23), 0);
		CHECK_INT(strstr(e->text, "; current tracing scope: all-reduce-start.163") != NULL, 1);
		const char *q = strstr(e->text, "'Bootstrap : no socket interface found'");
		CHECK_INT(q != NULL, 1);
		if (q) {
			CHECK_INT(e->match.start >= (size_t)(q - e->text) + 1, 1);
			CHECK_INT(e->match.end <= (size_t)(q - e->text) + 1 + strlen("Bootstrap : no socket interface found"), 1);
			CHECK_INT(e->match.end > e->match.start, 1);
		}
	}
	CHECK_INT(b->docs[0].lines, 2);
	bundle_free(b);
	b = run("xla.log", "INTERNAL: NCCL operation ncclCommInitRank failed: invalid usage. Last NCCL warning(error) log entry "
	                   "(may be unrelated) 'Bootstrap : no socket interface found\n");
	CHECK_INT(b->ndiags, 0);
	bundle_free(b);

	/* bundle_summary_only(b, 1): the same diagnosis and evidence, no context
	 * lines and no spans */
	b = bundle_new("t", &db, NULL);
	bundle_summary_only(b, 1);
	{
		static const char t[] =
			"vm:1159:1159 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to nonexist0\n"
			"\n"
			"[2026-11-30 14:16:13] vm:1159:1159 [0] bootstrap.cc:114 NCCL WARN Bootstrap : no socket interface found\n"
			"vm:1159:1159 [0] NCCL INFO init.cc:126 -> 5\n";
		bundle_add_memory(b, "run.log", t, sizeof t - 1);
	}
	analysis_finish(b);
	CHECK_INT(b->verdict, VERDICT_DIAGNOSED);
	CHECK_STR(b->diags[0].title, "No usable socket interface (NCCL_SOCKET_IFNAME=nonexist0)");
	CHECK_INT(b->ev.v[b->diags[0].ev[0]].line, 3);
	CHECK_INT(b->ev.v[b->diags[0].ev[0]].nbefore, 0);
	CHECK_INT(b->ev.v[b->diags[0].ev[0]].nafter, 0);
	CHECK_INT(b->ev.v[b->diags[0].ev[0]].match.start, 0);
	CHECK_INT(b->ev.v[b->diags[0].ev[0]].match.end, 0);
	CHECK_INT(b->ev.v[b->diags[0].ev[0]].cspan == NULL, 1);
	bundle_free(b);

	/* a healthy init: banner, driver, Init COMPLETE; facts; nothing failing */
	b = run("rank0.log",
		"vm:1224:1224 [0] NCCL INFO cudaDriverVersion 13000\r\n"
		"vm:1224:1224 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\r\n"
		"vm:1224:1224 [0] NCCL INFO NET/IB : No device found.\r\n"
		"vm:1224:1224 [0] NCCL INFO ncclCommInitRankConfig comm 0x1a64a540 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 60 commId 0xfd044cd5d55e6dab - Init COMPLETE\r\n");
	CHECK_INT(b->verdict, VERDICT_HEALTHY);
	CHECK_STR(fact_first(b, "nccl_versions"), "2.28.9");
	CHECK_STR(fact_first(b, "nccl_cuda_builds"), "13.0");
	CHECK_STR(fact_first(b, "cuda_driver_versions"), "13.0");
	const struct rank_proc *p0 = ranks_by_rank(b->ranks, 0);
	CHECK(p0 && p0->saw_init_complete); /* the rank timeline records Init COMPLETE */
	bundle_free(b);

	/* ranks resolved from Init START for WARN lines that carry only host:pid */
	b = run("dup.log",
		"vm:1224:1224 [0] NCCL INFO ncclCommInitRankConfig comm 0x1a64a540 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 60 commId 0xfd04 - Init START\n"
		"vm:1225:1225 [0] NCCL INFO ncclCommInitRankConfig comm 0x31d13d50 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 60 commId 0xfd04 - Init START\n"
		"[2026-11-30 14:16:25] vm:1225:1225 [0] init.cc:904 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 60\n");
	CHECK_INT(b->verdict, VERDICT_DIAGNOSED);
	CHECK_INT(b->diags[0].nranks, 1);
	CHECK_INT(b->diags[0].ranks[0], 1);
	CHECK_STR(b->diags[0].title, "Two ranks on one GPU (bus 60)");
	bundle_free(b);

	/* unexplained WARN and traceback: unknown_failure, with the lines kept */
	b = run("x.log",
		"host:1:1 [0] misc/shmutils.cc:1 NCCL WARN Something no signature knows\n"
		"Traceback (most recent call last):\n"
		"RuntimeError: boom\n");
	CHECK_INT(b->verdict, VERDICT_UNKNOWN_FAILURE);
	CHECK_INT(b->nfailures, 3);
	CHECK_STR(b->failures[0].what, "nccl_warn");
	CHECK_STR(b->failures[2].what, "exception");
	bundle_free(b);

	/* plain prose: no evidence */
	b = run("notes.txt", "the customer says it hangs\nplease help\n");
	CHECK_INT(b->verdict, VERDICT_NO_EVIDENCE);
	bundle_free(b);

	/* evidence is capped per id, counts are not */
	struct buf big;
	buf_init(&big);
	for (int i = 0; i < 500; i++)
		buf_printf(&big, "h:%d:%d [0] bootstrap.cc:114 NCCL WARN Bootstrap : no socket interface found\n", i, i);
	b = run("many.log", big.data);
	CHECK_INT(b->ndiags, 1);
	CHECK_INT(b->diags[0].ev_total, 500);
	CHECK(b->diags[0].nev <= 200);
	bundle_free(b);
	buf_free(&big);

	/* a 1 MiB line is cut at max_line with a warning; the next line still counts */
	buf_init(&big);
	for (int i = 0; i < (1 << 20); i++)
		buf_addc(&big, 'x');
	buf_adds(&big, "\nh:1:1 [0] bootstrap.cc:114 NCCL WARN Bootstrap : no socket interface found\n");
	b = run("long.log", big.data);
	CHECK_INT(b->verdict, VERDICT_DIAGNOSED);
	CHECK(has_warning(b, "long.log: 1 line(s) longer than 65536 bytes"));
	CHECK_INT(b->docs[0].lines, 2);
	bundle_free(b);
	buf_free(&big);

	/* invalid UTF-8 and control bytes never reach the report raw */
	b = run("bin.log", "h:1:1 [0] bootstrap.cc:114 NCCL WARN Bootstrap : no socket interface found \xff\xfe\x1b[31m\n");
	CHECK_INT(b->verdict, VERDICT_DIAGNOSED);
	const char *t = b->ev.v[0].text;
	CHECK(strstr(t, "\xef\xbf\xbd") != NULL);
	CHECK(strchr(t, 0x1b) == NULL);
	bundle_free(b);

	/* binary junk is reported and skipped */
	char junk[4096];
	for (size_t i = 0; i < sizeof junk; i++)
		junk[i] = (char)(i * 7 % 31);
	b = bundle_new("t", &db, NULL);
	bundle_add_memory(b, "core.bin", junk, sizeof junk);
	analysis_finish(b);
	CHECK_INT(b->docs[0].kind, DOC_BINARY);
	CHECK(has_warning(b, "core.bin: binary content (4096 bytes) skipped"));
	bundle_free(b);

	msgs_free(&m);
	sigdb_free(&db);
	TEST_MAIN_END();
}
