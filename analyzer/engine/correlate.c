/* correlate.c - see correlate.h.
 *
 * A diagnosis holds when its "when" holds: one of `any` present, all of
 * `all` present, none of `none`, and the NCCL version range (if the bundle
 * shows versions, at least one of the most authoritative source must be
 * inside).  An NCCL defect's version is then confirmed or unknown
 * (defect_version).  Its evidence is every item
 * whose id it names.  Then echoes are linked (cascade_of), and the list is
 * ranked: severity, then root before context before cascade, then
 * specific before derived, then confidence, then who came first, then id
 * (deterministic). */
#include "engine/correlate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/bundle.h"
#include "base/util.h"
#include "base/version.h"
#include "rules/ncclver.h"
#include "match/ncclsites.h"

/* The version a diagnosis's "nccl" range is tested on: the bundle's NCCL
 * versions of the most authoritative kind (rules/ncclver.h: the log first,
 * then torch, nccl-tests, ldd, pip, conda, files, the environment); with
 * none, the releases its WARN lines' source locations allow (the
 * fingerprint, match/ncclsites.h; read only then).  Computed once per
 * correlate(). */
enum vstate { V_NONE, V_IN, V_OUT, V_UNKNOWN };

struct vinfo {
	struct ncclver v[NCCLVER_MAX];
	size_t first, n;           /* the best kind's observations in v */
	int fp_done;
	const struct ncclsites *sites;
	uint64_t fp[2];            /* releases every known WARN site allows; 0: no fingerprint */
	char fp_where[160];        /* "graph/xml.h:77 [run.log:2]" */
};

static void vinfo_init(const struct bundle *b, struct vinfo *vi)
{
	memset(vi, 0, sizeof *vi);
	vi->n = ncclver_best(vi->v, ncclver_collect(b->facts, vi->v, NCCLVER_MAX), &vi->first);
}

static void fingerprint(const struct bundle *b, struct vinfo *vi)
{
	vi->fp_done = 1;
	if (!b->nwsites || !(vi->sites = sigdb_sites(b->db)))
		return;
	uint64_t all[2] = {~(uint64_t)0, ~(uint64_t)0};
	size_t found = 0, k = 0;
	for (size_t i = 0; i < b->nwsites; i++) {
		const struct warn_site *w = &b->wsites[i];
		uint64_t m[2];
		if (!ncclsites_lookup(vi->sites, w->file, strlen(w->file), w->line, w->msg, w->msglen, m))
			continue; /* a site no release has: a patched build, a plugin, a fork */
		all[0] &= m[0];
		all[1] &= m[1];
		if (found++ < 2)
			k += (size_t)snprintf(vi->fp_where + k, sizeof vi->fp_where - k, "%s%s:%d [%s:%llu]", k ? ", " : "",
			                      w->file, w->line, w->path, (unsigned long long)w->lineno);
		if (k >= sizeof vi->fp_where)
			k = sizeof vi->fp_where - 1;
	}
	if (found) {
		vi->fp[0] = all[0];
		vi->fp[1] = all[1];
	}
}

/* the fingerprint's releases as runs: "2.6.4-2.7.8, 2.9.9" */
static void fp_text(const struct vinfo *vi, char *out, size_t n)
{
	size_t k = 0, nr = ncclsites_nreleases(vi->sites);
	out[0] = 0;
	for (size_t i = 0; i < nr && k < n; i++) {
		if (!(vi->fp[i / 64] >> (i % 64) & 1))
			continue;
		size_t j = i;
		while (j + 1 < nr && (vi->fp[(j + 1) / 64] >> ((j + 1) % 64) & 1))
			j++;
		k += (size_t)snprintf(out + k, n - k, "%s%s%s%s", k ? ", " : "", ncclsites_release(vi->sites, i),
		                      j > i ? "-" : "", j > i ? ncclsites_release(vi->sites, j) : "");
		i = j;
	}
}

