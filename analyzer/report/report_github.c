/* report_github.c - GitHub Actions workflow commands: one annotation per
 * diagnosis at its earliest evidence line,
 *   ::error file=logs/rank0.log,line=42,title=Two ranks on one GPU::message
 * (error -> ::error, warning -> ::warning, info -> ::notice), one ::error for
 * a bundle whose failure no signature explains, and a ::notice per bundle
 * without findings.  Values are escaped as the runner expects: in the
 * message %, CR, LF; in properties also ':' and ','.  At most 10
 * annotations of each kind (GitHub's cap per step) and no more than the job
 * has left of its 50 (GitHub's cap per job), the rest summarised in one
 * notice.  Borrows the JSON. */
#include "report/report_formats.h"

#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "report/report.h"
#include "base/util.h"

static void gh_esc(struct buf *f, const char *s, int prop)
{
	if (!s)
		return;
	for (; *s; s++) {
		switch (*s) {
		case '%': buf_adds(f, "%25"); break;
		case '\r': buf_adds(f, "%0D"); break;
		case '\n': buf_adds(f, "%0A"); break;
		case ':': buf_adds(f, prop ? "%3A" : ":"); break;
		case ',': buf_adds(f, prop ? "%2C" : ","); break;
		default: buf_addc(f, *s);
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
static void head(struct buf *f, const char *cmd, const char *bundle, const cJSON *e, const char *title)
{
	buf_printf(f, "::%s ", cmd);
	int any = 0;
	if (e && json_str(e, "path")) {
		char *p = report_artifact_path(bundle, json_str(e, "path"));
		buf_adds(f, "file=");
		gh_esc(f, p, 1);
		free(p);
		any = 1;
		const cJSON *ln = json_get(e, "line");
		if (cJSON_IsNumber(ln) && ln->valuedouble >= 1)
			buf_printf(f, ",line=%.0f", ln->valuedouble);
	}
	if (title) {
		buf_adds(f, any ? ",title=" : "title=");
		gh_esc(f, title, 1);
	}
	buf_adds(f, "::");
}

/* The caps (GH_STEP_CAP, GH_JOB_CAP: report_formats.h): beyond them the
 * findings are counted and summarised in one notice. */
enum { K_ERROR, K_WARNING, K_NOTICE };

struct ann {
	int kind;
	char *line;
};

struct anns {
	struct ann *v;
	size_t n, cap;
};

static void ann_push(struct anns *a, const char *cmd, struct buf *line)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 16;
		a->v = xrealloc(a->v, a->cap * sizeof *a->v);
	}
	a->v[a->n].kind = !strcmp(cmd, "error") ? K_ERROR : !strcmp(cmd, "warning") ? K_WARNING : K_NOTICE;
	a->v[a->n].line = buf_steal(line);
	a->n++;
}

size_t report_github(FILE *out, const cJSON *doc, size_t job_left)
{
	const cJSON *b, *d;
	struct anns a = {0};
	cJSON_ArrayForEach(b, json_get(doc, "bundles")) {
		const char *name = json_str(b, "name"), *v = json_str(b, "verdict");
		int n = 0;
		cJSON_ArrayForEach(d, json_get(b, "diagnoses")) {
			n++;
			struct buf f;
			buf_init(&f);
			const char *cmd = command_of(json_str(d, "severity"));
			const cJSON *e0 = cJSON_GetArrayItem(json_get(d, "evidence"), 0);
			char *title = xasprintf("nccl-triage: %s", json_str(d, "title") ? json_str(d, "title") : "");
			head(&f, cmd, name, e0, title);
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
			gh_esc(&f, m.data, 0);
			buf_free(&m);
			ann_push(&a, cmd, &f);
		}
		if (v && !strcmp(v, "unknown_failure")) {
			struct buf f;
			buf_init(&f);
			const cJSON *u0 = cJSON_GetArrayItem(json_get(b, "unexplained"), 0);
			head(&f, "error", name, u0, "nccl-triage: the job failed and no known cause matched");
			gh_esc(&f, u0 ? json_str(u0, "text") : "failure evidence found", 0);
			ann_push(&a, "error", &f);
			n++;
		}
		if (!n) {
			struct buf f;
			buf_init(&f);
			buf_adds(&f, "::notice title=nccl-triage::");
			gh_esc(&f, name, 0);
			buf_adds(&f, ": ");
			gh_esc(&f, v ? v : "no verdict", 0);
			buf_adds(&f, ": ");
			gh_esc(&f, json_str(b, "verdict_reason") ? json_str(b, "verdict_reason")
			           : v && !strcmp(v, "healthy") ? "no failure evidence found" : "nothing recognisable to analyse", 0);
			ann_push(&a, "notice", &f);
		}
	}
	size_t count[3] = {0}, shown[3] = {0}, over[3] = {0}, nshown = 0;
	for (size_t i = 0; i < a.n; i++)
		count[a.v[i].kind]++;
	int per_step = count[K_ERROR] > GH_STEP_CAP || count[K_WARNING] > GH_STEP_CAP || count[K_NOTICE] > GH_STEP_CAP;
	int overflow = per_step || a.n > job_left;
	/* the summary notice takes the last notice place, and one of the job's */
	size_t cap[3] = {GH_STEP_CAP, GH_STEP_CAP, overflow ? GH_STEP_CAP - 1 : GH_STEP_CAP};
	size_t room = overflow && job_left ? job_left - 1 : job_left;
	for (size_t i = 0; i < a.n; i++) {
		int k = a.v[i].kind;
		if (shown[k] < cap[k] && nshown < room) {
			shown[k]++;
			nshown++;
			fputs(a.v[i].line, out);
			fputc('\n', out);
		} else
			over[k]++;
		free(a.v[i].line);
	}
	free(a.v);
	if (!overflow)
		return nshown;
	size_t rest = over[0] + over[1] + over[2];
	char why[200];
	snprintf(why, sizeof why, "GitHub shows at most %d annotations of each kind per step and %d per job%s", GH_STEP_CAP,
	         GH_JOB_CAP, job_left < GH_JOB_CAP ? " (earlier steps of this job used some)" : "");
	if (job_left) {
		fprintf(out, "::notice title=nccl-triage%%3A more findings::%zu more findings not annotated (%zu errors, %zu "
		             "warnings, %zu notices): %s; the job summary or the full report lists them all\n",
		        rest, over[0], over[1], over[2], why);
		nshown++;
	} else /* no annotation left: a plain line of the log */
		fprintf(out, "nccl-triage: %zu finding%s not annotated (%zu errors, %zu warnings, %zu notices): %s, and this job "
		             "has shown its %d; the job summary or the full report lists them all\n",
		        rest, rest == 1 ? "" : "s", over[0], over[1], over[2], why, GH_JOB_CAP);
	return nshown;
}
