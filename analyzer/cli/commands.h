/* commands.h - the one registry of commands.  Every command is declared
 * the same way: a row of COMMANDS (commands.c) with its name, the options
 * it takes (its CMD_* bit in the option table, cli.c), its usage line, its
 * line in `nccl-triage --help`, and a run function that gets the parsed
 * common options and its operands.  A command's own options (mem's model
 * and GPU, verify's environment) are in the same option table and reach
 * it, in order, as c->args. */
#ifndef NT_COMMANDS_H
#define NT_COMMANDS_H

#include <stdio.h>
#include "base/util.h"

struct common;

struct command {
	const char *name;
	const char *alias;      /* another accepted spelling ("analyse"), or NULL */
	unsigned bit;           /* CMD_* of cli.h */
	const char *synopsis;   /* after "usage: nccl-triage " in its --help */
	const char *brief;      /* left column of `nccl-triage --help` (NULL: not listed) */
	const char *summary;    /* right column; '\n' continues on the next line */
	const char *about;      /* printed under the usage line of its --help, or NULL */
	void (*help_more)(FILE *out); /* printed after the options, or NULL */
	int (*run)(struct common *c, struct strvec *ops);
};

extern const struct command COMMANDS[];

/* Exit statuses of analyze, batch, merge, check-db, list, explain (the man
 * page's EXIT STATUS; mem and verify document their own). */
enum { EXIT_HEALTHY = 0, EXIT_FOUND = 1, EXIT_TROUBLE = 2 };

/* The whole command line: argv[1] names the command.  Returns the exit status. */
int commands_main(int argc, char **argv);

/* The commands (cmd_*.c). */
int cmd_analyze(struct common *c, struct strvec *ops);
int cmd_batch(struct common *c, struct strvec *ops);
int cmd_merge(struct common *c, struct strvec *ops);
int cmd_verify(struct common *c, struct strvec *ops);
int cmd_mem(struct common *c, struct strvec *ops);
int cmd_check_db(struct common *c, struct strvec *ops);
int cmd_list(struct common *c, struct strvec *ops);
int cmd_explain(struct common *c, struct strvec *ops);
int cmd_coverage(struct common *c, struct strvec *ops);
int cmd_collect(struct common *c, struct strvec *ops);
int cmd_run(struct common *c, struct strvec *ops);
void cmd_mem_help(FILE *out);
void cmd_run_help(FILE *out);
/* Shared by collect and run (cmd_collect.c): a --timeout-like number of
 * seconds (> 0; -1 and a message when not); the names --redact hides
 * besides what the files show (this host's, the user's), NULL-terminated. */
int cli_seconds(const char *opt, const char *v, double *out);
void cli_own_names(const char *shortname, const char *full, const char *hosts[4], const char *users[4]);
extern const char CMD_VERIFY_EXIT_STATUS[];

#endif
