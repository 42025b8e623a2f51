/* clicommon.c - see clicommon.h.  Moved out of main.c so that the cmd_*.c
 * modules (batch, merge) parse options and load the database the same way. */
#include "cli/clicommon.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/dbpath.h"
#include "rules/rules.h"

/* ---- database discovery ---- */


/* Load dir unless the same folder (by real path) was loaded already, so
 * that --patterns naming the built-in folder does not duplicate every id. */
static int load_dir_once(struct sigdb *db, const char *dir, struct strvec *seen, struct msgs *m)
{
	char *real = realpath(dir, NULL);
	const char *key = real ? real : dir;
	if (strvec_contains(seen, key)) {
		free(real);
		return 0;
	}
	strvec_push(seen, key);
	free(real);
	return sigdb_load_dir(db, dir, m);
}

int load_db(struct sigdb *db, const struct common *c, int flags)
{
	const int for_check = flags & LOAD_CHECK;
	struct msgs m = {0};
	struct strvec seen = {0};
	int errors = 0;
	sigdb_init(db);
	/* the built-in database alone, outside check-db: each regex compiled on
	 * its first candidate line (make check validates them all); user
	 * pattern files are validated at load */
	const char *envp = getenv("NCCL_TRIAGE_PATTERNS");
	int builtin_alone = !c->no_builtin && !c->pattern_dirs.n && !(envp && *envp);
	sigdb_set_lazy(db, !for_check && builtin_alone);
	/* user pattern files are self-tested below: their samples are kept */
	sigdb_set_slim(db, !for_check && builtin_alone && (flags & LOAD_SLIM));
	rules_register(db);
	db->match_limit = c->lim.match_limit;
	db->depth_limit = c->lim.depth_limit;
	if (!c->no_builtin) {
		char *dir = builtin_patterns_dir();
		if (!dir) {
			fprintf(stderr, "nccl-triage: cannot find the built-in signature database (patterns/)\n"
			                "hint: set NCCL_TRIAGE_DATADIR, or pass --patterns DIR\n");
			return -1;
		}
		errors += load_dir_once(db, dir, &seen, &m);
		free(dir);
	}
	if (envp && *envp) {
		char *copy = xstrdup(envp), *save = NULL;
		for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			errors += load_dir_once(db, d, &seen, &m);
		}
		free(copy);
	}
	for (size_t i = 0; i < c->pattern_dirs.n; i++) {
		errors += load_dir_once(db, c->pattern_dirs.v[i], &seen, &m);
	}
	errors += sigdb_finalize(db, &m);
	for (size_t i = 0; i < m.list.n; i++)
		fprintf(stderr, "nccl-triage: %s\n", m.list.v[i]);
	msgs_free(&m);
	strvec_free(&seen);
	if (errors && !for_check) {
		fprintf(stderr, "nccl-triage: the signature database has %d error%s; run 'nccl-triage check-db' for details\n",
		        errors, errors == 1 ? "" : "s");
		return -1;
	}
	/* User pattern files are refused here for what check-db refuses them
	 * for: a sample that does not match, a negative sample that does, a
	 * literal the sample lacks (the prefilter would skip every such line:
	 * the signature could never fire), a catastrophic regex.  The built-in
	 * database is checked by make check, not on every run. */
	if (!for_check && ((envp && *envp) || c->pattern_dirs.n)) {
		size_t ok = 0;
		int fails = sigdb_selftest(db, &m, &ok);
		for (size_t i = 0; i < m.list.n; i++)
			fprintf(stderr, "nccl-triage: %s\n", m.list.v[i]);
		msgs_free(&m);
		if (fails) {
			fprintf(stderr, "nccl-triage: the signature database fails %d sample test%s; run 'nccl-triage check-db' "
			        "for details\n", fails, fails == 1 ? "" : "s");
			return -1;
		}
	}
	return errors;
}

void unload_db(struct sigdb *db)
{
	struct msgs m = {0};
	sigdb_lazy_failures(db, &m);
	for (size_t i = 0; i < m.list.n; i++)
		fprintf(stderr, "nccl-triage: %s\n", m.list.v[i]);
	msgs_free(&m);
	sigdb_free(db);
}

static int parse_num(const char *opt, const char *v, long long min, long long *out)
{
	char *end;
	errno = 0;
	long long x = strtoll(v, &end, 10);
	if (errno || *end || end == v || x < min) {
		fprintf(stderr, "nccl-triage: --%s: invalid number '%s'\n", opt, v);
		return -1;
	}
	*out = x;
	return 0;
}

