/* fuzz_common.h - shared by the fuzz targets: caps small enough that one
 * input runs in milliseconds, a doc_sink that checks the input layer's
 * contract (begin/data/end strictly paired, names printable, byte counts
 * consistent), and a checker for rendered reports.  A broken invariant calls
 * abort(), which libFuzzer and the replay program report as a crash. */
#ifndef NT_FUZZ_COMMON_H
#define NT_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/input.h"
#include "input/input_internal.h"
#include "base/nt_limits.h"
#include "base/tarhdr.h"

static inline void fuzz_limits(struct limits *l)
{
	limits_default(l);
	l->max_member_bytes = 4u << 20;
	l->max_bundle_bytes = 16u << 20;
	l->max_members = 1000;
	l->max_line = 4096;
	l->max_lines = 100000;
	l->match_limit = 100000;
	l->depth_limit = 1000;
}

#define FUZZ_ASSERT(c)                                                              \
	do {                                                                            \
		if (!(c)) {                                                                 \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                                \
		}                                                                           \
	} while (0)

struct check_sink {
	int open;
	uint64_t bytes, docs;
};

/* Printable, valid UTF-8 without C0/C1 controls except tab and newline. */
static inline int fuzz_text_clean(const char *s, size_t n, int allow_newline)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		unsigned c = p[i];
		if (c < 0x80) {
			if ((c < 0x20 && c != '\t' && !(allow_newline && c == '\n')) || c == 0x7f)
				return 0;
			i++;
			continue;
		}
		size_t l = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
		if (l == 0 || c > 0xf4 || i + l > n)
			return 0;
		for (size_t k = 1; k < l; k++)
			if ((p[i + k] & 0xc0) != 0x80)
				return 0;
		if (c == 0xc2 && p[i + 1] < 0xa0)
			return 0; /* C1 control U+0080..U+009F */
		i += l;
	}
	return 1;
}

static inline void cs_begin(void *ctx, const char *name)
{
	struct check_sink *c = ctx;
	FUZZ_ASSERT(!c->open);
	FUZZ_ASSERT(name != NULL);
	FUZZ_ASSERT(fuzz_text_clean(name, strlen(name), 0));
	c->open = 1;
	c->docs++;
}

static inline void cs_data(void *ctx, const void *p, size_t n)
{
	struct check_sink *c = ctx;
	FUZZ_ASSERT(c->open);
	FUZZ_ASSERT(n > 0 && p != NULL);
	/* touch every byte so that ASan sees a bad buffer */
	volatile unsigned char x = 0;
	for (size_t i = 0; i < n; i++)
		x ^= ((const unsigned char *)p)[i];
	(void)x;
	c->bytes += n;
}

static inline void cs_end(void *ctx, int complete)
{
	struct check_sink *c = ctx;
	FUZZ_ASSERT(c->open);
	FUZZ_ASSERT(complete == 0 || complete == 1);
	c->open = 0;
}

/* Walks data as an operand and checks the contract. */
static inline void fuzz_walk(const char *name, const uint8_t *data, size_t size)
{
	struct limits lim;
	fuzz_limits(&lim);
	struct check_sink cs = {0};
	struct doc_sink sink = {&cs, cs_begin, cs_data, cs_end, NULL};
	struct msgs m = {0};
	struct input_stats st = {0};
	int rc = input_walk_memory(name, data, size, &lim, &sink, &m, &st);
	FUZZ_ASSERT(!cs.open);
	FUZZ_ASSERT(cs.bytes == st.bytes_out);
	FUZZ_ASSERT(cs.docs == st.documents);
	FUZZ_ASSERT(st.bytes_out <= lim.max_bundle_bytes);
	FUZZ_ASSERT(st.bytes_in <= size);
	FUZZ_ASSERT(rc == 0 || rc == -1);
	/* nothing delivered and nothing said about it: silent loss, unless it
	 * is an archive that holds no documents (only folders, links...) */
	if (size > 0 && cs.docs == 0 && !(size >= 2 && data[0] == 0x1f && data[1] == 0x8b) &&
	    !(size >= 512 && tar_header_valid(data)))
		FUZZ_ASSERT(m.list.n > 0);
	for (size_t i = 0; i < m.list.n; i++)
		FUZZ_ASSERT(fuzz_text_clean(m.list.v[i], strlen(m.list.v[i]), 0));
	msgs_free(&m);
}

#endif
