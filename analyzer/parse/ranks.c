/* ranks.c - see ranks.h.  Hand-written scanning (memmem, digits): this sees
 * every line of every log. */
#include "parse/ranks.h"
#include "parse/peel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/hash.h"
#include "parse/linekind.h"
#include "parse/linekw.h"
#include "base/tstamp.h"
#include "base/util.h"

#define TEXT_MAX 300

struct launcher_exit {
	int rank, local_rank;
	long pid;
	int has_exit, exitcode;
	int root_cause, sigterm_sent;
	char *host;
	struct rank_where where;
};

struct rank_doc {
	char *path;
	char *host;
	size_t host_len;
	long pid;
	int mixed;            /* NCCL lines of several processes */
	int launcher;         /* launcher output inside: not one process's document */
	int prefix_rank;      /* -1 none, -2 several */
	uint64_t nccl;
	struct rank_where first_err;  /* first unprefixed error line */
	struct rank_where last_plain; /* last unprefixed line */
	/* torchrun ChildFailedError block */
	int blk;              /* inside a block */
	int blk_root;         /* in the "Root Cause" section */
	int have_entry;
	struct launcher_exit cur;
	/* the launcher's banner and nothing after it (ranks.h, launcher_quiet) */
	int line_launcher;    /* the current line is the launcher's own */
	int last_is_coll;     /* its last non-blank line is an NCCL collective call */
	uint64_t coll_line;
	uint64_t after_launcher; /* non-blank lines, not the launcher's, after its first line */
};

/* ---- small helpers ---- */

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* lit in m (memchr on its rarest byte, then memcmp: see util.h) */
static const char *find(const struct span *m, const char *lit)
{
	return mem_find_rare(m->p, m->n, lit, strlen(lit));
}

static inline __attribute__((always_inline)) int starts(const struct span *m, const char *lit)
{
	size_t l = strlen(lit);
	/* the first byte before the call: most lines differ there (note_block
	 * asks every plain line for "Root Cause ...") */
	return m->n >= l && (l == 0 || (m->p[0] == lit[0] && memcmp(m->p, lit, l) == 0));
}

/* Signed integer at p (bounded by end); sets *ok. */
static long num_at(const char *p, const char *end, int *ok)
{
	int neg = 0;
	*ok = 0;
	if (p < end && *p == '-') {
		neg = 1;
		p++;
	}
	long v = 0;
	int nd = 0;
	while (p < end && is_digit(*p) && nd < 18) {
		v = v * 10 + (*p++ - '0');
		nd++;
	}
	if (!nd)
		return 0;
	*ok = 1;
	return neg ? -v : v;
}

/* Integer following the literal key in m, e.g. key "SeqNum=". */
static int num_after(const struct span *m, const char *key, long *out)
{
	const char *k = find(m, key);
	if (!k)
		return 0;
	int ok;
	long v = num_at(k + strlen(key), m->p + m->n, &ok);
	if (ok)
		*out = v;
	return ok;
}

/* Word (up to space, comma, paren) following key; caller frees. */
static char *word_after(const struct span *m, const char *key)
{
	const char *k = find(m, key);
	if (!k)
		return NULL;
	const char *s = k + strlen(key), *end = m->p + m->n, *e = s;
	while (e < end && *e != ' ' && *e != ',' && *e != ')' && *e != '(' && e - s < 64)
		e++;
	return e > s ? str_sanitize(s, (size_t)(e - s)) : NULL;
}

static void where_free(struct rank_where *w)
{
	free(w->path);
	free(w->text);
	memset(w, 0, sizeof *w);
	w->ts = -1;
}

static void where_set(struct rank_where *w, const char *path, uint64_t line, const char *t, size_t tn,
                      uint64_t order, double ts)
{
	/* runs for every line: keep the path when it is the same document */
	char *keep = w->path && strcmp(w->path, path) == 0 ? w->path : NULL;
	if (keep)
		w->path = NULL;
	where_free(w);
	w->path = keep ? keep : xstrdup(path);
	w->line = line;
	w->text = str_sanitize(t, tn > TEXT_MAX ? TEXT_MAX : tn);
	w->order = order;
	w->ts = ts;
}

/* The same for the lines that are set on every line (a process's last
 * line): keep the raw bytes in a reused buffer and sanitise once, in
 * where_done(), when the timeline is finished.  With r->borrow, only the
 * line's address is kept until ranks_lines_gone() (w joins r->lent): a
 * where set again and again within a batch is copied once. */
static inline void where_set_raw(struct ranks *r, struct rank_where *w, uint64_t line, const char *t, size_t tn,
                                 uint64_t order, double ts)
{
	if (!w->path || w->doc != r->doc_serial) {
		free(w->path);
		w->path = xstrdup(r->doc->path);
		w->doc = r->doc_serial;
	}
	w->rawn = tn > TEXT_MAX ? TEXT_MAX : tn;
	if (r->borrow) {
		if (!w->src) {
			if (r->nlent == sizeof r->lent / sizeof *r->lent)
				ranks_lines_gone(r);
			r->lent[r->nlent++] = w;
		}
		w->src = t ? t : "";
	} else {
		if (!w->raw) {
			free(w->text);
			w->text = xmalloc(TEXT_MAX + 1);
			w->raw = 1;
		}
		memcpy(w->text, t, w->rawn);
		w->text[w->rawn] = 0;
	}
	w->line = line;
	w->order = order;
	w->ts = ts;
}

void ranks_borrow_lines(struct ranks *r)
{
	r->borrow = 1;
}

void ranks_lines_gone(struct ranks *r)
{
	for (size_t i = 0; i < r->nlent; i++) {
		struct rank_where *w = r->lent[i];
		if (!w->raw) {
			free(w->text);
			w->text = xmalloc(TEXT_MAX + 1);
			w->raw = 1;
		}
		memcpy(w->text, w->src, w->rawn);
		w->text[w->rawn] = 0;
		w->src = NULL;
	}
	r->nlent = 0;
}

static void where_done(struct rank_where *w)
{
	if (!w->raw)
		return;
	char *s = str_sanitize(w->text, w->rawn);
	free(w->text);
	w->text = s;
	w->raw = 0;
}

/* The first error of a process: the first error line, except that a
 * "Traceback (most recent call last):" header gives way to the exception
 * line that ends the traceback (it says what went wrong). */
static void first_error_set(struct rank_where *w, const char *path, uint64_t line, const struct span *m,
                            uint64_t order, double ts)
{
	if (w->path && !(w->text && str_starts(w->text, "Traceback (most recent call last)")))
		return;
	if (w->path && starts(m, "Traceback (most recent call last)"))
		return;
	where_set(w, path, line, m->p, m->n, order, ts);
}

static void where_move(struct rank_where *dst, struct rank_where *src)
{
	where_free(dst);
	*dst = *src;
	memset(src, 0, sizeof *src);
	src->ts = -1;
}

/* ---- timestamps ---- */

double ranks_parse_ts(const char *s, size_t n)
{
	struct tstamp t;
	return tstamp_parse(s, n, &t) ? tstamp_order(&t) : -1;
}

/* ---- lifetime ---- */

struct ranks *ranks_new(void)
{
	struct ranks *r = xcalloc(1, sizeof(struct ranks));
	r->job_exit = -1;
	r->launcher_signal_where.ts = r->job_exit_where.ts = r->launcher_last.ts = r->coll_end_where.ts = r->coll_call.ts = -1;
	r->coll_call_rank = -1;
	r->progress_elapsed = -1;
	r->progress_where.ts = -1;
	return r;
}

static void proc_free(struct rank_proc *p)
{
	free(p->host);
	free(p->bus_id);
	free(p->comm_id);
	free(p->nccl_version);
	free(p->transport);
	free(p->wd_op);
	free(p->wd_pg_name);
	free(p->launcher_host);
	free(p->debug_file);
	where_free(&p->wd_where);
	where_free(&p->enq_where);
	where_free(&p->exit_where);
	where_free(&p->first_error);
	where_free(&p->last);
	where_free(&p->remote_where);
}

static void ex_free(struct launcher_exit *e)
{
	free(e->host);
	where_free(&e->where);
}

static void doc_free(struct rank_doc *d)
{
	if (!d)
		return;
	free(d->path);
	free(d->host);
	where_free(&d->first_err);
	where_free(&d->last_plain);
	ex_free(&d->cur);
	free(d);
}

void ranks_free(struct ranks *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		proc_free(&r->v[i]);
	free(r->v);
	hindex_free(&r->pix);
	hindex_free(&r->wix);
	for (size_t i = 0; i < r->ncomms; i++) {
		struct rank_comm *c = &r->comms[i];
		for (size_t k = 0; k < c->n; k++) {
			free(c->m[k].comm_ptr);
			where_free(&c->m[k].start_where);
		}
		free(c->m);
		free(c->id);
	}
	free(r->comms);
	free(r->mref);
	hindex_free(&r->tix);
	hindex_free(&r->rix);
	hindex_free(&r->cix);
	hindex_free(&r->mix);
	hindex_free(&r->uix);
	hindex_free(&r->eix);
	if (r->ex_pending)
		ex_free(&r->ex[r->nex]);
	for (size_t i = 0; i < r->nuid; i++)
		where_free(&r->uid[i].where);
	free(r->uid);
	for (size_t i = 0; i < r->nex; i++)
		ex_free(&r->ex[i]);
	free(r->ex);
	doc_free(r->doc);
	where_free(&r->launcher_signal_where);
	where_free(&r->job_exit_where);
	where_free(&r->launcher_last);
	where_free(&r->coll_end_where);
	where_free(&r->coll_call);
	where_free(&r->progress_where);
	free(r->coll_call_op);
	free(r);
}

static struct rank_proc *proc_add(struct ranks *r)
{
	if (r->n == r->cap) {
		ranks_lines_gone(r); /* r->lent points into r->v */
		r->cap = r->cap ? r->cap * 2 : 8;
		r->v = xrealloc(r->v, r->cap * sizeof *r->v);
	}
	struct rank_proc *p = &r->v[r->n++];
	memset(p, 0, sizeof *p);
	p->pid = -1;
	p->rank = p->nranks = p->cuda_dev = p->prefix_rank = -1;
	p->wd_seq = p->wd_numel = -1;
	p->last_enqueued = p->last_completed = -2;
	p->local_rank = -1;
	p->remote_peer = -1;
	p->wd_pg = -1;
	p->remote_where.ts = -1;
	p->wd_where.ts = p->enq_where.ts = p->exit_where.ts = p->first_error.ts = p->last.ts = -1;
	return p;
}

static uint64_t proc_hash(const char *host, size_t hn, long pid)
{
	uint64_t h = hash_bytes(HASH_SEED ^ (uint64_t)pid, host, hn);
	return h ^ (h >> 29);
}

static int proc_hash_at(const void *ctx, size_t i, uint64_t *h)
{
	const struct ranks *r = ctx;
	if (!r->v[i].host)
		return 0;
	*h = proc_hash(r->v[i].host, strlen(r->v[i].host), r->v[i].pid);
	return 1;
}

static uint64_t wpid_hash(long pid)
{
	uint64_t h = hash_bytes(HASH_SEED ^ 0x3d, &pid, sizeof pid);
	return h ^ (h >> 29);
}

static int wpid_hash_at(const void *ctx, size_t i, uint64_t *h)
{
	const struct ranks *r = ctx;
	if (!r->v[i].host)
		return 0;
	*h = wpid_hash(r->v[i].pid);
	return 1;
}

/* host:pid's entry, created when new; hashed, since every NCCL line asks. */
/* proc_nccl past the last two processes: the index, else a new entry */
static __attribute__((noinline)) struct rank_proc *proc_nccl_find(struct ranks *r, const char *host, size_t hn,
                                                                  long pid)
{
	uint64_t h = proc_hash(host, hn, pid);
	if (r->pix.nslot) {
		for (size_t s = hindex_first(&r->pix, h); r->pix.slot[s]; s = hindex_next(&r->pix, s)) {
			struct rank_proc *q = &r->v[r->pix.slot[s] - 1];
			if (q->host && q->pid == pid && q->host_len == hn && memcmp(q->host, host, hn) == 0) {
				r->last_proc2 = r->last_proc;
				r->last_proc = r->pix.slot[s];
				return q;
			}
		}
	}
	if (r->n >= RANKS_MAX_PROCS)
		return NULL;
	struct rank_proc *p = proc_add(r);
	p->host = xstrndup(host, hn);
	p->host_len = hn;
	p->pid = pid;
	if (hindex_crowded(&r->pix, r->n))
		hindex_grow(&r->pix, r->n, proc_hash_at, r);
	else
		hindex_put(&r->pix, h, r->n - 1);
	if (hindex_crowded(&r->wix, r->n))
		hindex_grow(&r->wix, r->n, wpid_hash_at, r);
	else
		hindex_put(&r->wix, wpid_hash(pid), r->n - 1);
	r->last_proc2 = r->last_proc;
	r->last_proc = r->n;
	return p;
}

/* The process of host:pid (a new one when the caps allow), or NULL.  Inline:
 * every NCCL line asks, and nearly always the last process or the one
 * before is the one (the call, saving registers, cost as much as the test). */
