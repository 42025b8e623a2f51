/* Unit tests for json_parse_arena_fast (json.h): on every text, the fast
 * parser alone (json_parse_fast_only) accepts what cJSON accepts, builds
 * the same tree (types, names, values, the prev/next/child links) and
 * stops where cJSON stops; what it refuses, cJSON refuses too, and
 * json_parse_arena_fast then gives cJSON's error place.  The texts: every
 * pattern file the loader reads (patterns/, the test databases, the
 * sigdb fuzz corpus), edge cases of the grammar, mutations of slices
 * of the pattern files, random numbers (a fixed seed). */
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "base/json.h"
#include "base/util.h"
#include "testlib.h"

static int ndiff_shown;

static void diff_at(const char *label, const char *path, const char *what)
{
	if (ndiff_shown++ < 10)
		fprintf(stderr, "test_json: %s: %s: %s differs\n", label, path, what);
}

static int str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Whether trees a (fast) and b (cJSON) are the same; the first difference
 * on stderr. */
static int tree_eq(const cJSON *a, const cJSON *b, const char *label, const char *path, int depth)
{
	if (a->type != b->type)
		return diff_at(label, path, "type"), 0;
	if (a->valueint != b->valueint)
		return diff_at(label, path, "valueint"), 0;
	if (memcmp(&a->valuedouble, &b->valuedouble, sizeof a->valuedouble) != 0)
		return diff_at(label, path, "valuedouble"), 0;
	if (!str_eq(a->string, b->string))
		return diff_at(label, path, "name"), 0;
	if (!str_eq(a->valuestring, b->valuestring))
		return diff_at(label, path, "valuestring"), 0;
	if (!a->child != !b->child)
		return diff_at(label, path, "child"), 0;
	if (!a->child)
		return 1;
	/* the first element's prev is the last (cJSON's O(1) append) */
	const cJSON *ca = a->child, *cb = b->child, *pa = NULL, *pb = NULL;
	size_t i = 0;
	for (; ca && cb; pa = ca, pb = cb, ca = ca->next, cb = cb->next, i++) {
		char sub[64];
		snprintf(sub, sizeof sub, "%.40s[%zu]", depth < 8 ? path : "...", i);
		if (pa && (ca->prev != pa || cb->prev != pb))
			return diff_at(label, sub, "prev"), 0;
		if (!tree_eq(ca, cb, label, sub, depth + 1))
			return 0;
	}
	if (ca || cb)
		return diff_at(label, path, "number of elements"), 0;
	if (a->child->prev != pa || b->child->prev != pb)
		return diff_at(label, path, "first element's prev"), 0;
	return 1;
}

/* 1 when both parsers agree on text: both refuse it, or both accept it with
 * the same tree and end; json_parse_arena_fast then agrees with both. */
static int agree(const char *text, size_t len, const char *label)
{
	const char *cend = NULL, *fend = NULL, *aend = NULL;
	cJSON *c = cJSON_ParseWithLengthOpts(text, len, &cend, 0);
	const char *cerr = cJSON_GetErrorPtr();
	struct json_arena *fa = NULL, *aa = NULL;
	cJSON *f = json_parse_fast_only(&fa, text, len, &fend);
	int ok = 1;
	if (!c != !f) {
		diff_at(label, "$", f ? "accepted (cJSON refuses)" : "refused (cJSON accepts)");
		ok = 0;
	} else if (c) {
		ok = tree_eq(f, c, label, "$", 0);
		if (ok && fend != cend) {
			diff_at(label, "$", "end");
			ok = 0;
		}
	}
	/* the loader's call: the fast tree, or cJSON's failure and place */
	cJSON *t = json_parse_arena_fast(&aa, text, len, &aend);
	if (!c && (t || aa || aend != cend || cJSON_GetErrorPtr() != cerr)) {
		diff_at(label, "$", "json_parse_arena_fast's failure");
		ok = 0;
	}
	if (c && (!t || !tree_eq(t, c, label, "$", 0) || aend != cend)) {
		diff_at(label, "$", "json_parse_arena_fast's tree");
		ok = 0;
	}
	cJSON_Delete(c);
	json_arena_free(fa);
	json_arena_free(aa);
	return ok;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* every file of dir whose name ends in suffix ("" for all), parsed both ways;
 * texts of the files into *keep (for the mutations) when keep */
static size_t files_agree(const char *dir, const char *suffix, int must_parse, struct strvec *keep, size_t *bad)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct strvec names = {0};
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && str_ends(de->d_name, suffix))
			strvec_push(&names, de->d_name);
	closedir(d);
	xqsort(names.v, names.n, sizeof *names.v, cmp_str); /* xqsort: names may be empty (qsort(NULL, 0) is undefined) */
	size_t n = 0;
	for (size_t i = 0; i < names.n; i++) {
		char *path = xasprintf("%s/%s", dir, names.v[i]);
		FILE *f = fopen(path, "rb");
		struct buf b;
		buf_init(&b);
		if (f && buf_read_file(&b, f, SIZE_MAX) == 0 && b.data) {
			n++;
			if (!agree(b.data, b.len, path))
				(*bad)++;
			if (must_parse) {
				struct json_arena *a = NULL;
				cJSON *t = json_parse_fast_only(&a, b.data, b.len, NULL);
				if (!t) {
					fprintf(stderr, "test_json: %s: the fast parser refuses it\n", path);
					(*bad)++;
				}
				json_arena_free(a);
			}
			if (keep)
				strvec_push_owned(keep, buf_steal(&b));
		}
		if (f)
			fclose(f);
		buf_free(&b);
		free(path);
	}
	strvec_free(&names);
	return n;
}

