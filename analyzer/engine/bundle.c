/* bundle.c - see bundle.h.  The streaming path: documents arrive in chunks
 * through the doc_sink; the first HEAD_BYTES are held until the kind is
 * known; log documents are split into lines (memchr) and each line goes
 * through logline_parse, the log-fact extractors, ranks and the matcher;
 * system reports are buffered whole for their parser. */
#include "engine/bundle.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/crash.h"
#include "match/derive.h"
#include "engine/diagnosis.h"
#include "parse/linekind.h"
#include "parse/linekw.h"
#include "parse/logline.h"
#include "match/match.h"
#include "engine/pipeline.h"
#include "parse/ranks.h"
#include "parse/flight.h"
#include "base/scan.h"
#include "match/sigdb.h"
#include "parse/sysreport.h"
#include "base/version.h"

#define HEAD_BYTES (64u << 10)
/* Pasted tickets (text, PyTorch or NCCL output) may embed a topo matrix or
 * version lines; the first SCAN_MAX bytes are kept to look for them (an
 * NCCL log only when it is at most SCAN_MAX_NCCL bytes in all). */
#define SCAN_MAX (4u << 20)
#define SCAN_MAX_NCCL (1u << 20)
#define FAILURES_KEPT 20

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_HEALTHY: return "healthy";
	case VERDICT_DIAGNOSED: return "diagnosed";
	case VERDICT_UNKNOWN_FAILURE: return "unknown_failure";
	default: return "no_evidence";
	}
}

struct docstate {
	size_t doc;              /* index into b->docs */
	const char *path;        /* b->docs[doc].path: read by apply_line, which must not touch
	                            b->docs (the reading thread updates its counters on every line) */
	int kind_known;
	struct buf head;         /* bytes held until the kind is known */
	struct buf partial;      /* an unfinished line */
	int partial_cut;         /* the current line passed max_line */
	uint64_t long_lines;     /* lines cut at max_line */
	uint64_t lines_capped;   /* the first line past max_lines; 0 = none */
	struct buf sys;          /* whole system report */
	int sys_cut;
	struct buf scan;         /* log documents: scanned for embedded reports at the end */
	int scan_off;            /* an NCCL log too large to be a pasted ticket: not scanned */
	enum doc_kind kind;      /* copies of b->docs[doc] for doc_finish, set at the end */
	uint64_t bytes;
	/* context for evidence: the previous lines (a ring), and the evidence
	 * still waiting for the lines after it (indexes into b->ev.v) */
	char prev[EVIDENCE_CONTEXT][EVIDENCE_CONTEXT_TEXT + 4]; /* + 4: a longer line shows as cut */
	size_t prevlen[EVIDENCE_CONTEXT];
	char *prevsan[EVIDENCE_CONTEXT]; /* prev[] sanitised (context_copy, b->ev's), once asked; or NULL */
	struct evline prevlm[EVIDENCE_CONTEXT]; /* what the line's copies found out (evidence.h) */
	unsigned nprev, prevpos;
	size_t waiting[8];
	unsigned nwaiting;
	/* "Exception ignored in: ..." (benign, "benign_block": "traceback"): the
	 * traceback that follows, to its exception line, is benign too */
	int benign_tb;
	int benign_tb_rank;
	struct nccltests *nt;    /* nccl-tests output in this document (parse_nccltests.c), or NULL */
	/* a native crash or stack dump being read (crash.h), and its banner line */
	struct crash crash;
	char *crash_raw;         /* owned: the banner, sanitised and cut as a failure line's */
	size_t crash_rawlength;
	char *crash_host;        /* owned, or NULL */
	long crash_pid;
	int crash_rank;
	int crash_explained;     /* the banner matched a signature (the audit) */
	int audit_tb;            /* the audit: inside a Python traceback's frames */
	int complete;            /* the input layer read it to its end (sink_end) */
};

static void lines_stop(struct bundle *b);
static void doc_finish(struct bundle *b, struct docstate *ds);

struct bundle *bundle_new(const char *name, const struct sigdb *db, const struct limits *lim)
{
	struct bundle *b = xcalloc(1, sizeof *b);
	/* an operand, a batch child folder, --name: shown in every format and
	 * on the terminal, so sanitised like document names (util.h) */
	b->name = str_sanitize(name, strlen(name));
	b->db = db;
	b->matcher = matcher_new(db);
	b->rmatcher = b->matcher; /* its own with the pipeline (lines_start) */
	if (lim)
		b->lim = *lim;
	else
		limits_default(&b->lim);
	matcher_set_budget(b->matcher, b->lim.match_budget);
	evlist_init(&b->ev);
	b->sig_slot = xmalloc((db->nsigs + 1) * sizeof *b->sig_slot);
	for (size_t i = 0; i <= db->nsigs; i++)
		b->sig_slot[i] = -1;
	b->facts = cJSON_CreateObject();
	b->ranks = ranks_new();
	ranks_borrow_lines(b->ranks); /* ranks_lines_gone: apply_batch, feed_lines, sink_end */
	b->floor.kw = -1;
	b->flight = flight_new();
	return b;
}

void bundle_json_arena(struct bundle *b, int on)
{
	if (on && !b->jarena) {
		cJSON_Delete(b->facts); /* bundle_new's, empty: made again in the arena */
		b->jarena = json_arena_new();
		b->jprev = json_arena_enter(b->jarena);
		b->facts = cJSON_CreateObject();
	} else if (!on && b->jarena) {
		json_arena_enter(b->jprev);
	}
}

void bundle_free(struct bundle *b)
{
	if (!b)
		return;
	/* the bundle's trees are freed in its arena's scope (their frees
	 * recycle there), then the arena at once */
	struct json_arena *jprev = b->jarena ? json_arena_enter(b->jarena) : NULL;
	lines_stop(b);
	free(b->name);
	if (b->rmatcher != b->matcher)
		matcher_free(b->rmatcher);
	matcher_free(b->matcher);
	free(b->tried);
	for (size_t i = 0; i < b->ndocs; i++)
		free(b->docs[i].path);
	free(b->docs);
	free(b->docidx);
	free(b->sig_slot);
	evlist_free(&b->ev);
	env_index_free(&b->envix);
	if (!b->jarena)
		cJSON_Delete(b->facts); /* else freed with the arena */
	msgs_free(&b->warnings);
	for (size_t i = 0; i < b->nfailures; i++) {
		free(b->failures[i].path);
		free(b->failures[i].text);
		free(b->failures[i].what);
		free(b->failures[i].raw);
		free(b->failures[i].src);
		free(b->failures[i].host);
	}
	free(b->failures);
	for (size_t i = 0; i < b->nclues; i++) {
		free(b->clues[i].path);
		free(b->clues[i].raw);
		free(b->clues[i].src);
		free(b->clues[i].host);
	}
	free(b->clues);
	for (size_t i = 0; i < b->nwsites; i++) {
		free(b->wsites[i].file);
		free(b->wsites[i].path);
	}
	free(b->wsites);
	for (size_t i = 0; i < b->ncrashes; i++) {
		free(b->crashes[i].path);
		free(b->crashes[i].raw);
		free(b->crashes[i].frame);
		free(b->crashes[i].frames);
		free(b->crashes[i].host);
	}
	free(b->crashes);
	free(b->floor.path);
	free(b->floor.raw);
	free(b->floor.host);
	strvec_free(&b->audit_lines);
	ranks_free(b->ranks);
	flight_free(b->flight);
	bundle_clear_diagnoses(b);
	free(b->verdict_reason);
	if (b->jarena) {
		json_arena_enter(jprev);
		json_arena_free(b->jarena);
	}
	free(b);
}

void bundle_clear_diagnoses(struct bundle *b)
{
	for (size_t i = 0; i < b->ndiags; i++) {
		free(b->diags[i].title);
		free(b->diags[i].explanation);
		free(b->diags[i].ev);
		free(b->diags[i].ranks);
	}
	free(b->diags);
	b->diags = NULL;
	b->ndiags = 0;
}

/* An NCCL WARN line's file:line and message start: what its release can be
 * (the version fingerprint of correlate.c, match/ncclsites.h); distinct
 * sites only, the first BUNDLE_WSITES. */
static void note_warn_site(struct bundle *b, const struct logline *ll, const char *path, uint64_t lineno)
{
	for (size_t i = 0; i < b->nwsites; i++)
		if (b->wsites[i].line == ll->srcline && strlen(b->wsites[i].file) == ll->file.n &&
		    memcmp(b->wsites[i].file, ll->file.p, ll->file.n) == 0)
			return;
	b->wsites = xrealloc(b->wsites, (b->nwsites + 1) * sizeof *b->wsites);
	struct warn_site *w = &b->wsites[b->nwsites++];
	w->file = xstrndup(ll->file.p, ll->file.n);
	w->line = ll->srcline;
	w->msglen = ll->msg.n < sizeof w->msg - 1 ? ll->msg.n : sizeof w->msg - 1;
	memcpy(w->msg, ll->msg.p, w->msglen);
	w->msg[w->msglen] = 0;
	w->path = xstrdup(path);
	w->lineno = lineno;
}

/* ---- facts from log lines ---- */

static void add_unique_string(cJSON *facts, const char *key, const char *val)
{
	cJSON *arr = cJSON_GetObjectItemCaseSensitive(facts, key);
	if (!arr)
		arr = cJSON_AddArrayToObject(facts, key);
	const cJSON *it;
	cJSON_ArrayForEach(it, arr) if (cJSON_IsString(it) && strcmp(it->valuestring, val) == 0) return;
	/* keep sorted for deterministic output: append, then move the string
	 * down into place.  (cJSON_InsertItemInArray is not used: cJSON 1.7.15
	 * as patched in Debian 12 refuses an insert in the middle after an
	 * insert at 0, and the item leaked.) */
	cJSON *item = cJSON_CreateString(val);
	cJSON_AddItemToArray(arr, item);
	while (item->prev && item->prev != item && item != arr->child && cJSON_IsString(item->prev) &&
	       strcmp(item->prev->valuestring, item->valuestring) > 0) {
		char *t = item->prev->valuestring;
		item->prev->valuestring = item->valuestring;
		item->valuestring = t;
		item = item->prev;
	}
}

/* "NCCL version 2.28.9+cuda13.0" anywhere in the message (banner, torch's
 * "NCCL version 2.28.9" in DistBackendError texts). */
