/* render.c - test driver for the report formats: renders a JSON document
 * (as written by `nccl-triage analyze --format json`) in one format, so the
 * tests can feed the renderers facts that the parsers may not produce yet.
 *   render html|junit|sarif|github DOC.json
 *   render batch SUMMARY.json BUNDLES.json   (HTML batch page)
 *   render redact DOC.json                   (redact_json, print JSON)
 *   render redact-string TEXT...             (one line per argument)
 * Output on standard output; exit 2 on bad input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/redact.h"
#include "report/report.h"
#include "report/report_formats.h"

static cJSON *load(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	size_t got = fread(buf, 1, (size_t)n, f);
	buf[got] = 0;
	fclose(f);
	cJSON *j = cJSON_Parse(buf);
	free(buf);
	if (!j)
		fprintf(stderr, "%s: not JSON\n", path);
	return j;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: render html|junit|sarif|github|redact DOC.json | batch SUMMARY BUNDLES | redact-string TEXT...\n");
		return 2;
	}
	const char *fmt = argv[1];
	if (!strcmp(fmt, "redact-string")) {
		struct redactor *r = redactor_new();
		for (int i = 2; i < argc; i++) {
			char *s = redact_string(r, argv[i]);
			printf("%s\n", s);
			free(s);
		}
		redactor_free(r);
		return 0;
	}
	cJSON *doc = load(argv[2]);
	if (!doc)
		return 2;
	int rc = 0;
	if (!strcmp(fmt, "html"))
		report_html(stdout, doc);
	else if (!strcmp(fmt, "junit"))
		report_junit(stdout, doc);
	else if (!strcmp(fmt, "sarif"))
		report_sarif(stdout, doc);
	else if (!strcmp(fmt, "github"))
		report_github(stdout, doc, GH_JOB_CAP);
	else if (!strcmp(fmt, "md") || !strcmp(fmt, "text")) {
		/* render md|text DOC [WIDTH] */
		struct report_opts ro = {0, 0, argc > 3 ? atoi(argv[3]) : 0};
		(fmt[0] == 'm' ? report_md : report_text)(stdout, doc, &ro);
	}
	else if (!strcmp(fmt, "redact")) {
		struct redactor *r = redactor_new();
		redact_json(r, doc);
		char *s = cJSON_Print(doc);
		printf("%s\n", s);
		free(s);
		redactor_free(r);
	} else if (!strcmp(fmt, "batch") && argc > 3) {
		cJSON *bundles = load(argv[3]);
		if (!bundles)
			rc = 2;
		else
			report_html_batch(stdout, doc, cJSON_IsArray(bundles) ? bundles : cJSON_GetObjectItemCaseSensitive(bundles, "bundles"));
		cJSON_Delete(bundles);
	} else {
		fprintf(stderr, "render: unknown format '%s'\n", fmt);
		rc = 2;
	}
	cJSON_Delete(doc);
	return rc;
}
