/* input_gzip.c - a gzip layer as a pull stream: concatenated members,
 * trailing garbage ignored with a warning, truncation and corrupt data
 * reported with the offset, the decompression-ratio cap against gzip bombs.
 * Output goes straight into the reader's buffer; the only buffers owned here
 * are the 256 KiB input and the inflater's state.
 *
 * Two inflaters, one result.  zlib (inflate, gzip or zlib headers, 15+32)
 * always parses each member's header, so header errors read the same
 * whatever the build.  The deflate data and the trailer then go to Intel
 * ISA-L's isal_inflate (several times faster) when the build has it
 * (NT_HAVE_ISAL: pkg-config libisal; `make ISAL=0` builds without), to zlib
 * otherwise, or when in_gzip_set_inflater(GZ_INFLATE_ZLIB) asked for it (the
 * test that compares the two, tests/unit/test_inflate.c).  Both deliver the
 * same bytes for whole and cut members (the same symbols are complete);
 * only the reason and the byte offset of corrupt deflate data may differ. */
#include "input/input_internal.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef NT_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

static int use_zlib; /* GZ_INFLATE_ZLIB asked for (tests) */

int in_gzip_set_inflater(enum gz_inflater which)
{
#ifdef NT_HAVE_ISAL
	use_zlib = which == GZ_INFLATE_ZLIB;
	return 1;
#else
	use_zlib = 1;
	return which != GZ_INFLATE_ISAL;
#endif
}

const char *in_gzip_inflater(void)
{
#ifdef NT_HAVE_ISAL
	return use_zlib ? "zlib" : "isa-l";
#else
	return "zlib";
#endif
}

struct gz_stream {
	struct stream s;
	struct stream *src;
	const char *disp;
	z_stream z;         /* next_in/avail_in: the input of both inflaters */
	unsigned char *in;
	uint64_t in_read;   /* compressed bytes read from src */
	uint64_t out_total; /* decompressed bytes produced */
	int in_member;      /* inside a member: the end of input now is a truncation */
	int done;           /* 1 clean end, 2 failed (message added) */
	int ratio_hit;
#ifdef NT_HAVE_ISAL
	struct inflate_state *is; /* NULL: zlib decodes the members */
	int in_deflate;     /* the member's header is parsed: ISA-L has the rest */
#endif
};

static uint64_t consumed(const struct gz_stream *g)
{
	return g->in_read - g->z.avail_in;
}

/* Makes at least k bytes available at next_in unless the input ends first;
 * returns the number available, or -1 on a read error. */
static ssize_t gz_fill(struct gz_stream *g, size_t k)
{
	if (g->z.avail_in >= k)
		return g->z.avail_in;
	if (g->z.avail_in && g->z.next_in != g->in)
		memmove(g->in, g->z.next_in, g->z.avail_in);
	g->z.next_in = g->in;
	while (g->z.avail_in < k) {
		ssize_t r = st_read(g->src, g->in + g->z.avail_in, IN_BUFSZ - g->z.avail_in);
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		g->z.avail_in += (uInt)r;
		g->in_read += (uint64_t)r;
	}
	return g->z.avail_in;
}

static void member_reset(struct gz_stream *g)
{
	inflateReset(&g->z);
#ifdef NT_HAVE_ISAL
	g->in_deflate = 0;
#endif
}

/* After the end of a member: another member, zero padding, or garbage.
 * Returns 1 to go on with a new member, 0 at the end, -1 on error. */
static int gz_next_member(struct gz_stream *g)
{
	ssize_t a = gz_fill(g, 2);
	if (a < 0)
		return -1;
	if (a == 0)
		return 0;
	if (a >= 2 && g->z.next_in[0] == 0x1f && g->z.next_in[1] == 0x8b) {
		member_reset(g);
		g->in_member = 1;
		return 1;
	}
	/* Zero padding (tape blocks) is ignored silently, like gzip -d does. */
	uint64_t at = consumed(g);
	for (;;) {
		size_t i = 0;
		while (i < g->z.avail_in && g->z.next_in[i] == 0)
			i++;
		if (i < g->z.avail_in) {
			in_cut(g->s.w, "%s: byte %llu: trailing garbage after gzip data ignored",
			       g->disp, (unsigned long long)at);
			g->z.avail_in = 0;
			return 0;
		}
		g->z.avail_in = 0;
		a = gz_fill(g, 1);
		if (a < 0)
			return -1;
		if (a == 0)
			return 0;
	}
}

enum step { STEP_OK, STEP_END, STEP_ERR };

