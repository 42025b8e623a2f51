/* coverage.c - see coverage.h. */
#include "report/coverage.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#include "parse/logline.h"
#include "match/category.h"
#include "match/match.h"
#include "base/version.h"

static const char *const LEVELS[] = {"WARN", "INFO", "TRACE", "RESULT", NULL};

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct buf b;
	buf_init(&b);
	char tmp[65536];
	size_t k;
	while ((k = fread(tmp, 1, sizeof tmp, f)) > 0)
		buf_add(&b, tmp, k);
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		buf_free(&b);
		return NULL;
	}
	*len = b.len;
	return b.data ? buf_steal(&b) : xstrdup(""); /* an empty file has no rows */
}

int coverage_load(const char *path, struct covtable *t, struct msgs *m)
{
	memset(t, 0, sizeof *t);
	t->path = xstrdup(path);
	size_t len = 0;
	char *text = read_file(path, &len);
	if (!text) {
		msgs_add(m, "%s: cannot read: %s", path, strerror(errno));
		return 1;
	}
	int errors = 0;
	size_t cap = 0, lineno = 0;
	char *save = NULL;
	char *end = text + len;
	for (char *p = text; p && p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *stop = nl ? nl : end;
		*stop = 0; /* text[len] is the buffer's terminator */
		char *line = p;
		p = nl ? nl + 1 : NULL;
		lineno++;
		size_t L = strlen(line);
		if (line + L != stop) {
			msgs_add(m, "%s:%zu: contains a NUL byte", path, lineno);
			errors++;
			continue;
		}
		if (L && line[L - 1] == '\r')
			line[--L] = 0;
		if (L == 0)
			continue;
		if (line[0] == '#') {
			if (str_starts(line, "# style:")) {
				const char *v = line + 8;
				while (*v == ' ')
					v++;
				if (strcmp(v, "braces") == 0) {
					t->braces = 1;
				} else {
					msgs_add(m, "%s:%zu: unknown style \"%s\" (only \"braces\")", path, lineno, v);
					errors++;
				}
			}
			if (str_starts(line, "# releases:"))
				for (char *tok = strtok_r(line + 11, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
					strvec_push(&t->releases, tok);
			continue;
		}
		if (str_starts(line, "file\t"))
			continue; /* the header row */
		struct covrow r = {.lineno = lineno};
		size_t c = 0;
		for (char *f = line;; c++) {
			char *tab = strchr(f, '\t');
			if (c < COV_NCOLS)
				r.col[c] = xstrndup(f, tab ? (size_t)(tab - f) : strlen(f));
			if (!tab)
				break;
			f = tab + 1;
		}
		c++;
		if (c != COV_NCOLS) {
			msgs_add(m, "%s:%zu: want %d tab-separated columns, got %zu", path, lineno, COV_NCOLS, c);
			errors++;
			for (size_t k = 0; k < COV_NCOLS; k++)
				free(r.col[k]);
			continue;
		}
		if (t->n == cap) {
			cap = cap ? 2 * cap : 256;
			t->rows = xrealloc(t->rows, cap * sizeof *t->rows);
		}
		t->rows[t->n++] = r;
	}
	free(text);
	return errors;
}

void coverage_free(struct covtable *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t r = 0; r < t[i].n; r++)
			for (size_t k = 0; k < COV_NCOLS; k++)
				free(t[i].rows[r].col[k]);
		free(t[i].rows);
		free(t[i].path);
		strvec_free(&t[i].releases);
	}
	free(t);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* DIR/coverage/ *.tsv of every folder the database came from, sorted per
 * folder: the coverage tables, or (defects) the *_defects.tsv tables. */
void coverage_files(const struct sigdb *db, int defects, struct strvec *paths)
{
	struct strvec dirs = {0};
	for (size_t i = 0; i < db->files.n; i++) {
		const char *f = db->files.v[i];
		const char *slash = strrchr(f, '/');
		char *dir = slash ? xstrndup(f, (size_t)(slash - f)) : xstrdup(".");
		if (strvec_contains(&dirs, dir))
			free(dir);
		else
			strvec_push_owned(&dirs, dir);
	}
	for (size_t i = 0; i < dirs.n; i++) {
		char *cov = xasprintf("%s/coverage", dirs.v[i]);
		DIR *d = opendir(cov);
		if (d) {
			struct strvec here = {0};
			struct dirent *de;
			while ((de = readdir(d)))
				if (de->d_name[0] != '.' && str_ends(de->d_name, ".tsv") &&
				    str_ends(de->d_name, "_defects.tsv") == defects)
					strvec_push_owned(&here, xasprintf("%s/%s", cov, de->d_name));
			closedir(d);
			xqsort(here.v, here.n, sizeof *here.v, cmp_str);
			for (size_t k = 0; k < here.n; k++)
				strvec_push(paths, here.v[k]);
			strvec_free(&here);
		}
		free(cov);
	}
	strvec_free(&dirs);
}

int coverage_load_db(const struct sigdb *db, struct covtable **tables, size_t *ntables, struct msgs *m)
{
	struct strvec paths = {0};
	coverage_files(db, 0, &paths);
	int errors = 0;
	*tables = xcalloc(paths.n ? paths.n : 1, sizeof **tables);
	*ntables = paths.n;
	for (size_t i = 0; i < paths.n; i++)
		errors += coverage_load(paths.v[i], &(*tables)[i], m);
	strvec_free(&paths);
	return errors;
}

/* The format string as a PCRE2 pattern for one printed line: C escapes
 * resolved, conversions and <#macro-argument> placeholders any text,
 * everything else literal; the message ends at the first \n that follows
 * text (NCCL prints the rest on the next lines).  NCCL's formats are
 * anchored at the message and are printf's; a braces table's (coverage.h)
 * are found anywhere in the line, {} is the placeholder and % is text. */
static char *format_regex(const char *f, int braces)
{
	struct buf b;
	buf_init(&b);
	if (!braces)
		buf_adds(&b, "^");
	int text = 0;
	for (const char *p = f; *p;) {
		if (p[0] == '\\' && p[1]) {
			char e = p[1];
			p += 2;
			if (e == 'n') {
				if (text)
					break;
				continue;
			}
			text = 1;
			if (e == 't')
				buf_adds(&b, "[\\t ]");
			else if (e == '"' || e == '\\' || e == '\'')
				buf_printf(&b, "\\%c", e);
			else
				buf_adds(&b, ".");
			continue;
		}
		if (braces && p[0] == '{' && p[1] == '}') {
			buf_adds(&b, ".*?");
			p += 2;
			text = 1;
			continue;
		}
		if (!braces && p[0] == '%') {
			if (p[1] == '%') {
				buf_adds(&b, "%");
				p += 2;
				text = 1;
				continue;
			}
			const char *q = p + 1;
			while (*q && strchr("-+ #0123456789.*hlLzjt", *q))
				q++;
			if (*q) {
				char conv = *q;
				if (strchr("diouxX", conv))
					buf_adds(&b, "[-+ 0-9a-fA-FxX]*");
				else if (strchr("eEfgG", conv))
					buf_adds(&b, "[-+ 0-9a-zA-Z.]*");
				else
					buf_adds(&b, ".*?");
				p = q + 1;
				text = 1;
				continue;
			}
		}
		if (!braces && p[0] == '<' && p[1] == '#') {
			const char *q = strchr(p, '>');
			if (q) {
				buf_adds(&b, ".*?");
				p = q + 1;
				text = 1;
				continue;
			}
		}
		if (strchr("\\^$.|?*+()[]{}", *p))
			buf_addc(&b, '\\');
		buf_addc(&b, *p);
		if (*p != ' ')
			text = 1;
		p++;
	}
	if (!braces)
		buf_adds(&b, "\\s*$");
	return buf_steal(&b);
}

/* 1 when the message of line is an instance of format f */
static int is_instance(const char *f, int braces, const char *msg, size_t n, char *err, size_t errlen)
{
	char *re = format_regex(f, braces);
	int ec;
	PCRE2_SIZE eo;
	pcre2_code *code = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, PCRE2_DOTALL, &ec, &eo, NULL);
	int ok = 0;
	if (!code) {
		snprintf(err, errlen, "format does not compile as a pattern (offset %zu)", (size_t)eo);
	} else {
		pcre2_match_data *md = pcre2_match_data_create_from_pattern(code, NULL);
		ok = pcre2_match(code, (PCRE2_SPTR)msg, n, 0, 0, md, NULL) >= 0;
		if (!ok)
			snprintf(err, errlen, "the sample's message is not an instance of the format");
		pcre2_match_data_free(md);
		pcre2_code_free(code);
	}
	free(re);
	return ok;
}

