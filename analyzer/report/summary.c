/* summary.c - see summary.h.  Counters live in small string-keyed hash
 * tables; nothing is sorted until output, and every sort is a total order
 * (count descending, then key), so the result never depends on the order in
 * which bundles were added or on how they were split across shards. */
#include "report/summary.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#include "base/hash.h"
#include "base/json.h"
#include "report/report.h" /* report_telling_unexplained */

/* ---- a string-keyed table of counters ---- */

struct entry {
	char *key;
	uint64_t bundles;            /* bundles it occurs in */
	uint64_t hits;               /* lines, or bundles as root */
	/* fingerprints only */
	char *diag, *category;
	cJSON *caps;                 /* object name -> value, names sorted */
	char *ex[SUMMARY_EXAMPLES];  /* smallest bundle names, sorted */
	size_t nex;
};

struct table {
	struct entry *v;
	size_t n, cap;
	struct hindex ix;
	uint64_t work;               /* probes */
};

static int entry_hash(const void *ctx, size_t i, uint64_t *h)
{
	const struct table *t = ctx;
	*h = hash_str(HASH_SEED, t->v[i].key);
	return 1;
}

/* s when it is printable ASCII already (what batch writes), else NULL:
 * strings from a JSONL file may hold ESC, OSC, C1 controls. */
static int clean(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return 0;
	return 1;
}

/* A copy of s as it may be printed (util.h: str_sanitize). */
static char *clean_dup(const char *s)
{
	return clean(s) ? xstrdup(s) : str_sanitize(s, strlen(s));
}

/* The entry for key (sanitised first), created (zeroed) when absent;
 * *created tells which. */
static struct entry *table_get(struct table *t, const char *key, int *created)
{
	if (created)
		*created = 0;
	char *cl = clean(key) ? NULL : str_sanitize(key, strlen(key));
	if (cl)
		key = cl;
	uint64_t h = hash_str(HASH_SEED, key);
	if (t->ix.nslot)
		for (size_t s = hindex_first(&t->ix, h); t->ix.slot[s]; s = hindex_next(&t->ix, s)) {
			struct entry *e = &t->v[t->ix.slot[s] - 1];
			t->work++;
			if (strcmp(e->key, key) == 0) {
				free(cl);
				return e;
			}
		}
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->v = xrealloc(t->v, t->cap * sizeof *t->v);
	}
	struct entry *e = &t->v[t->n++];
	memset(e, 0, sizeof *e);
	e->key = cl ? cl : xstrdup(key);
	if (created)
		*created = 1;
	if (hindex_crowded(&t->ix, t->n))
		hindex_grow(&t->ix, t->n, entry_hash, t);
	else
		hindex_put(&t->ix, h, t->n - 1);
	return e;
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct entry *e = &t->v[i];
		free(e->key);
		free(e->diag);
		free(e->category);
		cJSON_Delete(e->caps);
		for (size_t k = 0; k < e->nex; k++)
			free(e->ex[k]);
	}
	free(t->v);
	hindex_free(&t->ix);
	memset(t, 0, sizeof *t);
}

/* Keep the SUMMARY_EXAMPLES smallest names (strcmp order, no duplicates). */
static void example_add(struct entry *e, const char *name0)
{
	char *name = clean_dup(name0);
	size_t pos = 0;
	while (pos < e->nex) {
		int c = strcmp(name, e->ex[pos]);
		if (c == 0) {
			free(name);
			return;
		}
		if (c < 0)
			break;
		pos++;
	}
	if (pos >= SUMMARY_EXAMPLES) {
		free(name);
		return;
	}
	if (e->nex == SUMMARY_EXAMPLES) {
		free(e->ex[SUMMARY_EXAMPLES - 1]);
		e->nex--;
	}
	memmove(&e->ex[pos + 1], &e->ex[pos], (e->nex - pos) * sizeof *e->ex);
	e->ex[pos] = name;
	e->nex++;
}

/* ---- the summary ---- */

enum { V_HEALTHY, V_DIAGNOSED, V_UNKNOWN, V_NO_EVIDENCE, V_UNREADABLE, V_N };
static const char *const VNAMES[V_N] = {"healthy", "diagnosed", "unknown_failure", "no_evidence", "unreadable"};

struct error_item {
	char *bundle, *error;
	uint64_t count;
};

