/* peel.c - see peel.h.  Hand-written, fixed offsets only: this runs on
 * every line of every log.  Each recogniser returns the bytes of its
 * prefix (0: not one) and writes what the prefix says into struct peel;
 * peel_prefixes dispatches on the first byte and loops for stacks. */
#include "parse/peel.h"

#include <string.h>

static const char *const FAMILY_NAMES[PF_COUNT] = {
	"ansi", "iso_ts", "date_ts", "syslog", "dmesg", "torchrun", "slurm", "mpi", "mpi_ts",
	"ray", "compose", "c10", "glog", "pylog", "vllm", "sglang", "torchrun_log", "deepspeed",
	"ray_cpp", "hf", "host", "quote", "lineno", "ray_repeat", "crash_tag",
};

const char *peel_family_name(enum peel_family f)
{
	return f < PF_COUNT ? FAMILY_NAMES[f] : "?";
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_upper(char c) { return c >= 'A' && c <= 'Z'; }
static int is_lower(char c) { return c >= 'a' && c <= 'z'; }
static int is_alnum(char c) { return is_digit(c) || is_upper(c) || is_lower(c); }
/* a host, service or file name: letters, digits, '_', '.', '-' */
#define NM10(c) [c] = 1, [c + 1] = 1, [c + 2] = 1, [c + 3] = 1, [c + 4] = 1, [c + 5] = 1, [c + 6] = 1, [c + 7] = 1, \
	[c + 8] = 1, [c + 9] = 1
#define NM13(c) NM10(c), [c + 10] = 1, [c + 11] = 1, [c + 12] = 1
#define NM10D(c) [c] = 2, [c + 1] = 2, [c + 2] = 2, [c + 3] = 2, [c + 4] = 2, [c + 5] = 2, [c + 6] = 2, [c + 7] = 2, \
	[c + 8] = 2, [c + 9] = 2
static const unsigned char NAME[256] = { /* 2: a digit */
	NM10D('0'), NM13('A'), NM13('N'), NM13('a'), NM13('n'), ['_'] = 1, ['.'] = 1, ['-'] = 1,
};
static int is_name(char c) { return NAME[(unsigned char)c] != 0; }

/* a run of digits at s[i] (at most 18: no overflow): the value, -1 when none */
static long digits_at(const char *s, size_t n, size_t *i)
{
	size_t j = *i, end = n - j > 18 ? j + 18 : n;
	long v = 0;
	while (j < end && is_digit(s[j]))
		v = v * 10 + (s[j++] - '0');
	if (j == *i)
		return -1;
	*i = j;
	return v;
}

/* exactly k digits at s[i] */
static int ndig(const char *s, size_t n, size_t i, size_t k)
{
	if (n < i + k)
		return 0;
	for (size_t j = i; j < i + k; j++)
		if (!is_digit(s[j]))
			return 0;
	return 1;
}

/* "HH:MM:SS" at s[i], then an optional fraction after '.' or ','; the
 * offset after it, 0 when none. */
static size_t hms_at(const char *s, size_t n, size_t i)
{
	if (!ndig(s, n, i, 2) || n < i + 8 || s[i + 2] != ':' || !ndig(s, n, i + 3, 2) || s[i + 5] != ':' ||
	    !ndig(s, n, i + 6, 2))
		return 0;
	i += 8;
	if (i + 1 < n && (s[i] == '.' || s[i] == ',') && is_digit(s[i + 1])) {
		i++;
		while (i < n && is_digit(s[i]))
			i++;
	}
	return i;
}

/* "YYYY-MM-DD" + sep + "HH:MM:SS[frac]" at s[0]; the offset after, 0 when none */
static size_t ymd_hms(const char *s, size_t n, char sep)
{
	if (n < 19 || !ndig(s, n, 0, 4) || s[4] != '-' || !ndig(s, n, 5, 2) || s[7] != '-' || !ndig(s, n, 8, 2) ||
	    s[10] != sep)
		return 0;
	return hms_at(s, n, 11);
}

static void set_ts(struct peel *p, const char *t, size_t tn)
{
	if (!p->ts && tn) {
		p->ts = t;
		p->tsn = tn;
	}
}

static void set_head(struct peel *p, const char *h)
{
	if (!p->head)
		p->head = h;
}

/* "DEBUG" "INFO" "WARNING" "ERROR" "CRITICAL" (Python's level names) at s:
 * its length, 0 when none; *sev its letter. */
static size_t level_word(const char *s, size_t n, char *sev)
{
	/* by the first byte (each starts with its own letter, the severity),
	 * then a compare of a known length: no loop, no call */
#define LW(lit) (n >= sizeof lit - 1 && memcmp(s, lit, sizeof lit - 1) == 0 ? (*sev = s[0], sizeof lit - 1) : 0)
	switch (n ? s[0] : 0) {
	case 'I': return LW("INFO");
	case 'W': return LW("WARNING");
	case 'E': return LW("ERROR");
	case 'D': return LW("DEBUG");
	case 'C': return LW("CRITICAL");
	default: return 0;
	}
#undef LW
}

/* ---- terminal ---- */

/* An ANSI colour sequence: the escape byte itself, or written out the way a
 * pasted log shows it ("^[[0m" from cat -v / less, "\x1b[0m", "\033[0m",
 * "\u001b[0m", "\e[0m" from JSON or source, "#033[" from rsyslog), or what is
 * left when the escape byte was lost in a copy ("[1;36m"); spaces after it. */
static size_t ansi(const char *s, size_t n)
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
		i = 5;
	else if (n >= 8 && s[0] == '\\' && s[1] == 'u' && memcmp(s + 2, "001b[", 5) == 0)
		i = 7;
	else if (n >= 4 && s[0] == '[' && is_digit(s[1])) {
		i = 1; /* the escape byte lost: only a full SGR "[1;36m" */
		while (i < n && i < 12 && (is_digit(s[i]) || s[i] == ';'))
			i++;
		if (!(i < n && s[i] == 'm'))
			return 0;
		i++;
		goto spaces;
	} else
		return 0;
	{
		size_t j = i;
		while (j < n && j - i < 16 && (is_digit(s[j]) || s[j] == ';'))
			j++;
		if (!(j < n && (is_upper(s[j]) || is_lower(s[j]))))
			return 0;
		i = j + 1;
	}
spaces:
	while (i < n && s[i] == ' ')
		i++;
	return i;
}

