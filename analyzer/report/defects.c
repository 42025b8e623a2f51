/* defects.c - see defects.h. */
#include "report/defects.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/version.h"
#include "report/coverage.h"

static const char *const COLS[DEF_NCOLS] = {"id",      "release", "affected", "class",   "mapping",
                                            "message", "phase",   "result",   "hardware", "feature",
                                            "env",     "source",  "commit"};

static void push_row(struct deftable *t, char *line, size_t lineno, struct msgs *m, int *errors)
{
	struct defrow r = {.lineno = lineno};
	size_t c = 0;
	for (char *f = line;; c++) {
		char *tab = strchr(f, '\t');
		if (c < DEF_NCOLS)
			r.col[c] = xstrndup(f, tab ? (size_t)(tab - f) : strlen(f));
		if (!tab)
			break;
		f = tab + 1;
	}
	c++;
	if (c != DEF_NCOLS) {
		msgs_add(m, "%s:%zu: want %d tab-separated columns, got %zu", t->path, lineno, DEF_NCOLS, c);
		(*errors)++;
		for (size_t k = 0; k < DEF_NCOLS; k++)
			free(r.col[k]);
		return;
	}
	t->rows = xrealloc(t->rows, (t->n + 1) * sizeof *t->rows);
	t->rows[t->n++] = r;
}

static int load_one(const char *path, struct deftable *t, struct msgs *m)
{
	memset(t, 0, sizeof *t);
	t->path = xstrdup(path);
	FILE *f = fopen(path, "rb");
	if (!f) {
		msgs_add(m, "%s: cannot read: %s", path, strerror(errno));
		return 1;
	}
	int errors = 0;
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if ((size_t)len != strlen(line)) {
			msgs_add(m, "%s:%zu: contains a NUL byte", path, lineno);
			errors++;
			continue;
		}
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (len == 0)
			continue;
		if (line[0] == '#') {
			char *save = NULL;
			if (str_starts(line, "# releases:"))
				for (char *tok = strtok_r(line + 11, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
					strvec_push(&t->releases, tok);
			continue;
		}
		if (str_starts(line, "id\t")) {
			struct buf want;
			buf_init(&want);
			for (int k = 0; k < DEF_NCOLS; k++)
				buf_printf(&want, "%s%s", k ? "\t" : "", COLS[k]);
			t->header_ok = strcmp(line, want.data) == 0;
			if (!t->header_ok) {
				msgs_add(m, "%s:%zu: the header row must name the columns %s", path, lineno, want.data);
				errors++;
			}
			buf_free(&want);
			continue;
		}
		push_row(t, line, lineno, m, &errors);
	}
	free(line);
	fclose(f);
	return errors;
}

int defects_load_db(const struct sigdb *db, struct deftable **t, size_t *n, struct msgs *m)
{
	struct strvec paths = {0};
	coverage_files(db, 1, &paths);
	int errors = 0;
	*t = xcalloc(paths.n ? paths.n : 1, sizeof **t);
	*n = paths.n;
	for (size_t i = 0; i < paths.n; i++)
		errors += load_one(paths.v[i], &(*t)[i], m);
	strvec_free(&paths);
	return errors;
}

void defects_free(struct deftable *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t r = 0; r < t[i].n; r++)
			for (size_t k = 0; k < DEF_NCOLS; k++)
				free(t[i].rows[r].col[k]);
		free(t[i].rows);
		free(t[i].path);
		strvec_free(&t[i].releases);
	}
	free(t);
}

/* s lower-cased, quotes dropped, runs of blanks one space: how a note is
 * compared with the quote of it in an explanation */
static char *norm(const char *s)
{
	struct buf b;
	buf_init(&b);
	int sp = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\'' || *p == '"' || *p == '`')
			continue;
		if (*p >= 0x80)
			continue; /* curly quotes and other UTF-8: not compared */
		if (isspace(*p)) {
			sp = 1;
			continue;
		}
		if (sp && b.len)
			buf_addc(&b, ' ');
		sp = 0;
		buf_addc(&b, (char)tolower(*p));
	}
	return b.data ? buf_steal(&b) : xstrdup("");
}

/* 1 when the explanation holds 20 consecutive characters of the note */
static int quotes_note(const char *explanation, const char *note)
{
	char *e = norm(explanation), *q = norm(note);
	size_t nq = strlen(q);
	int hit = nq < 20 ? strstr(e, q) != NULL : 0;
	for (size_t i = 0; !hit && i + 20 <= nq; i++) {
		char save = q[i + 20];
		q[i + 20] = 0;
		hit = strstr(e, q + i) != NULL;
		q[i + 20] = save;
	}
	free(e);
	free(q);
	return hit;
}

