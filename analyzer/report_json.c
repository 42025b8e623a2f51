/* report_json.c - the JSON contract (see docs/json.md and DESIGN). */
#include "report.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bundle.h"
#include "correlate.h"
#include "json.h"
#include "nextsteps.h" /* ranks */
#include "ranks.h"
#include "sigdb.h"
#include "util.h"

#ifndef NT_VERSION
#define NT_VERSION "0.0.0"
#endif

/* from[] of derived evidence: {"path", "line"} once each */
static void from_add(cJSON *from, const char *path, size_t plen, uint64_t line)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, from) {
		const char *p = json_str(it, "path");
		double l = 0;
		json_num(it, "line", &l);
		if (p && strlen(p) == plen && !memcmp(p, path, plen) && (uint64_t)l == line)
			return;
	}
	cJSON *o = cJSON_CreateObject();
	char *p = xstrndup(path, plen);
	cJSON_AddStringToObject(o, "path", p);
	free(p);
	cJSON_AddNumberToObject(o, "line", (double)line);
	cJSON_AddItemToArray(from, o);
}

/* The lines a rule's sentence was computed from: its own place, and every
 * "DOC:LINE" of a document of the bundle that the sentence cites. */
static cJSON *derived_from(const struct bundle *b, const struct evidence *e)
{
	cJSON *from = cJSON_CreateArray();
	if (e->line > 0 && *e->path)
		from_add(from, e->path, strlen(e->path), e->line);
	for (size_t d = 0; d < b->ndocs; d++) {
		const char *path = b->docs[d].path;
		size_t pl = strlen(path);
		if (!pl)
			continue;
		for (const char *p = strstr(e->text, path); p; p = strstr(p + 1, path)) {
			if (p > e->text && (isalnum((unsigned char)p[-1]) || strchr("._-/", p[-1])))
				continue;
			if (p[pl] != ':' || !isdigit((unsigned char)p[pl + 1]))
				continue;
			uint64_t line = 0;
			const char *q = p + pl + 1;
			while (isdigit((unsigned char)*q) && line < UINT64_MAX / 10)
				line = line * 10 + (uint64_t)(*q++ - '0');
			if (line)
				from_add(from, path, pl, line);
		}
	}
	return from;
}

static cJSON *span_json(size_t start, size_t end)
{
	cJSON *a = cJSON_CreateArray();
	cJSON_AddItemToArray(a, cJSON_CreateNumber((double)start));
	cJSON_AddItemToArray(a, cJSON_CreateNumber((double)end));
	return a;
}

static int span_ok(size_t start, size_t end)
{
	return end > start && end != SIZE_MAX;
}

