/* Unit tests for the Aho-Corasick prefilter: overlapping literals, literals
 * that are suffixes of others, binary bytes, and every occurrence found. */
#include <string.h>
#include "acmatch.h"
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

int main(void)
{
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
