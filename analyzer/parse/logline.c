/* logline.c - see logline.h.  Hand-written (no regex): this runs on every
 * line of every log, so it must be cheap. */
#include "parse/logline.h"

#include <string.h>
#include "parse/linekw.h"
#include "parse/peel.h"

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Parse a run of digits at s[*i]; returns the value or -1. */
static long digits(const char *s, size_t n, size_t *i)
{
	size_t j = *i;
	size_t end = j >= n ? j : n - j > 18 ? j + 18 : n; /* at most 18 digits: no overflow */
	long v = 0;
	unsigned d;
	while (j < end && (d = (unsigned char)s[j] - (unsigned)'0') < 10) {
		v = v * 10 + (long)d;
		j++;
	}
	if (j == *i)
		return -1;
	*i = j;
	return v;
}

static int has_prefix(const char *s, size_t n, const char *lit)
{
	size_t l = strlen(lit);
	return n >= l && memcmp(s, lit, l) == 0;
}

/* The bytes that end a host name: ':', or whitespace (then it is not one). */
static const unsigned char HOST_STOP[256] = {[':'] = 1, [' '] = 1, ['\t'] = 1};

/* Consecutive lines mostly come from a few threads of a few processes
 * (ranks of one host, interleaved): the last MEMO_SLOTS INFO/CALL lines'
 * "host:pid:tid [dev] NCCL INFO " are remembered, with their parse, per
 * thread.  The parse of those bytes depends on nothing else, so a line that
 * starts with the same bytes gets the same fields at once. */
struct prefix_memo {
	char bytes[120];
	size_t len;          /* 0: nothing remembered */
	size_t hostlen;
	long pid, tid;
	int dev;
	enum line_level level;
};
#define MEMO_SLOTS 4
static _Thread_local struct prefix_memo memo[MEMO_SLOTS];
static _Thread_local struct prefix_memo *memo_last; /* the slot that matched or was filled last: tried first */
static _Thread_local unsigned memo_next;            /* the slot the next miss fills (round robin) */

/* "[collector timestamp] " or "[dev] " at the start: the timestamp's span
 * or the leading number (the device of a line without host:pid:tid, or a
 * launcher's rank in front of a whole NCCL prefix), and *i after it; 0 when
 * the bracket is neither. */
static inline int lead_bracket(const char *s, size_t n, struct span *ts, int *lead_dev, size_t *i)
{
	if (n == 0 || s[0] != '[')
		return 1;
	const char *close = memchr(s, ']', n < 64 ? n : 64);
	if (!close || (size_t)(close - s) + 1 >= n || close[1] != ' ')
		return 0;
	size_t in = (size_t)(close - s) - 1;
	size_t k = 1;
	long dv = in >= 1 && in <= 5 ? digits(s, n, &k) : -1;
	if (dv >= 0 && k == in + 1) {
		*lead_dev = (int)dv;
	} else {
		ts->p = s + 1;
		ts->n = in;
	}
	*i = (size_t)(close - s) + 2;
	return 1;
}

/* The line repeats a remembered NCCL prefix (memo): filled from it. */
static inline int memo_hit(const char *s, size_t n, size_t i, const struct span *ts, struct logline *out)
{
	/* the first byte of the last one before any call: a line of another
	 * kind (or host) differs there; the other slots only after it */
	const struct prefix_memo *m = memo_last;
	if (!m || i >= n || s[i] != m->bytes[0])
		return 0;
	if (n - i < m->len || memcmp(s + i, m->bytes, m->len) != 0) {
		m = NULL;
		for (struct prefix_memo *c = memo; c < memo + MEMO_SLOTS; c++)
			if (c != memo_last && c->len && n - i >= c->len && s[i] == c->bytes[0] &&
			    memcmp(s + i, c->bytes, c->len) == 0) {
				m = memo_last = c;
				break;
			}
		if (!m)
			return 0;
	}
	out->level = m->level;
	out->msg.p = s + i + m->len;
	out->msg.n = n - i - m->len;
	out->ts = *ts;
	out->host.p = s + i;
	out->host.n = m->hostlen;
	out->pid = m->pid;
	out->tid = m->tid;
	out->dev = m->dev;
	out->file = out->func = (struct span){NULL, 0};
	out->srcline = -1;
	return 1;
}

