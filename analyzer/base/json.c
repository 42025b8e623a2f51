/* json.c - see json.h. */
#include "base/json.h"

#include <limits.h>
#include <locale.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "base/arena.h"
#include "base/util.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

cJSON *json_get(const cJSON *o, const char *key)
{
	/* cJSON_GetObjectItemCaseSensitive's walk (it stops at the first
	 * element without a name: an array's), the first bytes compared
	 * before strcmp: the loader looks keys up ~20000 times a start-up */
	if (!o || !key)
		return NULL;
	for (cJSON *c = o->child; c && c->string; c = c->next)
		if (c->string[0] == key[0] && strcmp(c->string, key) == 0)
			return c;
	return NULL;
}

const char *json_str(const cJSON *o, const char *key)
{
	const cJSON *v = json_get(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

int json_num(const cJSON *o, const char *key, double *out)
{
	const cJSON *v = json_get(o, key);
	if (!cJSON_IsNumber(v))
		return 0;
	*out = v->valuedouble;
	return 1;
}

const char *json_strz(const cJSON *o, const char *key)
{
	const char *s = json_str(o, key);
	return s ? s : "";
}

double json_numz(const cJSON *o, const char *key)
{
	double v = 0;
	json_num(o, key, &v);
	return v;
}

int json_size(const cJSON *a)
{
	return (cJSON_IsArray(a) || cJSON_IsObject(a)) ? cJSON_GetArraySize(a) : 0;
}

/* ---- where a path is in the text ---- */

struct jpos {
	const char *p, *end;
	size_t line;
	const char *want;
	size_t found;
	char path[1024];
};

static void ws(struct jpos *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) {
		if (*j->p == '\n')
			j->line++;
		j->p++;
	}
}

/* A string at j->p ('"'); its raw bytes in *s, *n.  0 when unterminated. */
static int string(struct jpos *j, const char **s, size_t *n)
{
	j->p++;
	*s = j->p;
	while (j->p < j->end && *j->p != '"') {
		if (*j->p == '\\' && j->p + 1 < j->end)
			j->p++;
		if (*j->p == '\n')
			j->line++;
		j->p++;
	}
	if (j->p >= j->end)
		return 0;
	*n = (size_t)(j->p - *s);
	j->p++;
	return 1;
}

static int value(struct jpos *j, int depth);

static int members(struct jpos *j, int depth, int array)
{
	j->p++;
	ws(j);
	if (j->p < j->end && *j->p == (array ? ']' : '}')) {
		j->p++;
		return 1;
	}
	for (size_t i = 0;; i++) {
		ws(j);
		size_t mark = strlen(j->path), room = sizeof j->path - mark, line = j->line;
		int k;
		if (array) {
			k = snprintf(j->path + mark, room, "[%zu]", i);
		} else {
			const char *key;
			size_t kn;
			if (j->p >= j->end || *j->p != '"' || !string(j, &key, &kn))
				return 0;
			/* the top level's keys have no leading '.' */
			k = snprintf(j->path + mark, room, mark ? ".%.*s" : "%.*s", (int)(kn < 1000 ? kn : 1000), key);
			ws(j);
			if (j->p >= j->end || *j->p != ':')
				return 0;
			j->p++;
			ws(j);
		}
		int fits = k >= 0 && (size_t)k < room; /* deeper paths are not followed */
		if (fits && !j->found && strcmp(j->path, j->want) == 0)
			j->found = line;
		if (!value(j, depth + 1))
			return 0;
		j->path[mark] = 0;
		ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == (array ? ']' : '}')) {
			j->p++;
			return 1;
		}
		return 0;
	}
}

static int value(struct jpos *j, int depth)
{
	ws(j);
	if (j->p >= j->end || depth > JSON_LINE_DEPTH || j->found)
		return 0;
	if (*j->p == '{' || *j->p == '[')
		return members(j, depth, *j->p == '[');
	if (*j->p == '"') {
		const char *s;
		size_t n;
		return string(j, &s, &n);
	}
	while (j->p < j->end && !strchr(",}] \t\r\n", *j->p))
		j->p++;
	return 1;
}