static inline struct rank_proc *proc_nccl(struct ranks *r, const char *host, size_t hn, long pid)
{
	/* the last two processes first (a host:pid names one process: any
	 * entry that has it is the one the index finds) */
	if (r->last_proc) {
		struct rank_proc *q = &r->v[r->last_proc - 1];
		if (q->host && q->pid == pid && q->host_len == hn && memcmp(q->host, host, hn) == 0)
			return q;
	}
	if (r->last_proc2) {
		struct rank_proc *q = &r->v[r->last_proc2 - 1];
		if (q->host && q->pid == pid && q->host_len == hn && memcmp(q->host, host, hn) == 0) {
			size_t t = r->last_proc;
			r->last_proc = r->last_proc2;
			r->last_proc2 = t;
			return q;
		}
	}
	return proc_nccl_find(r, host, hn, pid);
}

/* The one NCCL process with this pid (any host), or NULL (none, or
 * several); hashed by pid alone, since every line a wrapper tagged asks. */
static struct rank_proc *proc_by_pid(struct ranks *r, long pid)
{
	struct rank_proc *hit = NULL;
	if (!r->wix.nslot)
		return NULL;
	uint64_t h = wpid_hash(pid);
	for (size_t s = hindex_first(&r->wix, h); r->wix.slot[s]; s = hindex_next(&r->wix, s)) {
		struct rank_proc *q = &r->v[r->wix.slot[s] - 1];
		r->work++;
		if (q->host && q->pid == pid) {
			if (hit)
				return NULL;
			hit = q;
		}
	}
	return hit;
}

static uint64_t torch_hash(int rank)
{
	uint64_t h = hash_bytes(HASH_SEED ^ 0x7f, &rank, sizeof rank);
	return h ^ (h >> 29);
}

static int torch_hash_at(const void *ctx, size_t i, uint64_t *h)
{
	const struct ranks *r = ctx;
	if (r->v[i].host || r->v[i].rank < 0)
		return 0;
	*h = torch_hash(r->v[i].rank);
	return 1;
}

/* A rank known only from PyTorch / launcher output; hashed, since every
 * [rankN]: line asks. */
static struct rank_proc *proc_torch(struct ranks *r, int rank)
{
	uint64_t h = torch_hash(rank);
	if (r->tix.nslot)
		for (size_t s = hindex_first(&r->tix, h); r->tix.slot[s]; s = hindex_next(&r->tix, s)) {
			struct rank_proc *q = &r->v[r->tix.slot[s] - 1];
			r->work++;
			if (!q->host && q->rank == rank)
				return q;
		}
	if (r->n >= RANKS_MAX_PROCS)
		return NULL;
	struct rank_proc *p = proc_add(r);
	p->rank = rank;
	if (hindex_crowded(&r->tix, r->n))
		hindex_grow(&r->tix, r->n, torch_hash_at, r);
	else
		hindex_put(&r->tix, h, r->n - 1);
	return p;
}

/* ---- communicators ----
 * Hashed like the processes: the commId of every Init line in cix, the
 * members in mix.  mix indexes references (mref) of three kinds, so that a
 * lookup answers what the first match of a scan in creation order would:
 *   M_EXACT (comm, proc, ptr)  every member (a NULL ptr is a key of its own);
 *   M_FIRST (comm, proc)       the first member of a process in a communicator;
 *   M_PTR   (proc, ptr)        the member with that pointer in the first
 *                              communicator that has one (Abort lines).
 * The index is dropped in ranks_finish (processes are renumbered there). */
enum { M_EXACT, M_FIRST, M_PTR };

struct rank_mref {
	unsigned kind;
	size_t comm, k;
};

static int comm_hash_at(const void *ctx, size_t i, uint64_t *h)
{
	const struct ranks *r = ctx;
	*h = hash_str(HASH_SEED, r->comms[i].id);
	return 1;
}

static uint64_t mref_hash(unsigned kind, size_t comm, size_t proc, const char *ptr)
{
	uint64_t h = hash_bytes(HASH_SEED ^ kind, &proc, sizeof proc);
	if (kind != M_PTR)
		h = hash_bytes(h, &comm, sizeof comm);
	if (kind != M_FIRST)
		h = ptr ? hash_str(hash_bytes(h, "p", 1), ptr) : hash_bytes(h, "n", 1);
	return h ^ (h >> 29);
}

static int mref_hash_at(const void *ctx, size_t i, uint64_t *h)
{
	const struct ranks *r = ctx;
	const struct rank_mref *m = &r->mref[i];
	const struct rank_member *mb = &r->comms[m->comm].m[m->k];
	*h = mref_hash(m->kind, m->comm, mb->proc, mb->comm_ptr);
	return 1;
}

static struct rank_mref *mref_find(struct ranks *r, unsigned kind, size_t comm, size_t proc, const char *ptr)
{
	if (!r->mix.nslot)
		return NULL;
	uint64_t h = mref_hash(kind, comm, proc, ptr);
	for (size_t s = hindex_first(&r->mix, h); r->mix.slot[s]; s = hindex_next(&r->mix, s)) {
		struct rank_mref *m = &r->mref[r->mix.slot[s] - 1];
		const struct rank_member *mb = &r->comms[m->comm].m[m->k];
		r->work++;
		if (m->kind != kind || mb->proc != proc || (kind != M_PTR && m->comm != comm))
			continue;
		if (kind != M_FIRST && (ptr ? !mb->comm_ptr || strcmp(mb->comm_ptr, ptr) != 0 : mb->comm_ptr != NULL))
			continue;
		return m;
	}
	return NULL;
}

static void mref_add(struct ranks *r, unsigned kind, size_t comm, size_t k)
{
	if (r->nmref == r->capmref) {
		r->capmref = r->capmref ? r->capmref * 2 : 16;
		r->mref = xrealloc(r->mref, r->capmref * sizeof *r->mref);
	}
	r->mref[r->nmref++] = (struct rank_mref){kind, comm, k};
	uint64_t h;
	if (hindex_crowded(&r->mix, r->nmref))
		hindex_grow(&r->mix, r->nmref, mref_hash_at, r);
	else if (mref_hash_at(r, r->nmref - 1, &h))
		hindex_put(&r->mix, h, r->nmref - 1);
}

/* The communicator of commId id, created when new; NULL past RANKS_MAX_COMMS. */
static struct rank_comm *comm_get(struct ranks *r, const char *id, int nranks)
{
	uint64_t h = hash_str(HASH_SEED, id);
	if (r->cix.nslot)
		for (size_t s = hindex_first(&r->cix, h); r->cix.slot[s]; s = hindex_next(&r->cix, s)) {
			struct rank_comm *c = &r->comms[r->cix.slot[s] - 1];
			r->work++;
			if (strcmp(c->id, id) == 0)
				return c;
		}
	if (r->ncomms >= RANKS_MAX_COMMS)
		return NULL;
	if (r->ncomms == r->capcomms) {
		r->capcomms = r->capcomms ? r->capcomms * 2 : 4;
		r->comms = xrealloc(r->comms, r->capcomms * sizeof *r->comms);
	}
	struct rank_comm *c = &r->comms[r->ncomms++];
	memset(c, 0, sizeof *c);
	c->id = xstrdup(id);
	c->nranks = nranks;
	if (hindex_crowded(&r->cix, r->ncomms))
		hindex_grow(&r->cix, r->ncomms, comm_hash_at, r);
	else
		hindex_put(&r->cix, h, r->ncomms - 1);
	return c;
}

/* The first member of c that is proc with pointer ptr (a member or a query
 * without a pointer matches any), created when none; NULL past
 * RANKS_MAX_MEMBERS. */
static struct rank_member *member_get(struct ranks *r, struct rank_comm *c, size_t proc, const char *ptr)
{
	size_t ci = (size_t)(c - r->comms);
	if (!ptr) {
		struct rank_mref *f = mref_find(r, M_FIRST, ci, proc, NULL);
		if (f)
			return &c->m[f->k];
	} else {
		struct rank_mref *a = mref_find(r, M_EXACT, ci, proc, ptr), *b = mref_find(r, M_EXACT, ci, proc, NULL);
		if (a || b)
			return &c->m[a && (!b || a->k < b->k) ? a->k : b->k];
	}
	if (r->nmembers >= RANKS_MAX_MEMBERS)
		return NULL;
	int first = !ptr || !mref_find(r, M_FIRST, ci, proc, NULL);
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 8;
		c->m = xrealloc(c->m, c->cap * sizeof *c->m);
	}
	size_t k = c->n++;
	struct rank_member *mb = &c->m[k];
	memset(mb, 0, sizeof *mb);
	mb->proc = proc;
	mb->rank = -1;
	mb->comm_ptr = ptr ? xstrdup(ptr) : NULL;
	mb->start_where.ts = -1;
	r->nmembers++;
	mref_add(r, M_EXACT, ci, k);
	if (first)
		mref_add(r, M_FIRST, ci, k);
	if (ptr) {
		struct rank_mref *pm = mref_find(r, M_PTR, 0, proc, ptr);
		if (!pm)
			mref_add(r, M_PTR, ci, k);
		else if (ci < pm->comm)
			*pm = (struct rank_mref){M_PTR, ci, k}; /* same key: same hash */
	}
	return &c->m[k];
}

static struct rank_member *member_by_ptr(struct ranks *r, size_t proc, const char *ptr)
{
	struct rank_mref *m = mref_find(r, M_PTR, 0, proc, ptr);
	return m ? &r->comms[m->comm].m[m->k] : NULL;
}

/* "... comm 0x.. rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 60 commId 0x.. - Init START" */
static void note_init(struct ranks *r, struct rank_proc *p, const struct span *m, int complete,
                      const char *path, uint64_t lineno, uint64_t order, double ts)
{
	long rank = -1, nranks = -1, dev = -1;
	num_after(m, " rank ", &rank);
	if (!num_after(m, " nranks ", &nranks))
		num_after(m, " nRanks ", &nranks);
	num_after(m, " cudaDev ", &dev);
	char *bus = word_after(m, " busId ");
	char *cid = word_after(m, " commId ");
	char *ptr = word_after(m, "comm ");
	if (rank >= 0 && rank < 1000000)
		p->rank = (int)rank;
	if (dev >= 0 && dev < 100000)
		p->cuda_dev = (int)dev;
	if (bus) {
		free(p->bus_id);
		p->bus_id = bus;
	}
	char key[48];
	const char *id = cid;
	if (!id) {
		/* split communicators and NCCL <= 2.15 print no commId */
		snprintf(key, sizeof key, "nranks=%ld", nranks);
		id = key;
	}
	/* a communicator larger than RANKS_MAX_NRANKS, or past the caps, is
	 * not followed (counted: bundle.c's warning) */
	struct rank_comm *c = nranks > 0 && nranks <= RANKS_MAX_NRANKS ? comm_get(r, id, (int)nranks) : NULL;
	struct rank_member *mb = c ? member_get(r, c, (size_t)(p - r->v), ptr) : NULL;
	if (mb) {
		mb->rank = (int)rank;
		if (complete) {
			mb->complete = 1;
		} else if (!mb->start) {
			mb->start = 1;
			where_set(&mb->start_where, path, lineno, m->p, m->n, order, ts);
		}
	} else if (nranks > RANKS_MAX_NRANKS) {
		r->untracked_nranks++;
	} else if (nranks > 0) {
		*(c ? &r->untracked_member : &r->untracked_comm) += 1;
	}
	free(cid);
	free(ptr);
}

/* ---- error lines ---- */

/* Lines that are themselves consequences of another rank's failure. */
static int is_echo_text(const struct span *m)
{
	return find(m, "dump signal") || find(m, "dump debug info") || find(m, "flight recorder") ||
	       find(m, "Flight Recorder") || find(m, "Stack trace of the failed collective") ||
	       find(m, "destroy_process_group() was not called");
}

static int is_error_text(const struct logline *ll, uint64_t kw)
{
	const struct span *m = &ll->msg;
	const char *p = m->p;
	size_t n = m->n;
	if (n >= 3 && p[0] == '[' && (p[1] == 'E' || p[1] == 'F') && is_digit(p[2]))
		return !is_echo_text(m);
	if (kw & (KW_BIT(KW_TRACEBACK) | KW_BIT(KW_TERMINATE) | KW_BIT(KW_SEGFAULT) | KW_BIT(KW_FATAL_PYTHON) |
	          KW_BIT(KW_WATCHDOG_CAUGHT)))
		return 1;
	/* a Python exception line at column 0: "module.NameError: text" (linekind.h) */
	struct linekind tmp;
	const struct linekind *lk = linekind_get(ll, &tmp);
	return lk->exception && lk->indent == 0;
}

/* Errors that say a peer is gone (KW_REMOTE): echoes of a failure elsewhere. */
static void note_remote(struct rank_proc *p, const struct span *m, uint64_t kw, const char *path, uint64_t lineno,
                        uint64_t order, double ts)
{
	if (!(kw & KW_BIT(KW_REMOTE)))
		return;
	long peer;
	if (p->remote_peer < 0 && num_after(m, "closed by localRank ", &peer) && peer >= 0 && peer < 100000)
		p->remote_peer = (int)peer;
	if (!p->remote_err)
		where_set(&p->remote_where, path, lineno, m->p, m->n, order, ts);
	p->remote_err = 1;
}