static int parse_sz(const char *opt, const char *v, uint64_t *out)
{
	int64_t x = parse_size(v);
	if (x <= 0) {
		fprintf(stderr, "nccl-triage: --%s: invalid size '%s' (e.g. 64M, 1G)\n", opt, v);
		return -1;
	}
	*out = (uint64_t)x;
	return 0;
}

int parse_common(int argc, char **argv, int first, unsigned cmd, const char *cmdname,
                 struct common *c, struct strvec *ops)
{
	memset(c, 0, sizeof *c);
	limits_default(&c->lim);
	c->color = "auto";
	int i = first, nomore = 0;
	while (i < argc) {
		enum opt_id id;
		const char *arg;
		int r = cli_next(argc, argv, &i, cmd, cmdname, &id, &arg, &nomore);
		if (r < 0)
			return -1;
		if (r == 2)
			continue;
		if (r == 0) {
			strvec_push(ops, argv[i++]);
			if (cmd & CMD_RUN)
				nomore = 1; /* run CMD ARGS...: CMD's options are its own */
			continue;
		}
		long long v;
		uint64_t sz;
		switch (id) {
		case OPT_HELP:
			return 1;
		case OPT_FORMAT: c->format = arg; break;
		case OPT_OUTPUT: c->output = arg; break;
		case OPT_PATTERNS: strvec_push(&c->pattern_dirs, arg); break;
		case OPT_NO_BUILTIN: c->no_builtin = 1; break;
		case OPT_COLOR: c->color = arg; break;
		case OPT_QUIET: c->quiet = 1; break;
		case OPT_NAME: c->name = arg; break;
		case OPT_REGEX: c->regex = 1; break;
		case OPT_RULES: c->rules = 1; break;
		case OPT_SUMMARY_ONLY: c->summary_only = 1; break;
		case OPT_PROGRESS: c->progress = arg; break;
		case OPT_REDACT: c->redact = 1; break;
		case OPT_KEEP_NAMES: c->keep_names = 1; break;
		case OPT_QUIET_INFO: c->quiet_info = 1; break;
		case OPT_UNEXPLAINED: c->unexplained = 1; break;
		case OPT_FAIL_ON:
			if (strcmp(arg, "error") && strcmp(arg, "warning") && strcmp(arg, "never")) {
				fprintf(stderr, "nccl-triage %s: --fail-on: '%s' is not error, warning or never\n", cmdname, arg);
				return -1;
			}
			c->fail_on = arg;
			break;
		case OPT_FOLLOW_SYMLINKS: c->lim.follow_symlinks = 1; break;
		case OPT_MATCH_BUDGET:
			if (parse_num("match-budget", arg, 1, &v)) return -1;
			c->lim.match_budget = v > 1000000000 ? 1000000000u : (uint32_t)v;
			break;
		case OPT_EVIDENCE:
			if (parse_num("evidence", arg, 1, &v)) return -1;
			c->evidence = (int)v;
			break;
		case OPT_JOBS:
			if (parse_num("jobs", arg, 1, &v)) return -1;
			c->jobs = (int)v;
			break;
		case OPT_MAX_MEMBER_BYTES:
			if (parse_sz("max-member-bytes", arg, &sz)) return -1;
			c->lim.max_member_bytes = sz;
			break;
		case OPT_MAX_BUNDLE_BYTES:
			if (parse_sz("max-bundle-bytes", arg, &sz)) return -1;
			c->lim.max_bundle_bytes = sz;
			break;
		case OPT_MAX_LINE:
			if (parse_sz("max-line", arg, &sz)) return -1;
			c->lim.max_line = (size_t)sz;
			break;
		case OPT_MAX_RATIO:
			if (parse_num("max-ratio", arg, 1, &v)) return -1;
			c->lim.max_ratio = (double)v;
			break;
		case OPT_MAX_MEMBERS:
			if (parse_num("max-members", arg, 1, &v)) return -1;
			c->lim.max_members = (size_t)v;
			break;
		case OPT_MAX_NESTING:
			if (parse_num("max-nesting", arg, 0, &v)) return -1;
			c->lim.max_nesting = (int)v;
			break;
		case OPT_MAX_DEPTH:
			if (parse_num("max-depth", arg, 0, &v)) return -1;
			c->lim.max_depth = (int)v;
			break;
		case OPT_MAX_ENTRIES:
			if (parse_num("max-entries", arg, 1, &v)) return -1;
			c->lim.max_entries = (size_t)v;
			break;
		case OPT_MAX_LINES:
			if (parse_num("max-lines", arg, 1, &v)) return -1;
			c->lim.max_lines = (uint64_t)v;
			break;
		case OPT_MATCH_LIMIT:
			if (parse_num("match-limit", arg, 1, &v)) return -1;
			c->lim.match_limit = (uint32_t)v;
			break;
		default: /* a command's own option: it reads them in order */
			c->args = xrealloc(c->args, (c->nargs + 1) * sizeof *c->args);
			c->args[c->nargs].id = id;
			c->args[c->nargs].arg = arg;
			c->nargs++;
			break;
		}
	}
	return 0;
}

