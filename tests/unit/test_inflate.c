/* test_inflate.c - the two inflaters of the gzip layer (input_gzip.c) give
 * the same documents: ISA-L (the default when the build has it) against zlib
 * (in_gzip_set_inflater), on every .gz/.tgz of fixtures/ and on streams made
 * here with zlib's deflate (levels 0-9, Huffman-only, RLE, fixed codes;
 * headers with a name, a comment, extra fields, a header CRC; several
 * members; stored blocks of random bytes), whole and cut at many points
 * (every byte of the small ones).  Same names, sizes, CRC-32, completeness
 * and messages; for corrupt deflate data, where the reason, the offset and
 * even whether it is seen may differ (zlib may need bytes past the end to
 * see it; ISA-L accepts some incomplete Huffman code sets zlib refuses),
 * the same bytes up to the shorter of the two.  Without ISA-L in the build it checks that
 * zlib is the one used, and runs the same walks once. */
#include "input/input.h"
#include "input/input_internal.h"
#include "testlib.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

struct rec {
	struct buf names;   /* name NUL size complete NUL ... */
	struct buf bytes;   /* every document's bytes, one after the other */
	struct msgs m;
	int open;
	uint64_t size;
};

static void r_begin(void *ctx, const char *name)
{
	struct rec *r = ctx;
	buf_add(&r->names, name, strlen(name) + 1);
	r->open = 1;
	r->size = 0;
}

static void r_data(void *ctx, const void *p, size_t n)
{
	struct rec *r = ctx;
	buf_add(&r->bytes, p, n);
	r->size += n;
}

static void r_end(void *ctx, int complete)
{
	struct rec *r = ctx;
	char t[64];
	int k = snprintf(t, sizeof t, "%llu %d", (unsigned long long)r->size, complete);
	buf_add(&r->names, t, (size_t)k + 1);
	r->open = 0;
}

static void rec_free(struct rec *r)
{
	buf_free(&r->names);
	buf_free(&r->bytes);
	msgs_free(&r->m);
	memset(r, 0, sizeof *r);
}

static struct limits L;

static void walk(struct rec *r, const char *name, const unsigned char *p, size_t n, enum gz_inflater which)
{
	memset(r, 0, sizeof *r);
	in_gzip_set_inflater(which);
	struct doc_sink s = {r, r_begin, r_data, r_end, NULL, NULL};
	struct input_stats st;
	memset(&st, 0, sizeof st);
	input_walk_memory(name, p, n, &L, &s, &r->m, &st);
	in_gzip_set_inflater(GZ_INFLATE_DEFAULT);
}

static int corrupt_msg(const struct msgs *m)
{
	for (size_t i = 0; i < m->list.n; i++)
		if (strstr(m->list.v[i], ": corrupt gzip data: "))
			return 1;
	return 0;
}

static int same_msgs(const struct msgs *a, const struct msgs *b)
{
	if (a->list.n != b->list.n)
		return 0;
	for (size_t i = 0; i < a->list.n; i++)
		if (strcmp(a->list.v[i], b->list.v[i]) != 0)
			return 0;
	return 1;
}

static size_t nwalks, ncorrupt;

/* ISA-L and zlib on one input: the same documents and messages. */
static void compare(const char *what, const unsigned char *p, size_t n)
{
	struct rec a, b;
	walk(&a, "t.log.gz", p, n, GZ_INFLATE_DEFAULT);
	walk(&b, "t.log.gz", p, n, GZ_INFLATE_ZLIB);
	nwalks++;
	int ok;
	if (corrupt_msg(&b.m) || corrupt_msg(&a.m)) {
		/* corrupt deflate data: both say so; what each decoded agrees */
		ncorrupt++;
		size_t k = a.bytes.len < b.bytes.len ? a.bytes.len : b.bytes.len;
		ok = k == 0 || memcmp(a.bytes.data, b.bytes.data, k) == 0; /* a flipped byte: both decode the same up to it */
	} else {
		ok = a.bytes.len == b.bytes.len && (a.bytes.len == 0 || memcmp(a.bytes.data, b.bytes.data, a.bytes.len) == 0) &&
		     a.names.len == b.names.len && (a.names.len == 0 || memcmp(a.names.data, b.names.data, a.names.len) == 0) &&
		     same_msgs(&a.m, &b.m);
	}
	if (!ok) {
		t_failed++;
		fprintf(stderr, "FAIL %s (%zu bytes): isa-l %zu bytes, %zu messages%s%s; zlib %zu bytes, %zu messages%s%s\n", what,
		        n, a.bytes.len, a.m.list.n, a.m.list.n ? ": " : "", a.m.list.n ? a.m.list.v[0] : "", b.bytes.len,
		        b.m.list.n, b.m.list.n ? ": " : "", b.m.list.n ? b.m.list.v[0] : "");
	} else {
		t_passed++;
	}
	rec_free(&a);
	rec_free(&b);
}