/* ---- documents ---- */

static void blk_flush(struct ranks *r, struct rank_doc *d);

static void doc_close(struct ranks *r)
{
	ranks_lines_gone(r); /* before its wheres move or go (the lines are still there) */
	if (r->doc && r->doc->last_is_coll && !r->doc_ends_in_coll) {
		r->doc_ends_in_coll = 1;
		where_set(&r->coll_end_where, r->doc->path, r->doc->coll_line, "", 0, r->order, -1);
	}
	if (r->doc && r->doc->launcher) {
		if (r->doc->after_launcher)
			r->launcher_followed = 1;
		else
			r->launcher_quiet = 1;
	}
	struct rank_doc *d = r->doc;
	if (!d)
		return;
	blk_flush(r, d);
	struct rank_proc *p = d->host && !d->mixed && !d->launcher && d->nccl > 0
	                      ? proc_nccl(r, d->host, d->host_len, d->pid) : NULL;
	if (p) {
		if (!p->debug_file)
			p->debug_file = xstrdup(d->path);
		if (d->prefix_rank >= 0 && p->prefix_rank < 0)
			p->prefix_rank = d->prefix_rank;
		if (d->first_err.path && (!p->first_error.path || d->first_err.order < p->first_error.order))
			where_move(&p->first_error, &d->first_err);
		if (d->last_plain.path && d->last_plain.order > p->last.order)
			where_move(&p->last, &d->last_plain);
	}
	doc_free(d);
	r->doc = NULL;
}

static void doc_open(struct ranks *r, const char *path)
{
	struct rank_doc *d = xcalloc(1, sizeof *d);
	d->path = xstrdup(path);
	d->pid = -1;
	d->prefix_rank = -1;
	d->first_err.ts = d->last_plain.ts = -1;
	d->cur.where.ts = -1;
	r->doc = d;
	r->doc_serial++;
}

static void doc_prefix_rank(struct rank_doc *d, int rank)
{
	if (d->prefix_rank == -1)
		d->prefix_rank = rank;
	else if (d->prefix_rank != rank)
		d->prefix_rank = -2;
}

/* ---- launcher ---- */

static uint64_t ex_hash(const struct launcher_exit *e)
{
	uint64_t h = hash_bytes(HASH_SEED ^ 0xe1, &e->rank, sizeof e->rank);
	h = hash_bytes(h, &e->pid, sizeof e->pid);
	h = e->host ? hash_str(hash_bytes(h, "h", 1), e->host) : h;
	return h ^ (h >> 29);
}

static int ex_hash_at(const void *ctx, size_t i, uint64_t *h)
{
	*h = ex_hash(&((const struct ranks *)ctx)->ex[i]);
	return 1;
}

/* src into dst, as apply_exit would apply src after dst to their process. */
static void ex_merge(struct launcher_exit *dst, struct launcher_exit *src)
{
	if (src->has_exit && (!dst->has_exit || src->rank >= 0)) {
		dst->has_exit = 1;
		dst->exitcode = src->exitcode;
	}
	dst->root_cause |= src->root_cause;
	dst->sigterm_sent |= src->sigterm_sent;
	if (src->local_rank >= 0)
		dst->local_rank = src->local_rank;
	if ((src->has_exit || !dst->where.path) && (!dst->where.path || (src->has_exit && src->rank >= 0)))
		where_move(&dst->where, &src->where);
}

/* The record ex_add handed out last, now filled in.  Records are kept in
 * order (ranks_finish applies them so); past RANKS_MAX_PROCS of them, a
 * record of a process (rank, pid, host) that has one already is merged
 * into it (a process that exits again and again, restarts), one of another
 * process is counted in r->untracked_exit. */
static void ex_settle(struct ranks *r)
{
	if (!r->ex_pending)
		return;
	r->ex_pending = 0;
	struct launcher_exit *e = &r->ex[r->nex];
	uint64_t h = ex_hash(e);
	if (r->nex >= RANKS_MAX_PROCS && r->eix.nslot)
		for (size_t s = hindex_first(&r->eix, h); r->eix.slot[s]; s = hindex_next(&r->eix, s)) {
			struct launcher_exit *q = &r->ex[r->eix.slot[s] - 1];
			r->work++;
			if (q->rank == e->rank && q->pid == e->pid &&
			    (q->host ? e->host && strcmp(q->host, e->host) == 0 : !e->host)) {
				ex_merge(q, e);
				ex_free(e);
				return;
			}
		}
	if (r->nex >= RANKS_MAX_PROCS) {
		r->untracked_exit++;
		ex_free(e);
		return;
	}
	r->nex++;
	if (hindex_crowded(&r->eix, r->nex))
		hindex_grow(&r->eix, r->nex, ex_hash_at, r);
	else
		hindex_put(&r->eix, h, r->nex - 1);
}

/* A new record for the caller to fill in; ex_settle files it (at the next
 * ex_add, in ranks_finish). */
static struct launcher_exit *ex_add(struct ranks *r)
{
	ex_settle(r);
	if (r->nex == r->capex) {
		r->capex = r->capex ? r->capex * 2 : 8;
		r->ex = xrealloc(r->ex, r->capex * sizeof *r->ex);
	}
	struct launcher_exit *e = &r->ex[r->nex];
	memset(e, 0, sizeof *e);
	e->rank = e->local_rank = -1;
	e->pid = -1;
	e->where.ts = -1;
	r->ex_pending = 1;
	return e;
}

static void blk_flush(struct ranks *r, struct rank_doc *d)
{
	if (!d->have_entry)
		return;
	d->have_entry = 0;
	if (d->cur.rank < 0 && d->cur.pid < 0) {
		ex_free(&d->cur);
		memset(&d->cur, 0, sizeof d->cur); /* doc_free frees d->cur again */
		d->cur.rank = d->cur.local_rank = -1;
		d->cur.pid = -1;
		d->cur.where.ts = -1;
		return;
	}
	struct launcher_exit *e = ex_add(r);
	if (e)
		*e = d->cur;
	else
		ex_free(&d->cur);
	memset(&d->cur, 0, sizeof d->cur);
	d->cur.where.ts = -1;
}

static const char *skip_spaces(const struct span *m, size_t *rest)
{
	size_t i = 0;
	while (i < m->n && (m->p[i] == ' ' || m->p[i] == '\t'))
		i++;
	*rest = m->n - i;
	return m->p + i;
}

/* One line inside or around torchrun's ChildFailedError block. */
static int note_block(struct ranks *r, struct rank_doc *d, const struct span *m0, uint64_t kw, const char *path,
                      uint64_t lineno, uint64_t order)
{
	if (kw & KW_BIT(KW_CHILD_FAILED)) {
		r->saw_child_failed = r->saw_launcher = 1;
		d->launcher = 1;
		d->blk = 1;
		d->blk_root = 0;
		return 1;
	}
	/* outside a block only "Root Cause ..." after blanks opens one: the
	 * first byte says no for nearly every line */
	if (!d->blk && (m0->n == 0 || (m0->p[0] != ' ' && m0->p[0] != '\t' && m0->p[0] != 'R')))
		return 0;
	size_t n;
	const char *s = skip_spaces(m0, &n);
	struct span m = {s, n};
	if (!d->blk) {
		/* a paste that starts at the block's "Root Cause" section */
		if (!starts(&m, "Root Cause (first observed failure)"))
			return 0;
		r->saw_child_failed = r->saw_launcher = 1;
		d->launcher = d->blk = d->blk_root = 1;
		return 1;
	}
	while (m.n && (m.p[m.n - 1] == ' ' || m.p[m.n - 1] == '\r'))
		m.n--;
	if (m.n >= 3 && (m.p[0] == '=' || m.p[0] == '-') && m.p[1] == m.p[0] && m.p[2] == m.p[0]) {
		blk_flush(r, d);
		if (m.p[0] == '=' && d->blk_root)
			d->blk = 0; /* closing border */
		return 1;
	}
	if (starts(&m, "Failures:")) {
		blk_flush(r, d);
		d->blk_root = 0;
		return 1;
	}
	if (starts(&m, "Root Cause (first observed failure)")) {
		blk_flush(r, d);
		d->blk_root = 1;
		return 1;
	}
	if (m.n >= 3 && m.p[0] == '[' && is_digit(m.p[1]) && m.p[m.n - 1] == ':' && m.p[m.n - 2] == ']') {
		blk_flush(r, d);
		d->have_entry = 1;
		d->cur.rank = d->cur.local_rank = -1;
		d->cur.pid = -1;
		d->cur.root_cause = d->blk_root;
		return 1;
	}
	/* the block's own words that carry nothing to read: its title ("train.py
	 * FAILED", torch's ChildFailedError.format_msg), "<NO_OTHER_FAILURES>" */
	if ((m.n > 7 && memcmp(m.p + m.n - 7, " FAILED", 7) == 0) || starts(&m, "<NO_OTHER_FAILURES>"))
		return 1;
	if (!d->have_entry)
		return 0;
	const char *colon = memchr(m.p, ':', m.n);
	if (!colon)
		return 0;
	size_t kl = (size_t)(colon - m.p);
	while (kl && m.p[kl - 1] == ' ')
		kl--;
	const char *v = colon + 1, *end = m.p + m.n;
	while (v < end && *v == ' ')
		v++;
	struct span val = {v, (size_t)(end - v)};
	int ok;
	if (kl == 4 && memcmp(m.p, "host", 4) == 0) {
		free(d->cur.host);
		d->cur.host = str_sanitize(v, val.n > 100 ? 100 : val.n);
	} else if (kl == 4 && memcmp(m.p, "rank", 4) == 0) {
		long x = num_at(v, end, &ok);
		if (ok && x >= 0 && x < 10000000)
			d->cur.rank = (int)x;
		long lr;
		if (num_after(&val, "local_rank: ", &lr) && lr >= 0 && lr < 100000)
			d->cur.local_rank = (int)lr;
	} else if (kl == 8 && memcmp(m.p, "exitcode", 8) == 0) {
		long x = num_at(v, end, &ok);
		if (ok && x > -1000 && x < 1000) {
			d->cur.has_exit = 1;
			d->cur.exitcode = (int)x;
		}
		long pid;
		if (num_after(&val, "pid: ", &pid))
			d->cur.pid = pid;
		where_set(&d->cur.where, path, lineno, m0->p, m0->n, order, -1);
	} else if (kl == 4 && memcmp(m.p, "time", 4) == 0) {
		d->cur.where.ts = ranks_parse_ts(v, val.n);
	} else if ((kl == 10 && memcmp(m.p, "error_file", 10) == 0) ||
	           (kl == 9 && memcmp(m.p, "traceback", 9) == 0 && starts(&val, "To enable traceback"))) {
		/* fields with nothing to read (the traceback field may hold one: judged as any line) */
	} else {
		return 0;
	}
	return 1;
}

/* torchrun's own log lines (elastic agent). */
static int note_launcher(struct ranks *r, const struct span *m, uint64_t kw, const char *path, uint64_t lineno,
                         uint64_t order, double ts)
{
	if (!(kw & KW_BIT(KW_ELASTIC)))
		return 0;
	r->saw_launcher = 1;
	if (r->doc) {
		r->doc->launcher = 1;
		r->doc->line_launcher = 1;
		where_set_raw(r, &r->launcher_last, lineno, m->p, m->n, order, ts); /* copied once, at the end */
	}
	const char *k = find(m, "Sending process ");
	if (k && find(m, "closing signal SIGTERM")) {
		int ok;
		long pid = num_at(k + 16, m->p + m->n, &ok);
		struct launcher_exit *e = ok ? ex_add(r) : NULL;
		if (e) {
			e->pid = pid;
			e->sigterm_sent = 1;
			where_set(&e->where, path, lineno, m->p, m->n, order, ts);
		}
		return 1;
	}
	k = find(m, "failed (exitcode: ");
	if (k) {
		int ok;
		long code = num_at(k + 18, m->p + m->n, &ok);
		long pid = -1, lr = -1;
		num_after(m, "(pid: ", &pid);
		num_after(m, "local_rank: ", &lr);
		struct launcher_exit *e = ok && pid >= 0 ? ex_add(r) : NULL;
		if (e) {
			e->pid = pid;
			e->has_exit = 1;
			e->exitcode = (int)code;
			e->local_rank = lr >= 0 && lr < 100000 ? (int)lr : -1;
			where_set(&e->where, path, lineno, m->p, m->n, order, ts);
		}
	}
	return 1;
}

