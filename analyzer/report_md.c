/* report_md.c - a Markdown report to paste into a ticket reply: the verdict
 * and the most likely root cause with its fix first, then the evidence in
 * fenced blocks (log text is never interpreted as Markdown or HTML).
 * Rendered from the report document (report.h) like every format. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "nextsteps.h" /* ranks */
#include "ranktable.h" /* ranks */

/* Inline text: escape Markdown and HTML metacharacters. */
static void md_inline(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '\\': case '`': case '*': case '_': case '[': case ']': case '|': case '#':
			fputc('\\', out);
			fputc(*s, out);
			break;
		default: fputc(*s, out);
		}
	}
}

/* Fix steps are our own text and may use `code`; keep backticks but escape HTML. */
static void md_own(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '<') fputs("&lt;", out);
		else if (*s == '>') fputs("&gt;", out);
		else fputc(*s, out);
	}
}

static const char *str(const cJSON *o, const char *k)
{
	const char *s = json_str(o, k);
	return s ? s : "";
}

static double number(const cJSON *o, const char *k)
{
	double v = 0;
	json_num(o, k, &v);
	return v;
}

/* A fence longer than any run of backticks inside the block. */
static int fence_len(const cJSON *ev, int maxev)
{
	int longest = 0, k = 0;
	const cJSON *e;
	cJSON_ArrayForEach(e, ev) {
		if (k++ == maxev)
			break;
		int run = 0;
		for (const char *p = str(e, "text"); *p; p++) {
			run = *p == '`' ? run + 1 : 0;
			if (run > longest)
				longest = run;
		}
	}
	return longest >= 3 ? longest + 1 : 3;
}

/* The first paragraph: the most likely root cause, or what the verdict means. */
static void md_lead(FILE *out, const cJSON *diags, const char *verdict)
{
	const cJSON *top = cJSON_GetArrayItem(diags, 0);
	if (top && !strcmp(str(top, "severity"), "error")) {
		fprintf(out, "**Most likely root cause: `%s`** — ", str(top, "category"));
		md_inline(out, str(top, "title"));
		fprintf(out, "\n\n");
	} else if (!strcmp(verdict, "healthy")) {
		fprintf(out, "No failure found: the job's NCCL initialisation and the system reports show no problem.\n\n");
	} else if (!strcmp(verdict, "no_evidence")) {
		fprintf(out, "Nothing recognisable was found in the attached files (no NCCL or PyTorch output, no system report).\n\n");
	} else if (!strcmp(verdict, "unknown_failure")) {
		fprintf(out, "The logs show a failure that no known signature explains; the lines are listed below.\n\n");
	}
}

static void md_diagnosis(FILE *out, const cJSON *d, size_t shown, int maxev)
{
	const char *sev = str(d, "severity"), *role = str(d, "role");
	const cJSON *it;
	fprintf(out, "### %zu. %s: ", shown, str(d, "category"));
	md_inline(out, str(d, "title"));
	fprintf(out, "\n\n*%s, %s", sev, role);
	if (json_str(d, "echo_of"))
		fprintf(out, " of `%s`", json_str(d, "echo_of"));
	if (json_str(d, "supports"))
		fprintf(out, ", supports `%s`", json_str(d, "supports"));
	fprintf(out, ", confidence %.2f", number(d, "confidence"));
	const cJSON *ranks = json_get(d, "ranks");
	if (json_size(ranks)) {
		fprintf(out, ", rank%s ", json_size(ranks) > 1 ? "s" : "");
		int k = 0;
		cJSON_ArrayForEach(it, ranks)
			fprintf(out, "%s%d", k++ ? ", " : "", (int)it->valuedouble);
	}
	fprintf(out, " — `%s`*\n\n", str(d, "id"));
	md_inline(out, str(d, "explanation"));
	fprintf(out, "\n\n");
	const cJSON *fix = json_get(d, "fix");
	if (strcmp(role, "cascade") && !json_str(d, "supports") && json_size(fix)) {
		fprintf(out, "**Fix**\n\n");
		int k = 0;
		cJSON_ArrayForEach(it, fix) {
			fprintf(out, "%d. ", ++k);
			md_own(out, cJSON_IsString(it) ? it->valuestring : "");
			fprintf(out, "\n");
		}
		fprintf(out, "\n");
	}
	const cJSON *ev = json_get(d, "evidence"), *e;
	if (json_size(ev)) {
		int fl = fence_len(ev, maxev), k = 0, lines = 0;
		fprintf(out, "**Evidence**\n\n");
		/* sentences the tool derived: prose, saying so, never in the block of log lines */
		cJSON_ArrayForEach(e, ev) {
			if (k++ == maxev)
				break;
			if (!report_ev_derived(e)) {
				lines++;
				continue;
			}
			char *from = report_ev_from(e), *note = report_ev_cut_note(e);
			fprintf(out, "- *derived*%s", *from ? " from " : "");
			md_inline(out, from);
			fprintf(out, ": ");
			if (report_ev_in_explanation(d, e))
				fprintf(out, "(the sentence above)");
			else
				md_inline(out, str(e, "text"));
			fprintf(out, "%s\n", note);
			free(from);
			free(note);
		}
		if (lines < k)
			fprintf(out, "\n");
		k = 0;
		if (lines)
			fprintf(out, "%.*s\n", fl, "``````````````````````````````");
		cJSON_ArrayForEach(e, ev) {
			if (k++ == maxev)
				break;
			if (report_ev_derived(e))
				continue;
			char *note = report_ev_cut_note(e);
			fprintf(out, "%s:%llu: %s%s\n", str(e, "path"), (unsigned long long)number(e, "line"), str(e, "text"), note);
			free(note);
		}
		if (lines)
			fprintf(out, "%.*s\n", fl, "``````````````````````````````");
		double total = number(d, "evidence_total");
		if (total > maxev)
			fprintf(out, "(%zu more lines)\n", (size_t)total - (size_t)maxev);
		fprintf(out, "\n");
	}
}

