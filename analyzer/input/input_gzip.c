/* input_gzip.c - a gzip layer as a pull stream: zlib inflate (gzip or zlib
 * headers, 15+32), concatenated members, trailing garbage ignored with a
 * warning, truncation and corrupt data reported with the offset, the
 * decompression-ratio cap against gzip bombs.  Output goes straight into the
 * reader's buffer; the only buffer owned here is the 256 KiB input. */
#include "input/input_internal.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct gz_stream {
	struct stream s;
	struct stream *src;
	const char *disp;
	z_stream z;
	unsigned char *in;
	uint64_t in_read;   /* compressed bytes read from src */
	uint64_t out_total; /* decompressed bytes produced */
	int in_member;      /* inside a member: the end of input now is a truncation */
	int done;           /* 1 clean end, 2 failed (message added) */
	int ratio_hit;
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
		inflateReset(&g->z);
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
		if (g->z.avail_in == 0) {
			ssize_t r = gz_fill(g, 1);
			if (r < 0) {
				fail = 1;
				break;
			}
			if (r == 0) {
				if (g->in_member) {
					uint64_t out = g->out_total + (want - g->z.avail_out);
					in_cut(w, "%s: unexpected end of gzip stream after %llu bytes",
					       g->disp, (unsigned long long)out);
					fail = 1;
				} else {
					g->done = 1;
				}
				break;
			}
		}
		int ret = inflate(&g->z, Z_NO_FLUSH);
		if (ret == Z_STREAM_END) {
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
		} else if (ret == Z_OK || ret == Z_BUF_ERROR) {
			continue; /* Z_BUF_ERROR: needs more input, the loop refills */
		} else {
			in_cut(w, "%s: byte %llu: corrupt gzip data: %s", g->disp,
			       (unsigned long long)consumed(g),
			       g->z.msg ? g->z.msg : ret == Z_MEM_ERROR ? "out of memory" : "bad stream");
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
	free(g.in);
}