struct summary {
	uint64_t bundles, documents, bytes, with_errors;
	uint64_t bad_numbers;  /* counts in the JSON that were negative, not finite or over 2^53 */
	uint64_t work;         /* table probes (tests bound it) */
	uint64_t verdicts[V_N];
	struct table categories, diagnoses, evidence, fingerprints;
	struct table flight;        /* flight_recorder.headline of each bundle: the dumps' contribution */
	struct error_item *errors;
	size_t nerrors, caperrors;
	char *db_version;   /* NULL: not known; "mixed" when summaries disagree */
	double db_signatures;
};

struct summary *summary_new(void)
{
	return xcalloc(1, sizeof(struct summary));
}

void summary_free(struct summary *s)
{
	if (!s)
		return;
	table_free(&s->categories);
	table_free(&s->diagnoses);
	table_free(&s->evidence);
	table_free(&s->fingerprints);
	table_free(&s->flight);
	for (size_t i = 0; i < s->nerrors; i++) {
		free(s->errors[i].bundle);
		free(s->errors[i].error);
	}
	free(s->errors);
	free(s->db_version);
	free(s);
}

uint64_t summary_bad_numbers(const struct summary *s)
{
	return s->bad_numbers;
}

uint64_t summary_work(const struct summary *s)
{
	return s->work + s->categories.work + s->diagnoses.work + s->evidence.work + s->fingerprints.work + s->flight.work;
}

/* A count read from JSON: a number from 0 to 2^53 (a double holds it
 * exactly); anything else is 0, counted in bad_numbers (a cast of -5, 1e300
 * or inf to uint64_t is undefined, and printed 18446744073709551611). */
static uint64_t count_of(struct summary *s, const cJSON *it)
{
	if (!cJSON_IsNumber(it))
		return 0;
	double v = it->valuedouble;
	if (v >= 0 && v <= 9007199254740992.0)
		return (uint64_t)v;
	s->bad_numbers++;
	return 0;
}

/* *dst += v, saturating: a merge of hostile counts must not wrap. */
static void add_count(uint64_t *dst, uint64_t v)
{
	*dst = *dst > UINT64_MAX - v ? UINT64_MAX : *dst + v;
}

uint64_t summary_bundles(const struct summary *s)
{
	return s->bundles;
}

uint64_t summary_failed(const struct summary *s)
{
	return s->verdicts[V_DIAGNOSED] + s->verdicts[V_UNKNOWN];
}

uint64_t summary_unreadable(const struct summary *s)
{
	return s->verdicts[V_UNREADABLE];
}

void summary_set_db(struct summary *s, const char *version, double signatures)
{
	if (!version)
		return;
	char *v = clean_dup(version);
	if (!s->db_version) {
		s->db_version = v;
		s->db_signatures = signatures;
		return;
	}
	if (strcmp(s->db_version, v) != 0 || s->db_signatures != signatures) {
		free(s->db_version);
		s->db_version = xstrdup("mixed");
		s->db_signatures = 0;
	}
	free(v);
}

static void error_add(struct summary *s, const char *bundle, const char *error, uint64_t count)
{
	if (s->nerrors == s->caperrors) {
		s->caperrors = s->caperrors ? s->caperrors * 2 : 16;
		s->errors = xrealloc(s->errors, s->caperrors * sizeof *s->errors);
	}
	struct error_item *e = &s->errors[s->nerrors++];
	e->bundle = clean_dup(bundle);
	e->error = clean_dup(error);
	e->count = count;
}

static int verdict_index(const char *v)
{
	for (int i = 0; i < V_UNREADABLE; i++)
		if (strcmp(v, VNAMES[i]) == 0)
			return i;
	return -1;
}

/* ---- fingerprints ---- */

/* Capture names whose values differ from one occurrence of the same failure
 * to the next: ranks, process ids, sizes, times, counters, segment names. */
static int volatile_capture(const char *name)
{
	static const char *const exact[] = {
		"pid", "tid", "opid", "ts", "time", "timestamp", "seq", "try", "segment", "comm", "size",
		"bytes", "free", "total", "requested", "got", "want", "current", "max", "elapsed",
		"duration", "timeout", "count", "other", "local_rank", "nranks"};
	for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
		if (strcmp(name, exact[i]) == 0)
			return 1;
	/* rank, rank_a, peer_rank, pid2, ... */
	if (strncmp(name, "rank", 4) == 0 || strstr(name, "_rank") || strncmp(name, "pid", 3) == 0 ||
	    str_ends(name, "_pid") || str_ends(name, "_bytes") || str_ends(name, "_size") || str_ends(name, "_ms") ||
	    str_ends(name, "_time"))
		return 1;
	return 0;
}

