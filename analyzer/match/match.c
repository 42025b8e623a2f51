/* match.c - see match.h.  Prefilter: one pass of acmatch over the message
 * yields the signatures whose literals occur; only those (plus signatures
 * without literals) reach PCRE2.  The same pass finds the line keywords
 * (linekw.h) for the rest of the per-line analysis. */
#include "match/match.h"

#include <stdlib.h>
#include <string.h>
#include "parse/linekw.h"
#include "base/nt_limits.h"
#include "base/util.h"

struct matcher {
	const struct sigdb *db;
	pcre2_match_data *md;
	pcre2_match_context *mc;      /* the full limits (--match-limit) */
	pcre2_match_context *mc_fast; /* 1% of the match limit: a match that needs more is "slow" */
	pcre2_jit_stack *js;
	uint32_t *slow;       /* per signature: slow matches so far in this bundle */
	uint32_t budget;      /* slow matches allowed per signature (--match-budget) */
	uint32_t *stamp;      /* per signature: generation it was last queued in */
	uint8_t *disabled;    /* per signature: spent its budget of slow matches */
	uint64_t *limited;    /* per signature: lines skipped at the match limit (NULL until one) */
	char **limited_where; /* and the document of the first */
	uint32_t gen;
	size_t *cand;
	size_t ncand;
	int level;            /* level of the line being matched */
	uint64_t kw;          /* keywords found by the scan (linekw.h) */
	uint64_t floor;       /* the floor's keywords found by the scan (linekw.h) */
};

struct matcher *matcher_new(const struct sigdb *db)
{
	struct matcher *mt = xcalloc(1, sizeof *mt);
	mt->db = db;
	mt->md = pcre2_match_data_create((uint32_t)db->max_capture_groups + 1, NULL);
	mt->mc = pcre2_match_context_create(NULL);
	pcre2_set_match_limit(mt->mc, db->match_limit);
	pcre2_set_depth_limit(mt->mc, db->depth_limit);
	mt->mc_fast = pcre2_match_context_create(NULL);
	uint32_t fast = db->match_limit / 100;
	pcre2_set_match_limit(mt->mc_fast, fast > 1000 ? fast : 1000);
	pcre2_set_depth_limit(mt->mc_fast, db->depth_limit);
	mt->js = pcre2_jit_stack_create(32 * 1024, 1024 * 1024, NULL);
	if (mt->js) {
		pcre2_jit_stack_assign(mt->mc, NULL, mt->js);
		pcre2_jit_stack_assign(mt->mc_fast, NULL, mt->js);
	}
	mt->slow = xcalloc(db->nsigs + 1, sizeof *mt->slow);
	mt->budget = LIMITS_DEFAULT_MATCH_BUDGET;
	mt->stamp = xcalloc(db->nsigs + 1, sizeof *mt->stamp);
	mt->disabled = xcalloc(db->nsigs + 1, 1);
	mt->cand = xmalloc((db->nsigs + 1) * sizeof *mt->cand);
	return mt;
}

void matcher_free(struct matcher *mt)
{
	if (!mt)
		return;
	pcre2_match_data_free(mt->md);
	pcre2_match_context_free(mt->mc);
	pcre2_match_context_free(mt->mc_fast);
	free(mt->slow);
	if (mt->js)
		pcre2_jit_stack_free(mt->js);
	free(mt->stamp);
	free(mt->disabled);
	if (mt->limited)
		for (size_t i = 0; i < mt->db->nsigs; i++)
			free(mt->limited_where[i]);
	free(mt->limited);
	free(mt->limited_where);
	free(mt->cand);
	free(mt);
}

static int limit_rc(int rc)
{
	return rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT ||
	       rc == PCRE2_ERROR_JIT_STACKLIMIT;
}

/* A line on which signature si reached a resource limit: skipped for it,
 * counted (matcher_report_limits). */
static void limit_hit(struct matcher *mt, size_t si, const char *where)
{
	if (!mt->limited) {
		mt->limited = xcalloc(mt->db->nsigs + 1, sizeof *mt->limited);
		mt->limited_where = xcalloc(mt->db->nsigs + 1, sizeof *mt->limited_where);
	}
	if (!mt->limited[si]++ && where)
		mt->limited_where[si] = xstrdup(where);
}

