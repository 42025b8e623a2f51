/* report_json.c - the JSON contract (see docs/json.md and DESIGN). */
#include "report/report.h"
#include "parse/linekw.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/bundle.h"
#include "engine/correlate.h"
#include "base/json.h"
#include "engine/hypotheses.h"
#include "engine/nextsteps.h" /* ranks */
#include "parse/ranks.h"
#include "parse/flight.h"
#include "match/sigdb.h"
#include "base/util.h"

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

/* "captures": each name once, its first value */
static void captures_json(cJSON *o, const struct evidence *e)
{
	if (!e->ncaps)
		return;
	cJSON *c = cJSON_AddObjectToObject(o, "captures");
	for (size_t i = 0; i < e->ncaps; i++)
		if (!cJSON_GetObjectItemCaseSensitive(c, e->caps[i].name))
			cJSON_AddStringToObject(c, e->caps[i].name, e->caps[i].value);
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
	captures_json(o, e);
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

/* A template of the database without this run's values: a parenthesis
 * that holds a placeholder goes ("... timeout ({op}, SeqNum {seq})" ->
 * "... timeout"), any other {placeholder} becomes "…".  What CI formats
 * name a test or a rule by, so that history holds from run to run. */
static char *fixed_text(const char *t)
{
	struct buf b;
	buf_init(&b);
	for (const char *p = t; *p;) {
		if (*p == '(' || (*p == ' ' && p[1] == '(')) {
			const char *q = p + (*p == ' ' ? 1 : 0), *r = q;
			int depth = 0, ph = 0;
			for (; *r; r++) {
				depth += *r == '(';
				depth -= *r == ')';
				ph |= *r == '{';
				if (!depth)
					break;
			}
			if (*r == ')' && ph) {
				p = r + 1;
				continue;
			}
		}
		if (*p == '{') {
			const char *r = strchr(p, '}');
			if (r) {
				buf_adds(&b, "\xe2\x80\xa6");
				p = r + 1;
				continue;
			}
		}
		/* *p as it is, and the bytes after it up to the next that the
		 * tests above look at ('(', " (", '{'): one copy */
		const char *r = p + 1;
		while (*r && *r != '(' && *r != '{' && !(*r == ' ' && r[1] == '('))
			r++;
		buf_add(&b, p, (size_t)(r - p));
		p = r;
	}
	return buf_steal(&b);
}

/* The launchers the bundle shows: torchrun's elastic agent output, and
 * evidence of a launcher's own messages (signature ids name it: "vllm."...,
 * "launch.ray_", "launch.slurm_", "launch.mpi_", "launch.k8s_"), MPI's
 * ompi_info, a Kubernetes pod's host name (".svc.cluster.local"). */
static unsigned bundle_launchers(const struct bundle *b)
{
	/* LAUNCHERS[4..]: the token of their ids */
	static const char *const TOKEN[] = {NULL, NULL, NULL, NULL, ".ray_", ".slurm_", ".mpi_", ".k8s_"};
	unsigned m = 0;
	if (b->ranks && b->ranks->saw_launcher)
		m |= 1u << 0; /* torchrun: LAUNCHERS[0] */
	for (size_t i = 0; i < b->ev.ncounts; i++) {
		const char *id = b->ev.counts[i].id;
		if (!b->ev.counts[i].count)
			continue;
		for (unsigned k = 0; LAUNCHERS[k]; k++)
			if (k < sizeof TOKEN / sizeof TOKEN[0] && (TOKEN[k] ? strstr(id, TOKEN[k]) != NULL : strstr(id, LAUNCHERS[k]) != NULL))
				m |= 1u << k;
		if (str_starts(id, "c10d.elastic"))
			m |= 1u << 0;
	}
	if (json_get(b->facts, "mpi"))
		m |= 1u << 6;
	for (size_t i = 0; b->ranks && i < b->ranks->n; i++) {
		const char *h = b->ranks->v[i].launcher_host ? b->ranks->v[i].launcher_host : b->ranks->v[i].host;
		if (h && strstr(h, ".svc.cluster.local"))
			m |= 1u << 7;
	}
	return m;
}

/* A fix step for some launchers only: shown unless the bundle shows that
 * another launcher ran the job (no vLLM advice on a torchrun job). */
static int fix_applies(const char *only, unsigned seen)
{
	if (!only || !*only || !seen)
		return 1;
	for (unsigned k = 0; LAUNCHERS[k]; k++) {
		if (!(seen & (1u << k)))
			continue;
		size_t n = strlen(LAUNCHERS[k]);
		for (const char *p = only; (p = strstr(p, LAUNCHERS[k])); p += n)
			if ((p == only || p[-1] == ',') && (p[n] == ',' || !p[n]))
				return 1;
	}
	return 0;
}

/* A reference a reader can follow: a public source (a URL, "NCCL 2.28.9
 * src/...", a PyTorch file), never a path of this repository (a fixture,
 * a test, the project's own notes). */
static int reference_public(const char *r)
{
	static const char *const PRIVATE[] = {"fixtures/", "tests/", "patterns/", "docs/", "../shared/", "shared/",
	                                      "nccl-reference.md", "DESIGN.md", "TAXONOMY.md", NULL};
	if (str_starts(r, "https://") || str_starts(r, "http://"))
		return 1;
	for (const char *const *p = PRIVATE; *p; p++)
		if (str_starts(r, *p))
			return 0;
	return 1;
}

/* What a diagnosis's object starts with (all that a summary reads of it,
 * with its evidence's captures) */
static cJSON *diagnosis_head_json(const struct diagnosis *d)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "id", d->def->id);
	cJSON_AddStringToObject(o, "category", d->def->category);
	if (d->def->derived)
		cJSON_AddBoolToObject(o, "derived", 1); /* docs/derived.md */
	cJSON_AddStringToObject(o, "severity", severity_name(d->def->severity));
	cJSON_AddStringToObject(o, "role", role_name(d->role));
	return o;
}

