/* commands.c - the table of subcommands that live in their own modules. */
#include "commands.h"

#include <stddef.h>

#include "cmd_verify.h"

const struct command EXTRA_COMMANDS[] = {
	{"mem", cmd_mem},
	{"verify", cmd_verify},
	{NULL, NULL},
};