/* "host:pid:tid [dev] " from h0, the host's end (its ':') at *ip already
 * found by nccl_prefix's scan (the host may be empty: redacted): the host's
 * end in *h1, the numbers; *ip after.  Returns 1 when it is one, 0 when it
 * is not an NCCL line, -1 when there is no host:pid:tid but the line may
 * still be one without it ("file:line NCCL WARN", "file: line NCCL WARN"). */
static inline int host_pid_tid(const char *s, size_t n, size_t h0, size_t *ip, size_t *h1, long *pid, long *tid,
                               int *dev)
{
	size_t i = *ip;
	*h1 = i++;
	if (i + 1 < n && s[i] == ' ' && is_digit(s[i + 1]) && *h1 > h0)
		return -1; /* "ibvwrap.c: 106 NCCL WARN msg" */
	*pid = digits(s, n, &i);
	if (*pid >= 0 && i < n && s[i] == ' ' && i > *h1 + 1 && *h1 > h0)
		return -1; /* "file:line NCCL WARN msg" */
	if (*pid < 0 || i >= n || s[i] != ':')
		return 0;
	i++;
	*tid = digits(s, n, &i);
	if (*tid < 0 || i >= n || s[i] != ' ')
		return 0;
	i++;
	*dev = -1;
	if (i < n && s[i] == '[') {
		i++;
		long d = digits(s, n, &i);
		if (d < 0 || i + 1 >= n || s[i] != ']' || s[i + 1] != ' ')
			return 0;
		*dev = (int)d;
		i += 2;
	}
	*ip = i;
	return 1;
}

/* A net plugin that logs through NCCL with __PRETTY_FUNCTION__ where NCCL
 * has __FILE__ (aws-ofi-nccl: a bare name in C, a whole signature in C++,
 * 1.16+): "int nccl_net_ofi_init(ncclDebugLogger_t):123 NCCL WARN ...".
 * At rest + f0, where the file scan stopped at a space: the signature's end
 * in *f1 (the ':' before the line number, which " NCCL " follows).
 * The signature must hold a '(' and end in ')' or ']' ("[with T = int]"). */
static int pretty_function(const char *rest, size_t rn, size_t f0, size_t *f1)
{
	size_t lim = rn - f0 > 512 ? f0 + 512 : rn;
	const char *w = memmem(rest + f0, lim - f0, " NCCL ", 6);
	if (!w)
		return 0;
	size_t e = (size_t)(w - rest), d = e;
	while (d > f0 && is_digit(rest[d - 1]))
		d--;
	if (d == e || d < f0 + 3 || rest[d - 1] != ':' || (rest[d - 2] != ')' && rest[d - 2] != ']'))
		return 0;
	if (!memchr(rest + f0, '(', d - 1 - f0))
		return 0;
	*f1 = d - 1;
	return 1;
}

/* An NCCL source name as __FILE__ prints it: "misc/ibvwrap.cu", "init.cc",
 * "include/socket.h", a plugin's "ibvwrap.c".  The WARN lines of NCCL
 * 2.0-2.2 have no "NCCL" token; only such a name before ":line WARN " makes
 * one of them (a Python "train.py:12 WARN" stays plain). */
static int nccl_source_name(const char *f, size_t n)
{
	return (n > 3 && (memcmp(f + n - 3, ".cu", 3) == 0 || memcmp(f + n - 3, ".cc", 3) == 0)) ||
	       (n > 2 && (memcmp(f + n - 2, ".h", 2) == 0 || memcmp(f + n - 2, ".c", 2) == 0));
}

/* After the prefix of a WARN or TRACE line: "[ms ]file:line[ (func)] NCCL
 * WARN|TRACE "; the level, where the message starts, file, line, func.  A
 * plugin's "signature(args):line" (pretty_function) is the func, no file.
 * Also the older forms: "file:line WARN " (NCCL 2.0-2.2: no "NCCL" token,
 * misc/ibvwrap.cu:60 WARN ...) and a space after the colon, as a plugin's
 * line was pasted ("ibvwrap.c: 106 NCCL WARN ..."). */
