/* sigdb.c - see sigdb.h.  Loading validates as it goes and reports every
 * problem with the file and JSON path; a file with errors contributes
 * nothing, so a broken user file never half-loads. */
#include "match/sigdb.h"
#include "match/category.h"
#include "match/ncclsites.h"
#include "match/patids.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/arena.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/util.h"
#include "parse/linekw.h"
#include "parse/logline.h"
#include "base/version.h"

const char *severity_name(enum severity s)
{
	return s == SEV_ERROR ? "error" : s == SEV_WARNING ? "warning" : "info";
}

const char *role_name(enum role r)
{
	return r == ROLE_ROOT ? "root" : r == ROLE_CASCADE ? "cascade" : "context";
}

void sigdb_init(struct sigdb *db)
{
	memset(db, 0, sizeof *db);
	db->match_limit = 1000000;
	db->depth_limit = 10000;
	db->text_hash = HASH_SEED;
}

void sigdb_set_lazy(struct sigdb *db, int lazy)
{
	db->lazy = lazy;
	db->derived.lazy = lazy; /* and the derived rows' regexes (derive.h) */
}

void sigdb_set_slim(struct sigdb *db, int slim)
{
	db->slim = slim;
}

/* The vector of a list whose strings are the database's (db->strs) */
/* An entry's lists (struct strvec) live in db->strs, their arrays too
 * (a malloc each of ~2600 lists, and a free at exit, were 0.9 M
 * instructions of each start-up): never strvec_push or strvec_free one. */
static void vec_free(struct strvec *v)
{
	memset(v, 0, sizeof *v);
}

/* Room in v for n more elements, from db->strs (an outgrown array stays
 * there until sigdb_free) */
static void vec_reserve(struct sigdb *db, struct strvec *v, size_t n)
{
	if (v->cap - v->n >= n)
		return;
	size_t cap = v->cap ? v->cap * 2 : 4;
	if (cap < v->n + n)
		cap = v->n + n;
	char **nv = arena_alloc(&db->strs, cap * sizeof *nv);
	if (v->n)
		memcpy(nv, v->v, v->n * sizeof *nv);
	v->v = nv;
	v->cap = cap;
}

/* A copy of s that lives as long as db (its string arena) */
static char *dbstr(struct sigdb *db, const char *s)
{
	return arena_strndup(&db->strs, s, strlen(s));
}

static void push_str(struct sigdb *db, struct strvec *v, const char *s)
{
	vec_reserve(db, v, 1);
	v->v[v->n++] = dbstr(db, s);
}

/* An entry's strings are db->strs's (sigdb_free frees them at once) */
static void sig_free(struct signature *s)
{
	pcre2_code_free(s->code);
	free(s->lazy_err);
	vec_free(&s->literals);
	for (size_t i = 0; i < s->ncapnames; i++)
		free(s->capnames[i]);
	free(s->capnames);
}

static void diag_free(struct diagdef *d)
{
	cJSON_Delete(d->verify_env);
	vec_free(&d->fix);
	vec_free(&d->fix_launchers);
	vec_free(&d->when_any);
	vec_free(&d->when_all);
	vec_free(&d->when_none);
	vec_free(&d->blames_env);
	vec_free(&d->blames_any);
	vec_free(&d->cascade_of);
	vec_free(&d->references);
}

void sigdb_free(struct sigdb *db)
{
	for (size_t i = 0; i < db->nsigs; i++)
		sig_free(&db->sigs[i]);
	free(db->sigs);
	for (size_t i = 0; i < db->ndiags; i++)
		diag_free(&db->diags[i]);
	free(db->diags);
	for (size_t i = 0; i < db->ndocs; i++)
		json_arena_free(db->arenas[i]); /* the tree db->docs[i] */
	free(db->docs);
	free(db->arenas);
	strvec_free(&db->files);
	strvec_free(&db->texts);
	acmatch_free(db->ac);
	for (int i = 0; i < 5; i++)
		free(db->always[i]);
	free(db->rules);
	derive_free_rows(&db->derived);
	ncclsites_free(db->sites);
	hindex_free(&db->sig_ix);
	hindex_free(&db->diag_ix);
	hindex_free(&db->rule_ix);
	free(db->rule_at);
	arena_free(&db->strs);
	memset(db, 0, sizeof *db);
}

int version_in_range(long v, const struct version_range *r)
{
	if (r->has_min && (r->min_incl ? v < r->min : v <= r->min))
		return 0;
	if (r->has_max && (r->max_incl ? v > r->max : v >= r->max))
		return 0;
	return 1;
}

/* ">=2.24 <2.27.3" */
static int parse_range(const char *s, struct version_range *r)
{
	memset(r, 0, sizeof *r);
	char *copy = xstrdup(s), *save = NULL;
	int ok = 1, any = 0;
	for (char *tok = strtok_r(copy, " ,", &save); tok; tok = strtok_r(NULL, " ,", &save)) {
		int incl = 0, lower;
		if (str_starts(tok, ">=")) { lower = 1; incl = 1; tok += 2; }
		else if (str_starts(tok, "<=")) { lower = 0; incl = 1; tok += 2; }
		else if (tok[0] == '>') { lower = 1; tok += 1; }
		else if (tok[0] == '<') { lower = 0; tok += 1; }
		else if (str_starts(tok, "==") || tok[0] == '=') {
			tok += tok[1] == '=' ? 2 : 1;
			long v = version_code(tok);
			if (v < 0) { ok = 0; break; }
			r->has_min = r->has_max = r->min_incl = r->max_incl = 1;
			r->min = r->max = v;
			any = 1;
			continue;
		} else { ok = 0; break; }
		long v = version_code(tok);
		if (v < 0) { ok = 0; break; }
		if (lower) { r->has_min = 1; r->min_incl = incl; r->min = v; }
		else { r->has_max = 1; r->max_incl = incl; r->max = v; }
		any = 1;
	}
	free(copy);
	return ok && any;
}

int sigdb_parse_range(const char *s, struct version_range *r)
{
	return parse_range(s, r);
}

/* A quantifier at p: ?, *, +, {n}, {n,}, {n,m}, {,m} (then an optional lazy
 * '?' or possessive '+').  Returns its length (0: none) and its minimum in
 * *min.  A '{' that is no quantifier is -1: PCRE2 reads it as a literal, but
 * what is meant is unsure, so nothing more is derived. */
static int quantifier(const char *p, long *min)
{
	const char *q = p;
	if (*q == '?' || *q == '*') {
		*min = 0;
		q++;
	} else if (*q == '+') {
		*min = 1;
		q++;
	} else if (*q == '{') {
		q++;
		long lo = 0;
		int dl = 0, dh = 0;
		while (*q == ' ')
			q++;
		while (*q >= '0' && *q <= '9' && dl < 6)
			lo = lo * 10 + (*q++ - '0'), dl++;
		while (*q == ' ')
			q++;
		if (*q == ',') {
			q++;
			while (*q == ' ')
				q++;
			while (*q >= '0' && *q <= '9' && dh < 6)
				q++, dh++;
			while (*q == ' ')
				q++;
		}
		if (*q != '}' || (dl == 0 && dh == 0))
			return -1;
		q++;
		*min = lo;
	} else {
		return 0;
	}
	if (*q == '?' || *q == '+')
		q++;
	return (int)(q - p);
}

/* The longest run of literal characters that every match must contain, or
 * NULL.  Conservative, and only from plain text: it gives up on top-level
 * alternation, on any inline option setting ((?i), (?si), (?x), (?-i:...),
 * (*UCP)...), on \Q..\E, on an escape it does not know (\x41, \o{..}, \c,
 * \p, \g, \k, back references, \N{U+..}), and on a '{' that is no
 * quantifier; it takes characters outside groups and classes that no
 * quantifier makes optional (a quantifier with a minimum of 0: ?, *, {0,n}),
 * a repeated character once, and ends the run there. */
