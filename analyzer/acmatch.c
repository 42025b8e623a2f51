/* acmatch.c - see acmatch.h.  Despite the name (the interface is the one an
 * Aho-Corasick automaton offers), the search is an anchored-bigram filter,
 * which is several times faster on log text than a byte-at-a-time DFA whose
 * table (1 KiB a state, thousands of states) does not fit in the L1 cache:
 *
 *   - each literal of four bytes or more is anchored at its rarest 4-gram,
 *     seen as two bigrams (a at offset o, b at o+2); literals of two or
 *     three bytes at their rarest bigram.  Rarity comes from a table of the
 *     384 most common bigrams in the real NCCL/PyTorch logs of
 *     fixtures/captures (82% of all bigrams there), then from a rough byte
 *     class estimate (capitals and punctuation are rarer than lower case);
 *   - 8 KiB bitmaps say which bigrams are first halves (A), second halves
 *     (B) and short-literal anchors (S); the scan tests A at every position
 *     of the line and, rarely, B two bytes on or S;
 *   - where both hold, the literals anchored there (a sorted array, binary
 *     searched) are compared in full with memcmp.
 *
 * Every occurrence of every literal is reported, as an automaton would. */
#include "acmatch.h"

#include <stdlib.h>
#include <string.h>
#include "util.h"

static const char COMMON_BIGRAMS[] =
	"]  0 [ N0  ICCNCCLL vmINm:O NFFO  :200and  1e 0]0x[0re1][1neinro"
	"eson^^ roped:7 o: ->-17976te27:1ecorra cha**er Cnknn p -cech t1 "
	"62to, octil el14t 7fIdk x72 et/-=012n 1/5:leoxxyco :al== s96llli"
	"stsppI63s izzeveat1---953:15it>  npe1013en6 r 24nc40ccndvictlo28"
	" i Psi308 Pr16Chtr fpr3 ib6:ff l2:5 0..0ia4 Re vrcio 2nip.Sia d="
	"capoomngbu:8se22/04104cl2939th U81y deis03Rah/ckg 80riP2nvo sspy"
	"ntun d11DSUDm  a ec 2026ivfdda2P01ou25 Ric5002/t60Co b0[mm1[:331"
	"CUeiUMP/ac7 ar9 e=MEeqEM/C38 Sudf4otmeea (21lP hFdutheil0-S pt98"
	"84dievx2ns:0fi>1>0uf A/l371951eert78dlAl.c0/f15697 6.r/dx1so23ol"
	"45pS89hoty/s93) ulgeNE43eww p 48ytabgr2/57asb/keDed20: 8.2 m1bfr"
	"lus/1at/6766882dc:GeInagup7082/ptpf2.pmad/[2v/85d0tu46no3..1d12."
	"x3sy>-apamypfeug90efETtF3209/2PUpRla86/.ur69blog42/o.vexshcu3ddo";

struct lit {
	char *s;
	uint32_t len;
	uint32_t value;
	uint32_t off;      /* offset of the anchor bigram in s */
	uint16_t anchor;   /* s[off] | s[off + 1] << 8 */
};

struct acmatch {
	struct lit *lits;  /* after build: literals of length >= 2 sorted by anchor */
	size_t n, cap;
	struct lit *one;   /* literals of one byte */
	size_t none;
	uint8_t bitmap[65536 / 8];   /* A: anchors */
	uint8_t second[65536 / 8];   /* B: the bigram two bytes after an anchor (literals >= 4 bytes) */
	uint8_t shortbm[65536 / 8];  /* S: anchors of literals of 2 or 3 bytes */
	uint8_t onebyte[256];
	size_t states;     /* distinct prefixes + 1, as a trie would have */
	int built;
};

struct acmatch *acmatch_new(void)
{
	return xcalloc(1, sizeof(struct acmatch));
}

void acmatch_add(struct acmatch *ac, const char *lit, size_t len, uint32_t value)
{
	if (len == 0 || ac->built || len > UINT32_MAX)
		return;
	if (ac->n == ac->cap) {
		ac->cap = ac->cap ? ac->cap * 2 : 32;
		ac->lits = xrealloc(ac->lits, ac->cap * sizeof *ac->lits);
	}
	struct lit *l = &ac->lits[ac->n++];
	memset(l, 0, sizeof *l);
	l->s = xmalloc(len);
	memcpy(l->s, lit, len);
	l->len = (uint32_t)len;
	l->value = value;
}

/* How common a byte is in log text (higher = more common). */
static int byte_cost(unsigned char c)
{
	if (c == ' ')
		return 10;
	if (c && strchr("etaoinsrhldcum", c))
		return 9;
	if (c >= 'a' && c <= 'z')
		return 7;
	if (c >= '0' && c <= '9')
		return 7;
	if (c == ':' || c == '.' || c == ',' || c == '/' || c == '[' || c == ']')
		return 6;
	if (c >= 'A' && c <= 'Z')
		return 4;
	return 3;
}

/* How common a bigram is: its place in COMMON_BIGRAMS dominates. */
static int bigram_cost(const char *s)
{
	size_t n = sizeof COMMON_BIGRAMS - 1;
	for (size_t i = 0; i + 1 < n; i += 2)
		if (COMMON_BIGRAMS[i] == s[0] && COMMON_BIGRAMS[i + 1] == s[1])
			return 1000 + (int)(n - i);
	return byte_cost((unsigned char)s[0]) + byte_cost((unsigned char)s[1]);
}

