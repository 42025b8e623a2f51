/* cmd_merge.c - `nccl-triage merge FILE...`: combine the JSONL outputs of
 * batch shards into one summary.
 *
 * Each FILE (plain or gzip-compressed, '-' for stdin) is what `batch
 * --format jsonl` wrote: one bundle object per line and a last line with the
 * shard's summary.  Bundle lines are counted again with the same code batch
 * uses (summary.c), so the merged summary equals the one a single run over
 * all the bundles prints, however they were split.  A file with only a
 * summary line (`batch --summary-only --format jsonl`) contributes that
 * summary.  A shard that was cut short (no summary line) still counts its
 * bundle lines, with a warning.
 *
 * The formats are batch's (formats.c): text, json and jsonl print the
 * merged summary (jsonl after the bundle lines); html keeps one small row
 * per bundle (report_html_row) for batch's page; md, junit, sarif and
 * github keep a copy of every bundle object, as batch does, and render them
 * as one report document with analyze's renderer of that format. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "cli/cli.h"
#include "cli/clicommon.h"
#include "cli/commands.h"
#include "cli/formats.h"
#include "base/json.h"
#include "report/report.h"
#include "report/report_formats.h"
#include "report/summary.h"

#ifndef NT_VERSION
#define NT_VERSION "0.0.0"
#endif

/* Lines over this are not JSONL from batch (a bundle object of a bundle at
 * every cap is under 128 MiB: docs/hardening.md); they are skipped (with an
 * error) rather than held in memory.  A line's tree may take MERGE_TREE_PER
 * times its length, plus 1 MiB (the objects batch writes take at most 6.4;
 * a hostile [{},{},...] 21). */
#define MERGE_LINE_MAX (128u << 20)
#define MERGE_TREE_PER 8

struct reader {
	gzFile gz;
	char buf[1 << 16];
	size_t pos, len;
	int eof, err;
};

/* Next line into *line (without the newline).  Returns 1, 0 at the end, -1 when
 * the line is longer than MERGE_LINE_MAX (skipped). */
static int read_line(struct reader *r, struct buf *line)
{
	buf_reset(line);
	int too_long = 0, any = 0;
	for (;;) {
		if (r->pos == r->len) {
			if (r->eof)
				break;
			int n = gzread(r->gz, r->buf, sizeof r->buf);
			if (n <= 0) {
				if (n < 0)
					r->err = 1;
				r->eof = 1;
				break;
			}
			r->pos = 0;
			r->len = (size_t)n;
		}
		any = 1;
		const char *p = r->buf + r->pos;
		const char *nl = memchr(p, '\n', r->len - r->pos);
		size_t take = nl ? (size_t)(nl - p) : r->len - r->pos;
		if (!too_long && line->len + take <= MERGE_LINE_MAX)
			buf_add(line, p, take);
		else if (!too_long) {
			too_long = 1;
			buf_free(line);
		}
		r->pos += take + (nl ? 1 : 0);
		if (nl)
			break;
	}
	if (!any)
		return 0;
	return too_long ? -1 : 1;
}