size_t json_path_line(const char *text, size_t len, const char *path)
{
	if (!text || !path)
		return 0;
	if (!*path || strcmp(path, "$") == 0)
		return 1;
	struct jpos j = {text, text + len, 1, path, 0, {0}};
	value(&j, 0);
	return j.found;
}

/* ---- the arena of json_parse_arena ---- */

/* A tree's memory is a base/arena (its cap: json_parse_arena_max's bound).
 * A scope arena (json_arena_new) adds recycling on top: its blocks have a
 * header of one max_align_t holding the block's class, payloads of 16-byte
 * classes up to POOL_CLASSES - 1 of them, recycled through a free list per
 * class (so a scope's memory follows what is live, not what was ever
 * allocated); class 0: a larger block, never recycled.  The free lists
 * stay here, not in base/arena: only cJSON's free hook gives blocks back,
 * and only this layer knows a block's size when it does. */
#define POOL_CLASSES 64

struct json_arena {
	struct arena mem;
	int pool;          /* a scope arena (json_arena_new): blocks with headers, recycled */
	void *freel[POOL_CLASSES]; /* per class, the freed blocks (linked through their first bytes) */
};

/* A node or string of cJSON's hooks: sizes rounded up to sizeof(max_align_t)
 * (so json_parse_arena_max counts 64 bytes a node, 32 a short string) */
static void *hook_alloc(struct json_arena *a, size_t n)
{
	const size_t al = sizeof(max_align_t);
	return arena_alloc(&a->mem, (n + al - 1) / al * al);
}

void json_arena_free(struct json_arena *a)
{
	if (!a)
		return;
	arena_free(&a->mem);
	free(a);
}

/* The arena this thread parses into now (json_parse_arena) or builds in
 * (json_arena_enter), else NULL: cJSON's hooks are process-wide, the arena
 * is per thread, so a tree another thread builds meanwhile is allocated as
 * always. */
static _Thread_local struct json_arena *cur_arena;

struct json_arena *json_arena_new(void)
{
	struct json_arena *a = xcalloc(1, sizeof *a);
	a->pool = 1;
	return a;
}

static void *pool_alloc(struct json_arena *a, size_t n)
{
	const size_t al = sizeof(max_align_t);
	size_t c = n ? (n + 15) / 16 : 1;
	if (c < POOL_CLASSES && a->freel[c]) {
		void *p = a->freel[c];
		a->freel[c] = *(void **)p;
		return p;
	}
	size_t body = c < POOL_CLASSES ? c * 16 : (n + al - 1) / al * al;
	max_align_t *h = arena_alloc(&a->mem, al + body);
	*(size_t *)h = c < POOL_CLASSES ? c : 0;
	return h + 1;
}

static void pool_free(struct json_arena *a, void *p)
{
	size_t c = *(size_t *)((max_align_t *)p - 1);
	if (c) {
		*(void **)p = a->freel[c];
		a->freel[c] = p;
	}
}

struct json_arena *json_arena_enter(struct json_arena *a)
{
	struct json_arena *prev = cur_arena;
	cur_arena = a;
	return prev;
}

static void *json_xmalloc(size_t n)
{
	if (!cur_arena)
		return xmalloc(n);
	return cur_arena->pool ? pool_alloc(cur_arena, n) : hook_alloc(cur_arena, n);
}

/* While a thread parses into an arena, cJSON frees only what that parse
 * allocated (a tree that fails half way): it goes with the arena.  In a
 * json_arena_enter scope, a block of the scope's arena is recycled, any
 * other pointer was malloc'ed before the scope and is freed. */
static void json_free(void *p)
{
	if (!cur_arena)
		free(p);
	else if (cur_arena->pool && p && arena_owns(&cur_arena->mem, p))
		pool_free(cur_arena, p);
	else if (cur_arena->pool)
		free(p); /* allocated before the scope */
}

void json_use_xmalloc(void)
{
	cJSON_Hooks hooks = {json_xmalloc, json_free};
	cJSON_InitHooks(&hooks);
}

static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;