/* ---- collectors ---- */

/* "2024-05-01T12:00:00.123456Z " / "...+02:00 " (docker logs -t, kubectl
 * --timestamps, GitHub Actions), then the CRI log file's "stdout F " /
 * "stderr P " (kubelet's /var/log/pods files). */
static size_t iso_ts(const char *s, size_t n, struct peel *p)
{
	if (n < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || !ndig(s, n, 0, 4))
		return 0;
	size_t i = 11;
	while (i < n && (is_digit(s[i]) || s[i] == ':' || s[i] == '.' || s[i] == 'Z' || s[i] == '+' || s[i] == '-'))
		i++;
	if (i >= n || s[i] != ' ')
		return 0;
	set_ts(p, s, i);
	i++;
	if (n >= i + 9 && (memcmp(s + i, "stdout ", 7) == 0 || memcmp(s + i, "stderr ", 7) == 0) &&
	    (s[i + 7] == 'F' || s[i + 7] == 'P') && s[i + 8] == ' ')
		i += 9;
	return i;
}

/* "2025-02-18 12:54 " / "2025-02-18 12:54:07 " / "2025-02-18 12:54:07,123 ": a
 * collector's date and time with a space (the bracketed form is bracket()'s). */
static size_t date_ts(const char *s, size_t n, struct peel *p)
{
	if (n < 18 || s[4] != '-' || s[7] != '-' || s[10] != ' ' || !ndig(s, n, 0, 4) || !is_digit(s[11]) ||
	    !is_digit(s[12]) || s[13] != ':' || !is_digit(s[14]) || !is_digit(s[15]))
		return 0;
	size_t i = 16;
	while (i < n && (is_digit(s[i]) || s[i] == ':' || s[i] == '.' || s[i] == ','))
		i++;
	if (i >= n || s[i] != ' ')
		return 0;
	set_ts(p, s, i);
	/* "%(asctime)s - %(levelname)s - %(name)s - %(message)s" with the default asctime */
	char sev;
	size_t l;
	if (n > i + 4 && memcmp(s + i, " - ", 3) == 0 && (l = level_word(s + i + 3, n - i - 3, &sev))) {
		size_t k = i + 3 + l;
		if (n > k + 3 && memcmp(s + k, " - ", 3) == 0) {
			size_t nm = k + 3, e = nm;
			while (e < n && e - nm < 128 && s[e] != ' ')
				e++;
			if (e > nm && n >= e + 3 && memcmp(s + e, " - ", 3) == 0) {
				set_head(p, s);
				p->severity = sev;
				p->logger = PL_PYTHON;
				return e + 3;
			}
		}
	}
	return i + 1;
}