struct hitctx {
	const char *want;
	int hit;
};

static void on_hit(void *ctx, const struct signature *s, const struct logline *ll, const PCRE2_SIZE *ov, int ng)
{
	(void)ll;
	(void)ov;
	(void)ng;
	struct hitctx *h = ctx;
	if (strcmp(s->id, h->want) == 0)
		h->hit = 1;
}

/* "when.nccl_implied": every coverage row of the diagnosis's signatures lies
 * inside its "nccl" range (the releases read that have the message), and
 * there is at least one.  Between the last release read that has a message
 * and the next one read, an unread patch release may still have it: the
 * check knows the releases read only. */
static int check_implied(const struct sigdb *db, const struct covtable *t, size_t n, struct msgs *m)
{
	int fails = 0;
	for (size_t i = 0; i < db->ndiags; i++) {
		const struct diagdef *d = &db->diags[i];
		if (!d->nccl_implied)
			continue;
		size_t rows = 0;
		for (size_t w = 0; w < d->when_any.n + d->when_all.n; w++) {
			const char *id = w < d->when_any.n ? d->when_any.v[w] : d->when_all.v[w - d->when_any.n];
			for (size_t ti = 0; ti < n; ti++)
				for (size_t r = 0; r < t[ti].n; r++) {
					const struct covrow *row = &t[ti].rows[r];
					if (!str_starts(row->col[COV_MAPPING], "sig:") || strcmp(row->col[COV_MAPPING] + 4, id))
						continue;
					rows++;
					long f = version_code(row->col[COV_FIRST]), l = version_code(row->col[COV_LAST]);
					if (!version_in_range(f, &d->nccl) || !version_in_range(l, &d->nccl)) {
						msgs_add(m, "%s: diagnoses[%zu].when.nccl_implied: %s's message is in releases %s-%s "
						            "(%s:%zu), outside the range", d->file, d->index, id, row->col[COV_FIRST],
						         row->col[COV_LAST], t[ti].path, row->lineno);
						fails++;
					}
				}
		}
		if (!rows) {
			msgs_add(m, "%s: diagnoses[%zu].when.nccl_implied: no coverage row maps to its signatures", d->file,
			         d->index);
			fails++;
		}
	}
	return fails;
}

