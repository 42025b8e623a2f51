/* fuzz_gzip.c - the gzip layer (input_gzip.c) through input_walk_memory,
 * with both inflaters: ISA-L (when the build has it) and zlib.
 * The first two bytes are forced to the gzip magic so that every input
 * reaches the inflater; the rest is the fuzzer's: member headers, deflate
 * data, trailers, concatenated members, trailing garbage, nested tar/gzip.
 * Each inflater must keep the input layer's contract (fuzz_walk), and the
 * two must deliver the same documents (names, bytes, completeness) and
 * messages, except where the deflate data is corrupt: the reason, the
 * offset, whether and where it is seen and what was decoded before are each
 * inflater's own (docs/inputs.md), and each must only keep the contract. */
#include "fuzz_common.h"
#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct cmp_sink {
	unsigned char *out;   /* every document's bytes, one after the other */
	size_t n, cap;
	uLong names;          /* CRC-32 of the names and completeness flags */
	size_t docs;
};

static void cmp_begin(void *ctx, const char *name)
{
	struct cmp_sink *c = ctx;
	c->names = crc32(c->names, (const Bytef *)name, (uInt)strlen(name) + 1);
	c->docs++;
}

static void cmp_data(void *ctx, const void *p, size_t n)
{
	struct cmp_sink *c = ctx;
	if (c->n + n > c->cap) {
		c->cap = (c->n + n) * 2;
		c->out = realloc(c->out, c->cap);
		FUZZ_ASSERT(c->out != NULL);
	}
	memcpy(c->out + c->n, p, n);
	c->n += n;
}

static void cmp_end(void *ctx, int complete)
{
	struct cmp_sink *c = ctx;
	unsigned char k = (unsigned char)complete;
	c->names = crc32(c->names, &k, 1);
}

static int corrupt(const struct msgs *m)
{
	for (size_t i = 0; i < m->list.n; i++)
		if (strstr(m->list.v[i], ": corrupt gzip data: "))
			return 1;
	return 0;
}

static void walk_with(enum gz_inflater which, const uint8_t *p, size_t n, struct cmp_sink *c, struct msgs *m)
{
	struct limits lim;
	fuzz_limits(&lim);
	in_gzip_set_inflater(which);
	fuzz_walk("fuzz.log.gz", p, n);
	struct doc_sink sink = {c, cmp_begin, cmp_data, cmp_end, NULL};
	struct input_stats st = {0};
	input_walk_memory("fuzz.log.gz", p, n, &lim, &sink, m, &st);
	in_gzip_set_inflater(GZ_INFLATE_DEFAULT);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *p = malloc(size + 2);
	p[0] = 0x1f;
	p[1] = 0x8b;
	size_t n = 2;
	if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
		memcpy(p, data, size);
		n = size;
	} else {
		memcpy(p + 2, data, size);
		n = size + 2;
	}
	struct cmp_sink a = {0}, b = {0};
	struct msgs ma = {0}, mb = {0};
	walk_with(GZ_INFLATE_DEFAULT, p, n, &a, &ma);
	walk_with(GZ_INFLATE_ZLIB, p, n, &b, &mb);
	if (corrupt(&ma) || corrupt(&mb)) {
		/* corrupt deflate data: each inflater finds it where it finds it
		 * (zlib may need bytes past the end to see what ISA-L saw, and
		 * ISA-L accepts some incomplete Huffman code sets that zlib
		 * refuses, decoding a few bytes more, or a member whose CRC-32
		 * and length then match): each keeps the contract (fuzz_walk),
		 * the bytes may differ */
	} else {
		FUZZ_ASSERT(a.n == b.n && (a.n == 0 || memcmp(a.out, b.out, a.n) == 0));
		FUZZ_ASSERT(a.docs == b.docs && a.names == b.names);
		FUZZ_ASSERT(ma.list.n == mb.list.n);
		for (size_t i = 0; i < ma.list.n; i++)
			FUZZ_ASSERT(strcmp(ma.list.v[i], mb.list.v[i]) == 0);
	}
	free(a.out);
	free(b.out);
	msgs_free(&ma);
	msgs_free(&mb);
	free(p);
	return 0;
}
