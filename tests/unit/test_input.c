/* test_input.c - the input layer against inputs made by the real tools
 * (gzip, tar, xz, mkfifo, ln) in a temporary folder, and against the crafted
 * files in fixtures/bad-input/.  A recording sink keeps, per document, the
 * name, size, CRC-32, completeness and (for small ones) the bytes. */
#include "input/input.h"
#include "testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define KEEP_MAX (1u << 20)

struct doc {
	char *name;
	uint64_t size;
	unsigned long crc;
	int complete;
	struct buf bytes; /* first KEEP_MAX bytes */
};

struct rec {
	struct doc *d;
	size_t n, cap;
	int open;      /* begin seen, end not yet */
	int misuse;    /* data/end without begin, begin inside a document */
	struct msgs m;
	struct input_stats st;
	int rc;
};

static void r_begin(void *ctx, const char *name)
{
	struct rec *r = ctx;
	if (r->open)
		r->misuse++;
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 16;
		r->d = xrealloc(r->d, r->cap * sizeof *r->d);
	}
	struct doc *d = &r->d[r->n++];
	memset(d, 0, sizeof *d);
	d->name = xstrdup(name);
	d->crc = crc32(0, Z_NULL, 0);
	buf_init(&d->bytes);
	r->open = 1;
}

static void r_data(void *ctx, const void *p, size_t n)
{
	struct rec *r = ctx;
	if (!r->open || n == 0) {
		r->misuse++;
		return;
	}
	struct doc *d = &r->d[r->n - 1];
	d->size += n;
	d->crc = crc32(d->crc, p, (uInt)n);
	if (d->bytes.len < KEEP_MAX) {
		size_t k = KEEP_MAX - d->bytes.len;
		buf_add(&d->bytes, p, n < k ? n : k);
	}
}

static void r_end(void *ctx, int complete)
{
	struct rec *r = ctx;
	if (!r->open) {
		r->misuse++;
		return;
	}
	r->d[r->n - 1].complete = complete;
	r->open = 0;
}

static void rec_free(struct rec *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->d[i].name);
		buf_free(&r->d[i].bytes);
	}
	free(r->d);
	msgs_free(&r->m);
	memset(r, 0, sizeof *r);
}

static struct limits L;
static char tmp[4096];
static int verbose;

static void show(const char *what, struct rec *r)
{
	if (!verbose)
		return;
	fprintf(stderr, "== %s (rc %d)\n", what, r->rc);
	for (size_t i = 0; i < r->n; i++)
		fprintf(stderr, "  doc %s %llu %08lx %s\n", r->d[i].name,
		        (unsigned long long)r->d[i].size, r->d[i].crc,
		        r->d[i].complete ? "complete" : "CUT");
	for (size_t i = 0; i < r->m.list.n; i++)
		fprintf(stderr, "  msg %s\n", r->m.list.v[i]);
}

/* Walks tmp/rel (or rel itself when absolute) into r. */
static void walk(struct rec *r, const char *rel, const struct limits *lim)
{
	memset(r, 0, sizeof *r);
	struct doc_sink s = {r, r_begin, r_data, r_end, NULL, NULL};
	char *p = rel[0] == '/' || strcmp(rel, "-") == 0 ? xstrdup(rel) : xasprintf("%s/%s", tmp, rel);
	r->rc = input_walk_path(p, lim ? lim : &L, &s, &r->m, &r->st);
	free(p);
	show(rel, r);
	CHECK(!r->open);
	CHECK_INT(r->misuse, 0);
	CHECK_INT(r->st.documents, r->n);
	CHECK_INT(r->st.errors, r->m.list.n + r->m.dropped);
}

static struct doc *find(struct rec *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->d[i].name, name) == 0)
			return &r->d[i];
	fprintf(stderr, "  (no document named \"%s\")\n", name);
	return NULL;
}

static int has_msg(struct rec *r, const char *sub)
{
	for (size_t i = 0; i < r->m.list.n; i++)
		if (strstr(r->m.list.v[i], sub))
			return 1;
	fprintf(stderr, "  (no message containing \"%s\")\n", sub);
	return 0;
}

static int sh(const char *fmt, ...) NT_PRINTF(1, 2);
static int sh(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *c = xvasprintf(fmt, ap);
	va_end(ap);
	char *full = xasprintf("cd '%s' && { %s ; } >/dev/null 2>&1", tmp, c);
	int rc = system(full);
	if (rc != 0 && verbose)
		fprintf(stderr, "command failed: %s\n", c);
	free(c);
	free(full);
	return rc;
}

static int have_tool(const char *t)
{
	char *c = xasprintf("command -v %s >/dev/null 2>&1", t);
	int rc = system(c);
	free(c);
	return rc == 0;
}