/* Exit status records written by wrappers and launchers other than torchrun
 * (torchrun's are in note_block / note_launcher):
 *   "exit=137 ms=100231", "exit=rank0:1 rank1:124"   a wrapper script's result
 *        file (the real captures in fixtures/captures: `result.txt`);
 *   "srun: error: sn30-r1-h1: task 0: Exited with exit code 1",
 *   "srun: error: node30: tasks 0-1: Exited with exit code 1",
 *   "srun: error: host: task 3: Killed"               Slurm's srun;
 *   "slurmstepd: error: *** STEP 30399.0 ON sn30-r1-h1 CANCELLED AT 2024-04-03T09:40:00 ***"
 *   "mpirun noticed that process rank 14 with PID 4257 on node compute-0-2.local
 *    exited on signal 11 (Segmentation fault)."         Open MPI.
 * A shell status 128+N is signal N; 124 is timeout(1) stopping the job from
 * outside (a time limit), counted like SIGTERM from a scheduler.  Returns 1
 * when the line was such a record. */
static void exit_for_rank(struct ranks *r, int rank, long pid, int code, const char *path, uint64_t lineno,
                          const struct span *m, uint64_t order, double ts)
{
	struct launcher_exit *e = ex_add(r);
	if (!e)
		return;
	e->rank = rank;
	e->pid = pid;
	if (code == 124) {
		e->sigterm_sent = 1; /* stopped from outside */
		e->has_exit = 1;
		e->exitcode = -15;
		if (!r->launcher_signalled)
			where_set(&r->launcher_signal_where, path, lineno, m->p, m->n, order, ts);
		r->launcher_signalled = 1;
	} else {
		e->has_exit = 1;
		e->exitcode = code > 128 && code < 128 + 65 ? -(code - 128) : code;
	}
	where_set(&e->where, path, lineno, m->p, m->n, order, ts);
}

static int signal_by_text(const char *p, const char *end)
{
	static const struct { const char *t; int sig; } S[] = {
		{"Killed", 9}, {"Terminated", 15}, {"Segmentation fault", 11}, {"Aborted", 6},
		{"Bus error", 7}, {"Floating point exception", 8}, {"Illegal instruction", 4}, {NULL, 0}};
	for (size_t i = 0; S[i].t; i++) {
		size_t l = strlen(S[i].t);
		if ((size_t)(end - p) >= l && memcmp(p, S[i].t, l) == 0)
			return S[i].sig;
	}
	return 0;
}

/* torch.multiprocessing.spawn's record of a child's end (spawn.py:
 * "process %d terminated with signal %s" / "... with exit code %d", raised
 * as ProcessExitedException, before torch 1.5 as a plain Exception): the
 * process index is the rank spawn gave it (fn(i, ...)). */
static int note_spawn_exit(struct ranks *r, const struct span *m, const char *path, uint64_t lineno, uint64_t order,
                           double ts)
{
	const char *t = find(m, " terminated with ");
	if (!t)
		return 0;
	const char *q = t;
	while (q > m->p && is_digit(q[-1]))
		q--;
	if (q == t || q - m->p < 8 || memcmp(q - 8, "process ", 8) != 0)
		return 0;
	int ok;
	long idx = num_at(q, t, &ok);
	const char *end = m->p + m->n, *v = t + 17;
	if (!ok || idx < 0 || idx > 10000000)
		return 0;
	int code;
	if (end - v > 7 && memcmp(v, "signal ", 7) == 0) {
		int sig = 0;
		for (int k = 1; k <= 64 && !sig; k++) {
			const char *n = ranks_signal_name(k);
			size_t l = n ? strlen(n) : 0;
			if (n && (size_t)(end - v - 7) >= l && memcmp(v + 7, n, l) == 0)
				sig = k;
		}
		if (!sig)
			return 0;
		code = 128 + sig;
	} else if (end - v > 10 && memcmp(v, "exit code ", 10) == 0) {
		long c = num_at(v + 10, end, &ok);
		if (!ok || c < 0 || c > 255)
			return 0;
		code = (int)c;
	} else {
		return 0;
	}
	exit_for_rank(r, (int)idx, -1, code, path, lineno, m, order, ts);
	return 1; /* not torchrun's agent: saw_launcher stays */
}

/* A launcher's record of how processes ended (docs/verdicts.md: exit
 * records): "exit=N", srun's "task N: Exited ...", slurmstepd's
 * CANCELLED, mpirun's "process rank N ... exited on signal", spawn's
 * records; 1 when it was one.  Called by note_exit_record. */
static int exit_record(struct ranks *r, const struct span *m, uint64_t kw, const char *path, uint64_t lineno,
                       uint64_t order, double ts)
{
	if ((kw & KW_BIT(KW_SPAWN_EXIT)) && note_spawn_exit(r, m, path, lineno, order, ts))
		return 1;
	const char *p = m->p, *end = m->p + m->n;
	int ok;
	if (p[0] == 'e' && memcmp(p, "exit=", 5) == 0) {
		const char *q = p + 5;
		if (q < end && *q == 'r') {
			int any = 0;
			while (end - q > 5 && memcmp(q, "rank", 4) == 0) {
				long rk = num_at(q + 4, end, &ok);
				if (!ok || rk < 0 || rk > 10000000)
					break;
				q += 4;
				while (q < end && is_digit(*q))
					q++;
				if (q >= end || *q != ':')
					break;
				long code = num_at(q + 1, end, &ok);
				if (!ok || code < -1000 || code > 1000)
					break;
				exit_for_rank(r, (int)rk, -1, (int)code, path, lineno, m, order, ts);
				any = 1;
				q++;
				while (q < end && (is_digit(*q) || *q == '-'))
					q++;
				while (q < end && *q == ' ')
					q++;
			}
			return any;
		}
		long code = num_at(q, end, &ok);
		if (!ok || code < -1000 || code > 1000)
			return 0;
		while (q < end && (is_digit(*q) || *q == '-'))
			q++;
		if (q < end && *q != ' ')
			return 0; /* "exit=3x": not a status */
		r->job_exit = (int)code;
		where_set(&r->job_exit_where, path, lineno, m->p, m->n, order, ts);
		if (code == 124) {
			if (!r->launcher_signalled)
				where_set(&r->launcher_signal_where, path, lineno, m->p, m->n, order, ts);
			r->launcher_signalled = 1;
		}
		return 1;
	}
	if (p[0] == 's' && starts(m, "srun: error: ")) {
		const char *t = find(m, ": task");
		if (!t)
			return 0;
		const char *q = t + 6;
		if (q < end && *q == 's')
			q++;
		if (q >= end || *q != ' ')
			return 0;
		q++;
		/* "0", "0-1", "1,3" */
		int ranks[64];
		size_t nr = 0;
		while (q < end && is_digit(*q) && nr < 64) {
			long a = num_at(q, end, &ok);
			while (q < end && is_digit(*q))
				q++;
			long b2 = a;
			if (q < end && *q == '-') {
				b2 = num_at(q + 1, end, &ok);
				q++;
				while (q < end && is_digit(*q))
					q++;
			}
			for (long k = a; k <= b2 && nr < 64 && k >= 0 && k < 10000000; k++)
				ranks[nr++] = (int)k;
			if (q < end && *q == ',')
				q++;
		}
		if (!nr || end - q < 3 || q[0] != ':' || q[1] != ' ')
			return 0;
		q += 2;
		int code;
		if (end - q > 22 && memcmp(q, "Exited with exit code ", 22) == 0) {
			long c = num_at(q + 22, end, &ok);
			if (!ok || c < 0 || c > 255)
				return 0;
			code = (int)c;
		} else {
			int sig = signal_by_text(q, end);
			if (!sig)
				return 0;
			code = 128 + sig;
		}
		for (size_t i = 0; i < nr; i++)
			exit_for_rank(r, ranks[i], -1, code, path, lineno, m, order, ts);
		r->saw_launcher = 1;
		return 1;
	}
	if (p[0] == 's' && starts(m, "slurmstepd: error: *** ") && find(m, " CANCELLED AT ")) {
		if (!r->launcher_signalled)
			where_set(&r->launcher_signal_where, path, lineno, m->p, m->n, order, ts);
		r->launcher_signalled = 1;
		r->saw_launcher = 1;
		return 1;
	}
	if (p[0] == 'm' && starts(m, "mpirun noticed that process rank ")) {
		long rk = num_at(p + 33, end, &ok);
		long pid = -1;
		num_after(m, " with PID ", &pid);
		const char *s = find(m, " exited on signal ");
		if (!ok || rk < 0 || rk > 10000000 || !s)
			return 0;
		long sig = num_at(s + 18, end, &ok);
		if (!ok || sig <= 0 || sig > 64)
			return 0;
		exit_for_rank(r, (int)rk, pid, 128 + (int)sig, path, lineno, m, order, ts);
		r->saw_launcher = 1;
		return 1;
	}
	return 0;
}

/* Most plain lines are none of these: the tests that every record needs
 * (a keyword, or its first byte: "exit=", "srun: ", "slurmstepd: ",
 * "mpirun ") before the call. */
static inline int note_exit_record(struct ranks *r, const struct span *m, uint64_t kw, const char *path,
                                   uint64_t lineno, uint64_t order, double ts)
{
	if (m->n < 6 || (!(kw & KW_BIT(KW_SPAWN_EXIT)) && m->p[0] != 'e' && m->p[0] != 's' && m->p[0] != 'm'))
		return 0;
	return exit_record(r, m, kw, path, lineno, order, ts);
}

/* "[Rank 3]" or "... Rank 3]" inside a PyTorch message. */
static int inner_rank(const struct span *m)
{
	const char *k = find(m, "[Rank ");
	size_t skip = 6;
	if (!k) {
		k = find(m, " Rank ");
		skip = 6;
	}
	if (!k)
		return -1;
	int ok;
	long v = num_at(k + skip, m->p + m->n, &ok);
	return ok && v >= 0 && v < 10000000 ? (int)v : -1;
}

/* PyTorch ProcessGroupNCCL lines of one rank. */
static void note_torch(struct ranks *r, struct rank_proc *p, const struct span *m, uint64_t kw, const char *path,
                       uint64_t lineno, uint64_t order, double ts)
{
	if (kw & (KW_BIT(KW_WD_TIMEOUT) | KW_BIT(KW_BLOCKING_WAIT))) {
		long v;
		r->saw_watchdog = 1;
		if (!p->wd_where.path) {
			if (num_after(m, "SeqNum=", &v))
				p->wd_seq = v;
			free(p->wd_op);
			p->wd_op = word_after(m, "OpType=");
			if (num_after(m, "NumelIn=", &v))
				p->wd_numel = v;
			where_set(&p->wd_where, path, lineno, m->p, m->n, order, ts);
		}
		p->saw_coll = 1;
	}
	long en, co;
	if ((kw & KW_BIT(KW_LAST_ENQUEUED)) &&
	    ((num_after(m, "last enqueued work: ", &en) && num_after(m, "last completed work: ", &co)) ||
	     (num_after(m, "Last enqueued NCCL work: ", &en) && num_after(m, "last completed NCCL work: ", &co)) ||
	     (num_after(m, "last enqueued NCCL work: ", &en) && num_after(m, "last completed NCCL work: ", &co)))) {
		r->saw_watchdog = 1;
		long pg = -1, wseq;
		if (!num_after(m, "[PG ID ", &pg))
			num_after(m, "[PG ", &pg); /* "[PG 0 Rank 2]", "[PG 0 (default_pg) Rank 1]" (torch 2.2-2.5) */
		/* "Timeout at NCCL work: S, last enqueued NCCL work: E, ...": the SeqNum that timed out,
		 * when no WorkNCCL line of this rank said it */
		if (num_after(m, "Timeout at NCCL work: ", &wseq) && !p->wd_where.path) {
			p->wd_seq = wseq;
			where_set(&p->wd_where, path, lineno, m->p, m->n, order, ts);
			r->saw_watchdog = 1;
		}
		if (pg < -1 || pg > 1000000)
			pg = -1;
		/* "failure detected by watchdog at work sequence id: S": the PG of the timeout */
		if (num_after(m, "failure detected by watchdog at work sequence id: ", &wseq) && wseq == p->wd_seq &&
		    p->wd_pg < 0 && pg >= 0) {
			p->wd_pg = (int)pg;
			const char *g = find(m, "PG GUID ");
			if (g) {
				const char *e = g + 8, *end = m->p + m->n;
				while (e < end && *e != ' ' && *e != ']' && e - g < 80)
					e++;
				free(p->wd_pg_name);
				p->wd_pg_name = str_sanitize(g + 8, (size_t)(e - g - 8));
			}
		}
		size_t gi = 0;
		while (gi < p->npgs && p->pgs[gi].pg != (int)pg)
			gi++;
		if (gi == p->npgs && gi < 8) {
			p->pgs[gi].pg = (int)pg;
			p->pgs[gi].enq = p->pgs[gi].comp = -2;
			p->npgs++;
		}
		if (gi < p->npgs) {
			if (en > p->pgs[gi].enq)
				p->pgs[gi].enq = en;
			if (co > p->pgs[gi].comp)
				p->pgs[gi].comp = co;
		}
		if (en > p->last_enqueued)
			p->last_enqueued = en;
		if (co > p->last_completed || p->last_completed == -2)
			p->last_completed = co;
		if (en >= 0)
			p->saw_coll = 1;
		where_set(&p->enq_where, path, lineno, m->p, m->n, order, ts);
	}
	if ((kw & KW_BIT(KW_DUMP_OBSERVED)) ||
	    ((kw & KW_BIT(KW_DUMP_RECEIVED)) && !find(m, "from this local rank")))
		p->dump_observer = 1;
}

