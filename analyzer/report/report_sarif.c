/* report_sarif.c - SARIF 2.1.0 (OASIS) for code-scanning dashboards: one
 * run, one rule per diagnosis id, one result per diagnosis of each bundle,
 * located at its earliest evidence line (file = bundle operand + document
 * path, percent-encoded as a URI reference) with the other evidence lines as
 * relatedLocations.  Severity error/warning/info maps to the SARIF levels
 * error/warning/note.  Validated against the OASIS schema in tests/schemas/.
 * Also report_artifact_path(), shared by the CI formats.  Borrows the JSON. */
#include "report/report_formats.h"

#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "report/report.h"
#include "base/util.h"

char *report_artifact_path(const char *bundle, const char *path)
{
	if (!path || !*path)
		return xstrdup(bundle ? bundle : "");
	if (!bundle || !*bundle || !strcmp(bundle, "-") || path[0] == '/')
		return xstrdup(path);
	size_t bl = strlen(bundle), pl = strlen(path);
	/* a single-file operand: the bundle is the file itself */
	if (bl >= pl && !strcmp(bundle + bl - pl, path) && (bl == pl || bundle[bl - pl - 1] == '/'))
		return xstrdup(bundle);
	while (bl > 1 && bundle[bl - 1] == '/')
		bl--;
	return xasprintf("%.*s/%s", (int)bl, bundle, path);
}

/* RFC 3986 URI reference of a relative path: unreserved and '/' kept. */
static char *uri_encode(const char *s)
{
	struct buf b;
	buf_init(&b);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || strchr("-._~/", *p))
			buf_addc(&b, (char)*p);
		else
			buf_printf(&b, "%%%02X", *p);
	}
	return buf_steal(&b);
}

static const char *level_of(const char *sev)
{
	if (sev && !strcmp(sev, "error"))
		return "error";
	if (sev && !strcmp(sev, "warning"))
		return "warning";
	return "note";
}

static cJSON *text_obj(const char *t)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "text", t ? t : "");
	return o;
}

static cJSON *location(const char *bundle, const cJSON *e, int id)
{
	cJSON *loc = cJSON_CreateObject();
	if (id >= 0)
		cJSON_AddNumberToObject(loc, "id", id);
	cJSON *phys = cJSON_AddObjectToObject(loc, "physicalLocation");
	cJSON *art = cJSON_AddObjectToObject(phys, "artifactLocation");
	char *p = report_artifact_path(bundle, json_str(e, "path"));
	char *u = uri_encode(p);
	cJSON_AddStringToObject(art, "uri", u);
	free(u);
	free(p);
	const cJSON *ln = json_get(e, "line");
	int derived = report_ev_derived(e);
	if (cJSON_IsNumber(ln) && ln->valuedouble >= 1) {
		cJSON *reg = cJSON_AddObjectToObject(phys, "region");
		cJSON_AddNumberToObject(reg, "startLine", ln->valuedouble);
		/* the snippet is the line's own text; a derived sentence is not */
		if (json_str(e, "text") && !derived)
			cJSON_AddItemToObject(reg, "snippet", text_obj(json_str(e, "text")));
	}
	if (json_str(e, "text") && (id >= 0 || derived || cJSON_IsTrue(json_get(e, "cut")))) {
		char *note = report_ev_cut_note(e), *m;
		if (derived) {
			char *from = report_ev_from(e);
			m = xasprintf("derived%s%s: %s%s", *from ? " from " : "", from, json_str(e, "text"), note);
			free(from);
		} else
			m = xasprintf("%s%s", json_str(e, "text"), note);
		cJSON_AddItemToObject(loc, "message", text_obj(m));
		free(m);
		free(note);
	}
	return loc;
}

static int rule_index(cJSON *rules, const char *id)
{
	int i = 0;
	const cJSON *r;
	cJSON_ArrayForEach(r, rules) {
		if (json_str(r, "id") && !strcmp(json_str(r, "id"), id))
			return i;
		i++;
	}
	return -1;
}

