/* arena.c - see arena.h. */
#include "base/arena.h"

#include <stdalign.h>
#include <stddef.h>
#include <string.h>

#include "base/util.h"

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, size;
	max_align_t data[]; /* size bytes */
};

/* n bytes at alignment al (a power of two) */
static void *take(struct arena *a, size_t n, size_t al)
{
	struct arena_chunk *c = a->head;
	size_t at = c ? (c->used + al - 1) & ~(al - 1) : 0;
	if (c && at <= c->size && c->size - at >= n) {
		c->used = at + n;
		return (char *)c->data + at;
	}
	size_t csz = a->chunk ? a->chunk : ARENA_CHUNK;
	if (n > csz / 4) {
		/* a large piece gets a chunk of its own, behind the head: the
		 * head's free room stays in use */
		struct arena_chunk *big = xmalloc(sizeof *big + n);
		big->used = big->size = n;
		if (c) {
			big->next = c->next;
			c->next = big;
		} else {
			big->next = NULL;
			a->head = big;
		}
		return big->data;
	}
	c = xmalloc(sizeof *c + csz);
	c->next = a->head;
	c->used = n;
	c->size = csz;
	a->head = c;
	return c->data;
}

void *arena_alloc(struct arena *a, size_t n)
{
	return take(a, n ? n : 1, alignof(max_align_t));
}

char *arena_chars(struct arena *a, size_t n)
{
	return take(a, n ? n : 1, 1);
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = take(a, n + 1, 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

void arena_free(struct arena *a)
{
	for (struct arena_chunk *c = a->head, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	a->head = NULL;
}