/* ---- the line feed ---- */

/* "AllReduce: opCount 0 sendbuff ..." (NCCL_DEBUG_SUBSYS=COLL): a collective ran */
static int is_opcount_line(const struct span *m)
{
	const char *c = m->n > 2 ? memchr(m->p, ':', m->n < 24 ? m->n : 24) : NULL;
	size_t rest = c ? (size_t)(m->p + m->n - c) : 0;
	return c && rest >= 10 && memcmp(c, ": opCount ", 10) == 0;
}

/* NCCL 2.0-2.3 init lines: "comm 0x... rank 0 nranks 2" at the start and
 * "comm 0x... rank 0 nranks 2 - COMPLETE" at the end (2.4 added "Init
 * START/COMPLETE"; 2.3.7 src/init.cu:174,599).  1 start, 2 complete, 0 none. */
static int old_comm_line(const struct span *m)
{
	if (!starts(m, "comm ") || m->n > 64)
		return 0;
	const char *nr = find(m, " nranks ");
	if (!nr || !find(m, " rank "))
		return 0;
	const char *q = nr + 8, *end = m->p + m->n;
	while (q < end && is_digit(*q))
		q++;
	if (q == nr + 8)
		return 0;
	if (q == end)
		return 1;
	return (size_t)(end - q) == 11 && memcmp(q, " - COMPLETE", 11) == 0 ? 2 : 0;
}

/* NCCL 2.3.5-2.6.4's "rank 0 nranks 8": ncclCommInitRank was called
 * (src/init.cu, before the CUDA runtime and the bootstrap); the comm line
 * comes later, once init runs.  1 when m is that line. */
static int old_rank_line(const struct span *m)
{
	if (m->n > 40 || !starts(m, "rank "))
		return 0;
	const char *q = m->p + 5, *end = m->p + m->n;
	const char *d = q;
	while (q < end && is_digit(*q))
		q++;
	if (q == d || (size_t)(end - q) < 9 || memcmp(q, " nranks ", 8) != 0)
		return 0;
	q += 8;
	d = q;
	while (q < end && is_digit(*q))
		q++;
	return q > d && q == end;
}

/* A connection line of the old releases: "Ring 00 : 0[0] -> 1[1] via
 * P2P/IPC" (2.3-2.6) or "0 -> 1 via P2P/IPC" (2.0-2.2); "Channel NN"
 * since 2.7. */
static int old_ring_line(const struct span *m)
{
	return starts(m, "Ring ") || (m->n > 10 && is_digit(m->p[0]) && find(m, " -> ") && find(m, " via "));
}

static void note_nccl(struct ranks *r, const struct logline *ll, uint64_t kw, const char *path, uint64_t lineno,
                      double ts)
{
	struct rank_doc *d = r->doc;
	r->nccl_lines++;
	d->nccl++;
	if (!d->host) {
		d->host = xstrndup(ll->host.p, ll->host.n);
		d->host_len = ll->host.n;
		d->pid = ll->pid;
	} else if (d->pid != ll->pid || d->host_len != ll->host.n || memcmp(d->host, ll->host.p, ll->host.n) != 0) {
		d->mixed = 1;
	}
	struct rank_proc *p = proc_nccl(r, ll->host.p, ll->host.n, ll->pid);
	if (!p) {
		r->untracked++;
		return;
	}
	if (ll->rank >= 0) {
		p->prefix_rank = ll->rank;
		doc_prefix_rank(d, ll->rank);
	}
	if (p->cuda_dev < 0 && ll->dev >= 0 && ll->tid == ll->pid)
		p->cuda_dev = ll->dev; /* the main thread's device, until an Init line says */
	const struct span *m = &ll->msg;
	if (ll->level == LINE_INFO) {
		/* Init/Abort/Destroy lines end with START or COMPLETE; the bulk of
		 * INFO lines fall through every test below */
		char last = m->n ? m->p[m->n - 1] : 0; /* the last byte first: 'T' or 'E' */
		int tail = (last == 'T' && m->n > 5 && memcmp(m->p + m->n - 5, "START", 5) == 0) ||
		           (last == 'E' && m->n > 8 && memcmp(m->p + m->n - 8, "COMPLETE", 8) == 0);
		int oc;
		if (starts(m, "Bootstrap") || starts(m, "NET/"))
			r->saw_net_lines = 1;
		if (starts(m, "NCCL version ")) {
			p->saw_banner = 1;
			size_t l = 13;
			while (l < m->n && m->p[l] != '+' && m->p[l] != ' ')
				l++;
			free(p->nccl_version);
			p->nccl_version = str_sanitize(m->p + 13, l - 13 > 40 ? 40 : l - 13);
		} else if (tail && find(m, "Init START")) {
			p->saw_init_start = 1;
			note_init(r, p, m, 0, path, lineno, r->order, ts);
		} else if (tail && find(m, "Init COMPLETE")) {
			p->saw_init_complete = 1;
			note_init(r, p, m, 1, path, lineno, r->order, ts);
		} else if (m->n > 5 && m->p[0] == 'c' && (oc = old_comm_line(m)) != 0) {
			if (oc == 1)
				p->saw_init_start = 1;
			else
				p->saw_init_complete = 1;
			note_init(r, p, m, oc == 2, path, lineno, r->order, ts);
		} else if (m->n > 5 && m->p[0] == 'r' && old_rank_line(m)) {
			char line[48] = " "; /* note_init reads " rank N" */
			memcpy(line + 1, m->p, m->n);
			struct span sp = {line, m->n + 1};
			p->saw_init_start = 1;
			note_init(r, p, &sp, 0, path, lineno, r->order, ts);
		} else if (tail && (find(m, "Abort START") || find(m, "Abort COMPLETE"))) {
			p->saw_abort = 1;
			char *ptr = word_after(m, "comm ");
			if (ptr) {
				struct rank_member *mb = member_by_ptr(r, (size_t)(p - r->v), ptr);
				if (mb)
					mb->aborted = 1;
				free(ptr);
			}
		} else if (tail && find(m, "Destroy COMPLETE")) {
			p->saw_destroy = p->saw_exit_line = 1;
			if (!p->destroy_order)
				p->destroy_order = r->order;
		} else if (starts(m, "Connected all ")) {
			p->saw_connected = 1; /* "Connected all rings"/"trees": the end of init (<2.22) or the first collective */
		} else if (starts(m, "Channel ") || old_ring_line(m)) {
			/* "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM": looked at until it
			 * has told the transport and, after init, that a collective ran */
			const char *v = !p->transport || (p->saw_init_complete && !p->saw_coll) ? find(m, " via ") : NULL;
			if (v && !p->transport) {
				v += 5;
				size_t l = (size_t)(m->p + m->n - v);
				p->transport = str_sanitize(v, l > 60 ? 60 : l);
			}
			if (v && p->saw_init_complete)
				p->saw_coll = 1; /* 2.22+: connections are made at the first collective */
		} else if (is_opcount_line(m)) {
			p->saw_coll = 1;
			d->last_is_coll = 2; /* ranks_note turns it into 1 for this line */
			d->coll_line = lineno;
		} else if (starts(m, "ENV/Plugin: Closing")) {
			p->saw_exit_line = 1;
		}
	}
	/* INFO lines only carry "[Service thread] Connection closed by localRank N" */
	if (kw & KW_BENIGN_BIT)
		; /* on the benign list: not an error */
	else if (ll->level == LINE_WARN || (ll->level == LINE_INFO && m->n > 30 && m->p[0] == '[' && (kw & KW_BIT(KW_CONN_CLOSED))))
		note_remote(p, m, kw, path, lineno, r->order, ts);
	if (ll->level == LINE_WARN && !(kw & KW_BENIGN_BIT)) {
		p->saw_warn = 1;
		if (!p->first_error.path)
			where_set(&p->first_error, path, lineno, m->p, m->n, r->order, ts);
	}
	where_set_raw(r, &p->last, lineno, m->p, m->n, r->order, ts);
}

/* The c10d collectives a traceback may stop in (distributed_c10d.py). */
static const char *const C10D_COLLS[] = {
	"barrier", "monitored_barrier", "all_reduce", "broadcast", "all_gather", "all_gather_into_tensor",
	"all_gather_object", "reduce_scatter", "reduce_scatter_tensor", "all_to_all", "all_to_all_single",
	"reduce", "gather", "scatter", "broadcast_object_list", "send", "recv", NULL,
};

static const char *c10d_coll(const char *p, const char *end)
{
	for (size_t i = 0; C10D_COLLS[i]; i++) {
		size_t l = strlen(C10D_COLLS[i]);
		if ((size_t)(end - p) == l && memcmp(p, C10D_COLLS[i], l) == 0)
			return C10D_COLLS[i];
	}
	return NULL;
}

/* A stack frame that shows how far the job got (KW_TRACE_CALL, ranks.h):
 *   native:  "3  /opt/x/lib/libnccl.so(+0x120057) [0x7ff..]"  -> saw_nccl_text
 *   Python:  'File ".../torch/distributed/distributed_c10d.py", line 3328, in barrier'
 *            '    torch.distributed.broadcast(seed_tensor, src=0)' (indented code line)
 *            'File ".../transformers/training_args.py", line 1891, in main_process_first'
 *            '    with training_args.main_process_first(desc="dataset map pre-processing"):' */
static void note_trace_call(struct ranks *r, const struct logline *ll, const struct span *m, const char *path,
                            uint64_t lineno, double ts)
{
	if (find(m, "libnccl"))
		r->saw_nccl_text = 1;
	const char *end = m->p + m->n, *op = NULL;
	while (end > m->p && (end[-1] == ' ' || end[-1] == '\r'))
		end--;
	const char *f = find(m, "distributed_c10d.py\", line ");
	if (f) {
		const char *in = f;
		while (in + 4 < end && memcmp(in, ", in ", 5) != 0)
			in++;
		if (in + 4 < end)
			op = c10d_coll(in + 5, end);
	} else if ((end - m->p > 21 && memcmp(end - 21, "in main_process_first", 21) == 0) ||
	           (m->n > 2 && m->p[0] == ' ' && find(m, ".main_process_first("))) {
		op = "barrier"; /* the frame, or the code line "with training_args.main_process_first(...):" */
		r->coll_call_main_first = 1;
	} else if (m->n > 2 && m->p[0] == ' ' && m->p[1] == ' ') {
		/* an indented code line: (torch.)distributed.X( / dist.X( / default_pg.X( */
		static const char *const obj[] = {"distributed.", "dist.", "default_pg.", NULL};
		for (size_t i = 0; obj[i] && !op; i++) {
			const char *o = find(m, obj[i]);
			if (!o || (o > m->p && obj[i][0] == 'd' && o[-1] != ' ' && o[-1] != '.' && o[-1] != '='))
				continue;
			const char *s = o + strlen(obj[i]), *e = s;
			while (e < end && (*e == '_' || (*e >= 'a' && *e <= 'z')))
				e++;
			if (e < end && *e == '(')
				op = c10d_coll(s, e);
		}
	}
	if (!op || r->coll_call.path)
		return;
	where_set(&r->coll_call, path, lineno, m->p, m->n, r->order, ts);
	r->coll_call_op = xstrdup(op);
	r->coll_call_rank = ll->rank;
}

/* "... 3169000/6811963 [30:11<38:27, 1578.58 examples/s]": the elapsed time
 * before '<' (MM:SS or H:MM:SS), in seconds; -1 when the line has none. */
static long progress_elapsed(const struct span *m)
{
	const char *u = find(m, " examples/s]");
	if (!u)
		return -1;
	const char *b = u;
	while (b > m->p && b[-1] != '[' && u - b < 40)
		b--;
	if (b == m->p || b[-1] != '[')
		return -1;
	long part[3];
	int np = 0;
	const char *q = b;
	while (np < 3) {
		int ok;
		const char *e = q;
		while (e < u && is_digit(*e))
			e++;
		part[np++] = num_at(q, e, &ok);
		if (!ok || e == q || e - q > 4 || e >= u)
			return -1;
		if (*e == '<')
			break;
		if (*e != ':')
			return -1;
		q = e + 1;
	}
	if (np < 2 || part[np - 1] > 59 || (np == 3 && part[1] > 59))
		return -1;
	return np == 2 ? part[0] * 60 + part[1] : part[0] * 3600 + part[1] * 60 + part[2];
}

/* A record of PyTorch's own logging after "[rankN]:" ("[W Utils.hpp:108]
 * Warning: ...", "[I1130 14:17:06.71 ProcessGroupNCCL.cpp:...]"): the
 * library speaking, not the rank's program; a rank whose lines are all such
 * records showed no sign of its work (the verdict's own_lines).  linekind.h
 * decides it: lk.torch_record. */

static uint64_t uid_hash(int waiter, int root)
{
	int k[2] = {waiter, root};
	uint64_t h = hash_bytes(HASH_SEED ^ 0x0d, k, sizeof k);
	return h ^ (h >> 29);
}

