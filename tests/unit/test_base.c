/* Unit tests for the base layer: JSON getters (json.h), versions
 * (version.h), timestamps (tstamp.h), the hash and hash index (hash.h),
 * topology link classes (linkclass.h), tar headers (tarhdr.h), reading
 * a file into a buffer, copying a line, writing a whole buffer and
 * str_sanitize's fast path (util.h), and json_print_file against cJSON_Print. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "base/arena.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/linkclass.h"
#include "base/tarhdr.h"
#include "testlib.h"
#include "base/tstamp.h"
#include "base/util.h"
#include "base/version.h"

static void test_json(void)
{
	cJSON *o = cJSON_Parse("{\"s\":\"x\",\"n\":2.5,\"a\":[1,2,3],\"o\":{\"k\":1},\"b\":true}");
	double v = -1;
	CHECK_STR(json_str(o, "s"), "x");
	CHECK(json_str(o, "n") == NULL);
	CHECK(json_str(o, "missing") == NULL);
	CHECK(json_str(NULL, "s") == NULL);
	CHECK(json_num(o, "n", &v) && v == 2.5);
	v = -1;
	CHECK(!json_num(o, "s", &v) && v == -1);
	CHECK(!json_num(NULL, "n", &v));
	CHECK(json_get(o, "S") == NULL); /* case-sensitive */
	CHECK(json_get(NULL, "s") == NULL);
	CHECK(cJSON_IsTrue(json_get(o, "b")));
	CHECK_INT(json_size(json_get(o, "a")), 3);
	CHECK_INT(json_size(json_get(o, "o")), 1);
	CHECK_INT(json_size(json_get(o, "s")), 0);
	CHECK_INT(json_size(NULL), 0);
	cJSON_Delete(o);
}

/* buf_read_file (util.h): all of a file, or up to its cap; a read error */
/* json_print_file writes what cJSON_Print makes, byte for byte: random
 * trees (every type, numbers of every kind: integers around 1e15 and
 * INT_MAX, fractions, -0, NaN and infinities from random bits, strings
 * with control bytes and high bytes, nested objects and arrays). */
static unsigned long long jr = 88172645463325252ull;
static unsigned long long jrand(void)
{
	jr ^= jr << 13;
	jr ^= jr >> 7;
	jr ^= jr << 17;
	return jr;
}

static double jnum(void)
{
	double d;
	unsigned long long u;
	switch (jrand() % 12) {
	case 0: return (double)(long long)(jrand() % 2000000) - 1000000;
	case 1: u = jrand(); memcpy(&d, &u, sizeof d); return d;
	case 2: return -0.0;
	case 3: return (double)(jrand() % 1000000) / 100.0;
	case 4: return 1e15 - (double)(jrand() % 3);
	case 5: return -1e15 + (double)(jrand() % 3);
	case 6: return (double)(jrand() >> 1);
	case 7: return ldexp((double)(jrand() % 1000), (int)(jrand() % 200) - 100);
	case 8: return 1.0 / (double)(1 + jrand() % 1000);
	case 9: return 2147483647.0 + (double)(jrand() % 5) - 2;
	case 10: return (double)(jrand() % 86400) + (double)(jrand() % 1000000) / 1e6;
	default: return (double)(jrand() % 100);
	}
}

static void jtext(char *s, size_t cap)
{
	size_t n = jrand() % cap;
	for (size_t i = 0; i < n; i++)
		s[i] = (char)(jrand() % 9 == 0 ? 1 + jrand() % 255 : 32 + jrand() % 95);
	s[n] = 0;
}

static cJSON *jtree(int depth)
{
	char t[48];
	cJSON *v;
	switch (jrand() % (depth > 5 ? 6 : 8)) {
	case 0: return cJSON_CreateNull();
	case 1: return jrand() & 1 ? cJSON_CreateTrue() : cJSON_CreateFalse();
	case 2: case 3: return cJSON_CreateNumber(jnum());
	case 4: case 5: jtext(t, sizeof t); return cJSON_CreateString(t);
	case 6:
		v = cJSON_CreateArray();
		for (int i = (int)(jrand() % 5); i > 0; i--)
			cJSON_AddItemToArray(v, jtree(depth + 1));
		return v;
	default:
		v = cJSON_CreateObject();
		for (int i = (int)(jrand() % 5); i > 0; i--) {
			jtext(t, sizeof t);
			cJSON_AddItemToObject(v, t, jtree(depth + 1));
		}
		return v;
	}
}

static void test_json_print_file(void)
{
	int same = 0, n = 20000;
	for (int i = 0; i < n; i++) {
		cJSON *v = jtree(0);
		for (int d = 0; i % 50 == 0 && d < 24; d++) { /* deeper than 16 tabs */
			cJSON *o = cJSON_CreateObject();
			cJSON_AddItemToObject(o, "k", v);
			v = o;
		}
		char *want = cJSON_Print(v), *got = NULL;
		size_t gotn = 0;
		FILE *f = open_memstream(&got, &gotn);
		int r = f ? json_print_file(f, v) : -1;
		if (f)
			fclose(f);
		same += r == 0 && want && got && strcmp(want, got) == 0;
		free(want);
		free(got);
		cJSON_Delete(v);
	}
	CHECK_INT(same, n);
	FILE *f = fopen("/dev/null", "w");
	CHECK(f && json_print_file(f, NULL) < 0);
	if (f)
		fclose(f);
}

/* The bytes after a buffer's NUL are initialised and inside the
 * allocation (util.c's BUF_TAIL: a regex JIT reads ahead of a subject's
 * end): 64 of them after every add, a reset, a read and a reserve. */
static int tail_zero_after(const struct buf *b, size_t from)
{
	if (b->cap < b->len + 1 + 64 || b->inited < b->len + 1 + 64)
		return 0;
	for (size_t i = from; i < b->len + 1 + 64; i++)
		if (b->data[i])
			return 0;
	return 1;
}

