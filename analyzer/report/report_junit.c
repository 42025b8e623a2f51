/* report_junit.c - JUnit XML for CI test-report views (Jenkins junit,
 * GitLab artifacts:reports:junit).  One <testsuite> per bundle; one
 * <testcase> per root finding, named by its id and the database's title
 * (stable across runs), with a file attribute; it fails when the finding or
 * an echo or context folded into it is an error (one failure counts once:
 * cascades and context are in its output); warnings and info pass
 * with the finding in <system-out>; an unexplained failure is one failed
 * test case; a bundle with nothing to report gets one passing "analysis"
 * case so that the suite is never empty.  The output validates against the
 * Jenkins xunit plugin's junit-10.xsd (tests/schemas/).  Borrows the JSON. */
#include "report/report_formats.h"

#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "report/report.h"
#include "base/util.h"

/* XML 1.0 text or attribute value: escape markup, drop what XML forbids
 * (controls other than tab/newline/CR), newlines as &#10; in attributes. */
static void xesc(FILE *f, const char *s, int attr)
{
	if (!s)
		return;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs(attr ? "&quot;" : "\"", f); break;
		case '\n': fputs(attr ? "&#10;" : "\n", f); break;
		case '\t': fputs(attr ? "&#9;" : "\t", f); break;
		case '\r': fputs(attr ? "&#13;" : "\n", f); break;
		default:
			if (*p < 0x20)
				fputc('?', f);
			else if (*p == 0xEF && p[1] == 0xBF && (p[2] == 0xBE || p[2] == 0xBF)) {
				/* U+FFFE / U+FFFF are not XML characters */
				fputc('?', f);
				p += 2;
			} else
				fputc(*p, f);
		}
	}
}

static int is_error(const cJSON *d)
{
	const char *s = json_str(d, "severity");
	return s && !strcmp(s, "error");
}

/* classname: the bundle, with dots made safe (Jenkins splits on dots). */
static void classname(FILE *f, const char *bundle)
{
	fputs(" classname=\"nccl-triage.", f);
	struct buf b;
	buf_init(&b);
	for (const char *p = bundle ? bundle : "bundle"; *p; p++)
		buf_addc(&b, *p == '.' ? '_' : *p);
	xesc(f, b.data, 1);
	buf_free(&b);
	fputc('"', f);
}

static void evidence_text(FILE *f, const cJSON *d, const char *bundle)
{
	const cJSON *e;
	int i = 0;
	cJSON_ArrayForEach(e, json_get(d, "evidence")) {
		if (i++ == 10)
			break;
		const cJSON *ln = json_get(e, "line");
		char *note = report_ev_cut_note(e);
		if (report_ev_derived(e)) {
			/* a sentence the tool composed, not the text of a line */
			char *from = report_ev_from(e);
			fputs("derived", f);
			if (*from) {
				fputs(" from ", f);
				xesc(f, from, 0);
			}
			free(from);
		} else {
			char *loc = report_artifact_path(bundle, json_str(e, "path"));
			xesc(f, loc, 0);
			free(loc);
			if (cJSON_IsNumber(ln) && ln->valuedouble >= 1)
				fprintf(f, ":%.0f", ln->valuedouble);
		}
		fputs(": ", f);
		xesc(f, json_str(e, "text"), 0);
		xesc(f, note, 0);
		free(note);
		fputc('\n', f);
	}
}

/* The diagnosis d folds into: the one it echoes (a cascade) or supports
 * (context), when that one is in the bundle too; NULL for a test of its own.
 * One failure counts once: its echoes and context are in its output. */
static const cJSON *folded_into(const cJSON *diags, const cJSON *d)
{
	const char *to = json_str(d, "echo_of");
	if (!to)
		to = json_str(d, "supports");
	if (!to)
		return NULL;
	const cJSON *x;
	cJSON_ArrayForEach(x, diags)
		if (x != d && json_str(x, "id") && !strcmp(json_str(x, "id"), to))
			return folded_into(diags, x) ? folded_into(diags, x) : x;
	return NULL;
}

