/* flight_json.c - the report's "flight_recorder" section (docs/json.md),
 * built once by flight_finish from the store and its findings. */
#include "parse/flight_int.h"

#include <stdlib.h>
#include <string.h>

static cJSON *int_array(const int *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
	return a;
}

static void str_or_skip(cJSON *o, const char *k, const char *v)
{
	if (v && *v)
		cJSON_AddStringToObject(o, k, v);
}

static cJSON *call_json(const struct flight *f, const struct fr_call *c, int stack)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "process_group", fr_str(&f->str, f->pgs[c->pg].name));
	cJSON_AddStringToObject(o, "op", fr_str(&f->str, c->op));
	if (c->is_p2p) {
		cJSON_AddNumberToObject(o, "p2p_seq", (double)c->p2p_seq);
		if (c->src >= 0)
			cJSON_AddNumberToObject(o, "src", c->src);
		if (c->dst >= 0)
			cJSON_AddNumberToObject(o, "dst", c->dst);
	} else {
		cJSON_AddNumberToObject(o, "seq", (double)c->seq);
	}
	cJSON_AddStringToObject(o, "state", fr_state_name(c->state));
	str_or_skip(o, "input_sizes", fr_str(&f->str, c->in_key));
	str_or_skip(o, "output_sizes", fr_str(&f->str, c->out_key));
	str_or_skip(o, "dtypes", fr_str(&f->str, c->in_dt ? c->in_dt : c->out_dt));
	if (c->nops > 1)
		cJSON_AddNumberToObject(o, "coalesced_ops", c->nops);
	str_or_skip(o, "where", fr_str(&f->str, c->where));
	if (stack && c->frames)
		cJSON_AddStringToObject(o, "frames", fr_str(&f->str, c->frames));
	return o;
}

static const struct fr_rank_pg *rpg(const struct fr_rank *r, uint32_t pg)
{
	for (size_t i = 0; r && i < r->npgs; i++)
		if (r->pgs[i].pg == pg)
			return &r->pgs[i];
	return NULL;
}

static cJSON *stop_json(const struct flight *f, const struct fr_stop *s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "kind", s->p2p ? "p2p" : "collective");
	cJSON_AddStringToObject(o, "process_group", fr_str(&f->str, f->pgs[s->pg].name));
	str_or_skip(o, "process_group_desc", fr_str(&f->str, f->pgs[s->pg].desc));
	cJSON_AddNumberToObject(o, s->p2p ? "p2p_seq" : "seq", (double)s->seq);
	cJSON_AddItemToObject(o, "call", call_json(f, &s->call, 1));
	cJSON_AddItemToObject(o, "behind", int_array(s->behind, s->nbehind));
	cJSON_AddItemToObject(o, "waiting", int_array(s->waiting, s->nwaiting));
	cJSON_AddItemToObject(o, "completed", int_array(s->done, s->ndone));
	cJSON_AddItemToObject(o, "without_dump", int_array(s->missing, s->nmissing));
	if (s->nwaiting && !s->p2p)
		cJSON_AddStringToObject(o, "waiting_state", s->all_scheduled ? "scheduled" : s->all_started ? "started" : "mixed");
	cJSON *cul = cJSON_AddArrayToObject(o, "culprits");
	for (size_t i = 0; i < s->nbehind && i < 64; i++) {
		const struct fr_rank *r = fr_rank_by(f, s->behind[i]);
		cJSON *c = cJSON_CreateObject();
		cJSON_AddNumberToObject(c, "rank", s->behind[i]);
		const struct fr_rank_pg *rp = rpg(r, s->pg);
		if (rp && rp->has_last)
			cJSON_AddItemToObject(c, "last_in_group", call_json(f, &rp->last, 1));
		if (r && r->nlane)
			cJSON_AddItemToObject(c, "last", call_json(f, &r->lane[(r->ncalls - 1) % FR_LANE], 1));
		if (r)
			cJSON_AddStringToObject(c, "dump", r->path);
		cJSON_AddItemToArray(cul, c);
	}
	return o;
}

/* The ranks shown side by side: the culprits, then waiting ranks, then
 * the rest, at most 16. */
