/* crash.c - see crash.h.  Only lines that carry a banner keyword (the
 * caller's prefilter) or that follow a banner are looked at. */
#include "parse/crash.h"

#include <string.h>

static int is_digit(char c) { return c >= '0' && c <= '9'; }

static const char *find(const char *p, size_t n, const char *lit)
{
	size_t l = strlen(lit);
	return n >= l ? memmem(p, n, lit, l) : NULL;
}

static int starts(const char *p, size_t n, const char *lit)
{
	size_t l = strlen(lit);
	return n >= l && memcmp(p, lit, l) == 0;
}

static const struct { const char *name, *text; int sig; } SIGNALS[] = {
	{"SIGSEGV", "Segmentation fault", 11}, {"SIGBUS", "Bus error", 7}, {"SIGABRT", "Aborted", 6},
	{"SIGFPE", "Floating point exception", 8}, {"SIGILL", "Illegal instruction", 4}, {"SIGKILL", "Killed", 9},
	{"SIGTERM", "Terminated", 15}, {"SIGTRAP", "Trace/breakpoint trap", 5}, {"SIGSYS", "Bad system call", 31},
};
#define NSIG_NAMES (sizeof SIGNALS / sizeof SIGNALS[0])

const char *crash_signal_name(int sig)
{
	for (size_t i = 0; i < NSIG_NAMES; i++)
		if (SIGNALS[i].sig == sig)
			return SIGNALS[i].name;
	return NULL;
}

/* "SIGBUS" at p: its number, 0 when not a known name */
static int sig_by_name(const char *p, size_t n)
{
	for (size_t i = 0; i < NSIG_NAMES; i++) {
		size_t l = strlen(SIGNALS[i].name);
		if (n >= l && memcmp(p, SIGNALS[i].name, l) == 0 && (n == l || !(p[l] >= 'A' && p[l] <= 'Z')))
			return SIGNALS[i].sig;
	}
	return 0;
}

/* "Bus error" (strsignal's words) at p: its number, 0 when none */
static int sig_by_text(const char *p, size_t n)
{
	for (size_t i = 0; i < NSIG_NAMES; i++)
		if (starts(p, n, SIGNALS[i].text))
			return SIGNALS[i].sig;
	return 0;
}

static int num_at(const char *p, const char *end)
{
	int v = 0, k = 0;
	while (p < end && is_digit(*p) && k < 4)
		v = v * 10 + (*p++ - '0'), k++;
	return k ? v : -1;
}

