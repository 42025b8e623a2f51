/* rules_derived.c - the derived categories (derive.h, docs/derived.md): for
 * every failure line that no signature explained, and for NCCL's return
 * chains when no such line gave one, the first row of patterns/derived.json
 * that matches gives a category.  Each finding is evidence with the id
 * "derived.<category in lower case>" and captures that say what it was
 * derived from; patterns/derived.json has one diagnosis ("derived": true)
 * per category over them. */
#include "rules/rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/crash.h"
#include "match/derive.h"
#include "match/patids.h"
#include "parse/ranks.h"
#include "base/hash.h"
#include "base/util.h"

static const struct rule_def DEFS[] = {
	{"derived.p2p_broken", "category derived from NCCL's or PyTorch's structure: P2P_BROKEN"},
	{"derived.ib_rdma", "category derived from NCCL's or PyTorch's structure: IB_RDMA"},
	{"derived.socket_network", "category derived from NCCL's or PyTorch's structure: SOCKET_NETWORK"},
	{"derived.shm_exhausted", "category derived from NCCL's or PyTorch's structure: SHM_EXHAUSTED"},
	{"derived.gpu_oom", "category derived from NCCL's or PyTorch's structure: GPU_OOM"},
	{"derived.version_mismatch", "category derived from NCCL's or PyTorch's structure: VERSION_MISMATCH"},
	{"derived.collective_timeout", "category derived from NCCL's or PyTorch's structure: COLLECTIVE_TIMEOUT"},
	{"derived.rendezvous", "category derived from NCCL's or PyTorch's structure: RENDEZVOUS"},
	{"derived.device_assignment", "category derived from NCCL's or PyTorch's structure: DEVICE_ASSIGNMENT"},
	{"derived.fabric_manager", "category derived from NCCL's or PyTorch's structure: FABRIC_MANAGER"},
	{"derived.memlock_limits", "category derived from NCCL's or PyTorch's structure: MEMLOCK_LIMITS"},
	{"derived.nccl_bug_upgrade", "category derived from NCCL's or PyTorch's structure: NCCL_BUG_UPGRADE"},
	{"derived.env_misconfig", "category derived from NCCL's or PyTorch's structure: ENV_MISCONFIG"},
	{"derived.rank_failure", "category derived from NCCL's or PyTorch's structure: RANK_FAILURE"},
	{"derived.cuda_error_other", "category derived from NCCL's or PyTorch's structure: CUDA_ERROR_OTHER"},
	{"derived.other", "category derived from NCCL's or PyTorch's structure: OTHER"},
};

/* "derived.ib_rdma" for "IB_RDMA" (in buf). */
static const char *evid(const char *cat, char *buf, size_t n)
{
	size_t k = (size_t)snprintf(buf, n, "%s", FAMILY_DERIVED);
	for (size_t i = 0; cat[i] && k + 1 < n; i++)
		buf[k++] = (char)(cat[i] >= 'A' && cat[i] <= 'Z' ? cat[i] - 'A' + 'a' : cat[i]);
	buf[k] = 0;
	return buf;
}

/* refines: the id of the generic diagnosis this finding says more than, or NULL */
static void emit(struct rule_ctx *rc, const struct derive_row *row, const char *path, uint64_t line,
                 const char *raw, size_t rawlength, const char *from, int rank, const char *host, long pid,
                 const char *refines)
{
	char id[48];
	char *matched = refines ? xasprintf("A signature matched this failure only as a generic result (%s), which names "
	                                    "no component", refines) : NULL;
	struct capture caps[6] = {
		{(char *)"from", (char *)from},
		{(char *)"why", row->why},
		{(char *)"row", row->id},
		{(char *)"category", row->category},
		{(char *)"refines", (char *)refines},
		{(char *)"matched", matched},
	};
	struct evidence *e = rule_emit(rc, evid(row->category, id, sizeof id), path, line, raw, caps, refines ? 6 : 4);
	free(matched);
	if (!e)
		return;
	/* the evidence is the failure line itself, verbatim at path:line (the
	 * derivation is in the captures and the diagnosis), not a sentence */
	e->derived = 0;
	e->length = rawlength;
	e->cut = rawlength > 500; /* bundle.c keeps 500 bytes of a failure line */
	if (rank < 0 && host && pid >= 0 && rc->ranks)
		rank = ranks_lookup(rc->ranks, host, pid);
	e->rank = rank;
	e->pid = pid;
	if (host && !e->host)
		e->host = evlist_keep(rc->ev, host);
}

/* OTHER and CUDA_ERROR_OTHER name no component: a result code such as
 * ncclSystemError or a CUDA error string says that something failed, not
 * where (docs/derived.md, "A generic result never hides a specific clue"). */