static void test_buf_tail(void)
{
	struct buf b;
	buf_init(&b);
	buf_reserve(&b, 0);
	CHECK(tail_zero_after(&b, 0));
	for (int i = 0; i < 5000; i++) {
		buf_addc(&b, 'x');
		if (!tail_zero_after(&b, b.len)) {
			CHECK(!"64 zero bytes after each buf_addc");
			break;
		}
	}
	CHECK_INT((long long)b.len, 5000);
	buf_reset(&b);
	buf_adds(&b, "ab");
	/* after a reset the old text is still there: initialised, not zero */
	CHECK(b.data[2] == 0 && b.cap >= 2 + 1 + 64 && b.inited >= 5000 + 1 + 64);
	buf_free(&b);
	FILE *f = tmpfile();
	CHECK(f != NULL);
	if (!f)
		return;
	for (int i = 0; i < 4096; i++)
		fputc('y', f);
	rewind(f);
	buf_init(&b);
	CHECK_INT(buf_read_file(&b, f, SIZE_MAX), 0);
	CHECK_INT((long long)b.len, 4096);
	CHECK(tail_zero_after(&b, b.len));
	buf_free(&b);
	fclose(f);
}

static void test_buf_read_file(void)
{
	FILE *f = tmpfile();
	CHECK(f != NULL);
	if (!f)
		return;
	for (int i = 0; i < 100000; i++)
		fputc('a' + i % 26, f);
	rewind(f);
	struct buf b;
	buf_init(&b);
	CHECK_INT(buf_read_file(&b, f, SIZE_MAX), 0);
	CHECK_INT((long long)b.len, 100000);
	CHECK(b.len == 100000 && b.data[0] == 'a' && b.data[99999] == 'a' + 99999 % 26);
	buf_free(&b);
	rewind(f);
	CHECK_INT(buf_read_file(&b, f, 10), 0); /* one chunk: the cap is reached after it */
	CHECK_INT((long long)b.len, 65536);
	buf_free(&b);
	fclose(f);
	f = fopen(".", "rb"); /* a folder: fopen succeeds, fread fails (EISDIR) */
	if (f) {
		CHECK_INT(buf_read_file(&b, f, SIZE_MAX), -1);
		CHECK_INT((long long)b.len, 0);
		buf_free(&b);
		fclose(f);
	}
}

/* str_line_copy (util.h): bounded, control bytes as spaces, tabs kept on request */
static void test_str_line_copy(void)
{
	char d[8];
	CHECK_INT(str_line_copy(d, sizeof d, "a\tb\rc\0d", 7, 1), 7);
	CHECK_STR(d, "a\tb c d");
	CHECK_INT(str_line_copy(d, sizeof d, "a\tb", 3, 0), 3);
	CHECK_STR(d, "a b");
	CHECK_INT(str_line_copy(d, sizeof d, "0123456789", 10, 0), 7);
	CHECK_STR(d, "0123456");
}

/* fd_write_all (util.h): at an offset, at the current offset; an error */
static void test_fd_write_all(void)
{
	FILE *f = tmpfile();
	CHECK(f != NULL);
	if (!f)
		return;
	int fd = fileno(f);
	CHECK_INT(fd_write_all(fd, "hello", 5, -1), 0);   /* at the current offset: 0..5 */
	CHECK_INT(fd_write_all(fd, "HE", 2, 0), 0);       /* over the start, offset unchanged */
	CHECK_INT(fd_write_all(fd, " world", 6, -1), 0);  /* after "HEllo" */
	char got[32] = "";
	CHECK_INT(pread(fd, got, sizeof got - 1, 0), 11);
	CHECK_STR(got, "HEllo world");
	fclose(f);
	CHECK_INT(fd_write_all(-1, "x", 1, -1), -1);
}

static void test_json_line(void)
{
	const char *t = "{\n"
	                "  \"family\": \"x\",\n"
	                "  \"signatures\": [\n"
	                "    {\"id\": \"a\",\n"
	                "     \"samples\": [\"s0\",\n"
	                "                 {\"line\": \"l\\\"x\\n\", \"captures\": {}}]},\n"
	                "    {\"id\": \"b\"}\n"
	                "  ],\n"
	                "  \"diagnoses\": [{\"when\": {\"any\": [\"a\",\n\"b\"], \"nccl\": \">=2\"}}]\n"
	                "}\n";
	size_t n = strlen(t);
	CHECK_INT(json_path_line(t, n, "$"), 1);
	CHECK_INT(json_path_line(t, n, ""), 1);
	CHECK_INT(json_path_line(t, n, "family"), 2);
	CHECK_INT(json_path_line(t, n, "signatures"), 3);
	CHECK_INT(json_path_line(t, n, "signatures[0]"), 4);
	CHECK_INT(json_path_line(t, n, "signatures[0].id"), 4);
	CHECK_INT(json_path_line(t, n, "signatures[0].samples[0]"), 5);
	CHECK_INT(json_path_line(t, n, "signatures[0].samples[1]"), 6);
	CHECK_INT(json_path_line(t, n, "signatures[0].samples[1].captures"), 6);
	CHECK_INT(json_path_line(t, n, "signatures[1].id"), 7);
	CHECK_INT(json_path_line(t, n, "diagnoses[0].when.any[1]"), 10);
	CHECK_INT(json_path_line(t, n, "diagnoses[0].when.nccl"), 10);
	CHECK_INT(json_path_line(t, n, "signatures[2]"), 0);
	CHECK_INT(json_path_line(t, n, "nope"), 0);
	CHECK_INT(json_path_line(t, n, "signatures.id"), 0);
	CHECK_INT(json_path_line("{\"a\": [1, 2", 11, "a[1]"), 1);  /* found before the text breaks */
	CHECK_INT(json_path_line("{\"a\": [1, 2", 11, "a[2]"), 0);
	CHECK_INT(json_path_line("not json", 8, "a"), 0);
	CHECK_INT(json_path_line(NULL, 0, "a"), 0);
	/* nesting deeper than JSON_LINE_DEPTH is not followed, and does not crash */
	struct buf deep;
	buf_init(&deep);
	for (int i = 0; i < 100000; i++)
		buf_adds(&deep, "[");
	CHECK_INT(json_path_line(deep.data, deep.len, "[0][0]"), 1);
	CHECK_INT(json_path_line(deep.data, deep.len, "x"), 0);
	buf_free(&deep);
}