static inline int source_and_level(const char *rest, size_t rn, enum line_level *lvl, size_t *msg_off,
                                   struct span *file, struct span *func, int *srcline)
{
	size_t j = 0;
	if (j < rn && (is_digit(rest[j]))) {
		/* TRACE: "%f " elapsed ms first */
		size_t k = j;
		while (k < rn && (is_digit(rest[k]) || rest[k] == '.'))
			k++;
		if (k < rn && rest[k] == ' ')
			j = k + 1;
	}
	size_t f0 = j;
	while (j < rn && rest[j] != ' ' && rest[j] != ':')
		j++;
	size_t pf1;
	int pretty = 0;
	/* a space, or a "::" of a C++ name ("std::string f(...)", "ns::C::f(...)") */
	if (j < rn && j > f0 && (rest[j] == ' ' || (rest[j] == ':' && j + 1 < rn && rest[j + 1] == ':')) &&
	    pretty_function(rest, rn, f0, &pf1)) {
		pretty = 1;
		j = pf1;
	}
	if (j >= rn || rest[j] != ':' || j == f0)
		return 0;
	size_t f1 = j++;
	if (j + 1 < rn && rest[j] == ' ' && is_digit(rest[j + 1]))
		j++; /* "ibvwrap.c: 106" */
	long ln = digits(rest, rn, &j);
	if (ln < 0)
		return 0;
	if (j < rn && rest[j] == ' ' && j + 1 < rn && rest[j + 1] == '(') {
		const char *cp = memchr(rest + j + 2, ')', rn - j - 2);
		if (!cp)
			return 0;
		func->p = rest + j + 2;
		func->n = (size_t)(cp - (rest + j + 2));
		j = (size_t)(cp - rest) + 1;
	}
	if (has_prefix(rest + j, rn - j, " NCCL WARN ")) {
		*lvl = LINE_WARN;
		*msg_off = j + 11;
	} else if (has_prefix(rest + j, rn - j, " NCCL WARN")) {
		*lvl = LINE_WARN;
		*msg_off = j + 10;
	} else if (has_prefix(rest + j, rn - j, " NCCL TRACE ")) {
		*lvl = LINE_TRACE;
		*msg_off = j + 12;
	} else if (has_prefix(rest + j, rn - j, " WARN ") && nccl_source_name(rest + f0, f1 - f0)) {
		*lvl = LINE_WARN; /* NCCL 2.0-2.2 */
		*msg_off = j + 6;
	} else {
		return 0;
	}
	if (pretty) {
		func->p = rest + f0;
		func->n = f1 - f0;
	} else {
		file->p = rest + f0;
		file->n = f1 - f0;
	}
	*srcline = (int)ln;
	return 1;
}

/* The level part of an NCCL line at rest: "NCCL INFO ", "NCCL CALL ", or
 * what source_and_level takes; with bare_info (after "host:pid:tid [dev] "),
 * also NCCL 2.0-2.2's "INFO " without the "NCCL" token.  Returns 1 on
 * success. */
static inline __attribute__((always_inline)) int level_part(const char *rest, size_t rn, int bare_info,
                                                          enum line_level *lvl, size_t *msg_off, struct span *file,
                                                          struct span *func, int *srcline)
{
	if (has_prefix(rest, rn, "NCCL INFO ")) {
		*lvl = LINE_INFO;
		*msg_off = 10;
		return 1;
	}
	if (bare_info && has_prefix(rest, rn, "INFO ")) {
		*lvl = LINE_INFO;
		*msg_off = 5;
		return 1;
	}
	if (has_prefix(rest, rn, "NCCL CALL ")) {
		*lvl = LINE_CALL;
		*msg_off = 10;
		return 1;
	}
	if (has_prefix(rest, rn, "NCCL WARN ")) {
		/* a WARN whose file:line was cut away (excerpts, wrappers): still
		 * a WARN, not a plain line that no failure rule looks at */
		*lvl = LINE_WARN;
		*msg_off = 10;
		return 1;
	}
	return source_and_level(rest, rn, lvl, msg_off, file, func, srcline);
}

/* An NCCL line without host:pid:tid at s + h0, as people paste them:
 * "[3] include/shm.h:28 NCCL WARN ...", "misc/ibvwrap.cc:278 NCCL WARN ...",
 * "[0] NCCL INFO ...": host empty, pid and tid -1. */