static char *derive_literal(const char *re)
{
	if (strncmp(re, "(*", 2) == 0)
		return NULL; /* (*UTF), (*UCP), (*CR)...: options for the whole pattern */
	int depth = 0;
	for (const char *p = re; *p; p++) {
		if (*p == '\\' && p[1]) {
			if (p[1] == 'Q')
				return NULL;
			p++;
			continue;
		}
		if (*p == '[') {
			p++;
			if (*p == '^') p++;
			if (*p == ']') p++;
			while (*p && *p != ']') { if (*p == '\\' && p[1]) p++; p++; }
			if (!*p) return NULL;
			continue;
		}
		if (*p == '(') {
			depth++;
			/* (?flags) and (?flags:...): any letter or '-' or '^' after "(?"
			 * but named groups (?<n>, (?'n', (?P<n>, (?P=n), (?P>n) */
			if (p[1] == '?') {
				char c = p[2];
				int named = c == '<' || c == '\'' || (c == 'P' && (p[3] == '<' || p[3] == '=' || p[3] == '>'));
				if (!named && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '^'))
					return NULL;
			}
			if (p[1] == '*')
				return NULL;
		}
		else if (*p == ')') depth--;
		else if (*p == '|' && depth == 0) return NULL;
	}
	struct buf cur, best;
	buf_init(&cur);
	buf_init(&best);
	depth = 0;
	const char *p = re;
	int stop = 0;
	while (*p && !stop) {
		char lit = 0;
		int is_lit = 0, atom = 1;
		if (*p == '\\') {
			char c = p[1];
			if (!c) break;
			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) {
				lit = c; /* an escaped non-alphanumeric is always that character */
				is_lit = 1;
			} else if (strchr("dDsSwWhHvVRNX", c) && !(c == 'N' && p[2] == '{')) {
				/* a class of characters: an atom, not a literal */
			} else if (strchr("bBAzZGK", c)) {
				atom = 0; /* an assertion: matches no character */
			} else {
				stop = 1; /* \x, \o, \c, \p, \g, \k, \1, \n, \t, \e...: not plain text */
				break;
			}
			p += 2;
		} else if (*p == '[') {
			p++;
			if (*p == '^') p++;
			if (*p == ']') p++;
			while (*p && *p != ']') { if (*p == '\\' && p[1]) p++; p++; }
			if (*p) p++;
		} else if (*p == '(') {
			depth++;
			p++;
			atom = 0;
		} else if (*p == ')') {
			depth--;
			p++;
		} else if (*p == '^' || *p == '$') {
			p++;
			atom = 0;
		} else if (*p == '.') {
			p++;
		} else if (*p == '|') {
			/* inside a group (pass one refused it at the top) */
			p++;
			if (cur.len > best.len) { buf_reset(&best); buf_add(&best, cur.data, cur.len); }
			buf_reset(&cur);
			continue;
		} else if (*p == '?' || *p == '*' || *p == '+' || *p == '{') {
			/* a quantifier with nothing before it at this level (after a
			 * group or an assertion): it was handled there, or it is
			 * unsure */
			long mn;
			int q = quantifier(p, &mn);
			if (q <= 0) {
				stop = 1;
				break;
			}
			p += q;
			if (cur.len > best.len) { buf_reset(&best); buf_add(&best, cur.data, cur.len); }
			buf_reset(&cur);
			continue;
		} else {
			lit = *p;
			is_lit = 1;
			p++;
		}
		long mn = 1;
		int q = atom ? quantifier(p, &mn) : 0;
		if (q < 0) {
			stop = 1;
			break;
		}
		p += q;
		if (is_lit && depth == 0 && mn >= 1) {
			buf_addc(&cur, lit);
			if (q) {
				/* char must appear at least once, but the run ends here */
				if (cur.len > best.len) { buf_reset(&best); buf_add(&best, cur.data, cur.len); }
				buf_reset(&cur);
			}
		} else if (atom || q) {
			if (cur.len > best.len) { buf_reset(&best); buf_add(&best, cur.data, cur.len); }
			buf_reset(&cur);
		}
	}
	if (cur.len > best.len) { buf_reset(&best); buf_add(&best, cur.data, cur.len); }
	buf_free(&cur);
	if (best.len < 3) {
		buf_free(&best);
		return NULL;
	}
	return buf_steal(&best);
}

/* The first room of the entry arrays: 160 KiB, over malloc's mmap
 * threshold (128 KiB), so the pages no entry uses are never touched and
 * growing is mremap, not a copy (the doublings from 64 entries copied
 * 0.18 M instructions' worth and faulted ~25 pages more at start-up) */
#define FIRST_CAP(size) ((size_t)(160u << 10) / (size))

/* ---- JSON helpers that report file + path ---- */

struct loadctx {
	const char *file;
	struct msgs *m;
	int errors;
	const char *text;  /* the file's text, for the line of a path; NULL: none */
	size_t len;
	struct sigdb *db;  /* the loader's: the strings of its entries go to db->strs */
	char *fcopy;       /* file in db->strs, made for the first entry, shared by all */
};

static char *ctx_file(struct loadctx *c)
{
	if (!c->fcopy)
		c->fcopy = dbstr(c->db, c->file);
	return c->fcopy;
}

/* "file:line: path: problem" (the line of path in the file's text), or
 * "file: path: problem" when the line is unknown. */
static void lerr(struct loadctx *c, const char *path, const char *fmt, ...) NT_PRINTF(3, 4);
static void lerr(struct loadctx *c, const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	size_t line = c->text ? json_path_line(c->text, c->len, path) : 0;
	if (line)
		msgs_add(c->m, "%s:%zu: %s: %s", c->file, line, path, s);
	else
		msgs_add(c->m, "%s: %s: %s", c->file, path, s);
	free(s);
	c->errors++;
}

/* The keys a pattern file may hold, per kind of object: the one list.  Any
 * other key is an error (a misspelt "nccl_version" or "cascade-of" would
 * otherwise drop its limit without a word).  A new key goes here, into the
 * code that reads it and into docs/signature-format.md, together.  The
 * keys of "captures" (capture names) and "verify_env" (variable names) are
 * free. */
/* The keys of the objects the loader reads member by member (gather): each
 * list once, the strings of KNOWN_KEYS and the positions (SK_id: the
 * member "id" of a signature) made from it. */
#define SIG_KEYS(X) X(SK, id) X(SK, on) X(SK, regex) X(SK, literals) X(SK, samples) X(SK, negative_samples) \
	X(SK, references) X(SK, benign) X(SK, benign_block)
#define DIAG_KEYS(X) X(DK, id) X(DK, category) X(DK, severity) X(DK, role) X(DK, confidence) X(DK, title) \
	X(DK, explanation) X(DK, fix) X(DK, verify_env) X(DK, when) X(DK, cascade_of) X(DK, references) \
	X(DK, derived) X(DK, generic) X(DK, blames)
#define BLAMES_KEYS(X) X(BK, env) X(BK, any)
#define WHEN_KEYS(X) X(WK, any) X(WK, all) X(WK, none) X(WK, nccl) X(WK, nccl_implied)
#define KEY_NAME(pre, k) #k,
#define KEY_POS(pre, k) pre##_##k,
enum { SIG_KEYS(KEY_POS) SK_N };
enum { DIAG_KEYS(KEY_POS) DK_N };
enum { BLAMES_KEYS(KEY_POS) BK_N };
enum { WHEN_KEYS(KEY_POS) WK_N };
enum { KK_FILE, KK_SIGNATURE, KK_SAMPLE, KK_DIAGNOSIS, KK_BLAMES, KK_WHEN, KK_DERIVED };

static const struct known_keys {
	const char *object;
	const char *label;           /* in messages */
	const char *keys[16];
} KNOWN_KEYS[] = {
	[KK_FILE] = {"file", "a pattern file", {"family", "description", "signatures", "diagnoses", "derived", NULL}},
	[KK_SIGNATURE] = {"signature", "a signature", {SIG_KEYS(KEY_NAME) NULL}},
	[KK_SAMPLE] = {"sample", "a sample", {"line", "captures", NULL}},
	[KK_DIAGNOSIS] = {"diagnosis", "a diagnosis", {DIAG_KEYS(KEY_NAME) NULL}},
	[KK_BLAMES] = {"blames", "\"blames\"", {BLAMES_KEYS(KEY_NAME) NULL}},
	[KK_WHEN] = {"when", "\"when\"", {WHEN_KEYS(KEY_NAME) NULL}},
	[KK_DERIVED] = {"derived", "a derived row", {"id", "from", "file", "message", "exception", "code", "signal", "frame", "category",
	                              "why", "samples", "negative_samples", "references", NULL}},
};

static const struct known_keys *known_keys(const char *object)
{
	for (size_t i = 0; i < sizeof KNOWN_KEYS / sizeof KNOWN_KEYS[0]; i++)
		if (strcmp(KNOWN_KEYS[i].object, object) == 0)
			return &KNOWN_KEYS[i];
	return NULL;
}

const char *const *sigdb_known_keys(const char *object)
{
	const struct known_keys *k = known_keys(object);
	return k ? k->keys : NULL;
}

/* Edit distance of two short strings, capped at 3 ('-' and '_' are the same). */
static int near(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	if (n > 31 || m > 31 || (n > m ? n - m : m - n) > 2)
		return 3;
	int d[32][32];
	for (size_t i = 0; i <= n; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			int same = a[i - 1] == b[j - 1] || ((a[i - 1] == '-' || a[i - 1] == '_') && (b[j - 1] == '-' || b[j - 1] == '_'));
			int v = d[i - 1][j - 1] + !same;
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			d[i][j] = v;
		}
	return d[n][m] < 3 ? d[n][m] : 3;
}

/* Every key of o must be one of object's (KNOWN_KEYS). */
static void check_keys(struct loadctx *c, const cJSON *o, const char *path, const char *object)
{
	const struct known_keys *kk = known_keys(object);
	const char *const *keys = kk->keys;
	const cJSON *it;
	cJSON_ArrayForEach(it, o) {
		int known = 0;
		/* the first byte first: tens of thousands of keys at start-up */
		for (size_t k = 0; keys[k] && !known; k++)
			known = it->string[0] == keys[k][0] && strcmp(it->string, keys[k]) == 0;
		if (known)
			continue;
		struct buf list, sub;
		buf_init(&list);
		buf_init(&sub);
		const char *best = NULL;
		int bestd = 3;
		for (size_t k = 0; keys[k]; k++) {
			buf_printf(&list, "%s%s", k ? ", " : "", keys[k]);
			size_t kl = strlen(keys[k]);
			int d = near(it->string, keys[k]);
			if (d == 3 && kl >= 4 && strncmp(it->string, keys[k], kl) == 0)
				d = 2; /* "nccl_version" for "nccl" */
			if (d < bestd) {
				bestd = d;
				best = keys[k];
			}
		}
		buf_printf(&sub, "%s%s%s", strcmp(path, "$") ? path : "", strcmp(path, "$") ? "." : "", it->string);
		if (best)
			lerr(c, sub.data, "unknown key \"%s\"; did you mean \"%s\"? (%s has: %s)", it->string, best,
			     kk->label, list.data);
		else
			lerr(c, sub.data, "unknown key \"%s\" (%s has: %s)", it->string, kk->label, list.data);
		buf_free(&list);
		buf_free(&sub);
	}
}

