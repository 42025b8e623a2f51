/* flight_match.c - the cross-rank store of flight-recorder calls and
 * flight_finish (flight.h): per process group and sequence number the
 * variants of what the ranks called; per rank its window, pending p2p
 * operations and last calls.  flight_finish finds, per process group, the
 * first collective that did not complete on every rank, sorts the members
 * into behind / waiting / done / without a dump, lists the mismatches torch's
 * analyzer reports (op type, sizes, dtypes, element counts, all_to_all
 * totals, membership, a rank in a group that does not hold it), matches
 * pending sends and recvs, and compares with the watchdog lines of the log
 * (flight_log.c). */
#include "parse/flight_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* ---- interned strings ---- */

static uint64_t fnv(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

uint32_t fr_intern(struct fr_strtab *t, const char *s, size_t n)
{
	if (!t->n) { /* id 0: "" */
		t->cap = 64;
		t->s = xmalloc(t->cap * sizeof *t->s);
		t->len = xmalloc(t->cap * sizeof *t->len);
		t->s[0] = xstrdup("");
		t->len[0] = 0;
		t->n = 1;
		t->nidx = 256;
		t->idx = xcalloc(t->nidx, sizeof *t->idx);
	}
	if (n == 0)
		return 0;
	if (n > 65536)
		n = 65536;
	size_t mask = t->nidx - 1;
	for (size_t k = fnv(s, n) & mask; t->idx[k]; k = (k + 1) & mask) {
		uint32_t id = t->idx[k] - 1;
		if (t->len[id] == n && memcmp(t->s[id], s, n) == 0)
			return id;
	}
	if (t->n == t->cap) {
		t->cap *= 2;
		t->s = xrealloc(t->s, t->cap * sizeof *t->s);
		t->len = xrealloc(t->len, t->cap * sizeof *t->len);
	}
	uint32_t id = (uint32_t)t->n++;
	t->s[id] = xstrndup(s, n);
	t->len[id] = (uint32_t)n;
	if (t->n * 2 > t->nidx) {
		free(t->idx);
		t->nidx *= 2;
		t->idx = xcalloc(t->nidx, sizeof *t->idx);
		for (uint32_t i = 1; i < t->n; i++) {
			size_t k = fnv(t->s[i], t->len[i]) & (t->nidx - 1);
			while (t->idx[k])
				k = (k + 1) & (t->nidx - 1);
			t->idx[k] = i + 1;
		}
	} else {
		size_t k = fnv(s, n) & mask;
		while (t->idx[k])
			k = (k + 1) & mask;
		t->idx[k] = id + 1;
	}
	return id;
}

const char *fr_state_name(int st)
{
	switch (st) {
	case ST_COMPLETED: return "completed";
	case ST_STARTED: return "started";
	case ST_SCHEDULED: return "scheduled";
	default: return "unknown";
	}
}

/* ---- the set ---- */

struct flight *flight_new(void)
{
	return xcalloc(1, sizeof(struct flight));
}

void flight_free(struct flight *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->str.n; i++)
		free(f->str.s[i]);
	free(f->str.s);
	free(f->str.len);
	free(f->str.idx);
	arena_free(&f->arena);
	for (size_t i = 0; i < f->npgs; i++) {
		free(f->pgs[i].members);
		free(f->pgs[i].refs);
		for (size_t k = 0; k < f->pgs[i].nml; k++)
			free(f->pgs[i].ml[k].text);
	}
	free(f->pgs);
	for (size_t i = 0; i < f->nranks; i++) {
		free(f->ranks[i].path);
		free(f->ranks[i].pgs);
	}
	free(f->ranks);
	strvec_free(&f->unread);
	strvec_free(&f->noted);
	for (size_t i = 0; i < f->nitems; i++) {
		struct flight_item *it = &f->items[i];
		free(it->text);
		free(it->path);
		free(it->ranks);
		caplist_free(&it->caps);
	}
	free(f->items);
	free(f->headline);
	cJSON_Delete(f->json);
	for (size_t i = 0; i < f->nstops; i++) {
		free(f->stops[i].behind);
		free(f->stops[i].waiting);
		free(f->stops[i].done);
		free(f->stops[i].missing);
	}
	free(f->stops);
	for (size_t i = 0; i < f->nmis; i++)
		free(f->mis[i].detail);
	free(f->mis);
	for (size_t i = 0; i < f->nlog; i++) {
		free(f->log[i].text);
		free(f->log[i].path);
	}
	free(f->log);
	free(f);
}