/* CRC-32 and size of a file under tmp. */
static unsigned long file_crc(const char *rel, uint64_t *size, uint64_t limit)
{
	char *p = xasprintf("%s/%s", tmp, rel);
	FILE *f = fopen(p, "rb");
	free(p);
	unsigned long c = crc32(0, Z_NULL, 0);
	*size = 0;
	if (!f)
		return 0;
	static unsigned char b[65536];
	size_t n;
	while (*size < limit && (n = fread(b, 1, sizeof b, f)) > 0) {
		if (n > limit - *size)
			n = (size_t)(limit - *size);
		c = crc32(c, b, (uInt)n);
		*size += n;
	}
	fclose(f);
	return c;
}

/* The document matches the file (whole, or its first doc->size bytes). */
static int same_as_file(struct doc *d, const char *rel, int prefix_only)
{
	if (!d)
		return 0;
	uint64_t size;
	unsigned long c = file_crc(rel, &size, prefix_only ? d->size : UINT64_MAX);
	return size == d->size && c == d->crc;
}

static const char *LONGDIR =
	"a-directory-name-long-enough-to-push-the-member-name-past-one-hundred-characters-in-every-tar";

static void make_tree(void)
{
	CHECK_INT(sh("mkdir -p logs/sub logs/%s && printf 'rank0 line\\r\\nwith\\0nul\\r\\n' > logs/rank0.log"
	             " && : > logs/empty.log && seq 1 200000 > logs/sub/big.log"
	             " && echo long > logs/%s/f.log"
	             " && printf 'one\\n' > m1 && printf 'two\\n' > m2 && printf 'three\\n' > m3", LONGDIR, LONGDIR), 0);
}

/* ---- tests ------------------------------------------------------------------ */

static void test_plain_and_empty(void)
{
	struct rec r;
	walk(&r, "logs/rank0.log", NULL);
	CHECK_INT(r.rc, 0);
	CHECK_INT(r.n, 1);
	if (r.n == 1) {
		CHECK_STR(r.d[0].name, "rank0.log");
		CHECK_INT(r.d[0].bytes.len, 22);
		CHECK(memcmp(r.d[0].bytes.data, "rank0 line\r\nwith\0nul\r\n", 22) == 0);
		CHECK(r.d[0].complete);
	}
	CHECK_INT(r.m.list.n, 0);
	rec_free(&r);

	walk(&r, "logs/empty.log", NULL);
	CHECK_INT(r.rc, 0);
	CHECK_INT(r.n, 1);
	if (r.n == 1) {
		CHECK_STR(r.d[0].name, "empty.log");
		CHECK_INT(r.d[0].size, 0);
		CHECK(r.d[0].complete);
	}
	rec_free(&r);

	walk(&r, "does-not-exist.log", NULL);
	CHECK_INT(r.rc, -1);
	CHECK_INT(r.n, 0);
	CHECK(has_msg(&r, "does-not-exist.log: cannot open: No such file or directory"));
	rec_free(&r);

	CHECK_INT(sh("mkdir -p emptydir"), 0);
	walk(&r, "emptydir", NULL);
	CHECK_INT(r.rc, 0);
	CHECK_INT(r.n, 0);
	CHECK_INT(r.m.list.n, 0);
	rec_free(&r);
}

