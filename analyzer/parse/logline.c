/* logline.c - see logline.h.  Hand-written (no regex): this runs on every
 * line of every log, so it must be cheap. */
#include "parse/logline.h"

#include <string.h>
#include "parse/linekw.h"

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

/* "2025-02-18 12:54 " / "2025-02-18 12:54:07 " / "2025-02-18 12:54:07,123 ": a
 * collector's date and time with a space, minutes or seconds (the bracketed
 * form is NCCL's own and is left to nccl_prefix). */
static size_t date_space_time(const char *s, size_t n)
{
	if (n < 18 || !is_digit(s[0]) || s[4] != '-' || s[7] != '-' || s[10] != ' ' || !is_digit(s[11]) ||
	    !is_digit(s[12]) || s[13] != ':' || !is_digit(s[14]) || !is_digit(s[15]))
		return 0;
	size_t i = 16;
	while (i < n && (is_digit(s[i]) || s[i] == ':' || s[i] == '.' || s[i] == ','))
		i++;
	if (i < n && s[i] == ' ')
		return i + 1;
	return 0;
}

/* An ANSI colour sequence at s: the escape byte itself, or written out
 * the way a pasted log shows it ("^[[0m" from cat -v / less, "\x1b[0m",
 * "\033[0m", "\u001b[0m", "\e[0m" from JSON or source), or what is left
 * when the escape byte was lost in a copy ("[1;36m").  Returns its length. */
static size_t ansi_seq(const char *s, size_t n)
{
	size_t i;
	if (n >= 3 && s[0] == 0x1b && s[1] == '[')
		i = 2;
	else if (n >= 4 && s[0] == '^' && s[1] == '[' && s[2] == '[')
		i = 3;
	else if (n >= 6 && s[0] == '\\' && s[1] == 'x' && s[2] == '1' && (s[3] == 'b' || s[3] == 'B') && s[4] == '[')
		i = 5;
	else if (n >= 6 && s[0] == '\\' && s[1] == '0' && s[2] == '3' && s[3] == '3' && s[4] == '[')
		i = 5;
	else if (n >= 4 && s[0] == '\\' && s[1] == 'e' && s[2] == '[')
		i = 3;
	else if (n >= 6 && s[0] == '#' && s[1] == '0' && s[2] == '3' && s[3] == '3' && s[4] == '[')
		i = 5; /* rsyslog writes control characters as #ooo */
	else if (n >= 8 && s[0] == '\\' && s[1] == 'u' && memcmp(s + 2, "001b[", 5) == 0)
		i = 7;
	else if (n >= 4 && s[0] == '[' && is_digit(s[1])) {
		/* the escape byte lost: only a full SGR "[1;36m" */
		i = 1;
		while (i < n && i < 12 && (is_digit(s[i]) || s[i] == ';'))
			i++;
		return i < n && s[i] == 'm' ? i + 1 : 0;
	} else
		return 0;
	size_t j = i;
	while (j < n && j - i < 16 && (is_digit(s[j]) || s[j] == ';'))
		j++;
	if (j < n && ((s[j] >= 'A' && s[j] <= 'Z') || (s[j] >= 'a' && s[j] <= 'z')))
		return j + 1;
	return 0;
}

/* journald / syslog "short" output: "Aug 12 01:22:51 host ident[pid]: " or
 * "May 15 08:57:36 red kernel: " (also with microseconds, journalctl -o
 * short-precise).  Returns the bytes up to the message. */