static int month_at(const char *s)
{
	static const char MONTHS[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	for (int k = 0; k < 12; k++)
		if (s[0] == MONTHS[3 * k] && s[1] == MONTHS[3 * k + 1] && s[2] == MONTHS[3 * k + 2])
			return 1;
	return 0;
}

/* journald / syslog "short" output: "Aug 12 01:22:51 host ident[pid]: " or
 * "May 15 08:57:36 red kernel: " (also with microseconds, journalctl -o
 * short-precise). */
static size_t syslog_prefix(const char *s, size_t n, struct peel *p)
{
	if (n < 20 || s[3] != ' ' || !(s[4] == ' ' || is_digit(s[4])) || !is_digit(s[5]) || s[6] != ' ' ||
	    !is_digit(s[7]) || s[9] != ':' || s[12] != ':' || !month_at(s))
		return 0;
	size_t i = 15;
	while (i < n && (is_digit(s[i]) || s[i] == '.'))
		i++;
	if (i >= n || s[i] != ' ')
		return 0;
	size_t tsn = i++;
	size_t h = i;
	while (i < n && s[i] != ' ' && i - h < 256)
		i++; /* host */
	if (i == h || i >= n)
		return 0;
	size_t hn = i - h;
	i++;
	size_t id = i;
	while (i < n && s[i] != ' ' && s[i] != ':' && s[i] != '[' && i - id < 128)
		i++; /* ident */
	if (i == id || i >= n)
		return 0;
	long pid = -1;
	if (s[i] == '[') {
		i++;
		pid = digits_at(s, n, &i);
		if (i >= n || s[i] != ']')
			return 0;
		i++;
	}
	if (i + 1 >= n || s[i] != ':' || s[i + 1] != ' ')
		return 0;
	set_ts(p, s, tsn);
	if (!p->host) {
		p->host = s + h;
		p->hostn = hn;
	}
	if (pid >= 0 && p->pid < 0)
		p->pid = pid;
	return i + 2;
}

/* ---- launchers ---- */

/* torchrun "[rank3]:", "[rank3] ", "[default0]:" (a name, a number);
 * Determined's "[rank=0] " (determined-ai/determined#5418). */
static size_t torchrun_tag(const char *s, size_t n, struct peel *p)
{
	size_t i = 1;
	while (i < n && i < 24 && (is_lower(s[i]) || s[i] == '_'))
		i++;
	if (i == 5 && i < n && s[i] == '=' && memcmp(s + 1, "rank", 4) == 0)
		i++;
	size_t name_end = i;
	long r = digits_at(s, n, &i);
	if (r < 0 || name_end == 1 || i >= n || s[i] != ']')
		return 0;
	i++;
	if (i < n && s[i] == ':')
		i++;
	else if (!(i < n && s[i] == ' '))
		return 0;
	while (i < n && s[i] == ' ')
		i++;
	p->rank = (int)r;
	return i;
}

/* "<stdout>:" / "<stderr>: " at s[i]: the offset after it and its space */
static size_t mpi_stream(const char *s, size_t n, size_t i)
{
	if (i >= n || s[i] != '<')
		return 0;
	size_t j = i + 1;
	while (j < n && j - i < 12 && is_lower(s[j]))
		j++;
	if (j == i + 1 || j + 1 >= n + 1 || j >= n || s[j] != '>' || j + 1 >= n || s[j + 1] != ':')
		return 0;
	j += 2;
	while (j < n && s[j] == ' ')
		j++;
	return j;
}

/* Open MPI's --tag-output "[1,0]<stderr>:" (orte/mca/iof/base/iof_base_output.c,
 * v4.1.x), PMIx's "[1,0]<stdout>: ", "[1,0][host:pid]<stdout>: " and the rank
 * alone "[0]<stdout>: " (openpmix src/common/pmix_iof.c). */
static size_t mpi_tag(const char *s, size_t n, size_t i0, struct peel *p)
{
	size_t i = i0 + 1;
	long a = digits_at(s, n, &i), r;
	if (a < 0 || i >= n)
		return 0;
	if (s[i] == ',') {
		i++;
		r = digits_at(s, n, &i);
		if (r < 0 || i >= n || s[i] != ']')
			return 0;
	} else if (s[i] == ']') {
		r = a; /* "[0]<stdout>: " */
		if (i + 1 >= n || s[i + 1] != '<')
			return 0;
	} else {
		return 0;
	}
	i++;
	const char *h = NULL;
	size_t hn = 0;
	long pid = -1;
	if (i < n && s[i] == '[') { /* PMIx --output tag-detailed: "[host:pid]" */
		size_t k = i + 1;
		while (k < n && k - i < 256 && s[k] != ':' && s[k] != ']')
			k++;
		if (k >= n || s[k] != ':')
			return 0;
		h = s + i + 1;
		hn = k - i - 1;
		k++;
		pid = digits_at(s, n, &k);
		if (pid < 0 || k >= n || s[k] != ']')
			return 0;
		i = k + 1;
	}
	size_t e = mpi_stream(s, n, i);
	if (!e)
		return 0;
	p->rank = (int)r;
	if (h && !p->host) {
		p->host = h;
		p->hostn = hn;
	}
	if (pid >= 0 && p->pid < 0)
		p->pid = pid;
	return e;
}

/* Slurm's srun --label: "%*d: " (src/common/write_labelled_message.c), so
 * "3: " or "  3: " padded to the width of the largest task id, and "P0 3: "
 * for a heterogeneous job. */
static size_t slurm_label(const char *s, size_t n, struct peel *p)
{
	size_t i = 0;
	if (n > 3 && s[0] == 'P' && is_digit(s[1])) {
		i = 1;
		digits_at(s, n, &i);
		if (i >= n || s[i] != ' ')
			return 0;
		i++;
	}
	size_t sp = i;
	while (i < n && s[i] == ' ' && i - sp < 6)
		i++;
	size_t d = i;
	long r = digits_at(s, n, &i);
	if (r < 0 || i - d > 6 || i + 1 >= n || s[i] != ':' || s[i + 1] != ' ')
		return 0;
	p->rank = (int)r;
	return i + 2;
}

/* Open MPI's --timestamp-output: ctime ("Mon Dec  1 10:00:00 2025") glued to
 * the tag or the stream (v4.1.x), or in brackets (PMIx); dmesg -T's bracketed
 * ctime is the same text followed by a space. */
static size_t ctime_at(const char *s, size_t n, size_t i)
{
	/* "Www Mmm dd hh:mm:ss yyyy", the day padded with a space */
	if (n < i + 24 || s[i + 3] != ' ' || s[i + 7] != ' ' || !month_at(s + i + 4) ||
	    !(s[i + 8] == ' ' || is_digit(s[i + 8])) || !is_digit(s[i + 9]) || s[i + 10] != ' ')
		return 0;
	size_t e = hms_at(s, n, i + 11);
	if (e != i + 19 || s[e] != ' ' || !ndig(s, n, e + 1, 4))
		return 0;
	return e + 5;
}

static size_t mpi_ts(const char *s, size_t n, struct peel *p)
{
	size_t e = ctime_at(s, n, 0);
	if (!e || e >= n)
		return 0;
	size_t k = s[e] == '[' ? mpi_tag(s, n, e, p) : mpi_stream(s, n, e);
	if (!k)
		return 0;
	set_ts(p, s, e);
	return k;
}

/* Ray's worker prefixes: "(pid=909608) ", "(RayWorkerWrapper pid=263,
 * ip=10.0.16.95) ", "(raylet) ", "(raylet, ip=10.0.0.1) "; vLLM's "(VllmWorkerProcess
 * pid=243206) ", "(VllmWorker rank=3 pid=1090) ", "(Worker_TP0 pid=4192747) ". */
static size_t ray_prefix(const char *s, size_t n, struct peel *p)
{
	if (n < 8)
		return 0;
	const char *close = memchr(s, ')', n < 128 ? n : 128);
	if (!close)
		return 0;
	size_t c = (size_t)(close - s);
	const char *pid = memmem(s, c, "pid=", 4);
	int raylet = c >= 7 && memcmp(s + 1, "raylet", 6) == 0 && (c == 7 || s[7] == ',');
	if (!raylet && (!pid || (pid != s + 1 && pid[-1] != ' ') || !is_digit(pid[4])))
		return 0;
	size_t lim = pid ? (size_t)(pid - s) : 1;
	for (size_t i = 1; i < lim; i++)
		if (!(is_name(s[i]) || s[i] == ' ' || s[i] == '=' || s[i] == ','))
			return 0;
	if (pid) {
		size_t k = (size_t)(pid - s) + 4;
		long v = digits_at(s, n, &k);
		if (p->pid < 0)
			p->pid = v;
		const char *rk = memmem(s, lim, "rank=", 5);
		if (rk && (rk == s + 1 || rk[-1] == ' ') && p->rank < 0) {
			size_t j = (size_t)(rk - s) + 5;
			long r = digits_at(s, n, &j);
			if (r >= 0 && r < 1000000)
				p->rank = (int)r;
		}
	}
	const char *ip = memmem(s, c, "ip=", 3);
	if (ip && !p->host) {
		size_t j = (size_t)(ip - s) + 3, k = j;
		while (k < c && s[k] != ',' && s[k] != ' ')
			k++;
		if (k > j) {
			p->host = s + j;
			p->hostn = k - j;
		}
	}
	size_t i = c + 1;
	while (i < n && s[i] == ' ')
		i++;
	return i;
}

/* docker compose: "%-Ns | " (cmd/formatter/logs.go: the container's name
 * padded to the widest). */
static size_t compose_prefix(const char *s, size_t n, size_t name_end)
{
	size_t i = name_end;
	while (i < n && s[i] == ' ' && i - name_end < 64)
		i++;
	if (i == name_end || i + 1 >= n || s[i] != '|' || s[i + 1] != ' ')
		return 0;
	return i + 2;
}

/* ---- loggers ---- */

/* "file.ext:N] " (glog's, c10's) at s[i]: the offset after "] " (or after "]" at
 * the line's end), 0 when none. */
static size_t file_line_close(const char *s, size_t n, size_t i)
{
	size_t f = i;
	while (i < n && i - f < 256 && s[i] != ':' && s[i] != ' ' && s[i] != ']')
		i++;
	if (i == f || i >= n || s[i] != ':')
		return 0;
	i++;
	if (digits_at(s, n, &i) < 0 || i >= n || s[i] != ']')
		return 0;
	i++;
	if (i < n && s[i] == ' ')
		i++;
	return i;
}

/* c10 (PyTorch's C++ logging): "[E ProcessGroupNCCL.cpp:475] ", and with the
 * time, the month not padded: "[W1130 14:16:13.784431751 socket.cpp:764] ",
 * "[E108 20:04:34.467642512 socket.cpp:957] ". */
static size_t c10_header(const char *s, size_t n, struct peel *p)
{
	char sev = s[1];
	if (n < 8 || !(sev == 'I' || sev == 'W' || sev == 'E' || sev == 'F'))
		return 0;
	size_t i = 2, t0 = 1, tn = 0;
	if (s[2] != ' ') {
		size_t d = 2;
		while (d < n && d < 7 && is_digit(s[d]))
			d++;
		if (d - 2 < 3 || d - 2 > 4 || d >= n || s[d] != ' ')
			return 0;
		size_t e = hms_at(s, n, d + 1);
		if (!e || e >= n || s[e] != ' ')
			return 0;
		tn = e - t0;
		i = e;
	}
	i++;
	size_t k = file_line_close(s, n, i);
	if (!k)
		return 0;
	set_ts(p, s + t0, tn);
	set_head(p, s);
	p->severity = sev;
	p->logger = PL_C10;
	return k;
}

/* glog: "E1201 12:00:00.123456 12345 file.cc:N] " (torchrun 2.2+ logs its
 * own lines so: "W1130 15:02:48.751000 758 torch/distributed/run.py:851] "). */
static size_t glog_header(const char *s, size_t n, struct peel *p)
{
	if (n < 22 || !ndig(s, n, 1, 4) || s[5] != ' ')
		return 0;
	size_t e = hms_at(s, n, 6);
	if (!e || e >= n || s[e] != ' ')
		return 0;
	size_t i = e;
	while (i < n && s[i] == ' ')
		i++;
	if (digits_at(s, n, &i) < 0 || i >= n || s[i] != ' ')
		return 0;
	size_t k = file_line_close(s, n, i + 1);
	if (!k)
		return 0;
	set_ts(p, s, e);
	set_head(p, s);
	p->severity = s[0];
	p->logger = PL_GLOG;
	return k;
}

/* Python's logging.basicConfig default "LEVEL:name:" ("WARNING:torch.distributed.run:",
 * "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) ..."),
 * and vLLM's "LEVEL MM-DD HH:MM:SS [file.py:N] " (older: "file.py:N] "). */
static size_t level_header(const char *s, size_t n, struct peel *p)
{
	char sev;
	size_t l = level_word(s, n, &sev);
	if (!l || l + 1 >= n)
		return 0;
	if (s[l] == ':') {
		size_t i = l + 1, nm = i;
		if (!(is_alnum(s[i]) || s[i] == '_'))
			return 0;
		while (i < n && i - nm < 128 && (is_alnum(s[i]) || s[i] == '_' || s[i] == '.'))
			i++;
		if (i >= n || s[i] != ':')
			return 0;
		set_head(p, s);
		p->severity = sev;
		p->logger = PL_PYTHON;
		p->families |= 1u << PF_PYLOG;
		return i + 1;
	}
	/* vLLM: "INFO 12-01 10:00:00 " */
	if (s[l] != ' ' || !ndig(s, n, l + 1, 2) || n < l + 16 || s[l + 3] != '-' || !ndig(s, n, l + 4, 2) ||
	    s[l + 6] != ' ')
		return 0;
	size_t e = hms_at(s, n, l + 7);
	if (!e || e >= n || s[e] != ' ')
		return 0;
	size_t i = e + 1, k;
	if (i < n && s[i] == '[')
		k = file_line_close(s, n, i + 1);
	else
		k = file_line_close(s, n, i);
	if (!k)
		return 0;
	set_ts(p, s + l + 1, e - l - 1);
	set_head(p, s);
	p->severity = sev;
	p->logger = PL_PYTHON;
	p->families |= 1u << PF_VLLM;
	return k;
}

/* Hugging Face's examples (accelerate, transformers): "%(asctime)s -
 * %(levelname)s - %(name)s - " with "%m/%d/%Y %H:%M:%S":
 * "09/04/2024 02:49:57 - INFO - __main__ - ". */
static size_t hf_header(const char *s, size_t n, struct peel *p)
{
	if (n < 28 || s[2] != '/' || s[5] != '/' || !ndig(s, n, 0, 2) || !ndig(s, n, 3, 2) || !ndig(s, n, 6, 4) ||
	    s[10] != ' ')
		return 0;
	size_t e = hms_at(s, n, 11);
	if (!e || n < e + 4 || memcmp(s + e, " - ", 3) != 0)
		return 0;
	char sev;
	size_t l = level_word(s + e + 3, n - e - 3, &sev);
	size_t i = e + 3 + l;
	if (!l || n < i + 3 || memcmp(s + i, " - ", 3) != 0)
		return 0;
	i += 3;
	size_t nm = i;
	while (i < n && i - nm < 128 && s[i] != ' ')
		i++;
	if (i == nm || n < i + 3 || memcmp(s + i, " - ", 3) != 0)
		return 0;
	set_ts(p, s, e);
	set_head(p, s);
	p->severity = sev;
	p->logger = PL_PYTHON;
	return i + 3;
}

/* "[LEVEL] " at s[i]: offset after, 0 when none */
static size_t bracket_level(const char *s, size_t n, size_t i, char *sev)
{
	if (i >= n || s[i] != '[')
		return 0;
	size_t l = level_word(s + i + 1, n - i - 1, sev);
	if (!l || n < i + l + 3 || s[i + 1 + l] != ']' || s[i + 2 + l] != ' ')
		return 0;
	return i + l + 3;
}

/* After "[YYYY-MM-DD HH:MM:SS[,ms]" (e is the offset after the time): the
 * logger headers that start so. */
static size_t bracket_date(const char *s, size_t n, size_t e, struct peel *p)
{
	if (e >= n)
		return 0;
	if (s[e] == ']') {
		size_t i = e + 1;
		if (i >= n || s[i] != ' ')
			return 0;
		i++;
		char sev;
		/* DeepSpeed: "[ts] [INFO] [launch.py:428:sigkill_handler] " */
		size_t k = bracket_level(s, n, i, &sev);
		if (k && k < n && s[k] == '[') {
			size_t j = k + 1;
			while (j < n && j - k < 256 && s[j] != ']' && s[j] != ' ')
				j++;
			if (j + 1 < n && s[j] == ']' && s[j + 1] == ' ') {
				set_ts(p, s + 1, e - 1);
				set_head(p, s);
				p->severity = sev;
				p->logger = PL_PYTHON;
				p->families |= 1u << PF_DEEPSPEED;
				return j + 2;
			}
		}
		/* torchrun 2.0/2.1: "[ts] torch.distributed.elastic.multiprocessing.api: [WARNING] " */
		size_t nm = i;
		while (i < n && i - nm < 128 && (is_alnum(s[i]) || s[i] == '_' || s[i] == '.'))
			i++;
		if (i > nm && i + 1 < n && s[i] == ':' && s[i + 1] == ' ' && (k = bracket_level(s, n, i + 2, &sev))) {
			set_ts(p, s + 1, e - 1);
			set_head(p, s);
			p->severity = sev;
			p->logger = PL_PYTHON;
			p->families |= 1u << PF_TORCHRUN_LOG;
			return k;
		}
		/* a bare bracketed time: NCCL's own (2.26+), SGLang's without a tag,
		 * a collector's */
		set_ts(p, s + 1, e - 1);
		p->families |= 1u << PF_DATE_TS;
		return e + 2;
	}
	if (s[e] != ' ')
		return 0;
	/* Ray's C++ logger: "[2025-12-07 09:57:19,206 E 393463 393463] (raylet) node_manager.cc:3277: " */
	size_t i = e + 1;
	char sev = i < n ? s[i] : 0;
	if (i + 2 < n && (sev == 'I' || sev == 'W' || sev == 'E' || sev == 'F' || sev == 'D' || sev == 'C') &&
	    s[i + 1] == ' ') {
		size_t j = i + 2;
		long pid = digits_at(s, n, &j);
		if (pid >= 0 && j < n && s[j] == ' ') {
			j++;
			if (digits_at(s, n, &j) >= 0 && j + 1 < n && s[j] == ']' && s[j + 1] == ' ') {
				j += 2;
				if (j < n && s[j] == '(') { /* the raylet names itself: "(raylet) node_manager.cc:3277: " */
					const char *cp = memchr(s + j, ')', n - j < 32 ? n - j : 32);
					if (cp && (size_t)(cp - s) + 1 < n && cp[1] == ' ')
						j = (size_t)(cp - s) + 2;
				}
				size_t f = j;
				while (j < n && j - f < 128 && s[j] != ':' && s[j] != ' ')
					j++;
				if (j > f && j < n && s[j] == ':') {
					size_t q = j + 1;
					if (digits_at(s, n, &q) >= 0 && q < n && s[q] == ':') {
						q++;
						if (q < n && s[q] == ' ')
							q++;
						set_ts(p, s + 1, e - 1);
						set_head(p, s);
						p->severity = sev;
						p->logger = PL_GLOG;
						if (p->pid < 0)
							p->pid = pid;
						p->families |= 1u << PF_RAY_CPP;
						return q;
					}
				}
			}
		}
	}
	/* SGLang: "[2025-02-24 14:09:34 TP14] ", "[... DP0 TP1] " (its rank tags) */
	return 0;
}

/* SGLang's tags after the time: " TP14]", " DP0 TP1]", " PP0 TP3 EP2]"; a
 * rank only from a TP tag alone.  Offset after "] ", 0 when none. */
static size_t sglang_tags(const char *s, size_t n, size_t e, struct peel *p)
{
	size_t i = e;
	int tags = 0;
	long tp = -1;
	while (i + 3 < n && s[i] == ' ' && is_upper(s[i + 1]) && is_upper(s[i + 2]) && is_digit(s[i + 3]) && tags < 6) {
		int is_tp = s[i + 1] == 'T' && s[i + 2] == 'P';
		i += 3;
		long v = digits_at(s, n, &i);
		if (is_tp)
			tp = v;
		tags++;
	}
	if (!tags || i + 1 >= n || s[i] != ']' || s[i + 1] != ' ')
		return 0;
	if (tags == 1 && tp >= 0 && tp < 1000000 && p->rank < 0)
		p->rank = (int)tp;
	return i + 2;
}

/* dmesg: "[ 1234.567890] ", "[  +0.000001] " (--reltime / -H) */
static size_t dmesg_ts(const char *s, size_t n)
{
	size_t i = 1;
	while (i < n && i < 14 && s[i] == ' ')
		i++;
	if (i < n && s[i] == '+')
		i++;
	size_t d = i;
	while (i < n && is_digit(s[i]))
		i++;
	if (i == d || i >= n || s[i] != '.')
		return 0;
	size_t f = ++i;
	while (i < n && is_digit(s[i]))
		i++;
	if (i == f || i + 1 >= n || s[i] != ']' || s[i + 1] != ' ')
		return 0;
	return i + 2;
}

/* A crash handler's tag: Open MPI's "[%s:%05d] " (opal/util/stacktrace.c)
 * and UCX's "[%s:%-5d:%s:%d] " (src/ucs/debug/log.c: host, pid padded,
 * thread, tid): the host and the pid. */
static size_t crash_tag(const char *s, size_t n, struct peel *p)
{
	size_t i = 1;
	while (i < n && i < 256 && is_name(s[i]))
		i++;
	if (i == 1 || i + 2 >= n || s[i] != ':' || !is_digit(s[i + 1]))
		return 0;
	size_t hn = i - 1, k = i + 1;
	long pid = digits_at(s, n, &k);
	while (k < n && s[k] == ' ')
		k++;
	if (k < n && s[k] == ':') { /* UCX: ":thread:tid" */
		k++;
		while (k < n && k - i < 64 && s[k] != ':' && s[k] != ']')
			k++;
		if (k >= n || s[k] != ':')
			return 0;
		k++;
		if (digits_at(s, n, &k) < 0)
			return 0;
	}
	if (k + 1 >= n || s[k] != ']' || s[k + 1] != ' ')
		return 0;
	if (!p->host) {
		p->host = s + 1;
		p->hostn = hn;
	}
	if (p->pid < 0)
		p->pid = pid;
	p->families |= 1u << PF_CRASH_TAG;
	return k + 2;
}

/* Every prefix that starts with '['. */
static size_t bracket(const char *s, size_t n, struct peel *p)
{
	if (n < 3)
		return 0;
	char c1 = s[1];
	size_t k;
	if (is_digit(c1)) {
		if ((k = ansi(s, n)))
			return (p->families |= 1u << PF_ANSI), k;
		if ((k = mpi_tag(s, n, 0, p)))
			return (p->families |= 1u << PF_MPI), k;
		if ((k = crash_tag(s, n, p)))
			return k;
		size_t e = ymd_hms(s + 1, n - 1, ' ');
		if (e) {
			e += 1;
			if ((k = bracket_date(s, n, e, p)))
				return k;
			if ((k = sglang_tags(s, n, e, p))) {
				set_ts(p, s + 1, e - 1);
				p->families |= 1u << PF_SGLANG;
				return k;
			}
			return 0;
		}
		if ((e = hms_at(s, n, 1)) && (k = sglang_tags(s, n, e, p)))
			return (p->families |= 1u << PF_SGLANG), k; /* "[19:01:01 TP0] ": no date, no timestamp */
		/* SGLang's newer datefmt "%m-%d %H:%M:%S": "[12-01 10:00:00 TP0] " */
		if (n > 16 && s[3] == '-' && s[6] == ' ' && ndig(s, n, 1, 2) && ndig(s, n, 4, 2) && (e = hms_at(s, n, 7)) &&
		    (k = sglang_tags(s, n, e, p))) {
			set_ts(p, s + 1, e - 1);
			return (p->families |= 1u << PF_SGLANG), k;
		}
		if ((k = dmesg_ts(s, n)))
			return (p->families |= 1u << PF_DMESG), k;
		return 0; /* NCCL's "[0] " device, or data */
	}
	if (c1 == ' ')
		return (k = dmesg_ts(s, n)) ? (p->families |= 1u << PF_DMESG, k) : 0;
	if (c1 == ']' && n > 3 && s[2] == ' ' && s[3] == '[')
		return 3; /* Determined's empty field before "[rank=0] " */
	if (is_lower(c1)) {
		if ((k = torchrun_tag(s, n, p)))
			return (p->families |= 1u << PF_TORCHRUN), k;
		return crash_tag(s, n, p);
	}
	if (is_upper(c1)) {
		if ((c1 == 'I' || c1 == 'W' || c1 == 'E' || c1 == 'F') && (k = c10_header(s, n, p)))
			return (p->families |= 1u << PF_C10), k;
		size_t e = ctime_at(s, n, 1);
		if (e && e + 1 < n && s[e] == ']') {
			if (s[e + 1] == '[' || s[e + 1] == '<') { /* PMIx --output timestamp */
				k = s[e + 1] == '[' ? mpi_tag(s, n, e + 1, p) : mpi_stream(s, n, e + 1);
				if (k) {
					set_ts(p, s + 1, e - 1);
					p->families |= 1u << PF_MPI_TS;
					return k;
				}
			} else if (s[e + 1] == ' ') { /* dmesg -T */
				set_ts(p, s + 1, e - 1);
				p->families |= 1u << PF_DMESG;
				return e + 2;
			}
		}
		return crash_tag(s, n, p);
	}
	return 0;
}

/* A host name or address in front of a logger or launcher header ("node-3: ",
 * "10.0.0.7: " from pdsh/clush; "host " glued to a serving framework's
 * header): only when the rest starts a prefix of its own, and only a name
 * that holds a digit (not an exception type such as "RuntimeError: "). */
static size_t peel_one(const char *s, size_t n, struct peel *p);

/* set in families during host_glue's look-ahead */
#define NO_GLUE (1u << PF_COUNT)
/* the families after which no collector's prefix (a compose service, a host
 * glued in front) can follow: launchers' tags and loggers' headers */
#define INNER ((1u << PF_TORCHRUN) | (1u << PF_SLURM) | (1u << PF_MPI) | (1u << PF_MPI_TS) | (1u << PF_RAY) | \
	(1u << PF_C10) | (1u << PF_GLOG) | (1u << PF_PYLOG) | (1u << PF_VLLM) | (1u << PF_SGLANG) | \
	(1u << PF_TORCHRUN_LOG) | (1u << PF_DEEPSPEED) | (1u << PF_RAY_CPP) | (1u << PF_HF) | (1u << PF_CRASH_TAG))