static void test_gzip(void)
{
	struct rec r;
	CHECK_INT(sh("gzip -c logs/sub/big.log > big.log.gz && gzip -c logs/rank0.log > r.gz"
	             " && cat big.log.gz r.gz big.log.gz > multi.log.gz"
	             " && cat logs/sub/big.log logs/rank0.log logs/sub/big.log > multi.expect"), 0);
	walk(&r, "big.log.gz", NULL);
	CHECK_INT(r.rc, 0);
	CHECK_INT(r.n, 1);
	if (r.n == 1) {
		CHECK_STR(r.d[0].name, "big.log");
		CHECK(same_as_file(&r.d[0], "logs/sub/big.log", 0));
		CHECK(r.d[0].complete);
	}
	CHECK_INT(r.m.list.n, 0);
	uint64_t gzsize;
	file_crc("big.log.gz", &gzsize, UINT64_MAX);
	CHECK_INT(r.st.bytes_in, gzsize);
	CHECK_INT(r.st.bytes_out, r.n ? r.d[0].size : 0);
	rec_free(&r);

	/* concatenated members: one document, all of them */
	walk(&r, "multi.log.gz", NULL);
	CHECK_INT(r.n, 1);
	if (r.n == 1) {
		CHECK_STR(r.d[0].name, "multi.log");
		CHECK(same_as_file(&r.d[0], "multi.expect", 0));
		CHECK(r.d[0].complete);
	}
	CHECK_INT(r.m.list.n, 0);
	rec_free(&r);

	/* gzip of gzip, and the gzip's CRLF/NUL bytes pass through */
	CHECK_INT(sh("gzip -c r.gz > r.gz.gz"), 0);
	walk(&r, "r.gz.gz", NULL);
	CHECK_INT(r.n, 1);
	if (r.n == 1) {
		CHECK_STR(r.d[0].name, "r");
		CHECK(same_as_file(&r.d[0], "logs/rank0.log", 0));
	}
	rec_free(&r);

	/* truncated: everything decoded is delivered, then end(complete=0) */
	CHECK_INT(sh("head -c 100000 big.log.gz > cut.gz"), 0);
	walk(&r, "cut.gz", NULL);
	CHECK_INT(r.n, 1);
	if (r.n == 1) {
		CHECK_STR(r.d[0].name, "cut");
		CHECK(!r.d[0].complete);
		CHECK(r.d[0].size > 200000);
		CHECK(same_as_file(&r.d[0], "logs/sub/big.log", 1));
		char *want = xasprintf("cut.gz: unexpected end of gzip stream after %llu bytes",
		                       (unsigned long long)r.d[0].size);
		CHECK(has_msg(&r, want));
		free(want);
	}
	CHECK_INT(r.m.list.n, 1);
	rec_free(&r);

	/* a corrupt byte in the deflate data */
	CHECK_INT(sh("cp big.log.gz bad.gz && printf 'XXXXXXXX' | dd of=bad.gz bs=1 seek=20000 conv=notrunc"), 0);
	walk(&r, "bad.gz", NULL);
	CHECK_INT(r.n, 1);
	if (r.n == 1) {
		/* bytes decoded before zlib notices may already be wrong */
		CHECK(!r.d[0].complete);
		CHECK(r.d[0].size < 1288895);
	}
	CHECK(has_msg(&r, "bad.gz: byte "));
	CHECK(has_msg(&r, ": corrupt gzip data: "));
	rec_free(&r);

	/* trailing garbage after the last member: a warning, data complete */
	CHECK_INT(sh("cp r.gz tg.gz && printf 'garbage' >> tg.gz"), 0);
	walk(&r, "tg.gz", NULL);
	CHECK_INT(r.n, 1);
	if (r.n == 1) {
		CHECK(r.d[0].complete);
		CHECK(same_as_file(&r.d[0], "logs/rank0.log", 0));
	}
	uint64_t rgz;
	file_crc("r.gz", &rgz, UINT64_MAX);
	char *tgm = xasprintf("tg.gz: byte %llu: trailing garbage after gzip data ignored",
	                      (unsigned long long)rgz);
	CHECK(has_msg(&r, tgm));
	free(tgm);
	rec_free(&r);

	/* zero padding after the data is ignored silently (like gzip -d) */
	CHECK_INT(sh("cp r.gz tz.gz && head -c 3000 /dev/zero >> tz.gz"), 0);
	walk(&r, "tz.gz", NULL);
	CHECK_INT(r.n, 1);
	CHECK_INT(r.m.list.n, 0);
	rec_free(&r);

	/* gzip of an empty file: an empty document */
	CHECK_INT(sh("gzip -c logs/empty.log > empty.log.gz"), 0);
	walk(&r, "empty.log.gz", NULL);
	CHECK_INT(r.n, 1);
	if (r.n == 1) {
		CHECK_STR(r.d[0].name, "empty.log");
		CHECK_INT(r.d[0].size, 0);
		CHECK(r.d[0].complete);
	}
	rec_free(&r);

	/* only the gzip header: no document, a message, rc -1 */
	CHECK_INT(sh("head -c 10 r.gz > hdr.gz"), 0);
	walk(&r, "hdr.gz", NULL);
	CHECK_INT(r.n, 0);
	CHECK_INT(r.rc, -1);
	CHECK(has_msg(&r, "hdr.gz: unexpected end of gzip stream after 0 bytes"));
	rec_free(&r);
}