static int add_rule(cJSON *rules, const cJSON *d)
{
	const char *id = json_str(d, "id");
	int i = rule_index(rules, id);
	if (i >= 0)
		return i;
	cJSON *r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "id", id);
	/* the rule is the same in every run: the database's title and
	 * explanation without this run's values (they are in the result) */
	cJSON_AddItemToObject(r, "shortDescription", text_obj(json_str(d, "fixed_title") ? json_str(d, "fixed_title") : json_str(d, "title")));
	cJSON_AddItemToObject(r, "fullDescription", text_obj(json_str(d, "fixed_explanation") ? json_str(d, "fixed_explanation") : json_str(d, "explanation")));
	struct buf h;
	buf_init(&h);
	const cJSON *x;
	/* the database's steps: the result's "fix" holds this run's values */
	cJSON_ArrayForEach(x, json_get(d, "fixed_fix"))
		if (cJSON_IsString(x))
			buf_printf(&h, "%s- %s", h.len ? "\n" : "", x->valuestring);
	if (h.len)
		cJSON_AddItemToObject(r, "help", text_obj(h.data));
	buf_free(&h);
	const cJSON *refs = json_get(d, "references");
	cJSON_ArrayForEach(x, refs)
		if (cJSON_IsString(x) && (str_starts(x->valuestring, "https://") || str_starts(x->valuestring, "http://"))) {
			cJSON_AddStringToObject(r, "helpUri", x->valuestring);
			break;
		}
	cJSON *cfg = cJSON_AddObjectToObject(r, "defaultConfiguration");
	cJSON_AddStringToObject(cfg, "level", level_of(json_str(d, "severity")));
	cJSON *props = cJSON_AddObjectToObject(r, "properties");
	cJSON *tags = cJSON_AddArrayToObject(props, "tags");
	if (json_str(d, "category"))
		cJSON_AddItemToArray(tags, cJSON_CreateString(json_str(d, "category")));
	cJSON_AddItemToArray(tags, cJSON_CreateString("nccl"));
	cJSON_AddItemToArray(rules, r);
	return cJSON_GetArraySize(rules) - 1;
}

/* The run's head: the tool, its rules array (filled as results come),
 * the invocation; returns the run, *rules and *results its arrays. */
static cJSON *sarif_run(cJSON *root, const cJSON *doc, cJSON **rules, cJSON **results)
{
	const cJSON *tool = json_get(doc, "tool"), *db = json_get(doc, "db");
	cJSON_AddStringToObject(root, "$schema", "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json");
	cJSON_AddStringToObject(root, "version", "2.1.0");
	cJSON *runs = cJSON_AddArrayToObject(root, "runs");
	cJSON *run = cJSON_CreateObject();
	cJSON_AddItemToArray(runs, run);
	cJSON *drv = cJSON_AddObjectToObject(cJSON_AddObjectToObject(run, "tool"), "driver");
	cJSON_AddStringToObject(drv, "name", "nccl-triage");
	if (json_str(tool, "version"))
		cJSON_AddStringToObject(drv, "version", json_str(tool, "version"));
	*rules = cJSON_AddArrayToObject(drv, "rules");
	if (json_str(db, "version")) {
		cJSON *props = cJSON_AddObjectToObject(drv, "properties");
		cJSON_AddStringToObject(props, "signatureDatabase", json_str(db, "version"));
	}
	cJSON *inv = cJSON_CreateObject();
	cJSON_AddBoolToObject(inv, "executionSuccessful", 1);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(run, "invocations"), inv);
	*results = cJSON_AddArrayToObject(run, "results");
	return run;
}

/* "locations" (the first item of arr, or the bundle itself) and
 * "relatedLocations" (the next 19) of a result. */
static void sarif_locations(cJSON *res, const char *name, const cJSON *arr, int point_at_bundle)
{
	cJSON *locs = cJSON_AddArrayToObject(res, "locations");
	const cJSON *e0 = cJSON_GetArrayItem(arr, 0), *e;
	if (e0) {
		cJSON_AddItemToArray(locs, location(name, e0, -1));
	} else if (point_at_bundle) {
		/* no line: point at the bundle itself */
		cJSON *dummy = cJSON_CreateObject();
		cJSON_AddStringToObject(dummy, "path", "");
		cJSON_AddItemToArray(locs, location(name, dummy, -1));
		cJSON_Delete(dummy);
	}
	if (!e0 || (point_at_bundle && cJSON_GetArraySize(arr) <= 1))
		return;
	cJSON *rel = cJSON_AddArrayToObject(res, "relatedLocations");
	int i = 0;
	cJSON_ArrayForEach(e, arr) {
		if (i++ == 0)
			continue;
		if (i > 20)
			break;
		cJSON_AddItemToArray(rel, location(name, e, i - 1));
	}
	if (!cJSON_GetArraySize(rel))
		cJSON_DeleteItemFromObjectCaseSensitive(res, "relatedLocations");
}