static cJSON *parse_in(struct json_arena **arena, const char *text, size_t len, const char **end, size_t max,
                       int *over)
{
	pthread_once(&hooks_once, json_use_xmalloc); /* main installs them; tests and fuzzers may not */
	struct json_arena *a = xcalloc(1, sizeof *a);
	a->mem.max = max;
	struct json_arena *prev = json_arena_enter(a); /* a json_arena_enter scope may be open */
	cJSON *doc = cJSON_ParseWithLengthOpts(text, len, end, 0);
	json_arena_enter(prev);
	if (over)
		*over = a->mem.over;
	if (!doc || a->mem.over) {
		doc = NULL;
		json_arena_free(a);
		a = NULL;
	}
	*arena = a;
	return doc;
}

cJSON *json_parse_arena(struct json_arena **arena, const char *text, size_t len, const char **end)
{
	return parse_in(arena, text, len, end, 0, NULL);
}

cJSON *json_parse_arena_max(struct json_arena **arena, const char *text, size_t len, size_t max, int *over)
{
	return parse_in(arena, text, len, NULL, max, over);
}

/* ---- json_parse_arena_fast: cJSON 1.7's grammar, without its per-node
 * hooks ----
 *
 * Each step below is the step of cJSON's parser of the same name
 * (parse_value, parse_string, parse_number, parse_array, parse_object,
 * buffer_skip_whitespace, skip_utf8_bom) and accepts what it accepts,
 * building the same nodes: every byte <= 32 is white space, a string's
 * bytes are copied as they are (control bytes, NUL, invalid UTF-8), \u
 * as cJSON decodes it (a bad hex digit counts as 0), numbers through the
 * same strtod of the whole run of number bytes, 1000 levels of nesting, text after the
 * value allowed.  What it does faster: one SSE2 pass finds a string's
 * end or first escape (two memchr calls a string were a tenth of the
 * parse: most strings are short names), white space goes sixteen bytes a
 * step, nodes and strings come from the arena without a call per node.  Where it
 * fails, cJSON parses the text again (json_parse_arena_fast), so errors
 * and their places are cJSON's own; tests/unit/test_json.c holds the two
 * trees equal. */

#define FAST_NESTING 1000 /* CJSON_NESTING_LIMIT */

struct fastp {
	const unsigned char *s;
	size_t len, off, depth;
	struct json_arena *a;
	unsigned char point; /* the locale's decimal point, as cJSON's parse_number uses */
};

static inline void *fast_alloc(struct fastp *p, size_t n, size_t al)
{
	return arena_take(&p->a->mem, n, al);
}

static inline cJSON *fast_node(struct fastp *p)
{
	cJSON *n = fast_alloc(p, sizeof *n, _Alignof(cJSON));
	*n = (cJSON){0};
	return n;
}

static inline void fast_ws(struct fastp *p)
{
	/* cJSON steps back one byte when white space runs to the end: that
	 * only moves where a failure is reported, and failures are cJSON's.
	 * Eight bytes a step while they are all <= 32: the pattern files'
	 * indentation was a twentieth of start-up a byte at a time.  A byte
	 * b > 32 sets its high bit in ((b & 0x7f) + 0x5f) | b (no carry
	 * between bytes: at most 0x7f + 0x5f); the lowest such byte is the
	 * first (little-endian; other orders keep the byte loop). */
#if defined(__SSE2__)
	/* sixteen bytes a step where SSE2 is (x86-64): b <= 32 is
	 * max(b, 32) == 32, unsigned; the last 15 bytes go below */
	const __m128i sp = _mm_set1_epi8(32);
	while (p->off + 16 <= p->len) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p->s + p->off));
		unsigned big = ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(x, sp), sp)) & 0xffffu;
		if (big) {
			p->off += (size_t)__builtin_ctz(big);
			return;
		}
		p->off += 16;
	}
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	while (p->off + 8 <= p->len) {
		uint64_t x;
		memcpy(&x, p->s + p->off, 8);
		uint64_t big = (((x & 0x7f7f7f7f7f7f7f7full) + 0x5f5f5f5f5f5f5f5full) | x) & 0x8080808080808080ull;
		if (big) {
			p->off += (size_t)__builtin_ctzll(big) / 8;
			return;
		}
		p->off += 8;
	}