#define FP_VALUE_MAX 120

static int cmp_entry_key(const void *a, const void *b)
{
	return strcmp((*(const struct entry *const *)a)->key, (*(const struct entry *const *)b)->key);
}

cJSON *summary_key_captures(const cJSON *diag)
{
	/* name -> its first value (in diag); hits = 1: seen with another value.
	 * Hashed: a diagnosis of a JSONL line may carry any number. */
	struct table keys = {0};
	const cJSON *ev = cJSON_GetObjectItemCaseSensitive(diag, "evidence"), *e;
	cJSON_ArrayForEach(e, ev) {
		const cJSON *caps = cJSON_GetObjectItemCaseSensitive(e, "captures"), *c;
		cJSON_ArrayForEach(c, caps) {
			if (!c->string || !cJSON_IsString(c) || volatile_capture(c->string))
				continue;
			char val[FP_VALUE_MAX + 1];
			snprintf(val, sizeof val, "%s", c->valuestring);
			int created;
			struct entry *k = table_get(&keys, c->string, &created);
			if (created)
				k->diag = xstrdup(val);
			else if (!k->hits && strcmp(k->diag, val) != 0)
				k->hits = 1;
		}
	}
	/* the names of one value, sorted by name */
	struct entry **v = xmalloc((keys.n + 1) * sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < keys.n; i++)
		if (!keys.v[i].hits)
			v[n++] = &keys.v[i];
	xqsort(v, n, sizeof *v, cmp_entry_key);
	cJSON *out = cJSON_CreateObject();
	for (size_t i = 0; i < n; i++)
		cJSON_AddStringToObject(out, v[i]->key, v[i]->diag);
	free(v);
	table_free(&keys);
	return out;
}

/* "diag|name=value|name=value" */
static char *fingerprint_key(const char *diag, const cJSON *caps)
{
	struct buf b;
	buf_init(&b);
	buf_adds(&b, diag);
	const cJSON *c;
	cJSON_ArrayForEach(c, caps) {
		buf_addc(&b, '|');
		buf_adds(&b, c->string);
		buf_addc(&b, '=');
		buf_adds(&b, cJSON_IsString(c) ? c->valuestring : "");
	}
	return buf_steal(&b);
}

/* caps with printable names and values (caps_clean: from a JSONL file). */
static cJSON *caps_clean(cJSON *caps)
{
	cJSON *c;
	cJSON_ArrayForEach(c, caps) {
		if (c->string && !(c->type & cJSON_StringIsConst) && !clean(c->string)) {
			char *t = str_sanitize(c->string, strlen(c->string));
			free(c->string);
			c->string = t;
		}
		if (cJSON_IsString(c) && c->valuestring && !(c->type & cJSON_IsReference) && !clean(c->valuestring)) {
			char *t = str_sanitize(c->valuestring, strlen(c->valuestring));
			free(c->valuestring);
			c->valuestring = t;
		}
	}
	return caps;
}

/* The class an exception line names ("torch.distributed.DistBackendError:
 * ...", "ValueError"): a dotted identifier ending at ':' or the line's end;
 * 0 when the line does not start with one. */
static size_t exception_class(const char *t)
{
	size_t i = 0;
	while (isalnum((unsigned char)t[i]) || t[i] == '_' || (t[i] == '.' && i > 0 && t[i + 1] && t[i + 1] != '.'))
		i++;
	if (i == 0 || isdigit((unsigned char)t[0]) || (t[i] && t[i] != ':'))
		return 0;
	return i;
}

/* Count one fingerprint for one bundle.  caps is taken over. */
static void fingerprint_add(struct summary *s, const char *diag, const char *category, cJSON *caps,
                            uint64_t bundles, const char *const *ex, size_t nex)
{
	char *key = fingerprint_key(diag, caps);
	int created;
	struct entry *e = table_get(&s->fingerprints, key, &created);
	free(key);
	if (created) {
		e->diag = clean_dup(diag);
		e->category = clean_dup(category ? category : "");
		e->caps = caps_clean(caps);
	} else {
		cJSON_Delete(caps);
	}
	add_count(&e->bundles, bundles);
	for (size_t i = 0; i < nex; i++)
		example_add(e, ex[i]);
}