/* One result per diagnosis. */
static cJSON *sarif_diagnosis(cJSON *rules, const cJSON *b, const cJSON *d)
{
	const char *name = json_str(b, "name");
	int ri = add_rule(rules, d);
	cJSON *res = cJSON_CreateObject();
	cJSON_AddStringToObject(res, "ruleId", json_str(d, "id"));
	cJSON_AddNumberToObject(res, "ruleIndex", ri);
	cJSON_AddStringToObject(res, "level", level_of(json_str(d, "severity")));
	struct buf m;
	buf_init(&m);
	if (json_str(d, "echo_of"))
		buf_printf(&m, "(consequence of %s) ", json_str(d, "echo_of"));
	/* the message is the diagnosis (its title, with this run's values),
	 * never a log snippet; the fixes are the rule's help */
	buf_adds(&m, json_str(d, "title") ? json_str(d, "title") : "");
	cJSON_AddItemToObject(res, "message", text_obj(m.data));
	buf_free(&m);
	sarif_locations(res, name, json_get(d, "evidence"), 1);
	cJSON *fp = cJSON_AddObjectToObject(res, "partialFingerprints");
	char *k = xasprintf("%s/%s", name ? name : "", json_str(d, "id") ? json_str(d, "id") : "");
	cJSON_AddStringToObject(fp, "nccl-triage/bundle-diagnosis/v1", k);
	free(k);
	cJSON *props = cJSON_AddObjectToObject(res, "properties");
	cJSON_AddStringToObject(props, "bundle", name ? name : "");
	cJSON_AddStringToObject(props, "verdict", json_str(b, "verdict") ? json_str(b, "verdict") : "");
	if (json_str(d, "category"))
		cJSON_AddStringToObject(props, "category", json_str(d, "category"));
	if (json_str(d, "role"))
		cJSON_AddStringToObject(props, "role", json_str(d, "role"));
	if (json_str(d, "echo_of"))
		cJSON_AddStringToObject(props, "echoOf", json_str(d, "echo_of"));
	const cJSON *conf = json_get(d, "confidence");
	if (cJSON_IsNumber(conf))
		cJSON_AddNumberToObject(props, "confidence", conf->valuedouble);
	if (json_get(d, "ranks"))
		cJSON_AddItemToObject(props, "ranks", cJSON_Duplicate(json_get(d, "ranks"), 1));
	if (json_get(d, "fix"))
		cJSON_AddItemToObject(props, "fix", cJSON_Duplicate(json_get(d, "fix"), 1));
	if (json_str(d, "explanation"))
		cJSON_AddStringToObject(props, "explanation", json_str(d, "explanation"));
	return res;
}

/* A bundle whose failure no diagnosis explains: one result for it. */
static cJSON *sarif_unknown_failure(cJSON *rules, const cJSON *b)
{
	const char *name = json_str(b, "name");
	int ri = rule_index(rules, "nccl-triage.unknown_failure");
	if (ri < 0) {
		cJSON *r = cJSON_CreateObject();
		cJSON_AddStringToObject(r, "id", "nccl-triage.unknown_failure");
		cJSON_AddItemToObject(r, "shortDescription", text_obj("The job failed and no known cause matched"));
		cJSON_AddItemToObject(r, "fullDescription",
		                      text_obj("Failure evidence (a traceback, an NCCL warning, a non-zero exit) "
		                               "was found that no signature of the database explains."));
		cJSON *cfg = cJSON_AddObjectToObject(r, "defaultConfiguration");
		cJSON_AddStringToObject(cfg, "level", "error");
		cJSON_AddItemToArray(rules, r);
		ri = cJSON_GetArraySize(rules) - 1;
	}
	cJSON *res = cJSON_CreateObject();
	cJSON_AddStringToObject(res, "ruleId", "nccl-triage.unknown_failure");
	cJSON_AddNumberToObject(res, "ruleIndex", ri);
	cJSON_AddStringToObject(res, "level", "error");
	const cJSON *u = json_get(b, "unexplained");
	/* the lines themselves are the locations' snippets */
	cJSON_AddItemToObject(res, "message", text_obj("The job failed and no known cause matched"));
	sarif_locations(res, name, u, 0);
	cJSON *props = cJSON_AddObjectToObject(res, "properties");
	cJSON_AddStringToObject(props, "bundle", name ? name : "");
	cJSON_AddStringToObject(props, "verdict", json_str(b, "verdict"));
	return res;
}

void report_sarif(FILE *f, const cJSON *doc)
{
	cJSON *root = cJSON_CreateObject(), *rules, *results;
	sarif_run(root, doc, &rules, &results);
	const cJSON *b, *d;
	cJSON_ArrayForEach(b, json_get(doc, "bundles")) {
		cJSON_ArrayForEach(d, json_get(b, "diagnoses"))
			cJSON_AddItemToArray(results, sarif_diagnosis(rules, b, d));
		const char *v = json_str(b, "verdict");
		if (v && !strcmp(v, "unknown_failure"))
			cJSON_AddItemToArray(results, sarif_unknown_failure(rules, b));
	}
	char *s = cJSON_Print(root);
	fputs(s, f);
	fputc('\n', f);
	free(s);
	cJSON_Delete(root);
}