/* launchers: bundle_launchers(b), once per report (it walks every evidence id) */
static cJSON *diagnosis_json(const struct bundle *b, const struct diagnosis *d, size_t evmax, unsigned launchers)
{
	cJSON *o = diagnosis_head_json(d);
	if (d->echo_of)
		cJSON_AddStringToObject(o, "echo_of", d->echo_of);
	if (d->supports)
		cJSON_AddStringToObject(o, "supports", d->supports);
	/* two decimals: stable text across platforms */
	cJSON_AddNumberToObject(o, "confidence", (double)(long)(d->confidence * 100 + 0.5) / 100.0);
	cJSON_AddStringToObject(o, "title", d->title);
	char *ft = fixed_text(d->def->title);
	cJSON_AddStringToObject(o, "fixed_title", ft);
	free(ft);
	cJSON_AddStringToObject(o, "explanation", d->explanation);
	ft = fixed_text(d->def->explanation);
	cJSON_AddStringToObject(o, "fixed_explanation", ft);
	free(ft);
	cJSON *fix = cJSON_AddArrayToObject(o, "fix");
	for (size_t i = 0; i < d->def->fix.n; i++) {
		if (i < d->def->fix_launchers.n && !fix_applies(d->def->fix_launchers.v[i], launchers))
			continue;
		char *s = render_template(d->def->fix.v[i], b, d);
		cJSON_AddItemToArray(fix, cJSON_CreateString(s));
		free(s);
	}
	/* every step as the database states it (fixed_text), whichever launcher
	 * ran this job: what SARIF's rule help says, the same in every run */
	cJSON *ffix = cJSON_AddArrayToObject(o, "fixed_fix");
	for (size_t i = 0; i < d->def->fix.n; i++) {
		const char *only = i < d->def->fix_launchers.n ? d->def->fix_launchers.v[i] : "";
		char *s = fixed_text(d->def->fix.v[i]);
		if (!strcmp(s, "\xe2\x80\xa6")) { /* a step that is only a value of the run ({host_fix}) */
			free(s);
			continue;
		}
		if (*only) {
			struct buf w;
			buf_init(&w);
			buf_printf(&w, "%s (for ", s);
			for (const char *p = only; *p; p++)
				buf_adds(&w, *p == ',' ? ", " : (char[]){*p, 0});
			buf_adds(&w, " jobs)");
			free(s);
			s = buf_steal(&w);
		}
		cJSON_AddItemToArray(ffix, cJSON_CreateString(s));
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
	cJSON *r = NULL;
	for (size_t i = 0; i < d->def->references.n; i++) {
		if (!reference_public(d->def->references.v[i]))
			continue;
		if (!r)
			r = cJSON_AddArrayToObject(o, "references");
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

static void inputs_json(cJSON *o, const struct bundle *b)
{
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
}

cJSON *report_bundle_summary_json(const struct bundle *b)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", b->name);
	cJSON_AddStringToObject(o, "verdict", verdict_name(b->verdict));
	inputs_json(o, b);
	cJSON *fr = flight_json(b->flight);
	if (fr)
		cJSON_AddItemToObject(o, "flight_recorder", fr);
	cJSON *diags = cJSON_AddArrayToObject(o, "diagnoses");
	for (size_t i = 0; i < b->ndiags; i++) {
		const struct diagnosis *d = &b->diags[i];
		cJSON *dj = diagnosis_head_json(d);
		/* the fingerprints read the captures of root diagnoses only
		 * (summary_add_bundle): the others' evidence is left out */
		cJSON *ev = d->role == ROLE_ROOT ? cJSON_AddArrayToObject(dj, "evidence") : NULL;
		for (size_t k = 0; ev && k < d->nev && k < REPORT_EVIDENCE_MAX; k++) {
			cJSON *e = cJSON_CreateObject();
			captures_json(e, &b->ev.v[d->ev[k]]);
			cJSON_AddItemToArray(ev, e);
		}
		cJSON_AddItemToArray(diags, dj);
	}
	/* the kinds, and an exception's text: the summary fingerprints an
	 * unknown failure by its telling line's exception class (summary.c) */
	cJSON *fl = cJSON_AddArrayToObject(o, "unexplained");
	for (size_t i = 0; i < b->nfailures; i++) {
		cJSON *f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "kind", b->failures[i].what);
		if (!strcmp(b->failures[i].what, "exception"))
			cJSON_AddStringToObject(f, "text", b->failures[i].text);
		cJSON_AddItemToArray(fl, f);
	}
	report_json_fix_utf8(o->child); /* as report_bundle_json: the same strings */
	return o;
}

/* The bundle's object, with facts (the bundle's tree or a copy: the
 * object owns it) as its "facts". */
static cJSON *bundle_json(const struct bundle *b, size_t evidence_max, cJSON *facts)
{
	size_t evmax = evidence_max ? evidence_max : REPORT_EVIDENCE_MAX;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", b->name);
	cJSON_AddStringToObject(o, "verdict", verdict_name(b->verdict));
	if (b->verdict_reason)
		cJSON_AddStringToObject(o, "verdict_reason", b->verdict_reason);
	inputs_json(o, b);
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
	cJSON_AddItemToObject(o, "facts", facts);
	/* the launchers the bundle shows (fix steps for another launcher are left out) */
	unsigned lm = bundle_launchers(b);
	if (lm) {
		cJSON *la = cJSON_AddArrayToObject(o, "launchers");
		for (unsigned k = 0; LAUNCHERS[k]; k++)
			if (lm & (1u << k))
				cJSON_AddItemToArray(la, cJSON_CreateString(LAUNCHERS[k]));
	}
	cJSON_AddItemToObject(o, "ranks", ranks_to_json(b->ranks));
	cJSON_AddItemToObject(o, "communicators", ranks_comms_json(b->ranks)); /* ranks */
	cJSON_AddItemToObject(o, "next_steps", next_steps_json(b));            /* ranks */
	cJSON_AddItemToObject(o, "hypotheses", hypotheses_json(b));
	cJSON *fr = flight_json(b->flight); /* docs/json.md "flight_recorder" */
	if (fr)
		cJSON_AddItemToObject(o, "flight_recorder", fr);
	cJSON *diags = cJSON_AddArrayToObject(o, "diagnoses");
	for (size_t i = 0; i < b->ndiags; i++)
		cJSON_AddItemToArray(diags, diagnosis_json(b, &b->diags[i], evmax, lm));
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
	/* the keyword tier's pick, for every bundle, whether or not it became a
	 * diagnosis (docs/json.md "floor"): null when no line holds a keyword */
	const struct floorkw *fk = b->floor.kw >= 0 ? floorkw_get((size_t)b->floor.kw) : NULL;
	if (fk) {
		cJSON *fo = cJSON_AddObjectToObject(o, "floor");
		cJSON_AddStringToObject(fo, "category", fk->category);
		cJSON_AddStringToObject(fo, "keyword", fk->text);
		char *ev = xasprintf("%s:%llu", b->floor.path, (unsigned long long)b->floor.line);
		cJSON_AddStringToObject(fo, "evidence", ev);
		free(ev);
	} else {
		cJSON_AddNullToObject(o, "floor");
	}
	/* every string that reaches JSON, SARIF, JUnit or HTML is valid UTF-8,
	 * whatever module put it in (the last line of defence: modules sanitise
	 * what they take from the input themselves) */
	report_json_fix_utf8(o->child);
	return o;
}

cJSON *report_bundle_json(const struct bundle *b, size_t evidence_max)
{
	return bundle_json(b, evidence_max, cJSON_Duplicate(b->facts, 1));
}

cJSON *report_tool_json(void)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddNumberToObject(root, "schema_version", 1);
	cJSON *tool = cJSON_AddObjectToObject(root, "tool");
	cJSON_AddStringToObject(tool, "name", "nccl-triage");
	cJSON_AddStringToObject(tool, "version", NT_VERSION);
	return root;
}