static void test_tar_formats(void)
{
	const char *fmts[] = {"ustar", "pax", "gnu"};
	char *longname = xasprintf("logs/%s/f.log", LONGDIR);
	CHECK(strlen(longname) > 100);
	for (size_t i = 0; i < 3; i++) {
		struct rec r;
		CHECK_INT(sh("tar --format=%s -cf t-%s.tar logs", fmts[i], fmts[i]), 0);
		char *nm = xasprintf("t-%s.tar", fmts[i]);
		walk(&r, nm, NULL);
		free(nm);
		CHECK_INT(r.rc, 0);
		CHECK_INT(r.n, 4);
		CHECK_INT(r.m.list.n, 0);
		CHECK(same_as_file(find(&r, "logs/sub/big.log"), "logs/sub/big.log", 0));
		CHECK(same_as_file(find(&r, "logs/rank0.log"), "logs/rank0.log", 0));
		struct doc *d = find(&r, longname);
		CHECK(d && d->size == 5 && d->complete);
		d = find(&r, "logs/empty.log");
		CHECK(d && d->size == 0 && d->complete);
		rec_free(&r);
	}

	/* v7 (no magic) is recognised by its checksum and octal fields */
	struct rec r;
	CHECK_INT(sh("tar --format=v7 -cf t-v7.tar logs/rank0.log logs/sub/big.log"), 0);
	walk(&r, "t-v7.tar", NULL);
	CHECK_INT(r.n, 2);
	CHECK(same_as_file(find(&r, "logs/sub/big.log"), "logs/sub/big.log", 0));
	rec_free(&r);

	/* .tar.gz and .tgz: members named as in the archive */
	CHECK_INT(sh("tar czf t.tar.gz logs && cp t.tar.gz t.tgz"), 0);
	walk(&r, "t.tar.gz", NULL);
	CHECK_INT(r.n, 4);
	CHECK(same_as_file(find(&r, "logs/sub/big.log"), "logs/sub/big.log", 0));
	CHECK(find(&r, longname) != NULL);
	CHECK_INT(r.m.list.n, 0);
	rec_free(&r);

	/* pax: a global header ('g') is ignored, an 'x' path overrides the name */
	CHECK_INT(sh("tar --format=pax --pax-option='comment=hello,path:=renamed.log' -cf paxg.tar m1"), 0);
	walk(&r, "paxg.tar", NULL);
	CHECK_INT(r.n, 1);
	CHECK(same_as_file(find(&r, "renamed.log"), "m1", 0));
	CHECK_INT(r.m.list.n, 0);
	rec_free(&r);

	/* "./" prefixes are dropped */
	CHECK_INT(sh("cd logs && tar cf ../dot.tar ./rank0.log"), 0);
	walk(&r, "dot.tar", NULL);
	CHECK_INT(r.n, 1);
	CHECK(find(&r, "rank0.log") != NULL);
	rec_free(&r);
	free(longname);
}

static void test_tar_damage(void)
{
	struct rec r;
	/* Three members; the second header (at byte 1024) gets a bad byte. */
	CHECK_INT(sh("tar --format=ustar -cf three.tar m1 m2 m3"
	             " && cp three.tar corrupt.tar && printf 'X' | dd of=corrupt.tar bs=1 seek=1030 conv=notrunc"), 0);
	walk(&r, "corrupt.tar", NULL);
	CHECK_INT(r.rc, 0);
	CHECK_INT(r.n, 2);
	CHECK(find(&r, "m1") != NULL);
	CHECK(find(&r, "m3") != NULL);
	CHECK(has_msg(&r, "corrupt.tar: byte 1024: corrupt tar header (bad checksum), skipped to the next valid header at byte 2048"));
	rec_free(&r);

	/* A member longer than what is left of the archive. */
	CHECK_INT(sh("tar --format=gnu -cf bigm.tar logs/rank0.log logs/sub/big.log && head -c 300000 bigm.tar > short.tar"), 0);
	walk(&r, "short.tar", NULL);
	CHECK_INT(r.n, 2);
	struct doc *d = find(&r, "logs/sub/big.log");
	CHECK(d && !d->complete && d->size == 300000 - 1536);
	CHECK(same_as_file(d, "logs/sub/big.log", 1));
	d = find(&r, "logs/rank0.log");
	CHECK(d && d->complete);
	CHECK(has_msg(&r, "short.tar: byte 1024: truncated: member logs/sub/big.log declares 1288895 bytes, archive ends after 298464"));
	rec_free(&r);

	/* Cut in the middle of a header block. */
	CHECK_INT(sh("head -c 1300 three.tar > midhdr.tar"), 0);
	walk(&r, "midhdr.tar", NULL);
	CHECK_INT(r.n, 1);
	CHECK(has_msg(&r, "midhdr.tar: byte 1024: archive ends inside a tar header (276 of 512 bytes)"));
	rec_free(&r);

	/* No end-of-archive blocks at all: fine, no message. */
	CHECK_INT(sh("head -c 3072 three.tar > noend.tar"), 0);
	walk(&r, "noend.tar", NULL);
	CHECK_INT(r.n, 3);
	CHECK_INT(r.m.list.n, 0);
	rec_free(&r);

	/* A truncated .tar.gz: the members before the cut, the cut one partial. */
	CHECK_INT(sh("tar czf - logs/rank0.log logs/sub/big.log | head -c 50000 > cut.tgz"), 0);
	walk(&r, "cut.tgz", NULL);
	CHECK_INT(r.n, 2);
	d = find(&r, "logs/sub/big.log");
	CHECK(d && !d->complete && d->size > 0);
	CHECK(same_as_file(d, "logs/sub/big.log", 1));
	CHECK(has_msg(&r, "cut.tgz: unexpected end of gzip stream after "));
	rec_free(&r);

	/* Special files in the archive: a message, no document; directories silent. */
	CHECK_INT(sh("mkfifo spec-fifo && tar cf spec.tar spec-fifo m1 logs/sub && rm spec-fifo"), 0);
	walk(&r, "spec.tar", NULL);
	CHECK_INT(r.n, 2);
	CHECK(find(&r, "m1") != NULL);
	CHECK(has_msg(&r, "spec.tar/spec-fifo: fifo in the archive, skipped"));
	CHECK_INT(r.m.list.n, 1);
	rec_free(&r);

	/* GNU sparse member: a message, and the members after it still read. */
	CHECK_INT(sh("truncate -s 4M sparse.bin && printf data | dd of=sparse.bin bs=1 seek=2000000 conv=notrunc"
	             " && tar --format=gnu --sparse -cf sparse.tar sparse.bin m2"), 0);
	walk(&r, "sparse.tar", NULL);
	CHECK_INT(r.n, 1);
	CHECK(find(&r, "m2") != NULL);
	CHECK(has_msg(&r, "sparse.tar/sparse.bin: sparse file in the archive, not supported: skipped"));
	rec_free(&r);
	CHECK_INT(sh("tar --format=pax --sparse -cf sparsep.tar sparse.bin m2"), 0);
	walk(&r, "sparsep.tar", NULL);
	CHECK_INT(r.n, 1);
	CHECK(find(&r, "m2") != NULL);
	CHECK(has_msg(&r, "sparse file in the archive, not supported: skipped"));
	rec_free(&r);
}

