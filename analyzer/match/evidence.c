/* evidence.c - see evidence.h. */
#include "match/evidence.h"

#include <stdlib.h>
#include <string.h>
#include "base/util.h"

void evlist_init(struct evlist *l)
{
	memset(l, 0, sizeof *l);
	l->per_id_cap = 200;
}

void evlist_free(struct evlist *l)
{
	free(l->v); /* the evidence's strings are in l->strs */
	for (size_t i = 0; i < l->ncounts; i++)
		free(l->counts[i].id);
	free(l->counts);
	hindex_free(&l->cix);
	arena_free(&l->strs);
	memset(l, 0, sizeof *l);
}

static int count_hash_at(const void *ctx, size_t i, uint64_t *h)
{
	const struct evlist *l = ctx;
	*h = hash_str(HASH_SEED, l->counts[i].id);
	return 1;
}

static size_t *count_slot(struct evlist *l, const char *id, int create)
{
	uint64_t h = hash_str(HASH_SEED, id);
	if (l->cix.nslot)
		for (size_t s = hindex_first(&l->cix, h); l->cix.slot[s]; s = hindex_next(&l->cix, s))
			if (strcmp(l->counts[l->cix.slot[s] - 1].id, id) == 0)
				return &l->counts[l->cix.slot[s] - 1].count;
	if (!create)
		return NULL;
	if (l->ncounts == l->capcounts) {
		l->capcounts = l->capcounts ? l->capcounts * 2 : 16;
		l->counts = xrealloc(l->counts, l->capcounts * sizeof *l->counts);
	}
	l->counts[l->ncounts].id = xstrdup(id);
	l->counts[l->ncounts].count = 0;
	l->ncounts++;
	if (hindex_crowded(&l->cix, l->ncounts))
		hindex_grow(&l->cix, l->ncounts, count_hash_at, l);
	else
		hindex_put(&l->cix, h, l->ncounts - 1);
	return &l->counts[l->ncounts - 1].count;
}

int evlist_count_capped(struct evlist *l, size_t slot)
{
	if (slot >= l->ncounts || l->counts[slot].count < l->per_id_cap)
		return 0;
	l->counts[slot].count++;
	l->next_seq++;
	return 1;
}

long evlist_slot(const struct evlist *l, const char *id)
{
	size_t *c = count_slot((struct evlist *)l, id, 0);
	return c ? (long)((const char *)c - (const char *)&l->counts[0].count) / (long)sizeof *l->counts : -1;
}

int evlist_full(const struct evlist *l, const char *id)
{
	size_t *c = count_slot((struct evlist *)l, id, 0);
	return c && *c >= l->per_id_cap;
}

char *evlist_keep(struct evlist *l, const char *s)
{
	return arena_strndup(&l->strs, s, strlen(s));
}

char *evlist_keepn(struct evlist *l, const char *s, size_t n)
{
	return arena_strndup(&l->strs, s, n);
}

static char *keep_sanitized(struct evlist *l, const char *s, size_t n, size_t max, struct evline *lm);

char *evlist_keep_sanitized(struct evlist *l, const char *s, size_t n)
{
	return keep_sanitized(l, s, n, SIZE_MAX, NULL); /* str_sanitize_cut(s, n, SIZE_MAX) is str_sanitize(s, n) */
}

char *evlist_keep_line(struct evlist *l, const char *s, size_t n, size_t max, struct evline *lm)
{
	return keep_sanitized(l, s, n, max, lm);
}

void *evlist_zalloc(struct evlist *l, size_t n)
{
	return arena_zalloc(&l->strs, n);
}

/* s (malloc'ed, freed here) copied into the list */
static char *keep_free(struct evlist *l, char *s)
{
	char *k = evlist_keep(l, s);
	free(s);
	return k;
}

/* str_sanitize_cut(s, n, max) kept in the list: the same bytes.  Nearly
 * every line is printable ASCII: copied straight into the arena and its
 * secrets masked there (str_sanitize does that to a malloc'ed copy), with
 * no temporary copy; anything else takes str_sanitize_cut's path.
 * lm (NULL: none): the line's memo (struct evline).  With it, the bytes
 * that decide are the first need = min(n, max + 1): when they are clean,
 * s[max] is ASCII (so str_cut_at cuts at max), the cut is clean (a prefix
 * of a clean text is clean) and str_mask_secrets leaves it as it is: the
 * result is the plain copy.  Otherwise the path below, as without it. */
