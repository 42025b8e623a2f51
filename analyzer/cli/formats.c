/* formats.c - see formats.h. */
#include "cli/formats.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/json.h"
#include "report/report.h"
#include "report/report_formats.h"
#include "base/util.h"

static void render_json(FILE *out, const cJSON *doc, const struct report_opts *o)
{
	(void)o;
	/* the one large print: streamed, never held whole in memory */
	if (json_print_file(out, doc) < 0) {
		fprintf(stderr, "nccl-triage: out of memory (printing the JSON report)\n");
		_exit(2);
	}
	fputc('\n', out);
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

/* GitHub's cap of annotations per job spans the job's steps, and a job may
 * run nccl-triage in several: the annotations written so far in the job
 * are counted in a file of $RUNNER_TEMP, which the runner empties at the
 * start and end of every job.  Outside a runner one run has the whole cap.
 * Annotations of other tools in the job are not known to us. */
#define GH_COUNT_FILE "nccl-triage-annotations"

static size_t gh_job_used(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0; /* the job's first */
	char t[32] = "";
	size_t n = fread(t, 1, sizeof t - 1, f);
	fclose(f);
	t[n] = 0;
	size_t used = 0, i = 0;
	for (; i < n && t[i] >= '0' && t[i] <= '9' && used <= GH_JOB_CAP; i++)
		used = used * 10 + (size_t)(t[i] - '0');
	if (i == 0 || (i < n && t[i] != '\n') || used > GH_JOB_CAP) {
		fprintf(stderr, "nccl-triage: %s: not a count of annotations (0 to %d); taken as %d\n", path, GH_JOB_CAP,
		        GH_JOB_CAP);
		return GH_JOB_CAP;
	}
	return used;
}

static void gh_job_count(const char *path, size_t used)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		fprintf(stderr, "nccl-triage: %s: cannot record the job's annotations: %s\n", path, strerror(errno));
		return;
	}
	fprintf(f, "%zu\n", used);
	if (fclose(f) != 0)
		fprintf(stderr, "nccl-triage: %s: cannot record the job's annotations: %s\n", path, strerror(errno));
}

static void render_github(FILE *out, const cJSON *doc, const struct report_opts *o)
{
	const char *rt = getenv("RUNNER_TEMP");
	char *count = rt && *rt ? xasprintf("%s/%s", rt, GH_COUNT_FILE) : NULL;
	size_t used = count ? gh_job_used(count) : 0;
	used += report_github(out, doc, GH_JOB_CAP - used);
	if (count)
		gh_job_count(count, used);
	free(count);
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