enum crash_kind crash_banner(const struct span *m, int *sig)
{
	const char *p = m->p, *end = m->p + m->n, *q;
	size_t n = m->n;
	*sig = 0;
	while (n && (*p == ' ' || *p == '\t'))
		p++, n--;
	/* the banners that start the message (their handler's tag is peeled:
	 * peel.h), by the first byte; the few that come mid-line after it */
	switch (n ? *p : 0) {
	case 'C':
		if (starts(p, n, "Caught signal ")) { /* UCX */
			int v = num_at(p + 14, end);
			*sig = v > 0 && v < 65 ? v : 0;
			return CRASH_SIGNAL;
		}
		if (starts(p, n, "Current thread 0x") && find(p, n, "(most recent call first)"))
			return CRASH_FAULTHANDLER;
		if (starts(p, n, "CUDA Exception: "))
			return CRASH_DEBUGGER; /* cuda-gdb */
		break;
	case '*':
		if (starts(p, n, "*** Process received signal ***"))
			return CRASH_SIGNAL; /* Open MPI */
		if (starts(p, n, "*** SIG")) { /* abseil, glog */
			*sig = sig_by_name(p + 4, n - 4);
			return *sig || find(p, n, " received ") ? CRASH_SIGNAL : CRASH_NONE;
		}
		if (starts(p, n, "*** Aborted at "))
			return CRASH_SIGNAL; /* glog's failure handler, the line before "*** SIGSEGV (@0x0) received by PID" */
		if (starts(p, n, "*** Check failure stack trace: ***")) {
			*sig = 6; /* glog's CHECK: the "F0426 ... Check failed: ..." line before it, then abort() */
			return CRASH_SIGNAL;
		}
		break;
	case '=':
		if (starts(p, n, "==== backtrace"))
			return CRASH_SIGNAL; /* UCX's backtrace alone */
		break;
	case 'F':
		if (starts(p, n, "Fatal Python error: ")) {
			*sig = sig_by_text(p + 20, n - 20);
			return CRASH_FAULTHANDLER;
		}
		break;
	case 'T':
		if (starts(p, n, "Thread 0x") && find(p, n, "(most recent call first)"))
			return CRASH_FAULTHANDLER;
		if (starts(p, n, "Thread ") && (find(p, n, " (active") || find(p, n, " (idle)")))
			return CRASH_PYSPY; /* py-spy dump */
		break;
	case 'E':
		if (starts(p, n, "Exception raised from ") && find(p, n, "(most recent call first)"))
			return CRASH_C10;
		break;
	case 't':
		if (starts(p, n, "terminate called after throwing")) {
			*sig = 6; /* std::terminate aborts */
			return CRASH_C10;
		}
		break;
	case '#':
		if (starts(p, n, "#0  0x") && find(p, n, " in "))
			return CRASH_DEBUGGER; /* gdb's "bt" pasted alone: "#0  0x00007f.. in ncclCommAbort () from ..." */
		break;
	case 'S':
	case 'B':
		if (starts(p, n, "Segmentation fault") || starts(p, n, "Bus error")) {
			*sig = p[0] == 'S' ? 11 : 7; /* a shell's job message, "(core dumped)" or not */
			return CRASH_NOTICE;
		}
		break;
	}
	if ((q = find(p, n, "stop reason = signal SIG"))) { /* lldb: "* thread #1, name = 'python', stop reason = signal SIGSTOP" */
		*sig = sig_by_name(q + 21, (size_t)(end - q - 21));
		return CRASH_DEBUGGER;
	}
	if ((q = find(p, n, " received signal SIG"))) { /* gdb: 'Thread 1 "python" received signal SIGBUS' */
		*sig = sig_by_name(q + 17, (size_t)(end - q - 17));
		return CRASH_DEBUGGER;
	}
	/* "bash: line 1: 12 Bus error (core dumped) python x.py", "Aborted (core dumped)";
	 * systemd-coredump's "Process 12 (python3) of user 0 dumped core." */
	if ((q = find(p, n, " (core dumped)"))) {
		size_t lim = (size_t)(q - p);
		for (size_t i = 0; i < NSIG_NAMES && !*sig; i++)
			if (find(p, lim, SIGNALS[i].text))
				*sig = SIGNALS[i].sig;
		return CRASH_NOTICE;
	}
	if (find(p, n, " dumped core."))
		return CRASH_NOTICE;
	return CRASH_NONE;
}

/* The detail lines of crash reports (frame_kind's 2), by how they start;
 * DETAIL_FIRST holds the first byte of each (test_crash checks it). */
#define D(lit) {lit, sizeof lit - 1}
static const struct { const char *s; size_t n; } DETAILS[] = {
	D("Signal: "), D("Signal code: "), D("Failing at address: "), D("Associated errno: "), D("==== backtrace"),
	D("====="), D("*** End of error message ***"), D("what():"), D("Exception raised from "),
	D("Current thread 0x"), D("Thread 0x"), D("Extension modules:"), D("Python v"), D("Stack trace of thread"),
	D("Module "), D("Fatal Python error"), D("*** SIG"), D("Stack (most recent call first)"), D("Thread "),
};
#undef D
static const unsigned char DETAIL_FIRST[256] = {
	['S'] = 1, ['F'] = 1, ['A'] = 1, ['='] = 1, ['*'] = 1, ['w'] = 1, ['E'] = 1, ['C'] = 1, ['T'] = 1, ['P'] = 1, ['M'] = 1,
};

/* A frame of a backtrace (1), a detail line of a crash report (2), or
 * neither (0). */
