/* flight.c - one flight-recorder dump document to calls (flight.h): its
 * kind from the content, the safe pickle reader or cJSON to a value tree,
 * the format version's fields (docs/flight.md: "seq_id" before 2.0,
 * "collective_seq_id"/"p2p_seq_id"/"process_group"/dtypes/pg_status from
 * 2.x, pg_config as {pg_id: [ranks]} in 1.x and {name: {name, desc, ranks}}
 * in 2.x), each entry handed to the store (flight_match.c).  The value tree
 * lives in an arena emptied at the end of the document. */
#include "parse/flight_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pickle.h"
#include "base/pyval.h"

/* ---- kind ---- */

static int has(const char *h, size_t n, const char *s)
{
	return memmem(h, n, s, strlen(s)) != NULL;
}

int flight_sniff(const char *head, size_t n)
{
	if (!head || n < 16)
		return 0;
	size_t look = n < 8192 ? n : 8192;
	const unsigned char *u = (const unsigned char *)head;
	if (u[0] == 0x80 && u[1] >= 2 && u[1] <= 5) {
		/* the dump's keys as pickled strings (torch writes "version"
		 * first since 2.x, "entries" first in 1.x) */
		int keys = has(head, look, "entries") || has(head, look, "pg_config");
		return keys && (has(head, look, "version") || has(head, look, "profiling_name")) ? 1 : 0;
	}
	size_t i = 0;
	while (i < look && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
		i++;
	/* torch's JSON dump sorts its keys: "comm_lib_version", "entries" ...,
	 * "version" last (past the head of a large dump) */
	if (i < look && head[i] == '{' &&
	    ((has(head, look, "\"entries\"") && has(head, look, "\"profiling_name\"")) ||
	     (has(head, look, "\"pg_config\"") && (has(head, look, "\"version\"") || has(head, look, "\"pg_status\"")))))
		return 2;
	return 0;
}

/* ---- helpers over the value tree ---- */

struct rd {
	struct flight *f;
	struct fr_rank *r;
	const char *path;
	/* caches: the values torch shares through the memo */
	const struct pyval *pg_v;
	uint32_t pg_i;
	struct fcache {
		const struct pyval *first, *last;
		uint32_t n;
		uint32_t frames, where;
		const struct pyval **v;
	} fc[256];
	struct arena *a;
	struct buf tmp;
};

static uint32_t intern_pv(struct flight *f, const struct pyval *v)
{
	if (!v || (v->type != PV_STR && v->type != PV_BYTES))
		return 0;
	return fr_intern(&f->str, v->u.s, v->n);
}

static int64_t get_int(const struct pyval *d, const char *k, int64_t dflt)
{
	int64_t x;
	const struct pyval *v = pyval_get(d, k);
	if (v && v->type == PV_STR && v->n > 0 && v->n < 24) { /* the JSON dump's pg_status holds strings */
		char t[24];
		memcpy(t, v->u.s, v->n);
		t[v->n] = 0;
		char *e;
		long long y = strtoll(t, &e, 10);
		return *e ? dflt : y;
	}
	return pyval_int(v, &x) ? x : dflt;
}

/* "[[1024], [3, 4]]" (as Python prints it) and the first tensor's elements */
static uint32_t sizes_key(struct rd *d, const struct pyval *v, int64_t *numel, int32_t *nouts)
{
	uint32_t n;
	struct pyval *const *t = pyval_items(v, &n);
	*numel = -1;
	*nouts = (int32_t)n;
	if (!v)
		return 0;
	struct buf *b = &d->tmp;
	buf_reset(b);
	buf_addc(b, '[');
	for (uint32_t i = 0; i < n && b->len < 4096; i++) {
		uint32_t m;
		struct pyval *const *dims = pyval_items(t[i], &m);
		int64_t prod = 1;
		buf_adds(b, i ? ", [" : "[");
		for (uint32_t k = 0; k < m; k++) {
			int64_t x = 0;
			pyval_int(dims[k], &x);
			char num[24], *q = num + sizeof num;
			uint64_t u = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
			do
				*--q = (char)('0' + u % 10);
			while ((u /= 10) != 0);
			if (x < 0)
				*--q = '-';
			if (k)
				buf_add(b, ", ", 2);
			buf_add(b, q, (size_t)(num + sizeof num - q));
			if (x >= 0 && (prod == 0 || x <= INT64_MAX / (prod ? prod : 1)))
				prod *= x;
		}
		buf_addc(b, ']');
		if (i == 0)
			*numel = prod;
	}
	buf_addc(b, ']');
	return fr_intern(&d->f->str, b->data, b->len);
}

/* dtypes as a sorted set ("BFloat16,Float"), as torch compares them */
static uint32_t dtypes_key(struct rd *d, const struct pyval *v)
{
	uint32_t n;
	struct pyval *const *t = pyval_items(v, &n);
	if (!v)
		return 0;
	uint32_t ids[16];
	size_t k = 0;
	for (uint32_t i = 0; i < n && k < 16; i++) {
		uint32_t id = intern_pv(d->f, t[i]);
		size_t j = 0;
		while (j < k && ids[j] != id)
			j++;
		if (j == k)
			ids[k++] = id;
	}
	for (size_t i = 1; i < k; i++) /* insertion sort by text */
		for (size_t j = i; j > 0 && strcmp(fr_str(&d->f->str, ids[j - 1]), fr_str(&d->f->str, ids[j])) > 0; j--) {
			uint32_t x = ids[j];
			ids[j] = ids[j - 1];
			ids[j - 1] = x;
		}
	struct buf *b = &d->tmp;
	buf_reset(b);
	for (size_t i = 0; i < k; i++) {
		if (i)
			buf_addc(b, ',');
		buf_add(b, fr_str(&d->f->str, ids[i]), d->f->str.len[ids[i]]);
	}
	return fr_intern(&d->f->str, b->data, b->len);
}

/* torch's own API frames, skipped to find the caller's line */
static int api_frame(const struct pyval *fn)
{
	static const char *const skip[] = {"distributed_c10d.py", "c10d_logger.py", NULL};
	if (!fn || fn->type != PV_STR)
		return 0;
	for (size_t i = 0; skip[i]; i++) {
		size_t l = strlen(skip[i]);
		if (fn->n >= l && memcmp(fn->u.s + fn->n - l, skip[i], l) == 0)
			return 1;
	}
	return 0;
}

static void frame_text(struct buf *b, const struct pyval *fr)
{
	const struct pyval *nm = pyval_get(fr, "name"), *fn = pyval_get(fr, "filename");
	int64_t line = get_int(fr, "line", 0);
	buf_add(b, nm && nm->type == PV_STR ? nm->u.s : "?", nm && nm->type == PV_STR ? nm->n : 1);
	buf_adds(b, " at ");
	buf_add(b, fn && fn->type == PV_STR ? fn->u.s : "?", fn && fn->type == PV_STR ? fn->n : 1);
	buf_printf(b, ":%lld", (long long)line);
}

/* The stack (interned) and the caller's frame "file:line (name)"; cached by
 * the frame values, which torch shares through the memo. */
static void frames_of(struct rd *d, const struct pyval *v, uint32_t *frames, uint32_t *where)
{
	uint32_t n;
	struct pyval *const *t = pyval_items(v, &n);
	*frames = *where = 0;
	if (!n)
		return;
	d->r->has_frames = 1;
	if (n > 64)
		n = 64;
	uintptr_t h = (uintptr_t)t[0] * 31 + (uintptr_t)t[n - 1] * 7 + n;
	struct fcache *c = &d->fc[(h >> 4) % 256];
	if (c->v && c->n == n && c->first == t[0] && c->last == t[n - 1] &&
	    memcmp(c->v, t, n * sizeof *t) == 0) {
		*frames = c->frames;
		*where = c->where;
		return;
	}
	struct buf *b = &d->tmp;
	buf_reset(b);
	const struct pyval *caller = NULL;
	for (uint32_t i = 0; i < n && b->len < 8192; i++) {
		if (i)
			buf_addc(b, '\n');
		frame_text(b, t[i]);
		if (!caller && !api_frame(pyval_get(t[i], "filename")))
			caller = t[i];
	}
	*frames = fr_intern(&d->f->str, b->data, b->len);
	if (caller) {
		buf_reset(b);
		const struct pyval *nm = pyval_get(caller, "name"), *fn = pyval_get(caller, "filename");
		buf_add(b, fn && fn->type == PV_STR ? fn->u.s : "?", fn && fn->type == PV_STR ? fn->n : 1);
		buf_printf(b, ":%lld", (long long)get_int(caller, "line", 0));
		if (nm && nm->type == PV_STR) {
			buf_adds(b, " (");
			buf_add(b, nm->u.s, nm->n);
			buf_addc(b, ')');
		}
		*where = fr_intern(&d->f->str, b->data, b->len);
	}
	c->v = arena_zalloc(d->a, n * sizeof *t);
	if (c->v) {
		memcpy(c->v, t, n * sizeof *t);
		c->n = n;
		c->first = t[0];
		c->last = t[n - 1];
		c->frames = *frames;
		c->where = *where;
	}
}

/* "all_reduce", "send 0->1", "recv 1<-0" after the backend prefix "nccl:" */
static void op_of(struct rd *d, const struct pyval *pn, struct fr_call *c)
{
	const char *s = pn && pn->type == PV_STR ? pn->u.s : "";
	size_t n = pn && pn->type == PV_STR ? pn->n : 0;
	const char *colon = memchr(s, ':', n);
	if (colon) {
		n -= (size_t)(colon + 1 - s);
		s = colon + 1;
	}
	const char *sp = memchr(s, ' ', n);
	size_t opl = sp ? (size_t)(sp - s) : n;
	c->op = fr_intern(&d->f->str, s, opl);
	c->src = c->dst = -1;
	if (sp) {
		char t[48];
		size_t tl = n - opl - 1 < sizeof t - 1 ? n - opl - 1 : sizeof t - 1;
		memcpy(t, sp + 1, tl);
		t[tl] = 0;
		int a, b;
		if (opl == 4 && !memcmp(s, "send", 4) && sscanf(t, "%d->%d", &a, &b) == 2) {
			c->src = a;
			c->dst = b;
		} else if (opl == 4 && !memcmp(s, "recv", 4) && sscanf(t, "%d<-%d", &a, &b) == 2) {
			c->dst = a;
			c->src = b;
		}
	}
	c->marker = opl == 9 && !memcmp(s, "coalesced", 9);
	if (opl == 4 && (!memcmp(s, "send", 4) || !memcmp(s, "recv", 4)))
		c->is_p2p = 1;
}

/* An entry's fields, found in one pass over its keys (an entry has ~20;
 * looking each up by name was a tenth of the time at 1024 ranks). */
enum { K_PN, K_PG, K_PGID, K_CSEQ, K_SEQ, K_P2P, K_ISP2P, K_REC, K_TIME, K_STATE, K_IN, K_OUT, K_IDT, K_ODT, K_FR, K_N };
static const char *const KEYS[K_N] = {"profiling_name", "process_group", "pg_id", "collective_seq_id", "seq_id",
                                      "p2p_seq_id", "is_p2p", "record_id", "time_created_ns", "state", "input_sizes",
                                      "output_sizes", "input_dtypes", "output_dtypes", "frames"};

static const uint8_t KLEN[K_N] = {14, 13, 5, 17, 6, 10, 6, 9, 15, 5, 11, 12, 12, 13, 6};

static void fields(const struct pyval *e, const struct pyval **v)
{
	memset(v, 0, K_N * sizeof *v);
	for (uint32_t i = 0; i + 1 < e->n; i += 2) {
		const struct pyval *k = e->u.items[i];
		if (k->type != PV_STR)
			continue;
		for (int f = 0; f < K_N; f++)
			if (k->n == KLEN[f] && k->u.s[0] == KEYS[f][0] && !memcmp(k->u.s, KEYS[f], k->n)) {
				v[f] = e->u.items[i + 1];
				break;
			}
	}
}

static int64_t int_of(const struct pyval *v, int64_t dflt)
{
	int64_t x;
	return pyval_int(v, &x) ? x : dflt;
}

static uint32_t pg_of(struct rd *d, const struct pyval *pg, const struct pyval *pgid)
{
	if (pg && pg == d->pg_v)
		return d->pg_i;
	uint32_t n;
	struct pyval *const *t = pyval_items(pg, &n);
	uint32_t i;
	if (n >= 2 && t[0]->type == PV_STR && t[1]->type == PV_STR) {
		i = fr_pg_find(d->f, t[0]->u.s, t[0]->n, t[1]->u.s, t[1]->n);
	} else {
		/* before format 2.0: the ProcessGroupNCCL uid only */
		char nm[24];
		int l = snprintf(nm, sizeof nm, "%lld", (long long)int_of(pgid, 0));
		i = fr_pg_find(d->f, nm, (size_t)l, "undefined", 9);
		pg = NULL;
	}
	if (pg) {
		d->pg_v = pg;
		d->pg_i = i;
	}
	return i;
}

static int state_of(const struct pyval *v)
{
	if (pyval_str_is(v, "completed"))
		return ST_COMPLETED;
	if (pyval_str_is(v, "started"))
		return ST_STARTED;
	if (pyval_str_is(v, "scheduled"))
		return ST_SCHEDULED;
	return ST_UNKNOWN;
}

static void read_entry(struct rd *d, const struct pyval *e)
{
	const struct pyval *v[K_N];
	fields(e, v);
	struct fr_call c;
	memset(&c, 0, sizeof c);
	op_of(d, v[K_PN], &c);
	c.pg = pg_of(d, v[K_PG], v[K_PGID]);
	int64_t pgid = int_of(v[K_PGID], -1);
	if (pgid >= 0 && d->f->pgs[c.pg].pg_id < 0)
		d->f->pgs[c.pg].pg_id = pgid;
	c.seq = int_of(v[K_CSEQ] ? v[K_CSEQ] : v[K_SEQ], -1);
	c.p2p_seq = int_of(v[K_P2P], -1);
	if (v[K_ISP2P] && v[K_ISP2P]->type == PV_BOOL)
		c.is_p2p = v[K_ISP2P]->u.i != 0;
	c.record_id = int_of(v[K_REC], -1);
	c.time_ns = int_of(v[K_TIME], 0);
	c.state = (uint8_t)state_of(v[K_STATE]);
	c.in_key = sizes_key(d, v[K_IN], &c.in_numel, &c.nins);
	c.out_key = sizes_key(d, v[K_OUT], &c.out_numel, &c.nouts);
	c.in_dt = dtypes_key(d, v[K_IDT]);
	c.out_dt = dtypes_key(d, v[K_ODT]);
	frames_of(d, v[K_FR], &c.frames, &c.where);
	c.nops = 1;
	fr_note_call(d->f, d->r, &c);
}

/* "[0, 1, 2]" (2.x pg_config) or a list of ints (1.x) to sorted ranks */
static int *ranks_list(const struct pyval *v, size_t *n)
{
	*n = 0;
	if (!v)
		return NULL;
	size_t cap = 16;
	int *out = xmalloc(cap * sizeof *out);
	if (v->type == PV_STR) {
		const char *p = v->u.s, *e = v->u.s + v->n;
		while (p < e) {
			while (p < e && !(*p >= '0' && *p <= '9'))
				p++;
			if (p >= e)
				break;
			long x = 0;
			while (p < e && *p >= '0' && *p <= '9' && x < 100000000)
				x = x * 10 + (*p++ - '0');
			if (*n == cap)
				out = xrealloc(out, (cap *= 2) * sizeof *out);
			out[(*n)++] = (int)x;
		}
	} else {
		uint32_t m;
		struct pyval *const *t = pyval_items(v, &m);
		for (uint32_t i = 0; i < m; i++) {
			int64_t x;
			if (!pyval_int(t[i], &x) || x < 0 || x > 100000000)
				continue;
			if (*n == cap)
				out = xrealloc(out, (cap *= 2) * sizeof *out);
			out[(*n)++] = (int)x;
		}
	}
	for (size_t i = 1; i < *n; i++)
		for (size_t j = i; j > 0 && out[j - 1] > out[j]; j--) {
			int t = out[j];
			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return out;
}

static void read_pg_config(struct rd *d, const struct pyval *cfg, int rank)
{
	if (!cfg || cfg->type != PV_DICT)
		return;
	for (uint32_t i = 0; i + 1 < cfg->n; i += 2) {
		const struct pyval *k = cfg->u.items[i], *v = cfg->u.items[i + 1];
		char nm[32];
		const char *name = nm, *desc = "undefined";
		size_t nl, dl = 9;
		const struct pyval *rk = v;
		if (v->type == PV_DICT) {
			const struct pyval *n = pyval_get(v, "name"), *ds = pyval_get(v, "desc");
			const struct pyval *src = n && n->type == PV_STR ? n : k;
			if (src->type != PV_STR)
				continue;
			name = src->u.s;
			nl = src->n;
			if (ds && ds->type == PV_STR) {
				desc = ds->u.s;
				dl = ds->n;
			}
			rk = pyval_get(v, "ranks");
		} else {
			int64_t id;
			if (!pyval_int(k, &id))
				continue;
			nl = (size_t)snprintf(nm, sizeof nm, "%lld", (long long)id);
		}
		size_t n;
		int *r = ranks_list(rk, &n);
		uint32_t pg = fr_pg_find(d->f, name, nl, desc, dl);
		struct buf *b = &d->tmp;
		buf_reset(b);
		buf_addc(b, '[');
		for (size_t j = 0; j < n && j < 64; j++)
			buf_printf(b, "%s%d", j ? ", " : "", r[j]);
		buf_adds(b, n > 64 ? ", ...]" : "]");
		if (r && n)
			fr_pg_members(d->f, pg, r, n, rank, b->data);
		free(r);
	}
}

static void read_pg_status(struct rd *d, const struct pyval *st)
{
	if (!st || st->type != PV_DICT)
		return;
	for (uint32_t i = 0; i + 1 < st->n && d->r->nstatus < 64; i += 2) {
		const struct pyval *k = st->u.items[i], *v = st->u.items[i + 1];
		int64_t id;
		char t[24];
		if (k->type == PV_STR && k->n > 0 && k->n < sizeof t) {
			memcpy(t, k->u.s, k->n);
			t[k->n] = 0;
			char *e;
			id = strtoll(t, &e, 10);
			if (*e)
				continue;
		} else if (!pyval_int(k, &id)) {
			continue;
		}
		size_t j = d->r->nstatus++;
		d->r->status[j].pg_id = id;
		d->r->status[j].enq = get_int(v, "last_enqueued_collective", -2);
		d->r->status[j].start = get_int(v, "last_started_collective", -2);
		d->r->status[j].comp = get_int(v, "last_completed_collective", -2);
	}
}

/* The rank a dump belongs to: the number its name ends with, as torch's
 * analyzer takes it (TORCH_FR_DUMP_TEMP_FILE is a prefix + rank), an
 * extension such as ".json" aside; -1 when the name has none. */
static int rank_of_name(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t n = strlen(b);
	static const char *const ext[] = {".json", ".pkl", ".pickle", ".bin", ".gz", NULL};
	for (int again = 0; again < 2; again++)
		for (size_t i = 0; ext[i]; i++) {
			size_t l = strlen(ext[i]);
			if (n > l && !memcmp(b + n - l, ext[i], l)) {
				n -= l;
				break;
			}
		}
	size_t e = n;
	while (e > 0 && b[e - 1] >= '0' && b[e - 1] <= '9')
		e--;
	if (e == n || n - e > 7)
		return -1;
	return atoi(b + e);
}

static void read_dump(struct flight *f, const char *path, const struct pyval *root, int json, int cut,
                      struct arena *a, struct msgs *m)
{
	if (!root || root->type != PV_DICT) {
		msgs_add(m, "%s: not a flight-recorder dump: its top value is not a dict; not analysed", path);
		strvec_push(&f->unread, path);
		return;
	}
	const struct pyval *entries = pyval_get(root, "entries"), *cfg = pyval_get(root, "pg_config");
	int rank = rank_of_name(path);
	if (rank < 0 && cfg && cfg->type == PV_DICT && cfg->n == 2) {
		/* one process group of one rank: a one-rank job */
		size_t n;
		const struct pyval *v = cfg->u.items[1];
		int *r = ranks_list(v->type == PV_DICT ? pyval_get(v, "ranks") : v, &n);
		if (n == 1)
			rank = r[0];
		free(r);
	}
	if (rank < 0 || rank >= FLIGHT_MAX_RANKS) {
		msgs_add(m, "%s: a flight-recorder dump whose rank is unknown (torch names them PREFIX<rank>, e.g. "
		         "nccl_trace_rank_3): left out of the cross-rank match", path);
		strvec_push(&f->unread, path);
		return;
	}
	struct fr_rank *r = fr_rank_begin(f, rank, path, m);
	if (!r)
		return;
	r->json = json;
	r->cut = cut;
	r->version = intern_pv(f, pyval_get(root, "version"));
	struct rd *d = xcalloc(1, sizeof *d);
	d->f = f;
	d->r = r;
	d->path = path;
	d->a = a;
	d->pg_i = UINT32_MAX;
	buf_init(&d->tmp);
	read_pg_config(d, cfg, rank);
	read_pg_status(d, pyval_get(root, "pg_status"));
	uint32_t n;
	struct pyval *const *t = pyval_items(entries, &n);
	for (uint32_t i = 0; i < n; i++)
		if (t[i]->type == PV_DICT)
			read_entry(d, t[i]);
	r->nentries = n;
	if (!entries)
		strvec_push_owned(&f->noted, xasprintf("%s: the dump holds no entries (dumped with includeCollectives=False?)", path));
	fr_rank_end(f, r);
	buf_free(&d->tmp);
	free(d);
}

void flight_add_doc(struct flight *f, const char *path, const char *data, size_t n, int complete,
                    struct msgs *m)
{
	int kind = flight_sniff(data, n);
	/* the tree of a dump is about 10-20 times its pickle: bounded (the
	 * arena is empty: new, or reset after the dump before) */
	struct arena *a = &f->arena;
	a->max = n < (16u << 20) ? 24 * n + (4u << 20) : 512u << 20;
	struct pyval *root = NULL;
	const char *cutnote = complete ? "" : " (the input was cut before its end)";
	if (kind == 2) {
		cJSON *j = cJSON_ParseWithLength(data, n);
		if (!j) {
			const char *e = cJSON_GetErrorPtr();
			size_t at = e && e >= data && e <= data + n ? (size_t)(e - data) : n;
			msgs_add(m, "%s: byte %zu: not valid JSON%s: the flight-recorder dump was not analysed", path, at, cutnote);
			strvec_push(&f->unread, path);
		} else {
			root = pyval_from_json(a, j, 32);
			cJSON_Delete(j);
			if (!root) {
				msgs_add(m, "%s: the JSON dump is nested too deep or too large to read; not analysed", path);
				strvec_push(&f->unread, path);
			}
		}
	} else {
		struct pickle_limits lim;
		pickle_limits_default(&lim);
		struct pickle_error err;
		root = pickle_read(a, (const unsigned char *)data, n, &lim, &err);
		if (!root) {
			msgs_add(m, "%s: %s%s: the flight-recorder dump was not analysed", path, err.msg, cutnote);
			strvec_push(&f->unread, path);
		}
	}
	if (root)
		read_dump(f, path, root, kind == 2, !complete, a, m);
	/* up to 64 MiB of the memory is kept for the next dump (no page
	 * faults per rank); a large dump's rest is freed */
	arena_reset(a, 64u << 20);
}

/* The one caller of the other flight modules' steps, so that each calls
 * only those below it (store <- findings <- report section). */
void flight_finish(struct flight *f, const struct ranks *rk)
{
	if (!f || f->finished || flight_ndumps(f) == 0)
		return;
	f->finished = 1;
	fr_analyse(f);
	fr_items(f);
	fr_log_compare(f, rk);
	flight_build_json(f);
}
