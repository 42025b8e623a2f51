/* acmatch.c - see acmatch.h.  Despite the name (the interface is the one an
 * Aho-Corasick automaton offers), the search is an anchored q-gram filter,
 * several times faster on log text than a byte-at-a-time DFA whose table
 * (1 KiB a state, thousands of states) does not fit in the L1 cache:
 *
 *   - literals of two or three bytes are anchored at their rarest bigram;
 *     longer ones at their rarest window of `stride` consecutive 4-grams
 *     (below).  Rarity comes from the frequencies of the 2048 most common
 *     4-grams of the messages in fixtures/captures (acmatch_quads.h,
 *     scripts/quad_table.py: an anchor on a common 4-gram is a comparison
 *     at every line that holds it), then from a table of the 384 most
 *     common bigrams there (82% of all bigrams), then from a rough byte
 *     class estimate (capitals and punctuation are rarer than lower case);
 *   - two 8 KiB bitmaps: QUAD, indexed by a multiplicative hash of the four
 *     bytes at a position, says "a 4-gram anchor may start here"; PAIR,
 *     indexed by the two bytes, says "a short literal's anchor starts here";
 *   - the stride: when every literal has stride + 3 bytes or more (stride up
 *     to 4, so 7 bytes), each is anchored by stride consecutive 4-grams, and
 *     wherever it occurs exactly one of them starts at a multiple of the
 *     stride; the scan tests QUAD only there (one test per 4 bytes for the
 *     built-in database: 0.42 ns a byte on log text, against 1.18 for the
 *     bigram-pair filter this replaced).  Short literals need PAIR at every
 *     position, and a stride of 1;
 *   - where a QUAD bit is set, more bitmaps test 8 (or 7) bytes of a
 *     literal around the anchor (pair_may, mid_may); then the
 *     literals with that exact anchor (a hash table over the anchors) are
 *     compared in full with memcmp.
 *
 * Every occurrence of every literal is reported, as an automaton would. */
#include "base/acmatch.h"

#include <stdlib.h>
#include <string.h>
#include "base/arena.h"
#include "base/util.h"

#include "base/acmatch_quads.h"

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
	uint32_t off;      /* offset of the anchor in s */
	uint32_t anchor;   /* the anchor's bytes: load32() of a 4-gram, load16() of a bigram */
	uint64_t head;     /* the literal's first 8 bytes (fewer: zeros), compared before memcmp */
	uint64_t mask;     /* the bytes of head that are the literal's */
	uint64_t tail;     /* its bytes 8..15 (fewer: zeros): a literal of up to 16 bytes needs no memcmp */
	uint64_t tmask;    /* the bytes of tail that are the literal's */
	int owns;          /* the first of a literal's entries (a literal has one entry per anchor:
	                      stride entries, sharing s) */
};

/* The literals of one 4-gram anchor: lits[first .. first + count) (sorted by
 * anchor); an open-addressing table over the distinct anchors replaces a
 * binary search over all of them at every bitmap hit. */
struct aslot {
	uint32_t anchor;
	uint32_t first;
	uint32_t count;    /* 0: empty */
};

#define QUAD_BITS 17
#define MIDK_SLOT(h) ((h) >> (QUAD_BITS - 16))