static enum vstate version_state(const struct bundle *b, struct vinfo *vi, const struct diagdef *d, char *why,
                                 size_t whylen)
{
	if (why)
		why[0] = 0;
	if (!d->has_nccl_range)
		return V_NONE;
	for (size_t i = vi->first; i < vi->first + vi->n; i++)
		if (version_in_range(version_code(vi->v[i].value), &d->nccl)) {
			if (why)
				snprintf(why, whylen, "NCCL %s (%s) is in the affected range", vi->v[i].value, vi->v[i].where);
			return V_IN;
		}
	if (vi->n)
		return V_OUT;
	if (d->nccl_implied)
		return V_IN;
	if (!vi->fp_done)
		fingerprint(b, vi);
	if (!vi->fp[0] && !vi->fp[1])
		return V_UNKNOWN;
	size_t in = 0, out = 0, nr = ncclsites_nreleases(vi->sites);
	for (size_t i = 0; i < nr; i++)
		if (vi->fp[i / 64] >> (i % 64) & 1)
			version_in_range(version_code(ncclsites_release(vi->sites, i)), &d->nccl) ? in++ : out++;
	char rel[200];
	fp_text(vi, rel, sizeof rel);
	int many = strchr(vi->fp_where, ',') != NULL;
	if (why && in && !out)
		snprintf(why, whylen, "The bundle shows no NCCL version, but the source location%s of its WARN lines (%s) %s "
		         "NCCL %s only: in the affected range", many ? "s" : "", vi->fp_where, many ? "are those of" : "is that of",
		         rel);
	else if (why)
		snprintf(why, whylen, "The source location%s of its WARN lines (%s) narrow%s the release to NCCL %s, partly "
		         "inside the range", many ? "s" : "", vi->fp_where, many ? "" : "s", rel);
	return in && !out ? V_IN : in ? V_UNKNOWN : V_OUT;
}

static int versions_allow(const struct bundle *b, struct vinfo *vi, const struct diagdef *d)
{
	return version_state(b, vi, d, NULL, 0) != V_OUT; /* unknown: do not rule out */
}

static int is_defect(const struct diagdef *d)
{
	return d->has_nccl_range && strcmp(d->category, "NCCL_BUG_UPGRADE") == 0;
}

/* "<2.19.4", ">=2.24 <2.26.2" */
static void range_text(const struct version_range *r, char *out, size_t n)
{
	out[0] = 0;
	size_t k = 0;
	if (r->has_min)
		k += (size_t)snprintf(out, n, "%s%ld.%ld.%ld", r->min_incl ? ">=" : ">", r->min / 10000, r->min / 100 % 100,
		                      r->min % 100);
	if (r->has_max && k < n)
		snprintf(out + k, n - k, "%s%s%ld.%ld.%ld", k ? " " : "", r->max_incl ? "<=" : "<", r->max / 10000,
		         r->max / 100 % 100, r->max % 100);
}

/* A known NCCL defect whose symptom is in the bundle: with the version in
 * its range it is the cause, and outranks the generic reading of the same
 * failure (OTHER, CUDA_ERROR_OTHER); with no version in the bundle it is a
 * lead, not an answer: context, half the confidence, and the next steps ask
 * for the version (nextsteps.c).  The explanation says which. */
static void defect_version(const struct bundle *b, struct vinfo *vi, struct diagnosis *dg)
{
	char why[600], range[64];
	enum vstate st = version_state(b, vi, dg->def, why, sizeof why);
	range_text(&dg->def->nccl, range, sizeof range);
	char *add = NULL;
	if (st == V_IN && why[0]) {
		dg->defect_version = DEFECT_CONFIRMED;
		add = xasprintf(" %s %s.", why, range);
	} else if (st == V_IN) {
		dg->defect_version = DEFECT_CONFIRMED;
		add = xasprintf(" The bundle shows no NCCL version, but this message exists only in NCCL %s (the coverage "
		                "table of NCCL's sources), so the range holds.", range);
	} else if (st == V_UNKNOWN) {
		dg->defect_version = DEFECT_VERSION_UNKNOWN;
		if (dg->role == ROLE_ROOT)
			dg->role = ROLE_CONTEXT;
		dg->confidence *= 0.5;
		add = xasprintf(" The bundle does not show the NCCL version: this is a known defect of NCCL %s only, so it "
		                "is the cause only if the job ran such a release (next steps: how to tell the version).%s%s%s",
		                range, why[0] ? " " : "", why, why[0] ? "." : "");
	}
	if (add) {
		char *e = xasprintf("%s%s", dg->explanation, add);
		free(dg->explanation);
		dg->explanation = e;
		free(add);
	}
}