static cJSON *evidence_json(const struct bundle *b, const struct evidence *e)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "kind", e->derived ? "derived" : "line");
	cJSON_AddStringToObject(o, "path", e->path);
	cJSON_AddNumberToObject(o, "line", (double)e->line);
	cJSON_AddStringToObject(o, "text", e->text);
	if (e->cut) {
		cJSON_AddBoolToObject(o, "cut", 1);
		cJSON_AddNumberToObject(o, "length", (double)e->length);
	}
	if (e->derived)
		cJSON_AddItemToObject(o, "from", derived_from(b, e));
	cJSON_AddStringToObject(o, "signature", e->id);
	if (e->rank >= 0)
		cJSON_AddNumberToObject(o, "rank", e->rank);
	if (e->host)
		cJSON_AddStringToObject(o, "host", e->host);
	if (e->pid >= 0)
		cJSON_AddNumberToObject(o, "pid", (double)e->pid);
	if (e->ts)
		cJSON_AddStringToObject(o, "time", e->ts);
	if (e->nbefore || e->nafter) {
		cJSON *ctx = cJSON_AddObjectToObject(o, "context");
		cJSON *bf = cJSON_AddArrayToObject(ctx, "before");
		for (unsigned i = 0; i < e->nbefore; i++)
			cJSON_AddItemToArray(bf, cJSON_CreateString(e->before[i]));
		cJSON *af = cJSON_AddArrayToObject(ctx, "after");
		for (unsigned i = 0; i < e->nafter; i++)
			cJSON_AddItemToArray(af, cJSON_CreateString(e->after[i]));
	}
	if (e->ncaps) {
		cJSON *c = cJSON_AddObjectToObject(o, "captures");
		for (size_t i = 0; i < e->ncaps; i++)
			if (!cJSON_GetObjectItemCaseSensitive(c, e->caps[i].name))
				cJSON_AddStringToObject(c, e->caps[i].name, e->caps[i].value);
	}
	/* where the signature matched in text (PCRE2's offsets): what HTML
	 * highlights, never a search for the captured value */
	if (!e->derived && span_ok(e->match.start, e->match.end)) {
		cJSON *sp = cJSON_AddObjectToObject(o, "spans");
		cJSON_AddItemToObject(sp, "match", span_json(e->match.start, e->match.end));
		cJSON *cs = NULL;
		for (size_t i = 0; e->cspan && i < e->ncaps; i++) {
			if (!span_ok(e->cspan[i].start, e->cspan[i].end))
				continue;
			if (!cs)
				cs = cJSON_AddObjectToObject(sp, "captures");
			if (!cJSON_GetObjectItemCaseSensitive(cs, e->caps[i].name))
				cJSON_AddItemToObject(cs, e->caps[i].name, span_json(e->cspan[i].start, e->cspan[i].end));
		}
	}
	return o;
}

static cJSON *diagnosis_json(const struct bundle *b, const struct diagnosis *d, size_t evmax)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "id", d->def->id);
	cJSON_AddStringToObject(o, "category", d->def->category);
	cJSON_AddStringToObject(o, "severity", severity_name(d->def->severity));
	cJSON_AddStringToObject(o, "role", role_name(d->role));
	if (d->echo_of)
		cJSON_AddStringToObject(o, "echo_of", d->echo_of);
	if (d->supports)
		cJSON_AddStringToObject(o, "supports", d->supports);
	/* two decimals: stable text across platforms */
	cJSON_AddNumberToObject(o, "confidence", (double)(long)(d->confidence * 100 + 0.5) / 100.0);
	cJSON_AddStringToObject(o, "title", d->title);
	cJSON_AddStringToObject(o, "explanation", d->explanation);
	cJSON *fix = cJSON_AddArrayToObject(o, "fix");
	for (size_t i = 0; i < d->def->fix.n; i++) {
		char *s = render_template(d->def->fix.v[i], b, d);
		cJSON_AddItemToArray(fix, cJSON_CreateString(s));
		free(s);
	}
	cJSON *ranks = cJSON_AddArrayToObject(o, "ranks");
	for (size_t i = 0; i < d->nranks; i++)
		cJSON_AddItemToArray(ranks, cJSON_CreateNumber(d->ranks[i]));
	cJSON *ev = cJSON_AddArrayToObject(o, "evidence");
	for (size_t i = 0; i < d->nev && i < evmax; i++)
		cJSON_AddItemToArray(ev, evidence_json(b, &b->ev.v[d->ev[i]]));
	cJSON_AddNumberToObject(o, "evidence_total", (double)d->ev_total);
	cJSON *verify = cJSON_AddObjectToObject(o, "verify");
	cJSON *env = cJSON_AddObjectToObject(verify, "env");
	if (d->def->verify_env) {
		const cJSON *it;
		cJSON_ArrayForEach(it, d->def->verify_env) {
			/* "" in a signature means "unset it": null here, as in
			 * verify's own JSON, so that no reader takes it for
			 * "set it to the empty string" (docs/json.md). */
			char *s = render_template(it->valuestring, b, d);
			if (*s)
				cJSON_AddStringToObject(env, it->string, s);
			else
				cJSON_AddNullToObject(env, it->string);
			free(s);
		}
	}
	if (d->def->references.n) {
		cJSON *r = cJSON_AddArrayToObject(o, "references");
		for (size_t i = 0; i < d->def->references.n; i++)
			cJSON_AddItemToArray(r, cJSON_CreateString(d->def->references.v[i]));
	}
	return o;
}