/* Whether every key of o is one of object's: the common case, tested
 * before the path of an error message is formatted (start-up formats no
 * path for the ~1800 samples of the database). */
static int keys_known(const cJSON *o, const char *object)
{
	const char *const *keys = known_keys(object)->keys;
	const cJSON *it;
	cJSON_ArrayForEach(it, o) {
		int known = 0;
		for (size_t k = 0; keys[k] && !known; k++)
			known = it->string[0] == keys[k][0] && strcmp(it->string, keys[k]) == 0;
		if (!known)
			return 0;
	}
	return 1;
}

/* v[k]: o's first member named KNOWN_KEYS[kk].keys[k] (NULL: none), in one
 * walk of o, not one a key (json_get: ~14000 walks of each start-up).
 * Returns whether every key of o is known; check_keys then has nothing to
 * say. */
static int gather(const cJSON *o, int kk, const cJSON **v)
{
	const char *const *keys = KNOWN_KEYS[kk].keys;
	size_t n = 0;
	while (keys[n])
		n++;
	for (size_t k = 0; k < n; k++)
		v[k] = NULL;
	int all = 1;
	size_t at = 0; /* the search starts after the last key found: files mostly keep the list's order */
	const cJSON *it;
	cJSON_ArrayForEach(it, o) {
		size_t t = 0, k = at;
		for (; t < n; t++, k = k + 1 == n ? 0 : k + 1)
			if (it->string[0] == keys[k][0] && strcmp(it->string, keys[k]) == 0)
				break;
		if (t == n) {
			all = 0;
		} else {
			if (!v[k])
				v[k] = it;
			at = k + 1 == n ? 0 : k + 1;
		}
	}
	return all;
}

/* v (o's member key) as a string; messages name key. */
static const char *str_of(struct loadctx *c, const cJSON *v, const char *key, const char *path, int required)
{
	if (!v) {
		if (required)
			lerr(c, path, "missing \"%s\"", key);
		return NULL;
	}
	if (!cJSON_IsString(v) || !v->valuestring) {
		lerr(c, path, "\"%s\" must be a string", key);
		return NULL;
	}
	return v->valuestring;
}

static const char *get_str(struct loadctx *c, const cJSON *o, const char *key, const char *path, int required)
{
	return str_of(c, json_get(o, key), key, path, required);
}

/* v (a member key) as a list of strings into out */
static int strvec_of(struct loadctx *c, const cJSON *v, const char *key, const char *path, struct strvec *out)
{
	if (!v)
		return 0;
	if (!cJSON_IsArray(v)) {
		lerr(c, path, "\"%s\" must be an array of strings", key);
		return -1;
	}
	int i = 0;
	const cJSON *it;
	vec_reserve(c->db, out, (size_t)json_size(v));
	cJSON_ArrayForEach(it, v) {
		if (!cJSON_IsString(it)) {
			lerr(c, path, "%s[%d] must be a string", key, i);
			return -1;
		}
		push_str(c->db, out, it->valuestring);
		i++;
	}
	return 0;
}

const char *const LAUNCHERS[] = {"torchrun", "vllm", "sglang", "deepspeed", "ray", "slurm", "mpi", "kubernetes", NULL};

/* "fix": steps, each a string or {"step": "...", "launcher": ["vllm"]}: a
 * step that applies only to jobs one of those launchers ran. */
static void get_fix(struct loadctx *c, const cJSON *v, const char *path, struct diagdef *d)
{
	if (!v)
		return;
	if (!cJSON_IsArray(v)) {
		lerr(c, path, "\"fix\" must be an array of steps");
		return;
	}
	vec_reserve(c->db, &d->fix, (size_t)json_size(v));
	vec_reserve(c->db, &d->fix_launchers, (size_t)json_size(v));
	int i = 0;
	const cJSON *it;
	cJSON_ArrayForEach(it, v) {
		if (cJSON_IsString(it)) {
			push_str(c->db, &d->fix, it->valuestring);
			push_str(c->db, &d->fix_launchers, "");
		} else if (cJSON_IsObject(it)) {
			const cJSON *st = json_get(it, "step"), *ls = json_get(it, "launcher"), *k;
			cJSON_ArrayForEach(k, it)
				if (strcmp(k->string, "step") && strcmp(k->string, "launcher"))
					lerr(c, path, "fix[%d].%s: unknown key (a step has: step, launcher)", i, k->string);
			if (!cJSON_IsString(st) || !cJSON_IsArray(ls) || !cJSON_GetArraySize(ls)) {
				lerr(c, path, "fix[%d] must be a string or {\"step\": \"...\", \"launcher\": [\"vllm\", ...]}", i);
				i++;
				continue;
			}
			struct buf b;
			buf_init(&b);
			const cJSON *l;
			cJSON_ArrayForEach(l, ls) {
				int known = 0;
				for (const char *const *n = LAUNCHERS; *n && cJSON_IsString(l); n++)
					known |= !strcmp(*n, l->valuestring);
				if (!known)
					lerr(c, path, "fix[%d].launcher: %s%s%s is not a launcher (torchrun, vllm, sglang, deepspeed, ray, slurm, mpi, kubernetes)", i,
					     cJSON_IsString(l) ? "\"" : "", cJSON_IsString(l) ? l->valuestring : "a non-string",
					     cJSON_IsString(l) ? "\"" : "");
				else
					buf_printf(&b, "%s%s", b.len ? "," : "", l->valuestring);
			}
			push_str(c->db, &d->fix, st->valuestring);
			push_str(c->db, &d->fix_launchers, b.data ? b.data : "");
			buf_free(&b);
		} else {
			lerr(c, path, "fix[%d] must be a string or {\"step\": \"...\", \"launcher\": [...]}", i);
		}
		i++;
	}
}

static const char *const ON_NAMES[] = {"warn", "info", "nccl", "plain", "any"};

const char *sig_on_name(enum sig_on on)
{
	return on >= ON_WARN && on <= ON_ANY ? ON_NAMES[on] : "?";
}

static int parse_on(const char *s, enum sig_on *on)
{
	for (int i = 0; i < 5; i++)
		if (strcmp(s, ON_NAMES[i]) == 0) {
			*on = (enum sig_on)i;
			return 1;
		}
	return 0;
}

/* s->capnames from s->code; returns the number of groups + 1. */
static size_t read_capnames(struct signature *s)
{
	uint32_t ncap = 0, namecount = 0, entry = 0;
	PCRE2_SPTR table;
	pcre2_pattern_info(s->code, PCRE2_INFO_CAPTURECOUNT, &ncap);
	pcre2_pattern_info(s->code, PCRE2_INFO_NAMECOUNT, &namecount);
	pcre2_pattern_info(s->code, PCRE2_INFO_NAMEENTRYSIZE, &entry);
	pcre2_pattern_info(s->code, PCRE2_INFO_NAMETABLE, &table);
	s->ncapnames = ncap + 1;
	s->capnames = xcalloc(s->ncapnames, sizeof *s->capnames);
	for (uint32_t i = 0; i < namecount; i++) {
		const unsigned char *e = table + i * entry;
		int num = (e[0] << 8) | e[1];
		if (num >= 0 && (size_t)num < s->ncapnames && !s->capnames[num])
			s->capnames[num] = xstrdup((const char *)e + 2);
	}
	return ncap + 1;
}

