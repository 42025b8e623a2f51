/* logline.c - see logline.h.  Hand-written (no regex): this runs on every
 * line of every log, so it must be cheap. */
#include "logline.h"

#include <string.h>
#include "linekw.h"

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

/* "2024-05-01T12:00:00.123456Z " or "2024-05-01T12:00:00+02:00 " (container
 * runtimes and log collectors put this in front of everything). */
static size_t iso_timestamp(const char *s, size_t n)
{
	if (n < 20 || !is_digit(s[0]) || s[4] != '-' || s[7] != '-' || s[10] != 'T')
		return 0;
	size_t i = 11;
	while (i < n && (is_digit(s[i]) || s[i] == ':' || s[i] == '.' || s[i] == 'Z' ||
	                 s[i] == '+' || s[i] == '-'))
		i++;
	if (i < n && s[i] == ' ')
		return i + 1;
	return 0;
}

/* Launcher prefixes: "[rank3]:", "[rank3] ", "[default0]:", "[1,0]<stderr>:",
 * "3: " (srun -l).  Returns bytes consumed, sets *rank. */
static size_t launcher_prefix(const char *s, size_t n, int *rank)
{
	if (n >= 3 && s[0] == '[') {
		size_t i = 1;
		while (i < n && i < 24 && ((s[i] >= 'a' && s[i] <= 'z') || s[i] == '_'))
			i++;
		size_t name_end = i;
		long r = digits(s, n, &i);
		if (r >= 0 && i < n && s[i] == ']' && name_end > 1) {
			i++;
			if (i < n && s[i] == ':')
				i++;
			else if (!(i < n && s[i] == ' '))
				return 0;
			while (i < n && s[i] == ' ')
				i++;
			*rank = (int)r;
			return i;
		}
		/* mpirun --tag-output: [jobid,rank]<stdout>: */
		i = 1;
		if (digits(s, n, &i) >= 0 && i < n && s[i] == ',') {
			i++;
			long rr = digits(s, n, &i);
			if (rr >= 0 && i < n && s[i] == ']' && i + 1 < n && s[i + 1] == '<') {
				const char *gt = memchr(s + i, '>', n - i);
				if (gt && (size_t)(gt - s) + 1 < n && gt[1] == ':') {
					*rank = (int)rr;
					size_t k = (size_t)(gt - s) + 2;
					while (k < n && s[k] == ' ')
						k++;
					return k;
				}
			}
		}
		return 0;
	}
	/* srun -l: "12: " */
	size_t i = 0;
	long r = digits(s, n, &i);
	if (r >= 0 && i <= 5 && i + 1 < n && s[i] == ':' && s[i + 1] == ' ') {
		*rank = (int)r;
		return i + 2;
	}
	return 0;
}

/* The bytes that end a host name: ':', or whitespace (then it is not one). */
static const unsigned char HOST_STOP[256] = {[':'] = 1, [' '] = 1, ['\t'] = 1};

/* Consecutive lines mostly come from one thread of one process: the last
 * INFO/CALL line's "host:pid:tid [dev] NCCL INFO " is remembered, with its
 * parse, per thread.  The parse of those bytes depends on nothing else, so
 * a line that starts with the same bytes gets the same fields at once. */
struct prefix_memo {
	char bytes[120];
	size_t len;          /* 0: nothing remembered */
	size_t hostlen;
	long pid, tid;
	int dev;
	enum line_level level;
};
static _Thread_local struct prefix_memo memo;

/* Try NCCL's prefix at s.  Fills out and returns 1 on success. */
/* "[collector timestamp] " at the start: its span, and *i after it; 0 when
 * the bracket is not one. */
static inline int collector_ts(const char *s, size_t n, struct span *ts, size_t *i)
{
	if (n == 0 || s[0] != '[')
		return 1;
	const char *close = memchr(s, ']', n < 64 ? n : 64);
	if (!close || (size_t)(close - s) + 1 >= n || close[1] != ' ')
		return 0;
	ts->p = s + 1;
	ts->n = (size_t)(close - s) - 1;
	*i = (size_t)(close - s) + 2;
	return 1;
}

