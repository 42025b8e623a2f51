/* cmd_analyze.c - `nccl-triage analyze PATH...`: each operand is one
 * bundle (analysis_run); the report document of all of them (report.h) is
 * redacted when asked and rendered in the chosen format (formats.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/analysis.h"
#include "engine/bundle.h"
#include "cli/cli.h"
#include "cli/clicommon.h"
#include "cli/commands.h"
#include "cli/formats.h"
#include "base/json.h"
#include "report/redact.h"
#include "report/redact_names.h"
#include "report/report.h"
#include "match/sigdb.h"

/* Warnings on stderr, from the (redacted) document. */
static void print_warnings(const cJSON *doc)
{
	const cJSON *b;
	cJSON_ArrayForEach(b, json_get(doc, "bundles")) {
		size_t nw, dropped, k = 0;
		report_warnings(b, &nw, &dropped);
		const cJSON *w;
		cJSON_ArrayForEach(w, json_get(b, "warnings"))
			if (k++ < nw && cJSON_IsString(w))
				fprintf(stderr, "nccl-triage: %s\n", w->valuestring);
	}
}

/* --unexplained: each bundle's unexplained failure-word lines, one per line
 * ("path:line: text"), instead of the report; exit 1 when there is one. */
static int print_unexplained(struct bundle **bundles, size_t n, const struct common *c, struct sigdb *db, int status)
{
	FILE *out = open_output(c->output);
	for (size_t i = 0; i < n; i++) {
		const struct bundle *b = bundles[i];
		for (size_t k = 0; out && k < b->audit_lines.n; k++)
			fprintf(out, "%s\n", b->audit_lines.v[k]);
		if (out && b->audit_more)
			fprintf(out, "%s: %llu more lines not listed\n", b->name, (unsigned long long)b->audit_more);
		if (b->audit_lines.n && status == EXIT_HEALTHY)
			status = EXIT_FOUND;
	}
	for (size_t i = 0; i < n; i++)
		bundle_free(bundles[i]);
	free(bundles);
	if (!out)
		status = EXIT_TROUBLE;
	else
		status = output_status(close_output(out, c->output), status);
	unload_db(db);
	return status;
}

/* Below this, a plain file is analysed on one thread when -j is not given:
 * starting the second (its stack, its malloc arena, the ring: ~50 page
 * faults and 0.2 M instructions, a twentieth of the start-up) costs more
 * than it saves on so little text.  The report is the same (the
 * pipeline's is -j1's byte for byte: tests/threads). */
#define ONE_THREAD_BELOW (64u << 10)

/* Whether path is a regular file under ONE_THREAD_BELOW bytes that is not
 * gzip (a small archive can hold much more text) */
static int small_plain_file(const char *path)
{
	struct stat st;
	if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size >= (off_t)ONE_THREAD_BELOW)
		return 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0; /* analysis_run says why */
	unsigned char m[2];
	size_t n = fread(m, 1, 2, f);
	fclose(f);
	return !(n == 2 && m[0] == 0x1f && m[1] == 0x8b);
}

int cmd_analyze(struct common *c, struct strvec *ops)
{
	const struct format *fmt = format_pick(c->format, CMD_ANALYZE, "analyze");
	if (!fmt)
		return EXIT_TROUBLE;
	if (ops->n == 0) {
		fprintf(stderr, "nccl-triage analyze: no input\nhint: nccl-triage analyze ticket.tar.gz  (or - for stdin)\n");
		return EXIT_TROUBLE;
	}
	struct sigdb db;
	if (load_db(&db, c, LOAD_SLIM) < 0) {
		sigdb_free(&db);
		return EXIT_TROUBLE;
	}
	/* -j: a second thread applies the lines while the first reads, parses and scans them */
	int threads = c->jobs > 0 ? c->jobs : online_cpus();
	struct analysis_opts ao = {&db, &c->lim, threads > 1 ? 2 : 1, c->unexplained, 0, 0};
	struct bundle **bundles = xcalloc(ops->n, sizeof *bundles);
	size_t readable = 0;
	int status = EXIT_HEALTHY;
	for (size_t i = 0; i < ops->n; i++) {
		const char *name = c->name ? c->name : (strcmp(ops->v[i], "-") == 0 ? "stdin" : ops->v[i]);
		int ok;
		struct analysis_opts one = ao;
		if (c->jobs <= 0 && small_plain_file(ops->v[i]))
			one.threads = 1;
		bundles[i] = analysis_run(name, ops->v[i], &one, NULL, &ok);
		readable += ok;
	}
	if (readable == 0)
		status = EXIT_TROUBLE;
	if (c->unexplained)
		return print_unexplained(bundles, ops->n, c, &db, status);
	/* the report document, the one model every format renders from; text
	 * and md may show more evidence than the JSON contract keeps */
	size_t evmax = fmt->more_evidence && c->evidence > REPORT_EVIDENCE_MAX ? (size_t)c->evidence : 0;
	cJSON *doc = report_json(bundles, ops->n, &db, evmax);
	for (size_t i = 0; i < ops->n; i++)
		bundle_free(bundles[i]);
	free(bundles);
	/* the exit status for CI: by verdict, or --fail-on LEVEL */
	const cJSON *bo;
	cJSON_ArrayForEach(bo, json_get(doc, "bundles"))
		if (report_fails(bo, c->fail_on))
			status = EXIT_FOUND;
	if (readable == 0)
		status = EXIT_TROUBLE;
	if (c->quiet_info && fmt->ci)
		report_drop_info(doc);
	/* --redact: after the diagnosis, before anything is shown */
	if (c->redact) {
		struct redactor *red = redactor_new();
		unsigned nb = 0;
		cJSON *rb;
		cJSON_ArrayForEach(rb, json_get(doc, "bundles"))
			if (!c->keep_names)
				redact_names(rb, ++nb);
		redact_json(red, json_get(doc, "bundles"));
		cJSON_AddBoolToObject(doc, "redacted", 1);
		redactor_free(red);
	}
	if (!c->quiet)
		print_warnings(doc);
	FILE *out = open_output_safe(c->output, format_cisafe(fmt));
	if (!out) {
		status = EXIT_TROUBLE;
	} else {
		struct report_opts ro = {want_color(c, out), c->evidence, term_width(out)};
		fmt->render(out, doc, &ro);
		status = output_status(close_output(out, c->output), status);
	}
	cJSON_Delete(doc);
	unload_db(&db);
	return status;
}
