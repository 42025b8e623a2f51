/* analysis.c - see analysis.h. */
#include "engine/analysis.h"

#include <string.h>

#include "engine/bundle.h"
#include "engine/cascade.h"
#include "engine/correlate.h"
#include "engine/diagnosis.h"
#include "parse/ranks.h"
#include "rules/rules.h"
#include "engine/verdict.h"

void analysis_rule_ctx(struct bundle *b, struct rule_ctx *c)
{
	memset(c, 0, sizeof *c);
	c->name = b->name;
	c->facts = b->facts;
	c->ev = &b->ev;
	c->db = b->db;
	c->ranks = b->ranks;
	c->failures = b->failures;
	c->nfailures = b->nfailures;
	c->failure_count = b->failure_count;
	c->saw_nccl = b->saw_nccl;
	c->clues = b->clues;
	c->nclues = b->nclues;
	c->crashes = b->crashes;
	c->ncrashes = b->ncrashes;
	c->floor = &b->floor;
	c->flight = b->flight;
	for (size_t i = 0; i < b->ndocs && !c->logs_cut; i++)
		c->logs_cut = !b->docs[i].complete && doc_kind_is_log(b->docs[i].kind);
}

/* The floor applies (docs/derived.md, "The floor"): the bundle failed (a
 * failure line, an error diagnosis, a failing exit, or the pick itself is a
 * phrase that states a failure: tier 1) and no error diagnosis names a
 * category other than OTHER. */
static int floor_needed(const struct bundle *b)
{
	if (b->floor.kw < 0)
		return 0;
	int failed = b->failure_count > 0 || b->floor.tier == 1;
	for (size_t i = 0; i < b->ndiags; i++) {
		const struct diagnosis *d = &b->diags[i];
		if (d->def->severity != SEV_ERROR)
			continue;
		if (strcmp(d->def->category, "OTHER") != 0)
			return 0;
		failed = 1;
	}
	const struct ranks *r = b->ranks;
	for (size_t i = 0; r && i < r->n && !failed; i++)
		failed = r->v[i].has_exit && r->v[i].exitcode != 0;
	if (r && (r->saw_child_failed || r->launcher_signalled || r->job_exit > 0))
		failed = 1;
	return failed;
}

void analysis_finish(struct bundle *b)
{
	bundle_end_input(b);
	struct rule_ctx rc;
	analysis_rule_ctx(b, &rc);
	rules_run_all(&rc);
	correlate(b);
	if (floor_needed(b)) { /* the keyword tier's guess joins the evidence */
		rules_floor_emit(&rc);
		bundle_clear_diagnoses(b);
		correlate(b);
	}
	cascade_link(b); /* ranks: echoes across ranks (cascade.h) */
	verdict_decide(b);
}

static struct bundle *start(const char *name, const struct analysis_opts *o)
{
	struct bundle *b = bundle_new(name, o->db, o->lim);
	if (o->threads > 1)
		bundle_set_threads(b, 2);
	bundle_set_audit(b, o->audit);
	if (o->summary_only)
		bundle_summary_only(b, 1);
	if (o->json_arena && o->threads <= 1)
		bundle_json_arena(b, 1);
	return b;
}

struct bundle *analysis_run(const char *name, const char *path, const struct analysis_opts *o,
                            struct msgs *input_errors, int *readable)
{
	struct bundle *b = start(name, o);
	int rc = 0;
	if (path)
		rc = bundle_add_path(b, path, input_errors);
	if (readable)
		*readable = rc == 0;
	analysis_finish(b);
	bundle_json_arena(b, 0);
	return b;
}

struct bundle *analysis_run_docs(const char *name, const struct analysis_doc *docs, size_t n,
                                 const struct analysis_opts *o)
{
	struct bundle *b = start(name, o);
	for (size_t i = 0; i < n; i++)
		bundle_add_memory(b, docs[i].name, docs[i].data ? docs[i].data : "", docs[i].len);
	analysis_finish(b);
	bundle_json_arena(b, 0);
	return b;
}
