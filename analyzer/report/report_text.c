/* report_text.c - the terminal report: verdict first, then each diagnosis
 * with its evidence and fix, rendered from the report document (report.h)
 * like every format.  Colour only when o->color is set (the CLI
 * decides: a terminal, NO_COLOR unset, or --color=always).  On a terminal
 * (o->width) prose is wrapped to its width with hanging indents and quoted
 * log lines are cut with "…"; in a pipe every line is whole. */
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "engine/hypotheses.h"
#include "engine/nextsteps.h" /* ranks */
#include "report/ranktable.h" /* ranks */
#include "report/frtable.h"   /* flight recorder */
#include "report/report_list.h"

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_RED "\033[31m"
#define C_YELLOW "\033[33m"
#define C_GREEN "\033[32m"
#define C_DIM "\033[2m"
#define C_CYAN "\033[36m"

static const char *col(const struct report_opts *o, const char *c)
{
	return o->color ? c : "";
}

static const char *verdict_colour(const char *v)
{
	if (!strcmp(v, "diagnosed"))
		return C_RED;
	if (!strcmp(v, "unknown_failure"))
		return C_YELLOW;
	if (!strcmp(v, "healthy"))
		return C_GREEN;
	return C_DIM;
}

static const char *sev_colour(const char *s)
{
	return !strcmp(s, "error") ? C_RED : !strcmp(s, "warning") ? C_YELLOW : C_CYAN;
}

/* Lines that quote a log (evidence, unexplained lines) start with CUT when
 * the report goes to a terminal: the wrapping pass cuts them to the width
 * with a visible "…" instead of wrapping them; BLOCK_BEGIN / BLOCK_END lines
 * enclose a table whose rows are cut the same way.  In a pipe there is no
 * such pass and every line is whole (grep-able). */
#define CUT "\001"
#define BLOCK_BEGIN "\002\n"
#define BLOCK_END "\003\n"

static const char *cut_mark(const struct report_opts *o)
{
	return o->width > 0 ? CUT : "";
}

/* The text of an evidence item or unexplained line, whole; one cut by the
 * report (it ends with "…") says so. */
static void print_clipped(FILE *out, const cJSON *e)
{
	char *note = report_ev_cut_note(e);
	fprintf(out, "%s%s\n", json_strz(e, "text"), note);
	free(note);
}

static void print_ranks(FILE *out, const cJSON *d)
{
	const cJSON *ranks = json_get(d, "ranks"), *r;
	int n = json_size(ranks), i = 0;
	if (!n)
		return;
	fprintf(out, n == 1 ? ", rank " : ", ranks ");
	cJSON_ArrayForEach(r, ranks)
		fprintf(out, "%s%d", i++ ? "," : "", (int)r->valuedouble);
}