size_t flight_ndumps(const struct flight *f)
{
	return f ? f->nranks + f->unread.n : 0;
}

struct fr_rank *fr_rank_begin(struct flight *f, int rank, const char *path, struct msgs *m)
{
	for (size_t i = 0; i < f->nranks; i++)
		if (f->ranks[i].rank == rank) {
			msgs_add(m, "%s: a second flight-recorder dump of rank %d (the first, %s, is the one analysed)", path,
			         rank, f->ranks[i].path);
			return NULL;
		}
	if (f->nranks == f->capranks) {
		f->capranks = f->capranks ? f->capranks * 2 : 16;
		f->ranks = xrealloc(f->ranks, f->capranks * sizeof *f->ranks);
	}
	struct fr_rank *r = &f->ranks[f->nranks++];
	memset(r, 0, sizeof *r);
	r->rank = rank;
	r->path = xstrdup(path);
	return r;
}

uint32_t fr_pg_find(struct flight *f, const char *name, size_t nl, const char *desc, size_t dl)
{
	uint32_t n = fr_intern(&f->str, name, nl), d = fr_intern(&f->str, desc, dl);
	for (size_t i = 0; i < f->npgs; i++)
		if (f->pgs[i].name == n)
			return (uint32_t)i; /* a group is its name (torch's pg_guid); desc is its label */
	if (f->npgs == f->cappgs) {
		f->cappgs = f->cappgs ? f->cappgs * 2 : 8;
		f->pgs = xrealloc(f->pgs, f->cappgs * sizeof *f->pgs);
	}
	struct fr_pg *p = &f->pgs[f->npgs];
	memset(p, 0, sizeof *p);
	p->name = n;
	p->desc = d;
	p->pg_id = -1;
	return (uint32_t)f->npgs++;
}

void fr_pg_members(struct flight *f, uint32_t pg, const int *ranks, size_t n, int r, const char *as_text)
{
	struct fr_pg *p = &f->pgs[pg];
	if (!p->members) {
		p->members = xmalloc(n * sizeof *p->members);
		memcpy(p->members, ranks, n * sizeof *ranks);
		p->nmembers = n;
	}
	size_t i = 0;
	while (i < p->nml && strcmp(p->ml[i].text, as_text) != 0)
		i++;
	if (i == p->nml) {
		if (p->nml == 4)
			return;
		p->ml[p->nml++].text = xstrdup(as_text);
	}
	if (p->ml[i].count < FR_VRANKS)
		p->ml[i].ranks[p->ml[i].count] = r;
	p->ml[i].count++;
}

struct fr_rank_pg *fr_rank_pg(struct fr_rank *r, uint32_t pg)
{
	for (size_t i = 0; i < r->npgs; i++)
		if (r->pgs[i].pg == pg)
			return &r->pgs[i];
	r->pgs = xrealloc(r->pgs, (r->npgs + 1) * sizeof *r->pgs);
	struct fr_rank_pg *rp = &r->pgs[r->npgs++];
	memset(rp, 0, sizeof *rp);
	rp->pg = pg;
	rp->first_seq = rp->last_seq = rp->first_incomplete = -1;
	return rp;
}

static const struct fr_rank_pg *rank_pg_c(const struct fr_rank *r, uint32_t pg)
{
	for (size_t i = 0; i < r->npgs; i++)
		if (r->pgs[i].pg == pg)
			return &r->pgs[i];
	return NULL;
}

const struct fr_rank *fr_rank_by(const struct flight *f, int rank)
{
	for (size_t i = 0; i < f->nranks; i++)
		if (f->ranks[i].rank == rank)
			return &f->ranks[i];
	return NULL;
}

/* ---- calls ---- */

static int op_is(const struct flight *f, uint32_t op, const char *name)
{
	return strcmp(fr_str(&f->str, op), name) == 0;
}

/* The variant a rank's call belongs to: the fields torch compares for
 * this op (types.py Op.match: input sizes but for all_to_all and scatter,
 * output sizes but for all_to_all and gather, dtypes but where the op moves
 * data one way). */
static void variant_key(const struct flight *f, const struct fr_call *c, struct fr_variant *v)
{
	memset(v, 0, sizeof *v);
	v->op = c->op;
	int a2a = op_is(f, c->op, "all_to_all");
	if (!a2a && !op_is(f, c->op, "scatter"))
		v->in_key = c->in_key;
	if (!a2a && !op_is(f, c->op, "gather"))
		v->out_key = c->out_key;
	if (!op_is(f, c->op, "scatter") && !op_is(f, c->op, "broadcast") && c->in_numel != 0)
		v->in_dt = c->in_dt;
	if (!op_is(f, c->op, "gather") && c->out_numel != 0)
		v->out_dt = c->out_dt;
}

