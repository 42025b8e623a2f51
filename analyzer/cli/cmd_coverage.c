/* cmd_coverage.c - `nccl-triage coverage`: render the coverage tables
 * (patterns/coverage/ *.tsv, see coverage.h) as docs/coverage.md (--format md)
 * or as a summary of counts (text).  check-db checks the tables. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/clicommon.h"
#include "cli/commands.h"
#include "report/coverage.h"
#include "report/defects.h"
#include "cli/formats.h"

int cmd_coverage(struct common *c, struct strvec *ops)
{
	const struct format *f = format_pick(c->format, CMD_COVERAGE, "coverage");
	if (!f)
		return 2;
	if (ops->n) {
		fprintf(stderr, "nccl-triage coverage: takes no operands ('%s')\n", ops->v[0]);
		return 2;
	}
	struct sigdb db;
	if (load_db(&db, c, 0) < 0) {
		sigdb_free(&db);
		return 2;
	}
	int status;
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
		FILE *out = open_output(c->output);
		if (!out) {
			status = 2;
		} else {
			coverage_render(out, strcmp(f->name, "md") == 0, &db, t, n);
			struct deftable *dt = NULL;
			size_t nd = 0;
			struct msgs dm = {0};
			if (defects_load_db(&db, &dt, &nd, &dm) == 0)
				defects_render(out, strcmp(f->name, "md") == 0, dt, nd);
			for (size_t i = 0; i < dm.list.n; i++)
				fprintf(stderr, "nccl-triage: %s\n", dm.list.v[i]);
			msgs_free(&dm);
			defects_free(dt, nd);
			status = output_status(close_output(out, c->output), 0);
		}
	}
	coverage_free(t, n);
	sigdb_free(&db);
	return status;
}