static void test_files(struct strvec *texts)
{
	size_t bad = 0, n = 0;
	n += files_agree("patterns", ".json", 1, texts, &bad);
	CHECK(n >= 50); /* the built-in database was found */
	static const char *const dbs[] = {"tests/db-min", "tests/db-bad", NULL};
	for (int i = 0; dbs[i]; i++) {
		n += files_agree(dbs[i], ".json", 0, NULL, &bad);
		DIR *d = opendir(dbs[i]);
		struct dirent *de;
		while (d && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			char *sub = xasprintf("%s/%s", dbs[i], de->d_name);
			n += files_agree(sub, ".json", 0, NULL, &bad);
			free(sub);
		}
		if (d)
			closedir(d);
	}
	n += files_agree("tests/fuzz/corpus/sigdb", "", 0, NULL, &bad);
	CHECK(n >= 70);
	CHECK_INT(bad, 0);
}

/* texts of the grammar's corners (length: strlen, or the explicit one) */
static void test_edges(void)
{
	static const struct {
		const char *s;
		size_t n; /* 0: strlen */
	} E[] = {
		{"{}", 0}, {"[]", 0}, {"{ }", 0}, {"[ ]", 0}, {"[[],{},[[]],{\"a\":{}}]", 0},
		{"null", 0}, {"true", 0}, {"false", 0}, {"nul", 0}, {"tru", 0}, {"fals", 0}, {"nullx", 0},
		{"[null,true,false]", 0}, {"[nulll]", 0}, {"[truex]", 0},
		{"0", 0}, {"-0", 0}, {"1", 0}, {"-1", 0}, {"01", 0}, {"00", 0}, {"1.5", 0}, {"-1.5e10", 0},
		{"1e", 0}, {"1e+", 0}, {"1e-5", 0}, {"1E+308", 0}, {"1e309", 0}, {"-1e309", 0}, {"1e-400", 0},
		{"2147483647", 0}, {"2147483648", 0}, {"-2147483648", 0}, {"-2147483649", 0}, {"1.", 0},
		{".5", 0}, {"-", 0}, {"+1", 0}, {"--1", 0}, {"-+1", 0}, {"1+2", 0}, {"[1e5,2E-3,-0.0]", 0},
		{"[1.2.3]", 0}, {"[0x10]", 0}, {"[1 2]", 0}, {"[1,]", 0}, {"[,1]", 0}, {"[1,,2]", 0},
		{"123456789012345678901234567890123456789012345678901234567890123", 0},
		{"1234567890123456789012345678901234567890123456789012345678901234567", 0},
		{"[1234567890123456789012345678901234567890123456789012345678901234567]", 0},
		{"\"\"", 0}, {"\"abc\"", 0}, {"\"a\\\"b\"", 0}, {"\"\\\\\"", 0}, {"\"\\/\\b\\f\\n\\r\\t\"", 0},
		{"\"\\x\"", 0}, {"\"\\'\"", 0}, {"\"abc", 0}, {"\"abc\\", 0}, {"\"abc\\\"", 0}, {"\"\\", 0},
		{"\"\\u0041\"", 0}, {"\"\\u00e9\\u00E9\"", 0}, {"\"\\u20ac\"", 0}, {"\"\\uFFFF\"", 0},
		{"\"\\u0000\"", 0}, {"\"a\\u0000b\"", 0}, {"\"\\u12\"", 0}, {"\"\\u12zz\"", 0}, {"\"\\uzzzz\"", 0},
		{"\"\\u\"", 0}, {"\"\\u\\\"abc\"", 0},
		{"\"\\ud83d\\ude00\"", 0}, {"\"\\uD83D\\uDE00\"", 0}, {"\"\\ud83d\"", 0}, {"\"\\ude00\"", 0},
		{"\"\\ud83d\\u0041\"", 0}, {"\"\\ud83dx\\ude00\"", 0}, {"\"\\ud83d\\ud83d\"", 0},
		{"\"\\udbff\\udfff\"", 0}, {"\"\\ud800\\udc00\"", 0}, {"\"\\ud83d\\ude0\"", 0},
		{"\"\\ud83d\\", 0},
		{"{\"a\":1,\"a\":2}", 0}, {"{\"a\":1,\"b\":{\"a\":[1,{\"a\":null}]},\"a\":\"x\"}", 0},
		{"{\"\":0}", 0}, {"{\"a\"}", 0}, {"{\"a\":}", 0}, {"{\"a\" 1}", 0}, {"{a:1}", 0}, {"{1:1}", 0},
		{"{\"a\":1,}", 0}, {"{,}", 0}, {"{\"a\":1 \"b\":2}", 0}, {"{\"a\\u0041\":1}", 0},
		{"{\"a\":1}garbage", 0}, {"[1]]", 0}, {"{}{}", 0}, {"\"a\"\"b\"", 0}, {"1 2", 0}, {"{} x", 0},
		{"{\"a\":1", 0}, {"{\"a\":", 0}, {"{\"a\"", 0}, {"{\"", 0}, {"{", 0}, {"[", 0}, {"[1", 0},
		{"[1,", 0}, {"[\"a", 0}, {"", 0}, {" ", 0}, {"   {} ", 0}, {"\t\r\n{}\n", 0},
		{"\x01\x02{\x1f\"a\"\x0b:\x7f}", 0}, {"\x01{\"a\"\x01:\x01" "1\x01}", 0},
		{"\xEF\xBB\xBF{}", 0}, {"\xEF\xBB\xBF" "1", 0}, {"\xEF\xBB\xBF" "12", 0}, {"\xEF\xBB\xBF", 0},
		{"\xEF\xBB{}", 0}, {"  \xEF\xBB\xBF{}", 0},
		{"\"\xff\xfe\x80\"", 0}, {"\"\xc3\xa9\xe2\x82\"", 0}, {"{\"\xc0\xaf\":\"\xed\xa0\x80\"}", 0},
		{"\"\x01\x1f\t\n\"", 0}, {"[\xff]", 0}, {"\xff", 0},
		{"{\"a\":\"x\0y\"}", 12}, {"{\"a\0b\":1}", 10}, {"{\"a\":1}\0garbage", 15}, {"\0{}", 3}, {"{\0}", 3},
		{"[1,\0" "2]", 6}, {"{\"a\":1}", 4}, {"[true]", 3}, {"null", 3}, {"\"abc\"", 4}, {"12", 1},
		{"[1e5]", 3}, {"\"\\u0041\"", 6}, {"{}", 1},
	};
	size_t bad = 0;
	for (size_t i = 0; i < sizeof E / sizeof E[0]; i++) {
		char label[32];
		snprintf(label, sizeof label, "edge %zu", i);
		size_t n = E[i].n ? E[i].n : strlen(E[i].s);
		if (!agree(E[i].s, n, label))
			bad++;
	}
	CHECK_INT(bad, 0);
	/* the fast parser takes (not only hands on) these cJSON accepts */
	static const char *const TAKES[] = {"{\"a\":[1,-2.5e3,true,false,null,\"\\u00e9\\ud83d\\ude00\\n\"]}",
	                                    "{\"a\":1}x", "\"\\u12zz\"", "\xEF\xBB\xBF{}", NULL};
	for (int i = 0; TAKES[i]; i++) {
		struct json_arena *a = NULL;
		CHECK(json_parse_fast_only(&a, TAKES[i], strlen(TAKES[i]), NULL) != NULL);
		json_arena_free(a);
	}
	/* refused texts: NULL and no arena */
	struct json_arena *a = (struct json_arena *)&bad;
	CHECK(json_parse_fast_only(&a, "[1,", 3, NULL) == NULL && a == NULL);
	CHECK(json_parse_fast_only(&a, NULL, 0, NULL) == NULL && a == NULL);
}