static char *keep_sanitized(struct evlist *l, const char *s, size_t n, size_t max, struct evline *lm)
{
	if (lm) {
		size_t need = n <= max ? n : max + 1;
		if (!(lm->state == 1 && lm->len >= need) && !(lm->state == 2 && lm->len <= need)) {
			lm->state = str_sanitize_keeps(s, need) ? 1 : 2;
			lm->len = need;
		}
		if (lm->state == 1 && lm->len >= need) {
			size_t k = n <= max ? n : max;
			char *t = arena_chars(&l->strs, k + (n > max ? 4 : 1));
			memcpy(t, s, k);
			if (n > max)
				memcpy(t + k, "\xe2\x80\xa6", 4); /* "…" and the NUL */
			else
				t[k] = 0;
			return t;
		}
	}
	size_t cut = n <= max ? n : str_cut_at(s, n, max);
	if (str_printable_run(s, cut) != cut)
		return keep_free(l, str_sanitize_cut(s, n, max));
	char *t = arena_chars(&l->strs, cut + (n > max ? 4 : 1));
	memcpy(t, s, cut);
	size_t k = str_mask_secrets(t, cut); /* never longer; terminates it */
	if (n > max)
		memcpy(t + k, "\xe2\x80\xa6", 4); /* "…" and the NUL, as str_sanitize_cut */
	return t;
}

static struct evidence *add(struct evlist *l, size_t *cnt, const char *path, uint64_t line, const char *text,
                            size_t textlen, struct evline *lm, const struct capture *caps, size_t ncaps,
                            uint32_t clean);

struct evidence *evlist_add(struct evlist *l, const char *id, const char *path,
                            uint64_t line, const char *text, size_t textlen,
                            const struct capture *caps, size_t ncaps)
{
	return add(l, count_slot(l, id, 1), path, line, text, textlen, NULL, caps, ncaps, 0);
}

struct evidence *evlist_add_at(struct evlist *l, size_t slot, const char *path, uint64_t line,
                               const char *text, size_t textlen, struct evline *lm,
                               const struct capture *caps, size_t ncaps, uint32_t clean)
{
	return add(l, &l->counts[slot].count, path, line, text, textlen, lm, caps, ncaps, clean);
}

/* cnt: the id's count (in l->counts); lm: the text's memo or NULL
 * (keep_sanitized); clean: as evlist_add_at */
static struct evidence *add(struct evlist *l, size_t *cnt, const char *path, uint64_t line, const char *text,
                            size_t textlen, struct evline *lm, const struct capture *caps, size_t ncaps,
                            uint32_t clean)
{
	(*cnt)++;
	uint64_t seq = l->next_seq++;
	if (*cnt > l->per_id_cap)
		return NULL;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 32;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	struct evidence *e = &l->v[l->n++];
	memset(e, 0, sizeof *e);
	e->id_slot = (size_t)((const char *)cnt - (const char *)&l->counts[0].count) / sizeof *l->counts;
	e->id = l->counts[e->id_slot].id;
	if (!path)
		path = "";
	if (!l->last_path || strcmp(l->last_path, path) != 0)
		l->last_path = arena_strndup(&l->strs, path, strlen(path));
	e->path = (char *)l->last_path;
	e->line = line;
	e->text = text ? keep_sanitized(l, text, textlen, EVIDENCE_TEXT_MAX, lm) : keep_sanitized(l, "", 0, EVIDENCE_TEXT_MAX, NULL);
	e->length = text ? textlen : 0;
	e->cut = text && textlen > EVIDENCE_TEXT_MAX;
	e->rank = -1;
	e->pid = -1;
	e->seq = seq;
	if (ncaps) {
		e->caps = arena_alloc(&l->strs, ncaps * sizeof *e->caps);
		for (size_t i = 0; i < ncaps; i++) {
			e->caps[i].name = arena_strndup(&l->strs, caps[i].name, strlen(caps[i].name));
			size_t vn = strlen(caps[i].value);
			e->caps[i].value = i < 32 && (clean >> i & 1) ? arena_strndup(&l->strs, caps[i].value, vn)
			                                             : keep_sanitized(l, caps[i].value, vn, SIZE_MAX, NULL);
		}
		e->ncaps = ncaps;
	}
	return e;
}

size_t evlist_count(const struct evlist *l, const char *id)
{
	size_t *c = count_slot((struct evlist *)l, id, 0);
	return c ? *c : 0;
}

int evlist_has(const struct evlist *l, const char *id)
{
	return evlist_count(l, id) > 0;
}

const char *evidence_cap(const struct evidence *e, const char *name)
{
	for (size_t i = 0; i < e->ncaps; i++)
		if (strcmp(e->caps[i].name, name) == 0)
			return e->caps[i].value;
	return NULL;
}
