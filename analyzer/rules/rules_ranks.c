/* rules_ranks.c - fact rules over the rank timelines (ranks.h): who never
 * arrived, who is stuck in init, who was killed and how, whose watchdog
 * sequence number is behind, which ranks disagree on a collective, whose log
 * stops mid-way, and who failed first.  Each finding is one piece of
 * evidence per rank concerned (its rank set, so {ranks} names them), with
 * captures for the diagnoses in patterns/ranks.json. */
#include "rules/rules.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "match/patids.h"
#include "parse/ranks.h"
#include "base/util.h"

static const struct rule_def DEFS[] = {
	{"ranks.stuck_in_init", "a rank reached Init START of a communicator but never Init COMPLETE, with no error of its own"},
	{"ranks.missing_from_comm", "a communicator expects more ranks than ever reached Init START, and none completed init"},
	{"ranks.never_reached_nccl", "the job failed and no process printed a single NCCL line (launcher or rendezvous stage)"},
	{"ranks.killed_by_signal", "the launcher reports a rank ended by a signal other than SIGKILL/SIGTERM/SIGBUS"},
	{"ranks.killed_by_sigbus", "the launcher reports a rank ended by SIGBUS (a shared-memory mapping /dev/shm could not back)"},
	{"ranks.sigkill_oom_killer", "the launcher reports a rank killed by SIGKILL (exit code -9)"},
	{"ranks.sigterm_by_launcher", "the launcher stopped a rank with SIGTERM (after another rank failed)"},
	{"ranks.watchdog_seqnum_behind", "watchdog / flight-recorder sequence numbers differ across ranks: the lowest is behind"},
	{"ranks.collective_mismatch", "ranks timed out in different collectives (op or size) at the same sequence number"},
	{"ranks.log_ends_midway", "a rank's output stops with no error, exit or teardown while the job failed or hung"},
	{"ranks.hang_stopped_outside", "no rank reported an error, and the launcher was stopped by a signal from outside (time limit): a silent hang"},
	{"ranks.died_silently", "a rank's output stops with no error or exit while another rank reports the connection to its peer closed"},
	{"ranks.exited_with_error", "the launcher or a wrapper reports a rank that exited with a non-zero status (not a signal)"},
	{"ranks.launcher_only", "the launcher printed its banner and nothing followed: no rank, no NCCL line, no worker output"},
	{"ranks.job_exit_nonzero", "the job's own exit status record is non-zero, with no rank and no error to tie it to"},
	{"ranks.behind_no_timeout", "some ranks timed out in a collective while another rank printed no timeout and no error: that rank was elsewhere"},
	{"ranks.failed_in_collective", "the job failed with no NCCL output, and a traceback stops inside a c10d collective: the process group existed"},
	{"ranks.timeout_while_busy", "a rank failed in a collective or store wait when another process's progress bar had run for the default 30-minute timeout"},
	{"ranks.same_bus_id", "two ranks of one communicator on one host report the same GPU bus id in their Init lines"},
	{"ranks.worlds_of_one", "several processes each formed a communicator of one rank: every process is rank 0 of its own world"},
	{"ranks.one_hostname", "the launcher placed ranks on different hosts, yet NCCL's lines of those ranks carry one hostname"},
};

/* ---- helpers ---- */

static char *int_str(long v)
{
	return xasprintf("%ld", v);
}

static char *who(const struct rank_proc *p)
{
	if (p->host && p->pid >= 0)
		return xasprintf("%s:%ld", p->host, p->pid);
	if (p->pid >= 0)
		return xasprintf("pid %ld", p->pid);
	return xstrdup("no NCCL output");
}

static struct evidence *emit(struct rule_ctx *rc, const char *id, const struct rank_where *w, int rank,
                             const struct rank_proc *p, struct caplist *cs, const char *fmt, ...) NT_PRINTF(7, 8);

/* The evidence (borrowed, NULL past the per-id cap): a sentence of the
 * rule (kind "derived") unless the caller says it is the line itself. */
static struct evidence *emit(struct rule_ctx *rc, const char *id, const struct rank_where *w, int rank,
                             const struct rank_proc *p, struct caplist *cs, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *stmt = xvasprintf(fmt, ap);
	va_end(ap);
	/* the process's pid, for fix steps that name it ({pid|<pid>}) */
	int has_pid = 0;
	for (size_t i = 0; i < cs->n; i++)
		has_pid |= strcmp(cs->v[i].name, "pid") == 0;
	if (p && p->pid >= 0 && !has_pid)
		caplist_take(cs, "pid", int_str(p->pid));
	struct evidence *e = rule_emit(rc, id, w && w->path ? w->path : rc->name, w ? w->line : 0, stmt,
	                                          cs->n ? cs->v : NULL, cs->n);
	if (e) {
		e->rank = rank;
		if (p && p->host && !e->host)
			e->host = evlist_keep(rc->ev, p->host);
		if (p)
			e->pid = p->pid;
	}
	free(stmt);
	caplist_free(cs);
	return e;
}

/* "3", or "? (local_rank 5, pid 2630)" when the global rank is unknown. */
static char *rank_label(const struct rank_proc *p)
{
	if (p->rank >= 0)
		return int_str(p->rank);
	if (p->local_rank >= 0)
		return xasprintf("? (local_rank %d, pid %ld)", p->local_rank, p->pid);
	return xasprintf("? (pid %ld)", p->pid);
}

/* rank_label in a caller's buffer, for format strings: never "-1". */
static const char *rl(const struct rank_proc *p, char *buf, size_t n)
{
	if (!p)
		snprintf(buf, n, "?");
	else if (p->rank >= 0)
		snprintf(buf, n, "%d", p->rank);
	else if (p->local_rank >= 0)
		snprintf(buf, n, "? (local_rank %d, pid %ld)", p->local_rank, p->pid);
	else if (p->host && p->pid >= 0)
		snprintf(buf, n, "? (%s:%ld)", p->host, p->pid);
	else if (p->pid >= 0)
		snprintf(buf, n, "? (pid %ld)", p->pid);
	else
		snprintf(buf, n, "?");
	return buf;
}

static const char *last_text(const struct rank_proc *p)
{
	return p->last.text ? p->last.text : "(none)";
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return x < y ? -1 : x > y;
}

/* "0, 1, 5" from a sorted list of total entries of which v holds the first
 * n, cut after 32 entries. */
static char *int_list_of(const int *v, size_t n, size_t total)
{
	struct buf s;
	buf_init(&s);
	for (size_t i = 0; i < n && i < 32; i++)
		buf_printf(&s, "%s%d", i ? ", " : "", v[i]);
	if (total > 32)
		buf_printf(&s, ", ... (%zu in all)", total);
	if (!total)
		buf_adds(&s, "none");
	return buf_steal(&s);
}

static char *int_list(const int *v, size_t n)
{
	return int_list_of(v, n, n);
}

