/* correlate.c - see correlate.h.
 *
 * A diagnosis holds when its "when" holds: one of `any` present, all of
 * `all` present, none of `none`, and the NCCL version range (if the bundle
 * shows versions, at least one must be inside).  Its evidence is every item
 * whose id it names.  Then echoes are linked (cascade_of), and the list is
 * ranked: severity, then root before context before cascade, then
 * specific before derived, then confidence, then who came first, then id
 * (deterministic). */
#include "engine/correlate.h"

#include <stdlib.h>
#include <string.h>

#include "engine/bundle.h"
#include "base/util.h"
#include "base/version.h"

static int versions_allow(const struct bundle *b, const struct diagdef *d)
{
	if (!d->has_nccl_range)
		return 1;
	const cJSON *vs = cJSON_GetObjectItemCaseSensitive(b->facts, "nccl_versions");
	if (!cJSON_IsArray(vs) || cJSON_GetArraySize(vs) == 0)
		return 1; /* unknown version: do not rule out */
	const cJSON *it;
	cJSON_ArrayForEach(it, vs) {
		long v = cJSON_IsString(it) ? version_code(it->valuestring) : -1;
		if (v >= 0 && version_in_range(v, &d->nccl))
			return 1;
	}
	return 0;
}

static int when_holds(const struct bundle *b, const struct diagdef *d)
{
	int any = d->when_any.n == 0;
	for (size_t i = 0; i < d->when_any.n && !any; i++)
		any = evlist_has(&b->ev, d->when_any.v[i]);
	if (!any)
		return 0;
	for (size_t i = 0; i < d->when_all.n; i++)
		if (!evlist_has(&b->ev, d->when_all.v[i]))
			return 0;
	for (size_t i = 0; i < d->when_none.n; i++)
		if (evlist_has(&b->ev, d->when_none.v[i]))
			return 0;
	return versions_allow(b, d);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return x < y ? -1 : x > y;
}

static void collect_evidence(const struct bundle *b, struct diagnosis *dg)
{
	const struct diagdef *d = dg->def;
	dg->ev = xmalloc((b->ev.n + 1) * sizeof *dg->ev);
	dg->ranks = xmalloc((b->ev.n + 1) * sizeof *dg->ranks);
	dg->first_seq = UINT64_MAX;
	/* the ids it names, by their place in the evidence counts: one test
	 * an item instead of a search of both lists */
	unsigned char *named = xcalloc(b->ev.ncounts + 1, 1);
	for (size_t i = 0; i < d->when_any.n; i++) {
		long s = evlist_slot(&b->ev, d->when_any.v[i]);
		if (s >= 0)
			named[s] = 1;
	}
	for (size_t i = 0; i < d->when_all.n; i++) {
		long s = evlist_slot(&b->ev, d->when_all.v[i]);
		if (s >= 0)
			named[s] = 1;
	}
	for (size_t i = 0; i < b->ev.n; i++) {
		const struct evidence *e = &b->ev.v[i];
		if (!named[e->id_slot])
			continue;
		dg->ev[dg->nev++] = i; /* ev is in arrival order already */
		if (e->seq < dg->first_seq)
			dg->first_seq = e->seq;
		if (e->rank >= 0)
			dg->ranks[dg->nranks++] = e->rank;
	}
	free(named);
	for (size_t i = 0; i < d->when_any.n; i++)
		dg->ev_total += evlist_count(&b->ev, d->when_any.v[i]);
	for (size_t i = 0; i < d->when_all.n; i++)
		dg->ev_total += evlist_count(&b->ev, d->when_all.v[i]);
	qsort(dg->ranks, dg->nranks, sizeof *dg->ranks, cmp_int);
	size_t u = 0;
	for (size_t i = 0; i < dg->nranks; i++)
		if (u == 0 || dg->ranks[u - 1] != dg->ranks[i])
			dg->ranks[u++] = dg->ranks[i];
	dg->nranks = u;
}

static const char *first_capture(const struct bundle *b, const struct diagnosis *d, const char *name)
{
	for (size_t i = 0; i < d->nev; i++) {
		const char *v = evidence_cap(&b->ev.v[d->ev[i]], name);
		if (v)
			return v;
	}
	return NULL;
}