static int generic_category(const char *cat)
{
	return strcmp(cat, "OTHER") == 0 || strcmp(cat, "CUDA_ERROR_OTHER") == 0;
}

/* The generic diagnosis (patterns: "generic": true) that evidence id feeds, or NULL. */
static const struct diagdef *generic_diag(const struct sigdb *db, const char *id)
{
	for (size_t d = 0; d < db->ndiags; d++) {
		const struct diagdef *g = &db->diags[d];
		if (g->generic && g->severity == SEV_ERROR && strvec_contains(&g->when_any, id))
			return g;
	}
	return NULL;
}

/* generic_diag per evidence id, by the id's place in the evidence counts
 * (id_slot): looked up once per id, not once per item (a bundle has up to
 * 200 items an id, and each lookup walks every diagnosis).  Owned by run(). */
struct generic_memo {
	const struct diagdef **g;
	unsigned char *known;
	size_t n;
};

static const struct diagdef *generic_of(struct generic_memo *m, const struct rule_ctx *rc, const struct evidence *e)
{
	size_t s = e->id_slot;
	if (s >= m->n) { /* rule_emit adds ids: grow to the counts as they are now */
		size_t n = rc->ev->ncounts > s ? rc->ev->ncounts : s + 1;
		m->g = xrealloc(m->g, n * sizeof *m->g);
		m->known = xrealloc(m->known, n);
		memset(m->known + m->n, 0, n - m->n);
		m->n = n;
	}
	if (!m->known[s]) {
		m->g[s] = generic_diag(rc->db, e->id);
		m->known[s] = 1;
	}
	return m->g[s];
}

/* A generic diagnosis that some evidence so far feeds (the first), or NULL. */
static const struct diagdef *generic_present(const struct rule_ctx *rc, struct generic_memo *m)
{
	for (size_t i = 0; i < rc->ev->n; i++) {
		const struct diagdef *g = generic_of(m, rc, &rc->ev->v[i]);
		if (g)
			return g;
	}
	return NULL;
}

/* derive_match per input, for the inputs without a crash block: a bundle
 * repeats its failure lines (a job log pasted twice, every rank printing
 * the same WARN), and derive_match runs up to every row's regex on each.
 * derive_match reads of such an input src (a C string, or NULL),
 * msg[0..msgn), code and exception only, and the rows do not change while
 * rules run: equal keys, the same row.  The keys are copies (owned here);
 * freed by derive_memo_free. */
struct derive_memo_ent {
	char *src;            /* NULL: none */
	char *msg;
	size_t msgn;
	int code, exception;
	uint64_t h;
	const struct derive_row *row;
};
struct derive_memo {
	struct derive_memo_ent *v;
	size_t n, cap;
	size_t *slot;         /* position + 1, 0 = empty; nslot a power of two */
	size_t nslot;
};

static uint64_t memo_hash(const struct derive_input *in)
{
	uint64_t h = hash_words(HASH_SEED ^ (uint64_t)(in->code + 2) ^ ((uint64_t)in->exception << 40), in->msg, in->msgn);
	return in->src ? hash_str(h ^ 0x9e3779b97f4a7c15ULL, in->src) : h;
}

static int memo_same(const struct derive_memo_ent *e, const struct derive_input *in, uint64_t h)
{
	return e->h == h && e->code == in->code && e->exception == in->exception && e->msgn == in->msgn &&
	       !e->src == !in->src && (!e->src || strcmp(e->src, in->src) == 0) && memcmp(e->msg, in->msg, in->msgn) == 0;
}

static void memo_put(struct derive_memo *m, size_t i)
{
	size_t k = (size_t)m->v[i].h & (m->nslot - 1);
	while (m->slot[k])
		k = (k + 1) & (m->nslot - 1);
	m->slot[k] = i + 1;
}

static const struct derive_row *derive_memo_match(struct derive_memo *m, const struct derive_rows *rows,
                                                  const struct derive_input *in)
{
	uint64_t h = memo_hash(in);
	if (m->nslot)
		for (size_t k = (size_t)h & (m->nslot - 1); m->slot[k]; k = (k + 1) & (m->nslot - 1))
			if (memo_same(&m->v[m->slot[k] - 1], in, h))
				return m->v[m->slot[k] - 1].row;
	const struct derive_row *row = derive_match(rows, in);
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 16;
		m->v = xrealloc(m->v, m->cap * sizeof *m->v);
	}
	struct derive_memo_ent *e = &m->v[m->n++];
	e->src = in->src ? xstrdup(in->src) : NULL;
	e->msg = xmalloc(in->msgn + 1);
	memcpy(e->msg, in->msg, in->msgn);
	e->msg[in->msgn] = 0;
	e->msgn = in->msgn;
	e->code = in->code;
	e->exception = in->exception;
	e->h = h;
	e->row = row;
	if (2 * m->n > m->nslot) { /* at most half full */
		free(m->slot);
		m->nslot = m->nslot ? 2 * m->nslot : 64;
		m->slot = xcalloc(m->nslot, sizeof *m->slot);
		for (size_t i = 0; i < m->n; i++)
			memo_put(m, i);
	} else {
		memo_put(m, m->n - 1);
	}
	return row;
}