static int world_size(const struct ranks *r)
{
	int w = -1;
	for (size_t c = 0; c < r->ncomms; c++)
		if (r->comms[c].nranks > w)
			w = r->comms[c].nranks;
	return w;
}

/* A member is stuck: Init START, no COMPLETE, no error of its own. */
static int member_stuck(const struct ranks *r, const struct rank_member *mb)
{
	const struct rank_proc *p = &r->v[mb->proc];
	return mb->start && !mb->complete && !p->saw_warn && !p->first_error.path && !p->went_silent &&
	       !rank_proc_killed(p) && !p->remote_err;
}

/* ---- rules ---- */

/* Every rank of the communicator that the bundle shows failed on its own
 * connect to a peer (timed out, refused, no route) before init completed:
 * they could not reach the others, so a rank that printed nothing at all
 * may be one they never reached (its log elsewhere), not one that never
 * came.  The socket error is the finding then (nccl-tests#15, NCCL 2.2). */
static int seen_ranks_cannot_connect(const struct ranks *r, const struct rank_comm *cm)
{
	size_t n = 0;
	for (size_t k = 0; k < cm->n; k++) {
		const struct rank_proc *p = &r->v[cm->m[k].proc];
		const char *t = p->first_error.text;
		if (!t || p->saw_init_complete || !strstr(t, "onnect") ||
		    !(strstr(t, " failed") || strstr(t, "timed out") || strstr(t, "refused") || strstr(t, "No route")))
			return 0;
		n++;
	}
	return n > 0;
}

/* Two ranks of one communicator on one host with the same busId: two
 * processes drive one GPU (NCCL <= 2.x says "Duplicate GPU detected" only
 * when init gets that far). */
/* Members of a communicator by (host, busId), then (process, rank), then
 * position: the pairs rule_same_bus looks for lie within one (host, busId). */
struct bus_ref {
	const struct rank_proc *p;
	size_t proc, k;
	int rank;
};

static int cmp_bus_ref(const void *x, const void *y)
{
	const struct bus_ref *a = x, *b = y;
	int c = strcmp(a->p->host, b->p->host);
	if (!c)
		c = strcmp(a->p->bus_id, b->p->bus_id);
	if (!c)
		c = a->proc != b->proc ? (a->proc < b->proc ? -1 : 1) : a->rank != b->rank ? (a->rank < b->rank ? -1 : 1) : 0;
	return c ? c : a->k < b->k ? -1 : a->k > b->k;
}

static int cmp_bus_pos(const void *x, const void *y)
{
	const struct bus_ref *a = x, *b = y;
	return a->k < b->k ? -1 : a->k > b->k;
}

/* The first pair (a, k), a < k, of members on one host with one busId,
 * of two processes and two ranks; 0 when none.  What a scan of all pairs
 * in position order finds, with work in the members, not their square:
 * only the first member of each (process, rank) can be in the first pair,
 * and within one (host, busId) a scan from each such member stops at the
 * first fit (a communicator of 65536 members of one process is one group
 * of one). */
static int same_bus_pair(const struct ranks *r, const struct rank_comm *cm, size_t *pa, size_t *pk, uint64_t *work)
{
	struct bus_ref *v = xmalloc((cm->n + 1) * sizeof *v);
	size_t n = 0;
	for (size_t k = 0; k < cm->n; k++) {
		const struct rank_proc *p = &r->v[cm->m[k].proc];
		if (p->bus_id && p->host)
			v[n++] = (struct bus_ref){p, cm->m[k].proc, k, cm->m[k].rank};
	}
	xqsort(v, n, sizeof *v, cmp_bus_ref);
	int found = 0;
	for (size_t g = 0; g < n;) {
		size_t e = g + 1;
		while (e < n && strcmp(v[e].p->host, v[g].p->host) == 0 && strcmp(v[e].p->bus_id, v[g].p->bus_id) == 0)
			e++;
		size_t u = g, procs = 0; /* the first member of each (process, rank) of the group */
		int rank0 = v[g].rank, two_ranks = 0;
		for (size_t i = g; i < e; i++) {
			if (i == g || v[i].proc != v[u - 1].proc || v[i].rank != v[u - 1].rank) {
				procs += u == g || v[i].proc != v[u - 1].proc;
				two_ranks |= v[i].rank != rank0;
				v[u++] = v[i];
			}
		}
		if (procs < 2 || !two_ranks) {
			g = e; /* one process, or one rank: no pair */
			continue;
		}
		xqsort(v + g, u - g, sizeof *v, cmp_bus_pos);
		uint64_t budget = *work + 16000000; /* a safety bound: the scan stops at the first fit */
		for (size_t a = g; a < u && *work < budget; a++) {
			if (found && v[a].k > *pa)
				break;
			for (size_t k = a + 1; k < u; k++) {
				(*work)++;
				if (v[k].proc == v[a].proc || v[k].rank == v[a].rank)
					continue;
				if (!found || v[a].k < *pa || (v[a].k == *pa && v[k].k < *pk)) {
					*pa = v[a].k;
					*pk = v[k].k;
					found = 1;
				}
				break;
			}
		}
		g = e;
	}
	free(v);
	return found;
}

static void rule_same_bus(struct rule_ctx *rc, const struct ranks *r)
{
	for (size_t c = 0; c < r->ncomms; c++) {
		const struct rank_comm *cm = &r->comms[c];
		size_t a = 0, k = 0;
		if (same_bus_pair(r, cm, &a, &k, &rc->work)) {
			const struct rank_proc *p = &r->v[cm->m[a].proc], *q = &r->v[cm->m[k].proc];
			{
				for (int side = 0; side < 2; side++) {
					const struct rank_member *mb = side ? &cm->m[k] : &cm->m[a];
					const struct rank_proc *me = side ? q : p, *other = side ? p : q;
					struct caplist cs = {0};
					char ob[96];
					caplist_take(&cs, "rank", rank_label(me));
					caplist_take(&cs, "other", xstrdup(rl(other, ob, sizeof ob)));
					caplist_take(&cs, "busid", xstrdup(me->bus_id));
					caplist_take(&cs, "host", xstrdup(me->host));
					caplist_take(&cs, "comm", xstrdup(cm->id));
					char rb[96];
					emit(rc, "ranks.same_bus_id", &mb->start_where, me->rank, me, &cs,
					     "ranks %d and %d of communicator %s (global %s and %s) both report busId %s on host %s "
					     "(cudaDev %d and %d)",
					     cm->m[a].rank, cm->m[k].rank, cm->id, rl(me, rb, sizeof rb), ob, me->bus_id, me->host,
					     p->cuda_dev, q->cuda_dev);
				}
			}
		}
	}
}