static int uid_hash_at(const void *ctx, size_t i, uint64_t *h)
{
	const struct ranks *r = ctx;
	*h = uid_hash(r->uid[i].waiter, r->uid[i].root);
	return 1;
}

/* A wait of waiter for root's ncclUniqueId: the first line of each pair is
 * kept (a rank that retries prints it again and again), RANKS_MAX_UID pairs. */
static void uid_note(struct ranks *r, int waiter, int root, const char *path, uint64_t lineno, const struct span *m,
                     double ts)
{
	uint64_t h = uid_hash(waiter, root);
	if (r->uix.nslot)
		for (size_t s = hindex_first(&r->uix, h); r->uix.slot[s]; s = hindex_next(&r->uix, s)) {
			const struct uid_wait *q = &r->uid[r->uix.slot[s] - 1];
			r->work++;
			if (q->waiter == waiter && q->root == root)
				return;
		}
	if (r->nuid >= RANKS_MAX_UID) {
		r->untracked_uid++;
		return;
	}
	if (r->nuid == r->capuid) {
		r->capuid = r->capuid ? r->capuid * 2 : 4;
		r->uid = xrealloc(r->uid, r->capuid * sizeof *r->uid);
	}
	struct uid_wait *w = &r->uid[r->nuid++];
	memset(w, 0, sizeof *w);
	w->waiter = waiter;
	w->root = root;
	w->where.ts = -1;
	where_set(&w->where, path, lineno, m->p, m->n, r->order, ts);
	if (hindex_crowded(&r->uix, r->nuid))
		hindex_grow(&r->uix, r->nuid, uid_hash_at, r);
	else
		hindex_put(&r->uix, h, r->nuid - 1);
}


static void note_plain(struct ranks *r, const struct logline *ll, uint64_t kw, const char *path, uint64_t lineno,
                       double ts)
{
	struct rank_doc *d = r->doc;
	const struct span *m = &ll->msg;
	if (note_block(r, d, m, kw, path, lineno, r->order)) {
		d->line_launcher = 1;
		return;
	}
	if (ll->rank < 0 && note_exit_record(r, m, kw, path, lineno, r->order, ts)) {
		d->line_launcher = 1;
		return;
	}
	if (ll->rank < 0 && (kw & KW_BIT(KW_SIGNAL_EXCEPTION)) && find(m, "got signal")) {
		d->line_launcher = 1;
		if (!r->launcher_signalled)
			where_set(&r->launcher_signal_where, path, lineno, m->p, m->n, r->order, ts);
		r->launcher_signalled = 1;
		r->saw_launcher = 1;
		return;
	}
	if (ll->rank < 0 && note_launcher(r, m, kw, path, lineno, r->order, ts))
		return;
	int err = !(kw & KW_BENIGN_BIT) && is_error_text(ll, kw);
	if (kw & KW_BIT(KW_TRACE_CALL))
		note_trace_call(r, ll, m, path, lineno, ts);
	long el = kw & KW_BIT(KW_PROGRESS) ? progress_elapsed(m) : -1;
	if (el >= 0) {
		r->progress_elapsed = el;
		where_set(&r->progress_where, path, lineno, m->p, m->n, r->order, ts);
	}
	if (!r->saw_nccl_text) {
		/* "NCCL" as a word of PyTorch's messages (not an NCCL_* variable name) */
		const char *q = m->p, *end = m->p + m->n;
		while ((q = memmem(q, (size_t)(end - q), "NCCL", 4)) != NULL) {
			if (q + 4 >= end || q[4] != '_') {
				r->saw_nccl_text = 1;
				break;
			}
			q += 4;
		}
		if (find(m, "CollectiveFingerPrint") || find(m, "Detected mismatch between collectives"))
			r->saw_nccl_text = 1;
	}
	const char *u = kw & KW_BIT(KW_UNIQUEID_WAIT)
	                ? find(m, "] is setting up NCCL communicator and retrieving ncclUniqueId from [") : NULL;
	if (u) {
		const char *o = u;
		while (o > m->p && is_digit(o[-1]))
			o--;
		int ok1, ok2;
		long waiter = num_at(o, u, &ok1);
		long root = num_at(u + 68, m->p + m->n, &ok2);
		if (ok1 && ok2 && o > m->p && o[-1] == '[' && waiter < 10000000 && root < 10000000)
			uid_note(r, (int)waiter, (int)root, path, lineno, m, ts);
	}
	/* a wrapper named the process ("(pid=909597) RuntimeError: ...", Ray's
	 * worker tag; journald's ident[pid]): the NCCL process of that pid, when
	 * exactly one is known (NCCL's own lines of it came first) */
	struct rank_proc *wp = ll->rank < 0 && ll->wpid >= 0 ? proc_by_pid(r, ll->wpid) : NULL;
	if (ll->rank >= 0 || wp) {
		if (ll->rank >= 0)
			doc_prefix_rank(d, ll->rank);
		struct rank_proc *p = wp ? wp : proc_torch(r, ll->rank);
		if (!p) {
			r->untracked++;
			return;
		}
		note_torch(r, p, m, kw, path, lineno, r->order, ts);
		if (!(kw & KW_BENIGN_BIT)) {
			note_remote(p, m, kw, path, lineno, r->order, ts);
			struct linekind tmp;
			p->own_lines += !linekind_get(ll, &tmp)->torch_record;
		}
		if (err)
			first_error_set(&p->first_error, path, lineno, m, r->order, ts);
		where_set_raw(r, &p->last, lineno, m->p, m->n, r->order, ts);
		return;
	}
	/* older PyTorch: "[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught ..." without a launcher prefix */
	if (kw & (KW_BIT(KW_WORKNCCL) | KW_BIT(KW_LAST_ENQUEUED))) {
		int rk = inner_rank(m);
		if (rk >= 0) {
			struct rank_proc *p = proc_torch(r, rk);
			if (!p) {
				r->untracked++;
				return;
			}
			note_torch(r, p, m, kw, path, lineno, r->order, ts);
			if (err)
				first_error_set(&p->first_error, path, lineno, m, r->order, ts);
			where_set_raw(r, &p->last, lineno, m->p, m->n, r->order, ts);
			return;
		}
	}
	if (m->n == 0)
		return;
	if (err)
		first_error_set(&d->first_err, path, lineno, m, r->order, ts);
	where_set_raw(r, &d->last_plain, lineno, m->p, m->n, r->order, ts);
}

/* The keywords of a plain line that one of note_plain's tests looks at
 * (note_block, note_exit_record, note_launcher, note_trace_call, ...) */
#define KW_PLAIN_SLOW                                                                                           \
	(KW_BIT(KW_CHILD_FAILED) | KW_BIT(KW_SPAWN_EXIT) | KW_BIT(KW_SIGNAL_EXCEPTION) | KW_BIT(KW_ELASTIC) |   \
	 KW_BIT(KW_TRACE_CALL) | KW_BIT(KW_PROGRESS) | KW_BIT(KW_UNIQUEID_WAIT) | KW_BIT(KW_WORKNCCL) |          \
	 KW_BIT(KW_LAST_ENQUEUED))
/* The first bytes of a message that note_plain's tests look at: blanks and
 * 'R' (note_block: "Root Cause" after blanks), 'e' 's' 'm' (note_exit_record:
 * "exit=", "srun: ", "slurmstepd: ", "mpirun ") */
static const unsigned char PLAIN_FIRST[256] = {[' '] = 1, ['\t'] = 1, ['R'] = 1, ['e'] = 1, ['s'] = 1, ['m'] = 1};

/* An NCCL line with host:pid:tid (note_nccl); the others are read as plain ones (note_plain) */
static int nccl_line(const struct logline *ll)
{
	return ll->level != LINE_PLAIN && ll->pid >= 0; /* the host may be redacted to nothing */
}

double ranks_line_ts(const struct logline *ll)
{
	double ts = ll->ts.n ? ranks_parse_ts(ll->ts.p, ll->ts.n) : -1;
	if (ts < 0 && !nccl_line(ll))
		ts = ranks_parse_ts(ll->msg.p, ll->msg.n); /* a plain line: a time at the start of its text */
	return ts;
}

int ranks_note(struct ranks *r, const struct logline *ll, const char *path, uint64_t lineno, uint64_t seq)
{
	return ranks_note_at(r, ll, path, lineno, seq, ranks_line_ts(ll));
}

int ranks_note_at(struct ranks *r, const struct logline *ll, const char *path, uint64_t lineno, uint64_t seq,
                  double ts)
{
	(void)seq;
	if (r->finished)
		return 0;
	r->order++;
	if (!r->doc || (r->doc_key != path && strcmp(r->doc->path, path) != 0)) {
		doc_close(r);
		doc_open(r, path);
	}
	r->doc_key = path;
	uint64_t kw = ll->kw_known ? ll->kw : logline_keywords(ll);
	struct rank_doc *d = r->doc;
	const struct span *m = &ll->msg;
	if (!d->blk && !(kw & KW_PLAIN_SLOW) && !nccl_line(ll) && !r->no_fast && ll->rank < 0 && ll->wpid < 0 && r->saw_nccl_text &&
	    m->n && !PLAIN_FIRST[(unsigned char)m->p[0]]) {
		/* most plain lines: what note_plain does with a line that none of
		 * its tests (keywords, first byte, prefixes, state) picks out */
		d->line_launcher = 0;
		if (!(kw & KW_BENIGN_BIT) && is_error_text(ll, kw))
			first_error_set(&d->first_err, path, lineno, m, r->order, ts);
		where_set_raw(r, &d->last_plain, lineno, m->p, m->n, r->order, ts);
		d->after_launcher += d->launcher != 0; /* m->n > 0, and its first byte is no blank */
		d->last_is_coll = 0;
		return 0;
	}
	d->line_launcher = 0;
	if (nccl_line(ll))
		note_nccl(r, ll, kw, path, lineno, ts);
	else
		note_plain(r, ll, kw, path, lineno, ts);
	if (!d->line_launcher && d->launcher && ll->msg.n && !(ll->msg.n == 1 && ll->msg.p[0] == ' '))
		d->after_launcher++;
	if (d->last_is_coll == 2)
		d->last_is_coll = 1;
	else if (ll->msg.n)
		d->last_is_coll = 0;
	return d->line_launcher;
}

/* ---- finishing ---- */

static void merge_where_earlier(struct rank_where *dst, struct rank_where *src)
{
	if (src->path && (!dst->path || src->order < dst->order))
		where_move(dst, src);
}

static void merge_where_later(struct rank_where *dst, struct rank_where *src)
{
	if (src->path && (!dst->path || src->order > dst->order))
		where_move(dst, src);
}

static void take_str(char **dst, char **src)
{
	if (!*dst && *src) {
		*dst = *src;
		*src = NULL;
	}
}

/* Fold src (a torch-only entry) into dst. */
static void proc_merge(struct rank_proc *dst, struct rank_proc *src)
{
	dst->saw_coll |= src->saw_coll;
	dst->saw_connected |= src->saw_connected;
	for (size_t i = 0; i < src->npgs && dst->npgs < 8; i++) {
		size_t k = 0;
		while (k < dst->npgs && dst->pgs[k].pg != src->pgs[i].pg)
			k++;
		if (k == dst->npgs)
			dst->pgs[dst->npgs++] = src->pgs[i];
	}
	if (!dst->wd_where.path && src->wd_where.path) {
		dst->wd_pg = src->wd_pg;
		free(dst->wd_pg_name);
		dst->wd_pg_name = src->wd_pg_name;
		src->wd_pg_name = NULL;
		dst->wd_seq = src->wd_seq;
		dst->wd_numel = src->wd_numel;
		free(dst->wd_op);
		dst->wd_op = src->wd_op;
		src->wd_op = NULL;
		where_move(&dst->wd_where, &src->wd_where);
	}
	if (src->last_enqueued > dst->last_enqueued)
		dst->last_enqueued = src->last_enqueued;
	merge_where_later(&dst->enq_where, &src->enq_where);
	if (src->last_completed > dst->last_completed)
		dst->last_completed = src->last_completed;
	dst->dump_observer |= src->dump_observer;
	if (!dst->has_exit && src->has_exit) {
		dst->has_exit = 1;
		dst->exitcode = src->exitcode;
	}
	dst->root_cause |= src->root_cause;
	dst->sigterm_sent |= src->sigterm_sent;
	if (dst->local_rank < 0)
		dst->local_rank = src->local_rank;
	take_str(&dst->launcher_host, &src->launcher_host);
	merge_where_earlier(&dst->exit_where, &src->exit_where);
	merge_where_earlier(&dst->first_error, &src->first_error);
	merge_where_later(&dst->last, &src->last);
	if (dst->pid < 0)
		dst->pid = src->pid;
	if (src->remote_err && (!dst->remote_err || src->remote_where.order < dst->remote_where.order))
		where_move(&dst->remote_where, &src->remote_where);
	dst->remote_err |= src->remote_err;
	dst->own_lines += src->own_lines;
	if (dst->remote_peer < 0)
		dst->remote_peer = src->remote_peer;
}