void free_common(struct common *c)
{
	strvec_free(&c->pattern_dirs);
	free(c->args);
	c->args = NULL;
	c->nargs = 0;
}

/* ---- the CI-safe filter (cisafe.h) in front of an output ---- */

struct guard {
	FILE *to;
	struct cisafe g;
	struct buf b;
};

static ssize_t guard_write(void *cookie, const char *p, size_t n)
{
	struct guard *gd = cookie;
	/* in pieces: a large print (the JSON report) is not copied whole */
	for (size_t off = 0; off < n; off += 65536) {
		size_t k = n - off < 65536 ? n - off : 65536;
		buf_reset(&gd->b);
		cisafe_feed(&gd->g, p + off, k, &gd->b);
		if (gd->b.len && fwrite(gd->b.data, 1, gd->b.len, gd->to) != gd->b.len)
			return 0; /* the error is on gd->to (close_output reports it) */
	}
	return (ssize_t)n;
}

/* The filters alive (stderr's lives as long as the process): held here too,
 * so that one still open at exit is not a leak. */
static struct guard *live[4];

static int guard_close(void *cookie)
{
	struct guard *gd = cookie;
	for (int i = 0; i < 4; i++)
		if (live[i] == gd)
			live[i] = NULL;
	buf_reset(&gd->b);
	cisafe_end(&gd->g, &gd->b);
	int bad = gd->b.len && fwrite(gd->b.data, 1, gd->b.len, gd->to) != gd->b.len;
	buf_free(&gd->b);
	free(gd);
	return bad ? EOF : 0;
}

FILE *cisafe_stream(FILE *to, enum cisafe_kind kind)
{
	struct guard *gd = xcalloc(1, sizeof *gd);
	gd->to = to;
	cisafe_init(&gd->g, kind);
	buf_init(&gd->b);
	cookie_io_functions_t io = {NULL, guard_write, NULL, guard_close};
	FILE *f = fopencookie(gd, "w", io);
	if (!f) {
		free(gd);
		return NULL;
	}
	for (int i = 0; i < 4; i++)
		if (!live[i]) {
			live[i] = gd;
			break;
		}
	return f;
}

/* The one output of the process and the filter in front of it. */
static FILE *out_guard, *out_under;

static FILE *under(FILE *f)
{
	return f && f == out_guard ? out_under : f;
}

FILE *open_output_safe(const char *path, enum cisafe_kind kind)
{
	FILE *f = open_output(path);
	FILE *g = f ? cisafe_stream(f, kind) : NULL;
	if (!g)
		return f;
	out_guard = g;
	out_under = f;
	return g;
}

/* The filter flushed into its output and closed; the output returned. */
static FILE *guard_off(FILE *f, int *bad)
{
	if (!f || f != out_guard)
		return f;
	if (fclose(f) != 0)
		*bad = 1;
	out_guard = NULL;
	return out_under;
}

int term_width(FILE *out)
{
	out = under(out);
	int fd = fileno(out);
	if (fd < 0 || !isatty(fd))
		return 0;
	struct winsize ws;
	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	const char *c = getenv("COLUMNS");
	if (c && *c) {
		char *end;
		long v = strtol(c, &end, 10);
		if (!*end && v > 0 && v < 10000)
			return (int)v;
	}
	return 80;
}

int want_color(const struct common *c, FILE *out)
{
	if (strcmp(c->color, "always") == 0)
		return 1;
	if (strcmp(c->color, "never") == 0)
		return 0;
	const char *nc = getenv("NO_COLOR");
	if (nc && *nc)
		return 0;
	return isatty(fileno(under(out)));
}

