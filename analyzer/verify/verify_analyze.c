/* verify_analyze.c - feed the NCCL output that verify captured (one document
 * per rank: "<mode>/rank<N>.log") to the same analysis engine as `analyze`,
 * and keep the bundle's JSON object (report_bundle_json) with the run.
 *
 * Define VERIFY_NO_ENGINE to build verify without the engine (then every
 * run says "analysis engine not available in this build"). */
#include "verify/verify_int.h"

#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#ifndef VERIFY_NO_ENGINE
#define VERIFY_HAVE_ENGINE 1
#endif

#ifdef VERIFY_HAVE_ENGINE
#include "engine/analysis.h"
#include "engine/bundle.h"
#include <limits.h>
#include "report/report.h"
#include "rules/rules.h"
#include "match/sigdb.h"

void *verify_analyze_run(const struct verify_run *r, const char *patterns_dir, char **msg)
{
	struct sigdb db;
	struct msgs m = {{0}, 0};
	*msg = NULL;
	sigdb_init(&db);
	rules_register(&db);
	int errs = sigdb_load_dir(&db, patterns_dir, &m);
	errs += sigdb_finalize(&db, &m);
	if (db.nsigs == 0) {
		*msg = xasprintf("analysis skipped: signature database '%s': %s", patterns_dir,
		                 m.list.n ? m.list.v[0] : "no signatures");
		msgs_free(&m);
		sigdb_free(&db);
		return NULL;
	}
	/* Like a damaged input, a damaged database is a warning: what loaded
	 * is still used. */
	if (errs)
		*msg = xasprintf("signature database '%s' has %d problem%s (first: %s); the analysis used what loaded",
		                 patterns_dir, errs, errs == 1 ? "" : "s", m.list.n ? m.list.v[0] : "?");
	msgs_free(&m);
	/* one document per rank, analysed like analyze does */
	struct analysis_doc *docs = xcalloc((size_t)r->nranks + 1, sizeof *docs);
	for (int i = 0; i < r->nranks; i++) {
		const struct verify_rank *k = &r->ranks[i];
		docs[i].name = xasprintf("%s/rank%d.log", r->mode, k->rank);
		docs[i].data = k->log.data;
		docs[i].len = k->log.len;
	}
	struct analysis_opts ao = {&db, NULL, 1, 0, 0, 0};
	struct bundle *b = analysis_run_docs(r->mode, docs, (size_t)r->nranks, &ao);
	for (int i = 0; i < r->nranks; i++)
		free((char *)docs[i].name);
	free(docs);
	cJSON *j = report_bundle_json(b, 0);
	bundle_free(b);
	sigdb_free(&db);
	return j;
}
#else
void *verify_analyze_run(const struct verify_run *r, const char *patterns_dir, char **msg)
{
	(void)r;
	(void)patterns_dir;
	*msg = xstrdup("analysis engine not available in this build");
	return NULL;
}
#endif

void verify_analysis_free(void *a)
{
	cJSON_Delete(a);
}

int verify_analyze(struct verify_run *r, const char *patterns_dir, char **msg)
{
	verify_analysis_free(r->analysis);
	r->analysis = verify_analyze_run(r, patterns_dir, msg);
	return r->analysis ? 0 : -1;
}