static void fact_nccl_version(struct bundle *b, const struct span *m)
{
	const char *p = mem_find(m->p, m->n, "NCCL version ", 13, 5);
	if (!p)
		return;
	p += 13;
	const char *end = m->p + m->n;
	const char *q = p;
	while (q < end && ((*q >= '0' && *q <= '9') || *q == '.'))
		q++;
	if (q - p < 3 || q - p > 16)
		return;
	char v[20];
	memcpy(v, p, (size_t)(q - p));
	v[q - p] = 0;
	if (version_code(v) < 0)
		return;
	add_unique_string(b->facts, "nccl_versions", v);
	if (q < end && *q == '+' && end - q > 5 && memcmp(q, "+cuda", 5) == 0) {
		const char *c = q + 5, *ce = c;
		while (ce < end && ((*ce >= '0' && *ce <= '9') || *ce == '.'))
			ce++;
		if (ce > c) {
			char cv[20];
			size_t l = (size_t)(ce - c) < sizeof cv - 1 ? (size_t)(ce - c) : sizeof cv - 1;
			memcpy(cv, c, l);
			cv[l] = 0;
			add_unique_string(b->facts, "nccl_cuda_builds", cv);
		}
	}
}

/* "cudaDriverVersion 13000" -> "13.0" */
static void fact_cuda_driver(struct bundle *b, const struct span *m)
{
	if (m->n < 19 || memcmp(m->p, "cudaDriverVersion ", 18) != 0)
		return;
	const char *p = m->p + 18, *end = m->p + m->n;
	long v;
	/* the whole rest of the message is the number (scan.h: never the next line's digits) */
	if (!scan_long(&p, end, &v) || v <= 0 || v > 100000)
		return;
	while (p < end && (*p == ' ' || *p == '\r'))
		p++;
	if (p != end)
		return;
	char s[32];
	snprintf(s, sizeof s, "%ld.%ld", v / 1000, (v % 1000) / 10);
	add_unique_string(b->facts, "cuda_driver_versions", s);
}

