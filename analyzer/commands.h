/* commands.h - subcommands implemented in their own modules (cmd_*.c).
 * Each gets argv with argv[0] = the command name, and returns the exit
 * status. */
#ifndef NT_COMMANDS_H
#define NT_COMMANDS_H

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
};

/* NULL-terminated; defined in commands.c. */
extern const struct command EXTRA_COMMANDS[];

int cmd_mem(int argc, char **argv);

#endif
