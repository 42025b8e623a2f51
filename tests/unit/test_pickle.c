/* test_pickle.c - the safe pickle reader (base/pickle.c): the data opcodes
 * of protocols 2-5 on hand-written and real inputs (a flight-recorder dump
 * of torch 2.11), every refused opcode with its offset, the bounds, and no
 * cycle through the memo. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pickle.h"
#include "testlib.h"

static struct arena A;

static struct pyval *rd(const char *p, size_t n, struct pickle_error *e)
{
	return pickle_read(&A, (const unsigned char *)p, n, NULL, e);
}

#define RD(lit, e) rd(lit, sizeof lit - 1, e)

static void data_opcodes(void)
{
	struct pickle_error e;
	/* {"k": [1, -2, 300, 70000, None, True, False, 2.5, "s", b"b", (1, 2)]} as protocol 2 */
	const char p[] = "\x80\x02}q\x00(X\x01\x00\x00\x00k]q\x01(K\x01J\xfe\xff\xff\xffM,\x01J\x70\x11\x01\x00N\x88\x89"
	                 "G\x40\x04\x00\x00\x00\x00\x00\x00X\x01\x00\x00\x00sC\x01" "bK\x01K\x02\x86" "eu.";
	struct pyval *v = RD(p, &e);
	CHECK(v && v->type == PV_DICT);
	const struct pyval *k = pyval_get(v, "k");
	uint32_t n;
	struct pyval *const *it = pyval_items(k, &n);
	CHECK_INT(n, 11);
	if (n != 11)
		return;
	int64_t x;
	CHECK(pyval_int(it[0], &x) && x == 1);
	CHECK(pyval_int(it[1], &x) && x == -2);
	CHECK(pyval_int(it[2], &x) && x == 300);
	CHECK(pyval_int(it[3], &x) && x == 70000);
	CHECK(it[4]->type == PV_NONE);
	CHECK(it[5]->type == PV_BOOL && it[5]->u.i == 1);
	CHECK(it[6]->type == PV_BOOL && it[6]->u.i == 0);
	CHECK(it[7]->type == PV_FLOAT && it[7]->u.f == 2.5);
	CHECK(pyval_str_is(it[8], "s"));
	CHECK(it[9]->type == PV_BYTES && it[9]->n == 1);
	CHECK(it[10]->type == PV_TUPLE && it[10]->n == 2);
	/* LONG1: 2**63 - 1 fits, 2**70 does not (kept, flagged big) */
	struct pyval *l = RD("\x80\x02\x8a\x08\xff\xff\xff\xff\xff\xff\xff\x7f.", &e);
	CHECK(l && pyval_int(l, &x) && x == INT64_MAX);
	l = RD("\x80\x02\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x40.", &e);
	CHECK(l && l->type == PV_INT && l->big && !pyval_int(l, &x));
	l = RD("\x80\x02\x8a\x01\xfe.", &e); /* -2 */
	CHECK(l && pyval_int(l, &x) && x == -2);
	/* protocol 4: FRAME, SHORT_BINUNICODE, MEMOIZE, BINGET shares the value */
	struct pyval *f = RD("\x80\x04\x95\x0c\x00\x00\x00\x00\x00\x00\x00]\x94(\x8c\x02" "ab\x94h\x01" "e.", &e);
	CHECK(f && f->type == PV_LIST && f->n == 2 && f->u.items[0] == f->u.items[1]);
	/* sets, the text INT of protocol 0/1 as a bool */
	f = RD("\x80\x04\x8f(K\x01K\x02\x90I01\n\x86.", &e);
	CHECK(f && f->type == PV_TUPLE && f->u.items[0]->type == PV_SET && f->u.items[0]->n == 2 &&
	      f->u.items[1]->type == PV_BOOL);
}

static void refused(void)
{
	struct pickle_error e;
	CHECK(!RD("\x80\x02\x63os\nsystem\nX\x02\x00\x00\x00id\x85R.", &e));
	CHECK_STR(e.msg, "offset 2: GLOBAL (0x63) names the Python global os.system: refused, this reader reads data only "
	                 "and never imports or calls anything");
	CHECK_INT(e.offset, 2);
	static const struct { const char *p; size_t n; const char *name; size_t at; } R[] = {
		{"\x80\x04\x8c\x02os\x8c\x06system\x93.", 16, "STACK_GLOBAL", 14},
		{"\x80\x02NNR.", 5, "REDUCE", 4},
		{"\x80\x02}}b.", 5, "BUILD", 4},
		{"\x80\x02(i os\nsystem\n.", 17, "INST", 3},
		{"\x80\x02(o.", 4, "OBJ", 3},
		{"\x80\x02NN\x81.", 5, "NEWOBJ", 4},
		{"\x80\x04NNN\x92.", 6, "NEWOBJ_EX", 5},
		{"\x80\x02Q.", 3, "BINPERSID", 2},
		{"\x80\x02P1\n.", 5, "PERSID", 2},
		{"\x80\x02\x82\x01.", 4, "EXT1", 2},
		{"\x80\x02\x83\x01\x00.", 5, "EXT2", 2},
		{"\x80\x02\x84\x01\x00\x00\x00.", 7, "EXT4", 2},
		{"\x80\x05\x97.", 3, "NEXT_BUFFER", 2},
		{"\x80\x05\x98.", 3, "READONLY_BUFFER", 2},
	};
	for (size_t i = 0; i < sizeof R / sizeof *R; i++) {
		CHECK(!rd(R[i].p, R[i].n, &e));
		char want[64];
		snprintf(want, sizeof want, "offset %zu: %s (0x", R[i].at, R[i].name);
		if (strncmp(e.msg, want, strlen(want)) != 0 || !strstr(e.msg, "refused"))
			fprintf(stderr, "FAIL refused %s: %s\n", R[i].name, e.msg), t_failed++;
		else
			t_passed++;
	}
}