/* nesting around cJSON's limit (1000 arrays and objects) */
static void test_depth(void)
{
	size_t bad = 0;
	static const int depths[] = {1, 2, 100, 998, 999, 1000, 1001, 1002, 5000};
	struct buf b;
	buf_init(&b);
	for (size_t k = 0; k < sizeof depths / sizeof depths[0]; k++)
		for (int kind = 0; kind < 4; kind++) {
			int d = depths[k];
			buf_reset(&b);
			for (int i = 0; i < d; i++)
				buf_adds(&b, kind == 0 ? "[" : kind == 1 ? "{\"k\":" : kind == 2 ? (i % 2 ? "[" : "{\"k\":") : "[1,");
			buf_adds(&b, kind == 3 ? "2" : "0");
			for (int i = d - 1; i >= 0; i--)
				buf_adds(&b, kind == 1 ? "}" : kind == 2 ? (i % 2 ? "]" : "}") : "]");
			char label[48];
			snprintf(label, sizeof label, "depth %d kind %d", d, kind);
			if (!agree(b.data, b.len, label))
				bad++;
			/* cut short: every prefix length near the middle and the end */
			if (!agree(b.data, b.len - 1, label) || !agree(b.data, b.len / 2, label))
				bad++;
		}
	buf_free(&b);
	CHECK_INT(bad, 0);
}

