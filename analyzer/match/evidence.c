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

static void evidence_free(struct evidence *e)
{
	free(e->id);
	free(e->path);
	free(e->text);
	free(e->host);
	free(e->ts);
	for (size_t i = 0; i < e->ncaps; i++) {
		free(e->caps[i].name);
		free(e->caps[i].value);
	}
	free(e->caps);
	free(e->cspan);
	for (unsigned i = 0; i < e->nbefore; i++)
		free(e->before[i]);
	for (unsigned i = 0; i < e->nafter; i++)
		free(e->after[i]);
}

void evlist_free(struct evlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		evidence_free(&l->v[i]);
	free(l->v);
	for (size_t i = 0; i < l->ncounts; i++)
		free(l->counts[i].id);
	free(l->counts);
	memset(l, 0, sizeof *l);
}

static size_t *count_slot(struct evlist *l, const char *id, int create)
{
	for (size_t i = 0; i < l->ncounts; i++)
		if (strcmp(l->counts[i].id, id) == 0)
			return &l->counts[i].count;
	if (!create)
		return NULL;
	if (l->ncounts == l->capcounts) {
		l->capcounts = l->capcounts ? l->capcounts * 2 : 16;
		l->counts = xrealloc(l->counts, l->capcounts * sizeof *l->counts);
	}
	l->counts[l->ncounts].id = xstrdup(id);
	l->counts[l->ncounts].count = 0;
	return &l->counts[l->ncounts++].count;
}

struct evidence *evlist_add(struct evlist *l, const char *id, const char *path,
                            uint64_t line, const char *text, size_t textlen,
                            const struct capture *caps, size_t ncaps)
{
	size_t *cnt = count_slot(l, id, 1);
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
	e->id = xstrdup(id);
	e->path = xstrdup(path ? path : "");
	e->line = line;
	e->text = str_sanitize_cut(text ? text : "", text ? textlen : 0, EVIDENCE_TEXT_MAX);
	e->length = text ? textlen : 0;
	e->cut = text && textlen > EVIDENCE_TEXT_MAX;
	e->rank = -1;
	e->pid = -1;
	e->seq = seq;
	if (ncaps) {
		e->caps = xcalloc(ncaps, sizeof *e->caps);
		for (size_t i = 0; i < ncaps; i++) {
			e->caps[i].name = xstrdup(caps[i].name);
			e->caps[i].value = str_sanitize(caps[i].value, strlen(caps[i].value));
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