static int is_hex40(const char *s)
{
	size_t n = 0;
	while (isxdigit((unsigned char)s[n]))
		n++;
	return n == 40 && s[n] == 0;
}

/* What is wrong with a matchable row's diagnosis, in err (empty: nothing). */
static void check_diag(const struct sigdb *db, const struct defrow *row, int from_notes, char *err, size_t errlen)
{
	const char *id = row->col[DEF_MAPPING];
	const struct diagdef *d = sigdb_diag(db, id);
	long rel = version_code(row->col[DEF_RELEASE]);
	if (!d) {
		snprintf(err, errlen, "mapping \"%s\": no diagnosis of that id", id);
		return;
	}
	if (strcmp(d->category, "NCCL_BUG_UPGRADE") != 0) {
		snprintf(err, errlen, "diagnosis \"%s\" is %s, not NCCL_BUG_UPGRADE", id, d->category);
		return;
	}
	if (!d->has_nccl_range || !d->nccl.has_max || d->nccl.max_incl || d->nccl.max != rel) {
		snprintf(err, errlen, "diagnosis \"%s\": its \"nccl\" range must end before the fixed release (<%s)", id,
		         row->col[DEF_RELEASE]);
		return;
	}
	int names = 0;
	for (size_t k = 0; k < d->fix.n && !names; k++)
		names = strstr(d->fix.v[k], row->col[DEF_RELEASE]) != NULL;
	if (!names) {
		snprintf(err, errlen, "diagnosis \"%s\": no fix step names the release to move to (%s)", id,
		         row->col[DEF_RELEASE]);
		return;
	}
	if (from_notes && !quotes_note(d->explanation, row->col[DEF_SOURCE]))
		snprintf(err, errlen, "diagnosis \"%s\": its explanation does not quote the release note", id);
}

static void check_row(const struct sigdb *db, const struct deftable *tb, const struct defrow *row,
                      const struct strvec *ids, char *err, size_t errlen)
{
	int from_notes = str_starts(row->col[DEF_ID], "nccl-");
	long rel = version_code(row->col[DEF_RELEASE]);
	struct version_range r;
	const char *aff = row->col[DEF_AFFECTED];
	if (!from_notes && !str_starts(row->col[DEF_ID], "thread-"))
		snprintf(err, errlen, "id \"%s\" is neither nccl-RELEASE-N nor thread-...", row->col[DEF_ID]);
	else if (strvec_contains(ids, row->col[DEF_ID]))
		snprintf(err, errlen, "id \"%s\" twice", row->col[DEF_ID]);
	else if (rel < 0)
		snprintf(err, errlen, "release \"%s\" is not a version", row->col[DEF_RELEASE]);
	else if (from_notes && !strvec_contains(&tb->releases, row->col[DEF_RELEASE]))
		snprintf(err, errlen, "release \"%s\" is not one of the releases read", row->col[DEF_RELEASE]);
	else if (strcmp(aff, "none") != 0 && !sigdb_parse_range(aff, &r))
		snprintf(err, errlen, "affected \"%s\" is neither a version range nor none", aff);
	else if (strcmp(aff, "none") != 0 && r.has_max && (r.max_incl || r.max != rel))
		snprintf(err, errlen, "affected \"%s\" must end before the fixed release %s", aff, row->col[DEF_RELEASE]);
	else if (strcmp(row->col[DEF_CLASS], "matchable") && strcmp(row->col[DEF_CLASS], "not-observable"))
		snprintf(err, errlen, "class \"%s\" is neither matchable nor not-observable", row->col[DEF_CLASS]);
	else if (!row->col[DEF_MAPPING][0] || !strcmp(row->col[DEF_MAPPING], "UNCLASSIFIED"))
		snprintf(err, errlen, "no mapping (a diagnosis id, or why the defect is not observable)");
	else if (!row->col[DEF_SOURCE][0])
		snprintf(err, errlen, "no source (the note or the thread's words)");
	else if (from_notes ? !is_hex40(row->col[DEF_COMMIT]) : !str_starts(row->col[DEF_COMMIT], "https://github.com/"))
		snprintf(err, errlen, "commit \"%s\": want the commit's 40 hex digits (notes) or the thread's URL",
		         row->col[DEF_COMMIT]);
	else if (!strcmp(row->col[DEF_CLASS], "matchable"))
		check_diag(db, row, from_notes, err, errlen);
	else if (sigdb_diag(db, row->col[DEF_MAPPING]))
		snprintf(err, errlen, "a not-observable row names diagnosis \"%s\"", row->col[DEF_MAPPING]);
}