/* Open the output; "-" or NULL is stdout. */
/* -o FILE is written to a temporary file beside it and renamed over FILE
 * only when everything was written: an interrupted or failed run leaves the
 * previous FILE as it was, never half a report.  Only for a regular file or
 * a new one (/dev/full, a FIFO, /dev/stdout are written as they are).  One
 * output per process; SIGINT/SIGTERM/SIGHUP remove the temporary file. */
static char tmp_out[PATH_MAX + 32];
static volatile sig_atomic_t tmp_live;

static void on_fatal_signal(int sig)
{
	if (tmp_live)
		unlink(tmp_out);
	signal(sig, SIG_DFL);
	raise(sig);
}

int stdout_closed;

FILE *open_output(const char *path)
{
	if (!path || strcmp(path, "-") == 0) {
		if (stdout_closed) {
			/* main opened /dev/null in its place: the report would vanish */
			fprintf(stderr, "nccl-triage: standard output is closed: nowhere to write the report "
			                "(hint: -o FILE)\n");
			return NULL;
		}
		return stdout;
	}
	struct stat sb;
	int exists = stat(path, &sb) == 0;
	if ((!exists || S_ISREG(sb.st_mode)) && strlen(path) < PATH_MAX && !tmp_live) {
		snprintf(tmp_out, sizeof tmp_out, "%s.nccl-triage-XXXXXX", path);
		/* a SIGTERM between mkstemp and the handlers would leave the
		 * temporary file behind: held until they are in place */
		sigset_t fatal, old;
		sigemptyset(&fatal);
		sigaddset(&fatal, SIGINT);
		sigaddset(&fatal, SIGTERM);
		sigaddset(&fatal, SIGHUP);
		pthread_sigmask(SIG_BLOCK, &fatal, &old);
		int fd = mkstemp(tmp_out);
		if (fd >= 0) {
			/* the mode fopen would give: the old file's, or 0666 less the umask */
			mode_t um = umask(0);
			umask(um);
			if (fchmod(fd, exists ? (sb.st_mode & 07777) : (0666 & ~um)) != 0) {
				/* not fatal: the file stays 0600 */
			}
			FILE *f = fdopen(fd, "w");
			if (f) {
				tmp_live = 1;
				signal(SIGINT, on_fatal_signal);
				signal(SIGTERM, on_fatal_signal);
				signal(SIGHUP, on_fatal_signal);
				pthread_sigmask(SIG_SETMASK, &old, NULL);
				return f;
			}
			close(fd);
			unlink(tmp_out);
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		/* a folder we may not create files in, but a FILE we may write: as before */
	}
	FILE *f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "nccl-triage: cannot write '%s': %s\n", path, strerror(errno));
	return f;
}

void abandon_output(FILE *f)
{
	int bad = 0;
	f = guard_off(f, &bad);
	if (!f || f == stdout)
		return;
	fclose(f);
	if (tmp_live)
		unlink(tmp_out);
	tmp_live = 0;
}

/* ---- output errors: ENOSPC, EPIPE (docs/hardening.md, "Faults") ----
 * SIGPIPE is ignored (main), so a reader that goes away (`| head -1`) shows
 * up as EPIPE on a write: not an error of the analysis.  The program stops
 * writing quietly and exits OUTPUT_EXIT_PIPE, 141, the status a shell shows
 * for a filter killed by SIGPIPE.  Any other write error (ENOSPC on
 * -o /dev/full, EIO) gets one message and exit status 2. */
int close_output(FILE *f, const char *path)
{
	int gbad = 0;
	f = guard_off(f, &gbad);
	int saved = errno; /* a failed write inside stdio left its errno here */
	int bad = ferror(f) || gbad;
	errno = 0;
	if (fflush(f) != 0)
		bad = 1;
	int e = errno;
	if (f != stdout && fclose(f) != 0) {
		if (!e)
			e = errno;
		bad = 1;
	}
	if (f != stdout && tmp_live) {
		if (!bad && rename(tmp_out, path) != 0) {
			e = errno;
			bad = 1;
		}
		if (bad)
			unlink(tmp_out);
		tmp_live = 0;
	}
	if (!bad)
		return 0;
	if (!e)
		e = saved == EPIPE || saved == ENOSPC || saved == EIO || saved == EDQUOT || saved == EFBIG ? saved : EIO;
	if (e == EPIPE)
		return -2;
	fprintf(stderr, "nccl-triage: error writing '%s': %s\n", path ? path : "standard output", strerror(e));
	return -1;
}

int output_status(int rc, int status)
{
	return rc == -2 ? OUTPUT_EXIT_PIPE : rc < 0 ? 2 : status;
}