/* ---- adding a bundle ---- */

int summary_add_bundle(struct summary *s, const cJSON *b)
{
	const char *name = json_str(b, "name"), *verdict = json_str(b, "verdict");
	if (!name || !verdict)
		return -1;
	s->bundles++;
	const cJSON *readable = cJSON_GetObjectItemCaseSensitive(b, "readable");
	int vi = cJSON_IsFalse(readable) ? V_UNREADABLE : verdict_index(verdict);
	if (vi < 0)
		vi = V_NO_EVIDENCE;
	s->verdicts[vi]++;

	const cJSON *inputs = cJSON_GetObjectItemCaseSensitive(b, "inputs"), *it;
	cJSON_ArrayForEach(it, inputs) {
		s->documents++;
		const cJSON *by = cJSON_GetObjectItemCaseSensitive(it, "bytes");
		add_count(&s->bytes, count_of(s, by));
	}

	const cJSON *errs = cJSON_GetObjectItemCaseSensitive(b, "input_errors");
	int nerr = cJSON_GetArraySize(errs);
	if (nerr > 0) {
		s->with_errors++;
		const cJSON *first = cJSON_GetArrayItem(errs, 0);
		error_add(s, name, cJSON_IsString(first) ? first->valuestring : "?", (uint64_t)nerr);
	}

	const cJSON *diags = cJSON_GetObjectItemCaseSensitive(b, "diagnoses"), *d;
	/* primary category: the first root diagnosis, else the first one */
	if (vi == V_DIAGNOSED) {
		const cJSON *primary = NULL;
		cJSON_ArrayForEach(d, diags) {
			const char *role = json_str(d, "role");
			if (role && strcmp(role, "root") == 0) {
				primary = d;
				break;
			}
		}
		if (!primary)
			primary = cJSON_GetArrayItem(diags, 0);
		const char *cat = primary ? json_str(primary, "category") : NULL;
		if (cat)
			table_get(&s->categories, cat, NULL)->bundles++;
	}
	/* diagnoses (each id once per bundle) and fingerprints of root
	 * diagnoses (each once per bundle): hashed, a line may hold 80000 */
	struct table seen = {0}, fps = {0};
	cJSON_ArrayForEach(d, diags) {
		const char *id = json_str(d, "id"), *role = json_str(d, "role");
		if (!id)
			continue;
		int root = role && strcmp(role, "root") == 0, created;
		table_get(&seen, id, &created);
		if (created) {
			struct entry *e = table_get(&s->diagnoses, id, NULL);
			e->bundles++;
			e->hits += root;
		}
		if (!root)
			continue;
		cJSON *caps = summary_key_captures(d);
		char *key = fingerprint_key(id, caps);
		table_get(&fps, key, &created);
		if (!created)
			cJSON_Delete(caps);
		else
			fingerprint_add(s, id, json_str(d, "category"), caps, 1, &name, 1);
		free(key);
	}
	s->work += seen.work + fps.work;
	table_free(&seen);
	table_free(&fps);
	/* an unknown failure has no diagnosis: fingerprint it by its telling
	 * line (the one the reports quote), its kind and, for an exception, its
	 * class: archives that die of the same unknown exception group */
	if (vi == V_UNKNOWN) {
		cJSON *caps = cJSON_CreateObject();
		const cJSON *un = report_telling_unexplained(cJSON_GetObjectItemCaseSensitive(b, "unexplained"));
		const char *kind = un ? json_str(un, "kind") : NULL;
		if (kind)
			cJSON_AddStringToObject(caps, "kind", kind);
		size_t cn = kind && !strcmp(kind, "exception") ? exception_class(json_strz(un, "text")) : 0;
		if (cn) {
			char *cls = xstrndup(json_strz(un, "text"), cn);
			cJSON_AddStringToObject(caps, "exception", cls);
			free(cls);
		}
		fingerprint_add(s, "(unknown_failure)", "", caps, 1, &name, 1);
	}

	/* what the flight-recorder dumps say ("hang: rank 17 behind at all_gather #4212 in fsdp.py:88") */
	const char *fh = json_str(cJSON_GetObjectItemCaseSensitive(b, "flight_recorder"), "headline");
	if (fh) {
		struct entry *e = table_get(&s->flight, fh, NULL);
		e->bundles++;
		example_add(e, name);
	}

	const cJSON *counts = cJSON_GetObjectItemCaseSensitive(b, "evidence_counts");
	cJSON_ArrayForEach(it, counts) {
		if (!it->string || !cJSON_IsNumber(it))
			continue;
		struct entry *e = table_get(&s->evidence, it->string, NULL);
		e->bundles++;
		add_count(&e->hits, count_of(s, it));
	}
	return 0;
}