static int hostless_line(const char *s, size_t n, size_t h0, const struct span *ts, int lead_dev,
                         struct logline *out)
{
	enum line_level lvl;
	size_t msg_off;
	struct span file = {NULL, 0}, func = {NULL, 0};
	int srcline = -1;
	if (!level_part(s + h0, n - h0, 0, &lvl, &msg_off, &file, &func, &srcline))
		return 0;
	out->level = lvl;
	out->msg.p = s + h0 + msg_off;
	out->msg.n = n - h0 - msg_off;
	out->ts = *ts;
	out->host.p = s + h0;
	out->host.n = 0;
	out->pid = out->tid = -1;
	out->dev = lead_dev;
	out->file = file;
	out->srcline = srcline;
	out->func = func;
	return 1;
}

/* nccl_prefix after the host's scan: h0 the host's start, i its ':'. */
static __attribute__((noinline)) int nccl_after_host(const char *s, size_t n, size_t h0, size_t i,
                                                    const struct span *tsp, int lead_dev, struct logline *out)
{
	struct span ts = *tsp;
	size_t h1 = i;
	long pid = -1, tid = -1;
	int dev = -1;
	int hpt = host_pid_tid(s, n, h0, &i, &h1, &pid, &tid, &dev);
	if (hpt < 0)
		return hostless_line(s, n, h0, &ts, lead_dev, out);
	if (hpt == 0)
		return 0;
	const char *rest = s + i;
	size_t rn = n - i;
	enum line_level lvl;
	size_t msg_off;
	struct span file = {NULL, 0}, func = {NULL, 0};
	int srcline = -1;
	if (!level_part(rest, rn, dev >= 0, &lvl, &msg_off, &file, &func, &srcline))
		return 0;
	if ((lvl == LINE_INFO || lvl == LINE_CALL) && i + msg_off - h0 <= sizeof memo[0].bytes) {
		struct prefix_memo *m = memo_last = &memo[memo_next];
		memo_next = (memo_next + 1) % MEMO_SLOTS;
		m->len = i + msg_off - h0;
		memcpy(m->bytes, s + h0, m->len);
		m->hostlen = h1 - h0;
		m->pid = pid;
		m->tid = tid;
		m->dev = dev;
		m->level = lvl;
	}
	out->level = lvl;
	out->msg.p = rest + msg_off;
	out->msg.n = rn - msg_off;
	out->ts = ts;
	out->host.p = s + h0;
	out->host.n = h1 - h0;
	out->pid = pid;
	out->tid = tid;
	out->dev = dev;
	out->file = file;
	out->srcline = srcline;
	out->func = func;
	if (lead_dev >= 0 && out->rank < 0)
		out->rank = lead_dev; /* "[1] node2:22555:22555 [0] NCCL INFO": a launcher's rank */
	return 1;
}

/* Try NCCL's prefix at s.  Fills out and returns 1 on success.  Besides
 * "[ts] host:pid:tid [dev] LEVEL", the forms people paste: the host
 * redacted to nothing (":41367:41367 [1] ..."), and no host:pid:tid at all
 * (hostless_line).  Inlined up to the host's scan: most lines that are not
 * NCCL's end there (a first word not ended by ':'), without a call. */
static inline __attribute__((always_inline)) int nccl_prefix(const char *s, size_t n, struct logline *out)
{
	size_t i = 0;
	struct span ts = {NULL, 0};
	int lead_dev = -1;
	if (!lead_bracket(s, n, &ts, &lead_dev, &i))
		return 0;
	if (lead_dev < 0 && memo_hit(s, n, i, &ts, out))
		return 1;
	/* host: up to the first ':' with no whitespace */
	size_t h0 = i, hend = n - h0 > 256 ? h0 + 256 : n;
	while (i < hend && !HOST_STOP[(unsigned char)s[i]])
		i++;
	if (i >= n || s[i] != ':') /* no host:pid:tid; "NCCL INFO ..." without one */
		return i - h0 == 4 && memcmp(s + h0, "NCCL", 4) == 0 ? hostless_line(s, n, h0, &ts, lead_dev, out) : 0;
	/* the pid (or a hostless "file: line") starts right after the ':':
	 * "RuntimeError: ...", "INFO:root:..." end here, without the call */
	if (i + 1 >= n || !(is_digit(s[i + 1]) || (s[i + 1] == ' ' && i + 2 < n && is_digit(s[i + 2]))))
		return 0;
	return nccl_after_host(s, n, h0, i, &ts, lead_dev, out);
}