/* Several processes, each in communicators of one rank only: the launcher
 * started N copies that never found each other (mpirun of a script that
 * does not read the MPI rank, WORLD_SIZE=1 in each, a launcher the script
 * does not know), so each is rank 0 of a world of 1. */
static void rule_worlds_of_one(struct rule_ctx *rc, const struct ranks *r)
{
	if (r->ncomms == 0)
		return;
	for (size_t c = 0; c < r->ncomms; c++)
		if (r->comms[c].nranks != 1)
			return;
	const struct rank_where *w = NULL;
	for (size_t c = 0; c < r->ncomms && !w; c++)
		for (size_t k = 0; k < r->comms[c].n && !w; k++)
			if (r->v[r->comms[c].m[k].proc].host)
				w = &r->comms[c].m[k].start_where;
	/* distinct processes: one process may open several communicators */
	size_t distinct = 0;
	for (size_t i = 0; i < r->n; i++) {
		int in = 0;
		for (size_t c = 0; c < r->ncomms && !in; c++)
			for (size_t k = 0; k < r->comms[c].n && !in; k++)
				in = r->comms[c].m[k].proc == i;
		distinct += in && r->v[i].host;
	}
	if (distinct < 2 || !w)
		return;
	struct caplist cs = {0};
	caplist_take(&cs, "count", int_str((long)distinct));
	emit(rc, "ranks.worlds_of_one", w, -1, NULL, &cs,
	     "%zu processes each initialised NCCL communicators of one rank (\"rank 0 nranks 1\"): every process is rank 0 "
	     "of its own world", distinct);
}

/* The launcher put ranks on different hosts (its exit records or its
 * failure block name them), but NCCL's lines of those ranks carry one
 * hostname: containers or pods with the same hostname, so NCCL takes them
 * for one node (shared memory, P2P and its host hash across machines). */
static void rule_one_hostname(struct rule_ctx *rc, const struct ranks *r)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct rank_proc *p = &r->v[i];
		if (!p->host || !p->launcher_host || strcmp(p->host, p->launcher_host) == 0)
			continue;
		for (size_t k = i + 1; k < r->n; k++) {
			const struct rank_proc *q = &r->v[k];
			if (!q->host || !q->launcher_host || strcmp(q->host, p->host) != 0 ||
			    strcmp(q->launcher_host, p->launcher_host) == 0)
				continue;
			struct caplist cs = {0};
			char pb[96], qb[96];
			caplist_take(&cs, "host", xstrdup(p->host));
			caplist_take(&cs, "hosts", xasprintf("%s, %s", p->launcher_host, q->launcher_host));
			caplist_take(&cs, "rank", rank_label(p));
			emit(rc, "ranks.one_hostname", &p->exit_where, p->rank, p, &cs,
			     "the launcher ran rank %s on %s and rank %s on %s, yet NCCL's lines of both carry the hostname %s",
			     rl(p, pb, sizeof pb), p->launcher_host, rl(q, qb, sizeof qb), q->launcher_host, p->host);
			return;
		}
	}
}

/* The bundle shows one process only (no other process, no launcher) and it
 * is the one member seen: the log of one process cannot show that the
 * others never joined (their logs are simply not here); ranks.stuck_in_init
 * says what it does show.  With a launcher or another process in view (a
 * real skipped init: fixtures/captures/h200-2gpu-more/init_skip_rank1) the
 * absence is evidence. */
static int one_process_pasted(const struct ranks *r, size_t nseen)
{
	return nseen == 1 && r->n == 1 && !r->saw_launcher; /* no trace of any other process */
}

static void rule_init(struct rule_ctx *rc, const struct ranks *r, int *any_stuck)
{
	int world = world_size(r);
	for (size_t c = 0; c < r->ncomms; c++) {
		const struct rank_comm *cm = &r->comms[c];
		size_t ncomplete = 0;
		for (size_t k = 0; k < cm->n; k++)
			ncomplete += cm->m[k].complete != 0;
		for (size_t k = 0; k < cm->n; k++) {
			const struct rank_member *mb = &cm->m[k];
			if (!member_stuck(r, mb) || cm->nranks < 2)
				continue; /* a communicator of one waits for nobody */
			const struct rank_proc *p = &r->v[mb->proc];
			*any_stuck = 1;
			struct caplist cs = {0};
			caplist_take(&cs, "rank", rank_label(p));
			caplist_take(&cs, "comm", xstrdup(cm->id));
			caplist_take(&cs, "nranks", int_str(cm->nranks));
			caplist_take(&cs, "last", xstrdup(last_text(p)));
			char *w = who(p);
			char rb[96];
			emit(rc, "ranks.stuck_in_init", &mb->start_where, p->rank, p, &cs,
			     "rank %s (%s) reached Init START of communicator %s (rank %d of %d) but never Init COMPLETE%s; its last line: %s",
			     rl(p, rb, sizeof rb), w, cm->id, mb->rank, cm->nranks,
			     ncomplete ? " although other ranks completed" : "", last_text(p));
			free(w);
		}
		/* missing ranks: nobody completed, fewer joined than nranks.  Work
		 * in the ranks seen, not in nranks (an Init line may claim a
		 * million): sort them, walk the gaps for the first missing ones */
		if (ncomplete || cm->nranks <= 0 || cm->nranks > RANKS_MAX_NRANKS)
			continue;
		int *have = xmalloc((cm->n + 1) * sizeof *have);
		size_t nh = 0;
		const struct rank_where *where = NULL;
		for (size_t k = 0; k < cm->n; k++) {
			int rk = cm->m[k].rank;
			if (rk >= 0 && rk < cm->nranks)
				have[nh++] = rk;
			if (!where && cm->m[k].start_where.path)
				where = &cm->m[k].start_where;
		}
		xqsort(have, nh, sizeof *have, cmp_int);
		rc->work += cm->n + nh;
		size_t u = 0;
		for (size_t k = 0; k < nh; k++)
			if (!u || have[k] != have[u - 1])
				have[u++] = have[k];
		nh = u;
		if (nh == 0 || nh >= (size_t)cm->nranks || one_process_pasted(r, nh)) {
			free(have);
			continue;
		}
		int unreachable = seen_ranks_cannot_connect(r, cm);
		size_t nm = (size_t)cm->nranks - nh; /* missing, of which the first 64 are listed */
		int miss[64];
		size_t nlist = 0;
		for (int i = 0, k = 0; i < cm->nranks && nlist < 64; i++, rc->work++) {
			if ((size_t)k < nh && have[k] == i)
				k++;
			else
				miss[nlist++] = i;
		}
		char *ml = int_list_of(miss, nlist, nm), *hl = int_list(have, nh);
		int global = cm->nranks == world;
		for (size_t i = 0; i < nlist; i++) {
			const struct rank_proc *mp = global ? ranks_by_rank(r, miss[i]) : NULL;
			if (unreachable && !mp)
				continue; /* no line from it, and the others could not connect to a peer */
			struct caplist cs = {0};
			caplist_take(&cs, "missing", xstrdup(ml));
			caplist_take(&cs, "seen", xstrdup(hl));
			caplist_take(&cs, "nranks", int_str(cm->nranks));
			caplist_take(&cs, "comm", xstrdup(cm->id));
			caplist_take(&cs, "rank", int_str(miss[i]));
			if (mp && mp->last.text)
				caplist_take(&cs, "missing_last", xstrdup(mp->last.text));
			emit(rc, "ranks.missing_from_comm", where, global ? miss[i] : -1, mp, &cs,
			     "communicator %s expects %d ranks; only rank%s %s reached Init START; rank %d never did%s%s",
			     cm->id, cm->nranks, nh == 1 ? "" : "s", hl, miss[i],
			     mp && mp->last.text ? " (its last line: " : " (no NCCL line from it at all",
			     mp && mp->last.text ? mp->last.text : "");
		}
		free(ml);
		free(hl);
		free(have);
	}
}

