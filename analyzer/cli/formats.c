/* formats.c - see formats.h. */
#include "cli/formats.h"

#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/json.h"
#include "report/report.h"
#include "report/report_formats.h"
#include "base/util.h"

static void render_json(FILE *out, const cJSON *doc, const struct report_opts *o)
{
	(void)o;
	char *s = json_print_large(doc); /* the one large print */
	fputs(s, out);
	fputc('\n', out);
	free(s);
}

static void render_html(FILE *out, const cJSON *doc, const struct report_opts *o)
{
	(void)o;
	report_html(out, doc);
}

static void render_junit(FILE *out, const cJSON *doc, const struct report_opts *o)
{
	(void)o;
	report_junit(out, doc);
}

static void render_sarif(FILE *out, const cJSON *doc, const struct report_opts *o)
{
	(void)o;
	report_sarif(out, doc);
}

static void render_github(FILE *out, const cJSON *doc, const struct report_opts *o)
{
	report_github(out, doc);
	/* in a GitHub Actions step: the Markdown report goes to the job summary too */
	const char *sum = getenv("GITHUB_STEP_SUMMARY");
	if (sum && *sum) {
		FILE *f = fopen(sum, "a");
		if (!f) {
			fprintf(stderr, "nccl-triage: GITHUB_STEP_SUMMARY: cannot append to %s\n", sum);
			return;
		}
		struct report_opts mo = {0, o ? o->max_evidence : 0, 0};
		report_md(f, doc, &mo);
		if (fclose(f) != 0)
			fprintf(stderr, "nccl-triage: GITHUB_STEP_SUMMARY: cannot write %s\n", sum);
	}
}

#define ALL_TEXT (CMD_ANALYZE | CMD_BATCH | CMD_MERGE | CMD_LIST | CMD_EXPLAIN | CMD_MEM | CMD_VERIFY | CMD_COVERAGE)

const struct format FORMATS[] = {
	{"text", ALL_TEXT, report_text, 1, 0},
	{"json", ALL_TEXT & ~CMD_COVERAGE, render_json, 0, 0},
	{"jsonl", CMD_BATCH | CMD_MERGE, NULL, 0, 0},
	{"md", CMD_ANALYZE | CMD_BATCH | CMD_MERGE | CMD_LIST | CMD_VERIFY | CMD_COVERAGE, report_md, 1, 0},
	{"html", CMD_ANALYZE | CMD_BATCH | CMD_MERGE, render_html, 0, 0},
	{"junit", CMD_ANALYZE | CMD_BATCH | CMD_MERGE, render_junit, 0, 1},
	{"sarif", CMD_ANALYZE | CMD_BATCH | CMD_MERGE, render_sarif, 0, 1},
	{"github", CMD_ANALYZE | CMD_BATCH | CMD_MERGE, render_github, 0, 1},
	{NULL, 0, NULL, 0, 0},
};

enum cisafe_kind format_cisafe(const struct format *f)
{
	static const struct { const char *name; enum cisafe_kind kind; } K[] = {
		{"json", CISAFE_JSON}, {"jsonl", CISAFE_JSON}, {"sarif", CISAFE_JSON},
		{"html", CISAFE_XML},  {"junit", CISAFE_XML},  {"github", CISAFE_CMD},
	};
	for (size_t i = 0; f && i < sizeof K / sizeof *K; i++)
		if (strcmp(f->name, K[i].name) == 0)
			return K[i].kind;
	return CISAFE_TEXT; /* text, md */
}

char *format_list(unsigned cmd, int with_default)
{
	struct buf b;
	buf_init(&b);
	for (const struct format *f = FORMATS; f->name; f++)
		if (f->cmds & cmd)
			buf_printf(&b, "%s%s%s", b.len ? ", " : "", f->name, with_default && !b.len ? " (default)" : "");
	return buf_steal(&b);
}

const struct format *format_pick(const char *name, unsigned cmd, const char *cmdname)
{
	for (const struct format *f = FORMATS; f->name; f++)
		if ((f->cmds & cmd) && (!name || strcmp(f->name, name) == 0))
			return f;
	char *list = format_list(cmd, 0);
	fprintf(stderr, "nccl-triage %s: unknown format '%s' (%s)\n", cmdname, name ? name : "", list);
	free(list);
	return NULL;
}