static void test_nesting(void)
{
	struct rec r;
	/* a .gz inside a tar: the member name without .gz */
	CHECK_INT(sh("mkdir -p nest/logs && cp logs/rank0.log nest/logs/ && gzip -c logs/sub/big.log > nest/logs/big.log.gz"
	             " && tar -C nest -cf inner.tar logs && cp inner.tar nest/ && gzip -c inner.tar > nest/inner2.tgz"
	             " && tar -C nest -czf outer.tar.gz logs inner.tar inner2.tgz"), 0);
	walk(&r, "outer.tar.gz", NULL);
	CHECK_INT(r.n, 6);
	CHECK_INT(r.m.list.n, 0);
	CHECK(same_as_file(find(&r, "logs/big.log"), "logs/sub/big.log", 0));
	CHECK(find(&r, "logs/rank0.log") != NULL);
	CHECK(same_as_file(find(&r, "inner.tar/logs/big.log"), "logs/sub/big.log", 0));
	CHECK(find(&r, "inner.tar/logs/rank0.log") != NULL);
	CHECK(same_as_file(find(&r, "inner2.tgz/logs/big.log"), "logs/sub/big.log", 0));
	CHECK(find(&r, "inner2.tgz/logs/rank0.log") != NULL);
	rec_free(&r);

	/* the same in a folder: a/b.log.gz -> a/b.log, sub/x.tar -> sub/x.tar/member */
	walk(&r, "nest", NULL);
	CHECK_INT(r.n, 6);
	CHECK(find(&r, "logs/big.log") != NULL);
	CHECK(find(&r, "inner.tar/logs/big.log") != NULL);
	CHECK(find(&r, "inner2.tgz/logs/rank0.log") != NULL);
	rec_free(&r);

	/* nesting cap */
	struct limits l = L;
	l.max_nesting = 1;
	walk(&r, "outer.tar.gz", &l);
	CHECK_INT(r.n, 1); /* logs/rank0.log only */
	CHECK(find(&r, "logs/rank0.log") != NULL);
	CHECK(has_msg(&r, "outer.tar.gz/logs/big.log.gz: archives nested more than 1 deep (--max-nesting), skipped"));
	CHECK(has_msg(&r, "outer.tar.gz/inner.tar: archives nested more than 1 deep (--max-nesting), skipped"));
	rec_free(&r);

	/* member cap */
	l = L;
	l.max_members = 2;
	walk(&r, "three.tar", &l);
	CHECK_INT(r.n, 2);
	CHECK(has_msg(&r, "three.tar: more than 2 members (--max-members), the rest is skipped"));
	rec_free(&r);
}

