/* main.c - the nccl-triage program: the command line is commands.c's; here
 * only what a process needs around it (SIGPIPE, the last flush of stdout). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "clicommon.h"
#include "commands.h"

int main(int argc, char **argv)
{
	/* A closed pipe is EPIPE on a write (close_output), not a silent kill. */
	signal(SIGPIPE, SIG_IGN);
	int status = commands_main(argc, argv);
	/* What a command printed to stdout with printf (explain, version,
	 * check-db): flush it now and report a failure instead of losing it
	 * at exit.  Output already closed by close_output flushes to nothing. */
	errno = 0;
	int bad = ferror(stdout);
	if (fflush(stdout) != 0)
		bad = 1;
	if (bad && status != OUTPUT_EXIT_PIPE && status != EXIT_TROUBLE) {
		int e = errno ? errno : EIO;
		if (e == EPIPE) {
			status = OUTPUT_EXIT_PIPE;
		} else {
			fprintf(stderr, "nccl-triage: error writing 'standard output': %s\n", strerror(e));
			status = EXIT_TROUBLE;
		}
	}
	return status;
}