static void text_diagnosis(FILE *out, const cJSON *d, size_t shown, int maxev, const struct report_opts *o)
{
	const char *sev = json_strz(d, "severity"), *role = json_strz(d, "role");
	const cJSON *it;
	fprintf(out, "\n%s%zu. [%s%s%s%s] %s%s — %s\n", col(o, C_BOLD), shown, col(o, sev_colour(sev)), sev,
	        col(o, C_RESET), col(o, C_BOLD), json_strz(d, "category"), col(o, C_RESET), json_strz(d, "title"));
	fprintf(out, "   %s%s%s", col(o, C_DIM), role,
	        cJSON_IsTrue(json_get(d, "derived")) ? " (derived, no specific signature)" : "");
	if (json_str(d, "echo_of"))
		fprintf(out, " of %s", json_str(d, "echo_of"));
	if (json_str(d, "supports"))
		fprintf(out, ", supports %s", json_str(d, "supports"));
	fprintf(out, ", confidence %.2f (%s)", json_numz(d, "confidence"), confidence_word(json_numz(d, "confidence")));
	print_ranks(out, d);
	fprintf(out, ", id %s%s\n", json_strz(d, "id"), col(o, C_RESET));
	fprintf(out, "   %s\n", json_strz(d, "explanation"));
	const cJSON *ev = json_get(d, "evidence"), *e;
	if (json_size(ev)) {
		fprintf(out, "   Evidence:\n");
		int k = 0;
		cJSON_ArrayForEach(e, ev) {
			if (k++ == maxev)
				break;
			double line = json_numz(e, "line");
			if (report_ev_derived(e)) {
				/* a sentence the tool composed, not a log line */
				char *from = report_ev_from(e);
				/* prose, wrapped on a terminal (not cut like a quoted line) */
				fprintf(out, "     %s[derived%s%s]%s ", col(o, C_CYAN), *from ? " from " : "", from,
				        col(o, C_RESET));
				free(from);
				if (report_ev_in_explanation(d, e)) {
					fprintf(out, "%s(the sentence above)%s\n", col(o, C_DIM), col(o, C_RESET));
					continue;
				}
			} else if (line)
				fprintf(out, "%s     %s%s:%llu%s  ", cut_mark(o), col(o, C_CYAN), json_strz(e, "path"), (unsigned long long)line,
				        col(o, C_RESET));
			else
				fprintf(out, "%s     %s%s%s  ", cut_mark(o), col(o, C_CYAN), json_strz(e, "path"), col(o, C_RESET));
			print_clipped(out, e);
		}
		double total = json_numz(d, "evidence_total");
		if (total > maxev)
			fprintf(out, "     %s(%zu more)%s\n", col(o, C_DIM), (size_t)total - (size_t)maxev, col(o, C_RESET));
	}
	int acts = strcmp(role, "cascade") && !json_str(d, "supports");
	const cJSON *fix = json_get(d, "fix"), *env = json_get(json_get(d, "verify"), "env");
	if (acts)
		report_list(out, &(struct report_list){.head = "   Fix:\n", .indent = "     "}, fix);
	if (acts && json_size(env) > 0) {
		fprintf(out, "   Confirm: nccl-triage verify");
		cJSON_ArrayForEach(it, env) {
			/* null: unset it (verify_env_arg) */
			char *arg = verify_env_arg(it->string, cJSON_IsString(it) ? it->valuestring : NULL);
			fputs(arg, out);
			free(arg);
		}
		fprintf(out, "\n");
	}
}

static void text_info(FILE *out, const cJSON *d, const void *ctx)
{
	const struct report_opts *o = ctx;
	fprintf(out, "%s: %s %s(%s", json_strz(d, "category"), json_strz(d, "title"), col(o, C_DIM), json_strz(d, "id"));
	print_ranks(out, d);
	fprintf(out, ")%s", col(o, C_RESET));
}

/* diagnoses of severity info, one line each */
static void text_infos(FILE *out, const cJSON *diags, const struct report_opts *o)
{
	char head[96];
	snprintf(head, sizeof head, "\n%sAlso noted%s (information, not failures):\n", col(o, C_BOLD), col(o, C_RESET));
	report_list(out, &(struct report_list){.head = head, .indent = "   ", .marker = "- ", .item = text_info,
	                                       .keep = report_is_info, .ctx = o}, diags);
}

static void text_unexplained(FILE *out, const cJSON *b, const char *verdict, const struct report_opts *o)
{
	const cJSON *it;
	int i;
	const cJSON *un = json_get(b, "unexplained");
	if (!strcmp(verdict, "unknown_failure") && json_size(un)) {
		fprintf(out, "\n%sUnexplained failure evidence%s (no signature matched):\n", col(o, C_BOLD), col(o, C_RESET));
		i = 0;
		cJSON_ArrayForEach(it, un) {
			if (i++ == 10)
				break;
			fprintf(out, "%s     %s%s:%llu%s  [%s] ", cut_mark(o), col(o, C_CYAN), json_strz(it, "path"),
			        (unsigned long long)json_numz(it, "line"), col(o, C_RESET), json_strz(it, "kind"));
			print_clipped(out, it);
		}
		double total = json_numz(b, "unexplained_total");
		if (total > 10)
			fprintf(out, "     (%llu more)\n", (unsigned long long)total - 10);
	}
}

