/* summary.h - what a batch of bundles adds up to: bundles per verdict,
 * bundles per category (of each diagnosed bundle's primary diagnosis), per
 * diagnosis and per signature/rule, the most frequent fingerprints (one
 * diagnosis with the same key captures) with example bundles, and the
 * bundles whose input was damaged, with their error.
 *
 * A summary is fed with bundle objects as batch writes them (the analyze
 * contract's bundle object plus batch's "evidence_counts", "input_errors"
 * and "readable"), so `batch` and `merge` (reading those objects back from
 * JSONL) compute it with the same code.  Every part of it is independent of
 * the order in which bundles arrive: counts add up, example bundles are the
 * smallest names, lists are sorted on output.  So a summary of shards merged
 * with summary_merge() equals the summary of one run over everything.
 *
 * A summary owns all its strings.  Not thread-safe: give each thread its own
 * and merge them. */
#ifndef NT_SUMMARY_H
#define NT_SUMMARY_H

#include <stdint.h>
#include <stdio.h>
#include <cjson/cJSON.h>
#include "base/util.h"

#define SUMMARY_EXAMPLES 3   /* example bundles kept per fingerprint */

struct summary;

struct summary *summary_new(void);
void summary_free(struct summary *s);

/* Count one bundle object.  Returns 0, or -1 when obj is not a bundle object
 * (no "name" or "verdict"); nothing is counted then. */
int summary_add_bundle(struct summary *s, const cJSON *bundle);

/* Add everything counted in src to dst. */
void summary_merge(struct summary *dst, const struct summary *src);

/* The database the bundles were analysed with; summaries of different
 * databases merge into version "mixed". */
void summary_set_db(struct summary *s, const char *version, double signatures);

/* The summary as JSON (see docs/batch.md).  Caller owns the result. */
cJSON *summary_json(const struct summary *s);

/* Read back a summary_json() object (merge of --summary-only shards).
 * Returns 0, or -1 with a message in m (prefixed with where) when obj is not
 * a summary. */
int summary_add_json(struct summary *s, const cJSON *obj, const char *where, struct msgs *m);

/* Number of bundles counted, and of those diagnosed or unknown_failure. */
uint64_t summary_bundles(const struct summary *s);
/* Counts of the JSON added that were negative, not finite or over 2^53
 * (taken as 0). */
uint64_t summary_bad_numbers(const struct summary *s);
/* Hash probes of its tables so far (tests bound the work per bundle). */
uint64_t summary_work(const struct summary *s);
uint64_t summary_failed(const struct summary *s);
uint64_t summary_unreadable(const struct summary *s);

/* A table for humans; colour with ANSI escapes when color. */
void summary_text(FILE *out, const struct summary *s, int color);

/* The key captures of a diagnosis object's evidence, as used in its
 * fingerprint: captures whose name does not denote a per-instance value
 * (rank, pid, sizes, times, ...) and whose value is the same in every piece
 * of evidence that has it.  Returns an object name -> value, names sorted.
 * Caller owns. */
cJSON *summary_key_captures(const cJSON *diagnosis);

#endif
