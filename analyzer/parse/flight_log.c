/* flight_log.c - what the flight-recorder dumps conclude, as findings
 * (flight.h: struct flight_item) and the one-line headline, and their
 * agreement with the log: the watchdog's timed-out SeqNum against the first
 * collective a rank's dump has not completed, its "last enqueued / last
 * completed" counters against the dump's pg_status, ranks without a dump
 * that the log shows killed. */
#include "parse/flight_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/ranks.h"

static struct flight_item *item(struct flight *f, enum flight_finding kind, const char *path, const int *ranks,
                                size_t nr, const char *fmt, ...) NT_PRINTF(6, 7);
static struct flight_item *item(struct flight *f, enum flight_finding kind, const char *path, const int *ranks,
                                size_t nr, const char *fmt, ...)
{
	if (f->nitems == f->capitems) {
		f->capitems = f->capitems ? f->capitems * 2 : 8;
		f->items = xrealloc(f->items, f->capitems * sizeof *f->items);
	}
	struct flight_item *it = &f->items[f->nitems++];
	memset(it, 0, sizeof *it);
	it->kind = kind;
	va_list ap;
	va_start(ap, fmt);
	it->text = xvasprintf(fmt, ap);
	va_end(ap);
	it->path = xstrdup(path ? path : "");
	if (nr) {
		it->ranks = xmalloc(nr * sizeof *it->ranks);
		memcpy(it->ranks, ranks, nr * sizeof *ranks);
		it->nranks = nr;
	}
	return it;
}

static char *list(const int *v, size_t n)
{
	struct buf b;
	buf_init(&b);
	for (size_t i = 0; i < n && i < 16; i++)
		buf_printf(&b, "%s%d", i ? ", " : "", v[i]);
	if (n > 16)
		buf_printf(&b, " and %zu more", n - 16);
	if (!n)
		buf_adds(&b, "none");
	return buf_steal(&b);
}

/* "fsdp.py:88" of "/x/torch/distributed/fsdp.py:88 (unshard)" */
static char *short_where(const char *w)
{
	if (!w || !*w)
		return xstrdup("");
	const char *sp = strstr(w, " (");
	size_t n = sp ? (size_t)(sp - w) : strlen(w);
	const char *b = w;
	for (size_t i = 0; i < n; i++)
		if (w[i] == '/')
			b = w + i + 1;
	return xstrndup(b, n - (size_t)(b - w));
}

static const char *pgname(const struct flight *f, uint32_t pg)
{
	return fr_str(&f->str, f->pgs[pg].name);
}

static char *pgdesc(const struct flight *f, uint32_t pg)
{
	const char *d = fr_str(&f->str, f->pgs[pg].desc);
	return *d && strcmp(d, "undefined") ? xasprintf("%s (%s)", pgname(f, pg), d) : xstrdup(pgname(f, pg));
}

static const char *dump_of(const struct flight *f, int rank)
{
	const struct fr_rank *r = fr_rank_by(f, rank);
	return r ? r->path : "";
}

/* "all_reduce #7 (scheduled) at train.py:25 (step)" of a rank's last call */
static char *call_text(const struct flight *f, const struct fr_call *c)
{
	char *pd = pgdesc(f, c->pg);
	char *t = xasprintf("%s %s%lld of process group %s (%s)%s%s", fr_str(&f->str, c->op), c->is_p2p ? "p2p #" : "#",
	                    (long long)(c->is_p2p ? c->p2p_seq : c->seq), pd, fr_state_name(c->state),
	                    c->where ? " at " : "", c->where ? fr_str(&f->str, c->where) : "");
	free(pd);
	return t;
}

static const struct fr_call *last_call(const struct fr_rank *r)
{
	return r && r->nlane ? &r->lane[(r->ncalls - 1) % FR_LANE] : NULL;
}