/* A test fails when its diagnosis, or one folded into it, is an error. */
static int test_fails(const cJSON *diags, const cJSON *d)
{
	if (is_error(d))
		return 1;
	const cJSON *x;
	cJSON_ArrayForEach(x, diags)
		if (folded_into(diags, x) == d && is_error(x))
			return 1;
	return 0;
}

static void finding_text(FILE *f, const cJSON *d, const char *bundle)
{
	xesc(f, json_str(d, "explanation"), 0);
	fputc('\n', f);
	const cJSON *fix = json_get(d, "fix"), *x;
	const char *role = json_str(d, "role");
	if (cJSON_GetArraySize(fix) > 0 && !(role && !strcmp(role, "cascade")) && !json_str(d, "supports")) {
		fputs("\nFix:\n", f);
		cJSON_ArrayForEach(x, fix) {
			fputs("  - ", f);
			xesc(f, cJSON_IsString(x) ? x->valuestring : "", 0);
			fputc('\n', f);
		}
	}
	if (cJSON_GetArraySize(json_get(d, "evidence")) > 0) {
		fputs("\nEvidence:\n", f);
		evidence_text(f, d, bundle);
	}
}

static void testcase(FILE *f, const cJSON *diags, const cJSON *d, const char *bundle, int fail)
{
	/* the name is the diagnosis id and the database's title: the same in
	 * every run, so that CI keeps the test's history (this run's values
	 * are in the message) */
	fputs("    <testcase name=\"", f);
	xesc(f, json_str(d, "id"), 1);
	fputs(": ", f);
	xesc(f, json_str(d, "fixed_title") ? json_str(d, "fixed_title") : json_str(d, "title"), 1);
	fputc('"', f);
	classname(f, bundle);
	const cJSON *e0 = cJSON_GetArrayItem(json_get(d, "evidence"), 0);
	if (e0 && json_str(e0, "path") && *json_str(e0, "path")) {
		char *loc = report_artifact_path(bundle, json_str(e0, "path"));
		fputs(" file=\"", f);
		xesc(f, loc, 1);
		fputc('"', f);
		free(loc);
	}
	fputs(" time=\"0\">\n", f);
	const char *echo = json_str(d, "echo_of");
	if (fail) {
		fputs("      <failure type=\"", f);
		xesc(f, json_str(d, "category"), 1);
		fputs("\" message=\"", f);
		if (echo) {
			fputs("(consequence of ", f);
			xesc(f, echo, 1);
			fputs(") ", f);
		}
		xesc(f, json_str(d, "title"), 1);
		fputs("\">", f);
	} else {
		fputs("      <system-out>", f);
		fputs("[", f);
		xesc(f, json_str(d, "severity"), 0);
		fputs("] ", f);
		xesc(f, json_str(d, "title"), 0);
		fputc('\n', f);
	}
	finding_text(f, d, bundle);
	const cJSON *x;
	cJSON_ArrayForEach(x, diags) {
		if (folded_into(diags, x) != d)
			continue;
		fputs("\n---- ", f);
		xesc(f, json_str(x, "echo_of") ? "consequence" : "context", 0);
		fputs(" (", f);
		xesc(f, json_str(x, "severity"), 0);
		fputs(", ", f);
		xesc(f, json_str(x, "id"), 0);
		fputs("): ", f);
		xesc(f, json_str(x, "title"), 0);
		fputc('\n', f);
		finding_text(f, x, bundle);
	}
	fputs(fail ? "</failure>\n" : "</system-out>\n", f);
	fputs("    </testcase>\n", f);
}

/* tests and failures of one bundle */
static void bundle_counts(const cJSON *b, int *t, int *fl)
{
	const cJSON *diags = json_get(b, "diagnoses"), *d;
	*t = *fl = 0;
	cJSON_ArrayForEach(d, diags) {
		if (folded_into(diags, d))
			continue;
		(*t)++;
		*fl += test_fails(diags, d);
	}
	const char *v = json_str(b, "verdict");
	if (v && !strcmp(v, "unknown_failure")) {
		(*t)++;
		(*fl)++;
	}
}