static void text_warnings(FILE *out, const cJSON *b, const struct report_opts *o)
{
	size_t nw, dropped;
	report_warnings(b, &nw, &dropped);
	if (nw) {
		char head[96];
		snprintf(head, sizeof head, "\n%sWarnings%s (input that was skipped or cut):\n", col(o, C_YELLOW),
		         col(o, C_RESET));
		report_list(out, &(struct report_list){.head = head, .indent = "   ", .marker = "", .cap = 20},
		            json_get(b, "warnings"));
		size_t more = nw > 20 ? nw - 20 : 0;
		more += dropped;
		if (more)
			fprintf(out, "   (%zu more; see --format json)\n", more);
	}
}

/* The rank that failed first (the rank table's "*"), or -1. */
static int culprit_rank(const cJSON *b, const cJSON *top)
{
	const cJSON *r;
	cJSON_ArrayForEach(r, json_get(b, "ranks"))
		if (cJSON_IsTrue(json_get(r, "failed_first")) && cJSON_IsNumber(json_get(r, "rank")))
			return (int)json_get(r, "rank")->valuedouble;
	const cJSON *rk = json_get(top, "ranks");
	if (json_size(rk) == 1 && cJSON_IsNumber(cJSON_GetArrayItem(rk, 0)))
		return (int)cJSON_GetArrayItem(rk, 0)->valuedouble;
	return -1;
}

/* Bytes of the unexplained line quoted on the Cause line */
#define CAUSE_QUOTE 120

/* The summary under the bundle's name (with it, three lines): the root
 * cause with the culprit rank, and the one fix. */
static void summary_lines(FILE *out, const cJSON *b, const char *verdict, const struct report_opts *o)
{
	const cJSON *top = cJSON_GetArrayItem(json_get(b, "diagnoses"), 0);
	const char *sev = json_strz(top, "severity");
	if (top && strcmp(sev, "info")) {
		fprintf(out, "%sCause:%s %s [%s]", col(o, C_BOLD), col(o, C_RESET), json_strz(top, "title"), json_strz(top, "category"));
		int r = culprit_rank(b, top);
		if (r >= 0)
			fprintf(out, "; rank %d failed first", r);
		fputc('\n', out);
		const cJSON *f0 = cJSON_GetArrayItem(json_get(top, "fix"), 0);
		fprintf(out, "%sFix:%s   %s\n", col(o, C_BOLD), col(o, C_RESET),
		        cJSON_IsString(f0) ? f0->valuestring : "see the findings below");
	} else if (!strcmp(verdict, "unknown_failure")) {
		const cJSON *u = report_telling_unexplained(json_get(b, "unexplained"));
		fprintf(out, "%sCause:%s unknown: the job failed and no signature explains it", col(o, C_BOLD), col(o, C_RESET));
		if (u) {
			/* the line itself, short: the whole of it is listed below */
			const char *t = json_strz(u, "text");
			size_t keep = str_cut_at(t, strlen(t), CAUSE_QUOTE);
			fprintf(out, " (%s:%.0f: %.*s%s)", json_strz(u, "path"), json_numz(u, "line"), (int)keep, t,
			        keep < strlen(t) ? "…" : "");
		}
		fprintf(out, "\n%sFix:%s   none known: read the unexplained lines below; attach this report to the ticket\n",
		        col(o, C_BOLD), col(o, C_RESET));
	} else if (!strcmp(verdict, "healthy")) {
		/* what shows the run healthy (NCCL's init, nccl-tests' table, the
		 * exit records) is the verdict's reason, printed below */
		fprintf(out, "%sCause:%s none: no failure evidence was found\n%sFix:%s   nothing to do\n", col(o, C_BOLD),
		        col(o, C_RESET), col(o, C_BOLD), col(o, C_RESET));
	} else {
		/* no_evidence: nothing read, system reports only, or a run shown
		 * that neither failed nor ended (verdict.c's reasons) */
		const char *why = json_strz(b, "verdict_reason");
		const char *cause = !strncmp(why, "no run in these inputs", 22)
		                        ? "not judged: system reports only, no output of the job"
		                    : !strncmp(why, "nothing recognisable", 20) || !*why
		                        ? "nothing recognisable (no NCCL or PyTorch output, no system report)"
		                        : "not determined: these lines show neither a failure nor the run's end (the verdict "
		                          "below says what is missing)";
		fprintf(out, "%sCause:%s %s\n%sFix:%s   attach the job's full output (all ranks) and NCCL_DEBUG=INFO logs\n",
		        col(o, C_BOLD), col(o, C_RESET), cause, col(o, C_BOLD), col(o, C_RESET));
	}
}