/* The main collective stop: one with ranks behind, the earliest created. */
const struct fr_stop *fr_main_stop(const struct flight *f)
{
	const struct fr_stop *best = NULL;
	for (size_t i = 0; i < f->nstops; i++) {
		const struct fr_stop *s = &f->stops[i];
		if (s->p2p)
			continue;
		if (!best || (s->nbehind && !best->nbehind) ||
		    ((s->nbehind != 0) == (best->nbehind != 0) && s->call.time_ns && best->call.time_ns &&
		     s->call.time_ns < best->call.time_ns))
			best = s;
	}
	return best;
}

static void culprit_details(const struct flight *f, const struct fr_stop *s, struct buf *b)
{
	for (size_t i = 0; i < s->nbehind && i < 4; i++) {
		const struct fr_rank *r = fr_rank_by(f, s->behind[i]);
		const struct fr_rank_pg *rp = NULL;
		for (size_t k = 0; r && k < r->npgs; k++)
			if (r->pgs[k].pg == s->pg)
				rp = &r->pgs[k];
		const struct fr_call *lc = last_call(r);
		if (rp && rp->has_last) {
			char *t = call_text(f, &rp->last);
			buf_printf(b, "; rank %d's last entry in that group: %s", s->behind[i], t);
			free(t);
		} else {
			buf_printf(b, "; rank %d holds no entry of that group", s->behind[i]);
		}
		if (lc && lc->pg != s->pg) {
			char *t = call_text(f, lc);
			buf_printf(b, ", and its last entry of all: %s", t);
			free(t);
		}
	}
}

static void stop_item(struct flight *f, const struct fr_stop *s)
{
	const char *op = fr_str(&f->str, s->call.op);
	char *pd = pgdesc(f, s->pg), *wl = list(s->waiting, s->nwaiting), *bl = list(s->behind, s->nbehind),
	     *ml = list(s->missing, s->nmissing), *sw = short_where(fr_str(&f->str, s->call.where));
	const char *where = fr_str(&f->str, s->call.where);
	const char *path = s->nwaiting ? dump_of(f, s->waiting[0]) : s->nbehind ? dump_of(f, s->behind[0]) : "";
	struct flight_item *it;
	if (s->nbehind) {
		struct buf b;
		buf_init(&b);
		culprit_details(f, s, &b);
		it = item(f, FF_BEHIND, path, s->behind, s->nbehind,
		          "rank%s %s never scheduled %s #%lld of process group %s, in which rank%s %s wait%s%s%s%s%s",
		          s->nbehind == 1 ? "" : "s", bl, op, (long long)s->seq, pd, s->nwaiting == 1 ? "" : "s", wl,
		          s->nwaiting == 1 ? "s" : "", *where ? " (called at " : "", where, *where ? ")" : "", b.data ? b.data : "");
		buf_free(&b);
		free(f->headline);
		f->headline = xasprintf("hang: rank%s %s behind at %s #%lld%s%s", s->nbehind == 1 ? "" : "s", bl, op,
		                        (long long)s->seq, *sw ? " in " : "", sw);
	} else if (s->nmissing) {
		it = item(f, FF_WAIT_MISSING, path, s->missing, s->nmissing,
		          "rank%s %s wait%s in %s #%lld of process group %s%s%s%s and no dump says any rank is behind; rank%s %s "
		          "of the group left no dump: a rank that died or was killed before the watchdog dumped leaves none, "
		          "so %s the likely culprit%s",
		          s->nwaiting == 1 ? "" : "s", wl, s->nwaiting == 1 ? "s" : "", op, (long long)s->seq, pd,
		          *where ? " (called at " : "", where, *where ? ")" : "", s->nmissing == 1 ? "" : "s", ml,
		          s->nmissing == 1 ? "it is" : "they are", s->nmissing == 1 ? "" : "s");
		free(f->headline);
		f->headline = xasprintf("hang: all dumped ranks wait in %s #%lld%s%s; no dump from rank%s %s", op,
		                        (long long)s->seq, *sw ? " at " : "", sw, s->nmissing == 1 ? "" : "s", ml);
	} else {
		it = item(f, FF_STALLED, path, s->waiting, s->nwaiting,
		          "every rank of process group %s (%s) entered %s #%lld%s%s%s and none completed it: %s", pd, wl, op,
		          (long long)s->seq, *where ? " (called at " : "", where, *where ? ")" : "",
		          s->all_scheduled ? "its state is 'scheduled' on every rank, so its NCCL kernel never started: the "
		                             "GPU stream was still busy with earlier work (a long or stuck kernel before it) "
		                             "or the launch blocked"
		          : s->all_started ? "its kernel started on every rank and never finished: the transport (network, "
		                             "NVLink, a peer GPU) stalled"
		                           : "no rank is behind; the stall is inside the collective");
		free(f->headline);
		f->headline = xasprintf("hang: every rank waits in %s #%lld%s%s%s", op, (long long)s->seq,
		                        s->all_scheduled ? " (never started)" : "", *sw ? " at " : "", sw);
	}
	caplist_take(&it->caps, "op", xstrdup(op));
	caplist_take(&it->caps, "seq", xasprintf("%lld", (long long)s->seq));
	caplist_take(&it->caps, "pg", xstrdup(pd));
	caplist_take(&it->caps, "where", xstrdup(*sw ? sw : "(no stack in the dumps)"));
	caplist_take(&it->caps, "waiting", xstrdup(wl));
	caplist_take(&it->caps, "missing", xstrdup(ml));
	free(pd);
	free(wl);
	free(bl);
	free(ml);
	free(sw);
}