/* more with -DMUT_ROUNDS=N (by hand) */
#ifndef MUT_ROUNDS
#define MUT_ROUNDS 6000
#endif

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

/* slices of the pattern files, cut and with bytes changed: both parsers
 * agree on each */
static void test_mutations(const struct strvec *texts)
{
	static const char BYTES[] = "{}[],:\"\\/ubfnrt0123456789eE+-.aAfFxz \t\n\x01\x1f\x7f\x80\xc3\xef\xff";
	size_t bad = 0, n = 0;
	char *w = xmalloc(4096);
	for (int round = 0; round < MUT_ROUNDS && texts->n; round++) {
		const char *t = texts->v[next_rand() % texts->n];
		size_t len = strlen(t);
		size_t at = round % 3 == 0 ? 0 : next_rand() % (len ? len : 1);
		size_t k = 1 + next_rand() % 4000;
		if (k > len - at)
			k = len - at;
		memcpy(w, t + at, k);
		int edits = round % 5 == 0 ? 0 : 1 + (int)(next_rand() % 3);
		for (int e = 0; e < edits && k; e++) {
			size_t pos = next_rand() % k;
			uint32_t op = next_rand() % 3;
			if (op == 0) {
				w[pos] = BYTES[next_rand() % (sizeof BYTES - 1)];
			} else if (op == 1 && k > 1) {
				memmove(w + pos, w + pos + 1, k - pos - 1); /* a byte out */
				k--;
			} else if (k < 4095) {
				memmove(w + pos + 1, w + pos, k - pos); /* a byte in */
				w[pos] = BYTES[next_rand() % (sizeof BYTES - 1)];
				k++;
			}
		}
		/* a slice that starts inside the text: make it a value again now and then */
		if (at && round % 2 && k) {
			for (size_t i = 0; i < k; i++)
				if (w[i] == '{' || w[i] == '[' || w[i] == '"') {
					memmove(w, w + i, k - i);
					k -= i;
					break;
				}
		}
		char label[48];
		snprintf(label, sizeof label, "mutation %d", round);
		n++;
		if (!agree(w, k, label))
			bad++;
	}
	free(w);
	CHECK(n >= MUT_ROUNDS);
	CHECK_INT(bad, 0);
}

/* strings dense in escapes: backslash runs before quotes, \u with hex
 * digits of surrogates, cut anywhere */