/* "NCCL_SOCKET_IFNAME set by environment to nonexist0" / "... to 22." */
static void fact_env_line(struct bundle *b, const struct span *m, const char *path, uint64_t line)
{
	const char *set = mem_find(m->p, m->n, " set by environment to ", 23, 6);
	if (!set || set == m->p)
		return;
	size_t nl = (size_t)(set - m->p);
	for (size_t i = 0; i < nl; i++) {
		char c = m->p[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
			return;
	}
	const char *v = set + 23, *end = m->p + m->n;
	size_t vl = (size_t)(end - v);
	/* integer params end with '.' ("%lld."); keep string values as printed */
	if (vl > 1 && v[vl - 1] == '.' && v[vl - 2] >= '0' && v[vl - 2] <= '9')
		vl--;
	char *name = xstrndup(m->p, nl);
	cJSON *env;
	size_t count;
	if (!sys_env_find(b->facts, &b->envix, name, &env, &count)) {
		if (count < SYS_ENV_MAX) {
			/* a secret's value never reaches a report (util.h: str_secret_name) */
			int secret = str_secret_name(name, nl);
			cJSON_AddItemToObject(env, name, sys_env_value(secret ? "***" : v, secret ? 3 : vl, path, line, "nccl_log"));
		} else {
			b->env_dropped++;
		}
	}
	free(name);
}

/* ---- failure evidence that no signature explains ---- */

/* "... at /path/file.cpp:123" (an optional ")" or "." after it) at the end of
 * [p, p+n): a library's error location */
static int ends_at_location(const char *p, size_t n)
{
	while (n && (p[n - 1] == ')' || p[n - 1] == '.' || p[n - 1] == ' '))
		n--;
	size_t d = n;
	while (d > 0 && p[d - 1] >= '0' && p[d - 1] <= '9')
		d--;
	if (d == n || d < 6 || p[d - 1] != ':')
		return 0;
	size_t f = d - 1;
	while (f > 0 && p[f - 1] != ' ')
		f--;
	return f >= 4 && f < d - 1 && memcmp(p + f - 4, " at ", 4) == 0;
}

/* Failure lines of libraries and tools (the KW_LIB_ERROR and KW_NCCLTESTS
 * literals): a health check's, nccl-tests' of every version (v1's "NCCL
 * failure common.cu:NNN 'x'", v2+'s "host: Test NCCL failure common.cu:NNN
 * 'x'" and " .. host pid N: Test failure common.cu:NNN"), "<lib> error: ...
 * at file:line". */
static const char *tool_failure(const char *p, size_t n, uint64_t kw)
{
	/* each literal below is a keyword (linekw.c) of one of the two: a line
	 * without that keyword holds none of its literals (the scan covers the
	 * message), so only the literals of the keywords present are looked for */
	int lib = (kw & KW_BIT(KW_LIB_ERROR)) != 0, nt = (kw & KW_BIT(KW_NCCLTESTS)) != 0;
	if (lib && mem_find(p, n, "Health check failed", 19, 4))
		return "health_check"; /* LBNL NHC's "ERROR: nhc: Health check failed: ..." */
	if ((n > 13 && (memcmp(p, "Cuda failure ", 13) == 0 || memcmp(p, "NCCL failure ", 13) == 0)) ||
	    (nt && (mem_find(p, n, "Test NCCL failure ", 18, 5) || mem_find(p, n, "Test CUDA failure ", 18, 5) ||
	            mem_find(p, n, ": Test failure ", 15, 5))))
		return "nccl_tests";
	if (lib && mem_find(p, n, "NCCL error", 10, 4))
		return "nccl_error"; /* another program's report of an ncclResult ("Failed, NCCL error f.cc:83 'x'") */
	return NULL;
}

static const char *failure_kind(const struct logline *ll)
{
	const char *p = ll->msg.p;
	size_t n = ll->msg.n;
	if (ll->level == LINE_WARN)
		return "nccl_warn";
	if (ll->level != LINE_PLAIN)
		return NULL;
	if (ll->kw & KW_BIT(KW_TRACEBACK))
		return "traceback";
	if (ll->kw & (KW_BIT(KW_SEGFAULT) | KW_BIT(KW_CORE_DUMPED) | KW_BIT(KW_TERMINATE)))
		return "crash";
	const char *ec = ll->kw & KW_BIT(KW_EXITCODE) ? mem_find(p, n, "exitcode", 8, 1) : NULL;
	if (ec) {
		const char *q = ec + 8, *end = p + n;
		while (q < end && (*q == ' ' || *q == ':'))
			q++;
		if (q < end && (*q == '-' || (*q >= '1' && *q <= '9')))
			return "exit_code";
	}
	if (ll->kw & (KW_BIT(KW_WATCHDOG_CAUGHT) | KW_BIT(KW_BLOCKING_WAIT)))
		return "watchdog";
	if (ll->kw & KW_BIT(KW_COMPONENT_ERROR))
		return "component_error";
	if (ll->kw & (KW_BIT(KW_CRASH) | KW_BIT(KW_FATAL_PYTHON))) {
		int sig;
		if (crash_banner(&ll->msg, &sig) != CRASH_NONE)
			return "crash"; /* a crash handler's banner, a stack dump's header (crash.h) */
	}
	if (ll->kw & (KW_BIT(KW_LIB_ERROR) | KW_BIT(KW_NCCLTESTS))) {
		const char *k = tool_failure(p, n, ll->kw);
		if (k)
			return k;
	}
	/* "<lib> error: ... at file.cpp:NN" (no literal: the end of the line first) */
	if (n > 16 && ends_at_location(p, n) && mem_find(p, n, " error: ", 8, 3))
		return "library_error";
	if (n == 6 && memcmp(p, "Killed", 6) == 0)
		return "killed"; /* a shell's word for a job killed by SIGKILL */
	/* a Python exception line ("module.Name(Error|Exception): text", a
	 * wrapper's "Outer(Inner): text", or the type alone on its line, as
	 * Python prints one raised without a message), also in a paste indented
	 * as a whole: linekind.h */
	struct linekind tmp;
	if (linekind_get(ll, &tmp)->exception)
		return "exception";
	return NULL;
}

/* The rank a PyTorch c10d record names as its own, in its message:
 * "[Rank 3] Watchdog caught ..." (torch 1.x-2.1), "[PG 1 Rank 1] Process
 * group watchdog ..." and "[PG ID 0 PG GUID 0(default_pg) Rank 1] ..."
 * (2.2+).  For lines without a launcher prefix; read only on lines that
 * became evidence or failure lines.  -1 when none. */
static int msg_self_rank(const struct span *m)
{
	const char *p = m->p, *end = m->p + m->n;
	while ((p = mem_find(p, (size_t)(end - p), "Rank ", 5, 0)) != NULL) {
		const char *q = p + 5;
		int v = 0, digits = 0;
		while (q < end && *q >= '0' && *q <= '9' && digits < 7) {
			v = v * 10 + (*q++ - '0');
			digits++;
		}
		if (digits && q < end && *q == ']') {
			/* "[Rank N]", or the end of a "[PG ... Rank N]" bracket */
			if (p > m->p && p[-1] == '[')
				return v;
			const char *o = p;
			while (o > m->p && o[-1] != '[' && o[-1] != ']' && p - o < 80)
				o--;
			if (o > m->p && o[-1] == '[' && end - o > 3 && memcmp(o, "PG ", 3) == 0)
				return v;
		}
		p += 5;
	}
	return -1;
}

static void note_failure(struct bundle *b, const char *what, const char *path, uint64_t line,
                         const struct logline *ll, const char *raw, size_t rawn)
{
	const struct span *text = &ll->msg;
	b->failure_count++;
	if (b->nfailures >= FAILURES_KEPT)
		return;
	if (b->nfailures == b->capfailures) {
		b->capfailures = b->capfailures ? b->capfailures * 2 : 8;
		b->failures = xrealloc(b->failures, b->capfailures * sizeof *b->failures);
	}
	struct failure_line *f = &b->failures[b->nfailures++];
	memset(f, 0, sizeof *f);
	f->path = xstrdup(path);
	f->line = line;
	f->text = str_sanitize_cut(text->p, text->n, 400); /* a cut line ends with "…" */
	f->length = text->n;
	f->cut = text->n > 400;
	f->what = xstrdup(what);
	f->raw = str_sanitize_cut(raw, rawn, 500); /* a cut line ends with "…" */
	f->rawlength = rawn;
	f->src = ll->level == LINE_WARN && ll->file.n ? str_sanitize(ll->file.p, ll->file.n > 120 ? 120 : ll->file.n) : NULL;
	f->host = ll->host.n ? str_sanitize(ll->host.p, ll->host.n > 120 ? 120 : ll->host.n) : NULL;
	f->pid = ll->pid;
	f->rank = ll->rank >= 0 ? ll->rank : msg_self_rank(&ll->msg);
}

/* The first return-chain frame ("init.cc:1234 -> 2") of each process. */
#define CLUES_KEPT 64
static void note_chain(struct bundle *b, const struct logline *ll, const char *path, uint64_t line,
                       const char *raw, size_t rawn)
{
	struct span f;
	int code;
	if (b->nclues >= CLUES_KEPT || !derive_chain_frame(&ll->msg, &f, &code))
		return;
	for (size_t i = 0; i < b->nclues; i++)
		if (b->clues[i].pid == ll->pid && b->clues[i].host && strlen(b->clues[i].host) == ll->host.n &&
		    memcmp(b->clues[i].host, ll->host.p, ll->host.n) == 0)
			return;
	if (b->nclues == b->capclues) {
		b->capclues = b->capclues ? b->capclues * 2 : 8;
		b->clues = xrealloc(b->clues, b->capclues * sizeof *b->clues);
	}
	struct chain_clue *c = &b->clues[b->nclues++];
	c->path = xstrdup(path);
	c->line = line;
	c->raw = str_sanitize_cut(raw, rawn, 500);
	c->rawlength = rawn;
	c->src = str_sanitize(f.p, f.n > 120 ? 120 : f.n);
	c->code = code;
	c->host = str_sanitize(ll->host.p, ll->host.n > 120 ? 120 : ll->host.n);
	c->pid = ll->pid;
	c->rank = ll->rank;
}

/* ---- the audit of unexplained lines (analyze --unexplained) ---- */

#define AUDIT_KEPT 100000

/* A failure word, in any case: error, fail, fatal, abort, killed, signal,
 * exception, timed out, warn (the audit only: not on the hot path). */
static int failure_word(const char *p, size_t n)
{
	static const char *const W[] = {"error", "fail", "fatal", "abort", "killed", "signal", "exception", "timed out", "warn"};
	for (size_t i = 0; i < n; i++) {
		char c = p[i] | 0x20;
		if (c != 'e' && c != 'f' && c != 'a' && c != 'k' && c != 's' && c != 't' && c != 'w')
			continue;
		for (size_t w = 0; w < sizeof W / sizeof W[0]; w++) {
			size_t l = strlen(W[w]);
			if (W[w][0] != c || n - i < l)
				continue;
			size_t k = 1;
			while (k < l && (p[i + k] | 0x20) == W[w][k])
				k++;
			if (k == l)
				return 1;
		}
	}
	return 0;
}

static void audit_add(struct bundle *b, const char *path, uint64_t line, const char *raw, size_t rawn)
{
	if (b->audit_lines.n >= AUDIT_KEPT) {
		b->audit_more++;
		return;
	}
	char *t = str_sanitize_cut(raw, rawn, 400);
	/* the place as the operand names it: a file's own name, a folder's or
	 * an archive's member under it */
	const char *base = strrchr(b->name, '/');
	base = base ? base + 1 : b->name;
	if (strcmp(base, path) == 0)
		strvec_push_owned(&b->audit_lines, xasprintf("%s:%llu: %s", b->name, (unsigned long long)line, t));
	else
		strvec_push_owned(&b->audit_lines, xasprintf("%s/%s:%llu: %s", b->name, path, (unsigned long long)line, t));
	free(t);
}

/* ---- the floor: a keyword tier (linekw.h) ---- */

/* The floor's pick: the first line of the lowest tier (linekw.h).  best is
 * the keyword of this line (tier-1 ones from the prefilter's ll->floor, or
 * a tier-2 one a failure line holds: best_kw >= 0). */
static void floor_note(struct bundle *b, struct docstate *ds, const struct logline *ll, uint64_t lineno,
                       const char *s, size_t n, int best_kw)
{
	int best = -1, tier = b->floor.kw >= 0 ? b->floor.tier : 99;
	for (uint64_t m = ll->floor; m; m &= m - 1) {
		int i = __builtin_ctzll(m);
		const struct floorkw *k = floorkw_get((size_t)i);
		if (k && k->tier < tier) {
			best = i;
			tier = k->tier;
		}
	}
	const struct floorkw *k2 = best_kw >= 0 ? floorkw_get((size_t)best_kw) : NULL;
	if (best < 0 && k2 && k2->tier < tier) {
		best = best_kw;
		tier = k2->tier;
	}
	if (best < 0)
		return;
	struct floor_pick *f = &b->floor;
	free(f->path);
	free(f->raw);
	free(f->host);
	f->kw = best;
	f->tier = tier;
	f->path = xstrdup(ds->path);
	f->line = lineno;
	f->raw = str_sanitize_cut(s, n, 500);
	f->rawlength = n;
	const struct span *h = ll->host.n ? &ll->host : &ll->whost;
	f->host = h->n ? str_sanitize(h->p, h->n > 120 ? 120 : h->n) : NULL;
	f->pid = ll->pid >= 0 ? ll->pid : ll->wpid;
	f->rank = ll->rank;
}

/* ---- native crashes and stack dumps (crash.h) ---- */

#define CRASHES_KEPT 16
static void crash_keep(struct bundle *b, struct docstate *ds, const struct crash *c)
{
	/* NCCL's frames on a crashed stack: NCCL ran (however silent its log) */
	if (c->textn && (memmem(c->text, c->textn, "nccl", 4) || memmem(c->text, c->textn, "NCCL", 4)))
		b->saw_nccl = 1;
	if (b->audit && ds->crash_raw && !ds->crash_explained) {
		/* the banner is explained by the crash row its block derives, if any */
		char *sig = (char *)crash_signal_name(c->sig);
		struct derive_input in;
		memset(&in, 0, sizeof in);
		in.code = -1;
		in.crash = 1;
		in.signal = sig;
		in.frames = c->textn ? c->text : NULL;
		if (!derive_match(&b->db->derived, &in))
			audit_add(b, ds->path, c->line, ds->crash_raw, strlen(ds->crash_raw));
	}
	if (!ds->crash_raw || b->ncrashes >= CRASHES_KEPT || (!c->sig && !c->frame_line))
		return; /* nothing to derive from */
	if (b->ncrashes == b->capcrashes) {
		b->capcrashes = b->capcrashes ? b->capcrashes * 2 : 4;
		b->crashes = xrealloc(b->crashes, b->capcrashes * sizeof *b->crashes);
	}
	struct crash_clue *k = &b->crashes[b->ncrashes++];
	memset(k, 0, sizeof *k);
	k->path = xstrdup(ds->path);
	k->line = c->line;
	k->raw = xstrdup(ds->crash_raw);
	k->rawlength = ds->crash_rawlength;
	k->sig = c->sig;
	k->frame = c->frame_line ? str_sanitize(c->frame, strlen(c->frame)) : NULL;
	k->frame_line = c->frame_line;
	k->frames = c->textn ? xstrndup(c->text, c->textn) : NULL; /* matched by the rows, never shown */
	k->host = ds->crash_host ? xstrdup(ds->crash_host) : NULL;
	k->pid = ds->crash_pid;
	k->rank = ds->crash_rank;
}

static enum crash_event crash_feed(struct bundle *b, struct docstate *ds, const struct logline *ll, uint64_t lineno,
                                   const char *s, size_t n, int banner_kw, int explained)
{
	struct crash done;
	int closed;
	enum crash_event ev = crash_line(&ds->crash, ll, lineno, banner_kw, &done, &closed);
	if (closed)
		crash_keep(b, ds, &done);
	if (ev != CRASH_EV_BANNER)
		return ev;
	ds->crash_explained = explained; /* a signature matched the banner */
	free(ds->crash_raw);
	free(ds->crash_host);
	ds->crash_raw = str_sanitize_cut(s, n, 500);
	ds->crash_rawlength = n;
	const struct span *h = ll->host.n ? &ll->host : &ll->whost;
	ds->crash_host = h->n ? str_sanitize(h->p, h->n > 120 ? 120 : h->n) : NULL;
	ds->crash_pid = ll->pid >= 0 ? ll->pid : ll->wpid;
	ds->crash_rank = ll->rank;
	return ev;
}

static void crash_doc_end(struct bundle *b, struct docstate *ds)
{
	struct crash done;
	int closed;
	crash_end(&ds->crash, &done, &closed);
	if (closed)
		crash_keep(b, ds, &done);
	free(ds->crash_raw);
	free(ds->crash_host);
	ds->crash_raw = ds->crash_host = NULL;
}

/* ---- context lines around evidence ---- */

/* A context line, kept by the evidence list (every copy made is some
 * evidence's: one copy per line, shared by the evidence around it): the
 * bytes of str_sanitize_cut (a cut line ends with "…"), made in the list;
 * lm: the line's memo (struct evline). */
static char *context_copy(struct bundle *b, const char *s, size_t n, struct evline *lm)
{
	return evlist_keep_line(&b->ev, s, n, EVIDENCE_CONTEXT_TEXT, lm);
}

/* The current line is "after" context for evidence found just before it:
 * sanitised once for all of them; returns that copy (for context_push). */
static char *context_after(struct bundle *b, struct docstate *ds, const char *s, size_t n, struct evline *lm)
{
	unsigned keep = 0;
	char *t = context_copy(b, s, n, lm);
	for (unsigned i = 0; i < ds->nwaiting; i++) {
		struct evidence *e = &b->ev.v[ds->waiting[i]];
		e->after[e->nafter++] = t;
		if (e->nafter < EVIDENCE_CONTEXT)
			ds->waiting[keep++] = ds->waiting[i];
	}
	ds->nwaiting = keep;
	return t;
}

/* Evidence [first, b->ev.n) came from the current line: give it the lines
 * before, and let it wait for the lines after. */
static void context_before(struct bundle *b, struct docstate *ds, size_t first, unsigned skip)
{
	/* skip: the newest lines of the ring that are not before the evidence
	 * (a quoted message's: its own line, pushed just before) */
	unsigned nbefore = ds->nprev > skip ? ds->nprev - skip : 0;
	for (size_t k = first; k < b->ev.n; k++) {
		struct evidence *e = &b->ev.v[k];
		for (unsigned j = 0; j < nbefore; j++) {
			unsigned slot = (ds->prevpos + EVIDENCE_CONTEXT - ds->nprev + j) % EVIDENCE_CONTEXT;
			if (!ds->prevsan[slot]) /* sanitised once, whatever the evidence around it */
				ds->prevsan[slot] = context_copy(b, ds->prev[slot], ds->prevlen[slot], &ds->prevlm[slot]);
			e->before[e->nbefore++] = ds->prevsan[slot];
		}
		if (ds->nwaiting == sizeof ds->waiting / sizeof *ds->waiting) {
			memmove(ds->waiting, ds->waiting + 1, (ds->nwaiting - 1) * sizeof *ds->waiting);
			ds->nwaiting--;
		}
		ds->waiting[ds->nwaiting++] = k;
	}
}

/* The line joins the ring of previous lines; san: its context_copy when
 * made already, or NULL; lm: its memo (what it says of the line holds for
 * the copy, its first bytes: keep_sanitized looks at no more than those). */
static void context_push(struct docstate *ds, const char *s, size_t n, char *san, const struct evline *lm)
{
	size_t l = n < EVIDENCE_CONTEXT_TEXT + 4 ? n : EVIDENCE_CONTEXT_TEXT + 4;
	memcpy(ds->prev[ds->prevpos], s, l);
	ds->prevlen[ds->prevpos] = l;
	ds->prevsan[ds->prevpos] = san;
	ds->prevlm[ds->prevpos] = *lm;
	ds->prevpos = (ds->prevpos + 1) % EVIDENCE_CONTEXT;
	if (ds->nprev < EVIDENCE_CONTEXT)
		ds->nprev++;
}

/* ---- matching ---- */

struct line_ctx {
	struct bundle *b;
	const char *path;
	uint64_t line;
	const char *raw;
	size_t rawlen;
	struct evline *lm; /* the line's memo (evidence.h) */
	int quoted;        /* the message a wrapper's line quotes (prepared_line.qoff): raw is that line */
};

/* Whether signature id already has evidence on path:line: the line before
 * a quoted message is that message's own line, applied just before it, so
 * only the list's last items can be on it. */
static int line_has_evidence(const struct evlist *l, const char *id, const char *path, uint64_t line)
{
	for (size_t i = l->n; i-- > 0 && l->v[i].line == line;)
		if (!strcmp(l->v[i].id, id) && !strcmp(l->v[i].path, path))
			return 1;
	return 0;
}

/* Where raw-line offsets land in e->text (sanitised, maybe cut), computed
 * once per evidence: the text is made from the first src bytes of the raw
 * line only (EVIDENCE_TEXT_MAX), so no offset costs more than that, however
 * long the line; the leading bytes that came through unchanged (clean
 * ASCII, nothing masked) map to themselves. */
struct offmap {
	const char *raw;
	size_t src;   /* raw bytes the text was made from */
	size_t kept;  /* bytes of text without the "…" */
	size_t same;  /* leading raw bytes equal to the text */
	uint64_t *work; /* raw bytes looked at (struct bundle: offset_work) */
};

static void offmap_init(struct offmap *om, const char *raw, const struct evidence *e, uint64_t *work, int clean)
{
	om->raw = raw;
	om->work = work;
	if (clean) { /* the text is the raw line cut (evline_clean): every offset maps to itself */
		om->src = om->kept = om->same = e->cut ? EVIDENCE_TEXT_MAX : e->length;
		return;
	}
	om->src = e->cut ? str_cut_at(raw, e->length, EVIDENCE_TEXT_MAX) : e->length;
	om->kept = strlen(e->text) - (e->cut ? 3 : 0);
	size_t lim = om->src < om->kept ? om->src : om->kept, i = 0;
	size_t plain = str_plain_run(raw, lim); /* then the first byte that differs */
	while (i + 8 <= plain && memcmp(raw + i, e->text + i, 8) == 0)
		i += 8;
	while (i < plain && raw[i] == e->text[i])
		i++;
	om->same = i;
	*work += i;
}

/* The offset in the text of byte off of the raw line; SIZE_MAX when it lies
 * past the cut. */
static size_t text_offset(const struct offmap *om, size_t off)
{
	if (off == 0)
		return 0;
	if (off > om->src)
		return SIZE_MAX;
	size_t r;
	if (off <= om->same) {
		r = off;
	} else {
		char *t = str_sanitize(om->raw, off); /* off <= EVIDENCE_TEXT_MAX */
		r = strlen(t);
		free(t);
		*om->work += off;
	}
	return r <= om->kept ? r : SIZE_MAX;
}

static void on_match(void *vctx, const struct signature *s, const struct logline *ll,
                     const PCRE2_SIZE *ov, int ngroups)
{
	struct line_ctx *c = vctx;
	/* a quoted message that a signature matched in its whole line too: one
	 * piece of evidence, the line's */
	if (c->quoted && line_has_evidence(&c->b->ev, s->id, c->path, c->line))
		return;
	/* a signature's id has one place in the counts: kept per signature, so
	 * a match past the cap is counted without looking its id up */
	size_t si = (size_t)(s - c->b->db->sigs);
	long *slot = &c->b->sig_slot[si];
	if (*slot >= 0 && evlist_count_capped(&c->b->ev, (size_t)*slot))
		return;
	/* a known slot below its cap (just tested) is not full: no lookup */
	if (*slot < 0 && evlist_full(&c->b->ev, s->id)) {
		evlist_add(&c->b->ev, s->id, c->path, c->line, NULL, 0, NULL, 0); /* counted, not kept */
		*slot = evlist_slot(&c->b->ev, s->id);
		return;
	}
	struct capture caps[16];
	char *vals[16];           /* owned (str_sanitize_cut), or NULL: the value is in kept */
	char kept[16 * (EVIDENCE_TEXT_MAX + 1)];
	size_t nc = 0, nkept = 0;
	uint32_t clean = 0; /* the values that str_sanitize leaves as they are (evlist_add_at) */
	for (int g = 1; g < ngroups && (size_t)g < s->ncapnames && nc < 16; g++) {
		if (!s->capnames[g] || ov[2 * g] == PCRE2_UNSET)
			continue;
		/* cut like the line: a capture of a 64 KiB line fills titles and
		 * explanations, 200 times a signature */
		const char *v = ll->msg.p + ov[2 * g];
		size_t vn = ov[2 * g + 1] - ov[2 * g];
		if (vn <= EVIDENCE_TEXT_MAX && str_sanitize_keeps(v, vn)) {
			/* nearly every value: sanitised, it is itself (so sanitising it
			 * again, as evlist_add does, changes nothing): copied as it is */
			vals[nc] = NULL;
			caps[nc].value = memcpy(kept + nkept, v, vn);
			kept[nkept + vn] = 0;
			nkept += vn + 1;
			clean |= (uint32_t)1 << nc;
		} else {
			vals[nc] = str_sanitize_cut(v, vn, EVIDENCE_TEXT_MAX);
			caps[nc].value = vals[nc];
		}
		caps[nc].name = s->capnames[g];
		nc++;
	}
	struct evidence *e = *slot >= 0 ? evlist_add_at(&c->b->ev, (size_t)*slot, c->path, c->line, c->raw, c->rawlen,
	                                                c->lm, nc ? caps : NULL, nc, clean)
	                                : evlist_add(&c->b->ev, s->id, c->path, c->line, c->raw, c->rawlen, nc ? caps : NULL, nc);
	for (size_t i = 0; i < nc; i++)
		free(vals[i]);
	if (!e)
		return;
	*slot = (long)e->id_slot;
	/* where the match and its captures are in e->text: PCRE2's offsets
	 * into the message, moved to the raw line and measured in the
	 * sanitised text (an invalid byte before them changes the count);
	 * only the full report shows them (bundle_summary_only) */
	if (!c->b->summary_only && ll->msg.p >= c->raw && ll->msg.p <= c->raw + c->rawlen) {
		size_t base = (size_t)(ll->msg.p - c->raw);
		struct offmap om;
		offmap_init(&om, c->raw, e, &c->b->offset_work, evline_clean(c->lm, c->rawlen, EVIDENCE_TEXT_MAX));
		e->match.start = text_offset(&om, base + ov[0]);
		e->match.end = text_offset(&om, base + ov[1]);
		if (nc) {
			e->cspan = evlist_zalloc(&c->b->ev, nc * sizeof *e->cspan);
			size_t k = 0;
			for (int g = 1; g < ngroups && (size_t)g < s->ncapnames && k < nc; g++) {
				if (!s->capnames[g] || ov[2 * g] == PCRE2_UNSET)
					continue;
				e->cspan[k].start = text_offset(&om, base + ov[2 * g]);
				e->cspan[k].end = text_offset(&om, base + ov[2 * g + 1]);
				k++;
			}
		}
	}
	e->rank = ll->rank >= 0 ? ll->rank : msg_self_rank(&ll->msg);
	e->pid = ll->pid;
	if (ll->host.n)
		e->host = evlist_keepn(&c->b->ev, ll->host.p, ll->host.n);
	if (ll->level == LINE_WARN && ll->file.n) /* the component a generic result came from (rules_derived.c) */
		e->src = evlist_keep_sanitized(&c->b->ev, ll->file.p, ll->file.n > 120 ? 120 : ll->file.n);
	if (ll->ts.n)
		e->ts = evlist_keepn(&c->b->ev, ll->ts.p, ll->ts.n);
}

/* ---- lines ----
 * Each line is counted and prepared (prepare_line: logline_parse, the
 * prefilter scan, the benign test) on the thread that feeds the bundle,
 * then matched (the candidates' regexes) and applied (below) in line
 * order: in place, or on the pipeline's thread (bundle_set_threads). */

/* Everything a line changes in the bundle, given its parse and the
 * candidate signatures of the prefilter. */
/* Whether the line continues a benign traceback ("Exception ignored in:"
 * then "Traceback (most recent call last):", indented frames, and the
 * exception line that ends it). */
static int benign_tb_line(struct docstate *ds, const struct logline *ll)
{
	if (ll->rank != ds->benign_tb_rank)
		return 0; /* another rank's line, interleaved */
	const struct span *m = &ll->msg;
	if (ll->level != LINE_PLAIN || m->n == 0) {
		ds->benign_tb = 0;
		return 0;
	}
	if (m->p[0] == ' ' || m->p[0] == '\t' || (m->n >= 9 && memcmp(m->p, "Traceback", 9) == 0))
		return 1;
	ds->benign_tb = 0; /* the exception line: the last one */
	return 1;
}

static void apply_benign(struct bundle *b, struct docstate *ds, const struct logline *ll, uint64_t lineno,
                         const char *s, size_t n, double ts)
{
	b->benign_lines++;
	struct logline cp = *ll;
	cp.kw = logline_keywords(ll) | KW_BENIGN_BIT;
	cp.kw_known = 1;
	ranks_note_at(b->ranks, &cp, ds->path, lineno, b->ev.next_seq, ts); /* milestones, last line; not an error */
	if (ll->level != LINE_PLAIN && !b->saw_nccl)
		b->saw_nccl = 1;
	if (!b->summary_only) {
		struct evline lm = {0, 0};
		context_push(ds, s, n, ds->nwaiting ? context_after(b, ds, s, n, &lm) : NULL, &lm);
	}
}

/* The audit (analyze --unexplained): a failure-word line that no signature,
 * launcher record, crash report (its banner is judged when its block ends),
 * traceback or derived row explains. */
static void audit_line(struct bundle *b, struct docstate *ds, const struct logline *ll, uint64_t lineno,
                       const char *s, size_t n, int explained, const char *what)
{
	const struct span *m = &ll->msg;
	/* a Python traceback's frames and code lines, to its exception line (an
	 * excerpt may start at a frame: '  File "x.py", line 12, in f') */
	if (ll->level == LINE_PLAIN && ((m->n >= 9 && memcmp(m->p, "Traceback", 9) == 0) ||
	                                (m->n > 8 && m->p[0] == ' ' && mem_find(m->p, m->n < 16 ? m->n : 16, "File \"", 6, 6)))) {
		ds->audit_tb = 1;
		return;
	}
	if (ds->audit_tb) {
		if (ll->level == LINE_PLAIN && m->n && (m->p[0] == ' ' || m->p[0] == '\t'))
			return;
		ds->audit_tb = 0;
	}
	/* NCCL's INFO, TRACE and CALL lines are not failure reports (NCCL reports
	 * failures as WARN; the INFO formats that name a failure are mapped in
	 * patterns/coverage/nccl.tsv); the watchdog's counters and the flight
	 * recorder's dump lines are read by the rank timelines (ranks.c) */
	if (explained || (ll->level != LINE_PLAIN && ll->level != LINE_WARN) ||
	    (ll->kw & (KW_BIT(KW_LAST_ENQUEUED) | KW_BIT(KW_DUMP_OBSERVED) | KW_BIT(KW_DUMP_RECEIVED))) ||
	    !failure_word(m->p, m->n))
		return;
	if (what) {
		struct derive_input in;
		if (derive_input_from_line(ll, &in) && derive_match(&b->db->derived, &in))
			return; /* a derived row gives it a category */
	}
	audit_add(b, ds->path, lineno, s, n);
}

/* Whether the line is benign: it continues a benign traceback, or a benign
 * entry matches it.  Where lines are applied, in line order (apply_prepared:
 * the pipeline's thread, which has the smaller share of the work): the
 * traceback state is the document's, read and written there only; the
 * regexes are pure, their match limits counted in rmatcher (merged into
 * matcher's report at the end, bundle_end_input). */
static int line_benign(struct bundle *b, struct docstate *ds, const struct logline *ll, const size_t *cand,
                       size_t ncand)
{
	if (ds->benign_tb && benign_tb_line(ds, ll))
		return 1;
	const struct signature *bn = ncand ? matcher_benign(b->rmatcher, ll, cand, ncand) : NULL;
	if (!bn)
		return 0;
	if (bn->benign_block) {
		ds->benign_tb = 1;
		ds->benign_tb_rank = ll->rank;
	}
	return 1;
}

static void apply_line(struct bundle *b, const struct line_batch *bt, const struct prepared_line *pl)
{
	struct docstate *ds = pl->doc;
	const struct logline *ll = &pl->ll;
	uint64_t lineno = pl->lineno;
	const char *s = pl->raw;
	size_t n = pl->rawlen;
	const char *path = ds->path;
	const struct span *m = &ll->msg;
	if (pl->benign) {
		apply_benign(b, ds, ll, lineno, s, n, pl->ts);
		return;
	}
	int launcher = ranks_note_at(b->ranks, ll, path, lineno, b->ev.next_seq, pl->ts); /* ranks: every line (torch [rankN], torchrun blocks) */
	if (ll->floor && (ll->level == LINE_PLAIN || ll->level == LINE_WARN)) /* NCCL's INFO is no failure report */
		floor_note(b, ds, ll, lineno, s, n, -1);
	if (ll->level != LINE_PLAIN) {
		if (!b->saw_nccl)
			b->saw_nccl = 1;
		if (ll->level == LINE_WARN && ll->file.n && ll->srcline > 0 && b->nwsites < BUNDLE_WSITES)
			note_warn_site(b, ll, path, lineno);
		if (ll->level == LINE_INFO) {
			if (m->n >= 10 && m->p[0] >= 'a' && m->p[0] <= 'z')
				note_chain(b, ll, path, lineno, s, n); /* "init.cc:1234 -> 2" */
			fact_cuda_driver(b, m);
			if (m->n > 24 && m->p[0] == 'N') /* "NCCL_X set by environment to Y" */
				fact_env_line(b, m, path, lineno);
		}
	}
	/* the banner starts an INFO message; PyTorch quotes the version anywhere */
	if (ll->level == LINE_INFO ? (m->n > 13 && memcmp(m->p, "NCCL version ", 13) == 0)
	                           : (ll->kw & KW_BIT(KW_NCCL_VERSION)) != 0)
		fact_nccl_version(b, m);
	/* past the cap it keeps nothing: not called (it would count the kept
	 * events, a walk of cold entries, at every further OOM line) */
	if (ll->level == LINE_PLAIN && (ll->kw & KW_BIT(KW_CUDA_OOM)) && b->torch_oom_kept < SYS_OOM_EVENTS_MAX)
		b->torch_oom_kept += (size_t)sysreport_torch_oom(m->p, m->n, b->facts, path, lineno);
	/* system facts carried by log lines: nccl-tests output (its table rows
	 * carry no keyword: once a run started, '#' lines and rows go in too),
	 * kernel messages, what each host's NCCL says about itself */
	struct linekind lkt;
	if (ll->level == LINE_PLAIN && (ll->kw & KW_BIT(KW_NCCLTESTS))) {
		if (!ds->nt)
			ds->nt = sysreport_nccltests_new(b->facts, path);
		sysreport_nccltests_line(ds->nt, m->p, m->n, lineno);
	} else if (ll->level == LINE_PLAIN && linekind_get(ll, &lkt)->table_row) {
		if (sysreport_nccltests_wants(ds->nt, m->p, m->n)) {
			sysreport_nccltests_line_nokw(ds->nt, m->p, m->n, lineno); /* wants: ds->nt is open */
		} else if (!sysreport_nccltests_active(ds->nt) && sysreport_nccltests_bare_row(m->p, m->n)) {
			if (!ds->nt) /* a table pasted without its header */
				ds->nt = sysreport_nccltests_new(b->facts, path);
			sysreport_nccltests_line_nokw(ds->nt, m->p, m->n, lineno);
		}
	}
	if (ll->kw & KW_BIT(KW_KMSG))
		sysreport_kmsg_line(b->facts, s, n, path, lineno);
	/* what NCCL says about its host: messages that start with these words
	 * (a prefix test per INFO line costs less than more prefilter literals) */
	if (ll->level == LINE_INFO && ll->host.n && m->n > 12 &&
	    (!memcmp(m->p, "NET/", 4) || !memcmp(m->p, "NCCL ver", 8) || !memcmp(m->p, "cudaDriv", 8) ||
	     !memcmp(m->p, "Using ne", 8) || !memcmp(m->p, "Bootstra", 8)))
		sysreport_node_info(b->facts, ll->host.p, ll->host.n, m->p, m->n, path, lineno);
	struct evline lm = {0, 0}; /* this line's: its evidence text and context copies look at it once */
	/* a quoted message is part of the line before it, not a line of the
	 * context: it neither follows evidence nor joins the ring */
	char *san = ds->nwaiting && !pl->qoff ? context_after(b, ds, s, n, &lm) : NULL;
	/* the matches the reading thread found, in database order, after its
	 * messages (budget spent, a regex that does not compile) */
	for (size_t i = 0; i < pl->nmsg; i++)
		msgs_add(&b->warnings, "%s", bt->msg[pl->msg + i]);
	/* a quoted message's evidence quotes its whole line (prepared_line.qoff):
	 * the text a report shows as path:line is that line */
	struct evline lmq = {0, 0};
	struct line_ctx c = pl->qoff ? (struct line_ctx){b, path, lineno, s - pl->qoff, pl->qlen, &lmq, 1}
	                             : (struct line_ctx){b, path, lineno, s, n, &lm, 0};
	size_t first = b->ev.n;
	for (size_t i = 0; i < pl->nhit; i++) {
		const struct line_hit *h = &bt->hit[pl->hit + i];
		on_match(&c, &b->db->sigs[h->sig], ll, bt->ov + h->ov, h->rc);
	}
	size_t hits = pl->nhit;
	if (!b->summary_only) { /* without it nothing ever waits: san stays NULL */
		if (b->ev.n > first)
			context_before(b, ds, first, pl->qoff ? 1 : 0);
		if (!pl->qoff)
			context_push(ds, s, n, san, &lm);
	}
	const char *what = NULL;
	if (hits == 0) {
		what = failure_kind(ll);
		if (what)
			note_failure(b, what, path, lineno, ll, s, n);
	}
	/* the floor's tier 2, until there is a pick: a failure line, or a line a
	 * signature matched, that is an NCCL WARN or holds a failure word (the
	 * floor is a grep of its own: what the signatures say does not count) */
	if (b->floor.kw < 0 && (what || hits) && (ll->level == LINE_PLAIN || ll->level == LINE_WARN) &&
	    (ll->level == LINE_WARN || failure_word(m->p, m->n))) {
		int k = floorkw_failure_line(m->p, m->n);
		if (k >= 0)
			floor_note(b, ds, ll, lineno, s, n, k);
	}
	uint64_t ckw = ll->kw & (KW_BIT(KW_CRASH) | KW_BIT(KW_TERMINATE) | KW_BIT(KW_SEGFAULT) | KW_BIT(KW_FATAL_PYTHON) |
	                         KW_BIT(KW_CORE_DUMPED));
	enum crash_event cev = ds->crash.open || ckw ? crash_feed(b, ds, ll, lineno, s, n, ckw != 0, hits > 0) : CRASH_EV_NONE;
	if (b->audit)
		audit_line(b, ds, ll, lineno, s, n, hits || launcher || cev != CRASH_EV_NONE, what);
}

/* matcher_match_list's callback: the match goes into the line's record. */
struct found_ctx {
	const struct sigdb *db;
	struct line_batch *bt;
	struct prepared_line *pl;
};

static void found_hit(void *ctx, const struct signature *s, const struct logline *ll, const PCRE2_SIZE *ov,
                      int rc)
{
	(void)ll;
	struct found_ctx *f = ctx;
	line_batch_add_hit(f->bt, f->pl, (uint32_t)(s - f->db->sigs), ov, rc);
}

/* The candidates' regexes, where lines are applied, in line order (the
 * budgets of slow matches count in that order); the matches and the
 * matcher's messages go into the line's record, in database order. */
static void match_line(struct bundle *b, struct line_batch *bt, struct prepared_line *pl)
{
	if (pl->benign || pl->ncand == 0)
		return;
	struct found_ctx f = {b->db, bt, pl};
	struct msgs m = {0};
	const struct docstate *ds = pl->doc;
	const struct match_tried *tried = NULL;
	if (bt->try_ahead) { /* the reading thread tried them (prepare_line) */
		if (pl->ncand > b->ntried) {
			b->ntried = pl->ncand;
			b->tried = xrealloc(b->tried, b->ntried * sizeof *b->tried);
		}
		for (size_t i = 0; i < pl->ncand; i++) {
			size_t k = pl->cand + i;
			b->tried[i].rc = bt->trc[k];
			b->tried[i].ov = bt->trc[k] > 0 ? bt->tov + bt->tovo[k] : NULL;
		}
		tried = b->tried;
	}
	matcher_match_tried(b->rmatcher, &pl->ll, bt->cand + pl->cand, pl->ncand, tried, ds->path, found_hit, &f, &m);
	for (size_t i = 0; i < m.list.n; i++) {
		line_batch_add_msg(bt, pl, m.list.v[i]);
		m.list.v[i] = NULL;
	}
	msgs_free(&m);
}

/* One prepared line of bt (not an end of document), in line order.
 * Inlined into apply_batch and into process_line's in-place path: a line
 * applied in place costs no call of its own. */
static inline __attribute__((always_inline)) void apply_prepared(struct bundle *b, struct line_batch *bt,
                                                                 struct prepared_line *pl)
{
	/* the line's kind and its time: here, as the reading thread has the
	 * larger share of the work (nothing it does reads them) */
	linekind_classify(&pl->ll);
	pl->ts = ranks_line_ts(&pl->ll);
	pl->benign = line_benign(b, pl->doc, &pl->ll, pl->ncand ? bt->cand + pl->cand : NULL, pl->ncand);
	match_line(b, bt, pl);
	apply_line(b, bt, pl);
#ifdef NT_SPAN_CHECK
	ranks_lines_gone(b->ranks);
	free((void *)(pl->raw - pl->qoff)); /* the copy holds the whole line */
#endif
}

static void apply_batch(void *ctx, struct line_batch *bt)
{
	struct bundle *b = ctx;
	for (size_t i = 0; i < bt->n; i++) {
		struct prepared_line *pl = &bt->v[i];
		if (pl->end_doc) {
			doc_finish(b, pl->doc);
			continue;
		}
		apply_prepared(b, bt, pl);
	}
	/* the pipeline reuses the batch's bytes; the lines of b->solo are the
	 * reader's (feed_lines and sink_end say when they go) */
	if (bt != b->solo)
		ranks_lines_gone(b->ranks);
}

#ifdef NT_SPAN_CHECK
/* Test builds (the ASan build of make check, the fuzzers): every line is
 * parsed from an allocation of exactly its size, so that a parser reading
 * past the line's span (strtol, strstr, sscanf on a span) is a reported
 * heap-buffer-overflow instead of a fact taken from the next line. */
static const char *span_copy(const char *s, size_t n)
{
	char *c = xmalloc(n ? n : 1);
	if (n)
		memcpy(c, s, n);
	return c;
}
#endif

/* Everything about the line that depends on the line only: the parse and
 * the prefilter; the candidates are recorded.  apply_prepared classifies
 * it (linekind: after the scan, it reads the keywords), takes its time,
 * tests whether it is benign (line_benign), runs the candidates' regexes
 * (match_line) and apply_line does the rest, in line order (on the
 * pipeline's thread, or in place). */
static inline __attribute__((always_inline)) void prepare_line(struct bundle *b, struct docstate *ds,
                                                               struct line_batch *bt, struct prepared_line *pl,
                                                               uint64_t lineno, const char *s, size_t n,
                                                               size_t qoff, size_t qlen)
{
	struct logline *ll = &pl->ll;
	logline_parse(s, n, ll);
	size_t nc = matcher_scan(b->matcher, ll); /* the prefilter; it also finds the keywords (ll.kw) */
	pl->raw = s;
	pl->rawlen = n;
	pl->qoff = qoff;
	pl->qlen = qlen;
	pl->lineno = lineno;
	pl->doc = ds;
	pl->end_doc = 0;
	pl->cand = pl->ncand = pl->hit = pl->nhit = pl->msg = pl->nmsg = 0;
	const size_t *cand = matcher_candidates(b->matcher);
	pl->benign = 0; /* line_benign, where the line is applied (apply_prepared) */
	line_batch_add_cands(bt, pl, cand, nc); /* the benign entries' and the others' regexes: match_line */
	for (size_t i = 0; bt->try_ahead && i < nc; i++) { /* the consumer is behind: its fast matches here */
		const PCRE2_SIZE *ov;
		int rc = matcher_try(b->matcher, ll, cand[i], &ov);
		line_batch_set_tried(bt, pl->cand + i, rc, ov);
	}
}

/* Submit the batch being filled and take the next one.  A chunk read into
 * the old batch (sink_room) and not yet split moves along from its current
 * line: the records of the lines before stay with the old batch (which the
 * consumer may reuse once applied), the rest of the bytes go to the new
 * one. */
static void fill_next(struct bundle *b)
{
	struct line_batch *old = b->fill;
	pipeline_submit(b->pipe, old);
	b->fill = pipeline_batch(b->pipe);
	if (b->rend && b->fill != old) { /* the same batch: it held no record, nothing was submitted */
		size_t rest = (size_t)(b->rend - b->rcur);
		char *dst = line_batch_room_any(b->fill, rest); /* empty: never NULL */
		memcpy(dst, b->rcur, rest);
		b->fill->len += rest;
		b->rcur = dst;
		b->rend = dst + rest;
	}
}

#ifdef NT_SPAN_CHECK
/* Whether [s, s + n) lies in the chunk read into the batch being filled. */
static int in_chunk(const struct bundle *b, const char *s, size_t n)
{
	uintptr_t p = (uintptr_t)s, lo = (uintptr_t)b->rcur, hi = (uintptr_t)b->rend;
	return b->rend && p >= lo && p <= hi && n <= hi - p;
}
#endif

/* Prepare the line in the batch being filled: in place when it lies in a
 * chunk read there (sink_room), else copied to the end of the batch's text;
 * its keyword mask (the prefilter's). */
static uint64_t queue_line(struct bundle *b, struct docstate *ds, uint64_t lineno, const char *s, size_t n,
                           size_t qoff, size_t qlen)
{
	const char *dst;
	/* a quoted message travels with its whole line (prepared_line.qoff) */
	const char *w = s - qoff;
	size_t wn = qoff ? qlen : n;
	/* While a chunk read into the batch is split (b->rend set), every line
	 * given here lies in it: feed_lines gives its lines in place (a whole
	 * one, or one cut at max_line) and their quoted WARNs (process_line),
	 * and copies only the unfinished line at its end, given later.  The
	 * test builds check it. */
	if (b->rend) {
#ifdef NT_SPAN_CHECK
		if (!in_chunk(b, w, wn))
			abort();
#endif
		if (b->fill->n >= PIPELINE_BATCH_LINES) { /* full of records: the chunk's rest moves */
			size_t off = (size_t)(s - b->rcur);
			fill_next(b);
			s = b->rcur + off;
		}
		dst = s;
	} else {
		/* never while a chunk is being split (feed_lines prepares its every
		 * line in place): a batch taken here holds no such bytes */
		char *d = line_batch_room(b->fill, wn);
		if (!d) {
			fill_next(b);
			d = line_batch_room(b->fill, wn);
		}
		memcpy(d, w, wn);
		b->fill->len += wn;
		dst = d + qoff;
	}
#ifdef NT_SPAN_CHECK
	dst = span_copy(dst - qoff, wn) + qoff; /* freed by apply_batch */
#endif
	struct prepared_line *pl = line_batch_add(b->fill);
	prepare_line(b, ds, b->fill, pl, lineno, dst, n, qoff, qlen);
	return pl->ll.kw;
}

/* The end of a document, after its lines (doc_finish on the pipeline's thread). */
static void queue_end(struct bundle *b, struct docstate *ds)
{
	if (b->fill->n >= PIPELINE_BATCH_LINES)
		fill_next(b);
	struct prepared_line *pl = line_batch_add(b->fill);
	memset(pl, 0, sizeof *pl);
	pl->doc = ds;
	pl->end_doc = 1;
}

/* Wait until the pipeline has applied every line given so far: before
 * anything that reads or writes what apply_line does. */
static void lines_drain(struct bundle *b)
{
	if (!b->pipe)
		return;
	pipeline_submit(b->pipe, b->fill);
	pipeline_drain(b->pipe);
	b->fill = pipeline_batch(b->pipe);
	b->ndeferred = 0;
	b->deferred_bytes = 0;
}

/* The pipeline's thread, at the first line; without it (the thread
 * cannot be made) lines are applied in place. */
static void lines_start(struct bundle *b)
{
	/* the consumer's matcher, before its thread can read it; once, at the
	 * first line (the budgets are the whole bundle's) */
	b->rmatcher = matcher_new(b->db);
	matcher_set_budget(b->rmatcher, b->lim.match_budget);
	b->pipe = pipeline_start(apply_batch, b);
	if (!b->pipe) {
		matcher_free(b->rmatcher);
		b->rmatcher = b->matcher;
		b->threads = 1;
		return;
	}
	b->fill = pipeline_batch(b->pipe);
}

static void lines_stop(struct bundle *b)
{
	pipeline_stop(b->pipe); /* drains first */
	b->pipe = NULL;
	b->fill = NULL;
	if (b->solo) {
		line_batch_free(b->solo);
		free(b->solo);
		b->solo = NULL;
	}
}

void bundle_set_threads(struct bundle *b, int threads)
{
	b->threads = threads;
}

void bundle_summary_only(struct bundle *b, int on)
{
	b->summary_only = on != 0;
}

void bundle_set_audit(struct bundle *b, int on)
{
	b->audit = on;
}

/* One line of the document as line lineno, queued or applied in place;
 * its keyword mask.  qoff > 0: s is the message that the line s - qoff
 * (qlen bytes) quotes, matched as a line of its own (process_line). */
static uint64_t process_line_at(struct bundle *b, struct docstate *ds, uint64_t lineno, const char *s, size_t n,
                                size_t qoff, size_t qlen)
{
	if (b->threads > 1 && !b->pipe)
		lines_start(b);
	if (b->pipe)
		return queue_line(b, ds, lineno, s, n, qoff, qlen);
	/* in place: a batch of one line, applied at once */
	if (!b->solo)
		b->solo = xcalloc(1, sizeof *b->solo);
#ifdef NT_SPAN_CHECK
	s = span_copy(s - qoff, qoff ? qlen : n) + qoff; /* freed by apply_batch */
#endif
	struct prepared_line *pl = line_batch_add(b->solo);
	prepare_line(b, ds, b->solo, pl, lineno, s, n, qoff, qlen);
	uint64_t kw = pl->ll.kw;
	apply_prepared(b, b->solo, pl); /* what apply_batch does with a batch of this one line */
	line_batch_reset(b->solo);
	return kw;
}

/* The NCCL WARN message a wrapper's line quotes (KW_EMBEDDED_WARN): XLA's
 * ToStatus (xla/service/gpu/nccl_utils.cc) ends its error with "Last NCCL
 * warning(error) log entry (may be unrelated) '%s'.", the string of
 * ncclGetLastError(): the format of NCCL's last WARN, without its prefix
 * (NCCL src/debug.cc, ncclDebugLog, since 2.13.4).  The message runs from
 * the quote after the marker to the last "'." of the line (XLA may append
 * "; current tracing scope: ..."), else to the last quote; a message may
 * hold quotes of its own ('Cuda failure 2 'out of memory'').  Empty when
 * the line has no such message. */
static size_t embedded_warn(const char *s, size_t n, const char **msg)
{
	static const char mark[] = "log entry (may be unrelated) '";
	const size_t ml = sizeof mark - 1;
	const char *p = n >= ml ? memmem(s, n, mark, ml) : NULL;
	if (!p)
		return 0;
	const char *b = p + ml, *end = s + n, *e = NULL;
	for (const char *q = end - 1; q > b; q--)
		if (q[0] == '\'' && q + 1 < end && q[1] == '.') {
			e = q;
			break;
		}
	if (!e)
		for (const char *q = end - 1; q > b; q--)
			if (*q == '\'') {
				e = q;
				break;
			}
	if (!e || e == b)
		return 0;
	*msg = b;
	return (size_t)(e - b);
}

static void process_line(struct bundle *b, struct docstate *ds, const char *s, size_t n)
{
	struct input_doc *doc = &b->docs[ds->doc];
	doc->lines++;
	if (doc->lines > b->lim.max_lines) {
		if (!ds->lines_capped)
			ds->lines_capped = doc->lines; /* reported by sink_end */
		return;
	}
	uint64_t kw = process_line_at(b, ds, doc->lines, s, n, 0, 0);
	if (kw & KW_BIT(KW_EMBEDDED_WARN)) {
		if (b->rend)
			s = b->rcur; /* a line of a chunk read into the batch: it may have moved (fill_next) */
		/* the quoted WARN is matched as a line of its own, with the same
		 * line number: the signatures of NCCL's WARN messages see it; their
		 * evidence quotes the whole line, the match a span of it */
		const char *msg = NULL;
		size_t mn = embedded_warn(s, n, &msg);
		if (mn)
			process_line_at(b, ds, doc->lines, msg, mn, (size_t)(msg - s), n);
	}
}

/* Split bytes into lines; carries an unfinished line in ds->partial. */
static void feed_lines(struct bundle *b, struct docstate *ds, const char *p, size_t n)
{
	size_t maxl = b->lim.max_line;
	const int inplace = b->rend != NULL; /* a chunk read into the batch (sink_data sets it around this call) */
	while (n > 0) {
		if (ds->partial.len == 0 && !ds->partial_cut && *p == 0) {
			/* NULs at the start of a line are a hole (copytruncate
			 * rotation, a crash with preallocated blocks): skipped, so
			 * the line written after the hole is not cut by --max-line */
			while (n > 0 && *p == 0) {
				p++;
				n--;
			}
			if (n == 0)
				break;
		}
		const char *nl = memchr(p, '\n', n);
		size_t len = nl ? (size_t)(nl - p) : n;
		if (ds->partial.len == 0 && nl && len <= maxl) {
			if (inplace) { /* the line is prepared where it is */
				b->rcur = p;
				process_line(b, ds, p, len); /* fast path: whole line in the chunk */
				p = b->rcur; /* it may have moved to the next batch (fill_next) */
				nl = p + len;
			} else {
				process_line(b, ds, p, len); /* fast path: whole line in the chunk */
			}
		} else if (inplace && nl && ds->partial.len == 0) {
			/* a whole line past max_line, in a chunk read into the batch
			 * (sink_room: no unfinished line before it, ds->partial is
			 * empty): its first max_line bytes, in place, as the copy below
			 * would give them */
			ds->long_lines++;
			b->rcur = p;
			process_line(b, ds, p, maxl);
			p = b->rcur;
			nl = p + len;
		} else {
			size_t room = ds->partial.len < maxl ? maxl - ds->partial.len : 0;
			size_t take = len < room ? len : room;
			buf_add(&ds->partial, p, take);
			if (take < len)
				ds->partial_cut = 1;
			if (nl) {
				if (ds->partial_cut)
					ds->long_lines++;
				process_line(b, ds, ds->partial.data, ds->partial.len);
				if (!b->pipe) /* applied in place: the ranks may hold the line */
					ranks_lines_gone(b->ranks);
				buf_reset(&ds->partial);
				ds->partial_cut = 0;
			}
		}
		if (!nl)
			break;
		p = nl + 1;
		n -= len + 1;
	}
	if (!b->pipe) /* the caller's bytes: lines applied in place may be held by the ranks */
		ranks_lines_gone(b->ranks);
}

static int is_sysreport(enum doc_kind k)
{
	return !doc_kind_is_log(k) && k != DOC_EMPTY && k != DOC_BINARY && k != DOC_FLIGHT_RECORDER;
}

/* What a document's bytes go to besides its lines: a log's scan buffer (an
 * NCCL log is scanned only when it is small, a pasted ticket: the scan
 * costs about as much as the analysis of the same bytes), a system
 * report's copy. */
static void feed_doc_held(struct bundle *b, struct docstate *ds, const char *p, size_t n)
{
	struct input_doc *doc = &b->docs[ds->doc];
	if (doc_kind_is_log(doc->kind)) {
		size_t scan_max = doc->kind == DOC_NCCL_LOG ? SCAN_MAX_NCCL : SCAN_MAX;
		if (ds->scan.len + n > scan_max && doc->kind == DOC_NCCL_LOG)
			ds->scan_off = 1;
		if (ds->scan_off)
			buf_free(&ds->scan);
		else if (ds->scan.len < scan_max)
			buf_add(&ds->scan, p, n < scan_max - ds->scan.len ? n : scan_max - ds->scan.len);
	} else {
		size_t room = ds->sys.len < SYSREPORT_MAX ? SYSREPORT_MAX - ds->sys.len : 0;
		size_t take = n < room ? n : room;
		buf_add(&ds->sys, p, take);
		if (take < n)
			ds->sys_cut = 1;
	}
}

static void feed_doc(struct bundle *b, struct docstate *ds, const char *p, size_t n)
{
	struct input_doc *doc = &b->docs[ds->doc];
	if (doc_kind_is_log(doc->kind)) {
		feed_doc_held(b, ds, p, n);
		feed_lines(b, ds, p, n);
	} else if (doc->kind == DOC_FLIGHT_RECORDER) {
		/* a dump is read whole at its end (flight.c), up to FLIGHT_DOC_MAX */
		size_t room = ds->sys.len < FLIGHT_DOC_MAX ? FLIGHT_DOC_MAX - ds->sys.len : 0;
		buf_add(&ds->sys, p, n < room ? n : room);
		if (n > room)
			ds->sys_cut = 1;
	} else if (is_sysreport(doc->kind)) {
		feed_doc_held(b, ds, p, n);
		if (sysreport_kind_scanned(doc->kind))
			feed_lines(b, ds, p, n); /* and its lines as a log's (they count the lines too) */
	}
}

static void classify(struct bundle *b, struct docstate *ds, int complete)
{
	struct input_doc *doc = &b->docs[ds->doc];
	doc->kind = detect_kind(ds->head.data ? ds->head.data : "", ds->head.len, complete);
	ds->kind_known = 1;
	if (ds->head.len)
		feed_doc(b, ds, ds->head.data, ds->head.len);
	buf_free(&ds->head);
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void docidx_put(struct bundle *b, size_t i)
{
	size_t mask = b->ndocidx - 1;
	size_t k = name_hash(b->docs[i].path) & mask;
	while (b->docidx[k])
		k = (k + 1) & mask;
	b->docidx[k] = i + 1;
}

/* doc_sink.taken: is a document of this name in the bundle already? */
static int sink_taken(void *ctx, const char *name)
{
	struct bundle *b = ctx;
	if (!b->ndocidx)
		return 0;
	size_t mask = b->ndocidx - 1;
	for (size_t k = name_hash(name) & mask; b->docidx[k]; k = (k + 1) & mask)
		if (strcmp(b->docs[b->docidx[k] - 1].path, name) == 0)
			return 1;
	return 0;
}

static void sink_begin(void *ctx, const char *name)
{
	struct bundle *b = ctx;
	if (b->ndocs == b->capdocs) {
		b->capdocs = b->capdocs ? b->capdocs * 2 : 8;
		b->docs = xrealloc(b->docs, b->capdocs * sizeof *b->docs);
	}
	struct input_doc *doc = &b->docs[b->ndocs];
	memset(doc, 0, sizeof *doc);
	doc->path = str_sanitize(name, strlen(name));
	doc->complete = 1;
	if ((b->ndocs + 1) * 2 > b->ndocidx) {
		free(b->docidx);
		b->ndocidx = b->ndocidx ? b->ndocidx * 2 : 64;
		b->docidx = xcalloc(b->ndocidx, sizeof *b->docidx);
		for (size_t i = 0; i < b->ndocs; i++)
			docidx_put(b, i);
	}
	docidx_put(b, b->ndocs);
	struct docstate *ds = xcalloc(1, sizeof *ds);
	ds->doc = b->ndocs++;
	ds->path = doc->path;
	b->cur = ds;
}

/* A chunk must leave the batch at least this much room, else the next
 * batch is taken (reads stay large: a read costs a system call). */
#define ROOM_MIN (64u << 10)

/* doc_sink.room: with the pipeline, a document whose lines are read
 * (a log, a scanned system report) is read straight into the batch being
 * filled, after a copy of its unfinished line; sink_data splits it there,
 * and whole lines are never copied (queue_line).  Otherwise NULL (the
 * input's buffer): no pipeline (-j1: the lines are applied at once from
 * the input's bytes), the document's kind not known yet (its first bytes
 * are held in ds->head), a line past max_line, or a long unfinished line. */
static void *sink_room(void *ctx, size_t *n)
{
	struct bundle *b = ctx;
	struct docstate *ds = b->cur;
	b->room = NULL;
	if (!ds || !b->pipe || !ds->kind_known || ds->partial_cut)
		return NULL;
	enum doc_kind k = b->docs[ds->doc].kind;
	if (!doc_kind_is_log(k) && !(is_sysreport(k) && sysreport_kind_scanned(k)))
		return NULL;
	size_t plen = ds->partial.len, avail = 0;
	char *dst = line_batch_chunk(b->fill, plen + ROOM_MIN, &avail);
	if (!dst && b->fill->n > 0) {
		fill_next(b); /* no chunk is being split: nothing moves */
		dst = line_batch_chunk(b->fill, plen + ROOM_MIN, &avail);
	}
	if (!dst)
		return NULL; /* the unfinished line is longer than a batch holds */
	/* a copy: ds->partial stays until the bytes come (the read may find
	 * the end of the document) */
	if (plen)
		memcpy(dst, ds->partial.data, plen);
	b->room = dst + plen;
	b->room_plen = plen;
	if (*n > avail - plen)
		*n = avail - plen;
	return b->room;
}

static void sink_data(void *ctx, const void *p, size_t n)
{
	struct bundle *b = ctx;
	struct docstate *ds = b->cur;
	char *room = b->room;
	b->room = NULL;
	if (!ds)
		return;
	b->docs[ds->doc].bytes += n;
	if (room && p == room) {
		/* read into the batch being filled (sink_room), after its
		 * unfinished line: the batch holds the bytes from now on */
		char *lp = room - b->room_plen;
		size_t ln = b->room_plen + n;
		b->fill->len += ln;
		buf_reset(&ds->partial);
		feed_doc_held(b, ds, p, n);
		b->rcur = lp;
		b->rend = lp + ln;
		feed_lines(b, ds, lp, ln);
		b->rcur = b->rend = NULL;
		return;
	}
	if (!ds->kind_known) {
		size_t want = HEAD_BYTES - ds->head.len;
		size_t take = n < want ? n : want;
		buf_add(&ds->head, p, take);
		if (ds->head.len < HEAD_BYTES)
			return;
		classify(b, ds, 0);
		p = (const char *)p + take;
		n -= take;
	}
	if (n)
		feed_doc(b, ds, p, n);
}

/* The end of a document, for what touches the bundle (warnings, facts):
 * in line order, so on the pipeline's thread when there is one (after the
 * document's lines), in place otherwise.  Reads ds only, never b->docs. */
static void doc_finish(struct bundle *b, struct docstate *ds)
{
	const char *path = ds->path;
	if (ds->lines_capped)
		msgs_add(&b->warnings, "%s: line %llu: more than %llu lines; the rest of the document was not analysed (--max-lines)",
		         path, (unsigned long long)ds->lines_capped, (unsigned long long)b->lim.max_lines);
	if (ds->long_lines)
		msgs_add(&b->warnings, "%s: %llu line(s) longer than %zu bytes: only the first %zu bytes of each were analysed (--max-line)",
		         path, (unsigned long long)ds->long_lines, b->lim.max_line, b->lim.max_line);
	if (ds->kind == DOC_BINARY)
		msgs_add(&b->warnings, "%s: binary content (%llu bytes) skipped", path, (unsigned long long)ds->bytes);
	if (is_sysreport(ds->kind)) {
		if (ds->sys_cut)
			msgs_add(&b->warnings, "%s: system report larger than %u bytes: only the first %u bytes were parsed",
			         path, SYSREPORT_MAX, SYSREPORT_MAX);
		sys_env_index_use(&b->envix); /* env dumps: facts.env hashed (sysparse.h) */
		int nf = sysreport_parse(ds->kind, ds->sys.data ? ds->sys.data : "", ds->sys.len, path, b->facts,
		                         &b->warnings);
		sys_env_index_use(NULL);
		if (nf == 0 && ds->sys.len)
			msgs_add(&b->warnings, "%s: looked like %s but nothing could be parsed from it", path,
			         doc_kind_name(ds->kind));
	}
	if (ds->kind == DOC_FLIGHT_RECORDER) {
		if (ds->sys_cut)
			msgs_add(&b->warnings, "%s: flight-recorder dump larger than %u bytes: only the first %u bytes were read",
			         path, FLIGHT_DOC_MAX, FLIGHT_DOC_MAX);
		flight_add_doc(b->flight, path, ds->sys.data ? ds->sys.data : "", ds->sys.len, ds->complete && !ds->sys_cut,
		               &b->warnings);
	}
	if (ds->scan.len)
		sysreport_scan_text(ds->scan.data, ds->scan.len, path, b->facts, &b->warnings);
	sysreport_nccltests_end(ds->nt); /* the last nccl-tests run of the document */
	crash_doc_end(b, ds);
	buf_free(&ds->sys);
	buf_free(&ds->scan);
	free(ds);
}

/* Documents whose end waits in the pipeline hold their docstate and
 * buffers until it is applied: at most this many, and this many bytes,
 * before the reader waits (lines_drain). */
#define DEFER_DOCS 1024
#define DEFER_BYTES (8u << 20)

static void sink_end(void *ctx, int complete)
{
	struct bundle *b = ctx;
	struct docstate *ds = b->cur;
	if (!ds)
		return;
	struct input_doc *doc = &b->docs[ds->doc];
	doc->complete = complete;
	if (!ds->kind_known)
		classify(b, ds, 1);
	if (ds->partial.len || ds->partial_cut) {
		if (ds->partial_cut)
			ds->long_lines++;
		process_line(b, ds, ds->partial.data ? ds->partial.data : "", ds->partial.len);
		if (!b->pipe)
			ranks_lines_gone(b->ranks);
	}
	if (ds->lines_capped) {
		doc->complete = 0; /* lines not analysed */
		b->stats.cut++;
	}
	if (is_sysreport(doc->kind) && !sysreport_kind_scanned(doc->kind)) {
		for (size_t i = 0; i < ds->sys.len; i++)
			if (ds->sys.data[i] == '\n')
				doc->lines++;
		if (ds->sys.len && ds->sys.data[ds->sys.len - 1] != '\n')
			doc->lines++;
	}
	ds->kind = doc->kind;
	ds->bytes = doc->bytes;
	ds->complete = doc->complete;
	buf_free(&ds->head);
	buf_free(&ds->partial);
	b->cur = NULL;
	if (!b->pipe) {
		doc_finish(b, ds);
		return;
	}
	/* Not a wait for the pipeline at every document (a tar of 100000
	 * small members would hand over 100000 times): the end goes down the
	 * pipeline after the document's lines, within bounds. */
	size_t held = ds->sys.len + ds->scan.len;
	if (b->ndeferred >= DEFER_DOCS || b->deferred_bytes + held > DEFER_BYTES)
		lines_drain(b);
	queue_end(b, ds);
	b->ndeferred++;
	b->deferred_bytes += held;
}

struct doc_sink bundle_sink(struct bundle *b)
{
	struct doc_sink s = {b, sink_begin, sink_data, sink_end, sink_taken, sink_room};
	return s;
}

int bundle_add_path(struct bundle *b, const char *path, struct msgs *input_errors)
{
	struct doc_sink s = bundle_sink(b);
	struct msgs m = {0};
	int rc = input_walk_path(path, &b->lim, &s, &m, &b->stats);
	lines_drain(b); /* the last documents' ends are applied: warnings stay in order */
	for (size_t i = 0; i < m.list.n; i++) {
		msgs_add(&b->warnings, "%s", m.list.v[i]);
		if (input_errors)
			msgs_add(input_errors, "%s", m.list.v[i]);
	}
	b->warnings.dropped += m.dropped; /* counted in the report's "N more warnings" */
	msgs_free(&m);
	return rc;
}

int bundle_add_memory(struct bundle *b, const char *name, const void *data, size_t len)
{
	struct doc_sink s = bundle_sink(b);
	struct msgs m = {0};
	int rc = input_walk_memory(name, data, len, &b->lim, &s, &m, &b->stats);
	lines_drain(b); /* the last documents' ends are applied: warnings stay in order */
	for (size_t i = 0; i < m.list.n; i++)
		msgs_add(&b->warnings, "%s", m.list.v[i]);
	b->warnings.dropped += m.dropped; /* counted in the report's "N more warnings" */
	msgs_free(&m);
	return rc;
}

/* The caps of the rank timelines (ranks.h), in one warning: what was over
 * which cap, and how much was matched but not placed. */
static void ranks_cap_warning(struct bundle *b)
{
	const struct ranks *r = b->ranks;
	struct buf w;
	buf_init(&w);
	if (r->untracked)
		buf_printf(&w, "; more than %d processes: %llu lines of the others", RANKS_MAX_PROCS,
		           (unsigned long long)r->untracked);
	if (r->untracked_comm)
		buf_printf(&w, "; more than %d communicators: %llu Init lines of the others", RANKS_MAX_COMMS,
		           (unsigned long long)r->untracked_comm);
	if (r->untracked_member)
		buf_printf(&w, "; more than %d communicator members: %llu Init lines of the others", RANKS_MAX_MEMBERS,
		           (unsigned long long)r->untracked_member);
	if (r->untracked_nranks)
		buf_printf(&w, "; %llu Init lines of communicators that claim more than %d ranks",
		           (unsigned long long)r->untracked_nranks, RANKS_MAX_NRANKS);
	if (r->untracked_exit)
		buf_printf(&w, "; launcher exit records of more than %d processes: %llu records", RANKS_MAX_PROCS,
		           (unsigned long long)r->untracked_exit);
	if (r->untracked_uid)
		buf_printf(&w, "; more than %d ncclUniqueId waits (waiter, root): %llu lines", RANKS_MAX_UID,
		           (unsigned long long)r->untracked_uid);
	if (w.len)
		msgs_add(&b->warnings, "%s: %s were matched but not placed on rank timelines", b->name, w.data + 2);
	buf_free(&w);
}

void bundle_end_input(struct bundle *b)
{
	lines_stop(b);
	if (b->rmatcher != b->matcher)
		matcher_take_limits(b->matcher, b->rmatcher); /* one report, in database order */
	matcher_report_limits(b->matcher, b->name, &b->warnings);
	ranks_finish(b->ranks); /* ranks: merge timelines before ranks_lookup */
	flight_finish(b->flight, b->ranks); /* the dumps across ranks, and against the timelines */
	ranks_cap_warning(b);
	if (b->env_dropped)
		msgs_add(&b->warnings, "%s: more than %d environment variables: %llu \"set by environment\" lines of others were not kept",
		         b->name, SYS_ENV_MAX, (unsigned long long)b->env_dropped);
	env_index_free(&b->envix); /* facts.env is complete */
	/* give rank numbers to evidence known only by host:pid */
	for (size_t i = 0; i < b->ev.n; i++) {
		struct evidence *e = &b->ev.v[i];
		if (e->rank < 0 && e->host && e->pid >= 0)
			e->rank = ranks_lookup(b->ranks, e->host, e->pid);
	}
}