char *render_template(const char *tpl, const struct bundle *b, const struct diagnosis *d)
{
	struct buf out;
	buf_init(&out);
	const char *p = tpl;
	while (*p) {
		const char *open = strchr(p, '{');
		if (!open) {
			buf_adds(&out, p);
			break;
		}
		const char *close = strchr(open, '}');
		if (!close) {
			buf_adds(&out, p);
			break;
		}
		buf_add(&out, p, (size_t)(open - p));
		char *key = xstrndup(open + 1, (size_t)(close - open - 1));
		const char *val = NULL;
		char *owned = NULL;
		if (strcmp(key, "ranks") == 0) {
			struct buf r;
			buf_init(&r);
			for (size_t i = 0; i < d->nranks; i++)
				buf_printf(&r, "%s%d", i ? ", " : "", d->ranks[i]);
			owned = d->nranks ? buf_steal(&r) : (buf_free(&r), xstrdup("unknown"));
			val = owned;
		} else if (str_starts(key, "env.")) {
			const cJSON *env = cJSON_GetObjectItemCaseSensitive(b->facts, "env");
			const cJSON *e = cJSON_GetObjectItemCaseSensitive(env, key + 4);
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, "value");
			val = cJSON_IsString(v) ? v->valuestring : "(not set)";
		} else {
			val = first_capture(b, d, key);
		}
		if (val) {
			buf_adds(&out, val);
		} else if (strchr(key, ' ') || !*key) {
			/* not a placeholder: keep the braces */
			buf_add(&out, open, (size_t)(close - open + 1));
		} else {
			buf_adds(&out, "(unknown)");
		}
		free(owned);
		free(key);
		p = close + 1;
	}
	return buf_steal(&out);
}

static int role_rank(enum role r)
{
	return r == ROLE_ROOT ? 0 : r == ROLE_CONTEXT ? 1 : 2;
}

static int cmp_diag(const void *a, const void *b)
{
	const struct diagnosis *x = a, *y = b;
	if (x->def->severity != y->def->severity)
		return x->def->severity < y->def->severity ? -1 : 1;
	if (role_rank(x->role) != role_rank(y->role))
		return role_rank(x->role) < role_rank(y->role) ? -1 : 1;
	if (x->def->derived != y->def->derived)
		return x->def->derived ? 1 : -1; /* a derived diagnosis never outranks a specific one */
	if (x->confidence != y->confidence)
		return x->confidence > y->confidence ? -1 : 1;
	if (x->first_seq != y->first_seq)
		return x->first_seq < y->first_seq ? -1 : 1;
	return strcmp(x->def->id, y->def->id);
}

void correlate_sort(struct diagnosis *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_diag);
}

void correlate(struct bundle *b)
{
	bundle_clear_diagnoses(b);
	const struct sigdb *db = b->db;
	struct diagnosis *v = xcalloc(db->ndiags + 1, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < db->ndiags; i++) {
		const struct diagdef *d = &db->diags[i];
		if (!when_holds(b, d))
			continue;
		struct diagnosis *dg = &v[n++];
		dg->def = d;
		dg->role = d->role;
		dg->confidence = d->confidence;
		collect_evidence(b, dg);
	}
	/* echoes: a diagnosis whose cascade_of names another present one */
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < v[i].def->cascade_of.n && !v[i].echo_of; k++)
			for (size_t j = 0; j < n; j++)
				if (j != i && strcmp(v[j].def->id, v[i].def->cascade_of.v[k]) == 0) {
					v[i].echo_of = v[j].def->id;
					v[i].role = ROLE_CASCADE;
					break;
				}
	for (size_t i = 0; i < n; i++) {
		v[i].title = render_template(v[i].def->title, b, &v[i]);
		v[i].explanation = render_template(v[i].def->explanation, b, &v[i]);
	}
	correlate_sort(v, n);
	/* Two roots of one category are one cause seen twice (the log's OOM and
	 * the memory trace at capacity): the lower-ranked one corroborates. */
	int changed = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i].role != ROLE_ROOT || v[i].def->derived)
			continue;
		for (size_t j = i + 1; j < n; j++)
			if (v[j].role == ROLE_ROOT && !v[j].def->derived &&
			    strcmp(v[j].def->category, v[i].def->category) == 0) {
				v[j].role = ROLE_CONTEXT;
				v[j].supports = v[i].def->id;
				changed = 1;
			}
	}
	if (changed)
		correlate_sort(v, n);
	b->diags = v;
	b->ndiags = n;
	/* the verdict: verdict.c, after cascade_link */
}
