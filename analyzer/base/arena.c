/* arena.c - see arena.h.  The cap costs the common case nothing: the
 * chunk handed out from ends (end) where the cap would be passed, so only
 * arena_more, on the way to a new chunk, checks it. */
#include "base/arena.h"

#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* c (the head) may be handed out up to the cap: done + c->used <= max */
static void clip(const struct arena *a, struct arena_chunk *c)
{
	c->end = c->size;
	if (a->max && a->max - a->done < c->end)
		c->end = a->max - a->done;
}

void *arena_more(struct arena *a, size_t n)
{
	struct arena_chunk *c = a->head;
	if (a->max && n > a->max - a->done - (c ? c->used : 0)) {
		a->over = 1;
		return NULL;
	}
	if (n > ARENA_CHUNK / 4) {
		struct arena_chunk *big = xmalloc(sizeof *big + n);
		big->used = big->end = big->size = n;
		if (c) {
			big->next = c->next;
			c->next = big;
			a->done += n;
			clip(a, c);
		} else {
			big->next = NULL;
			a->head = big;
		}
		return big->data;
	}
	struct arena_chunk *nc = a->spare;
	if (nc) {
		a->spare = nc->next;
	} else {
		nc = xmalloc(sizeof *nc + ARENA_CHUNK);
		nc->size = ARENA_CHUNK;
	}
	if (c)
		a->done += c->used;
	nc->next = c;
	nc->used = n;
	a->head = nc;
	clip(a, nc);
	return nc->data;
}

void *arena_alloc(struct arena *a, size_t n)
{
	return arena_take(a, n ? n : 1, alignof(max_align_t));
}

void *arena_zalloc(struct arena *a, size_t n)
{
	void *p = arena_alloc(a, n);
	return p ? memset(p, 0, n) : NULL;
}

char *arena_chars(struct arena *a, size_t n)
{
	return arena_take(a, n ? n : 1, 1);
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_take(a, n + 1, 1);
	if (p) {
		memcpy(p, s, n);
		p[n] = 0;
	}
	return p;
}

void arena_reset(struct arena *a, size_t keep)
{
	size_t held = 0;
	struct arena_chunk *kept = NULL, *lists[2] = {a->head, a->spare};
	for (int l = 0; l < 2; l++)
		for (struct arena_chunk *c = lists[l], *next; c; c = next) {
			next = c->next;
			if (c->size == ARENA_CHUNK && keep >= ARENA_CHUNK && held <= keep - ARENA_CHUNK) {
				held += ARENA_CHUNK;
				c->next = kept;
				kept = c;
			} else {
				free(c);
			}
		}
	a->head = NULL;
	a->spare = kept;
	a->done = 0;
	a->over = 0;
}

void arena_free(struct arena *a)
{
	arena_reset(a, 0);
}
