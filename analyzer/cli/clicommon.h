/* clicommon.h - what the subcommands share on the command line: the parsed
 * common options, finding and loading the signature database, and opening
 * and closing the output.  CLI code: these print their messages to stderr
 * (library modules never do). */
#ifndef NT_CLICOMMON_H
#define NT_CLICOMMON_H

#include <stdio.h>
#include "base/cisafe.h"
#include "cli/cli.h"
#include "base/nt_limits.h"
#include "match/sigdb.h"
#include "base/util.h"

struct common {
	struct strvec pattern_dirs;
	int no_builtin;
	int quiet;
	const char *format;
	const char *output;
	const char *color;
	int evidence;
	struct limits lim;
	const char *name;
	int regex, rules, summary_only, jobs;
	const char *progress;
	int redact;         /* --redact (redact.h) */
	int keep_names;     /* --keep-names: --redact keeps bundle and document names */
	const char *fail_on; /* --fail-on error|warning|never; NULL: by verdict (report_fails) */
	int quiet_info;     /* --quiet-info: no info findings in CI formats */
	int unexplained;    /* --unexplained: analyze prints the unexplained failure-word lines */
	/* the options that only one command takes (mem, verify), in order */
	struct cli_arg {
		enum opt_id id;
		const char *arg;  /* NULL for a flag */
	} *args;
	size_t nargs;
};

/* Parse the options of command cmd (name cmdname) from argv[first] on;
 * operands go to *ops.  Returns 0, 1 for --help (the caller prints it),
 * -1 on error (message printed). */
int parse_common(int argc, char **argv, int first, unsigned cmd, const char *cmdname,
                 struct common *c, struct strvec *ops);
void free_common(struct common *c);
/* Load the built-in database, NCCL_TRIAGE_PATTERNS and --patterns dirs.
 * flags: LOAD_CHECK (check-db): returns the number of errors, else -1
 * when the database is unusable (messages printed); LOAD_SLIM: the
 * command reads no entry's json (analyze, batch, run): the built-in
 * database alone is loaded slim (sigdb_set_slim).  db must be freed with
 * sigdb_free either way. */
enum { LOAD_CHECK = 1, LOAD_SLIM = 2 };
int load_db(struct sigdb *db, const struct common *c, int flags);
/* The end of a command that analysed with db: names on stderr each regex
 * that did not compile at its first use (a lazy database: the skipped
 * signature would otherwise go unsaid), then sigdb_free. */
void unload_db(struct sigdb *db);
/* The columns of the terminal out writes to (TIOCGWINSZ, else COLUMNS,
 * else 80); 0 when out is not a terminal (text keeps whole lines). */
int term_width(FILE *out);
/* 1 when text output to out should be coloured (--color, NO_COLOR, tty). */
int want_color(const struct common *c, FILE *out);
/* Open the output; "-" or NULL is stdout.  NULL on error (printed).  A
 * regular (or new) file is written beside it under a temporary name and
 * renamed over it by close_output once complete. */
FILE *open_output(const char *path);
/* Set by main when standard output was closed at start (it is /dev/null
 * now): open_output refuses to write the report there. */
extern int stdout_closed;
/* open_output, with everything written made safe to print in a CI log
 * (cisafe.h: no "##[" or line-leading "::" of a bundle's text becomes a
 * workflow command), in the escape of the format's language.  The FILE is
 * a filter in front of the output; term_width, want_color, close_output
 * and abandon_output see through it. */
FILE *open_output_safe(const char *path, enum cisafe_kind kind);
/* A filter like open_output_safe's in front of to (main: stderr). */
FILE *cisafe_stream(FILE *to, enum cisafe_kind kind);
/* Close an output that will not be completed (an error before the end):
 * its temporary file is removed, FILE stays as it was. */
void abandon_output(FILE *f);
/* Flush and close.  0; -1 on a write error (ENOSPC...: one message
 * printed); -2 when the reader closed the pipe (EPIPE: nothing printed). */
int close_output(FILE *f, const char *path);
/* The exit status after close_output returned rc: OUTPUT_EXIT_PIPE (141,
 * as for a filter killed by SIGPIPE) on -2, 2 on -1, else status. */
#define OUTPUT_EXIT_PIPE 141
int output_status(int rc, int status);

#endif
