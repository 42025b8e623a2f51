/* report_md.c - a Markdown report to paste into a ticket reply: the verdict
 * and the most likely root cause with its fix first, then the evidence
 * folded in <details>, log lines in fenced blocks no backtick in them can
 * close (log text is never interpreted as Markdown or HTML, and never
 * mentions a user or links an issue).
 * Rendered from the report document (report.h) like every format. */
#include "report/report.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "engine/hypotheses.h"
#include "engine/nextsteps.h" /* ranks */
#include "report/ranktable.h" /* ranks */
#include "report/frtable.h"   /* flight recorder */
#include "report/report_list.h"
#include "base/util.h"

/* Text that comes from the logs or the inputs (warnings, derived
 * sentences that quote them, names), inline: Markdown and HTML
 * metacharacters escaped, and "@name" / "#123" broken with a zero-width
 * space so that GitHub and GitLab neither notify a user nor link an issue. */
static void md_inline(FILE *out, const char *s)
{
	for (const char *p = s; *p; p++) {
		switch (*p) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '\\': case '`': case '*': case '_': case '[': case ']': case '|': case '~':
			fputc('\\', out);
			fputc(*p, out);
			break;
		case '@':
		case '#':
			fputc(*p, out);
			if ((*p == '@' && (isalnum((unsigned char)p[1]) || p[1] == '-')) ||
			    (*p == '#' && isdigit((unsigned char)p[1])))
				fputs("\xe2\x80\x8b", out); /* U+200B */
			break;
		default: fputc(*p, out);
		}
	}
}

/* Our own text (titles, explanations, fix steps): it may use `code`, which
 * must render as code; only HTML is escaped. */
static void md_own(FILE *out, const char *s)
{
	int code = 0;
	for (const char *p = s; *p; p++) {
		if (*p == '<') fputs("&lt;", out);
		else if (*p == '>') fputs("&gt;", out);
		else fputc(*p, out);
		code ^= *p == '`';
		/* values from the logs are filled into our text: no mention, no issue link */
		if (!code && ((*p == '@' && (isalnum((unsigned char)p[1]) || p[1] == '-')) ||
		              (*p == '#' && isdigit((unsigned char)p[1])) ) && (p == s || !isalnum((unsigned char)p[-1])))
			fputs("\xe2\x80\x8b", out); /* U+200B */
	}
}

/* A fence for a block of log lines: longer than any run of backticks in
 * them, so that no line can close it (CommonMark: a closing fence has at
 * least as many backticks as the opening one). */
static int fence_for(const char *const *lines, size_t n)
{
	int longest = 0;
	for (size_t i = 0; i < n; i++) {
		int run = 0;
		for (const char *p = lines[i]; *p; p++) {
			run = *p == '`' ? run + 1 : 0;
			if (run > longest)
				longest = run;
		}
	}
	return longest >= 3 ? longest + 1 : 3;
}

