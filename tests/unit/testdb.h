/* testdb.h - for the unit tests that analyse text against a signature
 * database (test_hypotheses, test_ranks, test_refine, test_verdict): read a
 * fixture, run one bundle over text, find a diagnosis.  Include after
 * testlib.h.  Each test owns its database; these only borrow it. */
#ifndef NT_TESTDB_H
#define NT_TESTDB_H

#include <stdio.h>
#include <string.h>

#include "engine/analysis.h"
#include "engine/bundle.h"
#include "engine/diagnosis.h"
#include "base/util.h"

/* The whole file at path (the caller frees it), or NULL. */
static inline char *tdb_slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct buf b;
	buf_init(&b);
	int rc = buf_read_file(&b, f, SIZE_MAX);
	fclose(f);
	char *s = buf_steal(&b);
	if (rc < 0) {
		free(s);
		return NULL;
	}
	return s;
}

/* One bundle of one in-memory document, analysed to the end (the caller
 * frees it with bundle_free). */
static inline struct bundle *tdb_run_text(const struct sigdb *db, const char *name, const char *text)
{
	struct bundle *b = bundle_new("t", db, NULL);
	bundle_add_memory(b, name, text, strlen(text));
	analysis_finish(b);
	return b;
}

static inline const struct diagnosis *tdb_diag(const struct bundle *b, const char *id)
{
	for (size_t i = 0; i < b->ndiags; i++)
		if (strcmp(b->diags[i].def->id, id) == 0)
			return &b->diags[i];
	return NULL;
}

/* The first diagnosis of severity error or warning (the report's top). */
static inline const struct diagnosis *tdb_top(const struct bundle *b)
{
	for (size_t i = 0; i < b->ndiags; i++)
		if (b->diags[i].def->severity == SEV_ERROR || b->diags[i].def->severity == SEV_WARNING)
			return &b->diags[i];
	return NULL;
}

#endif