void matcher_report_limits(const struct matcher *mt, const char *bundle, struct msgs *m)
{
	for (size_t i = 0; mt->limited && i < mt->db->nsigs; i++)
		if (mt->limited[i])
			msgs_add(m, "%s: signature \"%s\" (%s) exceeded the regex match limit on %llu line(s) (the first in %s); "
			         "each was skipped for it, the other lines were matched (--match-limit)",
			         mt->limited_where[i] ? mt->limited_where[i] : bundle, mt->db->sigs[i].id, mt->db->sigs[i].file,
			         (unsigned long long)mt->limited[i], mt->limited_where[i] ? "this document" : "this bundle");
}

void matcher_take_limits(struct matcher *dst, struct matcher *src)
{
	for (size_t i = 0; src->limited && i < src->db->nsigs; i++) {
		if (!src->limited[i])
			continue;
		limit_hit(dst, i, NULL); /* allocates dst's tables; where: below */
		dst->limited[i] += src->limited[i] - 1;
		if (!dst->limited_where[i]) {
			dst->limited_where[i] = src->limited_where[i];
			src->limited_where[i] = NULL;
		}
		src->limited[i] = 0;
	}
}

uint64_t matcher_limited(const struct matcher *mt, size_t si)
{
	return mt->limited ? mt->limited[si] : 0;
}

static void on_hit(void *ctx, uint32_t v)
{
	struct matcher *mt = ctx;
	if (v & (LINEKW_FLAG | FLOORKW_FLAG)) {
		if (v & LINEKW_FLAG)
			mt->kw |= KW_BIT(v & 0xff);
		if (v & FLOORKW_FLAG)
			mt->floor |= (uint64_t)1 << ((v >> 8) & 63);
		return;
	}
	if (mt->stamp[v] == mt->gen)
		return;
	mt->stamp[v] = mt->gen;
	if (sig_accepts_level(mt->db->sigs[v].on, mt->level))
		mt->cand[mt->ncand++] = v;
}

size_t matcher_scan(struct matcher *mt, struct logline *ll)
{
	const struct sigdb *db = mt->db;
	if (++mt->gen == 0) {
		memset(mt->stamp, 0, (db->nsigs + 1) * sizeof *mt->stamp);
		mt->gen = 1;
	}
	mt->ncand = 0;
	mt->kw = 0;
	mt->floor = 0;
	mt->level = ll->level;
	/* from the first logger header on (logline.h: head), so that a logger's
	 * name still counts as a keyword; the regexes run on the message */
	const char *p = ll->head && ll->head < ll->msg.p ? ll->head : ll->msg.p;
	acmatch_search(db->ac, p, (size_t)(ll->msg.p + ll->msg.n - p), on_hit, mt);
	ll->kw = mt->kw;
	ll->floor = mt->floor;
	ll->kw_known = 1;
	int lv = ll->level;
	for (size_t i = 0; i < db->nalways[lv]; i++)
		mt->cand[mt->ncand++] = db->always[lv][i];
	/* database order: deterministic (an insertion sort: a line has few) */
	for (size_t i = 1; i < mt->ncand; i++) {
		size_t v = mt->cand[i], j = i;
		for (; j > 0 && mt->cand[j - 1] > v; j--)
			mt->cand[j] = mt->cand[j - 1];
		mt->cand[j] = v;
	}
	return mt->ncand;
}

void matcher_set_budget(struct matcher *mt, uint32_t slow_max)
{
	mt->budget = slow_max;
}

const size_t *matcher_candidates(const struct matcher *mt)
{
	return mt->cand;
}

size_t matcher_run(struct matcher *mt, struct logline *ll, const char *where,
                   match_cb cb, void *ctx, struct msgs *m)
{
	size_t n = matcher_scan(mt, ll);
	return matcher_match_list(mt, ll, mt->cand, n, where, cb, ctx, m);
}

/* A lazy database's regex that does not compile (an installed pattern
 * file changed since make check): skipped for the rest of the bundle. */
static void uncompiled(struct matcher *mt, size_t si, const char *where, struct msgs *m)
{
	const struct signature *s = &mt->db->sigs[si];
	mt->disabled[si] = 1;
	if (m)
		msgs_add(m, "%s: signature \"%s\" (%s): its regex does not compile; skipped (nccl-triage check-db says why)",
		         where, s->id, s->file);
}