static void test_version(void)
{
	struct version v;
	CHECK(version_parse("2.28.9", &v) && v.n == 3 && v.part[0] == 2 && v.part[1] == 28 && v.part[2] == 9);
	/* one rule for the prefix and the suffixes */
	CHECK_INT(version_code("2.28.9"), 22809);
	CHECK_INT(version_code("v2.28.9"), 22809);
	CHECK_INT(version_code("V2.28.9"), 22809);
	CHECK_INT(version_code("2.28.9+cuda13.0"), 22809);
	CHECK_INT(version_code("2.27.3+cu128"), 22703);
	CHECK_INT(version_code("2.21.5.post1"), 22105);
	CHECK_INT(version_code("2.28.9-1"), 22809);
	CHECK_INT(version_code("2.28.9-1+cuda12.8"), 22809);
	CHECK_INT(version_code("2.9"), 20900);
	CHECK_INT(version_code("2.28.3rc1"), 22803);
	CHECK_INT(version_code("2.28.9 (build)"), 22809);
	/* not versions */
	CHECK_INT(version_code("2"), -1);          /* no minor */
	CHECK_INT(version_code("x"), -1);
	CHECK_INT(version_code(""), -1);
	CHECK_INT(version_code(NULL), -1);
	CHECK_INT(version_code("vv2.28"), -1);
	CHECK_INT(version_code("NCCL version 2.18.6"), -1); /* a sentence, not a version */
	CHECK_INT(version_code("2..3"), -1);
	CHECK_INT(version_code("2.28."), -1);
	CHECK_INT(version_code("2.100.1"), -1);   /* minor over 99 */
	CHECK_INT(version_code("2.28.100"), -1);
	CHECK_INT(version_code("2.x"), -1);
	CHECK(!version_parse("-2.1", &v));
	CHECK(!version_parse("2,1", &v));
	/* four numbers at most; more are suffix */
	CHECK(version_parse("1.2.3.4.5", &v) && v.n == 4 && v.part[3] == 4);
	/* compare: part by part, missing parts are 0 */
	CHECK(version_cmp_str("580.159.04", "525.60.13") > 0);
	CHECK(version_cmp_str("525.60.13", "525.60.13") == 0);
	CHECK(version_cmp_str("570.26", "570.26.0") == 0);
	CHECK(version_cmp_str("570.9", "570.26") < 0);
	CHECK(version_cmp_str("v12.4", "12.4.1") < 0);
	CHECK(version_cmp_str("12.8+cu128", "12.8") == 0);
	CHECK(version_cmp_str("garbage", "1.0") < 0); /* no version sorts first */
	CHECK(version_cmp_str("1.0", "garbage") > 0);
	CHECK(version_cmp_str("x", "y") == 0);
}