static void load_signature(struct sigdb *db, struct loadctx *c, const cJSON *o, size_t idx)
{
	char path[64];
	json_path(path, sizeof path, "signatures", "", (long)idx);
	if (!cJSON_IsObject(o)) {
		lerr(c, path, "must be an object");
		return;
	}
	int before = c->errors;
	const cJSON *m[SK_N];
	if (!gather(o, KK_SIGNATURE, m))
		check_keys(c, o, path, "signature");
	const char *id = str_of(c, m[SK_id], "id", path, 1);
	const char *on = str_of(c, m[SK_on], "on", path, 1);
	const char *re = str_of(c, m[SK_regex], "regex", path, 1);
	enum sig_on son = ON_ANY;
	char sub[128];
	if (on && !parse_on(on, &son)) {
		snprintf(sub, sizeof sub, "%s.on", path);
		lerr(c, sub, "unknown value \"%s\" (expected warn, info, nccl, plain or any)", on);
	}
	const char *benign = str_of(c, m[SK_benign], "benign", path, 0);
	if (benign && !*benign)
		lerr(c, path, "\"benign\" must say why the line is harmless");
	const char *bblock = str_of(c, m[SK_benign_block], "benign_block", path, 0);
	if (bblock && (strcmp(bblock, "traceback") != 0 || !benign))
		lerr(c, path, "\"benign_block\" must be \"traceback\", on a benign entry");
	const cJSON *samples = m[SK_samples];
	const cJSON *neg = m[SK_negative_samples];
	if (!cJSON_IsArray(samples) || cJSON_GetArraySize(samples) < 1)
		lerr(c, path, "\"samples\" must be a non-empty array");
	if (!cJSON_IsArray(neg) || cJSON_GetArraySize(neg) < 1)
		lerr(c, path, "\"negative_samples\" must be a non-empty array");
	size_t k = 0;
	const cJSON *it;
	cJSON_ArrayForEach(it, samples) {
		if (cJSON_IsObject(it) && !keys_known(it, "sample")) {
			json_path(sub, sizeof sub, path, ".samples", (long)k);
			check_keys(c, it, sub, "sample");
		}
		k++;
	}
	struct strvec lits = {0};
	strvec_of(c, m[SK_literals], "literals", path, &lits);
	for (size_t i = 0; i < lits.n; i++)
		if (!lits.v[i][0]) {
			snprintf(sub, sizeof sub, "%s.literals[%zu]", path, i);
			lerr(c, sub, "empty literal");
		}
	pcre2_code *code = NULL;
	if (re && !db->lazy) {
		int err;
		PCRE2_SIZE off;
		code = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL);
		if (!code) {
			PCRE2_UCHAR buf[256];
			pcre2_get_error_message(err, buf, sizeof buf);
			snprintf(sub, sizeof sub, "%s.regex", path);
			lerr(c, sub, "%s at offset %zu", (char *)buf, (size_t)off);
		}
		/* JIT: on first use (sigdb_code) */
	}
	if (c->errors != before) {
		pcre2_code_free(code);
		vec_free(&lits);
		return;
	}
	if (db->nsigs == db->sigs_cap) { /* doubling: 300 signatures are not 300 copies of the array */
		db->sigs_cap = db->sigs_cap ? db->sigs_cap * 2 : FIRST_CAP(sizeof *db->sigs);
		db->sigs = xrealloc(db->sigs, db->sigs_cap * sizeof *db->sigs);
	}
	struct signature *s = &db->sigs[db->nsigs++];
	memset(s, 0, sizeof *s);
	s->id = dbstr(db, id);
	s->file = ctx_file(c);
	s->index = idx;
	s->on = son;
	s->regex = dbstr(db, re);
	s->code = code;
	s->json = (cJSON *)o;
	s->literals = lits;
	s->benign = benign ? dbstr(db, benign) : NULL;
	s->benign_block = bblock != NULL;
	if (s->literals.n == 0) {
		char *d = derive_literal(re);
		if (d) {
			push_str(db, &s->literals, d);
			free(d);
			s->literals_derived = 1;
		}
	}
	size_t groups;
	if (code) {
		groups = read_capnames(s);
	} else {
		/* compiled later: room for a group at every '(' (more than it has) */
		groups = 1;
		if (re) /* memchr from '(' to '(': a compare a byte was 0.6 M instructions */
			for (const char *q = re, *e = re + strlen(re); (q = memchr(q, '(', (size_t)(e - q))); q++)
				groups++;
	}
	if (groups > db->max_capture_groups)
		db->max_capture_groups = groups;
}

static int parse_severity(const char *s, enum severity *out)
{
	if (strcmp(s, "error") == 0) { *out = SEV_ERROR; return 1; }
	if (strcmp(s, "warning") == 0) { *out = SEV_WARNING; return 1; }
	if (strcmp(s, "info") == 0) { *out = SEV_INFO; return 1; }
	return 0;
}

static int parse_role(const char *s, enum role *out)
{
	if (strcmp(s, "root") == 0) { *out = ROLE_ROOT; return 1; }
	if (strcmp(s, "cascade") == 0) { *out = ROLE_CASCADE; return 1; }
	if (strcmp(s, "context") == 0) { *out = ROLE_CONTEXT; return 1; }
	return 0;
}

static void load_diagnosis(struct sigdb *db, struct loadctx *c, const cJSON *o, size_t idx)
{
	char path[64], sub[128];
	json_path(path, sizeof path, "diagnoses", "", (long)idx);
	if (!cJSON_IsObject(o)) {
		lerr(c, path, "must be an object");
		return;
	}
	int before = c->errors;
	struct diagdef d;
	memset(&d, 0, sizeof d);
	const cJSON *m[DK_N];
	if (!gather(o, KK_DIAGNOSIS, m))
		check_keys(c, o, path, "diagnosis");
	const char *id = str_of(c, m[DK_id], "id", path, 1);
	const char *cat = str_of(c, m[DK_category], "category", path, 1);
	const char *sev = str_of(c, m[DK_severity], "severity", path, 1);
	const char *role = str_of(c, m[DK_role], "role", path, 1);
	const char *title = str_of(c, m[DK_title], "title", path, 1);
	const char *expl = str_of(c, m[DK_explanation], "explanation", path, 1);
	if (cat && !category_valid(cat)) {
		snprintf(sub, sizeof sub, "%s.category", path);
		lerr(c, sub, "unknown category \"%s\" (see TAXONOMY)", cat);
	}
	if (sev && !parse_severity(sev, &d.severity)) {
		snprintf(sub, sizeof sub, "%s.severity", path);
		lerr(c, sub, "unknown severity \"%s\" (expected error, warning or info)", sev);
	}
	if (role && !parse_role(role, &d.role)) {
		snprintf(sub, sizeof sub, "%s.role", path);
		lerr(c, sub, "unknown role \"%s\" (expected root, cascade or context)", role);
	}
	const cJSON *der = m[DK_derived];
	if (der && !cJSON_IsBool(der)) {
		snprintf(sub, sizeof sub, "%s.derived", path);
		lerr(c, sub, "must be true or false");
	}
	d.derived = cJSON_IsTrue(der);
	const cJSON *gen = m[DK_generic];
	if (gen && !cJSON_IsBool(gen)) {
		snprintf(sub, sizeof sub, "%s.generic", path);
		lerr(c, sub, "must be true or false");
	}
	d.generic = cJSON_IsTrue(gen);
	d.confidence = 0.8;
	const cJSON *conf = m[DK_confidence];
	if (conf) {
		if (!cJSON_IsNumber(conf) || conf->valuedouble < 0 || conf->valuedouble > 1) {
			snprintf(sub, sizeof sub, "%s.confidence", path);
			lerr(c, sub, "must be a number from 0 to 1");
		} else {
			d.confidence = conf->valuedouble;
		}
	}
	get_fix(c, m[DK_fix], path, &d);
	if (d.fix.n == 0)
		lerr(c, path, "\"fix\" must list at least one step");
	strvec_of(c, m[DK_cascade_of], "cascade_of", path, &d.cascade_of);
	strvec_of(c, m[DK_references], "references", path, &d.references);
	const cJSON *venv = m[DK_verify_env];
	if (venv) {
		const cJSON *it;
		int ok = cJSON_IsObject(venv);
		if (ok)
			cJSON_ArrayForEach(it, venv) if (!cJSON_IsString(it)) ok = 0;
		if (!ok) {
			snprintf(sub, sizeof sub, "%s.verify_env", path);
			lerr(c, sub, "must be an object of strings");
		} else {
			d.verify_env = cJSON_Duplicate(venv, 1); /* outlives a slim database's tree */
		}
	}
	const cJSON *when = m[DK_when];
	json_path(sub, sizeof sub, path, ".when", -1);
	if (!cJSON_IsObject(when)) {
		lerr(c, path, "\"when\" must be an object");
	} else {
		const cJSON *w[WK_N];
		if (!gather(when, KK_WHEN, w))
			check_keys(c, when, sub, "when");
		strvec_of(c, w[WK_any], "any", sub, &d.when_any);
		strvec_of(c, w[WK_all], "all", sub, &d.when_all);
		strvec_of(c, w[WK_none], "none", sub, &d.when_none);
		if (d.when_any.n == 0 && d.when_all.n == 0)
			lerr(c, sub, "needs at least one id in \"any\" or \"all\"");
		const char *range = str_of(c, w[WK_nccl], "nccl", sub, 0);
		if (range) {
			if (!parse_range(range, &d.nccl)) {
				char sub2[160];
				snprintf(sub2, sizeof sub2, "%s.nccl", sub);
				lerr(c, sub2, "bad version range \"%s\" (e.g. \">=2.24 <2.27\")", range);
			} else {
				d.has_nccl_range = 1;
			}
		}
		const cJSON *imp = w[WK_nccl_implied];
		if (imp && (!cJSON_IsBool(imp) || !range)) {
			char sub2[160];
			snprintf(sub2, sizeof sub2, "%s.nccl_implied", sub);
			lerr(c, sub2, "must be true or false, beside a \"nccl\" range");
		}
		d.nccl_implied = cJSON_IsTrue(imp);
	}
	const cJSON *bl = m[DK_blames];
	if (bl) {
		snprintf(sub, sizeof sub, "%s.blames", path);
		if (!cJSON_IsObject(bl)) {
			lerr(c, sub, "must be an object (\"env\": variables, \"any\": evidence ids)");
		} else {
			const cJSON *b[BK_N];
			if (!gather(bl, KK_BLAMES, b))
				check_keys(c, bl, sub, "blames");
			strvec_of(c, b[BK_env], "env", sub, &d.blames_env);
			strvec_of(c, b[BK_any], "any", sub, &d.blames_any);
			if (d.blames_env.n == 0 && d.blames_any.n == 0)
				lerr(c, sub, "needs a variable in \"env\" or an id in \"any\"");
		}
	}
	if (c->errors != before) {
		diag_free(&d);
		return;
	}
	d.id = dbstr(db, id);
	d.file = ctx_file(c);
	d.index = idx;
	d.category = dbstr(db, cat);
	d.title = dbstr(db, title);
	d.explanation = dbstr(db, expl);
	d.json = (cJSON *)o;
	if (db->ndiags == db->diags_cap) {
		db->diags_cap = db->diags_cap ? db->diags_cap * 2 : FIRST_CAP(sizeof *db->diags);
		db->diags = xrealloc(db->diags, db->diags_cap * sizeof *db->diags);
	}
	db->diags[db->ndiags++] = d;
}