/* The whole stream and cuts of it: every byte when small, else spread
 * over it, and every one of the last 40 bytes (the trailer, the last
 * symbols). */
static void compare_cuts(const char *what, const unsigned char *p, size_t n)
{
	char w[300];
	compare(what, p, n);
	size_t step = n <= 3000 ? 1 : n / 300;
	for (size_t c = 1; c < n; c += step) {
		snprintf(w, sizeof w, "%s cut at %zu", what, c);
		compare(w, p, c);
	}
	for (size_t c = n > 40 ? n - 40 : 1; c < n; c++) {
		snprintf(w, sizeof w, "%s cut at %zu", what, c);
		compare(w, p, c);
	}
}

/* gzip of data with zlib's deflate: level, strategy, and a header with or
 * without name, comment, extra field and header CRC. */
static unsigned char *make_gz(const unsigned char *data, size_t n, int level, int strategy, int hdr, size_t *out)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, strategy) != Z_OK)
		return NULL;
	gz_header h;
	memset(&h, 0, sizeof h);
	unsigned char extra[] = {'A', 'B', 4, 0, 1, 2, 3, 4};
	if (hdr) {
		h.name = (Bytef *)"job-17.log";
		h.comment = (Bytef *)"collected by the test";
		h.extra = extra;
		h.extra_len = sizeof extra;
		h.hcrc = 1;
		deflateSetHeader(&z, &h);
	}
	size_t cap = deflateBound(&z, (uLong)n) + 64;
	unsigned char *o = xmalloc(cap);
	z.next_in = (Bytef *)data;
	z.avail_in = (uInt)n;
	z.next_out = o;
	z.avail_out = (uInt)cap;
	int rc = deflate(&z, Z_FINISH);
	*out = cap - z.avail_out;
	deflateEnd(&z);
	if (rc != Z_STREAM_END) {
		free(o);
		return NULL;
	}
	return o;
}

static unsigned char *read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct buf b;
	buf_init(&b);
	char t[65536];
	size_t k;
	while ((k = fread(t, 1, sizeof t, f)) > 0)
		buf_add(&b, t, k);
	fclose(f);
	*n = b.len;
	return (unsigned char *)b.data;
}

static int gz_name(const char *n)
{
	return str_ends(n, ".gz") || str_ends(n, ".tgz");
}

/* Every .gz / .tgz under dir. */
static void fixtures(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct strvec names = {0};
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			strvec_push(&names, de->d_name);
	closedir(d);
	for (size_t i = 0; i < names.n; i++) {
		char *p = xasprintf("%s/%s", dir, names.v[i]);
		struct stat st;
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			fixtures(p);
		} else if (gz_name(names.v[i])) {
			size_t n;
			unsigned char *data = read_file(p, &n);
			if (data)
				compare_cuts(p, data, n);
			free(data);
		}
		free(p);
	}
	strvec_free(&names);
}