static void test_tstamp(void)
{
	struct tstamp t;
	CHECK(tstamp_parse("2026-11-30 14:16:25", 19, &t));
	CHECK(t.year == 2026 && t.month == 11 && t.day == 30 && t.sod == 14 * 3600 + 16 * 60 + 25);
	/* one epoch for the three date forms */
	double e = tstamp_epoch(&t);
	CHECK(e == 1796048185.0);
	CHECK(tstamp_epoch_of("2026/11/30 14:16:25") == e);
	CHECK(tstamp_epoch_of("2026-11-30T14:16:25") == e);
	CHECK(tstamp_epoch_of("2026-11-30_14:16:25") == e);
	CHECK(tstamp_epoch_of("Mon Nov 30 14:16:25 2026") == e);
	CHECK(tstamp_epoch_of("  [2026-11-30 14:16:25] rest") == e);
	CHECK(fabs(tstamp_epoch_of("2026/11/30 14:16:53.366") - (e + 28.366)) < 1e-6);
	CHECK(fabs(tstamp_epoch_of("2026-11-30 14:16:53,366") - (e + 28.366)) < 1e-6);
	CHECK(tstamp_epoch_of("Tue Dec  1 00:00:00 2026") == e - (14 * 3600 + 16 * 60 + 25) + 86400);
	CHECK(tstamp_epoch_of("1970-01-01 00:00:00") == 0);
	/* glog: no year, so no epoch, but an order */
	CHECK(tstamp_parse("E1130 14:16:25.500000000 ProcessGroupNCCL.cpp:689]", 50, &t));
	CHECK(t.year == 0 && t.month == 11 && t.day == 30);
	CHECK(isnan(tstamp_epoch(&t)));
	double g = tstamp_order(&t);
	CHECK(tstamp_parse("2026-11-30 14:16:25", 19, &t) && tstamp_order(&t) < g);
	CHECK(tstamp_parse("I1201 00:00:01.0", 16, &t) && tstamp_order(&t) > g);
	/* not timestamps */
	/* the year-less forms of the outer prefixes (peel.h) are on the same scale */
	CHECK(tstamp_parse("E108 20:04:34.467642512", 23, &t) && t.month == 1 && t.day == 8);
	CHECK(tstamp_parse("Aug 12 01:22:51", 15, &t) && t.month == 8 && t.day == 12 && t.year == 0);
	CHECK(tstamp_parse("Dec  1 00:00:01.5", 17, &t) && t.month == 12 && t.day == 1 && tstamp_order(&t) > g);
	CHECK(tstamp_parse("11-30 14:16:26", 14, &t) && tstamp_order(&t) > g - 1 && t.year == 0);
	CHECK(tstamp_parse("11/30/2026 14:16:25", 19, &t) && tstamp_epoch(&t) == e);
	CHECK(!tstamp_parse("Foo 12 01:22:51", 15, &t));
	CHECK(!tstamp_parse("Aug 32 01:22:51", 15, &t));
	CHECK(!tstamp_parse("13-01 00:00:00", 14, &t));
	CHECK(!tstamp_parse("2026-13-30 14:16:25", 19, &t));
	CHECK(!tstamp_parse("2026-11-30 24:00:00", 19, &t));
	CHECK(!tstamp_parse("2026-11-30 14:61:00", 19, &t));
	CHECK(!tstamp_parse("2026-11/30 14:16:25", 19, &t)); /* mixed separators */
	CHECK(!tstamp_parse("2026-11-30 14:16", 16, &t));
	CHECK(!tstamp_parse("2026-11-30 14:16:25", 15, &t)); /* cut by n */
	CHECK(!tstamp_parse("vm:1224:1224 [0] NCCL INFO x", 27, &t));
	CHECK(!tstamp_parse("Mon Foo 30 14:16:25 2026", 24, &t));
	CHECK(!tstamp_parse("", 0, &t));
	CHECK(!tstamp_parse(NULL, 0, &t));
	/* the first test before the forms, at its edges: every rejection clears *t */
	static const struct tstamp zero; /* padding included */
	t.year = 7;
	CHECK(!tstamp_parse("[[  ", 4, &t) && memcmp(&t, &zero, sizeof t) == 0); /* nothing after the skip */
	t.day = 3;
	CHECK(!tstamp_parse("xyz 12 01:22:51", 15, &t) && memcmp(&t, &zero, sizeof t) == 0); /* blank at [3], no month */
	CHECK(!tstamp_parse("Aug 12 01:22:5", 14, &t));   /* blank at [3], one byte short of 15 */
	CHECK(!tstamp_parse("Augx12 01:22:51", 15, &t));  /* no blank at [3] */
	CHECK(!tstamp_parse("D1130 14:16:25", 14, &t));   /* not a glog level letter */
	CHECK(!tstamp_parse("E 1130 14:16:25", 15, &t));  /* a level letter, no digit after it */
	CHECK(!tstamp_parse("Error 12:00:00", 14, &t));
	CHECK(!tstamp_parse("I113", 4, &t));              /* a level letter and a digit, too short */
	CHECK(tstamp_parse("I108 20:04:34", 13, &t) && t.month == 1 && t.day == 8);
	CHECK(!tstamp_parse("The quick brown", 15, &t));  /* a blank at [3], none at [6] or [7] */
	CHECK(!tstamp_parse("Aug 12x01:22:51", 15, &t));  /* blank at [3] and [6] only as far as [6] */
	CHECK(tstamp_parse("Aug  2 01:22:51", 15, &t) && t.day == 2);
	CHECK(!tstamp_parse("Mon Nov 30 14:16:25 202", 23, &t)); /* ctime one byte short */
	CHECK(!tstamp_parse("-2026-11-30 14:16:25", 20, &t));
	CHECK(!tstamp_parse("\t2026-11-30 14:16:25", 20, &t)); /* only '[' and ' ' are skipped */
	CHECK(tstamp_parse("[ [2026-11-30 14:16:25", 22, &t) && t.year == 2026);
	CHECK(tstamp_parse("W1130 14:16:25", 14, &t) && t.month == 11);
	CHECK(tstamp_parse("F1130 14:16:25", 14, &t) && t.day == 30);
	CHECK(tstamp_parse("  Aug 12 01:22:51", 17, &t) && t.month == 8);
	t.year = 9;
	CHECK(!tstamp_parse("2026-11-30 xx", 13, &t) && memcmp(&t, &zero, sizeof t) == 0); /* past the test, then no form */
	CHECK(isnan(tstamp_epoch_of("garbage")));
	CHECK(isnan(tstamp_epoch_of(NULL)));
}

struct item { const char *key; };
static int item_hash(const void *ctx, size_t i, uint64_t *h)
{
	const struct item *v = ctx;
	if (!v[i].key)
		return 0;
	*h = hash_str(HASH_SEED, v[i].key);
	return 1;
}

static void test_hash(void)
{
	/* FNV-1a 64: the standard vector with the standard basis, and the
	 * tool's basis (what the database version has always been hashed with) */
	CHECK(hash_str(0xcbf29ce484222325ULL, "foobar") == 0x85944171f73967e8ULL);
	CHECK(hash_str(HASH_SEED, "") == HASH_SEED);
	CHECK(hash_str(HASH_SEED, "a") == 0x44bd8ad473cd9906ULL);
	CHECK(hash_str(HASH_SEED, "foobar") == 0x88fad7c0a8ff07f2ULL);
	CHECK(hash_bytes(HASH_SEED, "foobar", 6) == hash_str(HASH_SEED, "foobar"));
	CHECK(hash_bytes(hash_bytes(HASH_SEED, "foo", 3), "bar", 3) == hash_str(HASH_SEED, "foobar"));
	/* the index: positions survive growth; unindexed entries are skipped */
	enum { N = 1000 };
	struct item *v = xcalloc(N, sizeof *v);
	char **keys = xcalloc(N, sizeof *keys);
	struct hindex ix = {0};
	for (size_t i = 0; i < N; i++) {
		keys[i] = xasprintf("key-%zu", i);
		v[i].key = i % 7 == 3 ? NULL : keys[i];
		if (hindex_crowded(&ix, i + 1))
			hindex_grow(&ix, i + 1, item_hash, v);
		else if (v[i].key)
			hindex_put(&ix, hash_str(HASH_SEED, v[i].key), i);
	}
	CHECK(ix.nslot >= 2 * N && (ix.nslot & (ix.nslot - 1)) == 0);
	size_t found = 0, absent = 0;
	for (size_t i = 0; i < N; i++) {
		uint64_t h = hash_str(HASH_SEED, keys[i]);
		size_t at = (size_t)-1;
		for (size_t s = hindex_first(&ix, h); ix.slot[s]; s = hindex_next(&ix, s))
			if (v[ix.slot[s] - 1].key && strcmp(v[ix.slot[s] - 1].key, keys[i]) == 0)
				at = ix.slot[s] - 1;
		if (v[i].key)
			found += at == i;
		else
			absent += at == (size_t)-1;
	}
	CHECK_INT(found, N - (N + 3) / 7);
	CHECK_INT(absent, (N + 3) / 7);
	hindex_free(&ix);
	CHECK(ix.slot == NULL && ix.nslot == 0);
	for (size_t i = 0; i < N; i++)
		free(keys[i]);
	free(keys);
	free(v);
}

