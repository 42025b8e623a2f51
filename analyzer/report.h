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
};

/* The whole analyze document: {"schema_version":1, "tool":..., "db":..., "bundles":[...]}.
 * Caller owns the result. */
cJSON *report_json(struct bundle *const *bundles, size_t n, const struct sigdb *db);
/* {"schema_version", "tool", "db"}: the head every JSON document starts with. */
cJSON *report_header_json(const struct sigdb *db);
/* One bundle's object as in "bundles" (used by batch's JSONL). Caller owns. */
cJSON *report_bundle_json(const struct bundle *b);
/* Every string value and key at it, its siblings and below made valid UTF-8
 * (invalid bytes become U+FFFD).  report_bundle_json does it already. */
void report_json_fix_utf8(cJSON *it);
void report_text(FILE *out, const struct bundle *b, const struct report_opts *o);
void report_md(FILE *out, const struct bundle *b, const struct report_opts *o);

#endif
