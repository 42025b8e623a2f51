/* report_github.c - GitHub Actions workflow commands: one annotation per
 * diagnosis at its earliest evidence line,
 *   ::error file=logs/rank0.log,line=42,title=Two ranks on one GPU::message
 * (error -> ::error, warning -> ::warning, info -> ::notice), one ::error for
 * a bundle whose failure no signature explains, and a ::notice per bundle
 * without findings.  Values are escaped as the runner expects: in the
 * message %, CR, LF; in properties also ':' and ','.  Borrows the JSON. */
#include "report_formats.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"
#include "util.h"

static void gh_esc(FILE *f, const char *s, int prop)
{
	if (!s)
		return;
	for (; *s; s++) {
		switch (*s) {
		case '%': fputs("%25", f); break;
		case '\r': fputs("%0D", f); break;
		case '\n': fputs("%0A", f); break;
		case ':': fputs(prop ? "%3A" : ":", f); break;
		case ',': fputs(prop ? "%2C" : ",", f); break;
		default: fputc(*s, f);
		}
	}
}

static const char *command_of(const char *sev)
{
	if (sev && !strcmp(sev, "error"))
		return "error";
	if (sev && !strcmp(sev, "warning"))
		return "warning";
	return "notice";
}

/* "::CMD file=F,line=N,title=T::" for evidence e (may be NULL). */
static void head(FILE *f, const char *cmd, const char *bundle, const cJSON *e, const char *title)
{
	fprintf(f, "::%s ", cmd);
	int any = 0;
	if (e && json_str(e, "path")) {
		char *p = report_artifact_path(bundle, json_str(e, "path"));
		fputs("file=", f);
		gh_esc(f, p, 1);
		free(p);
		any = 1;
		const cJSON *ln = json_get(e, "line");
		if (cJSON_IsNumber(ln) && ln->valuedouble >= 1)
			fprintf(f, ",line=%.0f", ln->valuedouble);
	}
	if (title) {
		fputs(any ? ",title=" : "title=", f);
		gh_esc(f, title, 1);
	}
	fputs("::", f);
}

void report_github(FILE *f, const cJSON *doc)
{
	const cJSON *b, *d;
	cJSON_ArrayForEach(b, json_get(doc, "bundles")) {
		const char *name = json_str(b, "name"), *v = json_str(b, "verdict");
		int n = 0;
		cJSON_ArrayForEach(d, json_get(b, "diagnoses")) {
			n++;
			const cJSON *e0 = cJSON_GetArrayItem(json_get(d, "evidence"), 0);
			char *title = xasprintf("nccl-triage: %s", json_str(d, "title") ? json_str(d, "title") : "");
			head(f, command_of(json_str(d, "severity")), name, e0, title);
			free(title);
			struct buf m;
			buf_init(&m);
			if (json_str(d, "echo_of"))
				buf_printf(&m, "(consequence of %s) ", json_str(d, "echo_of"));
			buf_printf(&m, "[%s] %s", json_str(d, "category") ? json_str(d, "category") : "",
			           json_str(d, "explanation") ? json_str(d, "explanation") : "");
			const cJSON *x;
			int i = 0;
			cJSON_ArrayForEach(x, json_get(d, "fix"))
				if (cJSON_IsString(x))
					buf_printf(&m, "%sFix: %s", i++ ? "\n" : "\n\n", x->valuestring);
			if (e0 && json_str(e0, "text")) {
				char *note = report_ev_cut_note(e0);
				if (report_ev_derived(e0)) {
					/* a sentence the tool composed, not the annotated line */
					char *from = report_ev_from(e0);
					buf_printf(&m, "\n\nDerived%s%s: %s%s", *from ? " from " : "", from, json_str(e0, "text"), note);
					free(from);
				} else
					buf_printf(&m, "\n\nEvidence: %s%s", json_str(e0, "text"), note);
				free(note);
			}
			gh_esc(f, m.data, 0);
			buf_free(&m);
			fputc('\n', f);
		}
		if (v && !strcmp(v, "unknown_failure")) {
			const cJSON *u0 = cJSON_GetArrayItem(json_get(b, "unexplained"), 0);
			head(f, "error", name, u0, "nccl-triage: the job failed and no known cause matched");
			gh_esc(f, u0 ? json_str(u0, "text") : "failure evidence found", 0);
			fputc('\n', f);
			n++;
		}
		if (!n) {
			fputs("::notice title=nccl-triage::", f);
			gh_esc(f, name, 0);
			fputs(": ", f);
			gh_esc(f, v && !strcmp(v, "healthy") ? "healthy (no failure evidence found)" : "nothing recognisable to analyse", 0);
			fputc('\n', f);
		}
	}
}