static void test_folders(void)
{
	struct rec r;
	CHECK_INT(sh("mkdir -p f/b/c f/a && printf x > f/b/c/z.log && printf y > f/a/y.log && printf w > f/w.log"
	             " && printf t > 'f/ctl\001name.log' && ln -s .. f/b/c/up && ln -s ../a f/b/link-to-a"
	             " && ln -s nowhere f/dangling && mkfifo f/fifo"), 0);
	walk(&r, "f", NULL);
	CHECK_INT(r.rc, 0);
	CHECK_INT(r.n, 4);
	if (r.n == 4) {
		/* sorted by name, recursive, relative to the folder; a/y.log once,
		 * though the link b/link-to-a leads to it again */
		CHECK_STR(r.d[0].name, "a/y.log");
		CHECK_STR(r.d[1].name, "b/c/z.log");
		CHECK_STR(r.d[2].name, "ctl?name.log");
		CHECK_STR(r.d[3].name, "w.log");
	}
	char *m = xasprintf("%s/f/b/c/up: symbolic link leads back to a folder above it (a loop), skipped", tmp);
	CHECK(has_msg(&r, m));
	free(m);
	m = xasprintf("%s/f/a/y.log: the same file (a hard link or a link inside the folder) is also "
	              "%s/f/b/link-to-a/y.log: read once, under this name", tmp, tmp);
	CHECK(has_msg(&r, m));
	free(m);
	m = xasprintf("%s/f/dangling: cannot open: No such file or directory", tmp);
	CHECK(has_msg(&r, m));
	free(m);
	m = xasprintf("%s/f/fifo: fifo, skipped", tmp);
	CHECK(has_msg(&r, m));
	free(m);
	CHECK_INT(r.m.list.n, 4);
	rec_free(&r);

	/* hard links: one file of three names is read once (issue 27: 80 links
	 * to an 18.8 MB log were 1.5 GB of input) */
	CHECK_INT(sh("mkdir -p hl && printf 'x\\n' > hl/a.log && ln hl/a.log hl/b.log && ln hl/a.log hl/c.log"), 0);
	walk(&r, "hl", NULL);
	CHECK_INT(r.n, 1);
	m = xasprintf("%s/hl/a.log: the same file (a hard link or a link inside the folder) is also %s/hl/b.log, "
	              "%s/hl/c.log: read once, under this name", tmp, tmp, tmp);
	CHECK(has_msg(&r, m));
	free(m);
	rec_free(&r);

	/* unreadable file: only testable when not root */
	if (geteuid() != 0) {
		CHECK_INT(sh("mkdir -p g && printf s > g/secret.log && chmod 000 g/secret.log && printf o > g/ok.log"), 0);
		walk(&r, "g", NULL);
		CHECK_INT(r.n, 1);
		CHECK(has_msg(&r, "g/secret.log: cannot open: Permission denied"));
		rec_free(&r);
		sh("chmod 600 g/secret.log");
	}

	/* depth and entry caps */
	struct limits l = L;
	l.max_depth = 1;
	walk(&r, "f", &l);
	CHECK(find(&r, "a/y.log") != NULL);
	for (size_t i = 0; i < r.n; i++)
		CHECK(strcmp(r.d[i].name, "b/c/z.log") != 0);
	m = xasprintf("%s/f/b/c: folders nested deeper than 1 (--max-depth), skipped", tmp);
	CHECK(has_msg(&r, m));
	free(m);
	rec_free(&r);
	l = L;
	l.max_entries = 7; /* a, a/y.log, b, b/c, b/c/up, b/c/z.log, b/link-to-a */
	walk(&r, "f", &l);
	CHECK_INT(r.n, 2);
	CHECK(has_msg(&r, "f/b/link-to-a/y.log: more than 7 folder entries (--max-entries), the rest is skipped"));
	rec_free(&r);

	/* a folder operand whose files cannot be read at all gives -1 */
	CHECK_INT(sh("mkdir -p onlybad && ln -s nowhere onlybad/x"), 0);
	walk(&r, "onlybad", NULL);
	CHECK_INT(r.rc, -1);
	rec_free(&r);
}

static void test_caps(void)
{
	struct rec r;
	/* 64 MiB of zeros: about 64 KiB of gzip, a ratio of ~1000:1 */
	CHECK_INT(sh("head -c 67108864 /dev/zero | gzip -c > bomb.gz"), 0);
	struct limits l = L;
	l.max_ratio = 100;
	walk(&r, "bomb.gz", &l);
	CHECK_INT(r.n, 1);
	if (r.n == 1) {
		CHECK(!r.d[0].complete);
		CHECK(r.d[0].size <= (17u << 20));
	}
	CHECK(has_msg(&r, "bomb.gz: decompressed 16.0 MiB from "));
	CHECK(has_msg(&r, "above the limit of 100:1 (--max-ratio); stopped"));
	rec_free(&r);

	/* the same bomb inside a tar.gz stops the archive, no crash */
	CHECK_INT(sh("tar czf bomb.tar.gz bomb.gz m1"), 0);
	walk(&r, "bomb.tar.gz", &l);
	CHECK(has_msg(&r, "(--max-ratio); stopped"));
	rec_free(&r);

	l = L;
	l.max_member_bytes = 1000;
	walk(&r, "big.log.gz", &l);
	CHECK_INT(r.n, 1);
	if (r.n == 1) {
		CHECK_INT(r.d[0].size, 1000);
		CHECK(!r.d[0].complete);
		CHECK(same_as_file(&r.d[0], "logs/sub/big.log", 1));
	}
	CHECK(has_msg(&r, "big.log.gz: cut at 1000 bytes (--max-member-bytes)"));
	rec_free(&r);

	/* a member cut by the cap: the following members are still read */
	walk(&r, "bigm.tar", &l);
	CHECK_INT(r.n, 2);
	struct doc *d = find(&r, "logs/rank0.log");
	CHECK(d && d->complete);
	d = find(&r, "logs/sub/big.log");
	CHECK(d && !d->complete && d->size == 1000);
	CHECK(has_msg(&r, "bigm.tar/logs/sub/big.log: cut at 1000 bytes (--max-member-bytes)"));
	rec_free(&r);

	/* exactly at the cap is complete */
	l.max_member_bytes = 22;
	walk(&r, "logs/rank0.log", &l);
	CHECK(r.n == 1 && r.d[0].complete);
	CHECK_INT(r.m.list.n, 0);
	rec_free(&r);

	/* bundle cap: stops everything after it */
	l = L;
	l.max_bundle_bytes = 10;
	walk(&r, "three.tar", &l);
	CHECK_INT(r.n, 3);
	CHECK_INT(r.st.bytes_out, 10);
	CHECK(has_msg(&r, "three.tar/m3: cut at 2 bytes: the bundle reached 10 bytes (--max-bundle-bytes)"));
	rec_free(&r);
}