static size_t host_glue(const char *s, size_t n, size_t name_end, struct peel *p)
{
	if ((p->families & NO_GLUE) || name_end >= n)
		return 0;
	size_t i = name_end;
	if (s[i] == ':')
		i++;
	if (i >= n || s[i] != ' ')
		return 0;
	i++;
	struct peel q;
	memset(&q, 0, sizeof q);
	q.rank = -1;
	q.pid = -1;
	q.families = NO_GLUE; /* the look-ahead glues no second host: bounded depth */
	char c = i < n ? s[i] : 0;
	/* an IPv4 address and ": " is pdsh's (DeepSpeed's multi-node runner) whatever
	 * follows; a name only before a header that cannot start a message (a
	 * launcher's tag, a logger's header) */
	int dots = 0, ipv4 = s[name_end] == ':';
	for (size_t d = 0; d < name_end && ipv4; d++)
		dots += s[d] == '.', ipv4 = is_digit(s[d]) || s[d] == '.';
	if (!(ipv4 && dots == 3) && (!(c == '[' || c == '(' || is_upper(c)) || !peel_one(s + i, n - i, &q)))
		return 0;
	if (!p->host) {
		p->host = s;
		p->hostn = name_end;
	}
	return i;
}

/* A line that starts with a letter or a digit: a name first (a host, a
 * service, a logger level); NCCL's "host:pid:tid" is left at once. */