/* uid waits by root, then line order; groups by their first wait */
struct uid_ref {
	int root;
	size_t i;
};

static int cmp_uid(const void *a, const void *b)
{
	const struct uid_ref *x = a, *y = b;
	return x->root != y->root ? (x->root < y->root ? -1 : 1) : x->i < y->i ? -1 : x->i > y->i;
}

static int cmp_first(const void *a, const void *b)
{
	size_t x = ((const size_t *)a)[0], y = ((const size_t *)b)[0];
	return x < y ? -1 : x > y;
}

/* "[1] is setting up NCCL communicator and retrieving ncclUniqueId from [0]
 * ... got error": the root never published the id (never arrived). */
static void rule_uid_wait(struct rule_ctx *rc, const struct ranks *r)
{
	if (!r->nuid)
		return;
	/* the waits grouped by root (sorted once: the waits are distinct
	 * (waiter, root) pairs, ranks.c), each root reported at its first wait */
	struct uid_ref *ix = xmalloc(r->nuid * sizeof *ix);
	size_t (*grp)[3] = xmalloc(r->nuid * sizeof *grp), ng = 0;
	for (size_t i = 0; i < r->nuid; i++)
		ix[i] = (struct uid_ref){r->uid[i].root, i};
	xqsort(ix, r->nuid, sizeof *ix, cmp_uid);
	for (size_t i = 0; i < r->nuid; i++) {
		if (i && ix[i].root == ix[i - 1].root) {
			grp[ng - 1][2]++;
			continue;
		}
		grp[ng][0] = ix[i].i; /* the first wait for this root */
		grp[ng][1] = i;
		grp[ng][2] = 1;
		ng++;
	}
	xqsort(grp, ng, sizeof *grp, cmp_first);
	rc->work += r->nuid + ng;
	int known = 0;
	for (size_t k = 0; k < r->n; k++)
		if (r->v[k].rank + 1 > known)
			known = r->v[k].rank + 1;
	int world = world_size(r);
	int *wait = xmalloc((r->nuid + 1) * sizeof *wait);
	for (size_t g = 0; g < ng; g++) {
		const struct uid_wait *w = &r->uid[grp[g][0]];
		size_t nw = 0;
		for (size_t k = grp[g][1]; k < grp[g][1] + grp[g][2]; k++)
			wait[nw++] = r->uid[ix[k].i].waiter;
		xqsort(wait, nw, sizeof *wait, cmp_int);
		char *wl = int_list(wait, nw);
		const struct rank_proc *mp = ranks_by_rank(r, w->root);
		struct caplist cs = {0};
		caplist_take(&cs, "missing", int_str(w->root));
		caplist_take(&cs, "seen", xstrdup(wl));
		int kn = w->root + 1 > known ? w->root + 1 : known;
		caplist_take(&cs, "nranks", int_str(world > kn ? world : kn));
		caplist_take(&cs, "comm", xstrdup("(ncclUniqueId exchange through the c10d store)"));
		caplist_take(&cs, "rank", int_str(w->root));
		if (mp && mp->last.text)
			caplist_take(&cs, "missing_last", xstrdup(mp->last.text));
		emit(rc, "ranks.missing_from_comm", &w->where, w->root, mp, &cs,
		     "rank%s %s waited for the ncclUniqueId that rank %d publishes in the c10d store and never got it: rank %d never reached NCCL init%s%s%s",
		     nw == 1 ? "" : "s", wl, w->root, w->root, mp && mp->last.text ? " (its last line: " : "",
		     mp && mp->last.text ? mp->last.text : "", mp && mp->last.text ? ")" : "");
		free(wl);
	}
	free(wait);
	free(grp);
	free(ix);
}

static void rule_silent(struct rule_ctx *rc, const struct ranks *r)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct rank_proc *p = &r->v[i];
		if (!p->went_silent)
			continue;
		const struct rank_proc *q = NULL;
		for (size_t k = 0; k < r->n && !q; k++)
			if (k != i && r->v[k].remote_err)
				q = &r->v[k];
		struct caplist cs = {0};
		caplist_take(&cs, "rank", rank_label(p));
		caplist_take(&cs, "milestone", xstrdup(rank_proc_milestone(p)));
		caplist_take(&cs, "last", xstrdup(last_text(p)));
		caplist_take(&cs, "other", q ? rank_label(q) : xstrdup("?"));
		caplist_take(&cs, "remote", xstrdup(q && q->remote_where.text ? q->remote_where.text : "?"));
		char *w = who(p);
		char rb[96], qb[96];
		emit(rc, "ranks.died_silently", &p->last, p->rank, p, &cs,
		     "rank %s (%s) stops after %s with no error, exit or teardown, while rank %s reports: %s; last line of rank %s: %s",
		     rl(p, rb, sizeof rb), w, rank_proc_milestone(p), rl(q, qb, sizeof qb),
		     q && q->remote_where.text ? q->remote_where.text : "?", rb, last_text(p));
		free(w);
	}
}

static void rule_hang(struct rule_ctx *rc, const struct ranks *r, int any_stuck)
{
	if (!r->launcher_signalled || any_stuck)
		return;
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].first_error.path || rank_proc_killed(&r->v[i]) || r->v[i].went_silent || r->v[i].remote_err)
			return;
	for (size_t i = 0; i < r->n; i++) {
		const struct rank_proc *p = &r->v[i];
		struct caplist cs = {0};
		caplist_take(&cs, "rank", rank_label(p));
		caplist_take(&cs, "milestone", xstrdup(rank_proc_milestone(p)));
		caplist_take(&cs, "last", xstrdup(last_text(p)));
		char rb[96];
		emit(rc, "ranks.hang_stopped_outside", &p->last, p->rank, p, &cs,
		     "rank %s reached %s and printed no error; its last line: %s", rl(p, rb, sizeof rb), rank_proc_milestone(p),
		     last_text(p));
	}
}

