/* report_junit.c - JUnit XML for CI test-report views (Jenkins junit,
 * GitLab artifacts:reports:junit).  One <testsuite> per bundle; one failed
 * <testcase> per diagnosis of severity error (cascades too, their message
 * names the root they echo); warnings and info become passing test cases
 * with the finding in <system-out>; an unexplained failure is one failed
 * test case; a bundle with nothing to report gets one passing "analysis"
 * case so that the suite is never empty.  The output validates against the
 * Jenkins xunit plugin's junit-10.xsd (tests/schemas/).  Borrows the JSON. */
#include "report_formats.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"
#include "util.h"

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

static void testcase(FILE *f, const cJSON *d, const char *bundle, int fail)
{
	fputs("    <testcase name=\"", f);
	xesc(f, json_str(d, "id"), 1);
	fputs(": ", f);
	xesc(f, json_str(d, "title"), 1);
	fputc('"', f);
	classname(f, bundle);
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
	xesc(f, json_str(d, "explanation"), 0);
	fputc('\n', f);
	const cJSON *fix = json_get(d, "fix"), *x;
	if (cJSON_GetArraySize(fix) > 0) {
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
	fputs(fail ? "</failure>\n" : "</system-out>\n", f);
	fputs("    </testcase>\n", f);
}

void report_junit(FILE *f, const cJSON *doc)
{
	const cJSON *bundles = json_get(doc, "bundles"), *b, *d;
	int tests = 0, failures = 0;
	cJSON_ArrayForEach(b, bundles) {
		int t = 0;
		cJSON_ArrayForEach(d, json_get(b, "diagnoses")) {
			t++;
			failures += is_error(d);
		}
		const char *v = json_str(b, "verdict");
		if (v && !strcmp(v, "unknown_failure")) {
			t++;
			failures++;
		}
		tests += t ? t : 1;
	}
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<testsuites name=\"nccl-triage\" tests=\"%d\" failures=\"%d\" errors=\"0\" time=\"0\">\n", tests, failures);
	cJSON_ArrayForEach(b, bundles) {
		const char *name = json_str(b, "name"), *v = json_str(b, "verdict");
		int t = 0, fl = 0;
		cJSON_ArrayForEach(d, json_get(b, "diagnoses")) {
			t++;
			fl += is_error(d);
		}
		int unknown = v && !strcmp(v, "unknown_failure");
		t += unknown;
		fl += unknown;
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
		cJSON_ArrayForEach(d, json_get(b, "diagnoses"))
			testcase(f, d, name, is_error(d));
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
			fputs("</failure>\n    </testcase>\n", f);
		}
		if (!t) {
			fputs("    <testcase name=\"analysis: ", f);
			xesc(f, v, 1);
			fputc('"', f);
			classname(f, name);
			fputs(" time=\"0\">\n      <system-out>", f);
			xesc(f, v && !strcmp(v, "healthy") ? "No failure evidence found; NCCL initialised."
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