#ifdef NT_HAVE_ISAL
/* zlib's words for what ISA-L found, where the two mean the same */
static const char *isal_reason(int ret)
{
	switch (ret) {
	case ISAL_INVALID_BLOCK: return "invalid block";
	case ISAL_INVALID_SYMBOL: return "invalid code";
	case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
	case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
	default: return "bad stream";
	}
}

/* The member's deflate data and trailer through isal_inflate. */
static enum step isal_step(struct gz_stream *g, const char **why)
{
	struct inflate_state *is = g->is;
	is->next_in = (uint8_t *)g->z.next_in;
	is->avail_in = g->z.avail_in;
	is->next_out = g->z.next_out;
	is->avail_out = g->z.avail_out;
	int ret = isal_inflate(is);
	g->z.next_in = is->next_in;
	g->z.avail_in = is->avail_in;
	g->z.next_out = is->next_out;
	g->z.avail_out = is->avail_out;
	if (ret < 0) {
		*why = isal_reason(ret);
		return STEP_ERR;
	}
	return is->block_state == ISAL_BLOCK_FINISH ? STEP_END : STEP_OK;
}

/* At the end of the input inside a member (a cut file), before the last
 * steps: ISA-L's literal/length table decodes up to three literals with one
 * lookup, and when their codes together need more bits than are left it
 * decodes none of them, where zlib decodes each one that is whole.  Each
 * packed entry is made a single-symbol one (the first literal and its own
 * code length), so the last bits decode symbol by symbol, as zlib's do.
 * The layout is ISA-L's (2.30: igzip_inflate.c, LARGE_*): symbols in bits
 * 0-24, the long-code flag in bit 25, the count in 26-27, the bit length in
 * 28-31; a literal whose code has L bits is the first symbol of exactly
 * 2^(12 - L) of the 4096 entries.  Checked: anything else leaves the table
 * as it is (tests/unit/test_inflate.c compares cut streams with zlib's). */
static void isal_unpack_table(struct inflate_state *is)
{
#if ISAL_DECODE_LONG_BITS == 12
	enum { NIDX = 1 << 12, FLAG = 1u << 25 };
	uint32_t *t = is->lit_huff_code.short_code_lookup;
	uint16_t first[1024]; /* entries whose first symbol is this one (lengths are 254 + length) */
	memset(first, 0, sizeof first);
	for (size_t i = 0; i < NIDX; i++) {
		uint32_t e = t[i];
		if ((e & FLAG) || e == 0)
			continue; /* a long code, or bits that are no code */
		uint32_t cnt = (e >> 26) & 3, sym = cnt >= 2 ? e & 0xff : e & 0x3ff;
		if (cnt == 0 || (cnt == 1 && (e & 0x1fffc00u)))
			return; /* not the layout this code knows */
		first[sym]++;
	}
	for (size_t i = 0; i < NIDX; i++) {
		uint32_t e = t[i];
		uint32_t cnt = (e >> 26) & 3;
		if ((e & FLAG) || cnt < 2)
			continue;
		uint32_t sym = e & 0xff, n = first[sym], len = 12;
		if (n == 0 || (n & (n - 1)))
			return;
		while (n > 1) {
			n >>= 1;
			len--;
		}
		if (len == 0 || len >= (e >> 28))
			return;
		t[i] = sym | (1u << 26) | (len << 28);
	}
#else
	(void)is;
#endif
}
#endif

/* One step of the inflater over next_in/avail_in into next_out/avail_out. */
static enum step inflate_step(struct gz_stream *g, const char **why)
{
#ifdef NT_HAVE_ISAL
	if (g->is && g->in_deflate)
		return isal_step(g, why);
	/* with ISA-L, zlib stops after the header (Z_BLOCK: data_type 128 at a
	 * block boundary, no bits held: the deflate data starts at next_in) */
	int ret = inflate(&g->z, g->is ? Z_BLOCK : Z_NO_FLUSH);
	if (g->is && ret == Z_OK && (g->z.data_type & 128)) {
		isal_inflate_reset(g->is);
		g->in_deflate = 1;
		return STEP_OK;
	}
#else
	int ret = inflate(&g->z, Z_NO_FLUSH);
#endif
	if (ret == Z_STREAM_END)
		return STEP_END;
	if (ret == Z_OK || ret == Z_BUF_ERROR)
		return STEP_OK; /* Z_BUF_ERROR: needs more input, the loop refills */
	*why = g->z.msg ? g->z.msg : ret == Z_MEM_ERROR ? "out of memory" : "bad stream";
	return STEP_ERR;
}