static void test_linkclass(void)
{
	static const struct { const char *t, *cls, *legend; int direct, cpu; } T[] = {
		{"X", "self", "X", 0, 0},
		{"NV18", "nvlink", "NV", 1, 0},
		{"NVB", "nvlink", "NV", 1, 0},
		{"C2C", "c2c", "other", 1, 0},
		{"PIX", "pcie_switch", "PIX", 1, 0},
		{"PXB", "pcie_switch", "PXB", 1, 0},
		{"P2C", "pcie_switch", "other", 1, 0},
		{"PHB", "host_bridge", "PHB", 0, 1},
		{"NODE", "numa_node", "NODE", 0, 1},
		{"SYS", "cross_socket", "SYS", 0, 1},
		{"SOC", "cross_socket", "SYS", 0, 1},
		{"PXN", "unknown", "other", 0, 0},
		{"OK", "unknown", "other", 0, 0},
	};
	for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
		CHECK_STR(topo_link_class(T[i].t), T[i].cls);
		CHECK_STR(topo_link_legend(T[i].t), T[i].legend);
		CHECK_INT(topo_link_direct(T[i].t), T[i].direct);
		CHECK_INT(topo_link_through_cpu(T[i].t), T[i].cpu);
		CHECK_INT(topo_is_link_token(T[i].t), strcmp(T[i].t, "OK") != 0);
	}
	CHECK_STR(topo_link_legend(NULL), "other");
	CHECK(!topo_is_link_token("NV"));
	CHECK(!topo_is_link_token("NV1x"));
	CHECK(!topo_is_link_token("GPU0"));
	CHECK(!topo_is_link_token(""));
}

static void put_oct(unsigned char *p, size_t n, uint64_t v)
{
	memset(p, '0', n - 1);
	p[n - 1] = 0;
	for (size_t i = n - 1; i-- > 0 && v; v >>= 3)
		p[i] = (unsigned char)('0' + (v & 7));
}

static void seal(unsigned char *h)
{
	memset(h + 148, ' ', 8);
	unsigned long sum = 0;
	for (int i = 0; i < TAR_BLOCK; i++)
		sum += h[i];
	put_oct(h + 148, 7, sum);
	h[155] = ' ';
}

static void test_tarhdr(void)
{
	unsigned char h[TAR_BLOCK];
	memset(h, 0, sizeof h);
	CHECK(tar_zero_block(h));
	CHECK(!tar_header_valid(h));
	strcpy((char *)h, "logs/rank0.log");
	put_oct(h + 100, 8, 0644);
	put_oct(h + 108, 8, 0);
	put_oct(h + 116, 8, 0);
	put_oct(h + 124, 12, 1234);
	put_oct(h + 136, 12, 0);
	h[156] = '0';
	memcpy(h + 257, "ustar\0" "00", 8);
	seal(h);
	CHECK(!tar_zero_block(h));
	CHECK(tar_checksum_ok(h));
	CHECK(tar_is_ustar(h) && tar_is_posix(h));
	CHECK(tar_header_valid(h));
	uint64_t v = 0;
	CHECK(tar_num_field(h + 124, 12, &v) == 0 && v == 1234);
	/* GNU magic: ustar but not POSIX */
	memcpy(h + 257, "ustar  \0", 8);
	seal(h);
	CHECK(tar_header_valid(h) && tar_is_ustar(h) && !tar_is_posix(h));
	/* v7 (no magic): fields must be sane */
	memset(h + 257, 0, 8);
	seal(h);
	CHECK(tar_header_valid(h));
	h[156] = 'Z';
	seal(h);
	CHECK(tar_checksum_ok(h) && !tar_header_valid(h));
	h[156] = '0';
	/* a flipped byte breaks the checksum */
	seal(h);
	h[3] ^= 1;
	CHECK(!tar_checksum_ok(h) && !tar_header_valid(h));
	/* base-256 size, octal edge cases */
	unsigned char f[12] = {0x80, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0};
	CHECK(tar_num_field(f, 12, &v) == 0 && v == 65536);
	f[0] = 0xc0;
	CHECK(tar_num_field(f, 12, &v) == -1); /* negative */
	CHECK(tar_oct_field((const unsigned char *)"  0017 \0", 8, &v) == 0 && v == 15);
	CHECK(tar_oct_field((const unsigned char *)"        ", 8, &v) == 0 && v == 0);
	CHECK(tar_oct_field((const unsigned char *)"0018\0\0\0\0", 8, &v) == -1);
	CHECK(tar_oct_field((const unsigned char *)"17 x\0\0\0\0", 8, &v) == -1);
}

/* str_sanitize as it was written before its 8-bytes-a-step scan: byte by
 * byte, the same classes (printable ASCII and tab kept, other ASCII '?',
 * invalid UTF-8 U+FFFD, C1 controls and bidi overrides '?'), then masked */