static void apply_exit(struct rank_proc *p, struct launcher_exit *e)
{
	if (e->has_exit && (!p->has_exit || e->rank >= 0)) {
		p->has_exit = 1;
		p->exitcode = e->exitcode;
	}
	p->root_cause |= e->root_cause;
	p->sigterm_sent |= e->sigterm_sent;
	if (p->rank < 0 && e->rank >= 0)
		p->rank = e->rank; /* died before any Init line named it */
	if (e->local_rank >= 0)
		p->local_rank = e->local_rank;
	if (p->pid < 0)
		p->pid = e->pid;
	take_str(&p->launcher_host, &e->host);
	if (e->has_exit || !p->exit_where.path) {
		if (!p->exit_where.path || (e->has_exit && e->rank >= 0))
			where_move(&p->exit_where, &e->where);
	}
}

static int rank_hash_at(const void *ctx, size_t i, uint64_t *h)
{
	const struct ranks *r = ctx;
	if (r->v[i].rank < 0)
		return 0;
	*h = torch_hash(r->v[i].rank);
	return 1;
}

/* ranks_lookup's host:pid index and ranks_by_rank's rank index (the first
 * process of each rank) over the finished table. */
static void finished_index(struct ranks *r)
{
	if (!r->n)
		return;
	while (hindex_crowded(&r->pix, r->n))
		hindex_grow(&r->pix, 0, proc_hash_at, r); /* sized first (a grow indexes only what fits) */
	while (hindex_crowded(&r->rix, r->n))
		hindex_grow(&r->rix, 0, rank_hash_at, r);
	for (size_t i = 0; i < r->n; i++) {
		uint64_t h;
		if (proc_hash_at(r, i, &h))
			hindex_put(&r->pix, h, i);
		if (!rank_hash_at(r, i, &h))
			continue;
		int dup = 0;
		for (size_t s = hindex_first(&r->rix, h); r->rix.slot[s] && !dup; s = hindex_next(&r->rix, s))
			dup = r->v[r->rix.slot[s] - 1].rank == r->v[i].rank;
		if (!dup)
			hindex_put(&r->rix, h, i);
	}
}

/* torchrun's agent names its workers by local rank only ("failed
 * (exitcode: -9) local_rank: 3 (pid: P)", "Sending process P closing
 * signal SIGTERM"); on one node the local rank is the rank.  Taken only when
 * no process has a global rank, the local ranks are distinct, and at most
 * one host appears (NCCL's or the launcher's): nothing shows a second node.
 * Flagged (rank_from_local), as a guess. */
static void rank_from_local(struct ranks *r)
{
	const char *host = NULL;
	size_t nlocal = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct rank_proc *p = &r->v[i];
		if (p->rank >= 0)
			return;
		const char *hs[2] = {p->host, p->launcher_host};
		for (int k = 0; k < 2; k++) {
			if (!hs[k] || strcmp(hs[k], "localhost") == 0)
				continue;
			if (host && strcmp(host, hs[k]) != 0)
				return; /* two hosts: local ranks repeat per node */
			host = hs[k];
		}
		if (p->local_rank < 0)
			continue;
		for (size_t k = 0; k < i; k++)
			if (r->v[k].local_rank == p->local_rank)
				return;
		nlocal++;
	}
	if (!nlocal)
		return;
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].local_rank >= 0) {
			r->v[i].rank = r->v[i].local_rank;
			r->v[i].rank_from_local = 1;
		}
}

/* The global rank of each NCCL process: the launcher prefix's, else its
 * rank in the largest communicator (the first such, in communicator order:
 * one pass over the members), which also gives its nranks and comm id. */
static void ranks_from_comms(struct ranks *r)
{
	struct best { int n, rank; const char *id; } *best = xmalloc((r->n + 1) * sizeof *best);
	for (size_t i = 0; i < r->n; i++)
		best[i] = (struct best){-1, -1, NULL};
	for (size_t c = 0; c < r->ncomms; c++)
		for (size_t k = 0; k < r->comms[c].n; k++) {
			const struct rank_member *mb = &r->comms[c].m[k];
			struct best *bp = &best[mb->proc];
			if (r->comms[c].nranks > bp->n)
				*bp = (struct best){r->comms[c].nranks, mb->rank, r->comms[c].id};
		}
	for (size_t i = 0; i < r->n; i++) {
		struct rank_proc *p = &r->v[i];
		if (!p->host)
			continue;
		if (best[i].n > 0) {
			p->nranks = best[i].n;
			free(p->comm_id);
			p->comm_id = xstrdup(best[i].id);
		}
		p->rank = p->prefix_rank >= 0 ? p->prefix_rank : best[i].rank >= 0 ? best[i].rank : p->rank;
	}
	free(best);
}

/* The first process with a key (attach_exits): pid, or the rank of an NCCL
 * process; open addressing, keys only ever gain entries (a pid or rank is
 * set once, from -1), so "first" is the smallest index noted. */
struct first_ix {
	long *key;
	size_t *at, mask;
};

static void first_note(struct first_ix *ix, long key, size_t k)
{
	size_t s = (size_t)(torch_hash((int)key) ^ (uint64_t)key) & ix->mask;
	while (ix->at[s] != SIZE_MAX && ix->key[s] != key)
		s = (s + 1) & ix->mask;
	if (ix->at[s] == SIZE_MAX || k < ix->at[s]) {
		ix->key[s] = key;
		ix->at[s] = k;
	}
}

static size_t first_at(const struct first_ix *ix, long key)
{
	size_t s = (size_t)(torch_hash((int)key) ^ (uint64_t)key) & ix->mask;
	while (ix->at[s] != SIZE_MAX && ix->key[s] != key)
		s = (s + 1) & ix->mask;
	return ix->at[s];
}

/* Note process k in both indexes. */
static void first_note_proc(const struct ranks *r, struct first_ix *pids, struct first_ix *ranks, size_t k)
{
	if (r->v[k].pid >= 0)
		first_note(pids, r->v[k].pid, k);
	if (r->v[k].host && r->v[k].rank >= 0)
		first_note(ranks, r->v[k].rank, k);
}

/* torchrun's exit records onto their processes: by pid, else by rank (the
 * block entries, with a rank, first); a process known by pid only is added
 * for one that matches none, while there is room.  The first process of a
 * pid, of an NCCL rank, through first_ix: what a scan in order finds, without
 * a scan of every process for every record. */
static void attach_exits(struct ranks *r)
{
	if (!r->nex)
		return;
	size_t cap = 16;
	while (cap < 2 * (r->n + r->nex + 1))
		cap *= 2; /* at most one process is added per record */
	struct first_ix pids = {xmalloc(cap * sizeof(long)), xmalloc(cap * sizeof(size_t)), cap - 1};
	struct first_ix ranks = {xmalloc(cap * sizeof(long)), xmalloc(cap * sizeof(size_t)), cap - 1};
	memset(pids.at, 0xff, cap * sizeof(size_t));
	memset(ranks.at, 0xff, cap * sizeof(size_t));
	for (size_t k = 0; k < r->n; k++)
		first_note_proc(r, &pids, &ranks, k);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < r->nex; i++) {
			struct launcher_exit *e = &r->ex[i];
			if ((pass == 0) != (e->rank >= 0))
				continue; /* block entries (with a rank) first */
			struct rank_proc *t = NULL;
			size_t at = e->pid >= 0 ? first_at(&pids, e->pid) : SIZE_MAX;
			if (at == SIZE_MAX && e->rank >= 0)
				at = first_at(&ranks, e->rank);
			if (at != SIZE_MAX)
				t = &r->v[at];
			size_t n0 = r->n;
			if (!t && e->rank >= 0)
				t = proc_torch(r, e->rank);
			if (!t && r->n < RANKS_MAX_PROCS) {
				t = proc_add(r); /* known by pid only */
				t->pid = e->pid;
			}
			if (t)
				apply_exit(t, e);
			else
				r->untracked++;
			if (t) /* apply_exit may have given it a pid or a rank; or it is new */
				first_note_proc(r, &pids, &ranks, (size_t)(t - r->v));
			for (size_t k = n0; k < r->n; k++)
				first_note_proc(r, &pids, &ranks, k);
		}
	free(pids.key);
	free(pids.at);
	free(ranks.key);
	free(ranks.at);
}

/* Whether an NCCL process (one with a host) has RANK. */
static int nccl_has_rank(const struct ranks *r, int rank)
{
	for (size_t k = 0; k < r->n && rank >= 0; k++)
		if (r->v[k].host && r->v[k].rank == rank)
			return 1;
	return 0;
}

/* Processes known only by pid and ranks known only by number (no NCCL
 * process has it): one of each are the same process by elimination; as
 * many of each (up to 64) are paired ascending pid with ascending rank, the
 * order a launcher starts its local ranks in (flagged as a guess).  The
 * pid-only entries merged away are marked in GONE. */
static void pair_pids_with_ranks(struct ranks *r, int *gone)
{
	size_t npid = 0, nrank = 0, ip = 0, ir = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct rank_proc *p = &r->v[i];
		if (!p->host && p->rank < 0 && p->pid >= 0)
			npid++, ip = i;
		if (!p->host && p->rank >= 0 && p->pid < 0 && !nccl_has_rank(r, p->rank))
			nrank++, ir = i;
	}
	if (npid == 1 && nrank == 1) {
		proc_merge(&r->v[ir], &r->v[ip]);
		gone[ip] = 1;
		return;
	}
	if (!(npid > 1 && npid == nrank && npid <= 64))
		return;
	size_t pi[64], ri[64], a = 0, c = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct rank_proc *p = &r->v[i];
		if (!p->host && p->rank < 0 && p->pid >= 0)
			pi[a++] = i;
		else if (!p->host && p->rank >= 0 && p->pid < 0 && !nccl_has_rank(r, p->rank))
			ri[c++] = i;
	}
	for (size_t x = 1; x < a; x++)
		for (size_t y = x; y > 0 && r->v[pi[y - 1]].pid > r->v[pi[y]].pid; y--) {
			size_t t = pi[y]; pi[y] = pi[y - 1]; pi[y - 1] = t;
		}
	for (size_t x = 1; x < c; x++)
		for (size_t y = x; y > 0 && r->v[ri[y - 1]].rank > r->v[ri[y]].rank; y--) {
			size_t t = ri[y]; ri[y] = ri[y - 1]; ri[y - 1] = t;
		}
	for (size_t x = 0; x < a; x++) {
		proc_merge(&r->v[ri[x]], &r->v[pi[x]]);
		r->v[ri[x]].pid_guessed = 1;
		gone[pi[x]] = 1;
	}
}

/* Torch-only entries (no host) into the NCCL process of the same rank;
 * those merged are marked in GONE. */
static void merge_torch_into_nccl(struct ranks *r, int *gone)
{
	for (size_t i = 0; i < r->n; i++) {
		struct rank_proc *p = &r->v[i];
		if (p->host || p->rank < 0)
			continue;
		for (size_t k = 0; k < r->n; k++)
			if (r->v[k].host && r->v[k].rank == p->rank) {
				proc_merge(&r->v[k], p);
				gone[i] = 1;
				break;
			}
	}
}

/* Drops the processes marked in GONE, keeping the order; MAP[i]: the new
 * index of process i, (size_t)-1 for one dropped. */
static void drop_merged(struct ranks *r, const int *gone, size_t *map)
{
	size_t u = 0;
	for (size_t i = 0; i < r->n; i++) {
		if (gone[i]) {
			proc_free(&r->v[i]);
			map[i] = (size_t)-1;
			continue;
		}
		map[i] = u;
		if (u != i)
			r->v[u] = r->v[i];
		u++;
	}
	r->n = u;
}

/* "[Service thread] Connection closed by localRank N" (INFO) after every
 * other process destroyed its communicators, from a process that then
 * destroyed its own cleanly: the peers exited normally (teardown, not
 * a failure; docs/verdicts.md, benign noise) */
static void clear_teardown_remote_errors(struct ranks *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct rank_proc *p = &r->v[i];
		if (!p->remote_err || p->first_error.path || !p->saw_destroy || !p->host)
			continue;
		int peers_done = 1, peers = 0;
		for (size_t k = 0; k < r->n && peers_done; k++) {
			const struct rank_proc *q = &r->v[k];
			if (k == i || !q->host)
				continue;
			peers++;
			peers_done = q->saw_destroy && q->destroy_order < p->remote_where.order &&
			             !q->first_error.path && !(q->has_exit && q->exitcode != 0);
		}
		if (peers && peers_done) {
			p->remote_err = 0;
			p->remote_peer = -1;
			where_free(&p->remote_where);
		}
	}
}

/* Went silent: open-ended while another rank reports its peer gone (that
 * peer being this one, or not named) and it said nothing after that. */
static void mark_went_silent(struct ranks *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct rank_proc *p = &r->v[i];
		if (!rank_proc_open_ended(p) || !p->last.path)
			continue;
		for (size_t k = 0; k < r->n; k++) {
			const struct rank_proc *q = &r->v[k];
			if (k == i || !q->remote_err)
				continue;
			int same_doc = strcmp(q->remote_where.path, p->last.path) == 0;
			if (same_doc && q->remote_where.order < p->last.order)
				continue; /* it still spoke after the peer error */
			if (q->remote_peer >= 0 && p->rank >= 0 && q->remote_peer != p->rank &&
			    (p->local_rank < 0 || q->remote_peer != p->local_rank))
				continue; /* the peer named is another one */
			p->went_silent = 1;
			break;
		}
	}
}

