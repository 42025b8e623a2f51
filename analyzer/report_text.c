/* report_text.c - the terminal report: verdict first, then each diagnosis
 * with its evidence and fix, rendered from the report document (report.h)
 * like every format.  Colour only when o->color is set (the CLI
 * decides: a terminal, NO_COLOR unset, or --color=always). */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "nextsteps.h" /* ranks */
#include "ranktable.h" /* ranks */

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

/* Log lines can be very long (PyTorch OOM messages are 600 bytes): keep the
 * terminal readable; JSON keeps the full text. */
#define TEXT_CLIP 200

/* The text of an evidence item or unexplained line; one cut by the report
 * (it ends with "…") or here says so. */
static void print_clipped(FILE *out, const cJSON *e)
{
	const char *s = str(e, "text");
	char *note = report_ev_cut_note(e);
	size_t n = strlen(s);
	if (n <= TEXT_CLIP) {
		fprintf(out, "%s%s\n", s, note);
		free(note);
		return;
	}
	size_t cut = TEXT_CLIP;
	while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
		cut--; /* do not split a UTF-8 sequence */
	double len = number(e, "length");
	fprintf(out, "%.*s… (cut from %.0f bytes)\n", (int)cut, s, len > (double)n ? len : (double)n);
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
	const char *sev = str(d, "severity"), *role = str(d, "role");
	const cJSON *it;
	fprintf(out, "\n%s%zu. [%s%s%s%s] %s%s — %s\n", col(o, C_BOLD), shown, col(o, sev_colour(sev)), sev,
	        col(o, C_RESET), col(o, C_BOLD), str(d, "category"), col(o, C_RESET), str(d, "title"));
	fprintf(out, "   %s%s", col(o, C_DIM), role);
	if (json_str(d, "echo_of"))
		fprintf(out, " of %s", json_str(d, "echo_of"));
	if (json_str(d, "supports"))
		fprintf(out, ", supports %s", json_str(d, "supports"));
	fprintf(out, ", confidence %.2f", number(d, "confidence"));
	print_ranks(out, d);
	fprintf(out, ", id %s%s\n", str(d, "id"), col(o, C_RESET));
	fprintf(out, "   %s\n", str(d, "explanation"));
	const cJSON *ev = json_get(d, "evidence"), *e;
	if (json_size(ev)) {
		fprintf(out, "   Evidence:\n");
		int k = 0;
		cJSON_ArrayForEach(e, ev) {
			if (k++ == maxev)
				break;
			double line = number(e, "line");
			if (report_ev_derived(e)) {
				/* a sentence the tool composed, not a log line */
				char *from = report_ev_from(e);
				fprintf(out, "     %s[derived%s%s]%s ", col(o, C_CYAN), *from ? " from " : "", from,
				        col(o, C_RESET));
				free(from);
			} else if (line)
				fprintf(out, "     %s%s:%llu%s  ", col(o, C_CYAN), str(e, "path"), (unsigned long long)line,
				        col(o, C_RESET));
			else
				fprintf(out, "     %s%s%s  ", col(o, C_CYAN), str(e, "path"), col(o, C_RESET));
			print_clipped(out, e);
		}
		double total = number(d, "evidence_total");
		if (total > maxev)
			fprintf(out, "     %s(%zu more)%s\n", col(o, C_DIM), (size_t)total - (size_t)maxev, col(o, C_RESET));
	}
	int acts = strcmp(role, "cascade") && !json_str(d, "supports");
	const cJSON *fix = json_get(d, "fix"), *env = json_get(json_get(d, "verify"), "env");
	if (acts && json_size(fix)) {
		fprintf(out, "   Fix:\n");
		int k = 0;
		cJSON_ArrayForEach(it, fix)
			fprintf(out, "     %d. %s\n", ++k, cJSON_IsString(it) ? it->valuestring : "");
	}
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

/* diagnoses of severity info, one line each */
static void text_infos(FILE *out, const cJSON *diags, const struct report_opts *o)
{
	const cJSON *d;
	int infos = 0;
	cJSON_ArrayForEach(d, diags) {
		if (strcmp(str(d, "severity"), "info"))
			continue;
		if (!infos++)
			fprintf(out, "\n%sAlso noted%s (information, not failures):\n", col(o, C_BOLD), col(o, C_RESET));
		fprintf(out, "   - %s: %s %s(%s", str(d, "category"), str(d, "title"), col(o, C_DIM), str(d, "id"));
		print_ranks(out, d);
		fprintf(out, ")%s\n", col(o, C_RESET));
	}
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
			fprintf(out, "     %s%s:%llu%s  [%s] ", col(o, C_CYAN), str(it, "path"),
			        (unsigned long long)number(it, "line"), col(o, C_RESET), str(it, "kind"));
			print_clipped(out, it);
		}
		double total = number(b, "unexplained_total");
		if (total > 10)
			fprintf(out, "     (%llu more)\n", (unsigned long long)total - 10);
	}
}