/* The line repeats the previous NCCL prefix (memo): filled from it. */
static inline int memo_hit(const char *s, size_t n, size_t i, const struct span *ts, struct logline *out)
{
	if (!memo.len || n - i < memo.len || memcmp(s + i, memo.bytes, memo.len) != 0)
		return 0;
	out->level = memo.level;
	out->msg.p = s + i + memo.len;
	out->msg.n = n - i - memo.len;
	out->ts = *ts;
	out->host.p = s + i;
	out->host.n = memo.hostlen;
	out->pid = memo.pid;
	out->tid = memo.tid;
	out->dev = memo.dev;
	out->file = out->func = (struct span){NULL, 0};
	out->srcline = -1;
	return 1;
}

/* "host:pid:tid [dev] " from *i: the host's end in *h1, the numbers; *i after. */
static inline int host_pid_tid(const char *s, size_t n, size_t *ip, size_t *h1, long *pid, long *tid, int *dev)
{
	size_t i = *ip, h0 = i;
	/* host: up to the first ':' with no whitespace */
	size_t hend = n - h0 > 256 ? h0 + 256 : n;
	while (i < hend && !HOST_STOP[(unsigned char)s[i]])
		i++;
	if (i == h0 || i >= n || s[i] != ':')
		return 0;
	*h1 = i++;
	*pid = digits(s, n, &i);
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

/* After the prefix of a WARN or TRACE line: "[ms ]file:line[ (func)] NCCL
 * WARN|TRACE "; the level, where the message starts, file, line, func. */
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
	if (j >= rn || rest[j] != ':' || j == f0)
		return 0;
	size_t f1 = j++;
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
	} else {
		return 0;
	}
	file->p = rest + f0;
	file->n = f1 - f0;
	*srcline = (int)ln;
	return 1;
}

static int nccl_prefix(const char *s, size_t n, struct logline *out)
{
	size_t i = 0;
	struct span ts = {NULL, 0};
	if (!collector_ts(s, n, &ts, &i))
		return 0;
	if (memo_hit(s, n, i, &ts, out))
		return 1;
	size_t h0 = i, h1;
	long pid, tid;
	int dev;
	if (!host_pid_tid(s, n, &i, &h1, &pid, &tid, &dev))
		return 0;
	const char *rest = s + i;
	size_t rn = n - i;
	enum line_level lvl;
	size_t msg_off;
	struct span file = {NULL, 0}, func = {NULL, 0};
	int srcline = -1;
	if (has_prefix(rest, rn, "NCCL INFO ")) {
		lvl = LINE_INFO;
		msg_off = 10;
	} else if (has_prefix(rest, rn, "NCCL CALL ")) {
		lvl = LINE_CALL;
		msg_off = 10;
	} else if (!source_and_level(rest, rn, &lvl, &msg_off, &file, &func, &srcline)) {
		return 0;
	}
	if ((lvl == LINE_INFO || lvl == LINE_CALL) && i + msg_off - h0 <= sizeof memo.bytes) {
		memo.len = i + msg_off - h0;
		memcpy(memo.bytes, s + h0, memo.len);
		memo.hostlen = h1 - h0;
		memo.pid = pid;
		memo.tid = tid;
		memo.dev = dev;
		memo.level = lvl;
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
	return 1;
}

void logline_parse(const char *line, size_t len, struct logline *out)
{
	memset(out, 0, sizeof *out);
	out->pid = out->tid = -1;
	out->dev = out->rank = -1;
	out->srcline = -1;
	out->level = LINE_PLAIN;

	const char *s = line;
	size_t n = len;
	/* strip trailing CR (CRLF files) */
	while (n > 0 && (s[n - 1] == '\r'))
		n--;
	size_t k = iso_timestamp(s, n);
	if (k) {
		out->ts.p = s;
		out->ts.n = k - 1;
		s += k;
		n -= k;
	}
	/* launcher prefixes may stack: "[rank0]:[rank0]: ..." */
	for (int guard = 0; guard < 3; guard++) {
		int r = -1;
		size_t c = launcher_prefix(s, n, &r);
		if (!c)
			break;
		out->rank = r;
		s += c;
		n -= c;
	}
	struct span ts_keep = out->ts;
	if (n > 8 && nccl_prefix(s, n, out)) {
		if (out->ts.n == 0)
			out->ts = ts_keep;
		return;
	}
	out->ts = ts_keep;
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
	return ll->kw_known ? ll->kw : linekw_scan(ll->msg.p, ll->msg.n);
}