int defects_check(const struct sigdb *db, const struct deftable *t, size_t n, struct msgs *m, size_t *ok,
                  size_t *matchable)
{
	int fails = 0;
	*ok = *matchable = 0;
	for (size_t ti = 0; ti < n; ti++) {
		const struct deftable *tb = &t[ti];
		struct strvec ids = {0};
		if (tb->n && !tb->header_ok) {
			msgs_add(m, "%s: no header row (id\trelease\t...)", tb->path);
			fails++;
		}
		for (size_t i = 0; i < tb->releases.n; i++)
			if (version_code(tb->releases.v[i]) < 0) {
				msgs_add(m, "%s: releases: \"%s\" is not a version", tb->path, tb->releases.v[i]);
				fails++;
			}
		for (size_t k = 0; k < tb->n; k++) {
			const struct defrow *row = &tb->rows[k];
			char err[320] = "";
			check_row(db, tb, row, &ids, err, sizeof err);
			strvec_push(&ids, row->col[DEF_ID]);
			if (err[0]) {
				msgs_add(m, "%s:%zu: %s", tb->path, row->lineno, err);
				fails++;
			} else {
				(*ok)++;
				*matchable += strcmp(row->col[DEF_CLASS], "matchable") == 0;
			}
		}
		strvec_free(&ids);
	}
	return fails;
}

/* ---- rendering (nccl-triage coverage) ---- */

static void md_text(FILE *out, const char *s)
{
	for (const char *p = s; *p; p++)
		fputs(*p == '|' ? "\\|" : (char[2]){*p, 0}, out);
}

void defects_render(FILE *out, int md, const struct deftable *t, size_t n)
{
	for (size_t ti = 0; ti < n; ti++) {
		const struct deftable *tb = &t[ti];
		const char *base = strrchr(tb->path, '/');
		base = base ? base + 1 : tb->path;
		size_t match = 0, threads = 0;
		for (size_t r = 0; r < tb->n; r++) {
			match += !strcmp(tb->rows[r].col[DEF_CLASS], "matchable");
			threads += str_starts(tb->rows[r].col[DEF_ID], "thread-");
		}
		if (!md) {
			fprintf(out, "%s: %zu defects (%zu from release notes, %zu from threads): %zu matchable, %zu not "
			             "observable in logs\n",
			        tb->path, tb->n, tb->n - threads, threads, match, tb->n - match);
			continue;
		}
		fprintf(out, "## %s: NCCL's defects by release\n\nGenerated by `scripts/nccl_defects.py` from the release "
		             "notes (the messages of the commits between two tags) and the defects learn-half threads name; "
		             "checked by `check-db`. %zu defects: %zu matchable (a diagnosis keyed on the NCCL version and "
		             "the symptom: with the bundle's version in the range it is the cause and outranks the generic "
		             "reading; with no version it is a lead and the next steps ask for the version), %zu not "
		             "observable in logs (each row says why).\n\n"
		             "| release | defects | matchable | not observable |\n|---|---|---|---|\n",
		        base, tb->n, match, tb->n - match);
		struct strvec rels = {0};
		for (size_t r = 0; r < tb->n; r++)
			if (!strvec_contains(&rels, tb->rows[r].col[DEF_RELEASE]))
				strvec_push(&rels, tb->rows[r].col[DEF_RELEASE]);
		/* by version, oldest first */
		for (size_t i = 1; i < rels.n; i++)
			for (size_t j = i; j > 0 && version_cmp_str(rels.v[j - 1], rels.v[j]) > 0; j--) {
				char *x = rels.v[j - 1];
				rels.v[j - 1] = rels.v[j];
				rels.v[j] = x;
			}
		for (size_t i = 0; i < rels.n; i++) {
			size_t all = 0, mt = 0;
			for (size_t r = 0; r < tb->n; r++)
				if (!strcmp(tb->rows[r].col[DEF_RELEASE], rels.v[i])) {
					all++;
					mt += !strcmp(tb->rows[r].col[DEF_CLASS], "matchable");
				}
			fprintf(out, "| %s | %zu | %zu | %zu |\n", rels.v[i], all, mt, all - mt);
		}
		fprintf(out, "\n### Matchable defects\n\n| fixed in | affected | diagnosis | symptom | note |\n"
		             "|---|---|---|---|---|\n");
		for (size_t i = 0; i < rels.n; i++)
			for (size_t r = 0; r < tb->n; r++) {
				const struct defrow *row = &tb->rows[r];
				if (strcmp(row->col[DEF_RELEASE], rels.v[i]) || strcmp(row->col[DEF_CLASS], "matchable"))
					continue;
				fprintf(out, "| %s | %s | `%s` | ", row->col[DEF_RELEASE], row->col[DEF_AFFECTED], row->col[DEF_MAPPING]);
				md_text(out, row->col[DEF_MESSAGE]);
				fputs(" | ", out);
				md_text(out, row->col[DEF_SOURCE]);
				fputs(" |\n", out);
			}
		fputc('\n', out);
		strvec_free(&rels);
	}
}