static void lanes_json(const struct flight *f, cJSON *root, const struct fr_stop *s)
{
	int pick[16];
	size_t n = 0;
	const int *lists[3] = {s ? s->behind : NULL, s ? s->waiting : NULL, s ? s->done : NULL};
	size_t counts[3] = {s ? s->nbehind : 0, s ? s->nwaiting : 0, s ? s->ndone : 0};
	for (int l = 0; l < 3; l++)
		for (size_t i = 0; i < counts[l] && n < (l == 0 ? 8 : l == 1 ? 14 : 16); i++)
			pick[n++] = lists[l][i];
	for (size_t i = 0; i < f->nranks && n < 4; i++) {
		int dup = 0;
		for (size_t k = 0; k < n; k++)
			dup |= pick[k] == f->ranks[i].rank;
		if (!dup)
			pick[n++] = f->ranks[i].rank;
	}
	cJSON *lanes = cJSON_AddArrayToObject(root, "lanes");
	for (size_t i = 0; i < n; i++) {
		const struct fr_rank *r = fr_rank_by(f, pick[i]);
		if (!r)
			continue;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "rank", r->rank);
		const char *role = "";
		for (size_t k = 0; s && k < s->nbehind; k++)
			if (s->behind[k] == r->rank)
				role = "behind";
		for (size_t k = 0; s && !*role && k < s->nwaiting; k++)
			if (s->waiting[k] == r->rank)
				role = "waiting";
		for (size_t k = 0; s && !*role && k < s->ndone; k++)
			if (s->done[k] == r->rank)
				role = "completed";
		str_or_skip(o, "role", role);
		cJSON *calls = cJSON_AddArrayToObject(o, "calls");
		size_t first = r->ncalls > FR_LANE ? r->ncalls - FR_LANE : 0;
		for (size_t k = first; k < r->ncalls; k++) {
			const struct fr_call *c = &r->lane[k % FR_LANE];
			cJSON *cj = call_json(f, c, 0);
			if (s && !s->p2p && c->pg == s->pg && !c->is_p2p && c->seq == s->seq)
				cJSON_AddTrueToObject(cj, "stop");
			cJSON_AddItemToArray(calls, cj);
		}
		cJSON_AddItemToArray(lanes, o);
	}
}

static cJSON *dumps_json(const struct flight *f)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < f->nranks; i++) {
		const struct fr_rank *r = &f->ranks[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "path", r->path);
		cJSON_AddNumberToObject(o, "rank", r->rank);
		cJSON_AddStringToObject(o, "format", r->json ? "json" : "pickle");
		cJSON_AddStringToObject(o, "version", r->version ? fr_str(&f->str, r->version) : "(none)");
		cJSON_AddNumberToObject(o, "entries", (double)r->nentries);
		cJSON_AddBoolToObject(o, "stack_traces", r->has_frames);
		if (r->cut)
			cJSON_AddBoolToObject(o, "complete", 0);
		cJSON *st = cJSON_AddArrayToObject(o, "pg_status");
		for (size_t k = 0; k < r->npgs; k++) {
			const struct fr_rank_pg *rp = &r->pgs[k];
			if (!rp->has_status && rp->last_seq < 0)
				continue;
			cJSON *s = cJSON_CreateObject();
			cJSON_AddStringToObject(s, "process_group", fr_str(&f->str, f->pgs[rp->pg].name));
			if (rp->has_status) {
				cJSON_AddNumberToObject(s, "last_enqueued", (double)rp->st_enq);
				cJSON_AddNumberToObject(s, "last_started", (double)rp->st_start);
				cJSON_AddNumberToObject(s, "last_completed", (double)rp->st_comp);
			}
			if (rp->last_seq >= 0) {
				cJSON_AddNumberToObject(s, "first_seq", (double)rp->first_seq);
				cJSON_AddNumberToObject(s, "last_seq", (double)rp->last_seq);
			}
			if (rp->first_incomplete >= 0)
				cJSON_AddNumberToObject(s, "first_incomplete", (double)rp->first_incomplete);
			if (rp->npending_all)
				cJSON_AddNumberToObject(s, "p2p_pending", (double)rp->npending_all);
			cJSON_AddItemToArray(st, s);
		}
		cJSON_AddItemToArray(a, o);
		if (i >= 4096)
			break;
	}
	return a;
}