static void derive_memo_free(struct derive_memo *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].src);
		free(m->v[i].msg);
	}
	free(m->v);
	free(m->slot);
}

/* A signature matched an NCCL WARN whose message is a generic result
 * ("Cuda failure 1 'invalid argument'"): the WARN's source file names the
 * component (transport/nvls.cc: NVLink SHARP, the Fabric Manager's).  The
 * file rows of derived.json, read on the file alone, give its category;
 * the finding names the generic diagnosis it refines (cascade.c ranks it
 * first).  Returns how many it emitted. */
static size_t refine_by_source(struct rule_ctx *rc, struct generic_memo *m, struct derive_memo *dm)
{
	size_t found = 0, n = rc->ev->n; /* what rule_emit adds is not looked at */
	for (size_t i = 0; i < n; i++) {
		const struct evidence *e = &rc->ev->v[i];
		if (!e->src || !*e->src || e->derived)
			continue;
		const struct diagdef *g = generic_of(m, rc, e);
		if (!g)
			continue;
		struct derive_input in;
		memset(&in, 0, sizeof in);
		in.code = -1;
		in.src = e->src;
		in.msg = "";
		const struct derive_row *row = derive_memo_match(dm, &rc->db->derived, &in);
		if (!row || row->from != DERIVE_NCCL_FILE || generic_category(row->category) ||
		    strcmp(row->category, g->category) == 0)
			continue;
		/* copies: rule_emit may move the evidence array */
		char *path = xstrdup(e->path), *text = xstrdup(e->text), *host = e->host ? xstrdup(e->host) : NULL;
		size_t length = e->length;
		uint64_t line = e->line;
		int rank = e->rank;
		long pid = e->pid;
		char *from = xasprintf("the source file of the NCCL WARN, %s", e->src);
		emit(rc, row, path, line, text, length, from, rank, host, pid, g->id);
		free(from);
		free(path);
		free(text);
		free(host);
		found++;
		e = NULL;
	}
	return found;
}

/* Native crashes and stack dumps (parse/crash.h): the signal and the
 * innermost frames that name NCCL, c10d or CUDA.  The evidence is the
 * banner line; the frame it was derived from is named in "from". */
static void run_crashes(struct rule_ctx *rc)
{
	for (size_t i = 0; i < rc->ncrashes; i++) {
		const struct crash_clue *k = &rc->crashes[i];
		struct derive_input in;
		memset(&in, 0, sizeof in);
		in.code = -1;
		in.crash = 1;
		in.signal = crash_signal_name(k->sig);
		in.frames = k->frames;
		const struct derive_row *row = derive_match(&rc->db->derived, &in);
		if (!row)
			continue;
		char sigdesc[48];
		if (in.signal)
			snprintf(sigdesc, sizeof sigdesc, "the signal (%s)", in.signal);
		else
			snprintf(sigdesc, sizeof sigdesc, "a stack dump");
		char *from = k->frame
		             ? xasprintf("%s and the innermost NCCL, c10d or CUDA frame (%s:%llu: %.80s)", sigdesc,
		                         k->path, (unsigned long long)k->frame_line, k->frame)
		             : xasprintf("%s of a crash report with no NCCL, c10d or CUDA frame", sigdesc);
		emit(rc, row, k->path, k->line, k->raw, k->rawlength, from, k->rank, k->host, k->pid, NULL);
		free(from);
	}
}

/* A return chain whose deepest frame is NCCL's bootstrap or socket code
 * (bootstrap.cc, misc/socket.cc returning ncclSystemError or
 * ncclRemoteError) in a process that never printed Init COMPLETE: NCCL does
 * not recover from a failed bootstrap, so the chain is the failure itself,
 * not a probe that a healthy init gets past (those never pass through the
 * bootstrap). */
static int bootstrap_chain_in_init(const struct rule_ctx *rc)
{
	const struct ranks *r = rc->ranks;
	if (!r)
		return 0;
	for (size_t i = 0; i < rc->nclues; i++) {
		const struct chain_clue *c = &rc->clues[i];
		int boot = str_starts(c->src, "bootstrap.") ||
		           ((str_starts(c->src, "misc/socket.") || str_starts(c->src, "os/linux.")) &&
		            (c->code == 2 || c->code == 6));
		const struct rank_proc *p = boot ? ranks_proc_at(r, c->host, c->pid) : NULL;
		if (p && !p->saw_init_complete && !p->saw_coll)
			return 1;
	}
	return 0;
}