static size_t word_start(const char *s, size_t n, struct peel *p)
{
	/* one pass over the name; NAME[] is 2 for a digit (a host's name holds one) */
	size_t e = 0, lim = n < 64 ? n : 64;
	unsigned any = 0;
	while (e < lim && NAME[(unsigned char)s[e]])
		any |= NAME[(unsigned char)s[e++]];
	if (e >= n || (s[e] != ' ' && s[e] != ':'))
		return 0;
	size_t k;
	if (s[e] == ' ' && e + 1 < n && (s[e + 1] == ' ' || s[e + 1] == '|') && (k = compose_prefix(s, n, e)))
		return (p->families |= 1u << PF_COMPOSE), k;
	if (!(any & 2) || (s[e] == ':' && e + 1 < n && is_digit(s[e + 1])))
		return 0; /* no digit: no host name; "host:pid:tid" is NCCL's */
	if ((k = host_glue(s, n, e, p)))
		return (p->families |= 1u << PF_HOST), k;
	return 0;
}

static size_t upper_start(const char *s, size_t n, struct peel *p)
{
	char c = s[0];
	size_t k;
	if (n > 5 && is_digit(s[1])) {
		if ((c == 'I' || c == 'W' || c == 'E' || c == 'F') && (k = glog_header(s, n, p)))
			return (p->families |= 1u << PF_GLOG), k;
		if (c == 'P' && (k = slurm_label(s, n, p)))
			return (p->families |= 1u << PF_SLURM), k;
	}
	if (n > 20 && is_lower(s[1])) {
		if ((k = syslog_prefix(s, n, p)))
			return (p->families |= 1u << PF_SYSLOG), k;
		if ((k = mpi_ts(s, n, p)))
			return (p->families |= 1u << PF_MPI_TS), k;
	}
	if ((c == 'I' || c == 'W' || c == 'E' || c == 'D' || c == 'C') && (k = level_header(s, n, p)))
		return k;
	return p->families & INNER ? 0 : word_start(s, n, p);
}