static void test_unsupported(void)
{
	struct rec r;
	if (have_tool("xz")) {
		CHECK_INT(sh("xz -c logs/rank0.log > r.log.xz"), 0);
		walk(&r, "r.log.xz", NULL);
		CHECK_INT(r.n, 0);
		CHECK(has_msg(&r, "r.log.xz: unsupported compressed format (xz): decompress it first"));
		rec_free(&r);
	}
	if (have_tool("bzip2")) {
		CHECK_INT(sh("bzip2 -c logs/rank0.log > r.log.bz2 && tar cf withbz.tar r.log.bz2 m1"), 0);
		walk(&r, "withbz.tar", NULL);
		CHECK_INT(r.n, 1);
		CHECK(has_msg(&r, "withbz.tar/r.log.bz2: unsupported compressed format (bzip2): decompress it first"));
		rec_free(&r);
	}
	if (have_tool("zstd")) {
		CHECK_INT(sh("zstd -q -c logs/rank0.log > r.log.zst"), 0);
		walk(&r, "r.log.zst", NULL);
		CHECK(has_msg(&r, "unsupported compressed format (zstd)"));
		rec_free(&r);
	}
}

static void test_stdin(void)
{
	struct rec r;
	char *p = xasprintf("%s/t.tar.gz", tmp);
	int fd = open(p, O_RDONLY);
	free(p);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	int saved = dup(0);
	dup2(fd, 0);
	close(fd);
	walk(&r, "-", NULL);
	dup2(saved, 0);
	close(saved);
	CHECK_INT(r.n, 4);
	CHECK(same_as_file(find(&r, "logs/sub/big.log"), "logs/sub/big.log", 0));
	rec_free(&r);

	p = xasprintf("%s/r.gz", tmp);
	fd = open(p, O_RDONLY);
	free(p);
	saved = dup(0);
	dup2(fd, 0);
	close(fd);
	walk(&r, "-", NULL);
	dup2(saved, 0);
	close(saved);
	CHECK(r.n == 1 && strcmp(r.d[0].name, "stdin") == 0);
	rec_free(&r);
}

static char *slurp(const char *rel, size_t *n)
{
	char *p = xasprintf("%s/%s", tmp, rel);
	FILE *f = fopen(p, "rb");
	free(p);
	struct buf b;
	buf_init(&b);
	if (f) {
		char t[65536];
		size_t k;
		while ((k = fread(t, 1, sizeof t, f)) > 0)
			buf_add(&b, t, k);
		fclose(f);
	}
	*n = b.len;
	return buf_steal(&b);
}