static int blank(const char *s)
{
	for (; *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\r')
			return 0;
	return 1;
}

/* What merge keeps of each bundle line besides its counts: nothing, the
 * HTML row, or the whole object (the document formats). */
enum keep { KEEP_NONE, KEEP_ROW, KEEP_OBJECT };

/* Merge one file into total; the bundles kept go to kept (KEEP_ROW,
 * KEEP_OBJECT).  Returns the number of errors. */
static int merge_file(const char *path, struct summary *total, FILE *echo, int quiet, enum keep keep, cJSON *kept)
{
	const char *disp = strcmp(path, "-") == 0 ? "stdin" : path;
	struct reader *r = xcalloc(1, sizeof *r);
	r->gz = strcmp(path, "-") == 0 ? gzdopen(dup(0), "rb") : gzopen(path, "rb");
	if (!r->gz) {
		fprintf(stderr, "nccl-triage merge: cannot open '%s': %s\n", disp, strerror(errno ? errno : ENOMEM));
		free(r);
		return 1;
	}
	gzbuffer(r->gz, 1 << 17);
	struct summary *fsum = summary_new(), *ssum = NULL;
	struct msgs m = {0};
	struct buf line;
	buf_init(&line);
	size_t lineno = 0, nbundles = 0, nsummaries = 0;
	int errors = 0, rc;
	while ((rc = read_line(r, &line)) != 0) {
		lineno++;
		if (rc < 0) {
			fprintf(stderr, "nccl-triage merge: %s: line %zu: longer than %u bytes; skipped\n", disp, lineno,
			        MERGE_LINE_MAX);
			errors++;
			continue;
		}
		if (blank(line.data))
			continue;
		struct json_arena *arena;
		int over;
		cJSON *o = json_parse_arena_max(&arena, line.data, line.len, line.len * MERGE_TREE_PER + (1u << 20), &over);
		if (!cJSON_IsObject(o)) {
			if (over)
				fprintf(stderr, "nccl-triage merge: %s: line %zu: its JSON needs more than %d times its %zu bytes "
				        "of memory (not an object batch writes); skipped\n", disp, lineno, MERGE_TREE_PER, line.len);
			else
				fprintf(stderr, "nccl-triage merge: %s: line %zu: not a JSON object; skipped\n", disp, lineno);
			errors++;
			json_arena_free(arena);
			continue;
		}
		const cJSON *sj = cJSON_GetObjectItemCaseSensitive(o, "summary");
		if (sj) {
			if (!ssum)
				ssum = summary_new();
			char *where = xasprintf("%s: line %zu", disp, lineno);
			if (summary_add_json(ssum, sj, where, &m) < 0)
				errors++;
			else
				nsummaries++;
			free(where);
			const cJSON *db = cJSON_GetObjectItemCaseSensitive(o, "db");
			const cJSON *ver = cJSON_GetObjectItemCaseSensitive(db, "version");
			const cJSON *ns = cJSON_GetObjectItemCaseSensitive(db, "signatures");
			if (cJSON_IsString(ver))
				summary_set_db(fsum, ver->valuestring, cJSON_IsNumber(ns) ? ns->valuedouble : 0);
		} else if (summary_add_bundle(fsum, o) == 0) {
			nbundles++;
			if (keep != KEEP_NONE)
				cJSON_AddItemToArray(kept, keep == KEEP_ROW ? report_html_row(o) : cJSON_Duplicate(o, 1));
			if (echo) {
				fwrite(line.data, 1, line.len, echo);
				fputc('\n', echo);
			}
		} else {
			fprintf(stderr, "nccl-triage merge: %s: line %zu: neither a bundle (\"name\", \"verdict\") nor a summary; skipped\n",
			        disp, lineno);
			errors++;
		}
		json_arena_free(arena);
	}
	if (r->err) {
		int e;
		const char *msg = gzerror(r->gz, &e);
		fprintf(stderr, "nccl-triage merge: %s: read error after line %zu: %s\n", disp, lineno,
		        e == Z_ERRNO ? strerror(errno) : msg);
		errors++;
	}
	for (size_t i = 0; i < m.list.n; i++)
		fprintf(stderr, "nccl-triage merge: %s\n", m.list.v[i]);
	uint64_t bad = summary_bad_numbers(fsum) + (ssum ? summary_bad_numbers(ssum) : 0);
	if (bad)
		fprintf(stderr, "nccl-triage merge: %s: %llu counts were negative, not finite or over 2^53; counted as 0\n",
		        disp, (unsigned long long)bad);
	if (nbundles) {
		summary_merge(total, fsum);
		if (!nsummaries && !quiet)
			fprintf(stderr, "nccl-triage merge: %s: no summary line at the end (was the shard cut short?); "
			                "its %zu bundle lines are counted\n", disp, nbundles);
		else if (ssum && summary_bundles(ssum) != nbundles && !quiet)
			fprintf(stderr, "nccl-triage merge: %s: %zu bundle lines but its summary counts %llu; the bundle lines are counted\n",
			        disp, nbundles, (unsigned long long)summary_bundles(ssum));
	} else if (ssum) {
		summary_merge(total, ssum);
	} else if (!errors) {
		fprintf(stderr, "nccl-triage merge: %s: no bundle and no summary lines\n", disp);
		errors++;
	}
	buf_free(&line);
	msgs_free(&m);
	summary_free(fsum);
	summary_free(ssum);
	gzclose(r->gz);
	free(r);
	return errors;
}

static void print_summary_json(FILE *out, const cJSON *sj)
{
	const cJSON *db = cJSON_GetObjectItemCaseSensitive(sj, "db");
	char *d = db ? cJSON_PrintUnformatted(db) : NULL;
	char *s = cJSON_PrintUnformatted(sj);
	fprintf(out, "{\"schema_version\":1,\"tool\":{\"name\":\"nccl-triage\",\"version\":\"%s\"}", NT_VERSION);
	if (d)
		fprintf(out, ",\"db\":%s", d);
	fprintf(out, ",\"summary\":%s}\n", s);
	free(d);
	free(s);
}

/* The report document of the bundles kept, with the db of the shards'
 * summaries (batch's FMT_DOC has the database itself). */
static cJSON *merged_doc(const cJSON *sj, cJSON *bundles)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddNumberToObject(doc, "schema_version", 1);
	cJSON *tool = cJSON_AddObjectToObject(doc, "tool");
	cJSON_AddStringToObject(tool, "name", "nccl-triage");
	cJSON_AddStringToObject(tool, "version", NT_VERSION);
	const cJSON *db = cJSON_GetObjectItemCaseSensitive(sj, "db");
	if (db)
		cJSON_AddItemToObject(doc, "db", cJSON_Duplicate(db, 1));
	cJSON_AddItemToObject(doc, "bundles", bundles);
	return doc;
}