/* The row's failure in err (empty when it passes). */
static void check_row(const struct sigdb *db, const struct covtable *tb, const struct covrow *row, struct matcher *mt,
                      char *err, size_t errlen)
{
	const char *mp = row->col[COV_MAPPING];
	const char *sample = row->col[COV_SAMPLE];
	long first = version_code(row->col[COV_FIRST]), last = version_code(row->col[COV_LAST]);
	int lv = -1;
	for (int k = 0; LEVELS[k]; k++)
		if (strcmp(row->col[COV_LEVEL], LEVELS[k]) == 0)
			lv = k;
	/* a hand-kept braces table names a component's releases its own way
	 * ("470" for a driver branch, "4.x"): only versions are put in order */
	int loose = tb->braces && (first < 0 || last < 0) && row->col[COV_FIRST][0] && row->col[COV_LAST][0] &&
	            !strpbrk(row->col[COV_FIRST], " \t") && !strpbrk(row->col[COV_LAST], " \t");
	if (!loose && (first < 0 || last < 0 || first > last))
		snprintf(err, errlen, "first_release \"%s\" / last_release \"%s\" are not versions in order",
		         row->col[COV_FIRST], row->col[COV_LAST]);
	else if (lv < 0 && !tb->braces)
		snprintf(err, errlen, "level \"%s\" is not WARN, INFO, TRACE or RESULT", row->col[COV_LEVEL]);
	else if (tb->braces && (!row->col[COV_LEVEL][0] || strpbrk(row->col[COV_LEVEL], " \t")))
		snprintf(err, errlen, "level \"%s\" is not one word", row->col[COV_LEVEL]);
	else if (!row->col[COV_FORMAT][0])
		snprintf(err, errlen, "empty format");
	else if (str_starts(mp, "derived:") && !category_valid(mp + 8))
		snprintf(err, errlen, "mapping \"%s\": unknown category", mp);
	else if (str_starts(mp, "benign:") && !mp[7])
		snprintf(err, errlen, "mapping \"benign:\" needs a reason");
	else if (!str_starts(mp, "sig:") && !str_starts(mp, "derived:") && !str_starts(mp, "benign:") &&
	         strcmp(mp, "not-yet") != 0)
		snprintf(err, errlen, "mapping \"%s\" is not sig:ID, derived:CATEGORY, benign:REASON or not-yet", mp);
	else if (str_starts(mp, "sig:") && !sigdb_sig(db, mp + 4))
		snprintf(err, errlen, "mapping \"%s\": no signature \"%s\" in the database", mp, mp + 4);
	else if (tb->braces && str_starts(mp, "sig:") && !sample[0])
		snprintf(err, errlen, "a sig: row needs a sample");
	if (err[0] || (tb->braces && !sample[0]))
		return;
	struct logline ll;
	logline_parse(sample, strlen(sample), &ll);
	if (tb->braces) {
		is_instance(row->col[COV_FORMAT], 1, sample, strlen(sample), err, errlen);
	} else if (lv == 3) {
		if (!strstr(sample, row->col[COV_FORMAT]))
			snprintf(err, errlen, "the sample does not contain the result string");
	} else if ((lv == 0 && ll.level != LINE_WARN) || (lv == 1 && ll.level != LINE_INFO) ||
	           (lv == 2 && ll.level != LINE_TRACE)) {
		snprintf(err, errlen, "the sample is a %s line, not %s", line_level_name(ll.level), row->col[COV_LEVEL]);
	} else {
		is_instance(row->col[COV_FORMAT], 0, ll.msg.p, ll.msg.n, err, errlen);
	}
	if (!err[0] && str_starts(mp, "sig:")) {
		struct hitctx h = {mp + 4, 0};
		matcher_run(mt, &ll, tb->path, on_hit, &h, NULL);
		if (!h.hit)
			snprintf(err, errlen, "signature \"%s\" does not match the sample", mp + 4);
	}
}

