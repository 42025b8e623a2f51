/* redact_names.c - see redact_names.h. */
#include "report/redact_names.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/json.h"
#include "base/util.h"

/* original name -> neutral name, hashed */
struct names {
	char **from, **to;
	int *in_text;       /* replaced in free text too (it holds '.' or '/') */
	size_t n, cap;
	struct hindex ix;
};

static int name_hash_at(const void *ctx, size_t i, uint64_t *h)
{
	const struct names *m = ctx;
	*h = hash_str(HASH_SEED, m->from[i]);
	return 1;
}

static long find(const struct names *m, const char *s, size_t n)
{
	if (!m->ix.nslot || !n)
		return -1;
	for (size_t sl = hindex_first(&m->ix, hash_bytes(HASH_SEED, s, n)); m->ix.slot[sl]; sl = hindex_next(&m->ix, sl)) {
		size_t i = m->ix.slot[sl] - 1;
		if (strlen(m->from[i]) == n && memcmp(m->from[i], s, n) == 0)
			return (long)i;
	}
	return -1;
}

/* The first name given wins (the bundle's name is added after its
 * documents': a file operand's name is its document's too). */
static void add(struct names *m, const char *from, char *to)
{
	if (!*from || find(m, from, strlen(from)) >= 0) {
		free(to);
		return;
	}
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 16;
		m->from = xrealloc(m->from, m->cap * sizeof *m->from);
		m->to = xrealloc(m->to, m->cap * sizeof *m->to);
		m->in_text = xrealloc(m->in_text, m->cap * sizeof *m->in_text);
	}
	m->from[m->n] = xstrdup(from);
	m->to[m->n] = to;
	m->in_text[m->n] = strchr(from, '.') || strchr(from, '/');
	m->n++;
	if (hindex_crowded(&m->ix, m->n))
		hindex_grow(&m->ix, m->n, name_hash_at, m);
	else
		hindex_put(&m->ix, hash_str(HASH_SEED, from), m->n - 1);
}

static void names_free(struct names *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->from[i]);
		free(m->to[i]);
	}
	free(m->from);
	free(m->to);
	free(m->in_text);
	hindex_free(&m->ix);
}

/* ".log", ".log.gz" of a document's file name ("" when it has none); a
 * repeated name's " (2)" is not part of it. */
static void extension(const char *path, char *out, size_t on)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base);
	const char *paren = strstr(base, " (");
	if (paren && base[n - 1] == ')')
		n = (size_t)(paren - base);
	size_t e = n, dots = 0;
	*out = 0;
	for (size_t i = n; i > 1 && dots < 2; i--) {
		char c = base[i - 1];
		if (c == '.') {
			size_t len = e - i;
			if (len < 1 || len > 10)
				break;
			/* a second extension only under a compression's (".log.gz") */
			if (dots == 1) {
				const char *z = base + e + 1;
				if (strncmp(z, "gz", 2) && strncmp(z, "bz2", 3) && strncmp(z, "xz", 2) && strncmp(z, "zst", 3))
					break;
			}
			snprintf(out, on, "%.*s", (int)(n - (i - 1)), base + i - 1);
			e = i - 1;
			dots++;
		} else if (!isalnum((unsigned char)c)) {
			break;
		}
	}
}

static int name_char(unsigned char c)
{
	return isalnum(c) || c == '.' || c == '-' || c == '_' || c == '/' || c == '+' || c == '~' || c >= 0x80;
}

/* s with the names it holds whole replaced; NULL when there is none. */
static char *rename_text(const struct names *m, const char *s)
{
	struct buf out;
	buf_init(&out);
	int changed = 0;
	size_t i = 0, name_end = (size_t)-1; /* where a replaced NAME of NAME/member ends */
	while (s[i]) {
		unsigned char c = (unsigned char)s[i];
		int start = i == 0 || !name_char((unsigned char)s[i - 1]) || (i == name_end + 1 && s[i - 1] == '/');
		if (!start || !name_char(c)) {
			buf_addc(&out, s[i++]);
			continue;
		}
		size_t e = i;
		while (name_char((unsigned char)s[e]))
			e++;
		/* the run whole (with a repeated name's " (2)"), or without the
		 * dots that end a sentence */
		long k = -1;
		size_t end = e;
		if (s[e] == ' ' && s[e + 1] == '(' && isdigit((unsigned char)s[e + 2])) {
			size_t q = e + 2;
			while (isdigit((unsigned char)s[q]))
				q++;
			if (s[q] == ')' && (k = find(m, s + i, q + 1 - i)) >= 0 && m->in_text[k])
				end = q + 1;
			else
				k = -1;
		}
		for (size_t t = e; k < 0 && t > i; t--) {
			if ((k = find(m, s + i, t - i)) >= 0 && m->in_text[k])
				end = t;
			else
				k = -1;
			if (s[t - 1] != '.')
				break;
		}
		if (k >= 0) {
			buf_adds(&out, m->to[k]);
			i = end;
			changed = 1;
			continue;
		}
		/* NAME/member: the longest name before a '/' */
		size_t p = e;
		while (p > i && (s[p - 1] != '/' || (k = find(m, s + i, p - 1 - i)) < 0))
			p--;
		if (p > i) {
			buf_adds(&out, m->to[k]);
			i = name_end = p - 1;
			changed = 1;
			continue;
		}
		buf_add(&out, s + i, e - i);
		i = e;
	}
	if (!changed) {
		buf_free(&out);
		return NULL;
	}
	return buf_steal(&out);
}

static void set_string(cJSON *it, char *s)
{
	free(it->valuestring);
	it->valuestring = s;
}

static void walk(const struct names *m, cJSON *item, const char *key)
{
	for (cJSON *it = item; it; it = it->next) {
		if (it->string && !(it->type & cJSON_StringIsConst)) {
			char *k = rename_text(m, it->string);
			if (k) {
				free(it->string);
				it->string = k;
			}
		}
		const char *kk = it->string ? it->string : key;
		if (cJSON_IsString(it) && it->valuestring) {
			long k = kk && !strcmp(kk, "path") ? find(m, it->valuestring, strlen(it->valuestring)) : -1;
			char *v = k >= 0 ? xstrdup(m->to[k]) : rename_text(m, it->valuestring);
			if (v)
				set_string(it, v);
		}
		if (it->child)
			walk(m, it->child, kk);
	}
}

void redact_names(cJSON *bundle, unsigned n)
{
	if (!cJSON_IsObject(bundle))
		return;
	struct names m;
	memset(&m, 0, sizeof m);
	cJSON *name = json_get(bundle, "name");
	size_t k = 0;
	const cJSON *in;
	cJSON_ArrayForEach(in, json_get(bundle, "inputs")) {
		k++;
		const char *p = json_str(in, "path");
		if (!p)
			continue;
		char ext[32];
		extension(p, ext, sizeof ext);
		add(&m, p, xasprintf("doc-%zu%s", k, ext));
	}
	/* after the documents: a file operand's name is its document's too */
	if (cJSON_IsString(name)) {
		add(&m, name->valuestring, xasprintf("bundle-%u", n));
		set_string(name, xasprintf("bundle-%u", n));
	}
	walk(&m, bundle->child, NULL);
	names_free(&m);
}