#endif
	while (p->off < p->len && p->s[p->off] <= 32)
		p->off++;
}

static unsigned fast_hex4(const unsigned char *in)
{
	unsigned h = 0;
	for (int i = 0; i < 4; i++) {
		if (in[i] >= '0' && in[i] <= '9')
			h += (unsigned)in[i] - '0';
		else if (in[i] >= 'A' && in[i] <= 'F')
			h += 10u + in[i] - 'A';
		else if (in[i] >= 'a' && in[i] <= 'f')
			h += 10u + in[i] - 'a';
		else
			return 0;
		if (i < 3)
			h <<= 4;
	}
	return h;
}

/* cJSON's utf16_literal_to_utf8: the length of input used, 0 to fail */
static unsigned fast_utf16(const unsigned char *in, const unsigned char *end, unsigned char **out)
{
	unsigned long cp;
	unsigned len, first_mark = 0, used;
	if (end - in < 6)
		return 0;
	unsigned first = fast_hex4(in + 2);
	if (first >= 0xDC00 && first <= 0xDFFF)
		return 0;
	if (first >= 0xD800 && first <= 0xDBFF) {
		const unsigned char *second = in + 6;
		if (end - second < 6 || second[0] != '\\' || second[1] != 'u')
			return 0;
		unsigned low = fast_hex4(second + 2);
		if (low < 0xDC00 || low > 0xDFFF)
			return 0;
		cp = 0x10000 + (((first & 0x3FFul) << 10) | (low & 0x3FF));
		used = 12;
	} else {
		cp = first;
		used = 6;
	}
	if (cp < 0x80) {
		len = 1;
	} else if (cp < 0x800) {
		len = 2;
		first_mark = 0xC0;
	} else if (cp < 0x10000) {
		len = 3;
		first_mark = 0xE0;
	} else if (cp <= 0x10FFFF) {
		len = 4;
		first_mark = 0xF0;
	} else {
		return 0;
	}
	for (unsigned k = len - 1; k > 0; k--) {
		(*out)[k] = (unsigned char)((cp | 0x80) & 0xBF);
		cp >>= 6;
	}
	(*out)[0] = len > 1 ? (unsigned char)((cp | first_mark) & 0xFF) : (unsigned char)(cp & 0x7F);
	*out += len;
	return used;
}

/* The end of a string that holds a backslash, as cJSON finds it (each
 * backslash takes the byte after it): the first '"' after an even run of
 * backslashes, from q (the first '"' after start); NULL when unterminated
 * (or a backslash last). */
static const unsigned char *string_end(const unsigned char *start, const unsigned char *end, const unsigned char *q)
{
	for (;;) {
		size_t run = 0;
		while (q - run > start && q[-1 - (ptrdiff_t)run] == '\\')
			run++;
		if (!(run & 1))
			return q;
		q = memchr(q + 1, '"', (size_t)(end - q - 1));
		if (!q)
			return NULL;
	}
}

/* The first '"' or backslash in [s, end), or NULL: one pass, not a
 * memchr for each (most strings are short names). */
static inline const unsigned char *quote_or_backslash(const unsigned char *s, const unsigned char *end)
{
#if defined(__SSE2__)
	const __m128i qu = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
	for (; end - s >= 16; s += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)s);
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, qu), _mm_cmpeq_epi8(x, bs)));
		if (m)
			return s + __builtin_ctz(m);
	}
#endif
	for (; s < end; s++)
		if (*s == '"' || *s == '\\')
			return s;
	return NULL;
}

/* A string at p->off ('"'): where it ends (*q: its closing '"', as cJSON
 * finds it) and its first backslash (*bs, NULL when none); 0 when
 * unterminated. */
static inline int string_span(const struct fastp *p, const unsigned char **q, const unsigned char **bs)
{
	const unsigned char *start = p->s + p->off + 1, *end = p->s + p->len;
	const unsigned char *c = quote_or_backslash(start, end);
	if (!c)
		return 0;
	if (*c == '"') {
		*q = c;
		*bs = NULL;
		return 1;
	}
	*bs = c;
	c = memchr(c, '"', (size_t)(end - c));
	if (!c)
		return 0;
	*q = string_end(start, end, c);
	return *q != NULL;
}