/* The first failure: a rank that died without a word (its death comes
 * before everything it causes); else the earliest own error line; else
 * torchrun's root cause; else the first that exited with an error. */
static void mark_first_failure(struct ranks *r)
{
	struct rank_proc *first = NULL;
	for (size_t i = 0; i < r->n; i++) {
		struct rank_proc *p = &r->v[i];
		if ((rank_proc_killed(p) || p->went_silent) && !p->first_error.path &&
		    (!first || (p->root_cause && !first->root_cause)))
			first = p;
	}
	for (size_t i = 0; i < r->n; i++) {
		struct rank_proc *p = &r->v[i];
		if (p->first_error.path && (!first || (first->first_error.path && ranks_cmp_first_error(p, first) < 0)))
			first = p;
		else if (p->first_error.path && !first->first_error.path && ranks_cmp_first_error(p, first) < 0 &&
		         !p->remote_err && p->first_error.ts >= 0 && first->exit_where.ts >= 0 &&
		         floor(p->first_error.ts) < floor(first->exit_where.ts))
			first = p; /* an own, non-remote error clearly before the death */
	}
	for (size_t i = 0; i < r->n && !first; i++)
		if (r->v[i].root_cause && r->v[i].has_exit && r->v[i].exitcode != 0)
			first = &r->v[i];
	for (size_t i = 0; i < r->n && !first; i++)
		if (r->v[i].has_exit && r->v[i].exitcode != 0 && r->v[i].exitcode != -15)
			first = &r->v[i];
	if (first)
		first->first_failure = 1;
}

void ranks_finish(struct ranks *r)
{
	if (r->finished)
		return;
	doc_close(r);
	ex_settle(r);
	r->finished = 1;
	for (size_t i = 0; i < r->n; i++)
		where_done(&r->v[i].last);
	where_done(&r->launcher_last);
	ranks_from_comms(r);
	attach_exits(r);
	/* entries that are one process become one; GONE: those merged away */
	size_t *map = xmalloc((r->n + 1) * sizeof *map);
	int *gone = xcalloc(r->n + 1, sizeof *gone);
	pair_pids_with_ranks(r, gone);
	merge_torch_into_nccl(r, gone);
	drop_merged(r, gone, map);
	/* positions moved; no line is noted after finishing: the lookups of
	 * the finished timelines get indexes of their own (after the ranks
	 * are known) */
	hindex_free(&r->tix);
	hindex_free(&r->wix);
	hindex_free(&r->mix);
	hindex_free(&r->pix);
	rank_from_local(r);
	finished_index(r);
	for (size_t c = 0; c < r->ncomms; c++)
		for (size_t k = 0; k < r->comms[c].n; k++)
			r->comms[c].m[k].proc = map[r->comms[c].m[k].proc];
	free(map);
	free(gone);
	clear_teardown_remote_errors(r);
	mark_went_silent(r);
	mark_first_failure(r);
	for (size_t i = 0; i < r->n; i++) {
		r->v[i].last_path = r->v[i].last.path;
		r->v[i].last_line = r->v[i].last.line;
		r->v[i].last_text = r->v[i].last.text;
	}
}

int ranks_cmp_first_error(const struct rank_proc *a, const struct rank_proc *b)
{
	const struct rank_where *x = &a->first_error, *y = &b->first_error;
	if (!x->path || !y->path)
		return x->path ? -1 : y->path ? 1 : 0;
	if (x->ts >= 0 && y->ts >= 0 && floor(x->ts) != floor(y->ts))
		return x->ts < y->ts ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

const struct rank_proc *ranks_proc_at(const struct ranks *r, const char *host, long pid)
{
	if (!r->finished || !host) {
		for (size_t i = 0; i < r->n; i++)
			if (r->v[i].pid == pid && r->v[i].host && host && strcmp(r->v[i].host, host) == 0)
				return &r->v[i];
		return NULL;
	}
	size_t hn = strlen(host);
	uint64_t h = proc_hash(host, hn, pid);
	if (r->pix.nslot)
		for (size_t s = hindex_first(&r->pix, h); r->pix.slot[s]; s = hindex_next(&r->pix, s)) {
			const struct rank_proc *q = &r->v[r->pix.slot[s] - 1];
			if (q->pid == pid && strcmp(q->host, host) == 0)
				return q;
		}
	return NULL;
}

int ranks_lookup(const struct ranks *r, const char *host, long pid)
{
	const struct rank_proc *p = ranks_proc_at(r, host, pid);
	return p ? p->rank : -1;
}

const struct rank_proc *ranks_first_failure(const struct ranks *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].first_failure)
			return &r->v[i];
	return NULL;
}

const struct rank_proc *ranks_by_rank(const struct ranks *r, int rank)
{
	if (!r->finished || rank < 0) {
		for (size_t i = 0; i < r->n; i++)
			if (r->v[i].rank == rank)
				return &r->v[i];
		return NULL;
	}
	if (r->rix.nslot)
		for (size_t s = hindex_first(&r->rix, torch_hash(rank)); r->rix.slot[s]; s = hindex_next(&r->rix, s))
			if (r->v[r->rix.slot[s] - 1].rank == rank)
				return &r->v[r->rix.slot[s] - 1];
	return NULL;
}

int rank_proc_open_ended(const struct rank_proc *p)
{
	return !(p->saw_destroy || p->saw_abort || p->has_exit || p->sigterm_sent || p->first_error.path ||
	         p->saw_exit_line || p->remote_err);
}

int rank_proc_killed(const struct rank_proc *p)
{
	if (!p->has_exit || p->exitcode >= 0 || p->exitcode == -15)
		return 0;
	return !(p->exitcode == -6 && p->first_error.path);
}

const char *rank_proc_milestone(const struct rank_proc *p)
{
	if (p->saw_coll)
		return "collective";
	if (p->saw_init_complete)
		return "init_complete";
	if (p->saw_init_start)
		return "init_start";
	if (p->saw_banner)
		return "banner";
	return "started";
}

const char *ranks_signal_name(int sig)
{
	switch (sig) {
	case 1: return "SIGHUP";
	case 2: return "SIGINT";
	case 3: return "SIGQUIT";
	case 4: return "SIGILL";
	case 6: return "SIGABRT";
	case 7: return "SIGBUS";
	case 8: return "SIGFPE";
	case 9: return "SIGKILL";
	case 11: return "SIGSEGV";
	case 13: return "SIGPIPE";
	case 15: return "SIGTERM";
	default: return NULL;
	}
}

static int cmp_proc(const void *a, const void *b)
{
	const struct rank_proc *x = *(const struct rank_proc *const *)a, *y = *(const struct rank_proc *const *)b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	int c = strcmp(x->host ? x->host : "", y->host ? y->host : "");
	if (c)
		return c;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void where_json(cJSON *o, const char *key, const struct rank_where *w)
{
	if (!w->path)
		return;
	cJSON *l = cJSON_AddObjectToObject(o, key);
	cJSON_AddStringToObject(l, "path", w->path);
	cJSON_AddNumberToObject(l, "line", (double)w->line);
	cJSON_AddStringToObject(l, "text", w->text ? w->text : "");
}

cJSON *ranks_to_json(const struct ranks *r)
{
	const struct rank_proc **sorted = xmalloc((r->n ? r->n : 1) * sizeof *sorted);
	for (size_t i = 0; i < r->n; i++)
		sorted[i] = &r->v[i];
	xqsort(sorted, r->n, sizeof *sorted, cmp_proc);
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < r->n; i++) {
		const struct rank_proc *p = sorted[i];
		cJSON *o = cJSON_CreateObject();
		if (p->rank >= 0)
			cJSON_AddNumberToObject(o, "rank", p->rank);
		else
			cJSON_AddNullToObject(o, "rank"); /* unknown: never -1 */
		if (p->nranks >= 0)
			cJSON_AddNumberToObject(o, "nranks", p->nranks);
		if (p->host)
			cJSON_AddStringToObject(o, "host", p->host);
		else if (p->launcher_host)
			cJSON_AddStringToObject(o, "host", p->launcher_host);
		if (p->pid >= 0)
			cJSON_AddNumberToObject(o, "pid", (double)p->pid);
		if (p->pid_guessed)
			cJSON_AddBoolToObject(o, "pid_from_launch_order", 1);
		if (p->rank_from_local)
			cJSON_AddBoolToObject(o, "rank_from_local_rank", 1);
		if (p->local_rank >= 0)
			cJSON_AddNumberToObject(o, "local_rank", p->local_rank);
		if (p->cuda_dev >= 0)
			cJSON_AddNumberToObject(o, "cuda_dev", p->cuda_dev);
		if (p->bus_id)
			cJSON_AddStringToObject(o, "bus_id", p->bus_id);
		if (p->comm_id)
			cJSON_AddStringToObject(o, "comm_id", p->comm_id);
		if (p->nccl_version)
			cJSON_AddStringToObject(o, "nccl_version", p->nccl_version);
		cJSON_AddStringToObject(o, "last_milestone", rank_proc_milestone(p));
		cJSON *ms = cJSON_AddObjectToObject(o, "milestones");
		cJSON_AddBoolToObject(ms, "banner", p->saw_banner);
		cJSON_AddBoolToObject(ms, "init_start", p->saw_init_start);
		cJSON_AddBoolToObject(ms, "init_complete", p->saw_init_complete);
		cJSON_AddBoolToObject(ms, "collective", p->saw_coll);
		cJSON_AddBoolToObject(ms, "aborted", p->saw_abort);
		cJSON_AddBoolToObject(ms, "destroyed", p->saw_destroy);
		if (p->transport)
			cJSON_AddStringToObject(o, "transport", p->transport);
		if (p->wd_where.path || p->last_enqueued > -2) {
			cJSON *w = cJSON_AddObjectToObject(o, "watchdog");
			if (p->wd_seq >= 0)
				cJSON_AddNumberToObject(w, "seq", (double)p->wd_seq);
			if (p->wd_op)
				cJSON_AddStringToObject(w, "op", p->wd_op);
			if (p->wd_pg_name)
				cJSON_AddStringToObject(w, "process_group", p->wd_pg_name);
			if (p->wd_numel >= 0)
				cJSON_AddNumberToObject(w, "numel", (double)p->wd_numel);
			if (p->last_enqueued > -2)
				cJSON_AddNumberToObject(w, "last_enqueued", (double)p->last_enqueued);
			if (p->last_completed > -2)
				cJSON_AddNumberToObject(w, "last_completed", (double)p->last_completed);
			cJSON_AddBoolToObject(w, "timed_out", p->wd_where.path != NULL);
		}
		if (p->first_error.text)
			cJSON_AddStringToObject(o, "first_error", p->first_error.text);
		where_json(o, "first_error_at", &p->first_error);
		if (p->first_failure)
			cJSON_AddBoolToObject(o, "failed_first", 1);
		if (p->has_exit || p->sigterm_sent) {
			cJSON *e = cJSON_AddObjectToObject(o, "exit");
			if (p->has_exit) {
				cJSON_AddNumberToObject(e, "code", p->exitcode);
				if (p->exitcode < 0) {
					cJSON_AddNumberToObject(e, "signal", -p->exitcode);
					const char *sn = ranks_signal_name(-p->exitcode);
					if (sn)
						cJSON_AddStringToObject(e, "signal_name", sn);
				}
			}
			if (p->root_cause)
				cJSON_AddBoolToObject(e, "launcher_root_cause", 1);
			if (p->sigterm_sent)
				cJSON_AddBoolToObject(e, "sigterm_from_launcher", 1);
		}
		if (p->debug_file)
			cJSON_AddStringToObject(o, "debug_file", p->debug_file);
		where_json(o, "last_line", &p->last);
		cJSON_AddItemToArray(arr, o);
	}
	free(sorted);
	return arr;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return x < y ? -1 : x > y;
}

cJSON *ranks_comms_json(const struct ranks *r)
{
	cJSON *arr = cJSON_CreateArray();
	for (size_t c = 0; c < r->ncomms; c++) {
		const struct rank_comm *cm = &r->comms[c];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "comm_id", cm->id);
		cJSON_AddNumberToObject(o, "nranks", cm->nranks);
		int *seen = xmalloc((cm->n + 1) * sizeof *seen);
		size_t ns = 0, ncomplete = 0;
		for (size_t k = 0; k < cm->n; k++) {
			if (cm->m[k].rank >= 0)
				seen[ns++] = cm->m[k].rank;
			ncomplete += cm->m[k].complete != 0;
		}
		xqsort(seen, ns, sizeof *seen, cmp_int);
		cJSON *s = cJSON_AddArrayToObject(o, "ranks_seen");
		for (size_t k = 0; k < ns; k++)
			if (k == 0 || seen[k] != seen[k - 1])
				cJSON_AddItemToArray(s, cJSON_CreateNumber(seen[k]));
		cJSON_AddNumberToObject(o, "init_complete", (double)ncomplete);
		free(seen);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}