static void p2p_item(struct flight *f, const struct fr_stop *s)
{
	const char *op = fr_str(&f->str, s->call.op);
	int peer = s->nbehind ? s->behind[0] : s->nmissing ? s->missing[0] : -1;
	char *pd = pgdesc(f, s->pg), *ct = call_text(f, &s->call);
	const struct fr_rank *q = fr_rank_by(f, peer);
	const struct fr_call *lc = last_call(q);
	char *qt = lc ? call_text(f, lc) : xstrdup("none");
	struct flight_item *it =
		item(f, FF_P2P, dump_of(f, s->waiting[0]), &peer, 1, "rank %d waits in %s; rank %d %s%s%s", s->waiting[0], ct,
		     peer,
		     s->p2p == 2 ? "posted the matching operation with another size"
		     : q         ? "never posted the matching operation"
		                 : "left no dump (it may be the rank that died)",
		     q ? "; its last entry: " : "", q ? qt : "");
	caplist_take(&it->caps, "op", xstrdup(op));
	caplist_take(&it->caps, "seq", xasprintf("%lld", (long long)s->seq));
	caplist_take(&it->caps, "pg", pd);
	caplist_take(&it->caps, "waiting", xasprintf("%d", s->waiting[0]));
	free(ct);
	free(qt);
	if (!f->headline)
		f->headline = xasprintf("hang: rank %d waits in %s to rank %d, which %s", s->waiting[0], op, peer,
		                        q ? "never posted its side" : "left no dump");
}

