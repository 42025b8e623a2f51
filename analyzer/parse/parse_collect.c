/* parse_collect.c - nccl-triage's own files in a bundle that `collect` or
 * `run` made (docs/collect.md):
 *   collect_manifest  manifest*.jsonl: a first line {"nccl_triage_collect": 1,
 *                     host, time, tool ...}, one JSON object a line per
 *                     command collect ran, and `run`'s {"run": {...}} record
 *                     -> facts.collected[] (one entry per manifest);
 *   triage_report     report*.txt that `run` kept: a report quotes lines of
 *                     the bundle's own logs, so its lines are not read again
 *                     (they would count every finding twice); only its name
 *                     and first line -> facts.triage_reports[].
 * Both are recognised by their first bytes, before any other kind
 * (detect_collected), since a report holds NCCL lines. */
#include <stdlib.h>
#include <string.h>

#include "parse/detect.h"
#include "parse/sysparse.h"

#define MANIFEST_MAGIC "{\"nccl_triage_collect\":"
#define REPORT_MAGIC "# nccl-triage "
/* Lines of one manifest that are read (a collect writes about 35). */
#define MANIFEST_LINES_MAX 10000

int detect_collected(const char *head, size_t len)
{
	size_t ml = strlen(MANIFEST_MAGIC), rl = strlen(REPORT_MAGIC);
	if (len >= ml && !memcmp(head, MANIFEST_MAGIC, ml))
		return DOC_COLLECT_MANIFEST;
	if (len > rl && !memcmp(head, REPORT_MAGIC, rl)) {
		const char *nl = memchr(head, '\n', len);
		size_t n = nl ? (size_t)(nl - head) : len;
		if (sys_memcasestr(head, n, " report of this bundle "))
			return DOC_TRIAGE_REPORT;
	}
	return -1;
}

static int manifest_marker(const char *h, size_t n)
{
	return detect_collected(h, n) == DOC_COLLECT_MANIFEST;
}

static int report_marker(const char *h, size_t n)
{
	return detect_collected(h, n) == DOC_TRIAGE_REPORT;
}

/* A copy of the members of src that the report keeps, strings sanitised
 * (the manifest is input like any other). */
static void copy_fields(cJSON *dst, const cJSON *src, const char *const *keys)
{
	for (size_t i = 0; keys[i]; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(src, keys[i]);
		if (cJSON_IsString(v))
			sys_set_str(dst, keys[i], v->valuestring);
		else if (cJSON_IsNumber(v))
			sys_set_num(dst, keys[i], v->valuedouble);
		else if (cJSON_IsBool(v))
			sys_set_bool(dst, keys[i], cJSON_IsTrue(v));
		else if (cJSON_IsNull(v))
			cJSON_AddNullToObject(dst, keys[i]);
	}
}

static const char *const HEAD_KEYS[] = {"tool", "by", "host", "time", "root", "container", "redacted", "timeout_s",
                                        "budget_s", "command", NULL};
static const char *const CMD_KEYS[] = {"file", "kind", "command", "status", "exit", "signal", "ms", "bytes",
                                       "kept", "cut", "filter", "error", "variables", NULL};
static const char *const RUN_KEYS[] = {"command", "started", "error", "status", "exit", "signal", "timed_out",
                                       "timeout_s", "killed", "forwarded", "ms", "merged", "stdout_bytes",
                                       "stderr_bytes", "log", "log_bytes", "log_lost", "log_error", "log_gaps",
                                       "terminal_lost", "terminal_error", "tail_open", "cpu_ms", "max_rss_kib",
                                       "collect", "nccl_version_found", "torch_version_found", "redacted",
                                       "fr_unredacted", NULL};