int main(void)
{
	limits_default(&L);
	/* the build's default: ISA-L when it has it */
#ifdef NT_HAVE_ISAL
	CHECK_STR(in_gzip_inflater(), "isa-l");
	CHECK_INT(in_gzip_set_inflater(GZ_INFLATE_ZLIB), 1);
	CHECK_STR(in_gzip_inflater(), "zlib");
	in_gzip_set_inflater(GZ_INFLATE_DEFAULT);
	CHECK_STR(in_gzip_inflater(), "isa-l");
#else
	CHECK_STR(in_gzip_inflater(), "zlib");
	CHECK_INT(in_gzip_set_inflater(GZ_INFLATE_ISAL), 0);
	in_gzip_set_inflater(GZ_INFLATE_DEFAULT);
#endif
	fixtures("fixtures");

	/* text: real captured lines (fixtures/captures), 600 KiB of them */
	size_t tn = 0;
	unsigned char *text = read_file("fixtures/captures/h200-2gpu/scenarios/ok/run.log", &tn);
	CHECK(text && tn > 1000);
	if (!text)
		TEST_MAIN_END();
	struct buf big;
	buf_init(&big);
	while (big.len < (600u << 10))
		buf_add(&big, text, tn);
	/* random bytes: stored blocks */
	unsigned char *rnd = xmalloc(200000);
	uint32_t x = 12345;
	for (size_t i = 0; i < 200000; i++) {
		x = x * 1103515245u + 12345u;
		rnd[i] = (unsigned char)(x >> 23);
	}
	static const struct {
		int level, strategy, hdr;
	} KINDS[] = {
		{6, Z_DEFAULT_STRATEGY, 0}, {1, Z_DEFAULT_STRATEGY, 1}, {9, Z_DEFAULT_STRATEGY, 0},
		{0, Z_DEFAULT_STRATEGY, 1}, {6, Z_HUFFMAN_ONLY, 0}, {6, Z_RLE, 1}, {6, Z_FIXED, 0},
	};
	struct {
		const char *name;
		const unsigned char *p;
		size_t n;
	} DATA[] = {{"text", text, tn}, {"600 KiB of text", (unsigned char *)big.data, big.len},
	            {"random", rnd, 200000}, {"one line", text, 120}, {"empty", text, 0}};
	for (size_t d = 0; d < sizeof DATA / sizeof *DATA; d++)
		for (size_t k = 0; k < sizeof KINDS / sizeof *KINDS; k++) {
			if (DATA[d].n > 300000 && k > 2)
				continue; /* the big one with three kinds: enough */
			size_t gn;
			unsigned char *gz = make_gz(DATA[d].p, DATA[d].n, KINDS[k].level, KINDS[k].strategy, KINDS[k].hdr, &gn);
			CHECK(gz != NULL);
			if (!gz)
				continue;
			char w[200];
			snprintf(w, sizeof w, "%s, level %d, strategy %d%s", DATA[d].name, KINDS[k].level, KINDS[k].strategy,
			         KINDS[k].hdr ? ", name/comment/extra/hcrc" : "");
			compare_cuts(w, gz, gn);
			/* two members, and garbage after them */
			unsigned char *two = xmalloc(2 * gn + 16);
			memcpy(two, gz, gn);
			memcpy(two + gn, gz, gn);
			snprintf(w, sizeof w, "two members: %s, level %d", DATA[d].name, KINDS[k].level);
			if (gn < 20000)
				compare_cuts(w, two, 2 * gn);
			else
				compare(w, two, 2 * gn);
			memcpy(two + 2 * gn, "garbage!", 8);
			compare("two members and garbage", two, 2 * gn + 8);
			/* corrupt bytes in the deflate data */
			for (size_t at = 20; at < gn; at += gn / 7 + 1) {
				memcpy(two, gz, gn);
				two[at] ^= 0x5a;
				snprintf(w, sizeof w, "%s, level %d, byte %zu flipped", DATA[d].name, KINDS[k].level, at);
				compare(w, two, gn);
			}
			free(two);
			free(gz);
		}
	fprintf(stderr, "test_inflate: %zu walks compared (%s against zlib), %zu of them corrupt data\n", nwalks,
	        in_gzip_inflater(), ncorrupt);
	buf_free(&big);
	free(rnd);
	free(text);
	TEST_MAIN_END();
}