int coverage_check(const struct sigdb *db, const struct covtable *t, size_t n, struct msgs *m, size_t *ok)
{
	int fails = 0;
	*ok = 0;
	struct matcher *mt = matcher_new(db);
	for (size_t ti = 0; ti < n; ti++) {
		const struct covtable *tb = &t[ti];
		struct version rv;
		for (size_t i = 0; i < tb->releases.n; i++)
			/* a braces table's releases may have no NCCL code (a driver's 515.105.01) */
			if (version_code(tb->releases.v[i]) < 0 && !(tb->braces && version_parse(tb->releases.v[i], &rv))) {
				msgs_add(m, "%s: releases: \"%s\" is not a version", tb->path, tb->releases.v[i]);
				fails++;
			}
		for (size_t r = 0; r < tb->n; r++) {
			char err[256] = "";
			check_row(db, tb, &tb->rows[r], mt, err, sizeof err);
			if (err[0]) {
				msgs_add(m, "%s:%zu: %s", tb->path, tb->rows[r].lineno, err);
				fails++;
			} else {
				(*ok)++;
			}
		}
	}
	matcher_free(mt);
	fails += check_implied(db, t, n, m);
	return fails;
}

/* ---- rendering ---- */

enum { K_SIG, K_DERIVED, K_BENIGN, K_NOTYET, K_N };