struct acmatch {
	struct lit *lits;  /* after build: anchors of literals of length >= 4, sorted */
	size_t n, cap;
	struct aslot *aslots; /* the anchors of lits, hashed (aslot_hash) */
	unsigned abits;
	unsigned stride;   /* the 4-gram scan tests every stride-th position */
	struct lit *shorts; /* literals of length 2 and 3, sorted by anchor */
	size_t nshort;
	struct lit *one;   /* literals of one byte */
	size_t none;
	uint64_t quad[(1u << QUAD_BITS) / 64]; /* hashed 4-gram anchors, 64 a word (QBIT) */
	/* The second test at a QUAD hit, on 8 bytes: each anchor of a literal
	 * sets the hash of its 4-gram with the literal's next 4 bytes (PNEXT),
	 * else with its previous 4 (PPREV).  An anchor with neither (offset
	 * k < 4 in a literal of 7 to 11 bytes: a stride-4 literal has 1 to 4
	 * such) sets its 4-gram in MID, bit k of MIDK at the 4-gram's hash and
	 * the hash of the literal's first 7 bytes salted with k in PMID
	 * (mid_may); the anchor of a shorter literal (a stride below 4) sets
	 * MID and bit 4 of MIDK ("always").  Most anchors that occur in text
	 * (English words: "urce", "vice") stop here, before the anchor table
	 * and the literals (two cache misses).  Before PMID, the anchors with
	 * neither window had no second test: "nccl" (of "libnccl"), "NET/",
	 * " err", "cess" called verify_quad at each occurrence in the text. */
	uint64_t pnext[(1u << QUAD_BITS) / 64];
	uint64_t pprev[(1u << QUAD_BITS) / 64];
	uint64_t mid[(1u << QUAD_BITS) / 64];
	uint64_t pmid[(1u << QUAD_BITS) / 64];
	uint8_t midk[1u << 16]; /* by MIDK_SLOT; read at MID hits only */
	uint8_t pair[65536 / 8];             /* bigram anchors of short literals */
	uint8_t onebyte[256];
	int built;
	struct arena bytes; /* every literal's bytes (each entry's s): freed at once */
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
	l->s = arena_chars(&ac->bytes, len); /* a malloc and a free each were 0.7 M instructions of start-up */
	memcpy(l->s, lit, len);
	l->len = (uint32_t)len;
	l->value = value;
	l->owns = 1;
}

