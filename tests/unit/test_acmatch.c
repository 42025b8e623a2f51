/* Unit tests for the literal prefilter: overlapping literals, literals that
 * are suffixes of others, binary bytes, every occurrence found; and a
 * differential test against a naive search over random literal sets (with
 * and without short literals, which take another scan) and random text,
 * and one with the literals planted in the text. */
#include <stdlib.h>
#include <string.h>
#include "base/acmatch.h"
#include "testlib.h"

static unsigned seen[8];

static void hit(void *ctx, uint32_t v)
{
	(void)ctx;
	if (v < 8)
		seen[v]++;
}

static void search(const struct acmatch *ac, const char *s)
{
	memset(seen, 0, sizeof seen);
	acmatch_search(ac, s, strlen(s), hit, NULL);
}

/* Differential test: n random literals of 1..maxlen bytes over a small
 * alphabet (so that they overlap and recur), random haystacks of every
 * length up to 40; the number of reports per value must equal the number of
 * occurrences a naive search finds. */
#define NLIT 24
static unsigned counts[NLIT];

static void count_hit(void *ctx, uint32_t v)
{
	(void)ctx;
	if (v < NLIT)
		counts[v]++;
}

static void differential(unsigned seed, size_t minlen, size_t maxlen)
{
	srand(seed);
	const char alpha[] = "abcNC\x00\xff";
	char lit[NLIT][9];
	size_t len[NLIT];
	struct acmatch *ac = acmatch_new();
	for (size_t i = 0; i < NLIT; i++) {
		len[i] = minlen + (size_t)rand() % (maxlen - minlen + 1);
		for (size_t k = 0; k < len[i]; k++)
			lit[i][k] = alpha[rand() % 7];
		acmatch_add(ac, lit[i], len[i], (uint32_t)i);
	}
	acmatch_build(ac);
	int bad = 0;
	for (int round = 0; round < 400 && !bad; round++) {
		char hay[40];
		size_t n = (size_t)round % (sizeof hay + 1);
		for (size_t k = 0; k < n; k++)
			hay[k] = alpha[rand() % 7];
		memset(counts, 0, sizeof counts);
		acmatch_search(ac, hay, n, count_hit, NULL);
		for (size_t i = 0; i < NLIT; i++) {
			unsigned want = 0;
			for (size_t at = 0; at + len[i] <= n; at++)
				want += memcmp(hay + at, lit[i], len[i]) == 0;
			if (counts[i] != want)
				bad = 1;
		}
	}
	CHECK(!bad);
	acmatch_free(ac);
}

/* Differential test with planted occurrences: random literals of minlen..
 * maxlen bytes (up to 14: the 7..11-byte ones have anchors that only the
 * MID test filters), haystacks of up to 96 bytes made of whole literals,
 * their prefixes and suffixes (near misses) and random bytes, so that every
 * literal occurs at every offset from the text's start and end; counts per
 * value against a naive search, as above. */
#define PLIT 40
static unsigned pcounts[PLIT];

static void pcount_hit(void *ctx, uint32_t v)
{
	(void)ctx;
	if (v < PLIT)
		pcounts[v]++;
}

static void planted(unsigned seed, size_t minlen, size_t maxlen)
{
	srand(seed);
	const char alpha[] = "abcNC \x00\xff";
	char lit[PLIT][15];
	size_t len[PLIT];
	struct acmatch *ac = acmatch_new();
	for (size_t i = 0; i < PLIT; i++) {
		len[i] = minlen + (size_t)rand() % (maxlen - minlen + 1);
		if (i && rand() % 4 == 0) { /* a literal that shares a prefix or an anchor with another */
			size_t j = (size_t)rand() % i, c = len[j] < len[i] ? len[j] : len[i];
			memcpy(lit[i], lit[j], c);
			for (size_t k = (size_t)rand() % (c + 1); k < len[i]; k++)
				lit[i][k] = alpha[rand() % 8];
		} else {
			for (size_t k = 0; k < len[i]; k++)
				lit[i][k] = alpha[rand() % 8];
		}
		acmatch_add(ac, lit[i], len[i], (uint32_t)i);
	}
	acmatch_build(ac);
	int bad = 0;
	for (int round = 0; round < 1500 && !bad; round++) {
		char hay[96];
		size_t cap = 1 + (size_t)rand() % sizeof hay, n = 0;
		while (n < cap) {
			size_t j = (size_t)rand() % PLIT, from = 0, to = len[j];
			switch (rand() % 4) {
			case 0: /* random bytes */
				hay[n++] = alpha[rand() % 8];
				continue;
			case 1: /* a prefix */
				to = (size_t)rand() % len[j];
				break;
			case 2: /* a suffix */
				from = 1 + (size_t)rand() % len[j];
				break;
			default:
				break;
			}
			for (size_t k = from; k < to && n < cap; k++)
				hay[n++] = lit[j][k];
		}
		memset(pcounts, 0, sizeof pcounts);
		acmatch_search(ac, hay, n, pcount_hit, NULL);
		for (size_t i = 0; i < PLIT; i++) {
			unsigned want = 0;
			for (size_t at = 0; at + len[i] <= n; at++)
				want += memcmp(hay + at, lit[i], len[i]) == 0;
			if (pcounts[i] != want)
				bad = 1;
		}
	}
	CHECK(!bad);
	acmatch_free(ac);
}

int main(void)
{
	for (unsigned seed = 1; seed <= 40; seed++) {
		planted(seed, 7, 11);  /* stride 4, anchors filtered by MID */
		planted(seed, 7, 14);  /* and by NEXT / PREV */
		planted(seed, 4, 14);  /* strides 1..3 */
		planted(seed, 1, 14);  /* with short literals */
	}
	for (unsigned seed = 1; seed <= 20; seed++) {
		differential(seed, 4, 8);  /* 4-gram anchors only: the fast scan */
		differential(seed, 5, 8);  /* ... testing every 2nd position */
		differential(seed, 6, 8);  /* every 3rd */
		differential(seed, 7, 8);  /* every 4th */
		differential(seed, 1, 8);  /* with one-byte and short literals */
		differential(seed, 2, 3);  /* short literals only */
	}
	struct acmatch *ac = acmatch_new();
	acmatch_add(ac, "he", 2, 0);
	acmatch_add(ac, "she", 3, 1);
	acmatch_add(ac, "his", 3, 2);
	acmatch_add(ac, "hers", 4, 3);
	acmatch_add(ac, "no socket interface", 19, 4);
	acmatch_add(ac, "\xff\x00z", 3, 5);
	acmatch_add(ac, "dup", 3, 6);
	acmatch_add(ac, "dup", 3, 7); /* same literal, two values */
	acmatch_build(ac);
	search(ac, "ushers");
	CHECK(seen[0] && seen[1] && seen[3]);
	CHECK(!seen[2]);
	search(ac, "Bootstrap : no socket interface found");
	CHECK(seen[4] == 1);
	CHECK(!seen[0] && !seen[1]);
	search(ac, "");
	CHECK(!seen[0] && !seen[4]);
	memset(seen, 0, sizeof seen);
	acmatch_search(ac, "a\xff\x00zb", 5, hit, NULL);
	CHECK(seen[5] == 1);
	search(ac, "dup");
	CHECK(seen[6] == 1 && seen[7] == 1);
	search(ac, "hehe");
	CHECK(seen[0] == 2);
	CHECK(acmatch_states(ac) > 10);
	acmatch_free(ac);
	TEST_MAIN_END();
}