/* "line L, column C" of a byte offset, for JSON syntax errors. */
static void line_col(const char *text, size_t off, size_t *line, size_t *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		if (text[i] == '\n') { (*line)++; *col = 1; }
		else (*col)++;
	}
}

/* One file's text; keep: hold a copy of it for sigdb_finalize's messages
 * (sigdb_load_text), else (a file of sigdb_load_dir) ferr reads the file
 * again for the few messages that need its lines.  spare (a slim
 * database's loader, else NULL): the arena of the file before, parsed
 * into again, and this file's arena when it is done with it. */
static int load_text(struct sigdb *db, const char *name, const char *text, size_t len, struct msgs *m, int keep,
                     struct json_arena **spare)
{
	struct loadctx c = {name, m, 0, text, len, db, NULL};
	db->text_hash = hash_words(db->text_hash, text, len);
	const char *end = NULL;
	struct json_arena *arena = spare ? *spare : NULL; /* owned here now */
	if (spare)
		*spare = NULL;
	cJSON *doc = json_parse_arena_fast(&arena, text, len, &end);
	if (!doc) {
		size_t off = end && end >= text ? (size_t)(end - text) : 0;
		const char *ep = cJSON_GetErrorPtr();
		if (ep && ep >= text && ep <= text + len)
			off = (size_t)(ep - text);
		size_t l, col;
		line_col(text, off, &l, &col);
		msgs_add(m, "%s: line %zu, column %zu: invalid JSON", name, l, col);
		return 1;
	}
	if (!cJSON_IsObject(doc)) {
		lerr(&c, "$", "top level must be an object");
		json_arena_free(arena);
		return c.errors;
	}
	const cJSON *sigs = json_get(doc, "signatures");
	const cJSON *diags = json_get(doc, "diagnoses");
	if (!cJSON_IsArray(sigs))
		lerr(&c, "$", "\"signatures\" must be an array");
	if (!cJSON_IsArray(diags))
		lerr(&c, "$", "\"diagnoses\" must be an array");
	if (c.errors) {
		json_arena_free(arena);
		return c.errors;
	}
	size_t s0 = db->nsigs, d0 = db->ndiags, r0 = db->derived.n;
	size_t i = 0;
	const cJSON *it;
	cJSON_ArrayForEach(it, sigs) load_signature(db, &c, it, i++);
	i = 0;
	cJSON_ArrayForEach(it, diags) load_diagnosis(db, &c, it, i++);
	check_keys(&c, doc, "$", "file");
	const cJSON *der = json_get(doc, "derived");
	if (der) {
		i = 0;
		cJSON_ArrayForEach(it, der) {
			char path[48];
			json_path(path, sizeof path, "derived", "", (long)i++);
			if (cJSON_IsObject(it))
				check_keys(&c, it, path, "derived");
		}
		c.errors += derive_load(&db->derived, name, der, c.text, c.len, m);
	}
	if (c.errors) {
		/* all or nothing per file */
		for (size_t k = s0; k < db->nsigs; k++)
			sig_free(&db->sigs[k]);
		for (size_t k = d0; k < db->ndiags; k++)
			diag_free(&db->diags[k]);
		db->nsigs = s0;
		db->ndiags = d0;
		derive_truncate(&db->derived, r0);
		json_arena_free(arena);
		return c.errors;
	}
	if (db->slim) {
		/* what the entries kept of the tree they own; the tree goes */
		for (size_t k = s0; k < db->nsigs; k++)
			db->sigs[k].json = NULL;
		for (size_t k = d0; k < db->ndiags; k++)
			db->diags[k].json = NULL;
		for (size_t k = r0; k < db->derived.n; k++)
			db->derived.v[k].json = NULL;
		if (spare)
			*spare = arena; /* the next file's tree goes where this one was */
		else
			json_arena_free(arena);
		strvec_push(&db->files, name);
		strvec_push_owned(&db->texts, keep ? xstrndup(text, len) : NULL);
		return 0;
	}
	db->docs = xrealloc(db->docs, (db->ndocs + 1) * sizeof *db->docs);
	db->arenas = xrealloc(db->arenas, (db->ndocs + 1) * sizeof *db->arenas);
	db->arenas[db->ndocs] = arena;
	db->docs[db->ndocs++] = doc;
	strvec_push(&db->files, name);
	/* for sigdb_finalize's lines; NULL: read the file again (ferr) */
	strvec_push_owned(&db->texts, keep ? xstrndup(text, len) : NULL);
	return 0;
}

int sigdb_load_text(struct sigdb *db, const char *name, const char *text, size_t len, struct msgs *m)
{
	return load_text(db, name, text, len, m, 1, NULL);
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int sigdb_load_dir(struct sigdb *db, const char *dir, struct msgs *m)
{
	DIR *d = opendir(dir);
	if (!d) {
		msgs_add(m, "%s: cannot open pattern directory: %s", dir, strerror(errno));
		return 1;
	}
	struct strvec names = {0};
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && str_ends(de->d_name, ".json"))
			strvec_push(&names, de->d_name);
	closedir(d);
	xqsort(names.v, names.n, sizeof *names.v, cmp_cstr);
	int errors = 0;
	struct json_arena *spare = NULL; /* slim: one arena for every file's tree in turn */
	struct buf b; /* every file's text in turn: the same pages, not 1 MB of new ones */
	buf_init(&b);
	for (size_t i = 0; i < names.n; i++) {
		char *path = xasprintf("%s/%s", dir, names.v[i]);
		FILE *f = fopen(path, "rb");
		if (!f) {
			msgs_add(m, "%s: cannot open: %s", path, strerror(errno));
			errors++;
			free(path);
			continue;
		}
		buf_reset(&b);
		int rerr = buf_read_file(&b, f, 64u << 20);
		fclose(f);
		if (rerr) {
			msgs_add(m, "%s: read error", path);
			errors++;
		} else {
			errors += load_text(db, path, b.data ? b.data : "", b.len, m, 0, db->slim ? &spare : NULL);
		}
		free(path);
	}
	buf_free(&b);
	strvec_free(&names);
	json_arena_free(spare);
	return errors;
}

/* ---- JIT on first use (sigdb.h) ---- */

/* Serialises the JIT compiles of every database in the process: one runs
 * at a time, each once per signature, so the lock is taken at most once
 * per signature (plus the rare thread that lost the race and waits). */
static pthread_mutex_t jit_lock = PTHREAD_MUTEX_INITIALIZER;

void sigdb_jit(const struct signature *cs)
{
	/* the database is shared const; its JIT state is the one part that
	 * changes (sigdb.h), and only here */
	struct signature *s = (struct signature *)cs;
	pthread_mutex_lock(&jit_lock);
	if (!atomic_load_explicit(&s->jit_done, memory_order_relaxed)) {
		if (!s->code && s->regex) {
			/* a lazy database (sigdb_set_lazy): compiled now; when it does
			 * not compile, code stays NULL and the matcher skips it */
			int err;
			PCRE2_SIZE off;
			s->code = pcre2_compile((PCRE2_SPTR)s->regex, PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL);
			if (s->code) {
				read_capnames(s);
			} else {
				PCRE2_UCHAR why[256];
				pcre2_get_error_message(err, why, sizeof why);
				s->lazy_err = xasprintf("%s at offset %zu", (char *)why, (size_t)off);
			}
		}
		if (s->code)
			pcre2_jit_compile(s->code, PCRE2_JIT_COMPLETE); /* on failure the interpreter runs it */
		atomic_store_explicit(&s->jit_done, 1, memory_order_release);
	}
	pthread_mutex_unlock(&jit_lock);
}

const struct ncclsites *sigdb_sites(const struct sigdb *cdb)
{
	/* like the JIT state, the one other part of the shared database that
	 * changes after loading, and only here */
	struct sigdb *db = (struct sigdb *)cdb;
	pthread_mutex_lock(&jit_lock);
	if (!db->sites_tried) {
		db->sites_tried = 1;
		for (size_t i = 0; i < db->files.n && !db->sites; i++) {
			const char *f = db->files.v[i];
			const char *slash = strrchr(f, '/');
			char *path = slash ? xasprintf("%.*s/nccl_sites.tsv", (int)(slash - f), f) : xstrdup("nccl_sites.tsv");
			FILE *t = fopen(path, "rb");
			if (t) {
				fclose(t);
				struct msgs quiet = {0};
				db->sites = ncclsites_load(path, &quiet); /* a damaged table: no fingerprint, no guess */
				msgs_free(&quiet);
			}
			free(path);
		}
	}
	const struct ncclsites *s = db->sites;
	pthread_mutex_unlock(&jit_lock);
	return s;
}

void sigdb_jit_all(const struct sigdb *db)
{
	for (size_t i = 0; i < db->nsigs; i++)
		(void)sigdb_code(&db->sigs[i]);
}

