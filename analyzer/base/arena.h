/* arena.h - memory for many small things of one owner that die together
 * (a bundle's evidence texts and context lines): handed out from chunks,
 * freed all at once with arena_free.  Saves malloc's per-block overhead
 * (16 bytes and more on a 40-byte string) and a free per string.  Not
 * thread-safe: one thread uses an arena at a time. */
#ifndef NT_ARENA_H
#define NT_ARENA_H

#include <stddef.h>

struct arena_chunk;
struct arena {
	struct arena_chunk *head; /* the chunk handed out from; older ones behind it */
	size_t chunk;             /* bytes of a chunk: ARENA_CHUNK unless set before the first use */
};

#define ARENA_CHUNK (64u << 10)

/* n bytes aligned for any type. */
void *arena_alloc(struct arena *a, size_t n);
/* n bytes for characters (unaligned, not initialised). */
char *arena_chars(struct arena *a, size_t n);
/* A copy of s[0..n) with a NUL after it (unaligned). */
char *arena_strndup(struct arena *a, const char *s, size_t n);
/* Frees every chunk: every pointer the arena handed out; a is empty again. */
void arena_free(struct arena *a);

#endif