static int kind_of(const char *mp)
{
	return str_starts(mp, "sig:") ? K_SIG : str_starts(mp, "derived:") ? K_DERIVED
	     : str_starts(mp, "benign:") ? K_BENIGN : K_NOTYET;
}

/* The categories of the diagnoses a signature feeds, "A/B". */
static void sig_categories(const struct sigdb *db, const char *id, struct buf *out)
{
	struct strvec seen = {0};
	for (size_t i = 0; i < db->ndiags; i++) {
		const struct diagdef *d = &db->diags[i];
		if (!strvec_contains(&d->when_any, id) && !strvec_contains(&d->when_all, id))
			continue;
		if (strvec_contains(&seen, d->category))
			continue;
		strvec_push(&seen, d->category);
		if (out->len)
			buf_adds(out, "/");
		buf_adds(out, d->category);
	}
	strvec_free(&seen);
}

static void md_cell(FILE *out, const char *s, int code)
{
	if (code)
		fputc('`', out);
	for (const char *p = s; *p; p++) {
		if (*p == '|')
			fputs("\\|", out);
		else if (*p == '`' && code)
			fputc('\'', out);
		else
			fputc(*p, out);
	}
	if (code)
		fputc('`', out);
}

/* WARN rows present in some release within [lo, hi] */
static int in_window(const struct covrow *r, long lo, long hi)
{
	return version_code(r->col[COV_FIRST]) <= hi && version_code(r->col[COV_LAST]) >= lo;
}

static const struct covtable *sort_tb;

static int cmp_rows(const void *a, const void *b)
{
	const struct covrow *x = &sort_tb->rows[*(const size_t *)a], *y = &sort_tb->rows[*(const size_t *)b];
	long fx = version_code(x->col[COV_FIRST]), fy = version_code(y->col[COV_FIRST]);
	long lx = version_code(x->col[COV_LAST]), ly = version_code(y->col[COV_LAST]);
	if (fx != fy)
		return fx < fy ? -1 : 1;
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return x->lineno < y->lineno ? -1 : x->lineno > y->lineno;
}

static const char *const KN[K_N] = {"signature", "derived", "benign", "not yet"};

static const char *table_base(const struct covtable *tb)
{
	const char *base = strrchr(tb->path, '/');
	return base ? base + 1 : tb->path;
}

/* "N messages from releases A to B (k releases read: ...)." */
static void md_releases(FILE *out, const struct covtable *tb)
{
	if (!tb->releases.n) {
		fprintf(out, "## %s: summary\n\n%zu messages. The release columns are each program's own versions (the "
		             "table's header names the sources read).\n\n", table_base(tb), tb->n);
		return;
	}
	struct buf rel;
	buf_init(&rel);
	for (size_t i = 0; i < tb->releases.n; i++)
		buf_printf(&rel, "%s%s", i ? ", " : "", tb->releases.v[i]);
	fprintf(out, "## %s: summary\n\n%zu messages from releases %s to %s (%zu releases read: %s). A row's "
	             "release range is the first and last release read that has the exact string.\n\n",
	        table_base(tb), tb->n, tb->releases.v[0], tb->releases.v[tb->releases.n - 1], tb->releases.n, rel.data);
	buf_free(&rel);
}