size_t sigdb_lazy_failures(const struct sigdb *db, struct msgs *m)
{
	size_t n = 0;
	for (size_t i = 0; i < db->nsigs; i++) {
		const struct signature *s = &db->sigs[i];
		if (!s->lazy_err)
			continue;
		msgs_add(m, "%s: signatures[%zu].regex (%s): does not compile at its first use: %s: the signature was "
		         "skipped (run 'nccl-triage check-db')", s->file, s->index, s->id, s->lazy_err);
		n++;
	}
	return n + derive_lazy_failures(&db->derived, m);
}

size_t sigdb_jit_count(const struct sigdb *db)
{
	size_t n = 0;
	for (size_t i = 0; i < db->nsigs; i++)
		n += atomic_load_explicit(&db->sigs[i].jit_done, memory_order_acquire) != 0;
	return n;
}

/* ---- ids: a hash index each for signatures and diagnoses ---- */

/* The ids' hash in the indexes below: 8 bytes a step (hash_words), not
 * hash_str's byte a step.  Which slot an id takes never shows: find_id
 * compares the ids and answers the lowest position. */
static uint64_t id_hash(const char *id)
{
	return hash_words(HASH_SEED, id, strlen(id));
}

static int sig_hash_at(const void *ctx, size_t i, uint64_t *h)
{
	*h = id_hash(((const struct sigdb *)ctx)->sigs[i].id);
	return 1;
}

static int diag_hash_at(const void *ctx, size_t i, uint64_t *h)
{
	*h = id_hash(((const struct sigdb *)ctx)->diags[i].id);
	return 1;
}

static void build_index(struct hindex *ix, size_t n, hindex_hash_fn fn, const void *ctx)
{
	hindex_free(ix);
	while (hindex_crowded(ix, n))
		hindex_grow(ix, 0, fn, ctx);
	for (size_t i = 0; i < n; i++) {
		uint64_t h;
		fn(ctx, i, &h);
		hindex_put(ix, h, i);
	}
}

static int rule_hash_at(const void *ctx, size_t i, uint64_t *h)
{
	*h = id_hash(((const struct sigdb *)ctx)->rule_at[i]->id);
	return 1;
}

typedef const char *(*id_at_fn)(const struct sigdb *db, size_t i);

static const char *rule_id_at(const struct sigdb *db, size_t i)
{
	return db->rule_at[i]->id;
}

static const char *sig_id_at(const struct sigdb *db, size_t i)
{
	return db->sigs[i].id;
}

static const char *diag_id_at(const struct sigdb *db, size_t i)
{
	return db->diags[i].id;
}

/* Every entry named id in ix: marks used[i] for each when used is not NULL;
 * returns the first (lowest position), or -1. */
static long find_id(const struct sigdb *db, const struct hindex *ix, id_at_fn id_at, const char *id,
                    unsigned char *used)
{
	long first = -1;
	if (!ix->nslot)
		return -1;
	uint64_t h = id_hash(id);
	for (size_t sl = hindex_first(ix, h); ix->slot[sl]; sl = hindex_next(ix, sl)) {
		size_t i = ix->slot[sl] - 1;
		if (strcmp(id_at(db, i), id) != 0)
			continue;
		if (used)
			used[i] = 1;
		if (first < 0 || (long)i < first)
			first = (long)i;
	}
	return first;
}

const struct signature *sigdb_sig(const struct sigdb *db, const char *id)
{
	if (db->sig_ix.nslot && db->sig_ix_n == db->nsigs) {
		long i = find_id(db, &db->sig_ix, sig_id_at, id, NULL);
		return i < 0 ? NULL : &db->sigs[i];
	}
	for (size_t i = 0; i < db->nsigs; i++)
		if (strcmp(db->sigs[i].id, id) == 0)
			return &db->sigs[i];
	return NULL;
}

const struct diagdef *sigdb_diag(const struct sigdb *db, const char *id)
{
	if (db->diag_ix.nslot && db->diag_ix_n == db->ndiags) {
		long i = find_id(db, &db->diag_ix, diag_id_at, id, NULL);
		return i < 0 ? NULL : &db->diags[i];
	}
	for (size_t i = 0; i < db->ndiags; i++)
		if (strcmp(db->diags[i].id, id) == 0)
			return &db->diags[i];
	return NULL;
}

void sigdb_add_rules(struct sigdb *db, const struct rule_def *v, size_t n)
{
	db->rules = xrealloc(db->rules, (db->nrules + 1) * sizeof *db->rules);
	db->rules[db->nrules].v = v;
	db->rules[db->nrules].n = n;
	db->nrules++;
	db->nrule_defs += n;
}

const struct rule_def *sigdb_rule(const struct sigdb *db, const char *id)
{
	/* the index holds the rules in table order: its lowest position is
	 * the scan's first */
	if (db->rule_ix.nslot && db->rule_ix_n == db->nrule_defs) {
		long i = find_id(db, &db->rule_ix, rule_id_at, id, NULL);
		return i < 0 ? NULL : db->rule_at[i];
	}
	for (size_t t = 0; t < db->nrules; t++)
		for (size_t i = 0; i < db->rules[t].n; i++)
			if (strcmp(db->rules[t].v[i].id, id) == 0)
				return &db->rules[t].v[i];
	return NULL;
}

static int evidence_id_known(const struct sigdb *db, const char *id)
{
	return sigdb_sig(db, id) != NULL || sigdb_rule(db, id) != NULL;
}

int sig_accepts_level(enum sig_on on, int level)
{
	switch (on) {
	case ON_WARN: return level == LINE_WARN || level == LINE_PLAIN;
	case ON_INFO: return level == LINE_INFO || level == LINE_TRACE || level == LINE_PLAIN;
	case ON_NCCL: return 1;
	case ON_PLAIN: return level == LINE_PLAIN;
	default: return 1;
	}
}

/* A cross-check's message: "file:line: path: problem" while the file's text
 * is kept (until sigdb_finalize ends), like the loader's. */
static void ferr(const struct sigdb *db, struct msgs *m, const char *file, const char *fmt, ...) NT_PRINTF(4, 5);
static void ferr(const struct sigdb *db, struct msgs *m, const char *file, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	const char *text = NULL;
	struct buf again;
	buf_init(&again);
	for (size_t i = 0; i < db->files.n && i < db->texts.n; i++)
		if (strcmp(db->files.v[i], file) == 0) {
			text = db->texts.v[i];
			if (!text) {
				/* a file of sigdb_load_dir: its text was not kept (the
				 * file is its path); read as sigdb_load_dir read it */
				FILE *f = fopen(file, "rb");
				if (f && buf_read_file(&again, f, 64u << 20) == 0)
					text = again.data ? again.data : "";
				if (f)
					fclose(f);
			}
			break;
		}
	struct loadctx c = {file, m, 0, text, text ? strlen(text) : 0, NULL, NULL};
	char *colon = strstr(s, ": ");
	if (colon) {
		*colon = 0;
		lerr(&c, s, "%s", colon + 2);
	} else {
		msgs_add(m, "%s: %s", file, s);
	}
	free(s);
	buf_free(&again);
}

/* Whether some id of ix is there twice. */
static int has_duplicate(const struct sigdb *db, const struct hindex *ix, id_at_fn id_at, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (find_id(db, ix, id_at, id_at(db, i), NULL) != (long)i)
			return 1;
	return 0;
}