/* The escape path of fast_string: the bytes of start..q decoded into the
 * arena, or NULL where cJSON refuses an escape. */
static __attribute__((noinline)) unsigned char *fast_unescape(struct fastp *p, const unsigned char *start,
                                                             const unsigned char *q)
{
	unsigned char *o = fast_alloc(p, (size_t)(q - start) + 1, 1); /* at most the input's length */
	unsigned char *w = o;
	const unsigned char *r = start;
	while (r < q) {
		if (*r != '\\') {
			/* the bytes up to the next escape at once */
			const unsigned char *nb = memchr(r, '\\', (size_t)(q - r));
			size_t k = (size_t)((nb ? nb : q) - r);
			memcpy(w, r, k);
			w += k;
			r += k;
			continue;
		}
		unsigned n = 2;
		switch (r[1]) {
		case 'b': *w++ = '\b'; break;
		case 'f': *w++ = '\f'; break;
		case 'n': *w++ = '\n'; break;
		case 'r': *w++ = '\r'; break;
		case 't': *w++ = '\t'; break;
		case '"':
		case '\\':
		case '/': *w++ = r[1]; break;
		case 'u':
			n = fast_utf16(r, q, &w);
			if (!n)
				return NULL;
			break;
		default:
			return NULL;
		}
		r += n;
	}
	*w = 0;
	return o;
}

/* A string at p->off ('"'): a member's name into it->string (key), else
 * a string value.  Inline, the escapes apart: a call a string was a
 * tenth of the parse. */
static inline __attribute__((always_inline)) int fast_string(struct fastp *p, cJSON *it, int key)
{
	if (p->off >= p->len || p->s[p->off] != '"')
		return 0;
	const unsigned char *start = p->s + p->off + 1, *q, *bs;
	if (!string_span(p, &q, &bs))
		return 0;
	unsigned char *o;
	size_t n = (size_t)(q - start);
	if (!bs) {
		/* no escape: the bytes as they are */
		o = fast_alloc(p, n + 1, 1);
		memcpy(o, start, n);
		o[n] = 0;
	} else {
		o = fast_unescape(p, start, q);
		if (!o)
			return 0;
	}
	if (key) {
		it->string = (char *)o;
	} else {
		it->type = cJSON_String;
		it->valuestring = (char *)o;
	}
	p->off = (size_t)(q - p->s) + 1;
	return 1;
}

/* Debian's cJSON 1.7.15 (the fix of CVE-2023-26819) hands strtod every
 * byte of the run, however long; upstream 1.7.15 cut it at 63. */
static int fast_number(struct fastp *p, cJSON *it)
{
	unsigned char small[64], *num = small;
	size_t n = 0;
	while (p->off + n < p->len) {
		unsigned char ch = p->s[p->off + n];
		if (!((ch >= '0' && ch <= '9') || ch == '+' || ch == '-' || ch == 'e' || ch == 'E' || ch == '.'))
			break;
		n++;
	}
	/* the common number, -?D+(.D+)? in at most 15 digits: the integer of
	 * its digits (exact, < 2^53) over a power of ten (exact up to 1e22),
	 * one rounding, so the double strtod's correct rounding gives; strtod
	 * takes the whole run then (the pattern files' ~500 confidences were a
	 * twentieth of the parse in strtod) */
	{
		size_t i = p->s[p->off] == '-', digits = 0, frac = 0;
		int point = 0;
		uint64_t m = 0;
		for (; i < n; i++) {
			unsigned char ch = p->s[p->off + i];
			if (ch >= '0' && ch <= '9') {
				m = m * 10 + (ch - '0');
				digits++;
				frac += point;
			} else if (ch == '.' && !point && digits) {
				point = 1;
			} else {
				break;
			}
		}
		if (i == n && digits && digits <= 15 && (!point || frac)) {
			static const double P10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
			                             1e12, 1e13, 1e14, 1e15};
			double d = (double)m / P10[frac];
			if (p->s[p->off] == '-')
				d = -d;
			it->valuedouble = d;
			if (d >= INT_MAX)
				it->valueint = INT_MAX;
			else if (d <= (double)INT_MIN)
				it->valueint = INT_MIN;
			else
				it->valueint = (int)d;
			it->type = cJSON_Number;
			p->off += n;
			return 1;
		}
	}
	if (n >= sizeof small)
		num = xmalloc(n + 1);
	for (size_t i = 0; i < n; i++)
		num[i] = p->s[p->off + i] == '.' ? p->point : p->s[p->off + i];
	num[n] = 0;
	char *after = NULL;
	double d = strtod((const char *)num, &after);
	size_t used = (size_t)(after - (char *)num);
	if (num != small)
		free(num);
	if (!used)
		return 0;
	it->valuedouble = d;
	if (d >= INT_MAX)
		it->valueint = INT_MAX;
	else if (d <= (double)INT_MIN)
		it->valueint = INT_MIN;
	else
		it->valueint = (int)d;
	it->type = cJSON_Number;
	p->off += used;
	return 1;
}

