/* report_formats.h - the report formats rendered from the JSON document
 * (report_json() / report_bundle_json()): a self-contained HTML page for
 * people, and JUnit XML, SARIF 2.1.0 and GitHub workflow annotations for CI.
 *
 * Every renderer reads only the cJSON it is given (borrowed, not changed)
 * and writes to `out`; none keeps state between calls.  They draw a section
 * only when its data is present, so facts that later parsers add appear
 * without changes here.  docs/formats.md describes each format. */
#ifndef NT_REPORT_FORMATS_H
#define NT_REPORT_FORMATS_H

#include <stdio.h>
#include <cjson/cJSON.h>

/* doc: the whole analyze document {"schema_version", "tool", "db", "bundles"}. */
void report_html(FILE *out, const cJSON *doc);
void report_junit(FILE *out, const cJSON *doc);
void report_sarif(FILE *out, const cJSON *doc);
/* GitHub shows at most GH_STEP_CAP annotations of each kind (error,
 * warning, notice) per step and GH_JOB_CAP per job, and drops the rest
 * without a word.  job_left: how many this job may still show (formats.c
 * counts those nccl-triage wrote in the job's earlier steps).  Writes no
 * more than that, each kind at most GH_STEP_CAP, and says in one last
 * notice what was left out (a plain log line when the job has none left).
 * Returns the number of annotations written. */
#define GH_STEP_CAP 10
#define GH_JOB_CAP 50
size_t report_github(FILE *out, const cJSON *doc, size_t job_left);

/* batch: summary is the batch summary object (keys used when present:
 * "bundles" (count), "verdicts" {name: n}, "categories" {CATEGORY: n},
 * "fingerprints" [{"diagnosis"|"fingerprint"|"id", "captures", "bundles"|
 * "count", "category", "title", "examples"}], "db", "elapsed_s", as
 * summary_json() writes them); bundles is an array of bundle
 * objects as in the analyze document (or the per-bundle JSONL records), or
 * NULL.  Missing counts are computed from bundles. */
void report_html_batch(FILE *out, const cJSON *summary, const cJSON *bundles);
/* What report_html_batch's table needs of one bundle object (kept small:
 * a batch may have ten thousand of them): name, verdict, the first three
 * diagnoses with their first evidence line, the first unexplained line.
 * batch and merge keep these rows.  Caller owns the row. */
cJSON *report_html_row(const cJSON *bundle);

/* Where a piece of evidence lives for a CI consumer: the document path
 * joined to the bundle operand ("logs" + "run.log" -> "logs/run.log"; a
 * single-file operand already ends with its path; stdin "-" gives the path
 * alone).  Caller frees. */
char *report_artifact_path(const char *bundle, const char *path);

#endif