static void text_warnings(FILE *out, const cJSON *b, const struct report_opts *o)
{
	const cJSON *it;
	int i;
	size_t nw, dropped;
	report_warnings(b, &nw, &dropped);
	if (nw) {
		fprintf(out, "\n%sWarnings%s (input that was skipped or cut):\n", col(o, C_YELLOW), col(o, C_RESET));
		i = 0;
		cJSON_ArrayForEach(it, json_get(b, "warnings")) {
			if (i++ == 20)
				break;
			fprintf(out, "   %s\n", cJSON_IsString(it) ? it->valuestring : "");
		}
		size_t more = nw > 20 ? nw - 20 : 0;
		more += dropped;
		if (more)
			fprintf(out, "   (%zu more; see --format json)\n", more);
	}
}

static void report_text_bundle(FILE *out, const cJSON *b, const struct report_opts *o)
{
	int maxev = o->max_evidence > 0 ? o->max_evidence : 3;
	const char *verdict = str(b, "verdict");
	const cJSON *inputs = json_get(b, "inputs"), *diags = json_get(b, "diagnoses"), *it;
	int ndocs = json_size(inputs), ndiags = json_size(diags);
	fprintf(out, "%s%s%s: %s%s%s\n", col(o, C_BOLD), str(b, "name"), col(o, C_RESET),
	        col(o, verdict_colour(verdict)), verdict, col(o, C_RESET));
	fprintf(out, "%s  %d document%s:", col(o, C_DIM), ndocs, ndocs == 1 ? "" : "s");
	int i = 0;
	cJSON_ArrayForEach(it, inputs) {
		if (i == 8)
			break;
		fprintf(out, "%s %s (%s)", i++ ? "," : "", str(it, "path"), str(it, "kind"));
	}
	if (ndocs > 8)
		fprintf(out, ", ... %d more", ndocs - 8);
	fprintf(out, "%s\n", col(o, C_RESET));

	if (ndiags == 0 && !strcmp(verdict, "healthy"))
		fprintf(out, "\n  No failure found: NCCL initialised and nothing in the evidence points to a problem.\n");
	if (ndiags == 0 && !strcmp(verdict, "no_evidence"))
		fprintf(out, "\n  Nothing recognisable: no NCCL or PyTorch output and no system report in these inputs.\n");

	size_t shown = 0;
	const cJSON *d;
	cJSON_ArrayForEach(d, diags)
		if (strcmp(str(d, "severity"), "info"))
			text_diagnosis(out, d, ++shown, maxev, o);
	text_infos(out, diags, o);
	rank_table_text(out, b, o->color); /* ranks */
	text_unexplained(out, b, verdict, o);
	next_steps_text(out, json_get(b, "next_steps"), 0); /* ranks */
	text_warnings(out, b, o);
}

void report_text(FILE *out, const cJSON *doc, const struct report_opts *o)
{
	const cJSON *b;
	int i = 0;
	cJSON_ArrayForEach(b, json_get(doc, "bundles")) {
		if (i++)
			fputc('\n', out);
		report_text_bundle(out, b, o);
	}
}
