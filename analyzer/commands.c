/* commands.c - the table of subcommands that live in their own modules. */
#include "commands.h"

#include <stddef.h>

#include "cmd_verify.h"
#include "coverage.h"

int cmd_batch(int argc, char **argv); /* cmd_batch.c */
int cmd_merge(int argc, char **argv); /* cmd_merge.c */

const struct command EXTRA_COMMANDS[] = {
	{"batch", cmd_batch},
	{"coverage", cmd_coverage},
	{"merge", cmd_merge},
	{"mem", cmd_mem},
	{"verify", cmd_verify},
	{NULL, NULL},
};