/* ---- merging ---- */

static void table_merge(struct table *dst, const struct table *src)
{
	for (size_t i = 0; i < src->n; i++) {
		struct entry *e = table_get(dst, src->v[i].key, NULL);
		add_count(&e->bundles, src->v[i].bundles);
		add_count(&e->hits, src->v[i].hits);
	}
}

void summary_merge(struct summary *dst, const struct summary *src)
{
	add_count(&dst->bundles, src->bundles);
	add_count(&dst->documents, src->documents);
	add_count(&dst->bytes, src->bytes);
	add_count(&dst->with_errors, src->with_errors);
	dst->bad_numbers += src->bad_numbers;
	for (int i = 0; i < V_N; i++)
		add_count(&dst->verdicts[i], src->verdicts[i]);
	table_merge(&dst->categories, &src->categories);
	table_merge(&dst->diagnoses, &src->diagnoses);
	table_merge(&dst->evidence, &src->evidence);
	for (size_t i = 0; i < src->fingerprints.n; i++) {
		const struct entry *f = &src->fingerprints.v[i];
		fingerprint_add(dst, f->diag, f->category, cJSON_Duplicate(f->caps, 1), f->bundles,
		                (const char *const *)f->ex, f->nex);
	}
	for (size_t i = 0; i < src->nerrors; i++)
		error_add(dst, src->errors[i].bundle, src->errors[i].error, src->errors[i].count);
	for (size_t i = 0; i < src->flight.n; i++) {
		struct entry *e = table_get(&dst->flight, src->flight.v[i].key, NULL);
		add_count(&e->bundles, src->flight.v[i].bundles);
		for (size_t k = 0; k < src->flight.v[i].nex; k++)
			example_add(e, src->flight.v[i].ex[k]);
	}
	if (src->db_version)
		summary_set_db(dst, src->db_version, src->db_signatures);
}

/* ---- output ---- */

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = *(const struct entry *const *)a, *y = *(const struct entry *const *)b;
	if (x->bundles != y->bundles)
		return x->bundles > y->bundles ? -1 : 1;
	if (x->hits != y->hits)
		return x->hits > y->hits ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* Entries sorted: most bundles first, then key.  Caller frees the array. */
static const struct entry **sorted(const struct table *t)
{
	const struct entry **v = xmalloc((t->n + 1) * sizeof *v);
	for (size_t i = 0; i < t->n; i++)
		v[i] = &t->v[i];
	xqsort(v, t->n, sizeof *v, cmp_entry);
	return v;
}

static int cmp_error(const void *a, const void *b)
{
	const struct error_item *x = a, *y = b;
	int c = strcmp(x->bundle, y->bundle);
	return c ? c : strcmp(x->error, y->error);
}

static void sort_errors(const struct summary *s)
{
	/* sorting in place does not change what the summary means */
	if (s->nerrors > 1)
		xqsort(s->errors, s->nerrors, sizeof *s->errors, cmp_error);
}

