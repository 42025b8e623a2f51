/* rules_collect.c - the fact-rule provider RULES_COLLECT: what the
 * manifests of `nccl-triage collect` and `run` say about the bundle itself
 * (facts.collected[], parse/parse_collect.c): the system reports that no
 * command could make on a host (not installed, not allowed, timed out), and
 * a copy of the job's output that lost bytes (a full disk).  Information
 * for the reader of the report, never a cause: the diagnoses
 * (patterns/collect.json) are of severity info. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "rules/rules.h"

static const struct rule_def COLLECT_RULES[] = {
	{"collect.reports_missing", "a collect manifest lists system reports that no command could make (not installed, "
	                            "not allowed, timed out, failed)"},
	{"collect.output_lost", "run's copy of the job's output in the bundle lost bytes (a full disk, a file size limit)"},
	{"collect.fr_unredacted", "run --redact rewrote the bundle but not its flight-recorder dumps (fr/, binary pickles)"},
};

static void emit(struct rule_ctx *rc, const char *id, const char *path, double line, const char *st)
{
	struct capture cap = {(char *)"statement", (char *)st};
	rule_emit(rc, id, path, line > 0 ? (uint64_t)line : 0, st, &cap, 1);
}

/* The command of file that failed first, and its status and error. */
static const cJSON *first_failure(const cJSON *cmds, const char *file)
{
	const cJSON *c;
	cJSON_ArrayForEach(c, cmds)
		if (!strcmp(json_str(c, "file") ? json_str(c, "file") : "", file))
			return c;
	return NULL;
}

static void reports_missing(struct rule_ctx *rc, const cJSON *m)
{
	const cJSON *miss = json_get(m, "files_missing"), *cmds = json_get(m, "commands"), *f;
	int nmiss = json_size(miss), ncmd = json_size(cmds);
	if (!nmiss)
		return;
	struct buf b;
	buf_init(&b);
	double line = 0;
	int k = 0;
	cJSON_ArrayForEach(f, miss) {
		if (!cJSON_IsString(f))
			continue;
		const cJSON *c = first_failure(cmds, f->valuestring);
		const cJSON *src = json_get(c, "source");
		if (!line)
			json_num(src, "line", &line);
		if (k++ < 12) {
			const char *err = json_str(c, "error");
			buf_printf(&b, "%s%s (%s%s%s)", k > 1 ? "; " : "", f->valuestring, json_str(c, "status") ? json_str(c, "status") : "?",
			           err ? ": " : "", err ? err : "");
		}
	}
	if (k > 12)
		buf_printf(&b, "; and %d more", k - 12);
	const char *host = json_str(m, "host");
	const char *path = json_str(m, "path");
	char *st = xasprintf("nccl-triage %s on %s ran %d commands; %d of the system reports it looks for could not be "
	                     "made: %s [%s:%.0f]. Derived from the manifest: these reports are absent from the bundle "
	                     "because of this host, not because nobody asked for them",
	                     json_str(m, "by") ? json_str(m, "by") : "collect", host ? host : "this host", ncmd, nmiss,
	                     b.data ? b.data : "", path ? path : "", line);
	emit(rc, COLLECT_RULES[0].id, path ? path : rc->name, line, st);
	free(st);
	buf_free(&b);
}

static void output_lost(struct rule_ctx *rc, const cJSON *m)
{
	const cJSON *run = json_get(m, "run");
	double lost = 0, line = 0, bytes = 0;
	if (!json_num(run, "log_lost", &lost) || lost <= 0)
		return;
	json_num(run, "log_bytes", &bytes);
	json_num(json_get(run, "source"), "line", &line);
	const char *err = json_str(run, "log_error");
	const char *log = json_str(run, "log");
	const char *path = json_str(json_get(run, "source"), "path");
	char *st = xasprintf("the bundle's copy of the job's output (%s) is incomplete: %.0f bytes were not written "
	                     "(%s) after the first %.0f [%s:%.0f]; the job itself and its terminal were not affected. "
	                     "Derived from run's record: the log ends before the job's output did",
	                     log ? log : "job.log", lost, err ? err : "the disk was too slow", bytes, path ? path : "",
	                     line);
	emit(rc, COLLECT_RULES[1].id, path ? path : rc->name, line, st);
	free(st);
}

/* A redacted bundle that still holds names: the reader about to share it
 * must know before it leaves the machine. */
static void fr_unredacted(struct rule_ctx *rc, const cJSON *m)
{
	const cJSON *run = json_get(m, "run");
	double n = 0, line = 0;
	if (!json_num(run, "fr_unredacted", &n) || n <= 0)
		return;
	json_num(json_get(run, "source"), "line", &line);
	const char *path = json_str(json_get(run, "source"), "path");
	char *st = xasprintf("run --redact rewrote this bundle's files, but not its %.0f flight-recorder dump%s in fr/ "
	                     "(binary Python pickles, which may hold host names, addresses and paths) [%s:%.0f]. "
	                     "Derived from run's record",
	                     n, n == 1 ? "" : "s", path ? path : "", line);
	emit(rc, COLLECT_RULES[2].id, path ? path : rc->name, line, st);
	free(st);
}

static void run(struct rule_ctx *rc)
{
	const cJSON *m;
	cJSON_ArrayForEach(m, json_get(rc->facts, "collected")) {
		reports_missing(rc, m);
		output_lost(rc, m);
		fr_unredacted(rc, m);
	}
}

const struct rule_provider RULES_COLLECT = {
	"collect manifests",
	COLLECT_RULES,
	sizeof COLLECT_RULES / sizeof COLLECT_RULES[0],
	run,
};
