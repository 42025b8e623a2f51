/* hash.h - the one string hash (64-bit FNV-1a) and the one hash index
 * (open addressing, linear probing) of the tool: the process table of the
 * rank timelines, the pseudonyms of --redact, the fingerprints of batch
 * summaries.  The index holds positions into an array its owner keeps
 * (slot = position + 1, 0 = empty), so entries never move when it grows. */
#ifndef NT_HASH_H
#define NT_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The start value: callers may mix a key kind into it.  It is a digit short
 * of FNV's offset basis (14695981039346656037); every copy of the hash had
 * it so, and the database version ("N.M-<hash>" in every report) is hashed
 * with it, so it stays. */
#define HASH_SEED 1469598103934665603ULL

/* FNV-1a of p[0..n) continued from h (start with HASH_SEED). */
static inline uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ULL;
	return h;
}

/* The same multiply-xor over 8 bytes at a time (the rest byte by byte):
 * not FNV's values, 8 times fewer steps; for long texts (the pattern files
 * the database version is made of). */
static inline uint64_t hash_words(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		memcpy(&w, s + i, 8); /* one load: the little-endian word */
#else
		w = 0;
		for (int k = 0; k < 8; k++)
			w |= (uint64_t)s[i + k] << (8 * k);
#endif
		h = (h ^ w) * 1099511628211ULL;
	}
	return hash_bytes(h, s + i, n - i);
}

uint64_t hash_str(uint64_t h, const char *s);

struct hindex {
	size_t *slot;  /* position + 1, 0 = empty */
	size_t nslot;  /* 0 or a power of two */
};

/* The hash of the entry at position i; 0 when that entry is not indexed. */
typedef int (*hindex_hash_fn)(const void *ctx, size_t i, uint64_t *h);

void hindex_free(struct hindex *ix);
/* Whether n entries need a larger index (more than half full). */
static inline int hindex_crowded(const struct hindex *ix, size_t n)
{
	return n * 2 > ix->nslot;
}
/* Double the slots (64 at first) and index entries 0..n-1 again. */
void hindex_grow(struct hindex *ix, size_t n, hindex_hash_fn fn, const void *ctx);
/* Index the entry at position i under hash h (the index has room). */
void hindex_put(struct hindex *ix, uint64_t h, size_t i);

/* Probing: for (size_t s = hindex_first(ix, h); ix->slot[s]; s = hindex_next(ix, s))
 * visits the positions ix->slot[s] - 1 stored under h (and others: compare
 * the keys); only when ix->nslot is not 0. */
static inline size_t hindex_first(const struct hindex *ix, uint64_t h)
{
	return (size_t)h & (ix->nslot - 1);
}
static inline size_t hindex_next(const struct hindex *ix, size_t s)
{
	return (s + 1) & (ix->nslot - 1);
}

#endif