static size_t ref_utf8_len(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t l = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
	if (!l || l > n)
		return 0;
	for (size_t k = 1; k < l; k++)
		if ((p[k] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0) || (c == 0xf0 && p[1] < 0x90) ||
	    (c == 0xf4 && p[1] >= 0x90))
		return 0;
	return l;
}

static char *ref_sanitize(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = malloc(3 * n + 1);
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		unsigned c = p[i];
		if ((c >= 0x20 && c < 0x7f) || c == '\t') {
			out[o++] = (char)c;
			i++;
		} else if (c < 0x80) {
			out[o++] = '?';
			i++;
		} else {
			size_t l = ref_utf8_len(p + i, n - i);
			if (!l) {
				memcpy(out + o, "\xef\xbf\xbd", 3);
				o += 3;
				i++;
			} else if ((l == 2 && c == 0xc2 && p[i + 1] < 0xa0) ||
			           (l == 3 && c == 0xe2 && ((p[i + 1] == 0x80 && p[i + 2] >= 0xaa && p[i + 2] <= 0xae) ||
			                                    (p[i + 1] == 0x81 && p[i + 2] >= 0xa6 && p[i + 2] <= 0xa9)))) {
				out[o++] = '?';
				i += l;
			} else {
				memcpy(out + o, p + i, l);
				o += l;
				i += l;
			}
		}
	}
	str_mask_secrets(out, o);
	return out;
}

/* The secret masking as it was before mask_needed's cheaper tests (letter
 * pairs in secret_before, AKIA without mem_find): the reference the fast
 * path must equal, byte for byte, on every input. */
static int ref_secret_before(const char *s, size_t i)
{
	size_t e = i, b;
	if (e > 0 && (s[e - 1] == '"' || s[e - 1] == '\''))
		e--;
	b = e;
	int any = 0;
	while (b > 0 && e - b <= 128 && (isalnum((unsigned char)s[b - 1]) || s[b - 1] == '_')) {
		any |= strchr("kKtTpPsScC", s[b - 1]) != NULL;
		b--;
	}
	return e - b >= 3 && any && str_secret_name(s + b, e - b);
}

static int ref_mask_needed(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '=' && ref_secret_before(s, i))
			return 1;
		if (s[i] == ':' && ((i + 1 < n && (s[i + 1] == ' ' || s[i + 1] == '\t')) || (i > 0 && (s[i - 1] == '"' || s[i - 1] == '\''))) &&
		    ref_secret_before(s, i))
			return 1;
		if (s[i] == '_' && ((i >= 2 && memcmp(s + i - 2, "hf", 2) == 0) || (i >= 3 && s[i - 3] == 'g' && s[i - 2] == 'h') ||
		                    (i >= 6 && memcmp(s + i - 6, "github", 6) == 0)))
			return 1;
	}
	return mem_find(s, n, "AKIA", 4, 1) != NULL;
}

static size_t ref_token_shape(const char *s, size_t n)
{
	static const struct {
		const char *pre;
		size_t min;
	} shapes[] = {{"hf_", 30}, {"ghp_", 30}, {"gho_", 30}, {"ghu_", 30}, {"ghs_", 30}, {"ghr_", 30},
	              {"github_pat_", 20}, {"AKIA", 16}};
	for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
		size_t pl = strlen(shapes[k].pre);
		if (n < pl || memcmp(s, shapes[k].pre, pl) != 0)
			continue;
		size_t i = pl;
		while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '-'))
			i++;
		if (i - pl >= shapes[k].min)
			return i;
	}
	return 0;
}

/* str_mask_secrets before: the same walk, on ref_secret_before */
static size_t ref_mask_secrets(char *s, size_t n)
{
	if (!ref_mask_needed(s, n)) {
		s[n] = 0;
		return n;
	}
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		char c = s[i];
		int boundary = i == 0 || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_');
		size_t t = boundary && (c == 'h' || c == 'g' || c == 'A') ? ref_token_shape(s + i, n - i) : 0;
		if (t) {
			memcpy(s + o, "***", 3);
			o += 3;
			i += t;
			continue;
		}
		s[o++] = c;
		i++;
		if (c != '=' && c != ':')
			continue;
		if (c == ':' && !((i < n && (s[i] == ' ' || s[i] == '\t')) || (o >= 2 && (s[o - 2] == '"' || s[o - 2] == '\''))))
			continue;
		if (!ref_secret_before(s, o - 1))
			continue;
		if (c == '=' && i < n && s[i] == '=')
			continue;
		size_t v = i;
		while (v < n && (s[v] == ' ' || s[v] == '\t'))
			v++;
		char q = v < n && (s[v] == '"' || s[v] == '\'') ? s[v] : 0;
		size_t ve = v + (q ? 1 : 0);
		while (ve < n && (q ? s[ve] != q : !(s[ve] == ' ' || s[ve] == '\t' || s[ve] == ',' || s[ve] == ';' ||
		                                     s[ve] == '"' || s[ve] == '\'' || s[ve] == '}' || s[ve] == ')')))
			ve++;
		size_t vs = v + (q ? 1 : 0);
		if (ve <= vs || (ve - vs == 3 && memcmp(s + vs, "***", 3) == 0))
			continue;
		memmove(s + o, s + i, v - i + (q ? 1 : 0));
		o += v - i + (q ? 1 : 0);
		size_t m = ve - vs < 3 ? ve - vs : 3;
		memset(s + o, '*', m);
		o += m;
		i = ve;
	}
	s[o] = 0;
	return o;
}

