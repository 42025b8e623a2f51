/* report.h - render finished bundles.  JSON follows the contract in
 * docs/json.md exactly; text is for a terminal (colour only when asked);
 * Markdown is what a support engineer pastes into a ticket reply.  Every
 * piece of log text was sanitised when it became evidence (no control
 * bytes, valid UTF-8); Markdown and text add their own escaping. */
#ifndef NT_REPORT_H
#define NT_REPORT_H

#include <stdio.h>
#include <cjson/cJSON.h>

struct bundle;
struct sigdb;

struct report_opts {
	int color;          /* ANSI colours in text output */
	int max_evidence;   /* evidence lines shown per diagnosis (text/md) */
	int width;          /* text: the terminal's columns (prose wrapped with hanging indents,
	                       quoted log lines cut with "…"); 0: not a terminal, whole lines */
};

/* The report document is the one model every format renders from: the JSON
 * of docs/json.md (json itself prints it).  --redact rewrites it
 * (redact_json) before any renderer sees it.
 *
 * evidence_max: evidence kept per diagnosis; 0 is the contract's
 * REPORT_EVIDENCE_MAX (what --format json shows).  A renderer that shows
 * more (text with --evidence 30) is given a document built with more. */
#define REPORT_EVIDENCE_MAX 20

/* The whole analyze document: {"schema_version":1, "tool":..., "db":..., "bundles":[...]}.
 * Caller owns the result.  Each bundle's facts tree moves into the document
 * (b->facts is NULL after it): the bundles are only to be freed then. */
cJSON *report_json(struct bundle *const *bundles, size_t n, const struct sigdb *db, size_t evidence_max);
/* {"schema_version", "tool"}: the start of every JSON document the tool
 * writes (analyze's head, verify's report).  Caller owns. */
cJSON *report_tool_json(void);
/* {"schema_version", "tool", "db"}: the head every JSON document starts with. */
cJSON *report_header_json(const struct sigdb *db);
/* One bundle's object as in "bundles" (batch's JSONL, verify). Caller owns. */
cJSON *report_bundle_json(const struct bundle *b, size_t evidence_max);
/* The part of that object a batch summary and --fail-on read (summary.c:
 * summary_add_bundle; report_fails): name, verdict, inputs, the diagnoses'
 * id, category, severity, role and (root diagnoses only: the
 * fingerprints') their evidence's captures, the
 * unexplained lines' kinds, the flight-recorder dumps; built by the same
 * code, without the rest (batch --summary-only: the whole object of an
 * error-dense bundle is megabytes).  Caller owns. */
cJSON *report_bundle_summary_json(const struct bundle *b);
/* The warnings of a bundle's object: *n real ones (without the closing
 * "N more warnings not shown"), *dropped the ones beyond the cap. */
void report_warnings(const cJSON *bundle, size_t *n, size_t *dropped);
/* Every string value and key at it, its siblings and below made valid UTF-8
 * (invalid bytes become U+FFFD).  report_bundle_json does it already. */
void report_json_fix_utf8(cJSON *it);

/* One proposed change as an argument of `nccl-triage verify`, with a
 * leading space: " --unset KEY" when value is NULL or empty, else
 * " --env KEY=VALUE" (VALUE in single quotes when the shell would need it).
 * A proposal never means "set KEY to the empty string": NCCL reads an empty
 * NCCL_SOCKET_IFNAME as no choice, but an empty variable still hides the
 * value of ~/.nccl.conf or /etc/nccl.conf, so it is not the same as unset.
 * Every format of analyze and verify writes its proposal with this
 * (verify, above the report layer, too). */
char *verify_env_arg(const char *key, const char *value);

/* Evidence items of the document (docs/json.md): kind "line" is the
 * verbatim text of path:line; kind "derived" is a sentence the tool
 * composed, from[] the lines it was computed from.  Every renderer says
 * which it shows. */
int report_ev_derived(const cJSON *e);
/* "memtrace.csv:104, run.log:102": a derived item's from[] (or its
 * path:line when from is absent); "" when it cites no line.  Caller frees. */
char *report_ev_from(const cJSON *e);
/* " (cut from 616 bytes)" when the text was cut ("cut": true),
 * else "".  Caller frees. */
char *report_ev_cut_note(const cJSON *e);
/* Of a bundle's unexplained[] lines, the one that says most about what
 * failed (the first of the best kind: an exception's "Type: message", a
 * crash banner, an NCCL failure line, a component's error, then exit
 * records; a traceback's header last); NULL when there is none.  The
 * summaries quote it (text's Cause line, HTML's and Markdown's lead). */
const cJSON *report_telling_unexplained(const cJSON *unexplained);

/* Whether a bundle object fails a CI step (the exit status 1 of analyze
 * and batch): fail_on NULL: the verdict is diagnosed or unknown_failure;
 * "error": an error finding or unknown_failure; "warning": also a warning
 * finding; "never": never. */
int report_fails(const cJSON *bundle, const char *fail_on);
/* --quiet-info: drop the info findings of every bundle of doc (an array of
 * bundles or a document with "bundles"). */
void report_drop_info(cJSON *doc);

/* 1 when the text of evidence item e is already said in the explanation of
 * its diagnosis d (a rule's sentence made the explanation): renderers then
 * show only where it comes from, not the same sentence twice. */
int report_ev_in_explanation(const cJSON *d, const cJSON *e);

/* Renderers of the document (doc as report_json makes it). */
void report_text(FILE *out, const cJSON *doc, const struct report_opts *o);
/* The first three lines of a bundle's text report: its name and verdict,
 * the cause and the fix (`run` prints them to stderr). */
void report_text_summary(FILE *out, const cJSON *bundle, const struct report_opts *o);
void report_md(FILE *out, const cJSON *doc, const struct report_opts *o);

#endif
