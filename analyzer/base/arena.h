/* arena.h - the one chunk allocator: memory for many small things of one
 * owner that die together, handed out from chunks and freed all at once.
 * Saves malloc's per-block overhead (16 bytes and more on a 40-byte
 * string) and a free per piece.  Its users: a bundle's evidence texts and
 * context lines (evidence.c), the signature database's strings (sigdb.c),
 * cJSON trees (json.c's json_arena: a parsed tree, or a scope whose freed
 * blocks json.c recycles per size class on top of this), the value trees
 * of flight-recorder dumps (pyval.h, pickle.h).  Not thread-safe: one
 * thread uses an arena at a time.
 *
 * A zeroed struct arena is an empty one without a cap.  Pieces come from
 * chunks of ARENA_CHUNK bytes; one that does not fit in the chunk handed
 * out from and is larger than a quarter of a chunk gets a chunk of its
 * own, behind that one, whose free room stays in use (so a chunk wastes
 * less than a quarter of itself).
 *
 * max may be set while the arena is empty (new, or after arena_reset or
 * arena_free): a cap (0: none) on the bytes handed out since then,
 * counted as the room they take in chunks (their sizes and any alignment
 * padding before them).  An allocation that would pass it returns NULL
 * and sets over; smaller ones may still succeed.  So memory follows a
 * count, not the shape of hostile input (json_parse_arena_max,
 * pickle_read).  Without a cap nothing returns NULL: out of memory exits
 * (util.h's xmalloc). */
#ifndef NT_ARENA_H
#define NT_ARENA_H

#include <stddef.h>

/* Under malloc's mmap threshold (128 KiB): a chunk is heap memory that
 * later allocations reuse once the arena is freed (the signature loader:
 * 256 KiB chunks were mmap'ed and returned to the kernel, and start-up
 * took ~35 more page faults; 64 measured best against 32, 48, 96, 120,
 * 256). */
#define ARENA_CHUNK (64u << 10)

struct arena_chunk;
struct arena {
	struct arena_chunk *head;  /* the chunk handed out from; older ones and large pieces behind it */
	struct arena_chunk *spare; /* chunks arena_reset kept, taken before new ones */
	size_t max;                /* the cap (above) */
	size_t done;               /* private: bytes counted against max outside head */
	int over;                  /* an allocation was refused at max (cleared when the arena is emptied) */
};

/* n bytes aligned for any type. */
void *arena_alloc(struct arena *a, size_t n);
/* The same, zeroed. */
void *arena_zalloc(struct arena *a, size_t n);
/* n bytes for characters (unaligned, not initialised). */
char *arena_chars(struct arena *a, size_t n);
/* A copy of s[0..n) with a NUL after it (unaligned). */
char *arena_strndup(struct arena *a, const char *s, size_t n);
/* Every pointer the arena handed out is gone; up to keep bytes of its
 * ordinary chunks (the newest first) stay for the next allocations (no
 * malloc, pages already touched), the rest is freed.  max stays. */
void arena_reset(struct arena *a, size_t keep);
/* Frees every chunk: arena_reset(a, 0). */
void arena_free(struct arena *a);

/* Below, inline for callers in a loop (json.c: its parser, a node and a
 * string a value; its free hook): arena_take is n bytes at alignment al (a
 * power of two, at most max_align_t's), arena_more the rest of it;
 * arena_owns, whether p points into memory the arena handed out and holds
 * now. */
struct arena_chunk {
	struct arena_chunk *next;
	size_t used; /* bytes of data handed out */
	size_t end;  /* how far data may be handed out: size, or less where max is near */
	size_t size; /* bytes of data */
	max_align_t data[];
};

void *arena_more(struct arena *a, size_t n);

static inline void *arena_take(struct arena *a, size_t n, size_t al)
{
	struct arena_chunk *c = a->head;
	if (c) {
		size_t at = (c->used + al - 1) & ~(al - 1);
		if (at <= c->end && c->end - at >= n) {
			c->used = at + n;
			return (char *)c->data + at;
		}
	}
	return arena_more(a, n); /* a new chunk is aligned for any type */
}

static inline int arena_owns(const struct arena *a, const void *p)
{
	for (const struct arena_chunk *c = a->head; c; c = c->next)
		if ((const char *)p >= (const char *)c->data && (const char *)p < (const char *)c->data + c->used)
			return 1;
	return 0;
}

#endif