#define FR_SEQ_SPAN (1 << 22)

static struct fr_ref *ref_at(struct fr_pg *p, int64_t seq)
{
	if (seq < 0)
		return NULL;
	if (!p->nrefs) {
		p->base = seq;
		p->nrefs = 64;
		p->refs = xcalloc(p->nrefs, sizeof *p->refs);
	}
	if (seq < p->base) {
		int64_t grow = p->base - seq + 64;
		if ((int64_t)p->nrefs + grow > FR_SEQ_SPAN)
			return NULL;
		p->refs = xrealloc(p->refs, (p->nrefs + (size_t)grow) * sizeof *p->refs);
		memmove(p->refs + grow, p->refs, p->nrefs * sizeof *p->refs);
		memset(p->refs, 0, (size_t)grow * sizeof *p->refs);
		p->nrefs += (size_t)grow;
		p->base -= grow;
	}
	if (seq - p->base >= (int64_t)p->nrefs) {
		int64_t want = seq - p->base + 1;
		if (want > FR_SEQ_SPAN)
			return NULL;
		size_t nn = p->nrefs;
		while ((int64_t)nn < want)
			nn *= 2;
		p->refs = xrealloc(p->refs, nn * sizeof *p->refs);
		memset(p->refs + p->nrefs, 0, (nn - p->nrefs) * sizeof *p->refs);
		p->nrefs = nn;
	}
	struct fr_ref *rf = &p->refs[seq - p->base];
	if (!rf->used) {
		rf->used = 1;
		rf->seq = seq;
		rf->first_rank = rf->state_rank_a = rf->state_rank_b = -1;
	}
	return rf;
}

static void lane_push(struct fr_rank *r, const struct fr_call *c)
{
	r->lane[r->ncalls % FR_LANE] = *c;
	r->ncalls++;
	if (r->nlane < FR_LANE)
		r->nlane++;
}

static void add_mismatch(struct flight *f, const char *kind, uint32_t pg, int64_t seq, const int *ranks, size_t n,
                         char *detail)
{
	for (size_t i = 0; i < f->nmis; i++) /* one per kind, group and sequence number */
		if (f->mis[i].pg == pg && f->mis[i].seq == seq && !strcmp(f->mis[i].kind, kind)) {
			for (size_t k = 0; k < n && f->mis[i].nranks < FR_VRANKS; k++)
				f->mis[i].ranks[f->mis[i].nranks++] = ranks[k];
			if (f->mis[i].nranks == FR_VRANKS && n)
				f->mis[i].extra += (uint32_t)n;
			free(detail);
			return;
		}
	if (f->nmis >= 256) {
		free(detail);
		return;
	}
	f->mis = xrealloc(f->mis, (f->nmis + 1) * sizeof *f->mis);
	struct fr_mismatch *m = &f->mis[f->nmis++];
	memset(m, 0, sizeof *m);
	m->kind = kind;
	m->pg = pg;
	m->seq = seq;
	for (size_t k = 0; k < n && k < FR_VRANKS; k++)
		m->ranks[m->nranks++] = ranks[k];
	m->detail = detail;
}

/* A call's own consistency (torch's checks that compare a rank with
 * itself): all_reduce in == out; all_gather out = in x group size;
 * reduce_scatter in = out x group size (single-tensor forms). */
static void check_call(struct flight *f, const struct fr_rank *r, const struct fr_call *c)
{
	const struct fr_pg *p = &f->pgs[c->pg];
	const char *op = fr_str(&f->str, c->op);
	if ((!strcmp(op, "all_reduce") || !strcmp(op, "allreduce_coalesced")) && c->in_key != c->out_key && c->out_key &&
	    c->in_key) {
		add_mismatch(f, "sizes", c->pg, c->seq, &r->rank, 1,
		             xasprintf("rank %d's %s has input sizes %s but output sizes %s", r->rank, op,
		                       fr_str(&f->str, c->in_key), fr_str(&f->str, c->out_key)));
		return;
	}
	if (!p->nmembers || c->in_numel < 0 || c->out_numel < 0 || c->nins != c->nouts || c->nins < 1)
		return; /* the first tensor of each side, as torch compares them */
	int64_t g = (int64_t)p->nmembers;
	int ag = !strcmp(op, "_all_gather_base") || !strcmp(op, "all_gather_into_tensor_coalesced") ||
	         !strcmp(op, "all_gather");
	int rs = !strcmp(op, "_reduce_scatter_base") || !strcmp(op, "reduce_scatter_tensor_coalesced") ||
	         !strcmp(op, "reduce_scatter");
	if ((ag && c->out_numel != c->in_numel * g) || (rs && c->in_numel != c->out_numel * g))
		add_mismatch(f, "numel", c->pg, c->seq, &r->rank, 1,
		             xasprintf("rank %d's %s has %lld input and %lld output elements in a group of %lld ranks "
		                       "(%s expects the %s to be %lld times the %s)", r->rank, op, (long long)c->in_numel,
		                       (long long)c->out_numel, (long long)g, ag ? "all_gather" : "reduce_scatter",
		                       ag ? "output" : "input", (long long)g, ag ? "input" : "output"));
}