static void test_memory(void)
{
	struct rec r;
	struct doc_sink s = {&r, r_begin, r_data, r_end, NULL, NULL};
	size_t n;
	char *data = slurp("t.tar.gz", &n);
	memset(&r, 0, sizeof r);
	CHECK_INT(input_walk_memory("ticket.tar.gz", data, n, &L, &s, &r.m, &r.st), 0);
	CHECK_INT(r.n, 4);
	CHECK(same_as_file(find(&r, "logs/sub/big.log"), "logs/sub/big.log", 0));
	CHECK_INT(r.st.bytes_in, n);
	rec_free(&r);

	/* every prefix of a small .tar.gz: never a crash, documents well formed */
	CHECK_INT(sh("tar czf small.tgz m1 m2 m3 logs/rank0.log"), 0);
	free(data);
	data = slurp("small.tgz", &n);
	for (size_t cut = 0; cut <= n; cut++) {
		memset(&r, 0, sizeof r);
		input_walk_memory("small.tgz", data, cut, &L, &s, &r.m, &r.st);
		CHECK(!r.open && !r.misuse);
		if (cut == n)
			CHECK_INT(r.n, 4);
		rec_free(&r);
	}
	/* and every single flipped byte */
	for (size_t i = 0; i < n; i++) {
		data[i] ^= 0x55;
		memset(&r, 0, sizeof r);
		input_walk_memory("small.tgz", data, n, &L, &s, &r.m, &r.st);
		if (r.open || r.misuse)
			CHECK(!"sink misuse after a flipped byte");
		rec_free(&r);
		data[i] ^= 0x55;
	}
	free(data);

	memset(&r, 0, sizeof r);
	CHECK_INT(input_walk_memory("plain.log", "a\r\nb\0c", 6, &L, &s, &r.m, &r.st), 0);
	CHECK(r.n == 1 && r.d[0].size == 6 && memcmp(r.d[0].bytes.data, "a\r\nb\0c", 6) == 0);
	CHECK_STR(r.n ? r.d[0].name : NULL, "plain.log");
	rec_free(&r);

	memset(&r, 0, sizeof r);
	CHECK_INT(input_walk_memory("empty", NULL, 0, &L, &s, &r.m, &r.st), 0);
	CHECK(r.n == 1 && r.d[0].size == 0 && r.d[0].complete);
	rec_free(&r);
}

/* The committed crafted files. */
static void test_fixtures(void)
{
	const char *dirs[] = {"fixtures/bad-input", "../fixtures/bad-input", "../../fixtures/bad-input"};
	const char *dir = NULL;
	struct stat sb;
	for (size_t i = 0; i < 3; i++)
		if (stat(dirs[i], &sb) == 0 && S_ISDIR(sb.st_mode))
			dir = dirs[i];
	if (!dir) {
		fprintf(stderr, "test_input: fixtures/bad-input not found from here, skipped\n");
		return;
	}
	char cwd[4096];
	if (!getcwd(cwd, sizeof cwd))
		return;
	char *abs = xasprintf("%s/%s", cwd, dir);
	struct rec r;
	char *p;

	p = xasprintf("%s/corrupt-header.tar", abs);
	walk(&r, p, NULL);
	CHECK_INT(r.n, 2);
	CHECK(has_msg(&r, "corrupt-header.tar: byte 1024: corrupt tar header (bad checksum)"));
	rec_free(&r);
	free(p);

	p = xasprintf("%s/member-too-large.tar", abs);
	walk(&r, p, NULL);
	CHECK(r.n == 1 && !r.d[0].complete);
	CHECK(has_msg(&r, "truncated: member "));
	rec_free(&r);
	free(p);

	p = xasprintf("%s/truncated.log.gz", abs);
	walk(&r, p, NULL);
	CHECK(r.n == 1 && !r.d[0].complete && strcmp(r.d[0].name, "truncated.log") == 0);
	CHECK(has_msg(&r, "unexpected end of gzip stream after "));
	rec_free(&r);
	free(p);

	p = xasprintf("%s/multi-member.log.gz", abs);
	walk(&r, p, NULL);
	CHECK(r.n == 1 && r.d[0].complete);
	CHECK_INT(r.m.list.n, 0);
	rec_free(&r);
	free(p);

	p = xasprintf("%s/trailing-garbage.log.gz", abs);
	walk(&r, p, NULL);
	CHECK(r.n == 1 && r.d[0].complete);
	CHECK(has_msg(&r, "trailing garbage after gzip data ignored"));
	rec_free(&r);
	free(p);

	p = xasprintf("%s/crlf-nul.log", abs);
	walk(&r, p, NULL);
	CHECK(r.n == 1 && r.d[0].bytes.len > 0 && memchr(r.d[0].bytes.data, 0, r.d[0].bytes.len) &&
	      strstr(r.d[0].bytes.data, "\r\n"));
	rec_free(&r);
	free(p);
	free(abs);
}

int main(void)
{
	verbose = getenv("TEST_VERBOSE") != NULL;
	limits_default(&L);
	const char *td = getenv("TMPDIR");
	snprintf(tmp, sizeof tmp, "%s/nt-input-XXXXXX", td && *td ? td : "/tmp");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	make_tree();
	test_plain_and_empty();
	test_gzip();
	test_tar_formats();
	test_tar_damage();
	test_nesting();
	test_folders();
	test_caps();
	test_unsupported();
	test_stdin();
	test_memory();
	test_fixtures();
	char *rm = xasprintf("rm -rf '%s'", tmp);
	if (system(rm) != 0)
		fprintf(stderr, "test_input: could not remove %s\n", tmp);
	free(rm);
	TEST_MAIN_END();
}