static size_t journald_prefix(const char *s, size_t n)
{
	static const char MONTHS[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	if (n < 20 || s[3] != ' ' || !(s[4] == ' ' || is_digit(s[4])) || !is_digit(s[5]) || s[6] != ' ' ||
	    !is_digit(s[7]) || s[9] != ':' || s[12] != ':')
		return 0;
	int month = 0;
	for (int k = 0; k < 12 && !month; k++)
		month = memcmp(s, MONTHS + 3 * k, 3) == 0;
	if (!month)
		return 0;
	size_t i = 15;
	while (i < n && (is_digit(s[i]) || s[i] == '.'))
		i++;
	if (i >= n || s[i] != ' ')
		return 0;
	i++;
	size_t h = i;
	while (i < n && s[i] != ' ' && i - h < 256)
		i++; /* host */
	if (i == h || i >= n)
		return 0;
	i++;
	size_t id = i;
	while (i < n && s[i] != ' ' && s[i] != ':' && s[i] != '[' && i - id < 128)
		i++; /* ident */
	if (i == id || i >= n)
		return 0;
	if (s[i] == '[') {
		i++;
		while (i < n && is_digit(s[i]))
			i++;
		if (i >= n || s[i] != ']')
			return 0;
		i++;
	}
	if (i + 1 >= n || s[i] != ':' || s[i + 1] != ' ')
		return 0;
	return i + 2;
}

/* Ray and vLLM worker prefixes: "(pid=909608) ", "(RayWorkerWrapper pid=263,
 * ip=10.0.16.95) ", "(VllmWorkerProcess pid=243206) ", "(Worker_TP0
 * pid=4192747) ". */
static size_t ray_prefix(const char *s, size_t n)
{
	if (n < 8 || s[0] != '(')
		return 0;
	const char *close = memchr(s, ')', n < 96 ? n : 96);
	if (!close)
		return 0;
	size_t c = (size_t)(close - s);
	const char *pid = memmem(s, c, "pid=", 4);
	if (!pid || (pid != s + 1 && pid[-1] != ' ') || !is_digit(pid[4]))
		return 0;
	for (size_t i = 1; i < (size_t)(pid - s); i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') || is_digit(s[i]) || s[i] == '_' ||
		      s[i] == ' ' || s[i] == '-' || s[i] == '.'))
			return 0;
	size_t i = c + 1;
	while (i < n && s[i] == ' ')
		i++;
	return i;
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

/* "host:pid:tid [dev] " from *i (the host may be empty: redacted): the
 * host's end in *h1, the numbers; *i after.  Returns 1 when it is one, 0
 * when it is not an NCCL line, -1 when there is no host:pid:tid but the
 * line may still be one without it ("NCCL INFO ...", "file:line NCCL WARN",
 * "file: line NCCL WARN"). */
static inline int host_pid_tid(const char *s, size_t n, size_t *ip, size_t *h1, long *pid, long *tid, int *dev)
{
	size_t i = *ip, h0 = i;
	/* host: up to the first ':' with no whitespace */
	size_t hend = n - h0 > 256 ? h0 + 256 : n;
	while (i < hend && !HOST_STOP[(unsigned char)s[i]])
		i++;
	if (i >= n || s[i] != ':')
		return i - h0 == 4 && memcmp(s + h0, "NCCL", 4) == 0 ? -1 : 0;
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

/* Try NCCL's prefix at s.  Fills out and returns 1 on success.  Besides
 * "[ts] host:pid:tid [dev] LEVEL", the forms people paste: the host
 * redacted to nothing (":41367:41367 [1] ..."), and no host:pid:tid at all
 * (hostless_line). */
static int nccl_prefix(const char *s, size_t n, struct logline *out)
{
	size_t i = 0;
	struct span ts = {NULL, 0};
	int lead_dev = -1;
	if (!lead_bracket(s, n, &ts, &lead_dev, &i))
		return 0;
	if (lead_dev < 0 && memo_hit(s, n, i, &ts, out))
		return 1;
	size_t h0 = i, h1 = i;
	long pid = -1, tid = -1;
	int dev = -1;
	int hpt = host_pid_tid(s, n, &i, &h1, &pid, &tid, &dev);
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
	if (lead_dev >= 0 && out->rank < 0)
		out->rank = lead_dev; /* "[1] node2:22555:22555 [0] NCCL INFO": a launcher's rank */
	return 1;
}

/* The bytes a wrapper can start with (the loop in logline_parse): most lines
 * start with a host name or a message and skip the loop on one lookup. */
#define WS_DIGITS ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1
#define WS_MONTHS ['A'] = 1, ['D'] = 1, ['F'] = 1, ['J'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['S'] = 1
static const unsigned char WRAP_START[256] = {[0x1b] = 1, ['^'] = 1, ['\\'] = 1, ['#'] = 1, ['['] = 1, ['('] = 1,
                                              WS_DIGITS, WS_MONTHS};

void logline_parse(const char *line, size_t len, struct logline *out)
{
	/* every field by name, not memset: a memset of the struct (rep stos,
	 * which a zero-filled copy also becomes) was half of this function's
	 * time.  A new field of struct logline is set here too. */
	out->level = LINE_PLAIN;
	out->msg = out->ts = out->host = out->file = out->func = (struct span){NULL, 0};
	out->pid = out->tid = -1;
	out->dev = out->rank = -1;
	out->srcline = -1;
	out->kw = 0;
	out->kw_known = 0;
	out->lk = (struct linekind){0, 0, 0, 0, 0};
	out->lk_known = 0;

	const char *s = line;
	size_t n = len;
	/* strip trailing CR (CRLF files), also as cat -v shows it ("^M") */
	while (n > 0 && (s[n - 1] == '\r'))
		n--;
	if (n >= 2 && s[n - 1] == 'M' && s[n - 2] == '^')
		n -= 2;
	size_t k = iso_timestamp(s, n);
	if (k) {
		out->ts.p = s;
		out->ts.n = k - 1;
		s += k;
		n -= k;
	}
	/* wrappers, in any order and stacked: colour codes, a collector's
	 * date, journald's "Aug 12 01:22:51 host ident[pid]: ", Ray's
	 * "(RayWorkerWrapper pid=263, ip=...) ", launcher prefixes
	 * ("[rank0]:[rank0]: ...", "[1,0]<stdout>:", "3: ") */
	for (int guard = 0; guard < 8 && n > 0 && WRAP_START[(unsigned char)s[0]]; guard++) {
		unsigned char c0 = (unsigned char)s[0];
		size_t c = 0;
		int r = -1;
		if (c0 == 0x1b || c0 == '^' || c0 == '\\' || c0 == '#' || (c0 == '[' && n > 2 && is_digit(s[1]))) {
			c = ansi_seq(s, n);
			while (c && c < n && s[c] == ' ')
				c++;
		}
		if (!c && is_digit(c0) && !out->ts.n) {
			c = date_space_time(s, n);
			if (c) {
				out->ts.p = s;
				out->ts.n = c - 1;
			}
		}
		if (!c && c0 >= 'A' && c0 <= 'S' && !out->ts.n) {
			c = journald_prefix(s, n);
			if (c) {
				out->ts.p = s;
				out->ts.n = 15;
			}
		}
		if (!c && c0 == '(')
			c = ray_prefix(s, n);
		if (!c && (c0 == '[' || is_digit(c0))) {
			c = launcher_prefix(s, n, &r);
			if (c)
				out->rank = r;
		}
		if (!c)
			break;
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
	return ll->kw_known ? ll->kw : linekw_scan(ll->msg.p, ll->msg.n);
}