static int bundle_failed(const struct rule_ctx *rc, const struct ranks *r)
{
	if (rc->failure_count)
		return 1;
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].first_error.path || (r->v[i].has_exit && r->v[i].exitcode != 0))
			return 1;
	return r->saw_child_failed;
}

/* The first failure line, else the first exit record: what the job's
 * failure looks like, for the rules that have no line of their own. */
static const char *first_failure_text(const struct rule_ctx *rc, const struct ranks *r, struct rank_where *w)
{
	memset(w, 0, sizeof *w);
	w->ts = -1;
	if (rc->nfailures) {
		w->path = rc->failures[0].path;
		w->line = rc->failures[0].line;
		return rc->failures[0].text;
	}
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].exit_where.path) {
			*w = r->v[i].exit_where;
			return r->v[i].exit_where.text;
		}
	return "a failure";
}

/* A failure line that says what went wrong and is no launcher's wrapper of
 * a worker's end: an exception of the program (not ChildFailedError, not
 * spawn's ProcessRaisedException/ProcessExitedException or their old plain
 * "Exception: process N terminated"), or a crash. */
static int explicit_failure(const struct failure_line *f)
{
	if (!f->what || !f->text)
		return 0;
	/* a crash, or a component's own error line (srun/slurmstepd, UCX, HAMi-core,
	 * NCCLCHECK: bundle.c's component_error), says what failed by itself */
	if (strcmp(f->what, "crash") == 0 || strcmp(f->what, "component_error") == 0)
		return 1;
	if (strcmp(f->what, "exception") != 0)
		return 0;
	static const char *const wrappers[] = {"ChildFailedError", "ProcessRaisedException", "ProcessExitedException",
	                                       "SignalException", " terminated with ", NULL};
	for (size_t i = 0; wrappers[i]; i++)
		if (strstr(f->text, wrappers[i]))
			return 0;
	const char *colon = strchr(f->text, ':');
	return colon && colon[1] && colon[strspn(colon + 1, " ") + 1]; /* a message after the type */
}

/* The words of a rendezvous failure (the store, the master's address and
 * port, a connection, a timeout): an explicit failure without any of them
 * says something else went wrong. */
static int rendezvous_words(const char *t)
{
	static const char *const w[] = {"ddress", "socket", "Socket", "port", "store", "Store", "endezvous", "onnect",
	                                "timed out", "imeout", "MASTER_", "hostname", "resolve", "refused", "unreachable",
	                                "EADDRINUSE", "errno: 98", "bind", "DistNetworkError", NULL};
	for (size_t i = 0; w[i]; i++)
		if (strstr(t, w[i]))
			return 1;
	return 0;
}

/* No NCCL line anywhere, and the job failed.  The premise of "never reached
 * NCCL" is checked against the stack traces: libnccl in a native backtrace
 * (saw_nccl_text) means NCCL ran; a traceback inside a c10d collective means
 * the process group existed (the rendezvous was over) and the failure came
 * from the collective: ranks.failed_in_collective instead; an explicit
 * failure of the program that names no rendezvous word: nothing. */
static void rule_never_reached(struct rule_ctx *rc, const struct ranks *r)
{
	if (r->nccl_lines || r->saw_watchdog || rc->saw_nccl || r->saw_nccl_text)
		return;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(rc->facts, "nccl_versions");
	if (cJSON_IsArray(v) && cJSON_GetArraySize(v) > 0)
		return;
	if (!bundle_failed(rc, r))
		return;
	int exited = 0;
	for (size_t i = 0; i < r->n; i++) {
		if (rank_proc_killed(&r->v[i]) || r->v[i].saw_coll)
			return; /* a death explains it; NCCL may just have been silent */
		exited |= r->v[i].has_exit && r->v[i].exitcode > 0;
	}
	if (exited && !r->coll_call.path)
		return; /* a rank's own failing exit explains it (its traceback, if any, is its cause) */
	struct rank_where w;
	const char *what = first_failure_text(rc, r, &w);
	/* an explicit failure that names no rendezvous word: the program failed
	 * by itself (CUDA out of memory, a ValueError, a segfault); "before
	 * NCCL, so rendezvous" has nothing to stand on */
	for (size_t i = 0; i < rc->nfailures && !r->coll_call.path; i++)
		if (explicit_failure(&rc->failures[i])) {
			if (!rendezvous_words(rc->failures[i].text))
				return;
			break;
		}
	struct caplist cs = {0};
	caplist_take(&cs, "what", xstrdup(what ? what : "a failure"));
	if (r->coll_call.path) {
		caplist_take(&cs, "op", xstrdup(r->coll_call_op));
		caplist_take(&cs, "call", xstrdup(r->coll_call.text ? r->coll_call.text : ""));
		caplist_take(&cs, "where", xasprintf("%s:%llu", r->coll_call.path, (unsigned long long)r->coll_call.line));
		emit(rc, "ranks.failed_in_collective", &r->coll_call, r->coll_call_rank, NULL, &cs,
		     "no process printed any NCCL line, and the failing traceback stops inside the collective %s (%s:%llu: %s): "
		     "the process group existed, so the rendezvous was over",
		     r->coll_call_op, r->coll_call.path, (unsigned long long)r->coll_call.line,
		     r->coll_call.text ? r->coll_call.text : "");
		return;
	}
	emit(rc, "ranks.never_reached_nccl", &w, -1, NULL, &cs,
	     "no process printed any NCCL line (no banner, no Init START), yet the job failed: %s", what ? what : "");
}

/* A progress bar of a long step (datasets map, tokenizing) had run for the
 * default 30-minute timeout when a rank failed in a collective or in a store
 * wait: the other ranks waited for the process that was busy and gave up at
 * the timeout (a slow rank, not a fault).  The busy process is the main one
 * (rank 0) when the traceback goes through transformers' main_process_first
 * or the failing lines are another rank's. */
static void rule_busy_timeout(struct rule_ctx *rc, const struct ranks *r)
{
	/* torch's default process-group (and store) timeout: 30 minutes */
	if (r->progress_elapsed < 29 * 60 || r->progress_elapsed > 31 * 60 || !bundle_failed(rc, r))
		return;
	int waiter = r->coll_call_rank;
	for (size_t i = 0; i < r->n && waiter < 0; i++)
		if (r->v[i].rank >= 0 && r->v[i].first_error.path)
			waiter = r->v[i].rank;
	int slow = r->coll_call_main_first || waiter > 0 ? 0 : -1;
	struct caplist cs = {0};
	caplist_take(&cs, "elapsed", xasprintf("%ld:%02ld", r->progress_elapsed / 60, r->progress_elapsed % 60));
	caplist_take(&cs, "progress", xstrdup(r->progress_where.text ? r->progress_where.text : ""));
	caplist_take(&cs, "rank", slow >= 0 ? int_str(slow) : xstrdup("(the process printing the progress bar)"));
	caplist_take(&cs, "op", xstrdup(r->coll_call_op ? r->coll_call_op : "a collective or store wait"));
	emit(rc, "ranks.timeout_while_busy", &r->progress_where, slow, NULL, &cs,
	     "a progress bar had run for %ld:%02ld (the default timeout is 30:00) when the job failed%s%s: %s",
	     r->progress_elapsed / 60, r->progress_elapsed % 60, r->coll_call_op ? " in " : "",
	     r->coll_call_op ? r->coll_call_op : "", r->progress_where.text ? r->progress_where.text : "");
}