int sigdb_finalize(struct sigdb *db, struct msgs *m)
{
	int errors = 0;
	/* the id indexes first: every check below looks ids up */
	build_index(&db->sig_ix, db->nsigs, sig_hash_at, db);
	db->sig_ix_n = db->nsigs;
	build_index(&db->diag_ix, db->ndiags, diag_hash_at, db);
	db->diag_ix_n = db->ndiags;
	/* the fact rules' ids: ~140 lookups of each start-up scanned every
	 * rule (0.29 M instructions) */
	free(db->rule_at);
	db->rule_at = xmalloc((db->nrule_defs + 1) * sizeof *db->rule_at);
	size_t nr = 0;
	for (size_t t = 0; t < db->nrules; t++)
		for (size_t i = 0; i < db->rules[t].n; i++)
			db->rule_at[nr++] = &db->rules[t].v[i];
	build_index(&db->rule_ix, nr, rule_hash_at, db);
	db->rule_ix_n = nr;
	/* duplicates: found with the index; reported pair by pair, first
	 * occurrence first (only then is every pair compared) */
	if (has_duplicate(db, &db->sig_ix, sig_id_at, db->nsigs))
	for (size_t i = 0; i < db->nsigs; i++)
		for (size_t j = i + 1; j < db->nsigs; j++)
			if (strcmp(db->sigs[i].id, db->sigs[j].id) == 0) {
				ferr(db, m, db->sigs[j].file, "signatures[%zu].id: duplicate id \"%s\" (first in %s)",
				     db->sigs[j].index, db->sigs[j].id, db->sigs[i].file);
				errors++;
			}
	if (has_duplicate(db, &db->diag_ix, diag_id_at, db->ndiags))
	for (size_t i = 0; i < db->ndiags; i++)
		for (size_t j = i + 1; j < db->ndiags; j++)
			if (strcmp(db->diags[i].id, db->diags[j].id) == 0) {
				ferr(db, m, db->diags[j].file, "diagnoses[%zu].id: duplicate id \"%s\" (first in %s)",
				     db->diags[j].index, db->diags[j].id, db->diags[i].file);
				errors++;
			}
	for (size_t i = 0; i < db->ndiags; i++) {
		const struct diagdef *d = &db->diags[i];
		const struct strvec *lists[3] = {&d->when_any, &d->when_all, &d->when_none};
		static const char *lname[3] = {"any", "all", "none"};
		for (int k = 0; k < 3; k++)
			for (size_t j = 0; j < lists[k]->n; j++) {
				const struct signature *bs = sigdb_sig(db, lists[k]->v[j]);
				if (!bs && !evidence_id_known(db, lists[k]->v[j])) {
					ferr(db, m, d->file, "diagnoses[%zu].when.%s[%zu]: no signature or fact rule \"%s\"",
					     d->index, lname[k], j, lists[k]->v[j]);
					errors++;
				} else if (bs && bs->benign) {
					ferr(db, m, d->file, "diagnoses[%zu].when.%s[%zu]: \"%s\" is on the benign list: it never becomes evidence",
					     d->index, lname[k], j, lists[k]->v[j]);
					errors++;
				}
			}
		for (size_t j = 0; j < d->blames_any.n; j++)
			if (!sigdb_sig(db, d->blames_any.v[j]) && !evidence_id_known(db, d->blames_any.v[j])) {
				ferr(db, m, d->file, "diagnoses[%zu].blames.any[%zu]: no signature or fact rule \"%s\"", d->index, j,
				     d->blames_any.v[j]);
				errors++;
			}
		for (size_t j = 0; j < d->cascade_of.n; j++)
			if (!sigdb_diag(db, d->cascade_of.v[j])) {
				ferr(db, m, d->file, "diagnoses[%zu].cascade_of[%zu]: no diagnosis \"%s\"",
				     d->index, j, d->cascade_of.v[j]);
				errors++;
			}
	}
	/* every signature named in some diagnosis's "when" (each entry of an id
	 * that is there twice) */
	unsigned char *used = xcalloc(db->nsigs + 1, 1);
	for (size_t j = 0; j < db->ndiags; j++) {
		const struct diagdef *d = &db->diags[j];
		const struct strvec *lists[3] = {&d->when_any, &d->when_all, &d->when_none};
		for (int k = 0; k < 3; k++)
			for (size_t w = 0; w < lists[k]->n; w++)
				find_id(db, &db->sig_ix, sig_id_at, lists[k]->v[w], used);
	}
	for (size_t i = 0; i < db->nsigs; i++) {
		const struct signature *s = &db->sigs[i];
		if (!used[i] && !s->benign) { /* the benign list feeds the verdict, not a diagnosis */
			ferr(db, m, s->file, "signatures[%zu]: \"%s\" feeds no diagnosis", s->index, s->id);
			errors++;
		}
	}
	free(used);
	/* prefilter */
	acmatch_free(db->ac);
	db->ac = acmatch_new();
	for (int lv = 0; lv < 5; lv++) {
		free(db->always[lv]);
		db->always[lv] = NULL;
		db->nalways[lv] = 0;
	}
	for (size_t i = 0; i < db->nsigs; i++) {
		const struct signature *s = &db->sigs[i];
		if (s->literals.n) {
			for (size_t j = 0; j < s->literals.n; j++)
				acmatch_add(db->ac, s->literals.v[j], strlen(s->literals.v[j]), (uint32_t)i);
		} else {
			for (int lv = 0; lv < 5; lv++)
				if (sig_accepts_level(s->on, lv)) {
					db->always[lv] = xrealloc(db->always[lv], (db->nalways[lv] + 1) * sizeof(size_t));
					db->always[lv][db->nalways[lv]++] = i;
				}
		}
	}
	linekw_add(db->ac); /* the line keywords ride on the same pass */
	acmatch_build(db->ac);
	/* version: a hash of every id and regex, stable across runs */
	uint64_t h = HASH_SEED;
	for (size_t i = 0; i < db->nsigs; i++) {
		h = hash_bytes(h, db->sigs[i].id, strlen(db->sigs[i].id));
		h = hash_bytes(h, db->sigs[i].regex, strlen(db->sigs[i].regex));
	}
	/* and every byte of the pattern files (diagnoses, samples, coverage-free:
	 * the .json texts), hashed as they were read: one pass over the text
	 * costs less than walking the parsed diagnoses */
	h = hash_bytes(h, &db->text_hash, sizeof db->text_hash);
	snprintf(db->version, sizeof db->version, "%zu.%zu-%012llx", db->nsigs, db->ndiags,
	         (unsigned long long)(h & 0xffffffffffffULL));
	strvec_free(&db->texts); /* the lines of messages are no longer needed */
	return errors;
}

/* ---- self-test ---- */

/* Whether signature s feeds a diagnosis of severity error or warning. */
static int feeds_failure(const struct sigdb *db, const struct signature *s)
{
	for (size_t j = 0; j < db->ndiags; j++) {
		const struct diagdef *d = &db->diags[j];
		if (d->severity != SEV_INFO &&
		    (strvec_contains(&d->when_any, s->id) || strvec_contains(&d->when_all, s->id)))
			return 1;
	}
	return 0;
}

static const char *sample_line(const cJSON *it)
{
	if (cJSON_IsString(it))
		return it->valuestring;
	const cJSON *l = cJSON_IsObject(it) ? json_get(it, "line") : NULL;
	return cJSON_IsString(l) ? l->valuestring : NULL;
}

/* The benign list and the failure signatures must not overlap: no sample
 * of a benign entry matches a signature that feeds an error or warning
 * diagnosis, and no sample of such a signature matches a benign entry (a
 * line is either noise or evidence, never both). */
static int benign_crosscheck(const struct sigdb *db, struct msgs *m, size_t *ok, pcre2_match_data *md,
                             pcre2_match_context *mc)
{
	int fails = 0;
	for (size_t i = 0; i < db->nsigs; i++) {
		const struct signature *a = &db->sigs[i];
		int abenign = a->benign != NULL;
		if (!abenign && !feeds_failure(db, a))
			continue;
		const cJSON *it;
		size_t k = 0;
		cJSON_ArrayForEach(it, json_get(a->json, "samples")) {
			const char *line = sample_line(it);
			k++;
			if (!line)
				continue;
			struct logline ll;
			logline_parse(line, strlen(line), &ll);
			for (size_t j = 0; j < db->nsigs; j++) {
				const struct signature *o = &db->sigs[j];
				if (j == i || (o->benign != NULL) == abenign || (!o->benign && !feeds_failure(db, o)) ||
				    !sig_accepts_level(o->on, ll.level))
					continue;
				const pcre2_code *oc = sigdb_code(o);
				if (oc && pcre2_match(oc, (PCRE2_SPTR)ll.msg.p, ll.msg.n, 0, 0, md, mc) >= 0) {
					msgs_add(m, "%s: signatures[%zu].samples[%zu]: \"%s\" also matches %s \"%s\" (%s): "
					            "a line is either benign or failure evidence",
					         a->file, a->index, k - 1, a->id, abenign ? "the failure signature" : "the benign entry",
					         o->id, o->file);
					fails++;
				}
			}
		}
	}
	(void)ok; /* pairs that do not overlap are not counted as samples */
	return fails;
}

static int literal_present(const struct signature *s, const char *msg, size_t n)
{
	if (s->literals.n == 0)
		return 1;
	for (size_t i = 0; i < s->literals.n; i++)
		if (memmem(msg, n, s->literals.v[i], strlen(s->literals.v[i])))
			return 1;
	return 0;
}

/* A sample in a zeroed buffer with room after it: PCRE2's JIT reads a few
 * bytes past the end of the subject, which must be initialised memory
 * (cJSON's strings may sit in a larger, partly uninitialised allocation;
 * valgrind reports the difference). */
static char *padded(const char *s)
{
	size_t n = strlen(s);
	char *p = xcalloc(n + 64, 1);
	memcpy(p, s, n);
	return p;
}

static int limit_hit(int rc)
{
	return rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT ||
	       rc == PCRE2_ERROR_JIT_STACKLIMIT;
}

/* A sample's expected captures against the match (rc groups in md); 1 when all agree. */
static int check_captures(const struct signature *s, size_t k, const cJSON *want, const struct logline *ll, int rc,
                          pcre2_match_data *md, struct msgs *m)
{
	int good = 1;
	const cJSON *cw;
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
	cJSON_ArrayForEach(cw, want) {
		int found = 0;
		for (size_t g = 1; g < s->ncapnames; g++) {
			if (!s->capnames[g] || strcmp(s->capnames[g], cw->string) != 0)
				continue;
			found = 1;
			const char *exp = cJSON_IsString(cw) ? cw->valuestring : "";
			if ((int)g >= rc || ov[2 * g] == PCRE2_UNSET) {
				msgs_add(m, "%s: signatures[%zu].samples[%zu].captures.%s: expected \"%s\", group did not participate",
				         s->file, s->index, k, cw->string, exp);
				good = 0;
			} else {
				size_t L = ov[2 * g + 1] - ov[2 * g];
				if (strlen(exp) != L || memcmp(exp, ll->msg.p + ov[2 * g], L) != 0) {
					msgs_add(m, "%s: signatures[%zu].samples[%zu].captures.%s: expected \"%s\", got \"%.*s\"",
					         s->file, s->index, k, cw->string, exp, (int)L, ll->msg.p + ov[2 * g]);
					good = 0;
				}
			}
		}
		if (!found) {
			msgs_add(m, "%s: signatures[%zu].samples[%zu].captures.%s: the regex has no such named group",
			         s->file, s->index, k, cw->string);
			good = 0;
		}
	}
	return good;
}