static size_t digit_start(const char *s, size_t n, struct peel *p)
{
	size_t k;
	if (n > 19 && s[4] == '-') {
		if ((k = iso_ts(s, n, p)))
			return (p->families |= 1u << PF_ISO_TS), k;
		if ((k = date_ts(s, n, p)))
			return (p->families |= 1u << PF_DATE_TS), k;
		return 0;
	}
	if (n > 27 && s[2] == '/' && (k = hf_header(s, n, p)))
		return (p->families |= 1u << PF_HF), k;
	if ((k = slurm_label(s, n, p)))
		return (p->families |= 1u << PF_SLURM), k;
	return word_start(s, n, p);
}

/* A line that starts with blanks: Slurm's padded label, a viewer's line
 * number ("cat -n": "%6d\t"), or blanks before another prefix (a quoted
 * paste: ">         [1,0]<stdout>:..."). */
static size_t blank_start(const char *s, size_t n, struct peel *p)
{
	size_t i = 0;
	while (i < n && i < 16 && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i >= n)
		return 0;
	size_t k;
	if (is_digit(s[i])) {
		if ((k = slurm_label(s, n, p)))
			return (p->families |= 1u << PF_SLURM), k;
		size_t d = i;
		while (i < n && i - d < 7 && is_digit(s[i]))
			i++;
		if (i < n && s[i] == '\t')
			return (p->families |= 1u << PF_LINENO), i + 1;
		return 0;
	}
	if (s[i] == '[' || s[i] == '(') {
		struct peel q = *p;
		if (peel_one(s + i, n - i, &q))
			return i; /* the blanks only: the loop peels what follows */
	}
	return 0;
}

