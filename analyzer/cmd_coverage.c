/* cmd_coverage.c - `nccl-triage coverage`: render the coverage tables
 * (patterns/coverage/ *.tsv, see coverage.h) as docs/coverage.md (--format md)
 * or as a summary of counts (text).  check-db checks the tables. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "clicommon.h"
#include "coverage.h"

int cmd_coverage(int argc, char **argv)
{
	struct common c;
	struct strvec ops = {0};
	int pr = parse_common_at(argc, argv, 1, CMD_COVERAGE, "coverage",
	                         "coverage [--format text|md] [-o FILE] [--patterns DIR]", &c, &ops);
	int status = 0;
	if (pr != 0) {
		status = pr > 0 ? 0 : 2;
		goto out;
	}
	if (ops.n) {
		fprintf(stderr, "nccl-triage coverage: takes no operands ('%s')\n", ops.v[0]);
		status = 2;
		goto out;
	}
	const char *fmt = c.format ? c.format : "text";
	if (strcmp(fmt, "text") && strcmp(fmt, "md")) {
		fprintf(stderr, "nccl-triage coverage: unknown format '%s' (text, md)\n", fmt);
		status = 2;
		goto out;
	}
	struct sigdb db;
	if (load_db(&db, &c, 0) < 0) {
		sigdb_free(&db);
		status = 2;
		goto out;
	}
	struct msgs m = {0};
	struct covtable *t = NULL;
	size_t n = 0;
	int errors = coverage_load_db(&db, &t, &n, &m);
	for (size_t i = 0; i < m.list.n; i++)
		fprintf(stderr, "nccl-triage: %s\n", m.list.v[i]);
	msgs_free(&m);
	if (errors) {
		status = 2;
	} else if (n == 0) {
		fprintf(stderr, "nccl-triage coverage: no coverage table (DIR/coverage/*.tsv) in the database's folders\n");
		status = 2;
	} else {
		FILE *out = open_output(c.output);
		if (!out) {
			status = 2;
		} else {
			coverage_render(out, strcmp(fmt, "md") == 0, &db, t, n);
			status = output_status(close_output(out, c.output), 0);
		}
	}
	coverage_free(t, n);
	sigdb_free(&db);
out:
	strvec_free(&ops);
	free_common(&c);
	return status;
}