static int check_result(const struct signature *s, size_t k, const cJSON *want, const struct logline *ll, int rc,
                        pcre2_match_data *md, struct msgs *m);

/* The padded-line probe: a sample followed by this many blanks and one
 * character must finish within 1% of the match limit (what analyze calls a
 * slow match): a regex that backtracks over a run of blanks, such as a lazy
 * "(.+?)\s*$", needs the square of the run. */
#define PROBE_BLANKS 65000

static int check_padded(const struct signature *s, size_t k, const char *line, pcre2_match_data *md,
                        pcre2_match_context *fast, struct msgs *m)
{
	size_t n = strlen(line);
	char *pad = xcalloc(n + PROBE_BLANKS + 64, 1);
	memcpy(pad, line, n);
	memset(pad + n, ' ', PROBE_BLANKS);
	pad[n + PROBE_BLANKS] = 'x';
	struct logline ll;
	logline_parse(pad, n + PROBE_BLANKS + 1, &ll);
	int rc = sig_accepts_level(s->on, ll.level)
	         ? pcre2_match(sigdb_code(s), (PCRE2_SPTR)ll.msg.p, ll.msg.n, 0, 0, md, fast) : 0;
	free(pad);
	if (!limit_hit(rc))
		return 1;
	msgs_add(m, "%s: signatures[%zu].samples[%zu]: \"%s\" needs more than 1%% of the regex match limit on the sample "
	         "followed by %d blanks and a character (a regex that backtracks over blanks, such as (.+?)\\s*$: "
	         "write (?<name>(?>\\s*\\S)+)\\s*$)", s->file, s->index, k, s->id, PROBE_BLANKS);
	return 0;
}

/* Sample k (a line, or {"line", "captures"}) must match; 1 when it does as told. */
static int check_sample(const struct signature *s, size_t k, const cJSON *it, pcre2_match_data *md,
                        pcre2_match_context *mc, pcre2_match_context *fast, struct msgs *m)
{
	const char *line = cJSON_IsString(it) ? it->valuestring
	                 : get_str(&(struct loadctx){s->file, m, 0, NULL, 0, NULL, NULL}, it, "line", "sample", 0);
	const cJSON *want = cJSON_IsObject(it) ? json_get(it, "captures") : NULL;
	if (!line) {
		msgs_add(m, "%s: signatures[%zu].samples[%zu]: needs a \"line\" string", s->file, s->index, k);
		return 0;
	}
	struct logline ll;
	char *pad = padded(line);
	logline_parse(pad, strlen(pad), &ll);
	int rc = -1;
	if (sig_accepts_level(s->on, ll.level))
		rc = sigdb_code(s) ? pcre2_match(sigdb_code(s), (PCRE2_SPTR)ll.msg.p, ll.msg.n, 0, 0, md, mc) : PCRE2_ERROR_NULL;
	int good = check_result(s, k, want, &ll, rc, md, m);
	free(pad);
	return good && check_padded(s, k, line, md, fast, m);
}

/* The match of sample k (rc, md) judged: the limit, a miss, the prefilter,
 * the captures; 1 when it passes. */
static int check_result(const struct signature *s, size_t k, const cJSON *want, const struct logline *ll, int rc,
                        pcre2_match_data *md, struct msgs *m)
{
	if (limit_hit(rc)) {
		msgs_add(m, "%s: signatures[%zu].samples[%zu]: \"%s\" exceeded the regex match limit (catastrophic backtracking?)",
		         s->file, s->index, k, s->id);
		return 0;
	}
	if (rc < 0) {
		msgs_add(m, "%s: signatures[%zu].samples[%zu]: \"%s\" does not match%s", s->file, s->index, k, s->id,
		         sig_accepts_level(s->on, ll->level) ? "" : " (line level not accepted by \"on\")");
		return 0;
	}
	if (!literal_present(s, ll->msg.p, ll->msg.n)) {
		msgs_add(m, "%s: signatures[%zu].samples[%zu]: matches but contains none of the literals (prefilter would skip it)",
		         s->file, s->index, k);
		return 0;
	}
	return check_captures(s, k, want, ll, rc, md, m);
}

/* Negative sample k must not match; 1 when it does not. */
static int check_negative(const struct signature *s, size_t k, const cJSON *it, pcre2_match_data *md,
                          pcre2_match_context *mc, struct msgs *m)
{
	if (!cJSON_IsString(it)) {
		msgs_add(m, "%s: signatures[%zu].negative_samples[%zu]: must be a string", s->file, s->index, k);
		return 0;
	}
	struct logline ll;
	char *pad = padded(it->valuestring);
	logline_parse(pad, strlen(pad), &ll);
	int rc = -1;
	if (sig_accepts_level(s->on, ll.level))
		rc = sigdb_code(s) ? pcre2_match(sigdb_code(s), (PCRE2_SPTR)ll.msg.p, ll.msg.n, 0, 0, md, mc) : PCRE2_ERROR_NULL;
	free(pad);
	if (rc >= 0) {
		msgs_add(m, "%s: signatures[%zu].negative_samples[%zu]: \"%s\" matches but must not",
		         s->file, s->index, k, s->id);
		return 0;
	}
	if (limit_hit(rc)) {
		msgs_add(m, "%s: signatures[%zu].negative_samples[%zu]: \"%s\" exceeded the regex match limit (catastrophic backtracking?)",
		         s->file, s->index, k, s->id);
		return 0;
	}
	return 1;
}

int sigdb_selftest(const struct sigdb *db, struct msgs *m, size_t *ok)
{
	int fails = 0;
	*ok = 0;
	pcre2_match_data *md = pcre2_match_data_create(db->max_capture_groups + 1, NULL);
	/* the limits analyze uses: a catastrophic regex fails here quickly too */
	pcre2_match_context *mc = pcre2_match_context_create(NULL);
	pcre2_set_match_limit(mc, db->match_limit);
	pcre2_set_depth_limit(mc, db->depth_limit);
	/* and analyze's slow-match threshold and JIT stack (match.c), for the probe */
	pcre2_match_context *fast = pcre2_match_context_create(NULL);
	uint32_t fl = db->match_limit / 100;
	pcre2_set_match_limit(fast, fl > 1000 ? fl : 1000);
	pcre2_set_depth_limit(fast, db->depth_limit);
	pcre2_jit_stack *js = pcre2_jit_stack_create(32 * 1024, 1024 * 1024, NULL);
	if (js)
		pcre2_jit_stack_assign(fast, NULL, js);
	for (size_t i = 0; i < db->nsigs; i++) {
		const struct signature *s = &db->sigs[i];
		size_t k = 0;
		const cJSON *it;
		cJSON_ArrayForEach(it, json_get(s->json, "samples")) {
			if (check_sample(s, k++, it, md, mc, fast, m))
				(*ok)++;
			else
				fails++;
		}
		k = 0;
		cJSON_ArrayForEach(it, json_get(s->json, "negative_samples")) {
			if (check_negative(s, k++, it, md, mc, m))
				(*ok)++;
			else
				fails++;
		}
	}
	fails += benign_crosscheck(db, m, ok, md, mc);
	fails += derive_selftest(&db->derived, m, ok);
	pcre2_match_data_free(md);
	pcre2_match_context_free(mc);
	pcre2_match_context_free(fast);
	if (js)
		pcre2_jit_stack_free(js);
	return fails;
}

static int family_present(const struct sigdb *db, const char *prefix)
{
	size_t n = strlen(prefix);
	for (size_t i = 0; i < db->nsigs; i++)
		if (strncmp(db->sigs[i].id, prefix, n) == 0)
			return 1;
	for (size_t i = 0; i < db->ndiags; i++)
		if (strncmp(db->diags[i].id, prefix, n) == 0)
			return 1;
	for (size_t t = 0; t < db->nrules; t++)
		for (size_t i = 0; i < db->rules[t].n; i++)
			if (strncmp(db->rules[t].v[i].id, prefix, n) == 0)
				return 1;
	return 0;
}

int sigdb_check_patids(const struct sigdb *db, struct msgs *m)
{
	static const char *const WHAT[] = {"signature", "diagnosis", "fact rule", "id family", "category", "derived row"};
	int missing = 0;
	for (size_t i = 0; i < NPATIDS; i++) {
		const struct patid *p = &PATIDS[i];
		int ok = 0;
		switch (p->kind) {
		case PATID_SIGNATURE: ok = sigdb_sig(db, p->id) != NULL; break;
		case PATID_DIAGNOSIS: ok = sigdb_diag(db, p->id) != NULL; break;
		case PATID_RULE: ok = sigdb_rule(db, p->id) != NULL; break;
		case PATID_FAMILY: ok = family_present(db, p->id); break;
		case PATID_CATEGORY: ok = category_valid(p->id); break;
		case PATID_DERIVED_ROW:
			for (size_t k = 0; k < db->derived.n && !ok; k++)
				ok = strcmp(db->derived.v[k].id, p->id) == 0;
			break;
		}
		if (!ok) {
			msgs_add(m, "analyzer/patids.h: the %s \"%s\" (named in %s) is not in the database",
			         WHAT[p->kind], p->id, p->used_in);
			missing++;
		}
	}
	return missing;
}