cJSON *summary_json(const struct summary *s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "bundles", (double)s->bundles);
	cJSON_AddNumberToObject(o, "documents", (double)s->documents);
	cJSON_AddNumberToObject(o, "bytes", (double)s->bytes);
	cJSON *v = cJSON_AddObjectToObject(o, "verdicts");
	for (int i = 0; i < V_N; i++)
		cJSON_AddNumberToObject(v, VNAMES[i], (double)s->verdicts[i]);
	cJSON_AddNumberToObject(o, "with_input_errors", (double)s->with_errors);

	const struct entry **e = sorted(&s->categories);
	cJSON *cats = cJSON_AddObjectToObject(o, "categories");
	for (size_t i = 0; i < s->categories.n; i++)
		cJSON_AddNumberToObject(cats, e[i]->key, (double)e[i]->bundles);
	free(e);

	e = sorted(&s->diagnoses);
	cJSON *ds = cJSON_AddObjectToObject(o, "diagnoses");
	for (size_t i = 0; i < s->diagnoses.n; i++) {
		cJSON *d = cJSON_AddObjectToObject(ds, e[i]->key);
		cJSON_AddNumberToObject(d, "bundles", (double)e[i]->bundles);
		cJSON_AddNumberToObject(d, "as_root", (double)e[i]->hits);
	}
	free(e);

	e = sorted(&s->evidence);
	cJSON *es = cJSON_AddObjectToObject(o, "evidence");
	for (size_t i = 0; i < s->evidence.n; i++) {
		cJSON *d = cJSON_AddObjectToObject(es, e[i]->key);
		cJSON_AddNumberToObject(d, "bundles", (double)e[i]->bundles);
		cJSON_AddNumberToObject(d, "hits", (double)e[i]->hits);
	}
	free(e);

	e = sorted(&s->fingerprints);
	cJSON *fs = cJSON_AddArrayToObject(o, "fingerprints");
	for (size_t i = 0; i < s->fingerprints.n; i++) {
		cJSON *f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "diagnosis", e[i]->diag);
		cJSON_AddStringToObject(f, "category", e[i]->category);
		cJSON_AddItemToObject(f, "captures", cJSON_Duplicate(e[i]->caps, 1));
		cJSON_AddNumberToObject(f, "bundles", (double)e[i]->bundles);
		cJSON *ex = cJSON_AddArrayToObject(f, "examples");
		for (size_t k = 0; k < e[i]->nex; k++)
			cJSON_AddItemToArray(ex, cJSON_CreateString(e[i]->ex[k]));
		cJSON_AddItemToArray(fs, f);
	}
	free(e);

	e = sorted(&s->flight);
	cJSON *fl = cJSON_AddArrayToObject(o, "flight_recorder");
	for (size_t i = 0; i < s->flight.n; i++) {
		cJSON *f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "headline", e[i]->key);
		cJSON_AddNumberToObject(f, "bundles", (double)e[i]->bundles);
		cJSON *ex = cJSON_AddArrayToObject(f, "examples");
		for (size_t k = 0; k < e[i]->nex; k++)
			cJSON_AddItemToArray(ex, cJSON_CreateString(e[i]->ex[k]));
		cJSON_AddItemToArray(fl, f);
	}
	free(e);

	sort_errors(s);
	cJSON *errs = cJSON_AddArrayToObject(o, "input_errors");
	for (size_t i = 0; i < s->nerrors; i++) {
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "bundle", s->errors[i].bundle);
		cJSON_AddStringToObject(x, "error", s->errors[i].error);
		cJSON_AddNumberToObject(x, "count", (double)s->errors[i].count);
		cJSON_AddItemToArray(errs, x);
	}
	if (s->db_version) {
		cJSON *db = cJSON_AddObjectToObject(o, "db");
		cJSON_AddStringToObject(db, "version", s->db_version);
		cJSON_AddNumberToObject(db, "signatures", s->db_signatures);
	}
	return o;
}

static uint64_t num_item(struct summary *s, const cJSON *o, const char *name)
{
	return count_of(s, cJSON_GetObjectItemCaseSensitive(o, name));
}