static void *(*volatile logline_zero)(void *, int, size_t) = memset;

void logline_parse(const char *line, size_t len, struct logline *out)
{
	/* libc's memset (vector stores), not the inlined one: for a struct of
	 * this size GCC inlines "rep stos", whose start-up was half of this
	 * function's time; a call through a volatile pointer keeps it a call */
	logline_zero(out, 0, sizeof *out);
	out->pid = out->tid = out->wpid = -1;
	out->dev = out->rank = -1;
	out->srcline = -1;
	out->level = LINE_PLAIN;

	const char *s = line;
	size_t n = len;
	/* strip trailing CR (CRLF files), also as cat -v shows it ("^M") */
	while (n > 0 && (s[n - 1] == '\r'))
		n--;
	if (n >= 2 && s[n - 1] == 'M' && s[n - 2] == '^')
		n -= 2;
	if (n == 0) { /* an empty line: no prefix (peel_prefixes would leave every field as set above) */
		out->msg.p = s;
		return;
	}
	/* A line that starts with a letter is, on the hot path, NCCL's own
	 * "host:pid:tid ..." (no outer prefix can be one): its prefix first,
	 * the outer prefixes only when it is not one. */
	unsigned char c0 = n ? (unsigned char)s[0] : 0;
	int tried = n > 8 && ((c0 >= 'a' && c0 <= 'z') || (c0 >= 'A' && c0 <= 'Z'));
	if (tried && nccl_prefix(s, n, out))
		return;
	/* the outer prefixes, any stack of them (peel.h) */
	struct peel pe;
	size_t k = peel_prefixes(s, n, &pe);
	s += k;
	n -= k + pe.tail;
	if (pe.ts) {
		out->ts.p = pe.ts;
		out->ts.n = pe.tsn;
	}
	out->rank = pe.rank;
	out->wpid = pe.pid;
	if (pe.host) {
		out->whost.p = pe.host;
		out->whost.n = pe.hostn;
	}
	out->logger = pe.severity;
	out->logger_kind = (unsigned char)pe.logger;
	out->head = pe.head;
	out->families = pe.families;
	struct span ts_keep = out->ts;
	/* when nothing was peeled, the line as it was: tried already when it
	 * starts with a letter; a blank cannot start a prefix nor a host (the
	 * indent below takes those lines) */
	if (n > 8 && (k || !(tried || s[0] == ' ' || s[0] == '\t')) && nccl_prefix(s, n, out)) {
		if (out->ts.n == 0)
			out->ts = ts_keep;
		return;
	}
	out->ts = ts_keep;
	/* a paste indented as a whole (a Markdown code block): spaces before an
	 * NCCL prefix; the line stays as it is when none follows */
	if (n > 10 && (s[0] == ' ' || s[0] == '\t')) {
		size_t j = 0;
		while (j < n && j < 16 && (s[j] == ' ' || s[j] == '\t'))
			j++;
		if (j < n && s[j] != ' ' && s[j] != '\t' && nccl_prefix(s + j, n - j, out)) {
			if (out->ts.n == 0)
				out->ts = ts_keep;
			return;
		}
		out->ts = ts_keep;
	}
	/* a pasted line number in front of an NCCL line ("451 host:41449:41449
	 * [6] NCCL INFO ..."): only when an NCCL prefix follows it */
	if (n > 10 && is_digit(s[0])) {
		size_t j = 0;
		while (j < n && j < 7 && is_digit(s[j]))
			j++;
		if (j < n && s[j] == ' ' && nccl_prefix(s + j + 1, n - j - 1, out)) {
			if (out->ts.n == 0)
				out->ts = ts_keep;
			return;
		}
		out->ts = ts_keep;
	}
	out->msg.p = s;
	out->msg.n = n;
}

const char *line_level_name(enum line_level l)
{
	switch (l) {
	case LINE_INFO: return "INFO";
	case LINE_WARN: return "WARN";
	case LINE_TRACE: return "TRACE";
	case LINE_CALL: return "CALL";
	default: return "PLAIN";
	}
}

uint64_t logline_keywords(const struct logline *ll)
{
	if (ll->kw_known)
		return ll->kw;
	const char *p = ll->head && ll->head < ll->msg.p ? ll->head : ll->msg.p;
	return linekw_scan(p, (size_t)(ll->msg.p + ll->msg.n - p));
}