static void note_collective(struct flight *f, struct fr_rank *r, const struct fr_call *c)
{
	struct fr_pg *p = &f->pgs[c->pg];
	struct fr_rank_pg *rp = fr_rank_pg(r, c->pg);
	if (rp->first_seq < 0 || c->seq < rp->first_seq)
		rp->first_seq = c->seq;
	if (c->seq > rp->last_seq)
		rp->last_seq = c->seq;
	if (c->state != ST_COMPLETED && (rp->first_incomplete < 0 || c->seq < rp->first_incomplete))
		rp->first_incomplete = c->seq;
	rp->last = *c;
	rp->has_last = 1;
	lane_push(r, c);
	check_call(f, r, c);
	struct fr_ref *rf = ref_at(p, c->seq);
	if (!rf)
		return;
	struct fr_variant key;
	variant_key(f, c, &key);
	size_t i = 0;
	while (i < rf->nv && !(rf->v[i].op == key.op && rf->v[i].in_key == key.in_key && rf->v[i].out_key == key.out_key &&
	                       rf->v[i].in_dt == key.in_dt && rf->v[i].out_dt == key.out_dt))
		i++;
	if (i == rf->nv && rf->nv < FR_VARIANTS) {
		rf->v[i] = key;
		rf->v[i].where = c->where;
		rf->nv++;
	}
	if (i < rf->nv) {
		if (rf->v[i].count < FR_VRANKS)
			rf->v[i].ranks[rf->v[i].count] = r->rank;
		rf->v[i].count++;
	} else {
		rf->extra++;
	}
	rf->have++;
	rf->completed += c->state == ST_COMPLETED;
	rf->started += c->state == ST_STARTED;
	rf->scheduled += c->state == ST_SCHEDULED;
	if (op_is(f, c->op, "all_to_all")) {
		rf->sum_in += c->in_numel > 0 ? c->in_numel : 0;
		rf->sum_out += c->out_numel > 0 ? c->out_numel : 0;
	}
	if (rf->first_rank < 0) {
		rf->first_rank = r->rank;
		rf->first_time = c->time_ns;
		rf->state_a = c->state;
		rf->state_rank_a = r->rank;
	} else if (c->state != rf->state_a && rf->state_rank_b < 0) {
		rf->state_b = c->state;
		rf->state_rank_b = r->rank;
	}
	if (c->time_ns && (!rf->first_time || c->time_ns < rf->first_time))
		rf->first_time = c->time_ns;
}

static void note_p2p(struct flight *f, struct fr_rank *r, const struct fr_call *c)
{
	struct fr_rank_pg *rp = fr_rank_pg(r, c->pg);
	rp->last = *c;
	rp->has_last = 1;
	f->pgs[c->pg].p2p_calls++;
	lane_push(r, c);
	if (c->state == ST_COMPLETED)
		return;
	rp->npending_all++;
	if (rp->npending < FR_PENDING)
		rp->pending[rp->npending++] = *c;
}

/* The group being read ends: a coalesced group's end marker holds the
 * state of its ops (torch records the events on the marker), so scheduled
 * ops of a group whose marker completed completed too; a group of
 * collectives is one call (torch matches it as one collective). */
static void flush_group(struct flight *f, struct fr_rank *r)
{
	if (!r->has_grp)
		return;
	r->has_grp = 0;
	struct fr_call *g = &r->grp;
	if (g->is_p2p)
		return; /* its ops went to note_p2p one by one (fr_note_call) */
	note_collective(f, r, g);
}