int summary_add_json(struct summary *s, const cJSON *o, const char *where, struct msgs *m)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "verdicts");
	if (!cJSON_IsObject(o) || !cJSON_IsObject(v) || !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "bundles"))) {
		msgs_add(m, "%s: not a batch summary (no \"bundles\" and \"verdicts\")", where);
		return -1;
	}
	add_count(&s->bundles, num_item(s, o, "bundles"));
	add_count(&s->documents, num_item(s, o, "documents"));
	add_count(&s->bytes, num_item(s, o, "bytes"));
	add_count(&s->with_errors, num_item(s, o, "with_input_errors"));
	for (int i = 0; i < V_N; i++)
		add_count(&s->verdicts[i], num_item(s, v, VNAMES[i]));
	const cJSON *it;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "categories"))
		if (it->string)
			add_count(&table_get(&s->categories, it->string, NULL)->bundles, count_of(s, it));
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "diagnoses")) {
		if (!it->string)
			continue;
		struct entry *e = table_get(&s->diagnoses, it->string, NULL);
		add_count(&e->bundles, num_item(s, it, "bundles"));
		add_count(&e->hits, num_item(s, it, "as_root"));
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "evidence")) {
		if (!it->string)
			continue;
		struct entry *e = table_get(&s->evidence, it->string, NULL);
		add_count(&e->bundles, num_item(s, it, "bundles"));
		add_count(&e->hits, num_item(s, it, "hits"));
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "fingerprints")) {
		const char *diag = json_str(it, "diagnosis");
		if (!diag)
			continue;
		const cJSON *caps = cJSON_GetObjectItemCaseSensitive(it, "captures");
		const char *ex[SUMMARY_EXAMPLES];
		size_t nex = 0;
		const cJSON *x;
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(it, "examples"))
			if (cJSON_IsString(x) && nex < SUMMARY_EXAMPLES)
				ex[nex++] = x->valuestring;
		fingerprint_add(s, diag, json_str(it, "category"),
		                cJSON_IsObject(caps) ? cJSON_Duplicate(caps, 1) : cJSON_CreateObject(),
		                num_item(s, it, "bundles"), ex, nex);
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "flight_recorder")) {
		const char *h = json_str(it, "headline");
		if (!h)
			continue;
		struct entry *e = table_get(&s->flight, h, NULL);
		add_count(&e->bundles, num_item(s, it, "bundles"));
		const cJSON *x;
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(it, "examples"))
			if (cJSON_IsString(x))
				example_add(e, x->valuestring);
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "input_errors")) {
		const char *b = json_str(it, "bundle"), *e = json_str(it, "error");
		if (b && e)
			error_add(s, b, e, num_item(s, it, "count"));
	}
	const cJSON *db = cJSON_GetObjectItemCaseSensitive(o, "db");
	if (db) {
		const cJSON *sg = cJSON_GetObjectItemCaseSensitive(db, "signatures");
		summary_set_db(s, json_str(db, "version"), cJSON_IsNumber(sg) ? sg->valuedouble : 0);
	}
	return 0;
}

/* ---- text ---- */

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_DIM "\033[2m"
#define C_RED "\033[31m"
#define C_YELLOW "\033[33m"
#define C_GREEN "\033[32m"

#define TEXT_TOP 15
#define TEXT_ERRORS 50

static void pct(FILE *out, uint64_t n, uint64_t of)
{
	if (of)
		fprintf(out, " %5.1f%%", 100.0 * (double)n / (double)of);
}

/* A table's most frequent keys with their bundle and hit counts. */
static void top_counts(FILE *out, const struct table *t, const char *title, const char *note, int color)
{
	const char *B = color ? C_BOLD : "", *R = color ? C_RESET : "", *D = color ? C_DIM : "";
	if (!t->n)
		return;
	fprintf(out, "\n%s%s%s %s%s%s\n", B, title, R, D, note, R);
	const struct entry **e = sorted(t);
	for (size_t i = 0; i < t->n && i < TEXT_TOP; i++)
		fprintf(out, "  %-44s %8llu %8llu\n", e[i]->key, (unsigned long long)e[i]->bundles,
		        (unsigned long long)e[i]->hits);
	if (t->n > TEXT_TOP)
		fprintf(out, "  %s... %zu more (--format json)%s\n", D, t->n - TEXT_TOP, R);
	free(e);
}