/* str_mask_secrets and str_sanitize_keeps against the references on line[0..n) */
static int mask_same(const char *line, size_t n)
{
	char a[1024], b[1024];
	if (n >= sizeof a)
		return 1;
	memcpy(a, line, n);
	memcpy(b, line, n);
	size_t la = str_mask_secrets(a, n), lb = ref_mask_secrets(b, n);
	int same = la == lb && memcmp(a, b, la + 1) == 0;
	/* str_sanitize_keeps is !mask_needed on printable text */
	int printable = 1;
	for (size_t i = 0; i < n; i++)
		printable &= ((unsigned char)line[i] >= 0x20 && (unsigned char)line[i] < 0x7f) || line[i] == '\t';
	/* str_sanitize_keeps: printable and nothing to mask (one pass of its own) */
	same &= str_sanitize_keeps(line, n) == (printable && !ref_mask_needed(line, n));
	return same;
}

/* Every byte value in every lane of a 16-byte step (and of the padded
 * tail), in a clean text: str_sanitize_keeps's test of the printable bytes
 * (one signed compare of byte + 1) against the reference, byte by byte. */
static void test_keeps_bytes(void)
{
	size_t same = 0, runs = 0;
	for (int c = 0; c < 256; c++)
		for (size_t n = 1; n <= 40; n += 13)
			for (size_t at = 0; at < n; at++) {
				char line[48];
				for (size_t i = 0; i < n; i++)
					line[i] = i % 4 == 3 ? ' ' : 'q';
				line[at] = (char)c;
				same += mask_same(line, n);
				runs++;
			}
	CHECK(same == runs);
}

/* str_sanitize_keeps looks at 16 bytes a step, then byte by byte: a secret
 * or a byte to replace at either end of the text, on each side of a step's
 * edge, after clean steps; each must still say "not kept". */
static void test_keeps_edges(void)
{
	static const char *const piece[] = {"TOKEN=abc", "password: x", "\"KEY\":", "AKIAABCDEFGHIJKLMNOP", "AKIA",
	                                    "AKI", "KIA", "hf_", "gh_", "ghp_", "github_", "_", "=", ":", ": ", "K",
	                                    "\t", "\x01", "\x7f", "\x80", "\xc3\xa9", "\xff", "x=1", "a:b"};
	size_t same = 0, runs = 0, kept = 0;
	for (size_t w = 0; w < sizeof piece / sizeof *piece; w++) {
		size_t pl = strlen(piece[w]);
		for (size_t n = pl; n <= 72; n++)
			for (size_t at = 0; at + pl <= n; at++)
				for (int fill = 0; fill < 3; fill++) {
					char line[80];
					for (size_t i = 0; i < n; i++)
						line[i] = fill == 0 ? 'x' : fill == 1 ? (i % 5 == 4 ? ' ' : 'k') : (i % 3 ? 's' : '\t');
					memcpy(line + at, piece[w], pl);
					same += mask_same(line, n);
					kept += str_sanitize_keeps(line, n);
					runs++;
				}
	}
	CHECK(same == runs);
	CHECK(kept > runs / 10 && kept < runs - runs / 10); /* both answers were tried */
	/* a long clean text, then the secret (or a control byte) in its last step or its tail */
	char big[700];
	for (size_t n = 600; n < 640; n++)
		for (int w = 0; w < 3; w++) {
			memset(big, 'y', n);
			for (size_t i = 4; i < n; i += 5)
				big[i] = ' ';
			const char *tail = w == 0 ? " TOKEN=v" : w == 1 ? "\x01" : " AKIAABCDEFGHIJKLMNOP";
			memcpy(big + n - strlen(tail), tail, strlen(tail));
			CHECK(!str_sanitize_keeps(big, n));
			CHECK(mask_same(big, n));
		}
}

/* Random text of names, separators and secret-ish pieces: the fast tests
 * of mask_needed and secret_before must say what the old ones said. */
static void test_mask_secrets(void)
{
	static const char *const piece[] = {"key", "KEY", "Key", "token", "TOKEN", "pass", "PASS", "pwd", "PWD", "Pw",
	                                    "secret", "SECRET", "credential", "Cred", "api", "API_", "HF_", "_", "=",
	                                    "==", ":", ": ", "\":", "\"", "'", " ", "\t", "x", "1", "e", "o", "a", "w",
	                                    "r", "k", "s", "t", "p", "c", "-", ",", "hf_", "gh", "ghp_", "github_pat_",
	                                    "AKIA", "AK", "IA", "0123456789ABCDEF", "abcdefghijklmnopqrstuvwxyz",
	                                    "***", "Error", "DistBackendError", "NCCL INFO ", "rank=", "tokenizers",
	                                    "ACCESSTOKEN", "PRIVATE_KEY", "passphrase", "PASSWD", "_PASS", "x_pwd", "."};
	const size_t np = sizeof piece / sizeof *piece;
	unsigned seed = 777;
	size_t same = 0, runs = 0, masked = 0;
	for (int t = 0; t < 200000; t++) {
		char line[512];
		size_t n = 0;
		int k = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 16;
		for (int j = 0; j < k; j++) {
			const char *pc = piece[((seed = seed * 1103515245u + 12345u) >> 16) % np];
			size_t l = strlen(pc);
			if (n + l >= sizeof line)
				break;
			memcpy(line + n, pc, l);
			n += l;
		}
		same += mask_same(line, n);
		masked += ref_mask_needed(line, n);
		runs++;
	}
	CHECK(same == runs);
	CHECK(masked > runs / 20 && masked < runs); /* both kinds of text were tried */
	/* names at the walk's 128-byte limit, and the pairs at each end */
	char lim[300];
	for (size_t len = 120; len <= 135; len++)
		for (int w = 0; w < 4; w++) {
			memset(lim, 'x', len);
			memcpy(w & 1 ? lim : lim + len - 3, w & 2 ? "KEY" : "pwd", 3);
			lim[len] = '=';
			memcpy(lim + len + 1, "v1", 2);
			CHECK(mask_same(lim, len + 3));
		}
}