#define BIT(bm, x) (((bm)[(x) >> 3] >> ((x) & 7)) & 1)
#define SETBIT(bm, x) ((bm)[(x) >> 3] |= (uint8_t)(1u << ((x) & 7)))

static unsigned bigram_at(const char *s)
{
	return (unsigned char)s[0] | (unsigned)(unsigned char)s[1] << 8;
}

static int cmp_anchor(const void *a, const void *b)
{
	const struct lit *x = a, *y = b;
	if (x->anchor != y->anchor)
		return x->anchor < y->anchor ? -1 : 1;
	return x->value < y->value ? -1 : x->value > y->value;
}

static int cmp_bytes(const void *a, const void *b)
{
	const struct lit *x = *(const struct lit *const *)a, *y = *(const struct lit *const *)b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->s, y->s, n);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

void acmatch_build(struct acmatch *ac)
{
	if (ac->built)
		return;
	/* the number of states a trie of these literals has (acmatch_states) */
	const struct lit **byb = xmalloc((ac->n + 1) * sizeof *byb);
	for (size_t i = 0; i < ac->n; i++)
		byb[i] = &ac->lits[i];
	if (ac->n > 1)
		qsort(byb, ac->n, sizeof *byb, cmp_bytes);
	ac->states = 1;
	for (size_t i = 0; i < ac->n; i++) {
		size_t lcp = 0;
		if (i) {
			size_t m = byb[i - 1]->len < byb[i]->len ? byb[i - 1]->len : byb[i]->len;
			while (lcp < m && byb[i - 1]->s[lcp] == byb[i]->s[lcp])
				lcp++;
		}
		ac->states += byb[i]->len - lcp;
	}
	free(byb);

	/* one-byte literals apart; anchors for the rest */
	size_t k = 0;
	for (size_t i = 0; i < ac->n; i++) {
		struct lit *l = &ac->lits[i];
		if (l->len == 1) {
			ac->one = xrealloc(ac->one, (ac->none + 1) * sizeof *ac->one);
			ac->one[ac->none++] = *l;
			ac->onebyte[(unsigned char)l->s[0]] = 1;
			continue;
		}
		int best = 1 << 30;
		if (l->len >= 4) {
			/* the rarest 4-gram: a rare first half matters most (it is tested everywhere) */
			for (uint32_t o = 0; o + 3 < l->len; o++) {
				int c = 4 * bigram_cost(l->s + o) + bigram_cost(l->s + o + 2);
				if (c < best) {
					best = c;
					l->off = o;
				}
			}
			SETBIT(ac->second, bigram_at(l->s + l->off + 2));
		} else {
			for (uint32_t o = 0; o + 1 < l->len; o++) {
				int c = bigram_cost(l->s + o);
				if (c < best) {
					best = c;
					l->off = o;
				}
			}
			SETBIT(ac->shortbm, bigram_at(l->s + l->off));
		}
		l->anchor = (uint16_t)bigram_at(l->s + l->off);
		SETBIT(ac->bitmap, l->anchor);
		ac->lits[k++] = *l;
	}
	ac->n = k;
	if (ac->n > 1)
		qsort(ac->lits, ac->n, sizeof *ac->lits, cmp_anchor);
	ac->built = 1;
}

void acmatch_free(struct acmatch *ac)
{
	if (!ac)
		return;
	for (size_t i = 0; i < ac->n; i++)
		free(ac->lits[i].s);
	for (size_t i = 0; i < ac->none; i++)
		free(ac->one[i].s);
	free(ac->lits);
	free(ac->one);
	free(ac);
}

/* The literals anchored at bigram a: the first index, and how many. */
static size_t anchored(const struct acmatch *ac, uint16_t a, size_t *count)
{
	size_t lo = 0, hi = ac->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (ac->lits[mid].anchor < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t e = lo;
	while (e < ac->n && ac->lits[e].anchor == a)
		e++;
	*count = e - lo;
	return lo;
}

static void verify(const struct acmatch *ac, const unsigned char *p, size_t n, size_t i,
                   void (*hit)(void *ctx, uint32_t value), void *ctx)
{
	size_t cnt;
	size_t first = anchored(ac, (uint16_t)(p[i] | (unsigned)p[i + 1] << 8), &cnt);
	for (size_t k = first; k < first + cnt; k++) {
		const struct lit *l = &ac->lits[k];
		if (i < l->off)
			continue;
		size_t start = i - l->off;
		if (start + l->len <= n && memcmp(p + start, l->s, l->len) == 0)
			hit(ctx, l->value);
	}
}

void acmatch_search(const struct acmatch *ac, const char *s, size_t n,
                    void (*hit)(void *ctx, uint32_t value), void *ctx)
{
	const unsigned char *p = (const unsigned char *)s;
	if (ac->none)
		for (size_t i = 0; i < n; i++)
			if (ac->onebyte[p[i]])
				for (size_t k = 0; k < ac->none; k++)
					if ((unsigned char)ac->one[k].s[0] == p[i])
						hit(ctx, ac->one[k].value);
	if (n < 2 || ac->n == 0)
		return;
	const uint8_t *bm = ac->bitmap, *b2 = ac->second, *sb = ac->shortbm;
	size_t last = n - 1;
	for (size_t i = 0; i < last; i++) {
		unsigned a = p[i] | (unsigned)p[i + 1] << 8;
		if (!BIT(bm, a))
			continue;
		if (BIT(sb, a) || (i + 3 < n && BIT(b2, p[i + 2] | (unsigned)p[i + 3] << 8)))
			verify(ac, p, n, i, hit, ctx);
	}
}

size_t acmatch_states(const struct acmatch *ac)
{
	return ac->states;
}