static int frame_kind(const struct crash *c, const char *p, size_t n)
{
	size_t sp = 0;
	while (sp < n && (p[sp] == ' ' || p[sp] == '\t'))
		sp++;
	const char *s = p + sp;
	size_t k = n - sp;
	if (k == 0)
		return 0;
	if (is_digit(s[0])) { /* UCX " 2 0x0000000000007587d ncclGroupEnd()  ???:0" */
		size_t i = 0;
		while (i < k && is_digit(s[i]))
			i++;
		if (i < k && s[i] == ' ' && i + 2 < k && s[i + 1] == '0' && s[i + 2] == 'x')
			return 1;
	}
	if (s[0] == '[') { /* Open MPI "[ 3] /usr/lib/libnccl.so.2(+0x..)[0x..]" */
		size_t i = 1;
		while (i < k && s[i] == ' ')
			i++;
		size_t d = i;
		while (i < k && is_digit(s[i]))
			i++;
		if (i > d && i + 1 < k && s[i] == ']' && s[i + 1] == ' ')
			return 1;
	}
	if (s[0] == '#' && k > 1 && is_digit(s[1]))
		return 1; /* gdb, systemd-coredump "#0  0x... in ncclFoo () from libnccl.so.2" */
	if (starts(s, k, "frame #") || starts(s, k, "@ ") || starts(s, k, "@\t") || starts(s, k, "PC: @"))
		return 1; /* c10; abseil "    @     0x7f514b634520  (unknown)" */
	if (sp && starts(s, k, "File \""))
		return 1; /* faulthandler '  File "x.py", line 12 in f' */
	if (starts(s, k, "0x") && sp)
		return 1; /* py-spy's native frames */
	if (c->kind == CRASH_PYSPY && sp >= 2 && s[k - 1] == ')' && find(s, k, " ("))
		return 1; /* py-spy "    ncclAllReduce (collectives.cc:49)" */
	/* glibc's backtrace_symbols: "/lib/x86_64-linux-gnu/libc.so.6(+0x42520)[0x7f5c..]" */
	if (s[k - 1] == ']' && find(s, k, "[0x") && (find(s, k, "(+0x") || find(s, k, "+0x")))
		return 1;
	if (!DETAIL_FIRST[(unsigned char)s[0]])
		return 0; /* most lines after a banner: no detail starts so */
	for (size_t i = 0; i < sizeof DETAILS / sizeof DETAILS[0]; i++)
		if (s[0] == DETAILS[i].s[0] && k >= DETAILS[i].n && memcmp(s, DETAILS[i].s, DETAILS[i].n) == 0)
			return 2;
	return 0;
}

/* Whether a frame names NCCL, c10d or CUDA (libnccl, ncclFoo, ProcessGroupNCCL,
 * c10d::, libcuda, cudaFoo, c10::cuda), or NCCL's shared-memory helpers
 * (shmOpen, shmRecvSetup: static functions, named only with symbols). */
static const unsigned char NAME_FIRST[256] = {['n'] = 1, ['N'] = 1, ['c'] = 1, ['C'] = 1, ['l'] = 1, ['s'] = 1, ['S'] = 1};

static int names_in(const char *s, size_t n);

/* A frame names its function near its start and its library at its end
 * (c10's "frame #3: c10d::...::isCompleted() + 0x68 (0x7ff.. in /opt/../libtorch_cuda.so)"):
 * those parts are searched, not the path between. */
static int names_nccl_cuda(const char *s, size_t n)
{
	if (n <= 160)
		return names_in(s, n);
	return names_in(s, 112) || names_in(s + n - 48, 48);
}

static int names_in(const char *s, size_t n)
{
	for (size_t i = 0; i + 3 <= n; i++) {
		while (i + 3 <= n && !NAME_FIRST[(unsigned char)s[i]])
			i++;
		if (i + 3 > n)
			break;
		const char *p = s + i;
		switch (p[0]) {
		case 'n':
		case 'N': /* nccl, NCCL */
			if (i + 4 <= n && (p[1] | 0x20) == 'c' && (p[2] | 0x20) == 'c' && (p[3] | 0x20) == 'l')
				return 1;
			break;
		case 'c':
		case 'C': /* c10d, cuda, CUDA */
			if (i + 4 <= n && ((p[1] == '1' && p[2] == '0' && p[3] == 'd') ||
			                   ((p[1] | 0x20) == 'u' && (p[2] | 0x20) == 'd' && (p[3] | 0x20) == 'a')))
				return 1;
			break;
		case 'l': /* libcu*, libnvidia */
			if (i + 5 <= n && p[1] == 'i' && p[2] == 'b' && ((p[3] == 'c' && p[4] == 'u') || (p[3] == 'n' && p[4] == 'v')))
				return 1;
			break;
		case 's': /* shm */
			if (p[1] == 'h' && p[2] == 'm')
				return 1;
			break;
		case 'S': /* Shm */
			if (p[1] == 'h' && p[2] == 'm')
				return 1;
			break;
		}
	}
	return 0;
}

