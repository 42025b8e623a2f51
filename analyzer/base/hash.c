/* hash.c - see hash.h. */
#include "base/hash.h"

#include <stdlib.h>

#include "base/util.h"

uint64_t hash_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

void hindex_free(struct hindex *ix)
{
	free(ix->slot);
	ix->slot = NULL;
	ix->nslot = 0;
}

void hindex_put(struct hindex *ix, uint64_t h, size_t i)
{
	size_t s = hindex_first(ix, h);
	while (ix->slot[s])
		s = hindex_next(ix, s);
	ix->slot[s] = i + 1;
}

void hindex_grow(struct hindex *ix, size_t n, hindex_hash_fn fn, const void *ctx)
{
	size_t ns = ix->nslot ? ix->nslot * 2 : 64;
	free(ix->slot);
	ix->slot = xcalloc(ns, sizeof *ix->slot);
	ix->nslot = ns;
	for (size_t i = 0; i < n; i++) {
		uint64_t h;
		if (fn(ctx, i, &h))
			hindex_put(ix, h, i);
	}
}