void fr_note_call(struct flight *f, struct fr_rank *r, const struct fr_call *c)
{
	if (c->pg >= f->npgs)
		return;
	struct fr_call *g = &r->grp;
	if (c->marker) {
		/* the end of the open group: its state is the group's */
		if (r->has_grp && g->pg == c->pg && (g->is_p2p ? c->p2p_seq == g->p2p_seq : c->seq == g->seq)) {
			if (g->is_p2p) {
				struct fr_rank_pg *rp = fr_rank_pg(r, c->pg);
				if (c->state == ST_COMPLETED) { /* its ops completed with it */
					size_t keep = 0;
					for (size_t i = 0; i < rp->npending; i++)
						if (!(rp->pending[i].p2p_seq == c->p2p_seq && rp->pending[i].state == ST_SCHEDULED))
							rp->pending[keep++] = rp->pending[i];
					rp->npending_all -= rp->npending - keep;
					rp->npending = keep;
				}
			} else {
				g->state = c->state;
				g->nops++;
			}
			flush_group(f, r);
			return;
		}
		flush_group(f, r);
		/* a marker alone: before format 2.7 a coalesced group of collectives
		 * was recorded as its marker only (a sequence number of its own); a
		 * marker that repeats the last collective's number closes a p2p group */
		struct fr_rank_pg *rp = fr_rank_pg(r, c->pg);
		if (!c->is_p2p && c->seq >= 0 && c->seq > rp->last_seq)
			note_collective(f, r, c);
		return;
	}
	if (r->has_grp && g->pg == c->pg && g->is_p2p == c->is_p2p &&
	    (c->is_p2p ? c->p2p_seq == g->p2p_seq : c->seq == g->seq)) {
		if (c->is_p2p) {
			note_p2p(f, r, c);
		} else { /* a coalesced collective: keys of every op */
			char *in = xasprintf("%s+%s", fr_str(&f->str, g->in_key), fr_str(&f->str, c->in_key));
			char *out = xasprintf("%s+%s", fr_str(&f->str, g->out_key), fr_str(&f->str, c->out_key));
			g->in_key = fr_intern(&f->str, in, strlen(in));
			g->out_key = fr_intern(&f->str, out, strlen(out));
			free(in);
			free(out);
			if (c->state < g->state)
				g->state = c->state;
			g->nops++;
		}
		return;
	}
	flush_group(f, r);
	r->grp = *c;
	r->has_grp = 1;
	if (c->is_p2p)
		note_p2p(f, r, c);
}

void fr_rank_end(struct flight *f, struct fr_rank *r)
{
	flush_group(f, r);
	for (size_t s = 0; s < r->nstatus; s++)
		for (size_t i = 0; i < f->npgs; i++)
			if (f->pgs[i].pg_id == r->status[s].pg_id) {
				struct fr_rank_pg *rp = fr_rank_pg(r, (uint32_t)i);
				rp->has_status = 1;
				rp->st_enq = r->status[s].enq;
				rp->st_start = r->status[s].start;
				rp->st_comp = r->status[s].comp;
				break;
			}
}

/* ---- flight_finish: the stops ---- */