static void test_sanitize(void)
{
	/* pieces that exercise each class, put together at every alignment
	 * against the 8-byte steps */
	static const char *const piece[] = {"a", "NCCL INFO ", "\t", "\x01", "\x7f", "\x1f", "~", " ", "\xc3\xa9",
	                                    "\xe2\x94\x80", "\xc2\x85", "\xe2\x80\xae", "\xff", "\xe2\x94",
	                                    "\xf0\x9f\x98\x80", "TOKEN=abc", "hf_abcdefghijklmnopqrstuvwxyz0123456",
	                                    "x:1", "password: hunter2", "\x80", "0123456789abcdef"};
	const size_t np = sizeof piece / sizeof *piece;
	unsigned seed = 12345;
	size_t same = 0, runs = 0, kept = 0, kept_same = 0;
	for (int t = 0; t < 20000; t++) {
		char line[256];
		size_t n = 0;
		int k = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 12;
		for (int j = 0; j < k; j++) {
			const char *pc = piece[((seed = seed * 1103515245u + 12345u) >> 16) % np];
			size_t l = strlen(pc);
			if (n + l >= sizeof line)
				break;
			memcpy(line + n, pc, l);
			n += l;
		}
		char *a = str_sanitize(line, n), *b = ref_sanitize(line, n);
		same += strcmp(a, b) == 0 && mask_same(line, n);
		runs++;
		/* str_sanitize_keeps: then the result is the input itself */
		if (str_sanitize_keeps(line, n)) {
			kept++;
			kept_same += strlen(a) == n && memcmp(a, line, n) == 0;
		}
		free(a);
		free(b);
	}
	CHECK(same == runs);
	CHECK(kept > 0 && kept_same == kept);
	CHECK(str_sanitize_keeps("a\tb c", 5));
	CHECK(!str_sanitize_keeps("HF_TOKEN=abc", 12));
	CHECK(!str_sanitize_keeps("ctl\x01", 4));
	char *e = str_sanitize("", 0);
	CHECK_STR(e, "");
	free(e);
	e = str_sanitize("abcdefgh\x01ijklmnop", 17);
	CHECK_STR(e, "abcdefgh?ijklmnop");
	free(e);
}

static size_t nchunks(const struct arena_chunk *c)
{
	size_t n = 0;
	for (; c; c = c->next)
		n++;
	return n;
}

/* base/arena.h: the cap counts the room pieces take (padding included),
 * holds after a large piece, resets with the arena; arena_reset keeps the
 * chunks it may and hands them out again; arena_zalloc zeroes them. */
static void test_arena(void)
{
	struct arena a = {.max = 1000};
	int ok = 1;
	for (int i = 0; i < 10; i++)
		ok &= arena_chars(&a, 100) != NULL;
	CHECK(ok && !a.over);
	CHECK(arena_chars(&a, 1) == NULL && a.over);
	arena_free(&a);
	CHECK(!a.over && arena_chars(&a, 1000) != NULL && arena_chars(&a, 1) == NULL);
	arena_free(&a);
	/* a large piece (a chunk of its own) counts, and the head is cut to what is left */
	a.max = 100000;
	CHECK(arena_chars(&a, 100) != NULL);
	for (int i = 0; i < 4; i++)
		CHECK(arena_chars(&a, 20000) != NULL);
	CHECK(arena_chars(&a, 30000) == NULL);
	ok = 1;
	for (int i = 0; i < 19; i++)
		ok &= arena_chars(&a, 1000) != NULL;
	CHECK(ok && arena_chars(&a, 901) == NULL && arena_chars(&a, 900) != NULL && arena_chars(&a, 1) == NULL);
	arena_free(&a);
	/* alignment padding counts: 1 + 15 + 16 + 32 = 64 */
	a.max = 64;
	CHECK(arena_chars(&a, 1) && arena_alloc(&a, 16) && arena_alloc(&a, 32) && !arena_chars(&a, 1));
	arena_free(&a);
	a.max = 0;
	/* no cap: never NULL; reset keeps what it may and gives it out again */
	char *first = NULL;
	for (int i = 0; i < 200; i++) {
		char *p = arena_chars(&a, 1000);
		memset(p, 0xff, 1000);
		if (!first)
			first = p;
	}
	char *big = arena_chars(&a, 70000); /* more than the head has room for */
	CHECK(nchunks(a.head) == 5 && arena_owns(&a, first) && arena_owns(&a, big) && !arena_owns(&a, &a));
	arena_reset(&a, 2 * ARENA_CHUNK);
	CHECK(a.head == NULL && nchunks(a.spare) == 2 && !arena_owns(&a, first));
	const struct arena_chunk *sp = a.spare;
	unsigned char *z = arena_zalloc(&a, 1000);
	int zero = 1;
	for (int i = 0; i < 1000; i++)
		zero &= z[i] == 0;
	CHECK(z == (unsigned char *)sp->data && zero && nchunks(a.spare) == 1);
	arena_reset(&a, (size_t)-1);
	CHECK(nchunks(a.spare) == 2);
	arena_free(&a);
	CHECK(a.head == NULL && a.spare == NULL);
	/* json_parse_arena_max on it: 64 bytes a node */
	struct json_arena *ja;
	int over;
	CHECK(json_parse_arena_max(&ja, "[{},{}]", 7, 192, &over) != NULL && !over);
	json_arena_free(ja);
	CHECK(json_parse_arena_max(&ja, "[{},{}]", 7, 191, &over) == NULL && over && ja == NULL);
}

int main(void)
{
	test_arena();
	test_sanitize();
	test_mask_secrets();
	test_keeps_edges();
	test_keeps_bytes();
	test_json();
	test_buf_read_file();
	test_buf_tail();
	test_str_line_copy();
	test_fd_write_all();
	test_json_line();
	test_json_print_file();
	test_version();
	test_tstamp();
	test_hash();
	test_linkclass();
	test_tarhdr();
	TEST_MAIN_END();
}