static void keep_frame(struct crash *c, const char *s, size_t n, uint64_t lineno)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	if (!c->frame_line) {
		size_t l = n < sizeof c->frame - 1 ? n : sizeof c->frame - 1;
		memcpy(c->frame, s, l);
		c->frame[l] = 0;
		c->frame_line = lineno;
	}
	if (c->textn + n + 2 < sizeof c->text) {
		if (c->textn)
			c->text[c->textn++] = '\n';
		memcpy(c->text + c->textn, s, n);
		c->textn += n;
		c->text[c->textn] = 0;
	}
}

static void open_block(struct crash *c, enum crash_kind k, int sig, const struct logline *ll, uint64_t lineno)
{
	memset(c, 0, sizeof *c);
	c->open = 1;
	c->kind = k;
	c->sig = sig;
	c->rank = ll->rank;
	c->line = lineno;
}

void crash_end(struct crash *c, struct crash *done, int *closed)
{
	*closed = c->open;
	if (c->open)
		*done = *c;
	c->open = 0;
}

/* The open block ends: a copy in *done. */
static void close_block(struct crash *c, struct crash *done, int *closed)
{
	*done = *c;
	*closed = 1;
	c->open = 0;
}

enum crash_event crash_line(struct crash *c, const struct logline *ll, uint64_t lineno, int is_banner_kw,
                            struct crash *done, int *closed)
{
	*closed = 0;
	const struct span *m = &ll->msg;
	int sig = 0;
	enum crash_kind k = is_banner_kw ? crash_banner(m, &sig) : CRASH_NONE;
	if (c->open && ll->rank >= 0 && c->rank >= 0 && ll->rank != c->rank)
		return CRASH_EV_NONE; /* another rank's line, interleaved */
	if (c->open && k != CRASH_NONE) {
		/* a banner inside the open block: a detail of it (UCX's backtrace
		 * header after "Caught signal", faulthandler's thread headers, a
		 * c10 exception's origin after terminate), or a new block */
		int same = (c->kind == CRASH_SIGNAL && k == CRASH_SIGNAL && (!c->sig || !sig || c->sig == sig)) ||
		           (c->kind == k && k == CRASH_FAULTHANDLER && !sig) || (c->kind == CRASH_PYSPY && k == CRASH_PYSPY) ||
		           (c->kind == CRASH_C10 && k == CRASH_C10 && !sig) || (c->kind == CRASH_FAULTHANDLER && k == CRASH_C10) ||
		           (c->kind == CRASH_NOTICE && k == CRASH_NOTICE && !sig) ||
		           (c->kind == CRASH_DEBUGGER && k == CRASH_DEBUGGER && !sig); /* gdb's "#0" after its banner */
		if (same) {
			if (!c->sig)
				c->sig = sig;
			c->gap = 0;
			return CRASH_EV_FRAME;
		}
		close_block(c, done, closed);
	}
	if (k != CRASH_NONE) {
		open_block(c, k, sig, ll, lineno);
		return CRASH_EV_BANNER;
	}
	if (!c->open)
		return CRASH_EV_NONE;
	int f = frame_kind(c, m->p, m->n);
	if (!f) {
		if (++c->gap > 2)
			close_block(c, done, closed);
		return CRASH_EV_NONE;
	}
	c->gap = 0;
	if (f == 1) {
		c->frames++;
		/* the innermost frames only (the deeper ones are the interpreter's and
		 * libc's), and none past what the rows can read */
		if (c->frames <= CRASH_FRAMES_READ && c->textn + 2 < sizeof c->text && names_nccl_cuda(m->p, m->n))
			keep_frame(c, m->p, m->n, lineno);
	} else if (!c->sig && starts(m->p, m->n, "Signal: ")) {
		/* Open MPI: "Signal: Bus error (7)" */
		const char *e = m->p + m->n, *o = e;
		while (o > m->p && o[-1] != '(')
			o--;
		int v = num_at(o, e);
		c->sig = v > 0 && v < 65 ? v : sig_by_text(m->p + 8, m->n - 8);
	}
	return CRASH_EV_FRAME;
}