int cmd_merge(struct common *c, struct strvec *ops)
{
	const struct format *f = format_pick(c->format, CMD_MERGE, "merge");
	if (!f)
		return EXIT_TROUBLE;
	const char *fmt = f->name;
	if (ops->n == 0) {
		fprintf(stderr, "nccl-triage merge: no input\nhint: nccl-triage merge shard-*.jsonl  (the outputs of 'batch --format jsonl')\n");
		return EXIT_TROUBLE;
	}
	int summary_fmt = !strcmp(fmt, "text") || !strcmp(fmt, "json") || !strcmp(fmt, "jsonl");
	if (!summary_fmt && !f->render) {
		fprintf(stderr, "nccl-triage merge: format '%s' has no renderer\n", fmt);
		return EXIT_TROUBLE;
	}
	FILE *out = open_output_safe(c->output, format_cisafe(f));
	if (!out)
		return EXIT_TROUBLE;
	int jsonl = strcmp(fmt, "jsonl") == 0;
	enum keep keep = summary_fmt ? KEEP_NONE : !strcmp(fmt, "html") ? KEEP_ROW : KEEP_OBJECT;
	cJSON *kept = keep == KEEP_NONE ? NULL : cJSON_CreateArray();
	struct summary *total = summary_new();
	int errors = 0;
	for (size_t i = 0; i < ops->n; i++)
		errors += merge_file(ops->v[i], total, jsonl && !c->summary_only ? out : NULL, c->quiet, keep, kept);
	cJSON *sj = summary_json(total);
	if (strcmp(fmt, "text") == 0)
		summary_text(out, total, want_color(c, out));
	else if (summary_fmt)
		print_summary_json(out, sj);
	else if (keep == KEEP_ROW) {
		report_html_batch(out, sj, kept);
		cJSON_Delete(kept);
	} else {
		cJSON *doc = merged_doc(sj, kept);
		struct report_opts ro = {want_color(c, out), c->evidence, term_width(out)};
		f->render(out, doc, &ro);
		cJSON_Delete(doc);
	}
	cJSON_Delete(sj);
	int status = summary_failed(total) ? EXIT_FOUND : EXIT_HEALTHY;
	if (errors || summary_bundles(total) == 0)
		status = EXIT_TROUBLE;
	summary_free(total);
	return output_status(close_output(out, c->output), status);
}