static inline int fast_value(struct fastp *p, cJSON *it);

/* An array or an object at p->off: its elements, or members (a name, ':'
 * and a value each), linked as cJSON links them (the first's prev is the
 * last). */
static int fast_container(struct fastp *p, cJSON *it, int object)
{
	const unsigned char close = object ? '}' : ']';
	cJSON *head = NULL, *cur = NULL;
	if (p->depth >= FAST_NESTING)
		return 0;
	p->depth++;
	p->off++;
	fast_ws(p);
	if (p->off >= p->len)
		return 0;
	if (p->s[p->off] != close) {
		for (;;) {
			cJSON *n = fast_node(p);
			if (!head) {
				head = cur = n;
			} else {
				cur->next = n;
				n->prev = cur;
				cur = n;
			}
			if (object) {
				if (!fast_string(p, cur, 1))
					return 0;
				fast_ws(p);
				if (p->off >= p->len || p->s[p->off] != ':')
					return 0;
				p->off++;
				fast_ws(p);
			}
			if (!fast_value(p, cur))
				return 0;
			fast_ws(p);
			if (p->off >= p->len || p->s[p->off] != ',')
				break;
			p->off++;
			fast_ws(p);
		}
		if (p->off >= p->len || p->s[p->off] != close)
			return 0;
	}
	p->depth--;
	if (head)
		head->prev = cur;
	it->type = object ? cJSON_Object : cJSON_Array;
	it->child = head;
	p->off++;
	return 1;
}

static inline __attribute__((always_inline)) int fast_value(struct fastp *p, cJSON *it)
{
	if (p->off >= p->len)
		return 0;
	const unsigned char *c = p->s + p->off;
	size_t n = p->len - p->off;
	switch (*c) {
	case 'n':
		if (n < 4 || memcmp(c, "null", 4) != 0)
			return 0;
		it->type = cJSON_NULL;
		p->off += 4;
		return 1;
	case 'f':
		if (n < 5 || memcmp(c, "false", 5) != 0)
			return 0;
		it->type = cJSON_False;
		p->off += 5;
		return 1;
	case 't':
		if (n < 4 || memcmp(c, "true", 4) != 0)
			return 0;
		it->type = cJSON_True;
		it->valueint = 1;
		p->off += 4;
		return 1;
	case '"':
		return fast_string(p, it, 0);
	case '[':
		return fast_container(p, it, 0);
	case '{':
		return fast_container(p, it, 1);
	default:
		if (*c == '-' || (*c >= '0' && *c <= '9'))
			return fast_number(p, it);
		return 0;
	}
}