static int manifest_line(cJSON *entry, const char *s, size_t n, const char *path, uint64_t lineno, int first,
                         struct msgs *m)
{
	cJSON *o = cJSON_ParseWithLength(s, n);
	if (!cJSON_IsObject(o)) {
		msgs_add(m, "%s: line %llu: not a JSON object, skipped", path, (unsigned long long)lineno);
		cJSON_Delete(o);
		return 0;
	}
	int used = 1;
	const cJSON *run = cJSON_GetObjectItemCaseSensitive(o, "run");
	if (first) {
		copy_fields(entry, o, HEAD_KEYS);
	} else if (cJSON_IsObject(run)) {
		cJSON *r = sys_obj(entry, "run");
		copy_fields(r, run, RUN_KEYS);
		const cJSON *set = cJSON_GetObjectItemCaseSensitive(run, "set"), *v;
		cJSON *so = sys_obj(r, "set");
		cJSON_ArrayForEach(v, set)
			if (v->string && cJSON_IsString(v))
				sys_set_str(so, v->string, v->valuestring);
		sys_put_source(r, path, lineno);
	} else if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "status"))) {
		cJSON *c = cJSON_CreateObject();
		copy_fields(c, o, CMD_KEYS);
		sys_put_source(c, path, lineno);
		cJSON_AddItemToArray(sys_arr(entry, "commands"), c);
	} else {
		used = 0;
	}
	cJSON_Delete(o);
	return used;
}

static int parse_manifest(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m)
{
	cJSON *entry = cJSON_CreateObject();
	sys_set_str(entry, "path", path ? path : "");
	const char *p = text, *end = text + len;
	uint64_t lineno = 0;
	int used = 0;
	while (p < end && lineno < MANIFEST_LINES_MAX) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		lineno++;
		if (n && !(n == 1 && *p == '\r'))
			used += manifest_line(entry, p, n, path ? path : "", lineno, lineno == 1, m);
		p = nl ? nl + 1 : end;
	}
	if (p < end)
		msgs_add(m, "%s: more than %d lines: the rest of the manifest is skipped", path ? path : "",
		         MANIFEST_LINES_MAX);
	/* the files no command could make (every command for it failed) */
	cJSON *got = cJSON_CreateObject(), *c;
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(entry, "commands")) {
		const char *f = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "file"));
		const char *st = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "status"));
		if (!f || !st)
			continue;
		int ok = !strcmp(st, "ok") || !strcmp(st, "partial");
		cJSON *prev = cJSON_GetObjectItemCaseSensitive(got, f);
		if (!prev)
			cJSON_AddBoolToObject(got, f, ok);
		else if (ok && !cJSON_IsTrue(prev))
			cJSON_ReplaceItemInObjectCaseSensitive(got, f, cJSON_CreateBool(1));
	}
	cJSON *missing = cJSON_CreateArray();
	cJSON_ArrayForEach(c, got)
		if (!cJSON_IsTrue(c))
			cJSON_AddItemToArray(missing, cJSON_CreateString(c->string));
	cJSON_Delete(got);
	cJSON_AddItemToObject(entry, "files_missing", missing);
	sys_put_source(entry, path ? path : "", 1);
	cJSON_AddItemToArray(sys_arr(facts, "collected"), entry);
	return used;
}

static int parse_report(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m)
{
	(void)m;
	const char *nl = memchr(text, '\n', len);
	size_t n = nl ? (size_t)(nl - text) : len;
	cJSON *r = cJSON_CreateObject();
	char *first = xstrndup(text, n);
	sys_set_str(r, "header", first);
	free(first);
	sys_put_source(r, path ? path : "", 1);
	cJSON_AddItemToArray(sys_arr(facts, "triage_reports"), r);
	return 1;
}

const struct sysreport_kind SYS_COLLECT_MANIFEST = {DOC_COLLECT_MANIFEST, "collect_manifest", manifest_marker, NULL,
                                                    parse_manifest, 0};
const struct sysreport_kind SYS_TRIAGE_REPORT = {DOC_TRIAGE_REPORT, "triage_report", report_marker, NULL,
                                                 parse_report, 0};