static ssize_t gz_read(struct stream *s, void *buf, size_t n)
{
	struct gz_stream *g = (struct gz_stream *)s;
	struct walker *w = s->w;
	if (g->done)
		return g->done == 2 ? -1 : 0;
	g->z.next_out = buf;
	g->z.avail_out = n > (size_t)UINT32_MAX ? UINT32_MAX : (uInt)n;
	uInt want = g->z.avail_out;
	int fail = 0;
	while (g->z.avail_out > 0) {
		int eof = 0;
		if (g->z.avail_in == 0) {
			ssize_t r = gz_fill(g, 1);
			if (r < 0) {
				fail = 1;
				break;
			}
			if (r == 0 && !g->in_member) {
				g->done = 1;
				break;
			}
			/* cut inside a member: what the inflater can still give
			 * without input (a match it was copying, the last whole
			 * symbols), then the message */
			eof = r == 0;
		}
#ifdef NT_HAVE_ISAL
		if (eof && g->is && g->in_deflate)
			isal_unpack_table(g->is);
#endif
		uInt room = g->z.avail_out;
		const char *why = NULL;
		enum step st = inflate_step(g, &why);
		if (eof && st == STEP_OK && g->z.avail_out == room) {
			uint64_t out = g->out_total + (want - g->z.avail_out);
			in_cut(w, "%s: unexpected end of gzip stream after %llu bytes", g->disp, (unsigned long long)out);
			fail = 1;
			break;
		}
		if (st == STEP_END) {
			g->in_member = 0;
			int k = gz_next_member(g);
			if (k < 0) {
				fail = 1;
				break;
			}
			if (k == 0) {
				g->done = 1;
				break;
			}
		} else if (st == STEP_ERR) {
			in_cut(w, "%s: byte %llu: corrupt gzip data: %s", g->disp,
			       (unsigned long long)consumed(g), why);
			fail = 1;
			break;
		}
	}
	size_t got = want - g->z.avail_out;
	g->out_total += got;
	if (!fail && g->out_total > IN_RATIO_AFTER) {
		uint64_t in = consumed(g);
		double ratio = (double)g->out_total / (double)(in ? in : 1);
		if (ratio > w->lim->max_ratio) {
			char a[32], b[32];
			in_cut(w, "%s: decompressed %s from %s, a ratio of %.0f:1 above the "
			       "limit of %.0f:1 (--max-ratio); stopped", g->disp,
			       fmt_size(g->out_total, a, sizeof a), fmt_size(in, b, sizeof b),
			       ratio, w->lim->max_ratio);
			fail = 1;
		}
	}
	if (fail)
		g->done = 2; /* what was decoded is returned now, the failure next time */
	if (got)
		return (ssize_t)got;
	return g->done == 2 ? -1 : 0;
}

void in_walk_gzip(struct walker *w, struct stream *s, const char *leaf, const char *prefix,
                  const char *disp, int nest)
{
	struct gz_stream g;
	memset(&g, 0, sizeof g);
	st_init(&g.s, w);
	g.s.read = gz_read;
	g.src = s;
	g.disp = disp;
	g.in = xmalloc(IN_BUFSZ);
	g.in_member = 1;
	if (inflateInit2(&g.z, 15 + 32) != Z_OK) {
		in_cut(w, "%s: cannot start zlib: %s", disp, g.z.msg ? g.z.msg : "out of memory");
		free(g.in);
		return;
	}
	g.z.next_in = g.in;
	g.z.avail_in = 0;
#ifdef NT_HAVE_ISAL
	if (!use_zlib) {
		g.is = xmalloc(sizeof *g.is);
		isal_inflate_init(g.is);
		g.is->crc_flag = ISAL_GZIP_NO_HDR_VER; /* zlib read the header; ISA-L checks the trailer */
	}
#endif

	/* Name of the content when it is a single document: drop .gz, .tgz -> .tar */
	size_t n = strlen(leaf);
	char *inner;
	if (n > 3 && strcmp(leaf + n - 3, ".gz") == 0 && leaf[n - 4] != '/')
		inner = xstrndup(leaf, n - 3);
	else if (n > 4 && strcmp(leaf + n - 4, ".tgz") == 0 && leaf[n - 5] != '/')
		inner = xasprintf("%.*s.tar", (int)(n - 4), leaf);
	else
		inner = xstrdup(leaf);
	const char *si = w->gz_inner, *so = w->gz_outer;
	w->gz_inner = inner;
	w->gz_outer = leaf;
	w->walk(w, &g.s, inner, prefix, disp, nest, 1);
	w->gz_inner = si;
	w->gz_outer = so;
	free(inner);
	inflateEnd(&g.z);
#ifdef NT_HAVE_ISAL
	free(g.is);
#endif
	free(g.in);
}