/* The fast parse into a (new when NULL); NULL and a freed where it fails. */
static cJSON *fast_parse(struct json_arena **arena, struct json_arena *a, const char *text, size_t len,
                         const char **end)
{
	*arena = NULL;
	if (!text || !len) {
		json_arena_free(a);
		return NULL;
	}
	const struct lconv *lc = localeconv();
	struct fastp p = {(const unsigned char *)text, len, 0, 0, a ? a : xcalloc(1, sizeof *p.a),
	                  lc && lc->decimal_point ? (unsigned char)lc->decimal_point[0] : '.'};
	/* cJSON skips a byte order mark only in a text of 5 bytes or more */
	if (len > 4 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		p.off = 3;
	fast_ws(&p);
	cJSON *doc = fast_node(&p);
	if (!fast_value(&p, doc)) {
		json_arena_free(p.a);
		return NULL;
	}
	if (end)
		*end = text + p.off;
	*arena = p.a;
	return doc;
}

cJSON *json_parse_fast_only(struct json_arena **arena, const char *text, size_t len, const char **end)
{
	return fast_parse(arena, NULL, text, len, end);
}

cJSON *json_parse_arena_fast(struct json_arena **arena, const char *text, size_t len, const char **end)
{
	struct json_arena *reuse = *arena;
	/* emptied for another tree: one chunk stays (a loader of many files
	 * touches the same pages again, not new ones) */
	if (reuse)
		arena_reset(&reuse->mem, ARENA_CHUNK);
	cJSON *doc = fast_parse(arena, reuse, text, len, end);
	/* a text it refuses: cJSON's verdict, its error and its place */
	return doc ? doc : json_parse_arena(arena, text, len, end);
}

/* ---- json_print_file: cJSON_Print's text, written as it is made ---- */

struct jout {
	FILE *f;
	size_t n;
	int bad; /* a value cJSON_Print would refuse (a raw value without text, a type it does not know) */
	char buf[64 << 10];
};

static void jflush(struct jout *o)
{
	if (o->n)
		fwrite(o->buf, 1, o->n, o->f); /* a write error shows in ferror(): close_output reports it */
	o->n = 0;
}

static inline void jput(struct jout *o, const char *s, size_t n)
{
	if (sizeof o->buf - o->n < n) {
		jflush(o);
		if (n > sizeof o->buf) {
			fwrite(s, 1, n, o->f);
			return;
		}
	}
	memcpy(o->buf + o->n, s, n);
	o->n += n;
}

static inline void jputc(struct jout *o, char c)
{
	if (o->n == sizeof o->buf)
		jflush(o);
	o->buf[o->n++] = c;
}

static void jtabs(struct jout *o, size_t depth)
{
	static const char T[] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";
	for (; depth > 16; depth -= 16)
		jput(o, T, 16);
	jput(o, T, depth);
}

/* cJSON's print_string_ptr: '"' '\\' and the controls escaped (\b \f \n
 * \r \t, the others \u00xx), every other byte as it is; NULL is "". */
static void jstring(struct jout *o, const char *s)
{
	static const char HEX[] = "0123456789abcdef";
	jputc(o, '"');
	if (s) {
		const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
		const uint64_t L = 0x0101010101010101ull, H = 0x8080808080808080ull;
		for (;;) {
			const unsigned char *q = p;
			/* 8 bytes a step while none is below 0x20, '"' or '\\' (each
			 * test is exact for "some byte is"), within the string */
			while (end - q >= 8) {
				uint64_t x, a, b;
				memcpy(&x, q, 8);
				a = x ^ ('"' * L);
				b = x ^ ('\\' * L);
				if (((x - 0x20 * L) & ~x & H) | ((a - L) & ~a & H) | ((b - L) & ~b & H))
					break;
				q += 8;
			}
			while (q < end && *q > 31 && *q != '"' && *q != '\\')
				q++;
			jput(o, (const char *)p, (size_t)(q - p));
			if (q == end)
				break;
			char e[6] = {'\\', 0};
			size_t en = 2;
			switch (*q) {
			case '"': e[1] = '"'; break;
			case '\\': e[1] = '\\'; break;
			case '\b': e[1] = 'b'; break;
			case '\f': e[1] = 'f'; break;
			case '\n': e[1] = 'n'; break;
			case '\r': e[1] = 'r'; break;
			case '\t': e[1] = 't'; break;
			default:
				memcpy(e + 1, "u00", 3);
				e[4] = HEX[*q >> 4];
				e[5] = HEX[*q & 15];
				en = 6;
				break;
			}
			jput(o, e, en);
			p = q + 1;
		}
	}
	jputc(o, '"');
}

/* cJSON 1.7.15's print_number: "null" for NaN and infinities, else
 * "%1.15g" when that reads back as the same number (within DBL_EPSILON
 * of it, as cJSON's compare_double), else "%1.17g".  An integer below
 * 1e15 prints under "%1.15g" as its digits: written so, without printf
 * (nearly every number of a report; -0 keeps printf's "-0"). */
static void jnumber(struct jout *o, double d)
{
	char b[32];
	int len;
	if (isnan(d) || isinf(d)) {
		jput(o, "null", 4);
		return;
	}
	if (d > -1e15 && d < 1e15 && d == (double)(long long)d && !(d == 0 && signbit(d))) {
		long long v = (long long)d;
		unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
		char *e = b + sizeof b, *p = e;
		do
			*--p = (char)('0' + u % 10);
		while ((u /= 10) != 0);
		if (v < 0)
			*--p = '-';
		jput(o, p, (size_t)(e - p));
		return;
	}
	len = snprintf(b, sizeof b, "%1.15g", d);
	double t = strtod(b, NULL); /* what cJSON's sscanf("%lg") reads back */
	double mx = fabs(t) > fabs(d) ? fabs(t) : fabs(d);
	if (!(fabs(t - d) <= mx * DBL_EPSILON))
		len = snprintf(b, sizeof b, "%1.17g", d);
	if (len < 0 || len > 25) { /* cJSON's 26-byte buffer: cannot happen for a double */
		o->bad = 1;
		return;
	}
	jput(o, b, (size_t)len);
}

static void jvalue(struct jout *o, const cJSON *it, size_t depth)
{
	switch (it->type & 0xFF) {
	case cJSON_NULL: jput(o, "null", 4); return;
	case cJSON_False: jput(o, "false", 5); return;
	case cJSON_True: jput(o, "true", 4); return;
	case cJSON_Number: jnumber(o, it->valuedouble); return;
	case cJSON_Raw:
		if (!it->valuestring)
			o->bad = 1;
		else
			jput(o, it->valuestring, strlen(it->valuestring));
		return;
	case cJSON_String: jstring(o, it->valuestring); return;
	case cJSON_Array:
		jputc(o, '[');
		for (const cJSON *c = it->child; c; c = c->next) {
			jvalue(o, c, depth + 1);
			if (c->next)
				jput(o, ", ", 2);
		}
		jputc(o, ']');
		return;
	case cJSON_Object:
		jput(o, "{\n", 2);
		for (const cJSON *c = it->child; c; c = c->next) {
			jtabs(o, depth + 1);
			jstring(o, c->string);
			jput(o, ":\t", 2);
			jvalue(o, c, depth + 1);
			if (c->next)
				jputc(o, ',');
			jputc(o, '\n');
		}
		jtabs(o, depth);
		jputc(o, '}');
		return;
	default:
		o->bad = 1;
		return;
	}
}

int json_print_file(FILE *out, const cJSON *doc)
{
	struct jout *o = xmalloc(sizeof *o);
	o->f = out;
	o->n = 0;
	o->bad = 0;
	if (doc)
		jvalue(o, doc, 0);
	else
		o->bad = 1;
	jflush(o);
	int bad = o->bad;
	free(o);
	return bad ? -1 : 0;
}

void json_path(char *dst, size_t n, const char *a, const char *b, long idx)
{
	size_t k = 0;
	if (!n)
		return;
	while (*a && k + 1 < n)
		dst[k++] = *a++;
	while (*b && k + 1 < n)
		dst[k++] = *b++;
	if (idx >= 0) {
		char num[24];
		int m = 0;
		unsigned long v = (unsigned long)idx;
		do
			num[m++] = (char)('0' + v % 10);
		while ((v /= 10) != 0);
		if (k + 1 < n)
			dst[k++] = '[';
		while (m && k + 1 < n)
			dst[k++] = num[--m];
		if (k + 1 < n)
			dst[k++] = ']';
	}
	dst[k] = 0;
}