/* Lines in a fenced block (log text is never interpreted). */
static void fenced(FILE *out, char *const *lines, size_t n)
{
	int fl = fence_for((const char *const *)lines, n);
	for (int i = 0; i < fl; i++)
		fputc('`', out);
	fputc('\n', out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s\n", lines[i]);
	for (int i = 0; i < fl; i++)
		fputc('`', out);
	fputc('\n', out);
}

/* The first paragraph: the most likely root cause, or what the verdict means.
 * An unknown failure quotes its telling line (report_telling_unexplained, as
 * text and HTML do), whole and fenced: the list below repeats it in context. */
static void md_lead(FILE *out, const cJSON *b, const char *verdict, const char *reason)
{
	const cJSON *top = cJSON_GetArrayItem(json_get(b, "diagnoses"), 0);
	if (top && !strcmp(json_strz(top, "severity"), "error")) {
		fprintf(out, "**Most likely root cause: `%s`** — ", json_strz(top, "category"));
		md_own(out, json_strz(top, "title"));
		fprintf(out, "\n\n");
	} else if (!strcmp(verdict, "unknown_failure")) {
		fprintf(out, "The logs show a failure that no known signature explains; the lines are listed below.\n\n");
		const cJSON *u = report_telling_unexplained(json_get(b, "unexplained"));
		if (u) {
			char *line = xasprintf("%s:%llu: %s", json_strz(u, "path"), (unsigned long long)json_numz(u, "line"),
			                       json_strz(u, "text"));
			fprintf(out, "The line that tells most:\n\n");
			fenced(out, &line, 1);
			fprintf(out, "\n");
			free(line);
		}
	}
	if (reason) {
		fprintf(out, "Verdict: ");
		md_inline(out, reason);
		fprintf(out, "\n\n");
	}
}

static void md_diagnosis(FILE *out, const cJSON *d, size_t shown, int maxev)
{
	const char *sev = json_strz(d, "severity"), *role = json_strz(d, "role");
	const cJSON *it;
	fprintf(out, "### %zu. %s: ", shown, json_strz(d, "category"));
	md_own(out, json_strz(d, "title"));
	fprintf(out, "\n\n*%s, %s%s", sev, role, cJSON_IsTrue(json_get(d, "derived")) ? " (derived, no specific signature)" : "");
	if (json_str(d, "echo_of"))
		fprintf(out, " of `%s`", json_str(d, "echo_of"));
	if (json_str(d, "supports"))
		fprintf(out, ", supports `%s`", json_str(d, "supports"));
	fprintf(out, ", confidence %.2f (%s)", json_numz(d, "confidence"), confidence_word(json_numz(d, "confidence")));
	const cJSON *ranks = json_get(d, "ranks");
	if (json_size(ranks)) {
		fprintf(out, ", rank%s ", json_size(ranks) > 1 ? "s" : "");
		int k = 0;
		cJSON_ArrayForEach(it, ranks)
			fprintf(out, "%s%d", k++ ? ", " : "", (int)it->valuedouble);
	}
	fprintf(out, " — `%s`*\n\n", json_strz(d, "id"));
	md_own(out, json_strz(d, "explanation"));
	fprintf(out, "\n\n");
	const cJSON *fix = json_get(d, "fix");
	if (strcmp(role, "cascade") && !json_str(d, "supports"))
		report_list(out, &(struct report_list){.head = "**Fix**\n\n", .put = md_own, .tail = "\n"}, fix);
	const cJSON *ev = json_get(d, "evidence"), *e;
	if (json_size(ev)) {
		/* folded (GitHub and GitLab render <details>): the finding above, its evidence on demand */
		double total = json_numz(d, "evidence_total");
		int n = json_size(ev) < maxev ? json_size(ev) : maxev, k = 0;
		fprintf(out, "<details><summary>Evidence (%.0f line%s)</summary>\n\n", total > n ? total : n,
		        (total > n ? total : n) == 1 ? "" : "s");
		/* sentences the tool derived: prose, saying so, never in the block of log lines */
		int derived = 0;
		cJSON_ArrayForEach(e, ev) {
			if (k++ == maxev)
				break;
			if (!report_ev_derived(e))
				continue;
			derived++;
			char *from = report_ev_from(e), *note = report_ev_cut_note(e);
			fprintf(out, "- *derived*%s", *from ? " from " : "");
			md_inline(out, from);
			fprintf(out, ": ");
			if (report_ev_in_explanation(d, e))
				fprintf(out, "(the sentence above)");
			else
				md_inline(out, json_strz(e, "text"));
			fprintf(out, "%s\n", note);
			free(from);
			free(note);
		}
		if (derived && derived < k)
			fprintf(out, "\n");
		char **lines = xcalloc((size_t)n + 1, sizeof *lines);
		size_t nl = 0;
		k = 0;
		cJSON_ArrayForEach(e, ev) {
			if (k++ == maxev)
				break;
			if (report_ev_derived(e))
				continue;
			char *note = report_ev_cut_note(e);
			lines[nl++] = xasprintf("%s:%llu: %s%s", json_strz(e, "path"), (unsigned long long)json_numz(e, "line"), json_strz(e, "text"), note);
			free(note);
		}
		if (nl)
			fenced(out, lines, nl);
		for (size_t i = 0; i < nl; i++)
			free(lines[i]);
		free(lines);
		if (total > maxev)
			fprintf(out, "\n(%zu more lines)\n", (size_t)total - (size_t)maxev);
		fprintf(out, "\n</details>\n\n");
	}
}

static void md_info(FILE *out, const cJSON *d, const void *ctx)
{
	(void)ctx;
	fprintf(out, "%s: ", json_strz(d, "category"));
	md_own(out, json_strz(d, "title"));
	fprintf(out, " (`%s`)", json_strz(d, "id"));
}

/* diagnoses of severity info, one line each */
static void md_infos(FILE *out, const cJSON *diags)
{
	report_list(out, &(struct report_list){.head = "**Also noted** (information, not failures)\n\n", .marker = "- ",
	                                       .item = md_info, .keep = report_is_info, .tail = "\n"}, diags);
}

static void md_unexplained(FILE *out, const cJSON *b, const char *verdict)
{
	const cJSON *it;
	const cJSON *un = json_get(b, "unexplained");
	if (!strcmp(verdict, "unknown_failure") && json_size(un)) {
		fprintf(out, "### Unexplained failure lines\n\n");
		char *lines[10];
		size_t n = 0;
		cJSON_ArrayForEach(it, un) {
			if (n == 10)
				break;
			char *note = report_ev_cut_note(it);
			lines[n++] = xasprintf("%s:%llu: %s%s", json_strz(it, "path"), (unsigned long long)json_numz(it, "line"), json_strz(it, "text"), note);
			free(note);
		}
		fenced(out, lines, n);
		for (size_t i = 0; i < n; i++)
			free(lines[i]);
		fprintf(out, "\n");
	}
}

static void md_inputs_warnings(FILE *out, const cJSON *b)
{
	const cJSON *it;
	const cJSON *inputs = json_get(b, "inputs");
	fprintf(out, "<details><summary>Inputs (%d)</summary>\n\n", json_size(inputs));
	cJSON_ArrayForEach(it, inputs) {
		fprintf(out, "- `");
		for (const char *p = json_strz(it, "path"); *p; p++)
			fputc(*p == '`' ? '\'' : *p, out);
		fprintf(out, "` — %s, %llu lines\n", json_strz(it, "kind"), (unsigned long long)json_numz(it, "lines"));
	}
	fprintf(out, "\n</details>\n");
	size_t nw, dropped;
	report_warnings(b, &nw, &dropped);
	if (nw)
		report_list(out, &(struct report_list){.head = "\n**Warnings** (input skipped or cut)\n\n", .marker = "- ",
		                                       .put = md_inline, .cap = 20}, json_get(b, "warnings"));
}

static void report_md_bundle(FILE *out, const cJSON *b, const struct report_opts *o)
{
	int maxev = o->max_evidence > 0 ? o->max_evidence : 5;
	const char *verdict = json_strz(b, "verdict");
	const cJSON *diags = json_get(b, "diagnoses"), *d;
	fprintf(out, "## nccl-triage: ");
	md_inline(out, json_strz(b, "name"));
	fprintf(out, " — **%s**\n\n", verdict);
	md_lead(out, b, verdict, json_str(b, "verdict_reason"));
	size_t shown = 0;
	cJSON_ArrayForEach(d, diags)
		if (strcmp(json_strz(d, "severity"), "info"))
			md_diagnosis(out, d, ++shown, maxev);
	md_infos(out, diags);
	hypotheses_text(out, json_get(b, "hypotheses"), 1);
	rank_table_md(out, b); /* ranks */
	flight_table_md(out, b); /* flight recorder */
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
