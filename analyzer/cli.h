/* cli.h - the option table that drives both parsing and --help (curl's
 * model), shared by every subcommand.  The man page lists the same options;
 * tests/cli/options.sh checks that they agree. */
#ifndef NT_CLI_H
#define NT_CLI_H

#include <stdio.h>

enum cmd_bit {
	CMD_ANALYZE = 1 << 0,
	CMD_BATCH = 1 << 1,
	CMD_CHECKDB = 1 << 2,
	CMD_LIST = 1 << 3,
	CMD_EXPLAIN = 1 << 4,
	CMD_MERGE = 1 << 5,
	CMD_COVERAGE = 1 << 6,
};

enum opt_id {
	OPT_HELP = 1, OPT_FORMAT, OPT_OUTPUT, OPT_PATTERNS, OPT_NO_BUILTIN, OPT_COLOR, OPT_QUIET,
	OPT_EVIDENCE, OPT_MAX_MEMBER_BYTES, OPT_MAX_RATIO, OPT_MAX_BUNDLE_BYTES, OPT_MAX_MEMBERS,
	OPT_MAX_NESTING, OPT_MAX_DEPTH, OPT_MAX_ENTRIES, OPT_MAX_LINE, OPT_MAX_LINES, OPT_MATCH_LIMIT,
	OPT_REGEX, OPT_RULES, OPT_JOBS, OPT_SUMMARY_ONLY, OPT_PROGRESS, OPT_NAME,
	OPT_REDACT, OPT_FOLLOW_SYMLINKS, OPT_MATCH_BUDGET,
};

struct cli_opt {
	const char *name;   /* long name without "--" */
	char shortname;     /* 0 when none */
	const char *arg;    /* argument placeholder, NULL for a flag */
	unsigned cmds;      /* which subcommands accept it */
	enum opt_id id;
	const char *help;
};

extern const struct cli_opt CLI_OPTS[];

/* Parse argv[*i]; on an option, sets *id and *arg (NULL for flags) and
 * advances *i.  Returns 1 for an option, 0 for an operand, -1 on error
 * (message printed to stderr).  "--" ends options. */
int cli_next(int argc, char **argv, int *i, unsigned cmd, const char *cmdname,
             enum opt_id *id, const char **arg, int *no_more_opts);
void cli_help(FILE *out, unsigned cmd);

#endif
