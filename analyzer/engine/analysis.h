/* analysis.h - the analysis of one bundle after its input: the rank
 * timelines are finished, the fact rules run (rules.h), the evidence is
 * correlated into ranked diagnoses and a verdict (correlate.h), and echoes
 * across ranks are linked (cascade.h).  The top of the engine: bundle.c
 * streams the input and knows none of these steps. */
#ifndef NT_ANALYSIS_H
#define NT_ANALYSIS_H

#include <stddef.h>
#include "base/nt_limits.h"
#include "base/util.h"

struct bundle;
struct rule_ctx;
struct sigdb;

/* Analyse one bundle: what analyze, batch and verify all do, written once. */
struct analysis_opts {
	const struct sigdb *db;     /* borrowed; outlives the bundle */
	const struct limits *lim;   /* NULL: the defaults */
	int threads;                /* 2: the pipeline of bundle_set_threads; else 1 */
	int audit;                  /* collect the unexplained failure-word lines (bundle_set_audit) */
	int summary_only;           /* 1: evidence without context lines or spans (bundle_summary_only) */
	int json_arena;             /* 1 (with threads 1): the bundle's cJSON in its arena
	                               (bundle_json_arena); the caller copies facts, never moves them */
};
/* One operand (a file, a folder, an archive, "-" for stdin) read as one
 * bundle named name, analysed to the end.  Input problems become the
 * bundle's warnings and, when input_errors is not NULL, are also appended
 * there.  path NULL: nothing is read (a bundle without documents).
 * *readable (when not NULL): 0 when the operand could not be read at all.
 * Returns the bundle; the caller frees it (bundle_free). */
struct bundle *analysis_run(const char *name, const char *path, const struct analysis_opts *o,
                            struct msgs *input_errors, int *readable);
/* The same for documents already in memory (verify's captured output). */
struct analysis_doc {
	const char *name;
	const void *data;
	size_t len;
};
struct bundle *analysis_run_docs(const char *name, const struct analysis_doc *docs, size_t n,
                                 const struct analysis_opts *o);

/* After the last input: fills b->diags, b->ndiags and b->verdict. */
void analysis_finish(struct bundle *b);
/* What the fact rules see of a bundle (the rule context borrows from b). */
void analysis_rule_ctx(struct bundle *b, struct rule_ctx *c);

#endif