static int generic_root(const struct diagnosis *d)
{
	return d->role == ROLE_ROOT && d->def->severity == SEV_ERROR && !d->defect_version &&
	       (strcmp(d->def->category, "OTHER") == 0 || strcmp(d->def->category, "CUDA_ERROR_OTHER") == 0);
}

/* a confirmed defect ranks above the generic roots (confidence, so that
 * the order stays one total order) */
static void defect_outranks_generic(struct diagnosis *v, size_t n)
{
	double top = 0;
	for (size_t i = 0; i < n; i++)
		if (generic_root(&v[i]) && v[i].confidence > top)
			top = v[i].confidence;
	for (size_t i = 0; i < n; i++)
		if (v[i].defect_version == DEFECT_CONFIRMED && v[i].role == ROLE_ROOT && v[i].confidence <= top)
			v[i].confidence = top + 0.01 > 0.99 ? 0.99 : top + 0.01;
}

/* A diagnosis that blames a user action ("blames": a variable the job set,
 * a file it gave) checks that the action is visible: the variable in
 * facts.env (NCCL's "set by environment" line, an env dump, an export) or
 * one of the ids that show it.  When nothing shows it, the diagnosis rests
 * on a setting nobody showed: a lead, not the answer (context, half the
 * confidence; the verdict takes it only when nothing else names the
 * failure), and the explanation says what is missing. */
static void action_visible(const struct bundle *b, struct diagnosis *dg)
{
	const struct diagdef *d = dg->def;
	if (!d->blames_env.n && !d->blames_any.n)
		return;
	const cJSON *env = cJSON_GetObjectItemCaseSensitive(b->facts, "env");
	for (size_t i = 0; i < d->blames_env.n; i++)
		if (cJSON_GetObjectItemCaseSensitive(env, d->blames_env.v[i]))
			return;
	for (size_t i = 0; i < d->blames_any.n; i++)
		if (evlist_has(&b->ev, d->blames_any.v[i]))
			return;
	for (size_t i = 0; i < dg->nev; i++)
		if (evidence_cap(&b->ev.v[dg->ev[i]], "file"))
			return; /* its own line names the file it was given */
	struct buf names;
	buf_init(&names);
	for (size_t i = 0; i < d->blames_env.n; i++)
		buf_printf(&names, "%s%s", i ? " or " : "", d->blames_env.v[i]);
	dg->unseen_action = 1;
	if (dg->role == ROLE_ROOT)
		dg->role = ROLE_CONTEXT;
	dg->confidence *= 0.5;
	char *e = xasprintf("%s No setting of %s%s was read from the bundle (no NCCL \"set by environment\" line, "
	                    "environment dump or export that names it): the action this blames is not shown, so it is a "
	                    "lead, not the answer.",
	                    dg->explanation, names.data ? names.data : "", names.data ? "" : "the action");
	free(dg->explanation);
	dg->explanation = e;
	buf_free(&names);
}

static int when_holds(const struct bundle *b, struct vinfo *vi, const struct diagdef *d)
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
	return versions_allow(b, vi, d);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return x < y ? -1 : x > y;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/* The evidence items of each id (its place in the evidence counts), in
 * arrival order: built once per correlate() instead of a walk of all the
 * evidence for each diagnosis that holds.  Owned by correlate(). */
struct ev_index {
	size_t *start; /* ncounts + 1: slot s's items are item[start[s] .. start[s + 1]) */
	size_t *item;  /* indices into b->ev.v */
};

static void ev_index_build(const struct bundle *b, struct ev_index *x)
{
	size_t ns = b->ev.ncounts;
	x->start = xcalloc(ns + 2, sizeof *x->start);
	x->item = xmalloc((b->ev.n + 1) * sizeof *x->item);
	for (size_t i = 0; i < b->ev.n; i++)
		x->start[b->ev.v[i].id_slot + 1]++;
	for (size_t s = 0; s < ns; s++)
		x->start[s + 1] += x->start[s];
	size_t *fill = xmalloc((ns + 1) * sizeof *fill);
	memcpy(fill, x->start, (ns + 1) * sizeof *fill);
	for (size_t i = 0; i < b->ev.n; i++)
		x->item[fill[b->ev.v[i].id_slot]++] = i;
	free(fill);
}