void report_json_fix_utf8(cJSON *it)
{
	for (; it; it = it->next) {
		if (it->string && !(it->type & cJSON_StringIsConst)) {
			char *f = str_utf8_fix(it->string);
			if (f) {
				free(it->string);
				it->string = f;
			}
		}
		if (cJSON_IsString(it) && it->valuestring && !(it->type & cJSON_IsReference)) {
			char *f = str_utf8_fix(it->valuestring);
			if (f) {
				free(it->valuestring);
				it->valuestring = f;
			}
		}
		report_json_fix_utf8(it->child);
	}
}

cJSON *report_bundle_json(const struct bundle *b, size_t evidence_max)
{
	size_t evmax = evidence_max ? evidence_max : REPORT_EVIDENCE_MAX;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", b->name);
	cJSON_AddStringToObject(o, "verdict", verdict_name(b->verdict));
	cJSON *inputs = cJSON_AddArrayToObject(o, "inputs");
	for (size_t i = 0; i < b->ndocs; i++) {
		cJSON *d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "path", b->docs[i].path);
		cJSON_AddStringToObject(d, "kind", doc_kind_name(b->docs[i].kind));
		cJSON_AddNumberToObject(d, "lines", (double)b->docs[i].lines);
		cJSON_AddNumberToObject(d, "bytes", (double)b->docs[i].bytes);
		if (!b->docs[i].complete)
			cJSON_AddBoolToObject(d, "complete", 0);
		cJSON_AddItemToArray(inputs, d);
	}
	/* places where the input could not be read to its end (damaged or cut
	 * archives and files, read errors, caps): the verdict rests on part of
	 * the bundle only; absent when every byte was read */
	if (b->stats.cut)
		cJSON_AddNumberToObject(o, "incomplete_inputs", (double)b->stats.cut);
	cJSON *w = cJSON_AddArrayToObject(o, "warnings");
	for (size_t i = 0; i < b->warnings.list.n; i++)
		cJSON_AddItemToArray(w, cJSON_CreateString(b->warnings.list.v[i]));
	if (b->warnings.dropped) {
		char tmp[96];
		snprintf(tmp, sizeof tmp, "%zu more warnings not shown", b->warnings.dropped);
		cJSON_AddItemToArray(w, cJSON_CreateString(tmp));
		cJSON_AddNumberToObject(o, "warnings_dropped", (double)b->warnings.dropped);
	}
	cJSON_AddItemToObject(o, "facts", cJSON_Duplicate(b->facts, 1));
	cJSON_AddItemToObject(o, "ranks", ranks_to_json(b->ranks));
	cJSON_AddItemToObject(o, "communicators", ranks_comms_json(b->ranks)); /* ranks */
	cJSON_AddItemToObject(o, "next_steps", next_steps_json(b));            /* ranks */
	cJSON *diags = cJSON_AddArrayToObject(o, "diagnoses");
	for (size_t i = 0; i < b->ndiags; i++)
		cJSON_AddItemToArray(diags, diagnosis_json(b, &b->diags[i], evmax));
	cJSON *fl = cJSON_AddArrayToObject(o, "unexplained");
	for (size_t i = 0; i < b->nfailures; i++) {
		cJSON *f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "kind", b->failures[i].what);
		cJSON_AddStringToObject(f, "path", b->failures[i].path);
		cJSON_AddNumberToObject(f, "line", (double)b->failures[i].line);
		cJSON_AddStringToObject(f, "text", b->failures[i].text);
		if (b->failures[i].cut) {
			cJSON_AddBoolToObject(f, "cut", 1);
			cJSON_AddNumberToObject(f, "length", (double)b->failures[i].length);
		}
		cJSON_AddItemToArray(fl, f);
	}
	cJSON_AddNumberToObject(o, "unexplained_total", (double)b->failure_count);
	/* every string that reaches JSON, SARIF, JUnit or HTML is valid UTF-8,
	 * whatever module put it in (the last line of defence: modules sanitise
	 * what they take from the input themselves) */
	report_json_fix_utf8(o->child);
	return o;
}