/* NCCL's table: per level, the WARN window 2.18-2.29, WARN per release. */
static void render_nccl_summary(FILE *out, int md, const struct covtable *tb)
{
	size_t cnt[4][K_N] = {{0}};
	size_t win = 0, win_not = 0, win_k[K_N] = {0};
	long lo = 21800, hi = 22999;
	for (size_t r = 0; r < tb->n; r++) {
		const struct covrow *row = &tb->rows[r];
		int lv = 0;
		for (int k = 0; LEVELS[k]; k++)
			if (strcmp(row->col[COV_LEVEL], LEVELS[k]) == 0)
				lv = k;
		int kd = kind_of(row->col[COV_MAPPING]);
		cnt[lv][kd]++;
		if (lv == 0 && in_window(row, lo, hi)) {
			win++;
			win_k[kd]++;
			win_not += kd == K_NOTYET;
		}
	}
	if (!md) {
		fprintf(out, "%s: %zu messages, releases %s to %s\n", tb->path, tb->n,
		        tb->releases.n ? tb->releases.v[0] : "?", tb->releases.n ? tb->releases.v[tb->releases.n - 1] : "?");
		for (int lv = 0; LEVELS[lv]; lv++) {
			size_t tot = 0;
			for (int k = 0; k < K_N; k++)
				tot += cnt[lv][k];
			if (tot)
				fprintf(out, "  %-6s %4zu: %s %zu, %s %zu, %s %zu, %s %zu\n", LEVELS[lv], tot, KN[0], cnt[lv][0],
				        KN[1], cnt[lv][1], KN[2], cnt[lv][2], KN[3], cnt[lv][3]);
		}
		fprintf(out, "  WARN in 2.18-2.29: %zu: %s %zu, %s %zu, %s %zu, %s %zu (%.1f%%)\n", win, KN[0], win_k[0],
		        KN[1], win_k[1], KN[2], win_k[2], KN[3], win_not, win ? 100.0 * (double)win_not / (double)win : 0.0);
		return;
	}
	md_releases(out, tb);
	fprintf(out, "| level | messages | signature | derived | benign | not yet |\n|---|---|---|---|---|---|\n");
	for (int lv = 0; LEVELS[lv]; lv++) {
		size_t tot = 0;
		for (int k = 0; k < K_N; k++)
			tot += cnt[lv][k];
		if (tot)
			fprintf(out, "| %s | %zu | %zu | %zu | %zu | %zu |\n", LEVELS[lv], tot, cnt[lv][K_SIG], cnt[lv][K_DERIVED],
			        cnt[lv][K_BENIGN], cnt[lv][K_NOTYET]);
	}
	fprintf(out, "| WARN in 2.18 - 2.29 | %zu | %zu | %zu | %zu | %zu (%.1f%%) |\n\n", win, win_k[K_SIG],
	        win_k[K_DERIVED], win_k[K_BENIGN], win_not, win ? 100.0 * (double)win_not / (double)win : 0.0);
	if (!tb->releases.n)
		return;
	fprintf(out, "WARN messages present in each release read:\n\n"
	             "| release | WARN messages | signature | derived | benign | not yet |\n|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < tb->releases.n; i++) {
		long v = version_code(tb->releases.v[i]);
		size_t k[K_N] = {0}, tot = 0;
		for (size_t r = 0; r < tb->n; r++)
			if (strcmp(tb->rows[r].col[COV_LEVEL], "WARN") == 0 && in_window(&tb->rows[r], v, v)) {
				k[kind_of(tb->rows[r].col[COV_MAPPING])]++;
				tot++;
			}
		fprintf(out, "| %s | %zu | %zu | %zu | %zu | %zu |\n", tb->releases.v[i], tot, k[K_SIG], k[K_DERIVED],
		        k[K_BENIGN], k[K_NOTYET]);
	}
	fputc('\n', out);
}

/* A braces table (coverage.h): per level class (the level up to ':'), the
 * failure messages (every row not benign) and their not-yet share, and the
 * messages present in each release read. */