void report_junit(FILE *f, const cJSON *doc)
{
	const cJSON *bundles = json_get(doc, "bundles"), *b, *d;
	int tests = 0, failures = 0;
	cJSON_ArrayForEach(b, bundles) {
		int t, fl;
		bundle_counts(b, &t, &fl);
		tests += t ? t : 1;
		failures += fl;
	}
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<testsuites name=\"nccl-triage\" tests=\"%d\" failures=\"%d\" errors=\"0\" time=\"0\">\n", tests, failures);
	cJSON_ArrayForEach(b, bundles) {
		const char *name = json_str(b, "name"), *v = json_str(b, "verdict");
		int t, fl;
		bundle_counts(b, &t, &fl);
		int unknown = v && !strcmp(v, "unknown_failure");
		fputs("  <testsuite name=\"", f);
		xesc(f, name ? name : "bundle", 1);
		fprintf(f, "\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"0\" time=\"0\">\n", t ? t : 1, fl);
		fputs("    <properties>\n      <property name=\"verdict\" value=\"", f);
		xesc(f, v, 1);
		fputs("\"/>\n", f);
		const cJSON *tool = json_get(doc, "tool"), *db = json_get(doc, "db");
		if (json_str(tool, "version")) {
			fputs("      <property name=\"nccl-triage.version\" value=\"", f);
			xesc(f, json_str(tool, "version"), 1);
			fputs("\"/>\n", f);
		}
		if (json_str(db, "version")) {
			fputs("      <property name=\"nccl-triage.db\" value=\"", f);
			xesc(f, json_str(db, "version"), 1);
			fputs("\"/>\n", f);
		}
		fputs("    </properties>\n", f);
		const cJSON *diags = json_get(b, "diagnoses");
		cJSON_ArrayForEach(d, diags)
			if (!folded_into(diags, d))
				testcase(f, diags, d, name, test_fails(diags, d));
		if (unknown) {
			fputs("    <testcase name=\"unknown_failure: the job failed and no signature explains it\"", f);
			classname(f, name);
			fputs(" time=\"0\">\n      <failure type=\"unknown_failure\" message=\"failure evidence that no known "
			      "cause matches\">",
			      f);
			const cJSON *u;
			int i = 0;
			cJSON_ArrayForEach(u, json_get(b, "unexplained")) {
				if (i++ == 20)
					break;
				char *loc = report_artifact_path(name, json_str(u, "path"));
				xesc(f, loc, 0);
				free(loc);
				const cJSON *ln = json_get(u, "line");
				if (cJSON_IsNumber(ln))
					fprintf(f, ":%.0f", ln->valuedouble);
				fputs(": [", f);
				xesc(f, json_str(u, "kind"), 0);
				fputs("] ", f);
				xesc(f, json_str(u, "text"), 0);
				fputc('\n', f);
			}
			if (!i && json_str(b, "verdict_reason")) {
				/* no failure line (a cut input, nccl-tests wrong values):
				 * the verdict's reason is the failure's text */
				xesc(f, json_str(b, "verdict_reason"), 0);
				fputc('\n', f);
			}
			fputs("</failure>\n    </testcase>\n", f);
		}
		if (!t) {
			fputs("    <testcase name=\"analysis: ", f);
			xesc(f, v, 1);
			fputc('"', f);
			classname(f, name);
			fputs(" time=\"0\">\n      <system-out>", f);
			xesc(f, json_str(b, "verdict_reason") ? json_str(b, "verdict_reason")
			        : v && !strcmp(v, "healthy") ? "No failure evidence found."
			                                      : "No NCCL or PyTorch output was recognised in the inputs.",
			     0);
			fputs("</system-out>\n    </testcase>\n", f);
		}
		const cJSON *w = json_get(b, "warnings"), *x;
		if (cJSON_GetArraySize(w) > 0) {
			fputs("    <system-err>", f);
			cJSON_ArrayForEach(x, w) {
				xesc(f, cJSON_IsString(x) ? x->valuestring : "", 0);
				fputc('\n', f);
			}
			fputs("</system-err>\n", f);
		}
		fputs("  </testsuite>\n", f);
	}
	fputs("</testsuites>\n", f);
}