void report_text_summary(FILE *out, const cJSON *b, const struct report_opts *o)
{
	const char *verdict = json_strz(b, "verdict");
	fprintf(out, "%s%s%s: %s%s%s\n", col(o, C_BOLD), json_strz(b, "name"), col(o, C_RESET),
	        col(o, verdict_colour(verdict)), verdict, col(o, C_RESET));
	summary_lines(out, b, verdict, o);
}

static void report_text_bundle(FILE *out, const cJSON *b, const struct report_opts *o)
{
	int maxev = o->max_evidence > 0 ? o->max_evidence : 3;
	const char *verdict = json_strz(b, "verdict");
	const cJSON *inputs = json_get(b, "inputs"), *diags = json_get(b, "diagnoses"), *it;
	int ndocs = json_size(inputs);
	fprintf(out, "%s%s%s: %s%s%s\n", col(o, C_BOLD), json_strz(b, "name"), col(o, C_RESET),
	        col(o, verdict_colour(verdict)), verdict, col(o, C_RESET));
	summary_lines(out, b, verdict, o);
	fprintf(out, "%s  %d document%s:", col(o, C_DIM), ndocs, ndocs == 1 ? "" : "s");
	int i = 0;
	cJSON_ArrayForEach(it, inputs) {
		if (i == 8)
			break;
		fprintf(out, "%s %s (%s)", i++ ? "," : "", json_strz(it, "path"), json_strz(it, "kind"));
	}
	if (ndocs > 8)
		fprintf(out, ", ... %d more", ndocs - 8);
	fprintf(out, "%s\n", col(o, C_RESET));

	if (json_str(b, "verdict_reason"))
		fprintf(out, "  %sVerdict:%s %s\n", col(o, C_BOLD), col(o, C_RESET), json_str(b, "verdict_reason"));

	size_t shown = 0;
	const cJSON *d;
	cJSON_ArrayForEach(d, diags)
		if (strcmp(json_strz(d, "severity"), "info"))
			text_diagnosis(out, d, ++shown, maxev, o);
	text_infos(out, diags, o);
	hypotheses_text(out, json_get(b, "hypotheses"), 0);
	if (o->width > 0)
		fputs(BLOCK_BEGIN, out);
	rank_table_text(out, b, o->color); /* ranks */
	flight_table_text(out, b, o->color); /* flight recorder */
	if (o->width > 0)
		fputs(BLOCK_END, out);
	text_unexplained(out, b, verdict, o);
	next_steps_text(out, json_get(b, "next_steps"), 0); /* ranks */
	text_warnings(out, b, o);
}

/* ---- fitting the text to a terminal ---- */

/* Columns of s[0..n): UTF-8 code points, ANSI colour sequences take none. */
static size_t cols(const char *s, size_t n)
{
	size_t c = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\033') {
			while (i < n && s[i] != 'm')
				i++;
			continue;
		}
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			c++;
	}
	return c;
}

