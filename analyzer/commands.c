/* commands.c - the table of subcommands that live in their own modules. */
#include "commands.h"

#include <stddef.h>

const struct command EXTRA_COMMANDS[] = {
	{NULL, NULL},
};