static void rule_exits(struct rule_ctx *rc, const struct ranks *r)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct rank_proc *p = &r->v[i];
		int sig = p->has_exit && p->exitcode < 0 ? -p->exitcode : 0;
		if (sig == 15 || (p->sigterm_sent && (!p->has_exit || p->exitcode == -15 || p->exitcode == 0))) {
			struct caplist cs = {0};
			char *lbl = rank_label(p);
			caplist_take(&cs, "rank", xstrdup(lbl));
			emit(rc, "ranks.sigterm_by_launcher", &p->exit_where, p->rank, p, &cs,
			     "rank %s was stopped by the launcher with SIGTERM", lbl);
			free(lbl);
			continue;
		}
		if (!sig)
			continue;
		const char *sn = ranks_signal_name(sig);
		char sbuf[24];
		if (!sn) {
			snprintf(sbuf, sizeof sbuf, "signal %d", sig);
			sn = sbuf;
		}
		/* SIGABRT after an error of its own is the teardown of that error */
		if (sig == 6 && p->first_error.path)
			continue;
		struct caplist cs = {0};
		char *lbl = rank_label(p);
		caplist_take(&cs, "rank", xstrdup(lbl));
		caplist_take(&cs, "signal", int_str(sig));
		caplist_take(&cs, "signame", xstrdup(sn));
		caplist_take(&cs, "pid", int_str(p->pid));
		if (p->launcher_host || p->host)
			caplist_take(&cs, "host", xstrdup(p->launcher_host ? p->launcher_host : p->host));
		caplist_take(&cs, "milestone", xstrdup(rank_proc_milestone(p)));
		/* SIGBUS: a shared-memory mapping that could not be backed (/dev/shm) */
		const char *id = sig == 9 ? "ranks.sigkill_oom_killer" : sig == 7 ? "ranks.killed_by_sigbus" : "ranks.killed_by_signal";
		emit(rc, id, &p->exit_where, p->rank, p, &cs,
		     "rank %s was killed by %s (exit code %d)%s; it had reached %s",
		     lbl, sn, p->exitcode, p->root_cause ? ", the launcher's first observed failure" : "",
		     rank_proc_milestone(p));
		free(lbl);
	}
}

/* A signature matched the line at w: it is shown verbatim there. */
static int line_is_evidence(const struct rule_ctx *rc, const struct rank_where *w)
{
	for (size_t i = 0; i < rc->ev->n; i++) {
		const struct evidence *e = &rc->ev->v[i];
		if (!e->derived && e->line == w->line && e->path && strcmp(e->path, w->path) == 0)
			return 1;
	}
	return 0;
}

/* A rank that exited with a non-zero status of its own (not a signal):
 * the launcher's record, and its own first error line when it printed
 * one (its traceback).  The others' errors are its echoes (cascade.c). */
static void rule_exited(struct rule_ctx *rc, const struct ranks *r)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct rank_proc *p = &r->v[i];
		if (!p->has_exit || p->exitcode <= 0)
			continue;
		char *lbl = rank_label(p);
		const char *own = p->first_error.text && !p->remote_err ? p->first_error.text : NULL;
		for (int k = 0; k < 2; k++) {
			const struct rank_where *w = k == 0 ? &p->exit_where : &p->first_error;
			if (!w->path || (k == 1 && !own))
				continue;
			struct caplist cs = {0};
			caplist_take(&cs, "rank", xstrdup(lbl));
			caplist_take(&cs, "code", int_str(p->exitcode));
			caplist_take(&cs, "milestone", xstrdup(rank_proc_milestone(p)));
			caplist_take(&cs, "own_error", xstrdup(own ? own : "no error line of its own in these logs"));
			if (k == 0)
				emit(rc, "ranks.exited_with_error", w, p->rank, p, &cs,
				     "rank %s exited with status %d after reaching %s%s%s", lbl, p->exitcode,
				     rank_proc_milestone(p), own ? "; its own error: " : " (no error line of its own here)",
				     own ? own : "");
			else if (!line_is_evidence(rc, w))
				emit(rc, "ranks.exited_with_error", w, p->rank, p, &cs, "%s", own);
			else
				caplist_free(&cs); /* a signature shows that line verbatim; the sentence above quotes it */
		}
		free(lbl);
	}
}

/* torchrun's banner and nothing else: the workers never printed a line (the
 * rendezvous did not complete, or the whole output is missing). */
static void rule_launcher_only(struct rule_ctx *rc, const struct ranks *r)
{
	if (!r->launcher_quiet || r->launcher_followed || r->n || r->nccl_lines || rc->failure_count || rc->saw_nccl ||
	    r->saw_child_failed || r->job_exit == 0 || !r->launcher_last.path)
		return;
	struct caplist cs = {0};
	char *end;
	if (r->job_exit > 128 && r->job_exit < 128 + 65)
		end = xasprintf("the job's exit record says %d: killed by %s from outside", r->job_exit,
		                ranks_signal_name(r->job_exit - 128) ? ranks_signal_name(r->job_exit - 128) : "a signal");
	else if (r->job_exit == 124)
		end = xstrdup("the job's exit record says 124: stopped by a time limit");
	else if (r->job_exit > 0)
		end = xasprintf("the job's exit record says %d", r->job_exit);
	else if (r->launcher_signalled)
		end = xstrdup("the launcher was stopped from outside");
	else
		end = xstrdup("no exit record");
	caplist_take(&cs, "end", xstrdup(end));
	caplist_take(&cs, "last", xstrdup(r->launcher_last.text ? r->launcher_last.text : ""));
	emit(rc, "ranks.launcher_only", &r->launcher_last, -1, NULL, &cs,
	     "the launcher printed its banner and nothing followed (no worker line, no NCCL line); %s", end);
	free(end);
}

/* A wrapper's exit record says the job failed, and nothing else ties it to
 * a rank or an error line. */