cJSON *report_header_json(const struct sigdb *db)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddNumberToObject(root, "schema_version", 1);
	cJSON *tool = cJSON_AddObjectToObject(root, "tool");
	cJSON_AddStringToObject(tool, "name", "nccl-triage");
	cJSON_AddStringToObject(tool, "version", NT_VERSION);
	cJSON *dbo = cJSON_AddObjectToObject(root, "db");
	cJSON_AddStringToObject(dbo, "version", db->version);
	cJSON_AddNumberToObject(dbo, "signatures", (double)db->nsigs);
	cJSON_AddNumberToObject(dbo, "diagnoses", (double)db->ndiags);
	return root;
}

cJSON *report_json(struct bundle *const *bundles, size_t n, const struct sigdb *db, size_t evidence_max)
{
	cJSON *root = report_header_json(db);
	cJSON *arr = cJSON_AddArrayToObject(root, "bundles");
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, report_bundle_json(bundles[i], evidence_max));
	return root;
}

void report_warnings(const cJSON *bundle, size_t *n, size_t *dropped)
{
	double d = 0;
	json_num(bundle, "warnings_dropped", &d);
	*dropped = d > 0 ? (size_t)d : 0;
	size_t all = (size_t)json_size(json_get(bundle, "warnings"));
	*n = *dropped && all ? all - 1 : all; /* the last says how many more */
}

/* ---- evidence items for the renderers ---- */

int report_ev_derived(const cJSON *e)
{
	const char *k = json_str(e, "kind");
	return k && !strcmp(k, "derived");
}

static void loc_add(struct buf *b, const cJSON *it)
{
	const char *p = json_str(it, "path");
	double l = 0;
	json_num(it, "line", &l);
	if (!p || !*p)
		return;
	buf_printf(b, "%s%s", b->len ? ", " : "", p);
	if (l >= 1)
		buf_printf(b, ":%.0f", l);
}

char *report_ev_from(const cJSON *e)
{
	struct buf b;
	buf_init(&b);
	const cJSON *from = json_get(e, "from"), *it;
	if (cJSON_IsArray(from)) {
		cJSON_ArrayForEach(it, from)
			loc_add(&b, it);
	} else {
		loc_add(&b, e);
	}
	return buf_steal(&b);
}

char *report_ev_cut_note(const cJSON *e)
{
	double n = 0;
	if (!cJSON_IsTrue(json_get(e, "cut")))
		return xstrdup("");
	if (json_num(e, "length", &n) && n > 0)
		return xasprintf(" (cut from %.0f bytes)", n);
	return xstrdup(" (cut)");
}

/* ---- the proposal of every format ---- */

/* word, in single quotes when a POSIX shell would need them */
static void shell_word(struct buf *b, const char *word)
{
	int plain = *word != 0;
	for (const char *p = word; *p && plain; p++)
		plain = isalnum((unsigned char)*p) || strchr("_.,:/=^+@%-", *p);
	if (plain) {
		buf_adds(b, word);
		return;
	}
	buf_addc(b, '\'');
	for (const char *p = word; *p; p++) {
		if (*p == '\'')
			buf_adds(b, "'\\''");
		else
			buf_addc(b, *p);
	}
	buf_addc(b, '\'');
}

char *verify_env_arg(const char *key, const char *value)
{
	struct buf b;
	buf_init(&b);
	if (!value || !*value) {
		buf_adds(&b, " --unset ");
		shell_word(&b, key);
	} else {
		char *kv = xasprintf("%s=%s", key, value);
		buf_adds(&b, " --env ");
		shell_word(&b, kv);
		free(kv);
	}
	return buf_steal(&b);
}