/* diagnoses of severity info, one line each */
static void md_infos(FILE *out, const cJSON *diags)
{
	const cJSON *d;
	int infos = 0;
	cJSON_ArrayForEach(d, diags) {
		if (strcmp(str(d, "severity"), "info"))
			continue;
		if (!infos++)
			fprintf(out, "**Also noted** (information, not failures)\n\n");
		fprintf(out, "- %s: ", str(d, "category"));
		md_inline(out, str(d, "title"));
		fprintf(out, " (`%s`)\n", str(d, "id"));
	}
	if (infos)
		fprintf(out, "\n");
}

static void md_unexplained(FILE *out, const cJSON *b, const char *verdict)
{
	const cJSON *it;
	const cJSON *un = json_get(b, "unexplained");
	if (!strcmp(verdict, "unknown_failure") && json_size(un)) {
		fprintf(out, "### Unexplained failure lines\n\n```\n");
		int i = 0;
		cJSON_ArrayForEach(it, un) {
			if (i++ == 10)
				break;
			fprintf(out, "%s:%llu: %s\n", str(it, "path"), (unsigned long long)number(it, "line"), str(it, "text"));
		}
		fprintf(out, "```\n\n");
	}
}

static void md_inputs_warnings(FILE *out, const cJSON *b)
{
	const cJSON *it;
	const cJSON *inputs = json_get(b, "inputs");
	fprintf(out, "<details><summary>Inputs (%d)</summary>\n\n", json_size(inputs));
	cJSON_ArrayForEach(it, inputs) {
		fprintf(out, "- `");
		for (const char *p = str(it, "path"); *p; p++)
			fputc(*p == '`' ? '\'' : *p, out);
		fprintf(out, "` — %s, %llu lines\n", str(it, "kind"), (unsigned long long)number(it, "lines"));
	}
	fprintf(out, "\n</details>\n");
	size_t nw, dropped;
	report_warnings(b, &nw, &dropped);
	if (nw) {
		fprintf(out, "\n**Warnings** (input skipped or cut)\n\n");
		int i = 0;
		cJSON_ArrayForEach(it, json_get(b, "warnings")) {
			if (i++ == 20)
				break;
			fprintf(out, "- ");
			md_inline(out, cJSON_IsString(it) ? it->valuestring : "");
			fprintf(out, "\n");
		}
	}
}

static void report_md_bundle(FILE *out, const cJSON *b, const struct report_opts *o)
{
	int maxev = o->max_evidence > 0 ? o->max_evidence : 5;
	const char *verdict = str(b, "verdict");
	const cJSON *diags = json_get(b, "diagnoses"), *d;
	fprintf(out, "## nccl-triage: ");
	md_inline(out, str(b, "name"));
	fprintf(out, " — **%s**\n\n", verdict);
	md_lead(out, diags, verdict);
	size_t shown = 0;
	cJSON_ArrayForEach(d, diags)
		if (strcmp(str(d, "severity"), "info"))
			md_diagnosis(out, d, ++shown, maxev);
	md_infos(out, diags);
	rank_table_md(out, b); /* ranks */
	next_steps_text(out, json_get(b, "next_steps"), 1); /* ranks */
	md_unexplained(out, b, verdict);
	md_inputs_warnings(out, b);
	fprintf(out, "\n");
}

void report_md(FILE *out, const cJSON *doc, const struct report_opts *o)
{
	const cJSON *b;
	int i = 0;
	cJSON_ArrayForEach(b, json_get(doc, "bundles")) {
		if (i++)
			fputc('\n', out);
		report_md_bundle(out, b, o);
	}
}
