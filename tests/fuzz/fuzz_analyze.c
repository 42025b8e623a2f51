/* fuzz_analyze.c - the whole analyze on an in-memory bundle: input layer,
 * detection, line splitting, matching, system reports, fact rules,
 * correlation, and the JSON, text and Markdown reports.  The database is
 * tests/db-min (plus patterns/ when present), loaded once; run from the
 * repository root or set FUZZ_DB_DIR.  Checks: the JSON parses back; the
 * text and Markdown reports (no colour) hold no control bytes and no raw
 * HTML from the logs; the same bundle analysed with two threads
 * (bundle_set_threads, what analyze does by default) gives the same JSON. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <sys/stat.h>

#include "engine/analysis.h"
#include "engine/bundle.h"
#include "fuzz_common.h"
#include "report/report.h"
#include "rules/rules.h"
#include "match/sigdb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static struct sigdb g_db;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *dir = getenv("FUZZ_DB_DIR");
	struct msgs m = {0};
	int errors = 0;
	/* tests/db-min plus the real patterns/ when they load cleanly */
	for (int with_patterns = 1; with_patterns >= 0; with_patterns--) {
		sigdb_init(&g_db);
		rules_register(&g_db);
		g_db.match_limit = 100000;
		g_db.depth_limit = 1000;
		msgs_free(&m);
		errors = sigdb_load_dir(&g_db, dir ? dir : "tests/db-min", &m);
		struct stat sb;
		if (with_patterns && !dir && stat("patterns", &sb) == 0 && S_ISDIR(sb.st_mode))
			errors += sigdb_load_dir(&g_db, "patterns", &m);
		errors += sigdb_finalize(&g_db, &m);
		if (!errors)
			break;
		sigdb_free(&g_db);
	}
	if (errors || g_db.nsigs == 0) {
		fprintf(stderr, "fuzz_analyze: cannot load the database (run from the repository root):\n");
		for (size_t i = 0; i < m.list.n; i++)
			fprintf(stderr, "  %s\n", m.list.v[i]);
		exit(2);
	}
	msgs_free(&m);
	return 0;
}

static void check_rendered(char *s, size_t n)
{
	FUZZ_ASSERT(fuzz_text_clean(s, n, 1));
}

/* Outside fences, a '<' that is not inside an inline code span must be one
 * of the report's own tags (<details>, <summary>). */
static void check_md_line(const char *line, size_t n)
{
	int code = 0;
	for (size_t i = 0; i < n; i++) {
		if (line[i] == '\\' && i + 1 < n) {
			i++;
			continue;
		}
		if (line[i] == '`')
			code = !code;
		else if (line[i] == '<' && !code)
			FUZZ_ASSERT(strncmp(line + i, "<details>", 9) == 0 || strncmp(line + i, "</details>", 10) == 0 ||
			            strncmp(line + i, "<summary>", 9) == 0 || strncmp(line + i, "</summary>", 10) == 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct limits lim;
	fuzz_limits(&lim);
	struct bundle *b = bundle_new("fuzz-ticket", &g_db, &lim);
	bundle_add_memory(b, "fuzz-ticket", data, size);
	analysis_finish(b);

	cJSON *j = report_bundle_json(b, 0);
	char *s = cJSON_PrintUnformatted(j);
	FUZZ_ASSERT(s != NULL);
	cJSON *back = cJSON_Parse(s);
	FUZZ_ASSERT(back != NULL);
	cJSON_Delete(back);
	cJSON_Delete(j);

	struct bundle *b2 = bundle_new("fuzz-ticket", &g_db, &lim);
	bundle_set_threads(b2, 2);
	bundle_add_memory(b2, "fuzz-ticket", data, size);
	analysis_finish(b2);
	cJSON *j2 = report_bundle_json(b2, 0);
	char *s2 = cJSON_PrintUnformatted(j2);
	FUZZ_ASSERT(s2 != NULL && strcmp(s, s2) == 0);
	free(s2);
	cJSON_Delete(j2);
	bundle_free(b2);
	free(s);

	/* text fitted to a terminal (wrapping, cutting) or whole lines, by the input's size */
	struct report_opts ro = {0, 5, size % 2 ? 24 + (int)(size % 97) : 0};
	struct bundle *one[1] = {b};
	cJSON *doc = report_json(one, 1, &g_db, 0);
	for (int md = 0; md < 2; md++) {
		char *out = NULL;
		size_t outlen = 0;
		FILE *f = open_memstream(&out, &outlen);
		FUZZ_ASSERT(f != NULL);
		if (md)
			report_md(f, doc, &ro);
		else
			report_text(f, doc, &ro);
		fclose(f);
		check_rendered(out, outlen);
		if (md) {
			/* log text reaches Markdown escaped or inside a code fence: a
			 * raw tag from the input must not appear outside a fence */
			int in_fence = 0;
			for (char *line = out; line && *line;) {
				char *nl = strchr(line, '\n');
				size_t ll = nl ? (size_t)(nl - line) : strlen(line);
				if (ll >= 3 && memcmp(line, "```", 3) == 0)
					in_fence = !in_fence;
				else if (!in_fence)
					check_md_line(line, ll);
				line = nl ? nl + 1 : NULL;
			}
		}
		free(out);
	}
	cJSON_Delete(doc);
	bundle_free(b);
	return 0;
}
