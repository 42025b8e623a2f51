/* util.c - see util.h. */
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <ctype.h>
#include <sched.h>
#include <unistd.h>
#include <sys/stat.h>

/* Out of memory: one line on stderr and exit status 2 (trouble), never
 * abort() and its core file.  _exit, not exit: stdio buffers may hold half a
 * report, which must not be flushed as if it were whole; other threads stop
 * with the process.  The message is formatted on the stack (no allocation). */
static void oom(size_t n)
{
	char msg[128];
	int l = snprintf(msg, sizeof msg, "nccl-triage: out of memory (allocating %zu bytes)\n", n);
	if (l > 0 && write(2, msg, (size_t)l < sizeof msg ? (size_t)l : sizeof msg - 1) < 0)
		l = 0;
	_exit(2);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		n = 0;
	char *p = xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

void buf_init(struct buf *b)
{
	b->data = NULL;
	b->len = b->cap = b->inited = 0;
}

void buf_free(struct buf *b)
{
	free(b->data);
	buf_init(b);
}

/* Bytes after a buffer's text kept initialised: PCRE2's JIT, given a line
 * inside a buffer as its subject (analyze -j1 matches lines in place,
 * where the pipeline copies them into padded batches: pipeline.c), reads
 * up to a vector past the subject's end in aligned loads; never across a
 * page, so never a fault, but valgrind reported the uninitialised bytes.
 * Each byte is zeroed once, when the text first comes within BUF_TAIL of
 * it (b->inited); zeroing what a doubling allocates would touch pages it
 * never uses. */
#define BUF_TAIL 64

/* data[len] = 0 and the BUF_TAIL bytes after it initialised */
static void buf_terminate(struct buf *b)
{
	b->data[b->len] = 0;
	size_t want = b->len + 1 + BUF_TAIL;
	if (want > b->inited) {
		size_t from = b->inited > b->len ? b->inited : b->len;
		memset(b->data + from, 0, want - from);
		b->inited = want;
	}
}

void buf_reserve(struct buf *b, size_t extra)
{
	if (b->len + extra + 1 + BUF_TAIL <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64 + BUF_TAIL;
	while (cap < b->len + extra + 1 + BUF_TAIL)
		cap *= 2;
	b->data = xrealloc(b->data, cap);
	b->cap = cap;
	buf_terminate(b); /* valid even when nothing is added after reserving */
}

void buf_add(struct buf *b, const void *p, size_t n)
{
	buf_reserve(b, n);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	buf_terminate(b);
}

void buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void buf_addc(struct buf *b, char c)
{
	buf_add(b, &c, 1);
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	buf_adds(b, s);
	free(s);
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = 0;
}

char *buf_steal(struct buf *b)
{
	char *p = b->data ? b->data : xstrdup("");
	buf_init(b);
	return p;
}

int buf_read_file(struct buf *b, FILE *f, size_t cap)
{
	enum { CHUNK = 65536 };
	if (b->len >= cap)
		return ferror(f) ? -1 : 0;
	/* what whole chunks up to cap allow (the contract of util.h) */
	size_t budget = cap - b->len > SIZE_MAX - CHUNK ? SIZE_MAX : (cap - b->len + CHUNK - 1) / CHUNK * CHUNK;
	/* a regular file: room for the rest of it at once, read straight into
	 * b (one allocation and one read, not a copy per chunk) */
	struct stat st;
	off_t at;
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (at = ftello(f)) >= 0 && st.st_size > at) {
		size_t rest = (size_t)(st.st_size - at);
		buf_reserve(b, rest < budget ? rest : budget);
	}
	while (budget) {
		size_t room = b->cap > b->len + 1 + BUF_TAIL ? b->cap - b->len - 1 - BUF_TAIL : 0, n, k;
		if (room) {
			n = room < budget ? room : budget;
			k = fread(b->data + b->len, 1, n, f);
			b->len += k;
			buf_terminate(b);
		} else {
			/* full (or never sized): whether there is more, a chunk at a time */
			char tmp[CHUNK];
			n = budget < CHUNK ? budget : CHUNK;
			k = fread(tmp, 1, n, f);
			if (k)
				buf_add(b, tmp, k);
		}
		budget -= k;
		if (k < n)
			break; /* the end, or an error */
	}
	return ferror(f) ? -1 : 0;
}

size_t str_line_copy(char *dst, size_t dn, const char *s, size_t n, int keep_tab)
{
	size_t k = n < dn - 1 ? n : dn - 1;
	memcpy(dst, s, k);
	dst[k] = 0;
	for (size_t i = 0; i < k; i++)
		if ((unsigned char)dst[i] < 0x20 && !(keep_tab && dst[i] == '\t'))
			dst[i] = ' ';
	return k;
}

int fd_write_all(int fd, const char *p, size_t n, long long at)
{
	while (n) {
		ssize_t w = at >= 0 ? pwrite(fd, p, n, (off_t)at) : write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
		if (at >= 0)
			at += w;
	}
	return 0;
}

void strvec_push_owned(struct strvec *sv, char *s)
{
	if (sv->n == sv->cap) {
		sv->cap = sv->cap ? sv->cap * 2 : 8;
		sv->v = xrealloc(sv->v, sv->cap * sizeof *sv->v);
	}
	sv->v[sv->n++] = s;
}

void strvec_push(struct strvec *sv, const char *s)
{
	strvec_push_owned(sv, xstrdup(s));
}

int strvec_contains(const struct strvec *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return 1;
	return 0;
}

void strvec_free(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}

void msgs_add(struct msgs *m, const char *fmt, ...)
{
	if (m->list.n >= MSGS_MAX) {
		m->dropped++;
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	/* one line: fold any newline a caller let through */
	for (char *p = s; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	/* bounded: a message quoting a 1 MiB archive member name keeps its
	 * first MSG_LEN_MAX bytes (cut on a UTF-8 boundary) */
	size_t len = strlen(s);
	if (len > MSG_LEN_MAX) {
		size_t cut = MSG_LEN_MAX - 3;
		while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
			cut--;
		memcpy(s + cut, "...", 4);
	}
	strvec_push_owned(&m->list, s);
}

void msgs_free(struct msgs *m)
{
	strvec_free(&m->list);
	m->dropped = 0;
}

const char *mem_find(const void *hay, size_t n, const char *lit, size_t len, size_t anchor)
{
	const char *h = hay;
	if (len == 0)
		return h;
	if (n < len)
		return NULL;
	if (anchor >= len)
		anchor = 0;
	/* lit[anchor] can only be at [anchor, n - len + anchor] */
	const char *p = h + anchor, *last = h + (n - len) + anchor;
	while (p <= last) {
		p = memchr(p, (unsigned char)lit[anchor], (size_t)(last - p) + 1);
		if (!p)
			return NULL;
		if (memcmp(p - anchor, lit, len) == 0)
			return p - anchor;
		p++;
	}
	return NULL;
}

int str_starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int str_ends(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

/* Length of a valid UTF-8 sequence at p (at most n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t len;
	unsigned min;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) { len = 2; min = 0x80; }
	else if (c >= 0xe0 && c <= 0xef) { len = 3; min = 0x800; }
	else if (c >= 0xf0 && c <= 0xf4) { len = 4; min = 0x10000; }
	else return 0;
	if (n < len)
		return 0;
	unsigned cp = c & (0x3f >> (len - 1));
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* ---- secrets ----------------------------------------------------------- */

/* Every secret name holds KEY, TOKEN, PASS, PWD, SECRET or CREDENTIAL (any
 * case): one light pass rules out nearly every name. */
static int maybe_secret(const char *s, size_t n)
{
	for (size_t j = 0; j + 3 <= n; j++) {
		const char *q = s + j;
		switch (q[0] | 0x20) {
		case 'k': if (((q[1] | 0x20) == 'e') && ((q[2] | 0x20) == 'y')) return 1; break;
		/* the second letter before the call ("RuntimeError", "Traceback": t, c) */
		case 't': if ((q[1] | 0x20) == 'o' && j + 5 <= n && !strncasecmp(q, "token", 5)) return 1; break;
		case 'p':
			if (((q[1] | 0x20) == 'a' && j + 4 <= n && !strncasecmp(q, "pass", 4)) ||
			    ((q[1] | 0x20) == 'w' && !strncasecmp(q, "pwd", 3)))
				return 1;
			break;
		case 's': if ((q[1] | 0x20) == 'e' && j + 6 <= n && !strncasecmp(q, "secret", 6)) return 1; break;
		case 'c': if ((q[1] | 0x20) == 'r' && j + 10 <= n && !strncasecmp(q, "credential", 10)) return 1; break;
		default: break;
		}
	}
	return 0;
}

int str_secret_name(const char *s, size_t n)
{
	if (n < 3 || n > 128 || !(isalpha((unsigned char)s[0]) || s[0] == '_') || !maybe_secret(s, n))
		return 0;
	/* upper-cased once, then memcmp where the first letter fits */
	char u[128];
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!isalnum(c) && c != '_')
			return 0;
		u[i] = (char)(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
	}
	static const char *const anywhere[] = {"PASSWORD", "PASSWD", "SECRET", "PASSPHRASE", "CREDENTIAL", "APIKEY",
	                                       "API_KEY", "PRIVATE_KEY", "ACCESS_KEY", "AUTH_TOKEN"};
	for (size_t j = 0; j + 6 <= n; j++) {
		char c = u[j];
		if (c != 'P' && c != 'S' && c != 'C' && c != 'A')
			continue;
		for (size_t k = 0; k < sizeof anywhere / sizeof *anywhere; k++) {
			size_t l = strlen(anywhere[k]);
			if (anywhere[k][0] == c && j + l <= n && memcmp(u + j, anywhere[k], l) == 0)
				return 1;
		}
	}
	/* the last part: HF_TOKEN, GITHUB_TOKEN, HUGGING_FACE_HUB_TOKEN, *_KEY, *_PASS */
	size_t p = n;
	while (p > 0 && u[p - 1] != '_')
		p--;
	const char *last = u + p;
	size_t ll = n - p;
#define LAST_IS(w) (ll == sizeof w - 1 && memcmp(last, w, sizeof w - 1) == 0)
	if (LAST_IS("TOKEN") || LAST_IS("KEY") || LAST_IS("PASS") || LAST_IS("SECRETS") || LAST_IS("TOKENS"))
		return 1;
	if (LAST_IS("PWD"))
		return p > 0; /* PWD alone is the working folder */
#undef LAST_IS
	/* a name that ends in TOKEN without '_' (HFTOKEN, ACCESSTOKEN), not "tokenizers" */
	return n > 5 && memcmp(u + n - 5, "TOKEN", 5) == 0;
}

/* A token whose shape says what it is, wherever it appears: Hugging Face
 * (hf_...), GitHub (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_), AWS access
 * key ids (AKIA...).  Returns its length. */
static size_t token_shape(const char *s, size_t n)
{
	static const struct {
		const char *pre;
		size_t min; /* characters after the prefix */
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

/* name chars (letters, digits, '_') are 1; the letters that may start one
 * of maybe_secret's words (KEY TOKEN PASS PWD SECRET CREDENTIAL, any case)
 * add the bit of the second letters they need: k and s want e (2), t wants
 * o (4), p wants a or w (8), c wants r (16) */
static const unsigned char NAME_SECRET[256] = {
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1,
	['9'] = 1, ['A'] = 1, ['B'] = 1, ['C'] = 17, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1,
	['I'] = 1, ['J'] = 1, ['K'] = 3, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 9, ['Q'] = 1,
	['R'] = 1, ['S'] = 3, ['T'] = 5, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 17, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1,
	['j'] = 1, ['k'] = 3, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 9, ['q'] = 1, ['r'] = 1,
	['s'] = 3, ['t'] = 5, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1, ['_'] = 1
};

/* the second letters of those words: e (2), o (4), a and w (8), r (16) */
static const unsigned char SECOND_SECRET[256] = {
	['E'] = 2, ['e'] = 2, ['O'] = 4, ['o'] = 4, ['A'] = 8, ['a'] = 8, ['W'] = 8, ['w'] = 8, ['R'] = 16, ['r'] = 16
};

/* The name that ends right before s[i] ('=' or ':'), skipping a closing quote. */
static int secret_before(const char *s, size_t i)
{
	size_t e = i, b;
	if (e > 0 && (s[e - 1] == '"' || s[e - 1] == '\''))
		e--;
	b = e;
	/* walking back, note whether a letter pair that begins one of
	 * maybe_secret's words ("ke" "se" "to" "pa" "pw" "cr", any case) is in
	 * the name: a name with none ("Error", "DistBackendError") is none, as
	 * maybe_secret would say after a walk of its own (exact: each of its
	 * words starts with such a pair, and the whole name is walked here) */
	unsigned pair = 0, next = 0, c;
	while (b > 0 && e - b <= 128 && (c = NAME_SECRET[(unsigned char)s[b - 1]]) != 0) {
		pair |= c & next;
		next = SECOND_SECRET[(unsigned char)s[b - 1]];
		b--;
	}
	return e - b >= 3 && pair && str_secret_name(s + b, e - b);
}

/* A ':' that may end a secret's name: "NAME: value" (a blank after it) or
 * "\"NAME\":" (a quote before it); not host:pid, file:line, eth0:10.0.0.1. */
static inline int colon_form(const char *s, size_t n, size_t i)
{
	return (i + 1 < n && (s[i + 1] == ' ' || s[i + 1] == '\t')) || (i > 0 && (s[i - 1] == '"' || s[i - 1] == '\''));
}

/* Is there anything to mask?  A quick look with memchr for the bytes that
 * may start it (the text of nearly every line has none): the '=' or ':'
 * after a secret name, the '_' of hf_ / gh?_ / github_pat_, the 'K' of AKIA. */
static int mask_needed(const char *s, size_t n)
{
	const char *end = s + n;
	for (const char *p = s; (p = memchr(p, '=', (size_t)(end - p))) != NULL; p++)
		if (secret_before(s, (size_t)(p - s)))
			return 1;
	for (const char *p = s; (p = memchr(p, ':', (size_t)(end - p))) != NULL; p++)
		if (colon_form(s, n, (size_t)(p - s)) && secret_before(s, (size_t)(p - s)))
			return 1;
	for (const char *p = s; (p = memchr(p, '_', (size_t)(end - p))) != NULL; p++) {
		size_t i = (size_t)(p - s);
		if ((i >= 2 && memcmp(p - 2, "hf", 2) == 0) || (i >= 3 && p[-3] == 'g' && p[-2] == 'h') ||
		    (i >= 6 && memcmp(p - 6, "github", 6) == 0))
			return 1;
	}
	/* AKIA: the K (rarer than A), then its neighbours, with no call per K */
	if (n < 4)
		return 0;
	for (const char *p = s + 1, *last = end - 2; p < last && (p = memchr(p, 'K', (size_t)(last - p))) != NULL; p++)
		if (p[-1] == 'A' && p[1] == 'I' && p[2] == 'A')
			return 1;
	return 0;
}

size_t str_mask_secrets(char *s, size_t n)
{
	if (!mask_needed(s, n)) {
		s[n] = 0;
		return n;
	}
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		char c = s[i];
		int boundary = i == 0 || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_');
		size_t t = boundary && (c == 'h' || c == 'g' || c == 'A') ? token_shape(s + i, n - i) : 0;
		if (t) {
			memcpy(s + o, "***", 3); /* never longer than the token */
			o += 3;
			i += t;
			continue;
		}
		s[o++] = c;
		i++;
		if (c != '=' && c != ':')
			continue;
		/* NAME=value, NAME: value, "NAME": "value" */
		if (c == ':' && !((i < n && (s[i] == ' ' || s[i] == '\t')) || (o >= 2 && (s[o - 2] == '"' || s[o - 2] == '\''))))
			continue; /* colon_form, on the output written so far */
		if (!secret_before(s, o - 1))
			continue;
		if (c == '=' && i < n && s[i] == '=')
			continue; /* a comparison (==), not an assignment */
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
			continue; /* empty, or masked already */
		memmove(s + o, s + i, v - i + (q ? 1 : 0)); /* the blanks and the opening quote */
		o += v - i + (q ? 1 : 0);
		size_t m = ve - vs < 3 ? ve - vs : 3; /* never longer than the value: in place */
		memset(s + o, '*', m);
		o += m;
		i = ve;
	}
	s[o] = 0;
	return o;
}

size_t str_plain_run(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	const uint64_t L = 0x0101010101010101ull, H = 0x8080808080808080ull;
	size_t j = 0;
	/* 8 bytes a step while none of them is below 0x20, 0x7f or above */
	while (j + 8 <= n) {
		uint64_t x, y;
		memcpy(&x, p + j, 8);
		y = x ^ (0x7f * L);
		if ((x | ((x - 0x20 * L) & ~x) | ((y - L) & ~y)) & H)
			break;
		j += 8;
	}
	while (j < n && p[j] >= 0x20 && p[j] < 0x7f)
		j++;
	return j;
}

size_t str_printable_run(const char *s, size_t n)
{
	size_t j = str_plain_run(s, n);
	while (j < n && s[j] == '\t')
		j += 1 + str_plain_run(s + j + 1, n - j - 1);
	return j;
}

/* Whether s[i], one of mask_needed's bytes ('=' ':' '_' 'K'), starts
 * something to mask: the test each of mask_needed's passes makes at it
 * (so mask_needed(s, n) is this at some i of s[0..n)). */
static int mask_at(const char *s, size_t n, size_t i)
{
	switch (s[i]) {
	case '=': return secret_before(s, i);
	case ':': return colon_form(s, n, i) && secret_before(s, i);
	case '_':
		return (i >= 2 && s[i - 2] == 'h' && s[i - 1] == 'f') || (i >= 3 && s[i - 3] == 'g' && s[i - 2] == 'h') ||
		       (i >= 6 && memcmp(s + i - 6, "github", 6) == 0);
	case 'K': return i >= 1 && i + 2 < n && s[i - 1] == 'A' && s[i + 1] == 'I' && s[i + 2] == 'A';
	default: return 0;
	}
}

#if !defined(NT_NO_VECTORS) && defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && \
	(defined(__SSE2__) || defined(__ARM_NEON))
typedef signed char s8x16 __attribute__((vector_size(16)));
typedef unsigned char u8x16 __attribute__((vector_size(16)));
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* 16 bytes p[0..16) of s[0..n), from s[at]: 0 when one is a byte that
 * str_printable_run stops at (below 0x20 but the tab, 0x7f and above:
 * as signed bytes, 0x80 and above are below 0x20 too) or one of mask_needed's bytes
 * starts something to mask (mask_at, at its place in s); p may be a
 * padded copy (' ' after the text: neither). */
static inline int keeps16(const char *s, size_t n, size_t at, const char *p)
{
	s8x16 x;
	memcpy(&x, p, 16);
	/* x + 1 > 0x20 (as signed bytes) holds for 0x20..0x7e only: 0x7f + 1 and
	 * 0xff + 1 wrap to 0x80 (-128) and 0, the bytes from 0x80 up stay below 0
	 * (the sum of unsigned bytes: wrapping is defined) */
	s8x16 x1 = (s8x16)((u8x16)x + 1);
	s8x16 good = (x1 > 0x20) | (x == '\t');
	s8x16 mark = (x == '=') | (x == ':') | (x == '_') | (x == 'K');
#ifdef __SSE2__
	/* a bit a byte (pmovmskb): one test for the 16 bytes, and the marked
	 * bytes' offsets straight from their bits */
	if (_mm_movemask_epi8((__m128i)good) != 0xffff)
		return 0;
	for (unsigned m = (unsigned)_mm_movemask_epi8((__m128i)mark); m; m &= m - 1) /* the lowest first */
		if (mask_at(s, n, at + (unsigned)__builtin_ctz(m)))
			return 0;
#else
	uint64_t w[2]; /* byte j of a half is its bits 8j..8j+7 (little-endian) */
	memcpy(w, &good, 16);
	if ((w[0] & w[1]) != ~0ull)
		return 0;
	memcpy(w, &mark, 16);
	for (size_t h = 0; h < 2; h++)
		for (uint64_t m = w[h]; m;) { /* each marked byte (0xff), the lowest first */
			unsigned k = (unsigned)__builtin_ctzll(m);
			m &= ~(0xffull << k);
			if (mask_at(s, n, at + 8 * h + k / 8))
				return 0;
		}
#endif
	return 1;
}
#define KEEPS16 1
#endif

int str_sanitize_keeps(const char *s, size_t n)
{
	/* one pass for both questions (str_printable_run(s, n) == n and
	 * !mask_needed(s, n)), 16 bytes a step where the compiler has vectors:
	 * a step with none of those bytes (nearly all) costs a few vector
	 * operations; at each of mask_needed's bytes, its own test (mask_at) */
	size_t i = 0;
#ifdef KEEPS16
	for (; i + 16 <= n; i += 16)
		if (!keeps16(s, n, i, s + i))
			return 0;
	if (i < n) { /* the last bytes, in a padded copy */
		char pad[16];
		memset(pad, ' ', sizeof pad);
		memcpy(pad, s + i, n - i);
		return keeps16(s, n, i, pad);
	}
#else
	for (; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c < 0x20 && c != '\t') || c >= 0x7f)
			return 0;
		if ((c == '=' || c == ':' || c == '_' || c == 'K') && mask_at(s, n, i))
			return 0;
	}
#endif
	return 1;
}

char *str_sanitize(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = str_printable_run(s, n);
	if (i == n) {
		/* nearly every log line: printable ASCII only, copied as it is */
		char *t = xmalloc(n + 1);
		memcpy(t, s, n);
		str_mask_secrets(t, n); /* terminates it */
		return t;
	}
	struct buf b;
	buf_init(&b);
	buf_reserve(&b, n);
	buf_add(&b, p, i);
	while (i < n) {
		/* copy a run of printable ASCII at once */
		size_t j = i + str_printable_run(s + i, n - i);
		if (j > i) {
			buf_add(&b, p + i, j - i);
			i = j;
			continue;
		}
		unsigned c = p[i];
		if (c < 0x80) {
			buf_addc(&b, '?'); /* control byte or DEL */
			i++;
			continue;
		}
		size_t l = utf8_len(p + i, n - i);
		if (l == 0) {
			buf_adds(&b, "\xef\xbf\xbd");
			i++;
		} else if ((l == 2 && c == 0xc2 && p[i + 1] < 0xa0) ||
		           (l == 3 && c == 0xe2 && ((p[i + 1] == 0x80 && p[i + 2] >= 0xaa && p[i + 2] <= 0xae) ||
		                                    (p[i + 1] == 0x81 && p[i + 2] >= 0xa6 && p[i + 2] <= 0xa9)))) {
			/* C1 controls (U+0080..U+009F: U+009B is CSI on some
			 * terminals) and bidirectional overrides/isolates
			 * (U+202A..U+202E, U+2066..U+2069) that reorder what is shown */
			buf_addc(&b, '?');
			i += l;
		} else {
			buf_add(&b, p + i, l);
			i += l;
		}
	}
	/* every piece of input text that reaches a report passes here:
	 * secret values are masked whatever the options (util.h) */
	if (b.data)
		b.len = str_mask_secrets(b.data, b.len);
	return buf_steal(&b);
}

size_t str_cut_at(const char *s, size_t n, size_t max)
{
	if (n <= max)
		return n;
	size_t cut = max;
	while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
		cut--; /* do not split a UTF-8 sequence */
	return cut;
}

char *str_sanitize_cut(const char *s, size_t n, size_t max)
{
	if (n <= max)
		return str_sanitize(s, n);
	size_t cut = str_cut_at(s, n, max);
	char *t = str_sanitize(s, cut);
	size_t l = strlen(t); /* then "…": a copy, not a printf (1.4 K cut lines a ticket bundle) */
	char *r = xmalloc(l + 4);
	memcpy(r, t, l);
	memcpy(r + l, "\xe2\x80\xa6", 4);
	free(t);
	return r;
}

char *str_utf8_fix(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n = strlen(s);
	/* nearly every string: ASCII only, 8 bytes a step (every string of a
	 * report passes here: report_json_fix_utf8) */
	while (i + 8 <= n) {
		uint64_t x;
		memcpy(&x, p + i, 8);
		if (x & 0x8080808080808080ull)
			break;
		i += 8;
	}
	while (i < n && p[i] < 0x80)
		i++;
	if (i == n)
		return NULL;
	while (i < n) {
		size_t l = p[i] < 0x80 ? 1 : utf8_len(p + i, n - i);
		if (l == 0)
			break;
		i += l;
	}
	if (i == n)
		return NULL;
	struct buf b;
	buf_init(&b);
	buf_add(&b, s, i);
	while (i < n) {
		size_t l = p[i] < 0x80 ? 1 : utf8_len(p + i, n - i);
		if (l == 0) {
			buf_adds(&b, "\xef\xbf\xbd");
			i++;
		} else {
			buf_add(&b, p + i, l);
			i += l;
		}
	}
	return buf_steal(&b);
}

/* How common a byte is in log text (0: rare .. 9: common), from byte counts
 * over the NCCL/PyTorch logs in fixtures/captures; capitals and most
 * punctuation are rare. */
static const unsigned char BYTE_COMMONNESS[256] = {
	[' '] = 9, ['e'] = 9, ['n'] = 9, ['o'] = 9, ['i'] = 9, ['r'] = 9, ['t'] = 9, ['a'] = 9, ['b'] = 7,
	['c'] = 7, ['d'] = 7, ['f'] = 7, ['g'] = 7, ['h'] = 7, ['j'] = 7, ['k'] = 7, ['l'] = 7, ['m'] = 7,
	['p'] = 7, ['q'] = 7, ['s'] = 7, ['u'] = 7, ['v'] = 7, ['w'] = 7, ['x'] = 7, ['y'] = 7, ['z'] = 7,
	['0'] = 7, ['1'] = 7, ['2'] = 7, ['3'] = 7, ['4'] = 7, ['5'] = 7, ['6'] = 7, ['7'] = 7, ['8'] = 7,
	['9'] = 7, ['N'] = 6, ['C'] = 6, ['I'] = 6, ['L'] = 6, ['F'] = 6, ['O'] = 6, ['P'] = 6, [':'] = 6,
	['/'] = 6, ['['] = 6, [']'] = 6, ['.'] = 6, ['-'] = 6, ['>'] = 6
};

const char *mem_find_rare(const void *hay, size_t n, const char *lit, size_t len)
{
	size_t anchor = 0;
	int best = 100;
	for (size_t i = 0; i < len && best; i++) {
		int c = BYTE_COMMONNESS[(unsigned char)lit[i]];
		if (c < best) {
			best = c;
			anchor = i;
		}
	}
	return mem_find(hay, n, lit, len, anchor);
}

const char *fmt_size(uint64_t bytes, char *out, size_t outsz)
{
	static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double v = (double)bytes;
	int u = 0;
	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(out, outsz, "%llu B", (unsigned long long)bytes);
	else
		snprintf(out, outsz, "%.1f %s", v, units[u]);
	return out;
}

int64_t parse_size(const char *s)
{
	if (!s || !*s)
		return -1;
	errno = 0;
	char *end;
	double v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -1;
	int64_t mult = 1;
	switch (tolower((unsigned char)*end)) {
	case 0: break;
	case 'k': mult = 1LL << 10; end++; break;
	case 'm': mult = 1LL << 20; end++; break;
	case 'g': mult = 1LL << 30; end++; break;
	case 't': mult = 1LL << 40; end++; break;
	default: return -1;
	}
	if (*end == 'i' || *end == 'I')
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end)
		return -1;
	double r = v * (double)mult;
	if (r > 9.0e18)
		return -1;
	return (int64_t)r;
}

int online_cpus(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}