/* Markdown inline code around a whole pasted line ("`RuntimeError: ...`"):
 * the opening backtick here, the closing one by suffix(). */
#define BACKTICK (1u << (PF_COUNT + 1)) /* suffix() took the closing backtick */

static size_t backtick(const char *s, size_t n, const struct peel *p)
{
	return n > 1 && s[1] != '`' && (p->families & BACKTICK) ? 1 : 0;
}

/* Markdown quoting: "> ", "> > ", ">" alone. */
static size_t quote(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && s[i] == '>' && i < 16) {
		i++;
		if (i < n && s[i] == ' ')
			i++;
	}
	if ((i < n && s[i - 1] != ' ') || (n >= 3 && s[1] == '>' && s[2] == '>'))
		return 0; /* ">x", or ">>> x" (a Python prompt) */
	return i;
}

enum { C_NONE, C_ESC, C_BRACKET, C_PAREN, C_QUOTE, C_BLANK, C_DIGIT, C_UPPER, C_LOWER };
#define R10(c) [c] = C_DIGIT, [c + 1] = C_DIGIT, [c + 2] = C_DIGIT, [c + 3] = C_DIGIT, [c + 4] = C_DIGIT, \
	[c + 5] = C_DIGIT, [c + 6] = C_DIGIT, [c + 7] = C_DIGIT, [c + 8] = C_DIGIT, [c + 9] = C_DIGIT