/* One regex on the line's message.  PCRE2's JIT entry point directly:
 * pcre2_match() checks its arguments and then calls it, about 130
 * instructions a call, a third of what a candidate that fails costs.  A code
 * the JIT could not compile (sigdb_code: the interpreter runs it) answers
 * PCRE2_ERROR_JIT_BADOPTION and goes through pcre2_match(). */
static inline int match_msg(const pcre2_code *code, const struct logline *ll, pcre2_match_data *md,
                            pcre2_match_context *mc)
{
	PCRE2_SPTR subj = (PCRE2_SPTR)(ll->msg.p ? ll->msg.p : "");
	int rc = pcre2_jit_match(code, subj, ll->msg.n, 0, 0, md, mc);
	if (rc == PCRE2_ERROR_JIT_BADOPTION)
		rc = pcre2_match(code, subj, ll->msg.n, 0, 0, md, mc);
	return rc;
}

int matcher_try(struct matcher *mt, const struct logline *ll, size_t si, const PCRE2_SIZE **ov)
{
	const struct signature *s = &mt->db->sigs[si];
	const pcre2_code *code = s->benign ? NULL : sigdb_code(s);
	*ov = NULL;
	if (!code)
		return MATCHER_NOT_TRIED; /* matcher_match_tried decides, in order */
	int rc = match_msg(code, ll, mt->md, mt->mc_fast);
	if (rc > 0)
		*ov = pcre2_get_ovector_pointer(mt->md);
	return rc;
}

size_t matcher_match_list(struct matcher *mt, const struct logline *ll, const size_t *cand, size_t ncand,
                          const char *where, match_cb cb, void *ctx, struct msgs *m)
{
	return matcher_match_tried(mt, ll, cand, ncand, NULL, where, cb, ctx, m);
}

size_t matcher_match_tried(struct matcher *mt, const struct logline *ll, const size_t *cand, size_t ncand,
                           const struct match_tried *tried, const char *where, match_cb cb, void *ctx, struct msgs *m)
{
	const struct sigdb *db = mt->db;
	size_t hits = 0;
	for (size_t i = 0; i < ncand; i++) {
		size_t si = cand[i];
		if (mt->disabled[si])
			continue;
		const struct signature *s = &db->sigs[si];
		if (s->benign)
			continue; /* matcher_benign */
		/* First with 1% of the match limit: nearly every match needs far
		 * less.  One that needs more is slow: counted, and run again with
		 * the full limit (same result as one run with it).  Counting, not
		 * timing, keeps the report the same whatever the machine and -j. */
		const pcre2_code *code = sigdb_code(s); /* compiled and JIT-compiled on its first candidate line */
		if (!code) {
			uncompiled(mt, si, where, m);
			continue;
		}
		int have = tried && tried[i].rc != MATCHER_NOT_TRIED;
		int rc = have ? tried[i].rc : match_msg(code, ll, mt->md, mt->mc_fast);
		const PCRE2_SIZE *ov = have ? tried[i].ov : pcre2_get_ovector_pointer(mt->md);
		if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT) {
			if (++mt->slow[si] > mt->budget) {
				mt->disabled[si] = 1;
				if (m)
					msgs_add(m, "%s: signature \"%s\" (%s) spent its budget of %u slow matches (each over 1%% "
					         "of the regex match limit) in this bundle; skipped for the rest of it (--match-budget)",
					         where, s->id, s->file, mt->budget);
				continue;
			}
			rc = match_msg(code, ll, mt->md, mt->mc);
			ov = pcre2_get_ovector_pointer(mt->md);
		}
		if (rc > 0) {
			hits++;
			cb(ctx, s, ll, ov, rc);
		} else if (limit_rc(rc)) {
			limit_hit(mt, si, where); /* this line only: one padded line must not switch it off */
		}
	}
	return hits;
}

const struct signature *matcher_benign(struct matcher *mt, const struct logline *ll, const size_t *cand,
                                       size_t ncand)
{
	const struct sigdb *db = mt->db;
	for (size_t i = 0; i < ncand; i++) {
		const struct signature *s = &db->sigs[cand[i]];
		if (!s->benign || mt->disabled[cand[i]])
			continue;
		const pcre2_code *code = sigdb_code(s);
		if (!code) {
			uncompiled(mt, cand[i], NULL, NULL);
			continue;
		}
		int rc = match_msg(code, ll, mt->md, mt->mc);
		if (rc > 0)
			return s;
		if (limit_rc(rc))
			limit_hit(mt, cand[i], NULL);
	}
	return NULL;
}
