/* coverage.h - the coverage tables: for every failure message a component
 * prints (NCCL's WARN and failing INFO format strings, extracted from its
 * source by scripts/nccl_strings.py), what nccl-triage makes of it.
 *
 * A table is a TSV file in a pattern folder's coverage/ subfolder
 * (patterns/coverage/nccl.tsv) with the columns
 *   file first_release last_release level format mapping note sample
 * and a "# releases: 2.10.3 2.11.4 ..." comment naming the releases read.
 * mapping is one of
 *   sig:ID            signature ID matches the message
 *   derived:CATEGORY  no signature; the verdict's fallback derives CATEGORY
 *                     from NCCL's structure (source file, ncclResult)
 *   benign:REASON     printed on healthy runs, or informational
 *   not-yet           nothing yet
 * sample is the message instantiated as NCCL prints it (full line prefix).
 *
 * A table of another component (PyTorch, a framework, a launcher) says
 * "# style: braces": its formats mark a formatted value with {} (C++
 * c10::str/fmt pieces, Python f-strings and %-formats as the extractors
 * write them), its levels are the source's own (error, warning, check,
 * raise:RuntimeError, ...), a sample need only contain an instance of the
 * format (after an exception name, a glog header, a logger's prefix), and a
 * row that maps to no signature may have no sample.  Its summary counts the
 * "failure messages" (every row not benign) and the not-yet share of them.
 * See docs/coverage.md (generated) and docs/signature-format.md. */
#ifndef NT_COVERAGE_H
#define NT_COVERAGE_H

#include <stdio.h>
#include "match/sigdb.h"
#include "base/util.h"

enum cov_col { COV_FILE, COV_FIRST, COV_LAST, COV_LEVEL, COV_FORMAT, COV_MAPPING, COV_NOTE, COV_SAMPLE, COV_NCOLS };

struct covrow {
	char *col[COV_NCOLS];
	size_t lineno;
};

struct covtable {
	char *path;
	struct strvec releases;   /* from "# releases:", ascending */
	int braces;               /* "# style: braces" (above) */
	struct covrow *rows;
	size_t n;
};

/* Load every DIR/coverage/ *.tsv for the folders the database's files came
 * from.  Format errors go to m; returns their number. */
int coverage_load_db(const struct sigdb *db, struct covtable **tables, size_t *ntables, struct msgs *m);
int coverage_load(const char *path, struct covtable *t, struct msgs *m);
/* DIR/coverage/ *.tsv of the database's folders: the coverage tables
 * (defects 0), or the defect tables *_defects.tsv (defects 1; defects.h). */
void coverage_files(const struct sigdb *db, int defects, struct strvec *paths);
void coverage_free(struct covtable *t, size_t n);

/* check-db: every mapping well-formed, every sig:ID exists and matches its
 * row's sample (through the same line parser and prefilter as analyze),
 * every sample an instance of its format, every derived category valid.
 * Returns the number of failures; *ok counts rows that passed. */
int coverage_check(const struct sigdb *db, const struct covtable *t, size_t n, struct msgs *m, size_t *ok);

/* docs/coverage.md ("md") or a summary ("text"). */
void coverage_render(FILE *out, int md, const struct sigdb *db, const struct covtable *t, size_t n);

#endif