static void rule_job_exit(struct rule_ctx *rc, const struct ranks *r)
{
	if (r->job_exit <= 0 || r->job_exit == 124 || !r->job_exit_where.path)
		return;
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].first_error.path || (r->v[i].has_exit && r->v[i].exitcode != 0))
			return;
	if (rc->failure_count || (r->launcher_quiet && !r->launcher_followed && !r->n))
		return;
	struct caplist cs = {0};
	caplist_take(&cs, "code", int_str(r->job_exit));
	int sig = r->job_exit > 128 && r->job_exit < 128 + 65 ? r->job_exit - 128 : 0;
	caplist_take(&cs, "how", sig ? xasprintf("killed by %s", ranks_signal_name(sig) ? ranks_signal_name(sig) : "a signal")
	                    : xstrdup("a non-zero status"));
	emit(rc, "ranks.job_exit_nonzero", &r->job_exit_where, -1, NULL, &cs,
	     "the job's exit record is %d (%s) and no line of the log says why", r->job_exit,
	     sig ? "killed by a signal" : "failed");
}

/* Highest SeqNum rank p reached in process group pg (-1: no PG prefix);
 * -2 unknown. */
static long enqueued(const struct rank_proc *p, int pg)
{
	long e = -2;
	for (size_t i = 0; i < p->npgs; i++)
		if (p->pgs[i].pg == pg && p->pgs[i].enq > e)
			e = p->pgs[i].enq;
	if (p->wd_where.path && p->wd_seq >= 0 && p->wd_pg == pg && p->wd_seq > e)
		e = p->wd_seq;
	return e;
}

static void rule_behind_pg(struct rule_ctx *rc, const struct ranks *r, int pg)
{
	int timed_out = 0;
	long maxe = -2, mine = 0x7fffffff;
	size_t nknown = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct rank_proc *p = &r->v[i];
		long e = enqueued(p, pg);
		if (e < -1 || p->rank < 0)
			continue;
		timed_out |= p->wd_where.path && p->wd_pg == pg;
		nknown++;
		if (e > maxe)
			maxe = e;
		if (e < mine)
			mine = e;
	}
	if (!timed_out || nknown < 2 || mine >= maxe)
		return;
	int *ahead = xmalloc(r->n * sizeof *ahead);
	size_t na = 0;
	const char *op = NULL;
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].rank >= 0 && enqueued(&r->v[i], pg) == maxe) {
			ahead[na++] = r->v[i].rank;
			if (!op && r->v[i].wd_op && r->v[i].wd_seq == maxe)
				op = r->v[i].wd_op;
		}
	xqsort(ahead, na, sizeof *ahead, cmp_int);
	char *al = int_list(ahead, na);
	for (size_t i = 0; i < r->n; i++) {
		const struct rank_proc *p = &r->v[i];
		long e = enqueued(p, pg);
		if (e < -1 || p->rank < 0 || e >= maxe)
			continue;
		struct caplist cs = {0};
		caplist_take(&cs, "rank", rank_label(p));
		caplist_take(&cs, "seq", int_str(e));
		caplist_take(&cs, "ahead_seq", int_str(maxe));
		caplist_take(&cs, "ahead", xstrdup(al));
		caplist_take(&cs, "op", xstrdup(op ? op : "collective"));
		caplist_take(&cs, "pg", pg >= 0 ? int_str(pg) : xstrdup("default"));
		const struct rank_where *w = p->enq_where.path ? &p->enq_where : p->wd_where.path ? &p->wd_where : &p->last;
		emit(rc, "ranks.watchdog_seqnum_behind", w, p->rank, p, &cs,
		     "rank %d enqueued collectives only up to SeqNum %ld while rank%s %s reached SeqNum %ld (%s)",
		     p->rank, e, na == 1 ? "" : "s", al, maxe, op ? op : "collective");
	}
	free(al);
	free(ahead);
}

/* Ranks timed out in a collective (watchdog) while another rank of the job
 * printed no timeout, no error, no flight-recorder counters and was not
 * killed: it never reached the collective (busy elsewhere: data loading,
 * checkpointing, a different code path).  The rank that is behind, not the
 * ones that waited. */
static void rule_behind_silent(struct rule_ctx *rc, const struct ranks *r)
{
	const struct rank_proc *w = NULL;
	int *waiters = xmalloc((r->n + 1) * sizeof *waiters);
	size_t nw = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct rank_proc *p = &r->v[i];
		if (p->wd_where.path && p->rank >= 0) {
			if (!w)
				w = p;
			waiters[nw++] = p->rank;
		}
	}
	if (!w) {
		free(waiters);
		return;
	}
	xqsort(waiters, nw, sizeof *waiters, cmp_int);
	char *wl = int_list(waiters, nw);
	for (size_t i = 0; i < r->n; i++) {
		const struct rank_proc *p = &r->v[i];
		if (p->rank < 0 || p->wd_where.path || p->npgs || p->remote_err || !p->last.path)
			continue;
		if (p->first_error.path || rank_proc_killed(p) || (p->has_exit && p->exitcode > 0))
			continue; /* it failed by itself: another finding says so */
		if (w->nranks > 0 && p->rank >= w->nranks)
			continue;
		struct caplist cs = {0};
		char rb[96];
		caplist_take(&cs, "rank", rank_label(p));
		caplist_take(&cs, "ahead", xstrdup(wl));
		caplist_take(&cs, "op", xstrdup(w->wd_op ? w->wd_op : "a collective"));
		caplist_take(&cs, "ahead_seq", w->wd_seq >= 0 ? int_str(w->wd_seq) : xstrdup("?"));
		caplist_take(&cs, "last", xstrdup(last_text(p)));
		emit(rc, "ranks.behind_no_timeout", &p->last, p->rank, p, &cs,
		     "rank%s %s timed out waiting in %s (SeqNum %ld) while rank %s printed no timeout and no error; its last line: %s",
		     nw == 1 ? "" : "s", wl, w->wd_op ? w->wd_op : "a collective", w->wd_seq, rl(p, rb, sizeof rb),
		     last_text(p));
	}
	free(wl);
	free(waiters);
}