void flight_build_json(struct flight *f)
{
	cJSON *root = cJSON_CreateObject();
	if (f->headline)
		cJSON_AddStringToObject(root, "headline", f->headline);
	cJSON *ver = cJSON_AddArrayToObject(root, "versions");
	for (size_t i = 0; i < f->nranks; i++) {
		const char *v = f->ranks[i].version ? fr_str(&f->str, f->ranks[i].version) : "(none)";
		int dup = 0;
		const cJSON *it;
		cJSON_ArrayForEach(it, ver) dup |= !strcmp(it->valuestring, v);
		if (!dup)
			cJSON_AddItemToArray(ver, cJSON_CreateString(v));
	}
	cJSON_AddNumberToObject(root, "dumps_read", (double)f->nranks);
	cJSON *un = cJSON_AddArrayToObject(root, "dumps_not_read");
	for (size_t i = 0; i < f->unread.n; i++)
		cJSON_AddItemToArray(un, cJSON_CreateString(f->unread.v[i]));
	cJSON *groups = cJSON_AddArrayToObject(root, "process_groups");
	int *missing = NULL;
	size_t nmissing = 0;
	for (size_t g = 0; g < f->npgs; g++) {
		const struct fr_pg *p = &f->pgs[g];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", fr_str(&f->str, p->name));
		cJSON_AddStringToObject(o, "desc", fr_str(&f->str, p->desc));
		if (p->pg_id >= 0)
			cJSON_AddNumberToObject(o, "pg_id", (double)p->pg_id);
		if (p->members) {
			cJSON_AddNumberToObject(o, "size", (double)p->nmembers);
			cJSON_AddItemToObject(o, "ranks", int_array(p->members, p->nmembers < 1024 ? p->nmembers : 1024));
			for (size_t k = 0; k < p->nmembers; k++) {
				int dup = 0;
				for (size_t j = 0; j < nmissing; j++)
					dup |= missing[j] == p->members[k];
				if (!dup && !fr_rank_by(f, p->members[k])) {
					missing = xrealloc(missing, (nmissing + 1) * sizeof *missing);
					missing[nmissing++] = p->members[k];
				}
			}
		}
		cJSON_AddItemToArray(groups, o);
	}
	cJSON_AddItemToObject(root, "ranks_without_dump", int_array(missing, nmissing));
	free(missing);
	cJSON *stops = cJSON_AddArrayToObject(root, "stops");
	const struct fr_stop *main = fr_main_stop(f);
	for (size_t i = 0; i < f->nstops; i++)
		cJSON_AddItemToArray(stops, stop_json(f, &f->stops[i]));
	cJSON *mis = cJSON_AddArrayToObject(root, "mismatches");
	for (size_t i = 0; i < f->nmis && i < 64; i++) {
		const struct fr_mismatch *m = &f->mis[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "kind", m->kind);
		cJSON_AddStringToObject(o, "process_group", fr_str(&f->str, f->pgs[m->pg].name));
		if (m->seq >= 0)
			cJSON_AddNumberToObject(o, "seq", (double)m->seq);
		cJSON_AddItemToObject(o, "ranks", int_array(m->ranks, m->nranks));
		cJSON_AddBoolToObject(o, "first_in_group", m->first);
		cJSON_AddStringToObject(o, "detail", m->detail);
		cJSON_AddItemToArray(mis, o);
	}
	cJSON *log = cJSON_AddArrayToObject(root, "log");
	for (size_t i = 0; i < f->nlog; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "rank", f->log[i].rank);
		cJSON_AddBoolToObject(o, "agrees", f->log[i].agrees);
		cJSON_AddStringToObject(o, "text", f->log[i].text);
		if (*f->log[i].path) {
			cJSON_AddStringToObject(o, "path", f->log[i].path);
			cJSON_AddNumberToObject(o, "line", (double)f->log[i].line);
		}
		cJSON_AddItemToArray(log, o);
	}
	lanes_json(f, root, main);
	cJSON_AddItemToObject(root, "dumps", dumps_json(f));
	cJSON *notes = cJSON_AddArrayToObject(root, "notes");
	for (size_t i = 0; i < f->noted.n; i++)
		cJSON_AddItemToArray(notes, cJSON_CreateString(f->noted.v[i]));
	f->json = root;
}

cJSON *flight_json(const struct flight *f)
{
	if (!f || !f->json)
		return NULL;
	return cJSON_Duplicate(f->json, 1);
}