void fr_items(struct flight *f)
{
	int desync = 0;
	for (size_t i = 0; i < f->nmis; i++) {
		const struct fr_mismatch *m = &f->mis[i];
		if (!m->first || desync >= 4)
			continue;
		desync++;
		struct flight_item *it = item(f, FF_DESYNC, m->nranks ? dump_of(f, m->ranks[0]) : "", m->ranks, m->nranks,
		                              "%s", m->detail);
		caplist_take(&it->caps, "detail", xstrdup(m->detail));
		caplist_take(&it->caps, "kind", xstrdup(m->kind));
		caplist_take(&it->caps, "pg", pgdesc(f, m->pg));
		caplist_take(&it->caps, "seq", xasprintf("%lld", (long long)m->seq));
		if (desync == 1) {
			free(f->headline);
			f->headline = xasprintf("desync: %s", m->detail);
		}
	}
	const struct fr_stop *ms = fr_main_stop(f);
	char *keep = f->headline ? xstrdup(f->headline) : NULL;
	if (ms)
		stop_item(f, ms);
	for (size_t i = 0; i < f->nstops; i++)
		if (f->stops[i].p2p)
			p2p_item(f, &f->stops[i]);
	if (keep) { /* a desync explains the hang: its line stays the headline */
		free(f->headline);
		f->headline = keep;
	}
	/* members without a dump, when the stop did not already name them */
	int *miss = NULL;
	size_t nmiss = 0;
	for (size_t g = 0; g < f->npgs; g++)
		for (size_t k = 0; k < f->pgs[g].nmembers; k++) {
			int rk = f->pgs[g].members[k], dup = 0;
			for (size_t j = 0; j < nmiss; j++)
				dup |= miss[j] == rk;
			if (!dup && !fr_rank_by(f, rk)) {
				miss = xrealloc(miss, (nmiss + 1) * sizeof *miss);
				miss[nmiss++] = rk;
			}
		}
	if (nmiss && !(ms && !ms->nbehind && ms->nmissing)) {
		char *ml = list(miss, nmiss);
		struct flight_item *it = item(f, FF_MISSING, f->nranks ? f->ranks[0].path : "", miss, nmiss,
		                              "no flight-recorder dump from rank%s %s of the %zu ranks the process groups "
		                              "name: a rank without a dump may be the one that died, or its file was not "
		                              "collected", nmiss == 1 ? "" : "s", ml, nmiss + f->nranks);
		caplist_take(&it->caps, "missing", ml);
	}
	free(miss);
	if (!f->nstops && !desync && f->nranks)
		item(f, FF_ALL_DONE, f->ranks[0].path, NULL, 0,
		     "every collective in the %zu dump%s completed on every rank that holds it: the dumps show no hang",
		     f->nranks, f->nranks == 1 ? "" : "s");
}

/* ---- the log ---- */

static void op_norm(const char *s, char *out, size_t n)
{
	size_t k = 0;
	for (; *s && k + 1 < n; s++)
		if (*s != '_')
			out[k++] = (char)(*s >= 'a' && *s <= 'z' ? *s - 32 : *s);
	out[k] = 0;
}

static struct fr_log *log_add(struct flight *f, int rank, int agrees, const struct rank_where *w, char *text)
{
	f->log = xrealloc(f->log, (f->nlog + 1) * sizeof *f->log);
	struct fr_log *l = &f->log[f->nlog++];
	l->rank = rank;
	l->agrees = agrees;
	l->text = text;
	l->path = xstrdup(w && w->path ? w->path : "");
	l->line = w ? w->line : 0;
	return l;
}

static uint32_t pg_by_id(const struct flight *f, const struct fr_rank *r, long id)
{
	for (size_t i = 0; i < f->npgs; i++)
		if (f->pgs[i].pg_id == id)
			return (uint32_t)i;
	if (id < 0 && r && r->npgs == 1)
		return r->pgs[0].pg;
	return UINT32_MAX;
}