static void render_braces_summary(FILE *out, int md, const struct covtable *tb)
{
	struct strvec cls = {0};
	for (size_t r = 0; r < tb->n; r++) {
		const char *lv = tb->rows[r].col[COV_LEVEL];
		char *c = xstrndup(lv, strcspn(lv, ":"));
		if (strvec_contains(&cls, c))
			free(c);
		else
			strvec_push_owned(&cls, c);
	}
	xqsort(cls.v, cls.n, sizeof *cls.v, cmp_str);
	size_t fail = 0, fk[K_N] = {0};
	for (size_t r = 0; r < tb->n; r++) {
		int kd = kind_of(tb->rows[r].col[COV_MAPPING]);
		if (kd != K_BENIGN) {
			fail++;
			fk[kd]++;
		}
	}
	double pct = fail ? 100.0 * (double)fk[K_NOTYET] / (double)fail : 0.0;
	if (md) {
		md_releases(out, tb);
		fprintf(out, "| level | messages | signature | derived | benign | not yet |\n|---|---|---|---|---|---|\n");
	} else {
		fprintf(out, "%s: %zu messages", tb->path, tb->n);
		if (tb->releases.n)
			fprintf(out, ", releases %s to %s", tb->releases.v[0], tb->releases.v[tb->releases.n - 1]);
		fputc('\n', out);
	}
	for (size_t c = 0; c < cls.n; c++) {
		size_t k[K_N] = {0}, tot = 0, L = strlen(cls.v[c]);
		for (size_t r = 0; r < tb->n; r++) {
			const char *lv = tb->rows[r].col[COV_LEVEL];
			if (strncmp(lv, cls.v[c], L) == 0 && (lv[L] == 0 || lv[L] == ':')) {
				k[kind_of(tb->rows[r].col[COV_MAPPING])]++;
				tot++;
			}
		}
		if (md)
			fprintf(out, "| %s | %zu | %zu | %zu | %zu | %zu |\n", cls.v[c], tot, k[0], k[1], k[2], k[3]);
		else
			fprintf(out, "  %-8s %4zu: %s %zu, %s %zu, %s %zu, %s %zu\n", cls.v[c], tot, KN[0], k[0], KN[1], k[1],
			        KN[2], k[2], KN[3], k[3]);
	}
	strvec_free(&cls);
	if (!md) {
		fprintf(out, "  failure messages: %zu: %s %zu, %s %zu, %s %zu (%.1f%%)\n", fail, KN[0], fk[K_SIG], KN[1],
		        fk[K_DERIVED], KN[3], fk[K_NOTYET], pct);
		return;
	}
	fprintf(out, "| failure messages (not benign) | %zu | %zu | %zu | - | %zu (%.1f%%) |\n\n", fail, fk[K_SIG],
	        fk[K_DERIVED], fk[K_NOTYET], pct);
	if (!tb->releases.n)
		return;
	fprintf(out, "Messages present in each release read:\n\n"
	             "| release | messages | signature | derived | benign | not yet |\n|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < tb->releases.n; i++) {
		long v = version_code(tb->releases.v[i]);
		size_t k[K_N] = {0}, tot = 0;
		for (size_t r = 0; r < tb->n; r++)
			if (in_window(&tb->rows[r], v, v)) {
				k[kind_of(tb->rows[r].col[COV_MAPPING])]++;
				tot++;
			}
		fprintf(out, "| %s | %zu | %zu | %zu | %zu | %zu |\n", tb->releases.v[i], tot, k[0], k[1], k[2], k[3]);
	}
	fputc('\n', out);
}