static void run(struct rule_ctx *rc)
{
	const struct sigdb *db = rc->db;
	if (!db || !db->derived.n)
		return;
	run_crashes(rc); /* a crash's frames say more than its banner: always */
	struct derive_memo dm = {0};
	size_t found = 0; /* findings of a category that names a component */
	const struct derive_row *generic_row = NULL; /* the first generic one (OTHER, CUDA_ERROR_OTHER) */
	for (size_t i = 0; i < rc->nfailures; i++) {
		const struct failure_line *f = &rc->failures[i];
		struct derive_input in;
		memset(&in, 0, sizeof in);
		in.code = -1;
		in.src = f->src;
		in.msg = f->text;
		in.msgn = strlen(f->text);
		in.exception = strcmp(f->what, "exception") == 0;
		if (f->src == NULL && strcmp(f->what, "nccl_warn") == 0)
			in.src = ""; /* a WARN whose prefix named no file: only its message can say */
		const struct derive_row *row = derive_memo_match(&dm, &db->derived, &in);
		if (!row)
			continue;
		char *from;
		if (row->from == DERIVE_NCCL_FILE && f->src)
			from = xasprintf("the source file of the NCCL WARN, %s", f->src);
		else if (row->from == DERIVE_NCCL_FILE)
			/* a plugin's WARN names a function, not a file (logline.c) */
			from = xstrdup("the message of an NCCL WARN that names no source file");
		else if (row->from == DERIVE_EXCEPTION)
			from = xasprintf("the exception type of %.*s", (int)(strchr(f->text, ':') ? strchr(f->text, ':') - f->text : 0),
			                 f->text);
		else if (row->from == DERIVE_MESSAGE && strcmp(f->what, "component_error") == 0)
			from = xasprintf("the structure of a component's error line (%s)", row->id);
		else if (row->from == DERIVE_MESSAGE)
			from = xasprintf("PyTorch's %s record in the message", row->category);
		else
			from = xstrdup("the ncclResult in the message");
		emit(rc, row, f->path, f->line, f->raw ? f->raw : f->text, f->raw ? f->rawlength : f->length, from, f->rank,
		     f->host, f->pid, NULL);
		free(from);
		if (!generic_category(row->category))
			found++;
		else if (!generic_row)
			generic_row = row;
	}
	struct generic_memo memo = {0};
	found += refine_by_source(rc, &memo, &dm);
	if (found) {
		free(memo.g);
		free(memo.known);
		derive_memo_free(&dm);
		return;
	}
	/* Only generic results so far (or none): the deepest frame of NCCL's
	 * return chain may name the component.  Chains alone are no failure (a
	 * healthy init can print one for a probe it recovers from): only with
	 * failure evidence elsewhere, or a generic diagnosis to refine. */
	const struct diagdef *g = generic_present(rc, &memo);
	free(memo.g);
	free(memo.known);
	char gid[48];
	const char *refines = g ? g->id : generic_row ? evid(generic_row->category, gid, sizeof gid) : NULL;
	int failed = rc->failure_count > 0 || g;
	const struct ranks *r = rc->ranks;
	for (size_t i = 0; r && i < r->n && !failed; i++)
		failed = r->v[i].has_exit && r->v[i].exitcode != 0;
	failed |= bootstrap_chain_in_init(rc);
	if (r && (r->saw_child_failed || r->launcher_signalled || r->job_exit > 0))
		failed = 1;
	if (!failed) {
		derive_memo_free(&dm);
		return;
	}
	/* no failure line gave a category: NCCL's return chains (the first frame
	 * of each process is the deepest, printed right after the failure) */
	for (size_t i = 0; i < rc->nclues; i++) {
		const struct chain_clue *c = &rc->clues[i];
		struct derive_input in;
		memset(&in, 0, sizeof in);
		in.src = c->src;
		in.code = c->code;
		in.msg = c->raw;
		in.msgn = strlen(c->raw);
		const struct derive_row *row = derive_memo_match(&dm, &db->derived, &in);
		if (!row)
			continue;
		int says_more = !generic_category(row->category);
		if (refines && !says_more)
			continue; /* a generic result in other words: nothing to add */
		char *from = row->from == DERIVE_NCCL_FILE
		             ? xasprintf("the deepest frame of NCCL's return chain, %s (returned %d)", c->src, c->code)
		             : xasprintf("the ncclResult %d returned in NCCL's return chain", c->code);
		emit(rc, row, c->path, c->line, c->raw, c->rawlength, from, c->rank, c->host, c->pid, refines);
		free(from);
	}
	derive_memo_free(&dm);
}

const struct rule_provider RULES_DERIVED = {
	"derived", DEFS, sizeof DEFS / sizeof DEFS[0], run,
};