static void log_timeout(struct flight *f, const struct rank_proc *p, const struct fr_rank *r)
{
	uint32_t pg = pg_by_id(f, r, p->wd_pg >= 0 ? p->wd_pg : -1);
	const struct fr_rank_pg *rp = NULL;
	for (size_t k = 0; pg != UINT32_MAX && k < r->npgs; k++)
		if (r->pgs[k].pg == pg)
			rp = &r->pgs[k];
	if (!rp)
		return;
	char lop[64] = "", dop[64] = "";
	op_norm(p->wd_op ? p->wd_op : "", lop, sizeof lop);
	const struct fr_call *c = NULL;
	for (size_t k = 0; k < r->nlane; k++)
		if (r->lane[k].pg == pg && r->lane[k].seq == p->wd_seq && !r->lane[k].is_p2p)
			c = &r->lane[k];
	if (c)
		op_norm(fr_str(&f->str, c->op), dop, sizeof dop);
	int agree = rp->first_incomplete == p->wd_seq && (!c || !*lop || !strcmp(lop, dop));
	char *pd = pgdesc(f, pg);
	char *t;
	if (agree)
		t = xasprintf("the watchdog line of rank %d (timed out in %s SeqNum %ld) and its dump %s agree: its first "
		              "collective of process group %s not completed is #%ld%s%s", p->rank, p->wd_op ? p->wd_op : "?",
		              p->wd_seq, r->path, pd, p->wd_seq, c ? " " : "", c ? fr_str(&f->str, c->op) : "");
	else if (rp->first_incomplete < 0)
		t = xasprintf("the watchdog line of rank %d says it timed out in %s SeqNum %ld, but its dump %s shows every "
		              "collective of process group %s completed (up to #%lld): the dump was taken at another time, "
		              "or belongs to another run", p->rank, p->wd_op ? p->wd_op : "?", p->wd_seq, r->path, pd,
		              (long long)rp->last_seq);
	else
		t = xasprintf("the watchdog line of rank %d says it timed out in %s SeqNum %ld, but in its dump %s the first "
		              "collective of process group %s not completed is #%lld%s%s", p->rank, p->wd_op ? p->wd_op : "?",
		              p->wd_seq, r->path, pd, (long long)rp->first_incomplete, c && !agree && *dop ? ", and #" : "",
		              c && !agree && *dop ? "the op differs" : "");
	free(pd);
	log_add(f, p->rank, agree, &p->wd_where, t);
}

static void log_counters(struct flight *f, const struct rank_proc *p, const struct fr_rank *r)
{
	for (size_t k = 0; k < p->npgs; k++) {
		uint32_t pg = pg_by_id(f, r, p->pgs[k].pg);
		const struct fr_rank_pg *rp = NULL;
		for (size_t j = 0; pg != UINT32_MAX && j < r->npgs; j++)
			if (r->pgs[j].pg == pg)
				rp = &r->pgs[j];
		if (!rp || !rp->has_status || p->pgs[k].enq < -1)
			continue;
		int agree = rp->st_enq == p->pgs[k].enq && rp->st_comp == p->pgs[k].comp;
		char *pd = pgdesc(f, pg);
		char *t = xasprintf("rank %d, process group %s: the log's watchdog counters (last enqueued %ld, last completed "
		                    "%ld) %s the dump's pg_status (last enqueued %lld, started %lld, completed %lld)", p->rank, pd,
		                    p->pgs[k].enq, p->pgs[k].comp, agree ? "match" : "do not match", (long long)rp->st_enq,
		                    (long long)rp->st_start, (long long)rp->st_comp);
		free(pd);
		log_add(f, p->rank, agree, &p->enq_where, t);
	}
}

void fr_log_compare(struct flight *f, const struct ranks *rk)
{
	if (!rk)
		return;
	for (size_t i = 0; i < rk->n; i++) {
		const struct rank_proc *p = &rk->v[i];
		if (p->rank < 0)
			continue;
		const struct fr_rank *r = fr_rank_by(f, p->rank);
		if (!r) {
			if (rank_proc_killed(p) && p->exit_where.path)
				log_add(f, p->rank, 1, &p->exit_where,
				        xasprintf("rank %d has no flight-recorder dump and the log shows it killed (exit code %d): "
				                  "it died before any dump could be written", p->rank, p->exitcode));
			continue;
		}
		if (p->wd_where.path && p->wd_seq >= 0)
			log_timeout(f, p, r);
		log_counters(f, p, r);
	}
	for (size_t i = 0; i < f->nlog; i++) {
		const struct fr_log *l = &f->log[i];
		struct flight_item *it = item(f, l->agrees ? FF_AGREE : FF_LOG, l->path, &l->rank, 1, "%s", l->text);
		it->line = l->line;
	}
}

const struct flight_item *flight_items(const struct flight *f, size_t *n)
{
	*n = f ? f->nitems : 0;
	return f ? f->items : NULL;
}

const char *flight_headline(const struct flight *f)
{
	return f ? f->headline : NULL;
}
