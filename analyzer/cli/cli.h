/* cli.h - the one option table of every command: it drives parsing and
 * each command's --help (curl's model), and the man page lists the same
 * options (tests/cli checks that they agree).  Commands are declared in
 * commands.c, formats in formats.c. */
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
	CMD_MEM = 1 << 6,
	CMD_VERIFY = 1 << 7,
	CMD_VERSION = 1 << 8,
	CMD_COVERAGE = 1 << 9,
	CMD_COLLECT = 1 << 10,
	CMD_RUN = 1 << 11, /* its first operand ends the options: CMD ARGS... */
};

enum opt_id {
	OPT_HELP = 1, OPT_FORMAT, OPT_OUTPUT, OPT_PATTERNS, OPT_NO_BUILTIN, OPT_COLOR, OPT_QUIET,
	OPT_EVIDENCE, OPT_MAX_MEMBER_BYTES, OPT_MAX_RATIO, OPT_MAX_BUNDLE_BYTES, OPT_MAX_MEMBERS,
	OPT_MAX_NESTING, OPT_MAX_DEPTH, OPT_MAX_ENTRIES, OPT_MAX_LINE, OPT_MAX_LINES, OPT_MATCH_LIMIT, OPT_KEEP_NAMES,
	OPT_REGEX, OPT_RULES, OPT_JOBS, OPT_SUMMARY_ONLY, OPT_PROGRESS, OPT_NAME,
	OPT_REDACT, OPT_FOLLOW_SYMLINKS, OPT_MATCH_BUDGET, OPT_FAIL_ON, OPT_QUIET_INFO, OPT_UNEXPLAINED,
	/* mem (cmd_mem.c) */
	OPT_MODEL, OPT_PARAMS, OPT_UNIT_PARAMS, OPT_DTYPE, OPT_MODE, OPT_MEM_GPUS, OPT_SHARD,
	OPT_PREFETCH, OPT_EXTRA, OPT_GPU, OPT_GPU_MEM, OPT_RESERVE, OPT_USABLE,
	/* verify (cmd_verify.c) */
	OPT_VERIFY_GPUS, OPT_NRANKS, OPT_ENV, OPT_UNSET, OPT_FROM_REPORT, OPT_SURVEY, OPT_TIMEOUT,
	OPT_SIZE, OPT_ITERS, OPT_NCCL_LIB, OPT_CUDA_LIB, OPT_LOGS, OPT_VERIFY_PATTERNS, OPT_NO_ANALYSIS,
	/* collect and run (cmd_collect.c, cmd_run.c) */
	OPT_DIR, OPT_BUDGET, OPT_BUNDLE, OPT_COLLECT, OPT_NO_COLLECT, OPT_ALWAYS, OPT_KILL_AFTER, OPT_NCCL_DEBUG_FILE,
};

struct cli_opt {
	const char *name;   /* long name without "--" */
	char shortname;     /* 0 when none */
	const char *arg;    /* argument placeholder, NULL for a flag */
	unsigned cmds;      /* which commands accept it (one name may have one entry per command) */
	enum opt_id id;
	const char *help;   /* for --format: the formats are listed from formats.c */
};

extern const struct cli_opt CLI_OPTS[];

/* Parse argv[*i]; on an option of cmd, sets *id and *arg (NULL for flags)
 * and advances *i.  Returns 1 for an option, 0 for an operand, 2 for "--"
 * (it ends options), -1 on error (message printed to stderr). */
int cli_next(int argc, char **argv, int *i, unsigned cmd, const char *cmdname,
             enum opt_id *id, const char **arg, int *no_more_opts);
/* The options of cmd, one per line ("  -f, --format FMT   help"); formats
 * is what the --format line lists (formats.c's format_list). */
void cli_help(FILE *out, unsigned cmd, const char *formats);
/* "--name" of an option id (for messages). */
const char *cli_opt_name(enum opt_id id);

#endif