/* How common a byte is in log text (higher = more common). */
static int byte_cost(unsigned char c)
{
	if (c == ' ')
		return 10;
	switch (c) { /* "etaoinsrhldcum" (a switch: no strchr per byte at start-up) */
	case 'e': case 't': case 'a': case 'o': case 'i': case 'n': case 's':
	case 'r': case 'h': case 'l': case 'd': case 'c': case 'u': case 'm':
		return 9;
	default:
		break;
	}
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
/* The bigrams of COMMON_BIGRAMS, each with 1000 + its weight (the first
 * occurrence counts): open addressing over BSLOTS keys (key: the two
 * bytes, load16 order; 0 = empty: a literal has no NUL).  4 KiB, not a
 * 128 KiB table by bigram: start-up pays per page it touches.  Built for
 * one acmatch_build. */
#define BSLOTS 1024

struct bigrams {
	uint16_t key[BSLOTS];
	uint16_t weight[BSLOTS];
	uint8_t byte[256]; /* byte_cost of each byte */
};

static size_t bigram_slot(unsigned key)
{
	return (key * 0x9E37u >> 6) & (BSLOTS - 1);
}

static struct bigrams *common_table(void)
{
	struct bigrams *t = xcalloc(1, sizeof *t);
	size_t n = sizeof COMMON_BIGRAMS - 1;
	for (size_t k = 0; k + 2 <= n; k += 2) {
		unsigned key = (unsigned char)COMMON_BIGRAMS[k] | (unsigned)(unsigned char)COMMON_BIGRAMS[k + 1] << 8;
		size_t s = bigram_slot(key);
		while (t->key[s] && t->key[s] != key)
			s = (s + 1) & (BSLOTS - 1);
		if (t->key[s])
			continue; /* an earlier occurrence */
		t->key[s] = (uint16_t)key;
		t->weight[s] = (uint16_t)(1000 + n - k);
	}
	for (unsigned c = 0; c < 256; c++)
		t->byte[c] = (uint8_t)byte_cost((unsigned char)c);
	return t;
}

static uint16_t common_weight(const struct bigrams *t, unsigned key)
{
	for (size_t s = bigram_slot(key); t->key[s]; s = (s + 1) & (BSLOTS - 1))
		if (t->key[s] == key)
			return t->weight[s];
	return 0;
}

/* The per-million frequency of each COMMON_QUADS 4-gram, by the 4 bytes:
 * open addressing over QSLOTS keys (0 = empty: no 4-gram of the table is
 * four NULs).  Built for one acmatch_build. */
#define QSLOTS 4096
struct quadfreq {
	uint32_t key[QSLOTS];
	uint16_t freq[QSLOTS];
};

static uint32_t load32(const void *p);
static uint32_t quad_hash(uint32_t x);

static struct quadfreq *quad_table(void)
{
	struct quadfreq *t = xcalloc(1, sizeof *t);
	for (size_t i = 0; i < sizeof COMMON_QUADS / sizeof *COMMON_QUADS; i++) {
		uint32_t k = load32(COMMON_QUADS[i].q);
		size_t s = quad_hash(k) & (QSLOTS - 1);
		while (t->key[s] && t->key[s] != k)
			s = (s + 1) & (QSLOTS - 1);
		t->key[s] = k;
		t->freq[s] = COMMON_QUADS[i].per_million;
	}
	return t;
}

static unsigned quad_freq(const struct quadfreq *t, const char *p)
{
	uint32_t k = load32(p);
	for (size_t s = quad_hash(k) & (QSLOTS - 1); t->key[s]; s = (s + 1) & (QSLOTS - 1))
		if (t->key[s] == k)
			return t->freq[s];
	return 0;
}

static int bigram_cost(const struct bigrams *common, const char *s)
{
	uint16_t c = common_weight(common, (unsigned char)s[0] | (unsigned)(unsigned char)s[1] << 8);
	return c ? c : common->byte[(unsigned char)s[0]] + common->byte[(unsigned char)s[1]];
}

#define BIT(bm, x) (((bm)[(x) >> 3] >> ((x) & 7)) & 1)
#define SETBIT(bm, x) ((bm)[(x) >> 3] |= (uint8_t)(1u << ((x) & 7)))
/* QUAD's words: bit h & 63 of word h >> 6; the scan shifts a word by h and
 * ORs four of them before it tests bit 0 (one shift a 4-gram, no byte/bit split) */
#define QWORD(bm, x) ((bm)[(x) >> 6] >> ((x) & 63))
#define QBIT(bm, x) (QWORD(bm, x) & 1)
#define QSETBIT(bm, x) ((bm)[(x) >> 6] |= (uint64_t)1 << ((x) & 63))

/* Byte order does not matter: anchors are computed with the same loads. */
static uint32_t load32(const void *p)
{
	uint32_t x;
	memcpy(&x, p, 4);
	return x;
}

static uint32_t load16(const void *p)
{
	uint16_t x;
	memcpy(&x, p, 2);
	return x;
}

static uint32_t quad_hash(uint32_t x)
{
	return (x * 0x9E3779B1u) >> (32 - QUAD_BITS);
}

static uint32_t pair_hash(uint64_t x)
{
	return (uint32_t)((x * 0x9E3779B97F4A7C15u) >> (64 - QUAD_BITS));
}

/* PMID's key: the first 7 of the 8 bytes x (the mask made with the same
 * load as x: byte order does not matter), salted with the offset k. */
static uint32_t mid_hash(uint64_t x, uint32_t k)
{
	static const unsigned char m[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0};
	uint64_t mask;
	memcpy(&mask, m, 8);
	return pair_hash((x & mask) + k);
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

static uint32_t aslot_hash(uint32_t a, unsigned bits)
{
	return (a * 0x85EBCA6Bu) >> (32 - bits);
}

static uint64_t load64(const void *p)
{
	uint64_t x;
	memcpy(&x, p, 8);
	return x;
}

/* The anchor table of the sorted lits, and each literal's head and mask. */
static void anchor_table(struct acmatch *ac)
{
	size_t distinct = 0;
	for (size_t i = 0; i < ac->n; i++) {
		struct lit *l = &ac->lits[i];
		unsigned char h[8] = {0}, m[8] = {0}, t[8] = {0}, tm[8] = {0};
		size_t hl = l->len < 8 ? l->len : 8, tl = l->len <= 8 ? 0 : l->len < 16 ? l->len - 8 : 8;
		memcpy(h, l->s, hl);
		memset(m, 0xff, hl);
		memcpy(t, l->s + hl, tl);
		memset(tm, 0xff, tl);
		l->head = load64(h);
		l->mask = load64(m);
		l->tail = load64(t);
		l->tmask = load64(tm);
		distinct += i == 0 || ac->lits[i - 1].anchor != l->anchor;
	}
	ac->abits = 4;
	while (((size_t)1 << ac->abits) < 2 * distinct)
		ac->abits++;
	ac->aslots = xcalloc((size_t)1 << ac->abits, sizeof *ac->aslots);
	size_t amask = ((size_t)1 << ac->abits) - 1;
	for (size_t i = 0; i < ac->n;) {
		size_t j = i;
		while (j < ac->n && ac->lits[j].anchor == ac->lits[i].anchor)
			j++;
		size_t slot = aslot_hash(ac->lits[i].anchor, ac->abits);
		while (ac->aslots[slot].count)
			slot = (slot + 1) & amask;
		ac->aslots[slot] = (struct aslot){ac->lits[i].anchor, (uint32_t)i, (uint32_t)(j - i)};
		i = j;
	}
}

/* ac->lits in cmp_anchor's order (anchor, then value), equal keys in their
 * order: a stable LSD radix sort of (key, index) pairs, then one move of the
 * literals.  qsort moved every 48-byte entry at each merge level: at start-up
 * it was the largest part of acmatch_build. */
struct akey {
	uint64_t key;
	uint32_t idx;
};

static void sort_by_anchor(struct acmatch *ac)
{
	size_t n = ac->n;
	struct akey *a = xmalloc(n * sizeof *a), *b = xmalloc(n * sizeof *b);
	uint64_t all_or = 0, all_and = ~(uint64_t)0;
	for (size_t i = 0; i < n; i++) {
		a[i].key = (uint64_t)ac->lits[i].anchor << 32 | ac->lits[i].value;
		a[i].idx = (uint32_t)i;
		all_or |= a[i].key;
		all_and &= a[i].key;
	}
	for (unsigned shift = 0; shift < 64; shift += 8) {
		if ((((all_or ^ all_and) >> shift) & 0xff) == 0)
			continue; /* every key has the same byte here: the pass changes nothing */
		size_t count[257] = {0};
		for (size_t i = 0; i < n; i++)
			count[((a[i].key >> shift) & 0xff) + 1]++;
		for (size_t c = 1; c < 257; c++)
			count[c] += count[c - 1];
		for (size_t i = 0; i < n; i++)
			b[count[(a[i].key >> shift) & 0xff]++] = a[i];
		struct akey *t = a;
		a = b;
		b = t;
	}
	/* the literals moved in place along the permutation's cycles (a[i].idx:
	 * where the literal for place i is): a second 216 KiB array was 54 new
	 * pages of each start-up */
	const uint32_t done = UINT32_MAX;
	for (size_t i = 0; i < n; i++) {
		if (a[i].idx == done)
			continue;
		if (a[i].idx == i) {
			a[i].idx = done;
			continue;
		}
		struct lit first = ac->lits[i];
		for (size_t j = i;;) {
			size_t src = a[j].idx;
			a[j].idx = done;
			if (src == i) {
				ac->lits[j] = first;
				break;
			}
			ac->lits[j] = ac->lits[src];
			j = src;
		}
	}
	free(a);
	free(b);
}

void acmatch_build(struct acmatch *ac)
{
	if (ac->built)
		return;
	struct bigrams *common = common_table();
	struct quadfreq *qf = quad_table();
	/* one-byte and short literals apart */
	size_t nlong = 0, minlen = SIZE_MAX;
	for (size_t i = 0; i < ac->n; i++) {
		struct lit *l = &ac->lits[i];
		if (l->len == 1) {
			ac->one = xrealloc(ac->one, (ac->none + 1) * sizeof *ac->one);
			ac->one[ac->none++] = *l;
			ac->onebyte[(unsigned char)l->s[0]] = 1;
		} else if (l->len < 4) {
			int best = 1 << 30;
			for (uint32_t o = 0; o + 1 < l->len; o++) {
				int c = bigram_cost(common, l->s + o);
				if (c < best) {
					best = c;
					l->off = o;
				}
			}
			l->anchor = load16(l->s + l->off);
			SETBIT(ac->pair, l->anchor);
			ac->shorts = xrealloc(ac->shorts, (ac->nshort + 1) * sizeof *ac->shorts);
			ac->shorts[ac->nshort++] = *l;
		} else {
			ac->lits[nlong++] = *l;
			if (l->len < minlen)
				minlen = l->len;
		}
	}
	/* The stride: with every literal at least stride + 3 bytes long, each
	 * gets stride consecutive 4-grams as anchors (the rarest such window,
	 * weighted to rare first halves, which are tested everywhere).
	 * Wherever a literal occurs, exactly one of its anchors starts at a
	 * multiple of the stride, so the scan tests only those positions and
	 * reports each occurrence once.  Short literals need every position. */
	ac->stride = 1;
	if (ac->nshort == 0 && nlong > 0)
		ac->stride = (unsigned)(minlen - 3 < ACMATCH_MAX_STRIDE ? minlen - 3 : ACMATCH_MAX_STRIDE);
	size_t k = nlong;
	if (ac->stride > 1) {
		ac->cap = nlong * ac->stride;
		ac->lits = xrealloc(ac->lits, ac->cap * sizeof *ac->lits);
	}
	long *cost = NULL; /* cost[p] of the 4-gram at p; a window's cost is the sum over its stride positions */
	int *bc = NULL;    /* bc[p]: bigram_cost at p, once a position (cost[p] reads p and p + 2) */
	size_t ncost = 0;
	for (size_t i = 0; i < nlong; i++) {
		struct lit *l = &ac->lits[i];
		uint32_t w = 0;
		long best = 1L << 40;
		/* the 4-grams' frequencies first (each is tested wherever it occurs
		 * at a multiple of the stride), the bigrams' estimate between
		 * windows of rare 4-grams; each position's cost computed once and
		 * the window summed as it slides */
		size_t np = l->len - 3; /* 4-gram positions: len >= stride + 3 >= 4 */
		if (np > ncost) {
			ncost = np;
			cost = xrealloc(cost, ncost * sizeof *cost);
			bc = xrealloc(bc, (ncost + 2) * sizeof *bc);
		}
		for (size_t q = 0; q < np + 2; q++)
			bc[q] = bigram_cost(common, l->s + q);
		for (size_t q = 0; q < np; q++)
			cost[q] = 64L * quad_freq(qf, l->s + q) + 4 * bc[q] + bc[q + 2];
		long c = 0;
		for (uint32_t j = 0; j < ac->stride; j++)
			c += cost[j];
		for (uint32_t o = 0; o + ac->stride + 3 <= l->len; o++) {
			if (o)
				c += cost[o + ac->stride - 1] - cost[o - 1];
			if (c < best) {
				best = c;
				w = o;
			}
		}
		for (uint32_t j = 0; j < ac->stride; j++) {
			struct lit *e = j == 0 ? l : &ac->lits[k++];
			if (j)
				*e = *l;
			e->owns = j == 0;
			e->off = w + j;
			e->anchor = load32(l->s + e->off);
			QSETBIT(ac->quad, quad_hash(e->anchor));
			uint32_t h = quad_hash(e->anchor);
			if (e->off + 8 <= e->len) {
				QSETBIT(ac->pnext, pair_hash(load64(l->s + e->off)));
			} else if (e->off >= 4) {
				QSETBIT(ac->pprev, pair_hash(load64(l->s + e->off - 4)));
			} else if (e->len >= 7) { /* off < 4 */
				unsigned char h7[8] = {0};
				memcpy(h7, l->s, 7);
				QSETBIT(ac->mid, h);
				ac->midk[MIDK_SLOT(h)] |= (uint8_t)(1u << e->off);
				QSETBIT(ac->pmid, mid_hash(load64(h7), e->off));
			} else {
				QSETBIT(ac->mid, h);
				ac->midk[MIDK_SLOT(h)] |= 1u << 4;
			}
		}
	}
	free(cost);
	free(bc);
	free(common);
	free(qf);
	ac->n = k;
	if (ac->n > 1)
		sort_by_anchor(ac);
	anchor_table(ac);
	if (ac->nshort > 1)
		xqsort(ac->shorts, ac->nshort, sizeof *ac->shorts, cmp_anchor);
	ac->built = 1;
}

void acmatch_free(struct acmatch *ac)
{
	if (!ac)
		return;
	arena_free(&ac->bytes);
	free(ac->lits);
	free(ac->aslots);
	free(ac->shorts);
	free(ac->one);
	free(ac);
}

/* Report the literals of v[0..cnt) anchored by the bytes at position i
 * whose anchor is a. */
static void verify(const struct lit *v, size_t cnt, uint32_t a, const unsigned char *p, size_t n, size_t i,
                   void (*hit)(void *ctx, uint32_t value), void *ctx)
{
	size_t lo = 0, hi = cnt;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (v[mid].anchor < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k < cnt && v[k].anchor == a; k++) {
		const struct lit *l = &v[k];
		if (i < l->off)
			continue;
		size_t start = i - l->off;
		if (start + l->len <= n && memcmp(p + start, l->s, l->len) == 0)
			hit(ctx, l->value);
	}
}

/* One search: the text and where its hits go (one pointer for the calls
 * at bitmap hits, fewer arguments to pass). */
struct scan {
	const unsigned char *p;
	size_t n;
	void (*hit)(void *ctx, uint32_t value);
	void *ctx;
};

/* Report the 4-gram-anchored literals whose anchor is the 4 bytes at
 * position i (a bitmap hit): the anchor table, then 8 bytes at once, the
 * next 8 at once, then memcmp for the rest (literals of more than 16
 * bytes).  Near the end of the text, memcmp. */
static void verify_quad(const struct acmatch *ac, const struct scan *sc, size_t i)
{
	const unsigned char *p = sc->p;
	size_t n = sc->n;
	uint32_t x = load32(p + i);
	size_t amask = ((size_t)1 << ac->abits) - 1;
	const struct aslot *a;
	for (size_t slot = aslot_hash(x, ac->abits);; slot = (slot + 1) & amask) {
		a = &ac->aslots[slot];
		if (!a->count)
			return; /* the bitmap's false positive */
		if (a->anchor == x)
			break;
	}
	for (const struct lit *l = ac->lits + a->first, *e = l + a->count; l < e; l++) {
		if (i < l->off)
			continue;
		size_t start = i - l->off;
		if (start + l->len > n)
			continue;
		if (start + 16 <= n) {
			if ((load64(p + start) & l->mask) != l->head || (load64(p + start + 8) & l->tmask) != l->tail)
				continue;
			if (l->len <= 16 || memcmp(p + start + 16, l->s + 16, l->len - 16) == 0)
				sc->hit(sc->ctx, l->value);
		} else if (memcmp(p + start, l->s, l->len) == 0) {
			sc->hit(sc->ctx, l->value);
		}
	}
}

/* MID's test at a MID hit at position i (h: the hash of its 4 bytes): for
 * each offset k of MIDK, a literal anchored at k whose first 7 bytes start
 * at i - k.  Where 8 bytes cannot be read from there, "may". */
__attribute__((noinline)) static int mid_may(const struct acmatch *ac, uint32_t h, const unsigned char *p, size_t n, size_t i)
{
	unsigned ks = ac->midk[MIDK_SLOT(h)]; /* shared slots: the union of their offsets */
	if (ks & (1u << 4))
		return 1;
	for (; ks; ks &= ks - 1) {
		unsigned k = (unsigned)__builtin_ctz(ks);
		if (k > i)
			break; /* and every larger k */
		if (i - k + 8 > n || QBIT(ac->pmid, mid_hash(load64(p + i - k), k)))
			return 1;
	}
	return 0;
}

/* The second test at a QUAD hit at position i (x: its 4 bytes): 0 when no
 * literal anchored there can start at i - its offset.  Exact: the bytes of
 * an occurrence are the literal's, so its window's bit is set. */
static inline int pair_may(const struct acmatch *ac, uint32_t x, const unsigned char *p, size_t n, size_t i)
{
	uint32_t h = quad_hash(x);
	return (QBIT(ac->mid, h) && mid_may(ac, h, p, n, i)) ||
	       (i + 8 <= n && QBIT(ac->pnext, pair_hash(load64(p + i)))) ||
	       (i >= 4 && QBIT(ac->pprev, pair_hash(load64(p + i - 4))));
}

/* Both tests at one position (a database with short literals). */
static void probe(const struct acmatch *ac, const unsigned char *p, size_t n, size_t i,
                  void (*hit)(void *ctx, uint32_t value), void *ctx)
{
	if (i + 4 <= n) {
		uint32_t x = load32(p + i);
		if (QBIT(ac->quad, quad_hash(x)))
			verify_quad(ac, &(struct scan){p, n, hit, ctx}, i);
	}
	uint32_t x = load16(p + i);
	if (BIT(ac->pair, x))
		verify(ac->shorts, ac->nshort, x, p, n, i, hit, ctx);
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
	if (n < 2 || (ac->n == 0 && ac->nshort == 0))
		return;
	if (ac->nshort == 0) {
		/* the common case (the built-in database): one test a position */
		const uint64_t *quad = ac->quad;
		const struct scan sc = {p, n, hit, ctx};
		size_t st = ac->stride, i = 0;
		if (st == 4) {
			/* four positions a round: most rounds test no bit */
			for (; i + 16 <= n; i += 16) {
				uint64_t t0 = QWORD(quad, quad_hash(load32(p + i))), t1 = QWORD(quad, quad_hash(load32(p + i + 4))),
				         t2 = QWORD(quad, quad_hash(load32(p + i + 8))), t3 = QWORD(quad, quad_hash(load32(p + i + 12)));
				if (!((t0 | t1 | t2 | t3) & 1))
					continue;
				if ((t0 & 1) && pair_may(ac, load32(p + i), p, n, i))
					verify_quad(ac, &sc, i);
				if ((t1 & 1) && pair_may(ac, load32(p + i + 4), p, n, i + 4))
					verify_quad(ac, &sc, i + 4);
				if ((t2 & 1) && pair_may(ac, load32(p + i + 8), p, n, i + 8))
					verify_quad(ac, &sc, i + 8);
				if ((t3 & 1) && pair_may(ac, load32(p + i + 12), p, n, i + 12))
					verify_quad(ac, &sc, i + 12);
			}
		}
		for (; i + 4 <= n; i += st) {
			uint32_t x = load32(p + i);
			if (QBIT(quad, quad_hash(x)) && pair_may(ac, x, p, n, i))
				verify_quad(ac, &sc, i);
		}
		return;
	}
	for (size_t i = 0; i + 1 < n; i++)
		probe(ac, p, n, i, hit, ctx);
}

/* The number of states a trie of the literals would have: distinct
 * prefixes + 1.  Counted when asked (tests), not at every start-up. */
size_t acmatch_states(const struct acmatch *ac)
{
	size_t n = 0;
	const struct lit **byb = xmalloc((ac->n + ac->nshort + ac->none + 1) * sizeof *byb);
	if (ac->built) {
		for (size_t i = 0; i < ac->n; i++)
			if (ac->lits[i].owns) /* a long literal has one entry per anchor */
				byb[n++] = &ac->lits[i];
		for (size_t i = 0; i < ac->nshort; i++)
			byb[n++] = &ac->shorts[i];
		for (size_t i = 0; i < ac->none; i++)
			byb[n++] = &ac->one[i];
	} else {
		for (size_t i = 0; i < ac->n; i++)
			byb[n++] = &ac->lits[i];
	}
	if (n > 1)
		xqsort(byb, n, sizeof *byb, cmp_bytes);
	size_t states = 1;
	for (size_t i = 0; i < n; i++) {
		size_t lcp = 0;
		if (i) {
			size_t m = byb[i - 1]->len < byb[i]->len ? byb[i - 1]->len : byb[i]->len;
			while (lcp < m && byb[i - 1]->s[lcp] == byb[i]->s[lcp])
				lcp++;
		}
		states += byb[i]->len - lcp;
	}
	free(byb);
	return states;
}

unsigned acmatch_stride(const struct acmatch *ac)
{
	return ac->stride;
}