static void test_escapes(void)
{
	static const char CH[] = "ab\\\\\\\"\"/u0d8Dc9eEfF3nrtbx\x01\xc3\xff";
	size_t bad = 0;
	char w[128];
	for (int round = 0; round < MUT_ROUNDS; round++) {
		size_t k = 0;
		int shape = round % 3;
		const char *pre = shape == 0 ? "[\"" : shape == 1 ? "{\"" : "\"";
		memcpy(w, pre, strlen(pre));
		k = strlen(pre);
		size_t n = next_rand() % 24;
		/* every other round: runs of backslashes, now and then a quote */
		static const char RUNS[] = "\\\\\\\\\\\"au";
		const char *set = round % 2 ? RUNS : CH;
		size_t nset = round % 2 ? sizeof RUNS - 1 : sizeof CH - 1;
		for (size_t i = 0; i < n; i++)
			w[k++] = set[next_rand() % nset];
		const char *post = shape == 0 ? "\",\"\\\\\"]" : shape == 1 ? "\":\"\\u00e9\"}" : "\"";
		memcpy(w + k, post, strlen(post));
		k += strlen(post);
		if (round % 7 == 0 && k)
			k = next_rand() % k; /* cut short */
		char label[48];
		snprintf(label, sizeof label, "escapes %d", round);
		if (!agree(w, k, label))
			bad++;
	}
	CHECK_INT(bad, 0);
}

/* fast_ws skips eight bytes a step: runs of every white-space length and
 * alignment, of each byte cJSON skips (<= 32), ended by the bytes at its
 * edges (0x21, 0x7f, 0x80, 0xa0, 0xff) and by valid values, inside and
 * between values and at the end: the fast parser agrees with cJSON. */
static void test_ws_runs(void)
{
	static const char WS[] = {' ', '\t', '\n', '\r', '\x01', '\x1f', '\x0b'};
	static const char *const AFTER[] = {"1", "\"a\"", "{}", "!", "\x7f", "\x80", "\xa0", "\xff", "\x21" "1"};
	size_t bad = 0, n = 0;
	char text[128], label[64];
	for (size_t lead = 0; lead < 8; lead++)
		for (size_t run = 0; run <= 19; run++)
			for (size_t w = 0; w < sizeof WS; w++)
				for (size_t a = 0; a < sizeof AFTER / sizeof *AFTER; a++) {
					size_t k = 0;
					for (size_t i = 0; i < lead; i++)
						text[k++] = ' ';
					text[k++] = '[';
					for (size_t i = 0; i < run; i++)
						text[k++] = WS[(w + i) % sizeof WS];
					k += (size_t)snprintf(text + k, sizeof text - k, "%s", AFTER[a]);
					for (size_t i = 0; i < run; i++)
						text[k++] = WS[(w + 2 * i) % sizeof WS];
					k += (size_t)snprintf(text + k, sizeof text - k, ",2");
					for (size_t i = 0; i < run; i++)
						text[k++] = ' ';
					text[k++] = ']';
					for (size_t i = 0; i < lead + run; i++)
						text[k++] = WS[i % sizeof WS];
					snprintf(label, sizeof label, "ws lead %zu run %zu ws %zu after %zu", lead, run, w, a);
					bad += !agree(text, k, label);
					n++;
				}
	CHECK_INT(bad, 0);
	CHECK(n == 8 * 20 * sizeof WS * (sizeof AFTER / sizeof *AFTER));
}

/* numbers of up to 17 digits, with and without a fraction, signs, points
 * without digits around them, and a neighbour byte: the fast parser's
 * exact path (at most 15 digits) and strtod's agree with cJSON bit for
 * bit (agree compares valuedouble's bytes) */
static void test_numbers(void)
{
	size_t bad = 0;
	char w[64];
	for (int round = 0; round < MUT_ROUNDS * 4; round++) {
		size_t k = 0;
		int shape = round % 4;
		if (shape == 1)
			w[k++] = '[';
		if (next_rand() % 2)
			w[k++] = '-';
		size_t ni = next_rand() % 18, nf = next_rand() % 3 ? next_rand() % 18 : 0;
		for (size_t i = 0; i < ni; i++)
			w[k++] = (char)('0' + next_rand() % 10);
		if (nf || next_rand() % 8 == 0)
			w[k++] = '.';
		for (size_t i = 0; i < nf; i++)
			w[k++] = (char)('0' + next_rand() % (round % 5 ? 10 : 2));
		if (shape == 1)
			w[k++] = ']';
		else if (shape == 2)
			w[k++] = "e-.5, x"[next_rand() % 7];
		char label[48];
		snprintf(label, sizeof label, "number %d: %.*s", round, (int)k, w);
		if (!agree(w, k, label))
			bad++;
	}
	CHECK_INT(bad, 0);
}

int main(void)
{
	json_use_xmalloc();
	struct strvec texts = {0};
	test_files(&texts);
	test_edges();
	test_depth();
	test_mutations(&texts);
	test_escapes();
	test_ws_runs();
	test_numbers();
	strvec_free(&texts);
	TEST_MAIN_END();
}