#define R13(c, k) [c] = k, [c + 1] = k, [c + 2] = k, [c + 3] = k, [c + 4] = k, [c + 5] = k, [c + 6] = k, \
	[c + 7] = k, [c + 8] = k, [c + 9] = k, [c + 10] = k, [c + 11] = k, [c + 12] = k
static const unsigned char CLASS[256] = {
	[0x1b] = C_ESC, ['^'] = C_ESC, ['\\'] = C_ESC, ['#'] = C_ESC, ['['] = C_BRACKET, ['('] = C_PAREN,
	['>'] = C_QUOTE, ['`'] = C_QUOTE, [' '] = C_BLANK, ['\t'] = C_BLANK, R10('0'), R13('A', C_UPPER), R13('N', C_UPPER),
	R13('a', C_LOWER), R13('n', C_LOWER),
};

static size_t peel_one(const char *s, size_t n, struct peel *p)
{
	size_t k;
	switch (CLASS[(unsigned char)s[0]]) {
	case C_ESC:
		if (s[0] == '#' && !(n >= 6 && s[1] == '0'))
			return 0; /* of ansi's forms only rsyslog's "#033[" starts with '#' (a comment, a table's header) */
		return (k = ansi(s, n)) ? (p->families |= 1u << PF_ANSI, k) : 0;
	case C_BRACKET:
		return bracket(s, n, p);
	case C_PAREN:
		return (k = ray_prefix(s, n, p)) ? (p->families |= 1u << PF_RAY, k) : 0;
	case C_QUOTE:
		k = s[0] == '`' ? backtick(s, n, p) : quote(s, n);
		return k ? (p->families |= 1u << PF_QUOTE, k) : 0;
	case C_BLANK:
		return blank_start(s, n, p);
	case C_DIGIT:
		return digit_start(s, n, p);
	case C_UPPER:
		return upper_start(s, n, p);
	case C_LOWER: /* a service's or a host's name: only outside a launcher's tag or a logger's header */
		return p->families & INNER ? 0 : word_start(s, n, p);
	default:
		return 0;
	}
}

/* The suffix at the end of [s, s+n): its length, 0 when none. */
static size_t suffix(const char *s, size_t n, struct peel *p)
{
	if (s[n - 1] == ']' && n > 30 && memcmp(s + n - 16, " across cluster]", 16) == 0) {
		size_t i = n - 16;
		while (i > 0 && i > n - 40 && s[i - 1] != '[')
			i--;
		if (i > 1 && i > n - 40 && n - 16 - i > 9 && memcmp(s + i, "repeated ", 9) == 0 && s[i - 2] == ' ') {
			p->families |= 1u << PF_RAY_REPEAT;
			return n - (i - 2);
		}
		return 0;
	}
	if (s[n - 1] == '`' && s[0] == '`' && n > 2 && s[n - 2] != '`') {
		p->families |= (1u << PF_QUOTE) | BACKTICK; /* the closing backtick of inline code around the line */
		return 1;
	}
	if (s[n - 1] == 'm') {
		size_t i = n - 1;
		while (i > 0 && n - i < 14 && (is_digit(s[i - 1]) || s[i - 1] == ';'))
			i--;
		if (i >= 2 && s[i - 1] == '[' && (s[i - 2] == 0x1b || (i >= 3 && s[i - 2] == '[' && s[i - 3] == '^'))) {
			p->families |= 1u << PF_ANSI;
			return n - (s[i - 2] == 0x1b ? i - 2 : i - 3);
		}
	}
	return 0;
}

size_t peel_prefixes(const char *s0, size_t n0, struct peel *p)
{
	memset(p, 0, sizeof *p);
	p->rank = -1;
	p->pid = -1;
	const char *s = s0;
	size_t n = n0;
	/* what is appended at the end: Ray's log deduplication (" [repeated 3x
	 * across cluster]"), a colour code closing the line ("...\x1b[0m",
	 * "^[[0m"); stacked, in any order */
	for (int guard = 0; guard < 4 && n > 4; guard++) {
		size_t t = suffix(s, n, p);
		if (!t)
			break;
		p->tail += t;
		n -= t;
	}
	for (int guard = 0; guard < 12 && n > 0; guard++) {
		size_t k = peel_one(s, n, p);
		if (!k || k > n)
			break;
		s += k;
		n -= k;
	}
	p->families &= ~(NO_GLUE | BACKTICK);
	return (size_t)(s - s0);
}