/* docs/coverage.md's rows of one table: per source file, by release range */
static void render_rows(FILE *out, const struct sigdb *db, const struct covtable *tb)
{
	size_t *idx = xmalloc((tb->n ? tb->n : 1) * sizeof *idx);
	struct strvec files = {0};
	for (size_t r = 0; r < tb->n; r++)
		if (!strvec_contains(&files, tb->rows[r].col[COV_FILE]))
			strvec_push(&files, tb->rows[r].col[COV_FILE]);
	xqsort(files.v, files.n, sizeof *files.v, cmp_str);
	for (size_t fi = 0; fi < files.n; fi++) {
		size_t k = 0;
		for (size_t r = 0; r < tb->n; r++)
			if (strcmp(tb->rows[r].col[COV_FILE], files.v[fi]) == 0)
				idx[k++] = r;
		sort_tb = tb;
		xqsort(idx, k, sizeof *idx, cmp_rows);
		fprintf(out, "### %s%s%s\n\n| releases | level | message | maps to | note |\n|---|---|---|---|---|\n",
		        tb->braces ? table_base(tb) : "", tb->braces ? ": " : "", files.v[fi]);
		for (size_t j = 0; j < k; j++) {
			const struct covrow *row = &tb->rows[idx[j]];
			const char *mp = row->col[COV_MAPPING];
			if (strcmp(row->col[COV_FIRST], row->col[COV_LAST]) == 0)
				fprintf(out, "| %s | %s | ", row->col[COV_FIRST], row->col[COV_LEVEL]);
			else
				fprintf(out, "| %s - %s | %s | ", row->col[COV_FIRST], row->col[COV_LAST], row->col[COV_LEVEL]);
			md_cell(out, row->col[COV_FORMAT], 1);
			fputs(" | ", out);
			switch (kind_of(mp)) {
			case K_SIG: {
				struct buf c;
				buf_init(&c);
				sig_categories(db, mp + 4, &c);
				fprintf(out, "`%s` (%s)", mp + 4, c.len ? c.data : "no diagnosis");
				buf_free(&c);
				break;
			}
			case K_DERIVED:
				fprintf(out, "derived: %s", mp + 8);
				break;
			case K_BENIGN:
				fputs("benign: ", out);
				md_cell(out, mp + 7, 0);
				break;
			default:
				fputs("**not yet**", out);
			}
			fputs(" | ", out);
			md_cell(out, row->col[COV_NOTE], 0);
			fputs(" |\n", out);
		}
		fputc('\n', out);
	}
	strvec_free(&files);
	free(idx);
}

void coverage_render(FILE *out, int md, const struct sigdb *db, const struct covtable *t, size_t n)
{
	if (md)
		fprintf(out, "# Coverage: every failure message and what nccl-triage makes of it\n\n"
		             "Generated by `nccl-triage coverage --format md` from the coverage tables in `patterns/coverage/` "
		             "(database %s). Do not edit by hand; `make coverage` regenerates it and `make check` fails when "
		             "it is stale. The tables themselves are generated from the components' sources by the scripts "
		             "in `scripts/` that each table's header names (`scripts/nccl_strings.py` for NCCL, "
		             "`scripts/torch_coverage.py` for PyTorch, `scripts/pysrc_coverage.py` for the Python "
		             "frameworks) and checked by `nccl-triage check-db`: every `sig:` row's sample line must be an "
		             "instance of its format string and must be matched by that signature. NCCL's formats are "
		             "printf's; the other tables write a formatted value as `{}` and keep the levels of their "
		             "source (`raise:RuntimeError`, `check`, `warning`, ...); their summary counts the failure "
		             "messages (every row not benign) and the share not yet mapped.\n\n"
		             "What a row maps to:\n\n"
		             "- a signature id: that signature recognises the message (its category is the category of the "
		             "diagnoses it feeds);\n"
		             "- `derived: CATEGORY`: no signature; the category follows from the structure around the "
		             "message (for NCCL the source file that printed it and the `ncclResult` it returns; for "
		             "PyTorch and the frameworks a wrapper whose inner error decides, or an exception raised on one "
		             "rank, which makes that rank the failure), so the verdict's fallback gives the failure that "
		             "category with lower confidence;\n"
		             "- `benign: reason`: printed on healthy runs, or information that is not a failure;\n"
		             "- **not yet**: nothing recognises it yet.\n\n",
		        db->version);
	for (size_t ti = 0; ti < n; ti++) {
		if (t[ti].braces)
			render_braces_summary(out, md, &t[ti]);
		else
			render_nccl_summary(out, md, &t[ti]);
		if (md)
			render_rows(out, db, &t[ti]);
	}
}