cJSON *report_header_json(const struct sigdb *db)
{
	cJSON *root = report_tool_json();
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
	for (size_t i = 0; i < n; i++) {
		/* the facts move: no second tree of them (an error-dense bundle's
		 * are ~70000 cJSON blocks, 3-4 MB at the peak of analyze) */
		cJSON_AddItemToArray(arr, bundle_json(bundles[i], evidence_max, bundles[i]->facts));
		bundles[i]->facts = NULL;
	}
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

const cJSON *report_telling_unexplained(const cJSON *un)
{
	static const char *const ORDER[] = {"exception", "crash", "nccl_warn", "nccl_error", "nccl_tests",
	                                    "component_error", "library_error", "watchdog", "health_check",
	                                    "killed", "exit_code", NULL};
	const cJSON *best = cJSON_GetArrayItem(un, 0), *u;
	size_t best_rank = SIZE_MAX;
	cJSON_ArrayForEach(u, un) {
		const char *k = json_strz(u, "kind");
		for (size_t i = 0; ORDER[i] && i < best_rank; i++)
			if (!strcmp(k, ORDER[i])) {
				best = u;
				best_rank = i;
				break;
			}
	}
	return best;
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

int report_ev_in_explanation(const cJSON *d, const cJSON *e)
{
	const char *x = json_str(d, "explanation"), *t = json_str(e, "text");
	return x && t && strlen(t) >= 40 && !cJSON_IsTrue(json_get(e, "cut")) && strstr(x, t) != NULL;
}

/* ---- CI: exit status and --quiet-info ---- */

int report_fails(const cJSON *bundle, const char *fail_on)
{
	const char *v = json_str(bundle, "verdict");
	int unknown = v && !strcmp(v, "unknown_failure");
	if (!fail_on)
		return unknown || (v && !strcmp(v, "diagnosed"));
	if (!strcmp(fail_on, "never"))
		return 0;
	if (unknown)
		return 1;
	int warn = !strcmp(fail_on, "warning");
	const cJSON *d;
	cJSON_ArrayForEach(d, json_get(bundle, "diagnoses")) {
		const char *sev = json_str(d, "severity");
		if (sev && (!strcmp(sev, "error") || (warn && !strcmp(sev, "warning"))))
			return 1;
	}
	return 0;
}

static void drop_info_bundle(cJSON *b)
{
	cJSON *diags = cJSON_GetObjectItemCaseSensitive(b, "diagnoses");
	for (cJSON *d = diags ? diags->child : NULL, *next; d; d = next) {
		next = d->next;
		const char *sev = json_str(d, "severity");
		if (sev && !strcmp(sev, "info"))
			cJSON_Delete(cJSON_DetachItemViaPointer(diags, d));
	}
}

void report_drop_info(cJSON *doc)
{
	cJSON *arr = cJSON_IsArray(doc) ? doc : cJSON_GetObjectItemCaseSensitive(doc, "bundles"), *b;
	if (!arr && cJSON_IsObject(doc)) {
		drop_info_bundle(doc);
		return;
	}
	cJSON_ArrayForEach(b, arr)
		drop_info_bundle(b);
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