static void ev_index_free(struct ev_index *x)
{
	free(x->start);
	free(x->item);
}

/* slot s of the ids a diagnosis names, once each */
static size_t add_slot(long *v, size_t n, long s)
{
	if (s < 0)
		return n;
	for (size_t i = 0; i < n; i++)
		if (v[i] == s)
			return n;
	v[n] = s;
	return n + 1;
}

static void collect_evidence(const struct bundle *b, const struct ev_index *x, struct diagnosis *dg)
{
	const struct diagdef *d = dg->def;
	dg->first_seq = UINT64_MAX;
	/* the ids it names, by their place in the evidence counts */
	long *slots = xmalloc((d->when_any.n + d->when_all.n + 1) * sizeof *slots);
	size_t ns = 0, total = 0;
	for (size_t i = 0; i < d->when_any.n; i++)
		ns = add_slot(slots, ns, evlist_slot(&b->ev, d->when_any.v[i]));
	for (size_t i = 0; i < d->when_all.n; i++)
		ns = add_slot(slots, ns, evlist_slot(&b->ev, d->when_all.v[i]));
	for (size_t k = 0; k < ns; k++)
		total += x->start[slots[k] + 1] - x->start[slots[k]];
	/* a bundle's diagnoses each keep only their own items (bounded memory
	 * per bundle: batch workers) */
	dg->ev = xmalloc((total + 1) * sizeof *dg->ev);
	dg->ranks = xmalloc((total + 1) * sizeof *dg->ranks);
	size_t *idx = xmalloc((total + 1) * sizeof *idx);
	size_t m = 0;
	for (size_t k = 0; k < ns; k++)
		for (size_t j = x->start[slots[k]]; j < x->start[slots[k] + 1]; j++)
			idx[m++] = x->item[j];
	free(slots);
	if (ns > 1)
		xqsort(idx, m, sizeof *idx, cmp_size); /* arrival order, as one walk of the evidence gives */
	for (size_t k = 0; k < m; k++) {
		const struct evidence *e = &b->ev.v[idx[k]];
		dg->ev[dg->nev++] = idx[k];
		if (e->seq < dg->first_seq)
			dg->first_seq = e->seq;
		if (e->rank >= 0)
			dg->ranks[dg->nranks++] = e->rank;
	}
	free(idx);
	for (size_t i = 0; i < d->when_any.n; i++)
		dg->ev_total += evlist_count(&b->ev, d->when_any.v[i]);
	for (size_t i = 0; i < d->when_all.n; i++)
		dg->ev_total += evlist_count(&b->ev, d->when_all.v[i]);
	xqsort(dg->ranks, dg->nranks, sizeof *dg->ranks, cmp_int);
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
			/* "{port|<port>}": the capture, else the text after '|' */
			char *bar = strchr(key, '|');
			if (bar) {
				*bar = 0;
				val = first_capture(b, d, key);
				if (!val)
					val = bar + 1;
			} else {
				val = first_capture(b, d, key);
			}
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
		xqsort(v, n, sizeof *v, cmp_diag);
}

void correlate(struct bundle *b)
{
	bundle_clear_diagnoses(b);
	const struct sigdb *db = b->db;
	struct diagnosis *v = xcalloc(db->ndiags + 1, sizeof *v);
	size_t n = 0;
	struct vinfo vi;
	vinfo_init(b, &vi);
	struct ev_index x;
	ev_index_build(b, &x);
	for (size_t i = 0; i < db->ndiags; i++) {
		const struct diagdef *d = &db->diags[i];
		if (!when_holds(b, &vi, d))
			continue;
		struct diagnosis *dg = &v[n++];
		dg->def = d;
		dg->role = d->role;
		dg->confidence = d->confidence;
		collect_evidence(b, &x, dg);
	}
	ev_index_free(&x);
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
		if (is_defect(v[i].def))
			defect_version(b, &vi, &v[i]);
		action_visible(b, &v[i]);
	}
	defect_outranks_generic(v, n);
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