static void bounds(void)
{
	struct pickle_error e;
	CHECK(!RD("\x80\x02X\x05\x00\x00\x00" "ab", &e)); /* cut */
	CHECK(strstr(e.msg, "needs 5 more bytes but the data ends at offset 9") != NULL);
	CHECK(!RD("\x80\x02X\xff\xff\xff\x7f" "ab.", &e));
	CHECK(strstr(e.msg, "above the cap") != NULL);
	CHECK(!RD("\x80\x02]q\x00h\x00" "a.", &e)); /* a list appended into itself */
	CHECK(strstr(e.msg, "cycle") != NULL);
	/* into a list already placed in another: a cycle could follow */
	CHECK(!RD("\x80\x02]q\x00]q\x01h\x00" "aa.", &e));
	CHECK(strstr(e.msg, "cycle") != NULL);
	CHECK(!RD("\x80\x02h\x05.", &e));
	CHECK(strstr(e.msg, "never stored") != NULL);
	CHECK(!RD("\x80\x02NN.", &e));
	CHECK(strstr(e.msg, "STOP with 2 values") != NULL);
	CHECK(!RD("\x80\x02", &e));
	CHECK(strstr(e.msg, "without STOP") != NULL);
	CHECK(!RD("\x80\x06N.", &e));
	CHECK(strstr(e.msg, "protocol 6") != NULL);
	CHECK(!RD("\x80\x02\xff.", &e));
	CHECK(strstr(e.msg, "0xff is not a pickle opcode") != NULL);
	/* depth: 40 nested lists */
	char deep[128];
	size_t n = 0;
	deep[n++] = '\x80';
	deep[n++] = 2;
	for (int i = 0; i < 40; i++)
		deep[n++] = ']';
	for (int i = 0; i < 39; i++)
		deep[n++] = 'a';
	deep[n++] = '.';
	CHECK(!rd(deep, n, &e));
	CHECK(strstr(e.msg, "nested more than 32 deep") != NULL);
	/* the arena's cap bounds the values */
	struct arena small = {.max = 1u << 16};
	char many[4 + 20000];
	size_t m = 0;
	many[m++] = '\x80';
	many[m++] = 2;
	many[m++] = ']';
	many[m++] = '(';
	for (int i = 0; i < 19990; i++)
		many[m++] = 'N';
	many[m++] = 'e';
	CHECK(!pickle_read(&small, (const unsigned char *)many, m, NULL, &e));
	CHECK(strstr(e.msg, "memory cap") != NULL || strstr(e.msg, "stack") != NULL);
	arena_free(&small);
}

static void real_dump(void)
{
	FILE *f = fopen("fixtures/flight/real/timeout/nccl_trace_rank_0", "rb");
	CHECK(f != NULL);
	if (!f)
		return;
	static unsigned char b[1 << 16];
	size_t n = fread(b, 1, sizeof b, f);
	fclose(f);
	struct pickle_error e;
	struct pyval *v = pickle_read(&A, b, n, NULL, &e);
	CHECK(v != NULL);
	CHECK(pyval_str_is(pyval_get(v, "version"), "2.10"));
	uint32_t ne;
	struct pyval *const *en = pyval_items(pyval_get(v, "entries"), &ne);
	CHECK_INT(ne, 7);
	CHECK(ne == 7 && pyval_str_is(pyval_get(en[6], "profiling_name"), "nccl:all_reduce"));
	CHECK(ne == 7 && pyval_str_is(pyval_get(en[6], "state"), "scheduled"));
	/* every cut of the real dump is refused with an offset inside it, never read past */
	size_t cuts = 0;
	for (size_t k = 0; k + 1 < n; k += 7) {
		unsigned char *c = malloc(k ? k : 1);
		memcpy(c, b, k);
		struct arena t = {0};
		cuts += !pickle_read(&t, c, k, NULL, &e) && e.offset <= k;
		arena_free(&t);
		free(c);
	}
	CHECK_INT(cuts, (n - 2) / 7 + 1);
}

int main(void)
{
	A.max = 64u << 20;
	data_opcodes();
	refused();
	bounds();
	real_dump();
	arena_free(&A);
	TEST_MAIN_END();
}