/* The byte length of the longest prefix of s[0..n) of at most w columns. */
static size_t fit(const char *s, size_t n, size_t w)
{
	size_t c = 0, i = 0;
	while (i < n) {
		if (s[i] == '\033') {
			while (i < n && s[i] != 'm')
				i++;
			i++;
			continue;
		}
		if (c == w)
			break;
		i++;
		while (i < n && ((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
		c++;
	}
	return i;
}

/* A quoted log line or a table row: cut to the width with "…". */
static void put_cut(FILE *out, const char *s, size_t n, size_t w)
{
	if (cols(s, n) <= w) {
		fwrite(s, 1, n, out);
	} else {
		fwrite(s, 1, fit(s, n, w - 1), out);
		fputs("…", out);
		if (memchr(s, '\033', n))
			fputs(C_RESET, out);
	}
	fputc('\n', out);
}

/* Prose: wrapped at blanks to the width, continuation lines indented under
 * the text after the line's indent and list marker ("   1. ", "- ",
 * "Fix:   "). */
static void put_wrapped(FILE *out, const char *s, size_t n, size_t w)
{
	if (cols(s, n) <= w) {
		fwrite(s, 1, n, out);
		fputc('\n', out);
		return;
	}
	/* the hanging indent, from the text without colour sequences */
	char *t = xmalloc(n + 1);
	size_t tn = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\033') {
			while (i < n && s[i] != 'm')
				i++;
			continue;
		}
		t[tn++] = s[i];
	}
	t[tn] = 0;
	size_t h = 0;
	while (h < tn && t[h] == ' ')
		h++;
	size_t m = h;
	while (m < tn && m - h < 4 && t[m] >= '0' && t[m] <= '9')
		m++;
	if (m > h && m + 1 < tn && t[m] == '.' && t[m + 1] == ' ')
		h = m + 2;
	else if (h + 1 < tn && (t[h] == '-' || t[h] == '*') && t[h + 1] == ' ')
		h += 2;
	else {
		/* "Cause: " / "Fix:   " labels */
		size_t k = h;
		while (k < tn && k - h < 12 && t[k] != ' ' && t[k] != ':')
			k++;
		if (k < tn && t[k] == ':' && k + 1 < tn && t[k + 1] == ' ' && k > h) {
			k++;
			while (k < tn && t[k] == ' ')
				k++;
			h = k;
		}
	}
	size_t hang = cols(t, h);
	free(t);
	if (hang > w / 2)
		hang = 4;
	h = fit(s, n, hang); /* the same place in s, in bytes */
	size_t pos = 0, first = 1;
	while (pos < n) {
		size_t room = first ? w : w - hang;
		if (!first) {
			fprintf(out, "%*s", (int)hang, "");
			while (pos < n && s[pos] == ' ')
				pos++;
		}
		size_t rest = n - pos;
		if (cols(s + pos, rest) <= room) {
			fwrite(s + pos, 1, rest, out);
			fputc('\n', out);
			break;
		}
		size_t lim = fit(s + pos, rest, room), brk = lim;
		while (brk > (first ? h : 0) && s[pos + brk] != ' ')
			brk--;
		if (brk <= (first ? h : 0))
			brk = lim; /* one word longer than the line: cut it */
		fwrite(s + pos, 1, brk, out);
		fputc('\n', out);
		pos += brk;
		first = 0;
	}
}

static void fit_to_width(FILE *out, const char *text, size_t len, size_t w)
{
	int block = 0;
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (n == 1 && (*p == '\002' || *p == '\003'))
			block = *p == '\002';
		else if (n && *p == '\001')
			put_cut(out, p + 1, n - 1, w);
		else if (block)
			put_cut(out, p, n, w);
		else
			put_wrapped(out, p, n, w);
		p += n + 1;
	}
}

static void render_all(FILE *out, const cJSON *doc, const struct report_opts *o)
{
	const cJSON *b;
	int i = 0;
	cJSON_ArrayForEach(b, json_get(doc, "bundles")) {
		if (i++)
			fputc('\n', out);
		report_text_bundle(out, b, o);
	}
}

void report_text(FILE *out, const cJSON *doc, const struct report_opts *o)
{
	if (o->width < 20) {
		struct report_opts whole = *o;
		whole.width = 0;
		render_all(out, doc, &whole);
		return;
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m) {
		struct report_opts whole = *o;
		whole.width = 0;
		render_all(out, doc, &whole);
		return;
	}
	render_all(m, doc, o);
	fclose(m);
	fit_to_width(out, buf, len, (size_t)o->width);
	free(buf);
}