static void rule_watchdog(struct rule_ctx *rc, const struct ranks *r)
{
	rule_behind_silent(rc, r);
	int pgs[64];
	size_t npg = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct rank_proc *p = &r->v[i];
		if (!p->wd_where.path)
			continue;
		int seen = 0;
		for (size_t k = 0; k < npg; k++)
			seen |= pgs[k] == p->wd_pg;
		if (!seen && npg < 64)
			pgs[npg++] = p->wd_pg;
	}
	for (size_t k = 0; k < npg; k++)
		rule_behind_pg(rc, r, pgs[k]);
	/* same SeqNum, different collective; or waiting in different process groups */
	for (size_t i = 0; i < r->n; i++) {
		const struct rank_proc *p = &r->v[i];
		if (!p->wd_where.path || p->wd_seq < 0 || !p->wd_op)
			continue;
		for (size_t k = 0; k < r->n; k++) {
			const struct rank_proc *q = &r->v[k];
			if (k == i || !q->wd_where.path || q->wd_seq < 0 || !q->wd_op)
				continue;
			int pg_diff = p->wd_pg >= 0 && q->wd_pg >= 0 && p->wd_pg != q->wd_pg;
			if (!pg_diff && (q->wd_seq != p->wd_seq || p->wd_pg != q->wd_pg))
				continue;
			int op_diff = !pg_diff && strcmp(p->wd_op, q->wd_op) != 0 &&
			              !((strcmp(p->wd_op, "SEND") == 0 && strcmp(q->wd_op, "RECV") == 0) ||
			                (strcmp(p->wd_op, "RECV") == 0 && strcmp(q->wd_op, "SEND") == 0));
			static const char *const fixed[] = {"ALLREDUCE", "BROADCAST", "REDUCE", "ALLGATHER", "_ALLGATHER_BASE",
			                                    "REDUCE_SCATTER", "_REDUCE_SCATTER_BASE", "BARRIER", NULL};
			int is_fixed = 0;
			for (size_t f = 0; fixed[f]; f++)
				is_fixed |= strcmp(p->wd_op, fixed[f]) == 0;
			int size_diff = !pg_diff && !op_diff && is_fixed && p->wd_numel >= 0 && q->wd_numel >= 0 &&
			                p->wd_numel != q->wd_numel;
			if (!op_diff && !size_diff && !pg_diff)
				continue;
			struct caplist cs = {0};
			caplist_take(&cs, "rank", rank_label(p));
			caplist_take(&cs, "seq", int_str(p->wd_seq));
			caplist_take(&cs, "op", xstrdup(p->wd_op));
			caplist_take(&cs, "other_rank", int_str(q->rank));
			caplist_take(&cs, "other_op", xstrdup(q->wd_op));
			if (pg_diff)
				caplist_take(&cs, "detail", xasprintf("rank %d waits in process group %s (SeqNum %ld, %s) while rank %d waits in process group %s (SeqNum %ld, %s)",
				                             p->rank, p->wd_pg_name ? p->wd_pg_name : "?", p->wd_seq, p->wd_op, q->rank,
				                             q->wd_pg_name ? q->wd_pg_name : "?", q->wd_seq, q->wd_op));
			else
				caplist_take(&cs, "detail", xasprintf("rank %d: %s NumelIn=%ld; rank %d: %s NumelIn=%ld", p->rank, p->wd_op,
				                             p->wd_numel, q->rank, q->wd_op, q->wd_numel));
			emit(rc, "ranks.collective_mismatch", &p->wd_where, p->rank, p, &cs,
			     "rank %d timed out in %s SeqNum %ld (NumelIn=%ld%s%s) while rank %d timed out in %s SeqNum %ld (NumelIn=%ld%s%s)",
			     p->rank, p->wd_op, p->wd_seq, p->wd_numel, p->wd_pg_name ? ", process group " : "",
			     p->wd_pg_name ? p->wd_pg_name : "", q->rank, q->wd_op, q->wd_seq, q->wd_numel,
			     q->wd_pg_name ? ", process group " : "", q->wd_pg_name ? q->wd_pg_name : "");
			break;
		}
	}
}

static void rule_midway(struct rule_ctx *rc, const struct ranks *r, int any_stuck)
{
	if (!any_stuck && !bundle_failed(rc, r))
		return;
	if (r->saw_child_failed)
		return; /* the launcher saw every worker end */
	for (size_t i = 0; i < r->n; i++) {
		const struct rank_proc *p = &r->v[i];
		if (!rank_proc_open_ended(p) || p->went_silent || !p->last.path)
			continue;
		struct caplist cs = {0};
		caplist_take(&cs, "rank", rank_label(p));
		caplist_take(&cs, "last", xstrdup(last_text(p)));
		caplist_take(&cs, "milestone", xstrdup(rank_proc_milestone(p)));
		char *w = who(p);
		char rb[96];
		emit(rc, "ranks.log_ends_midway", &p->last, p->rank, p, &cs,
		     "rank %s (%s) stops after %s with no error, exit or teardown; its last line: %s", rl(p, rb, sizeof rb), w,
		     rank_proc_milestone(p), last_text(p));
		free(w);
	}
}

/* When exactly one rank failed by itself (a non-zero exit other than the
 * launcher's SIGTERM, or the only rank with its own error) and the others
 * were only stopped, the failure lines that carry no rank (unprefixed
 * tracebacks in a combined log) are that rank's. */
static void attribute_orphans(struct rule_ctx *rc, const struct ranks *r)
{
	const struct rank_proc *alone = NULL;
	for (size_t i = 0; i < r->n; i++) {
		const struct rank_proc *p = &r->v[i];
		int failed = (p->has_exit && p->exitcode != 0 && p->exitcode != -15) ||
		             (p->first_error.path && !(p->has_exit && p->exitcode == -15) && !p->remote_err);
		if (!failed)
			continue;
		if (alone)
			return; /* several: no guessing */
		alone = p;
	}
	if (!alone || alone->rank < 0)
		return;
	for (size_t i = 0; i < rc->ev->n; i++) {
		struct evidence *e = &rc->ev->v[i];
		if (e->rank >= 0 || e->host || e->line == 0 || strncmp(e->id, FAMILY_RANKS, strlen(FAMILY_RANKS)) == 0)
			continue;
		/* only lines before the launcher's first report of an exit */
		int after = 0;
		for (size_t k = 0; k < r->n && !after; k++) {
			const struct rank_where *w = &r->v[k].exit_where;
			after = w->path && strcmp(w->path, e->path) == 0 && e->line >= w->line;
		}
		if (after)
			continue;
		e->rank = alone->rank;
	}
}

static void run(struct rule_ctx *rc)
{
	const struct ranks *r = rc->ranks;
	if (!r)
		return;
	attribute_orphans(rc, r);
	/* the findings from absence (stuck in init, never arrived, went silent,
	 * stops mid-way, nothing after the banner) mean nothing when a log
	 * document itself was cut: its end is not the job's end, and the
	 * verdict says what is missing instead (verdict.c) */
	int cut = rc->logs_cut;
	int any_stuck = 0;
	if (!cut) {
		rule_init(rc, r, &any_stuck);
		rule_silent(rc, r);
	}
	rule_uid_wait(rc, r);
	rule_hang(rc, r, any_stuck);
	rule_never_reached(rc, r);
	rule_busy_timeout(rc, r);
	rule_same_bus(rc, r);
	rule_worlds_of_one(rc, r);
	rule_one_hostname(rc, r);
	rule_exits(rc, r);
	rule_exited(rc, r);
	if (!cut)
		rule_launcher_only(rc, r);
	rule_job_exit(rc, r);
	rule_watchdog(rc, r);
	if (!cut)
		rule_midway(rc, r, any_stuck);
}

const struct rule_provider RULES_RANKS = {
	"ranks", DEFS, sizeof DEFS / sizeof DEFS[0], run,
};