void summary_text(FILE *out, const struct summary *s, int color)
{
	const char *B = color ? C_BOLD : "", *R = color ? C_RESET : "", *D = color ? C_DIM : "";
	static const char *const vcol[V_N] = {C_GREEN, C_RED, C_YELLOW, C_DIM, C_RED};
	char sz[32];
	fprintf(out, "%sSummary: %llu bundle%s, %llu document%s, %s analysed%s\n", B,
	        (unsigned long long)s->bundles, s->bundles == 1 ? "" : "s", (unsigned long long)s->documents,
	        s->documents == 1 ? "" : "s", fmt_size(s->bytes, sz, sizeof sz), R);
	if (s->db_version)
		fprintf(out, "%s  database %s, %.0f signatures%s\n", D, s->db_version, s->db_signatures, R);
	fprintf(out, "\n%sverdicts%s\n", B, R);
	static const int order[V_N] = {V_DIAGNOSED, V_UNKNOWN, V_HEALTHY, V_NO_EVIDENCE, V_UNREADABLE};
	for (int k = 0; k < V_N; k++) {
		int i = order[k];
		fprintf(out, "  %s%-18s%s %8llu", color ? vcol[i] : "", VNAMES[i], R, (unsigned long long)s->verdicts[i]);
		pct(out, s->verdicts[i], s->bundles);
		fputc('\n', out);
	}
	if (s->with_errors)
		fprintf(out, "  %-18s %8llu  (damaged or unreadable input, listed below)\n", "with input errors",
		        (unsigned long long)s->with_errors);

	if (s->categories.n) {
		fprintf(out, "\n%scategories%s %s(primary diagnosis of each diagnosed bundle)%s\n", B, R, D, R);
		const struct entry **e = sorted(&s->categories);
		for (size_t i = 0; i < s->categories.n; i++) {
			fprintf(out, "  %-26s %8llu", e[i]->key, (unsigned long long)e[i]->bundles);
			pct(out, e[i]->bundles, s->verdicts[V_DIAGNOSED]);
			fputc('\n', out);
		}
		free(e);
	}
	top_counts(out, &s->diagnoses, "diagnoses", "(bundles where found, as root cause)", color);
	top_counts(out, &s->evidence, "signatures and rules", "(bundles, matching lines)", color);
	if (s->fingerprints.n) {
		fprintf(out, "\n%smost frequent fingerprints%s %s(diagnosis and key captures: bundles, examples)%s\n", B, R, D, R);
		const struct entry **e = sorted(&s->fingerprints);
		for (size_t i = 0; i < s->fingerprints.n && i < TEXT_TOP; i++) {
			fprintf(out, "  %8llu  %s", (unsigned long long)e[i]->bundles, e[i]->diag);
			const cJSON *c;
			cJSON_ArrayForEach(c, e[i]->caps)
				fprintf(out, " %s=%s", c->string, cJSON_IsString(c) ? c->valuestring : "");
			fprintf(out, "\n            %se.g.", D);
			for (size_t k = 0; k < e[i]->nex; k++)
				fprintf(out, "%s %s", k ? "," : "", e[i]->ex[k]);
			fprintf(out, "%s\n", R);
		}
		if (s->fingerprints.n > TEXT_TOP)
			fprintf(out, "  %s... %zu more (--format json)%s\n", D, s->fingerprints.n - TEXT_TOP, R);
		free(e);
	}
	if (s->flight.n) {
		fprintf(out, "\n%sflight recorder%s %s(what the dumps say: bundles, examples)%s\n", B, R, D, R);
		const struct entry **e = sorted(&s->flight);
		for (size_t i = 0; i < s->flight.n && i < TEXT_TOP; i++) {
			fprintf(out, "  %8llu  %s\n            %se.g.", (unsigned long long)e[i]->bundles, e[i]->key, D);
			for (size_t k = 0; k < e[i]->nex; k++)
				fprintf(out, "%s %s", k ? "," : "", e[i]->ex[k]);
			fprintf(out, "%s\n", R);
		}
		if (s->flight.n > TEXT_TOP)
			fprintf(out, "  %s... %zu more (--format json)%s\n", D, s->flight.n - TEXT_TOP, R);
		free(e);
	}
	if (s->nerrors) {
		sort_errors(s);
		fprintf(out, "\n%sinput errors%s %s(the bundle was analysed as far as it could be read)%s\n", B, R, D, R);
		for (size_t i = 0; i < s->nerrors && i < TEXT_ERRORS; i++) {
			const char *msg = s->errors[i].error;
			size_t bl = strlen(s->errors[i].bundle);
			if (strncmp(msg, s->errors[i].bundle, bl) == 0 && msg[bl] == ':' && msg[bl + 1] == ' ')
				msg += bl + 2; /* the input layer names the operand already */
			fprintf(out, "  %s: %s", s->errors[i].bundle, msg);
			if (s->errors[i].count > 1)
				fprintf(out, " %s(+%llu more)%s", D, (unsigned long long)s->errors[i].count - 1, R);
			fputc('\n', out);
		}
		if (s->nerrors > TEXT_ERRORS)
			fprintf(out, "  %s... %zu more (--format json)%s\n", D, s->nerrors - TEXT_ERRORS, R);
	}
}