static int cmp_rank(const void *a, const void *b)
{
	const struct fr_rank *x = a, *y = b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static void ints_add(int **v, size_t *n, int x)
{
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = x;
}

/* Members of a group: its pg_config; without one (format 1.1), the ranks
 * whose dumps hold its entries. */
static int *members_of(const struct flight *f, uint32_t pg, size_t *n, int *known)
{
	const struct fr_pg *p = &f->pgs[pg];
	*known = p->members != NULL;
	if (p->members) {
		*n = p->nmembers;
		int *m = xmalloc((*n ? *n : 1) * sizeof *m);
		memcpy(m, p->members, *n * sizeof *m);
		return m;
	}
	int *m = NULL;
	*n = 0;
	for (size_t i = 0; i < f->nranks; i++)
		if (rank_pg_c(&f->ranks[i], pg))
			ints_add(&m, n, f->ranks[i].rank);
	return m;
}

static void stop_of_pg(struct flight *f, uint32_t pg)
{
	size_t nm;
	int known;
	int *mem = members_of(f, pg, &nm, &known);
	int64_t stop = INT64_MAX, maxlast = -1;
	for (size_t i = 0; i < nm; i++) {
		const struct fr_rank *r = fr_rank_by(f, mem[i]);
		const struct fr_rank_pg *rp = r ? rank_pg_c(r, pg) : NULL;
		if (!r)
			continue;
		int64_t first_not_done = !rp || rp->last_seq < 0 ? 0 : rp->first_incomplete >= 0 ? rp->first_incomplete
		                                                                             : rp->last_seq + 1;
		if (first_not_done < stop)
			stop = first_not_done;
		if (rp && rp->last_seq > maxlast)
			maxlast = rp->last_seq;
	}
	if (maxlast < 0 || stop > maxlast) {
		free(mem);
		return;
	}
	/* a rank with no collective of the group at all is behind the first one
	 * the others hold */
	if (stop == 0) {
		int64_t lo = INT64_MAX;
		for (size_t i = 0; i < nm; i++) {
			const struct fr_rank *r = fr_rank_by(f, mem[i]);
			const struct fr_rank_pg *rp = r ? rank_pg_c(r, pg) : NULL;
			if (rp && rp->first_seq >= 0 && rp->first_seq < lo)
				lo = rp->first_seq;
		}
		stop = lo;
		for (size_t i = 0; i < nm; i++) { /* unless a rank holding entries has an earlier incomplete one */
			const struct fr_rank *r = fr_rank_by(f, mem[i]);
			const struct fr_rank_pg *rp = r ? rank_pg_c(r, pg) : NULL;
			if (rp && rp->first_incomplete >= 0 && rp->first_incomplete < stop)
				stop = rp->first_incomplete;
		}
	}
	f->stops = xrealloc(f->stops, (f->nstops + 1) * sizeof *f->stops);
	struct fr_stop *s = &f->stops[f->nstops++];
	memset(s, 0, sizeof *s);
	s->pg = pg;
	s->seq = stop;
	int have_call = 0;
	for (size_t i = 0; i < nm; i++) {
		const struct fr_rank *r = fr_rank_by(f, mem[i]);
		const struct fr_rank_pg *rp = r ? rank_pg_c(r, pg) : NULL;
		if (!r) {
			ints_add(&s->missing, &s->nmissing, mem[i]);
		} else if (!rp || rp->last_seq < stop) {
			ints_add(&s->behind, &s->nbehind, mem[i]);
		} else if (rp->first_seq > stop || rp->first_incomplete < 0 || stop < rp->first_incomplete) {
			ints_add(&s->done, &s->ndone, mem[i]);
		} else {
			ints_add(&s->waiting, &s->nwaiting, mem[i]);
			if (!have_call) { /* the stop call as a waiting rank holds it: its ring of last calls */
				for (size_t k = 0; k < r->nlane && !have_call; k++)
					if (r->lane[k].pg == pg && r->lane[k].seq == stop && !r->lane[k].is_p2p) {
						s->call = r->lane[k];
						have_call = 1;
					}
			}
		}
	}
	const struct fr_pg *p = &f->pgs[pg];
	const struct fr_ref *rf = stop >= p->base && stop - p->base < (int64_t)p->nrefs ? &p->refs[stop - p->base] : NULL;
	if (!have_call && rf && rf->used && rf->nv) {
		memset(&s->call, 0, sizeof s->call);
		s->call.pg = pg;
		s->call.seq = stop;
		s->call.op = rf->v[0].op;
		s->call.in_key = rf->v[0].in_key;
		s->call.out_key = rf->v[0].out_key;
		s->call.in_dt = rf->v[0].in_dt;
		s->call.where = rf->v[0].where;
		s->call.src = s->call.dst = -1;
	}
	if (rf && rf->used && s->nwaiting) {
		s->all_scheduled = rf->started == 0 && rf->completed == 0 && rf->scheduled == rf->have;
		s->all_started = rf->started == rf->have;
	}
	(void)known;
	free(mem);
}

/* A pending send or recv and its peer (global ranks through the group's
 * sorted members, as torch maps them). */
static void p2p_of_rank(struct flight *f, const struct fr_rank *r)
{
	for (size_t g = 0; g < r->npgs; g++) {
		const struct fr_rank_pg *rp = &r->pgs[g];
		const struct fr_pg *p = &f->pgs[rp->pg];
		for (size_t k = 0; k < rp->npending; k++) {
			const struct fr_call *c = &rp->pending[k];
			int send = op_is(f, c->op, "send");
			int peer_l = send ? c->dst : c->src;
			if (peer_l < 0 || !p->members || (size_t)peer_l >= p->nmembers)
				continue;
			int peer = p->members[peer_l];
			if (peer == r->rank)
				continue; /* to itself (a one-rank group) */
			const struct fr_rank *q = fr_rank_by(f, peer);
			const struct fr_rank_pg *qp = q ? rank_pg_c(q, rp->pg) : NULL;
			int matched = 0, size_diff = 0;
			for (size_t j = 0; qp && j < qp->npending && !matched; j++) {
				const struct fr_call *o = &qp->pending[j];
				if (op_is(f, o->op, send ? "recv" : "send") && o->src == c->src && o->dst == c->dst) {
					matched = 1;
					size_diff = (send ? c->in_key != o->out_key : c->out_key != o->in_key);
				}
			}
			if (matched && !size_diff)
				continue; /* both posted: waiting together */
			f->stops = xrealloc(f->stops, (f->nstops + 1) * sizeof *f->stops);
			struct fr_stop *s = &f->stops[f->nstops++];
			memset(s, 0, sizeof *s);
			s->pg = rp->pg;
			s->seq = c->p2p_seq;
			s->p2p = matched ? 2 : 1; /* 2: posted with another size */
			s->call = *c;
			ints_add(&s->waiting, &s->nwaiting, r->rank);
			if (!q)
				ints_add(&s->missing, &s->nmissing, peer);
			else
				ints_add(&s->behind, &s->nbehind, peer);
			return; /* the first pending op of the rank is the one it waits in */
		}
	}
}

/* ---- mismatches at finish ---- */

static char *rank_list(const int *v, size_t n, uint32_t extra)
{
	struct buf b;
	buf_init(&b);
	for (size_t i = 0; i < n && i < 16; i++)
		buf_printf(&b, "%s%d", i ? ", " : "", v[i]);
	if (n > 16 || extra)
		buf_printf(&b, " and %zu more", (n > 16 ? n - 16 : 0) + extra);
	return buf_steal(&b);
}

static void variant_text(const struct flight *f, struct buf *b, const struct fr_variant *v)
{
	buf_printf(b, "%s", fr_str(&f->str, v->op));
	if (v->in_key)
		buf_printf(b, " input %s", fr_str(&f->str, v->in_key));
	if (v->out_key)
		buf_printf(b, " output %s", fr_str(&f->str, v->out_key));
	if (v->in_dt || v->out_dt)
		buf_printf(b, " %s", fr_str(&f->str, v->in_dt ? v->in_dt : v->out_dt));
	if (v->where)
		buf_printf(b, " at %s", fr_str(&f->str, v->where));
}

static void ref_mismatches(struct flight *f, uint32_t pg)
{
	const struct fr_pg *p = &f->pgs[pg];
	for (size_t i = 0; i < p->nrefs; i++) {
		const struct fr_ref *rf = &p->refs[i];
		if (!rf->used)
			continue;
		if (rf->nv > 1) {
			size_t maj = 0;
			for (size_t k = 1; k < rf->nv; k++)
				if (rf->v[k].count > rf->v[maj].count ||
				    (rf->v[k].count == rf->v[maj].count && rf->v[k].ranks[0] < rf->v[maj].ranks[0]))
					maj = k;
			const struct fr_variant *a = &rf->v[maj];
			for (size_t k = 0; k < rf->nv; k++) {
				if (k == maj)
					continue;
				const struct fr_variant *b = &rf->v[k];
				const char *kind = b->op != a->op ? "op"
				                   : b->in_key != a->in_key || b->out_key != a->out_key ? "sizes" : "dtypes";
				size_t nr = b->count < FR_VRANKS ? b->count : FR_VRANKS;
				char *bl = rank_list(b->ranks, nr, b->count > FR_VRANKS ? b->count - FR_VRANKS : 0);
				char *al = rank_list(a->ranks, a->count < FR_VRANKS ? a->count : FR_VRANKS,
				                     a->count > FR_VRANKS ? a->count - FR_VRANKS : 0);
				struct buf t;
				buf_init(&t);
				buf_printf(&t, "at collective #%lld of process group %s, rank%s %s called ", (long long)rf->seq,
				           fr_str(&f->str, p->name), b->count == 1 ? "" : "s", bl);
				variant_text(f, &t, b);
				buf_printf(&t, " while rank%s %s called ", a->count == 1 ? "" : "s", al);
				variant_text(f, &t, a);
				add_mismatch(f, kind, pg, rf->seq, b->ranks, nr, buf_steal(&t));
				free(bl);
				free(al);
			}
		}
		if (rf->nv == 1 && op_is(f, rf->v[0].op, "all_to_all") && p->nmembers && rf->have == p->nmembers &&
		    rf->sum_in != rf->sum_out)
			add_mismatch(f, "numel", pg, rf->seq, NULL, 0,
			             xasprintf("all_to_all #%lld of process group %s sends %lld elements in all ranks together "
			                       "but receives %lld", (long long)rf->seq, fr_str(&f->str, p->name),
			                       (long long)rf->sum_in, (long long)rf->sum_out));
		if (rf->state_rank_b >= 0 && rf->state_a != rf->state_b) {
			int two[2] = {rf->state_rank_b, rf->state_rank_a};
			add_mismatch(f, "state", pg, rf->seq, two, 1,
			             xasprintf("collective #%lld of process group %s is %s on rank %d but %s on rank %d",
			                       (long long)rf->seq, fr_str(&f->str, p->name), fr_state_name(rf->state_b),
			                       rf->state_rank_b, fr_state_name(rf->state_a), rf->state_rank_a));
		}
	}
}

static void group_mismatches(struct flight *f)
{
	for (size_t g = 0; g < f->npgs; g++) {
		struct fr_pg *p = &f->pgs[g];
		/* the dumps disagree on its members: the lists of the fewest ranks differ */
		size_t maj = 0;
		for (size_t k = 1; k < p->nml; k++)
			if (p->ml[k].count > p->ml[maj].count)
				maj = k;
		for (size_t k = 0; k < p->nml; k++) {
			if (k == maj)
				continue;
			size_t nr = p->ml[k].count < FR_VRANKS ? p->ml[k].count : FR_VRANKS;
			char *who = rank_list(p->ml[k].ranks, nr, p->ml[k].count - (uint32_t)nr);
			char *maj_who = rank_list(p->ml[maj].ranks, p->ml[maj].count < FR_VRANKS ? p->ml[maj].count : FR_VRANKS,
			                          p->ml[maj].count > FR_VRANKS ? p->ml[maj].count - FR_VRANKS : 0);
			add_mismatch(f, "membership", (uint32_t)g, -1, p->ml[k].ranks, nr,
			             xasprintf("the dump%s of rank%s %s say%s process group %s (%s) has ranks %s, while the dump%s "
			                       "of rank%s %s say %s", nr == 1 ? "" : "s", nr == 1 ? "" : "s", who,
			                       nr == 1 ? "s" : "", fr_str(&f->str, p->name), fr_str(&f->str, p->desc),
			                       p->ml[k].text, p->ml[maj].count == 1 ? "" : "s", p->ml[maj].count == 1 ? "" : "s",
			                       maj_who, p->ml[maj].text));
			free(who);
			free(maj_who);
		}
		if (!p->members)
			continue;
		for (size_t i = 0; i < f->nranks; i++) {
			const struct fr_rank *r = &f->ranks[i];
			if (!rank_pg_c(r, (uint32_t)g))
				continue;
			int in = 0;
			for (size_t k = 0; k < p->nmembers; k++)
				in |= p->members[k] == r->rank;
			if (in)
				continue;
			add_mismatch(f, "wrong_group", (uint32_t)g, -1, &r->rank, 1,
			             xasprintf("rank %d issued operations in process group %s (%s), whose members %s do not "
			                       "include it", r->rank, fr_str(&f->str, p->name), fr_str(&f->str, p->desc),
			                       p->nml ? p->ml[0].text : "?"));
		}
	}
}

static int cmp_mis(const void *a, const void *b)
{
	const struct fr_mismatch *x = a, *y = b;
	if (x->pg != y->pg)
		return x->pg < y->pg ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return strcmp(x->kind, y->kind);
}

void fr_analyse(struct flight *f)
{
	if (f->nranks > 1)
		xqsort(f->ranks, f->nranks, sizeof *f->ranks, cmp_rank);
	for (size_t g = 0; g < f->npgs; g++) {
		stop_of_pg(f, (uint32_t)g);
		ref_mismatches(f, (uint32_t)g);
	}
	for (size_t i = 0; i < f->nranks; i++)
		p2p_of_rank(f, &f->ranks[i]);
	group_mismatches(f);
	if (f->nmis > 1)
		xqsort(f->mis, f->nmis, sizeof *f->mis, cmp_mis);
	/* the first mismatch of each group, as torch's analyzer stops pairing there */
	for (size_t i = 0; i < f->nmis; i++) {
		int seen = 0;
		for (size_t k = 0; k < i && !seen; k++)
			seen = f->mis[k].pg == f->mis[i].pg && f->mis[k].first;
		f->mis[i].first = !seen && strcmp(f->mis[i].kind, "state") != 0;
	}
}
