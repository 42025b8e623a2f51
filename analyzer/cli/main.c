/* main.c - the nccl-triage program: the command line is commands.c's; here
 * only what a process needs around it (closed standard descriptors,
 * cJSON's allocator, SIGPIPE, the last flush of stdout). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/clicommon.h"
#include "cli/commands.h"
#include "base/json.h"

/* Standard descriptors closed by the caller (`2>&-`): the first file
 * opened later would take the number, and the progress bar or messages
 * meant for stderr would land in the -o report.  Each closed one is opened
 * on /dev/null, in order, so that each open gets the lowest free number. */
static void std_fds_open(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		if (fd == 1)
			stdout_closed = 1;
		int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
		if (n >= 0 && n != fd) {
			/* a lower one was closed too and is taken by now: move it */
			dup2(n, fd);
			close(n);
		}
	}
}

int main(int argc, char **argv)
{
	std_fds_open();
	/* messages quote names and text of the bundle: none may become a CI
	 * runner's workflow command (cisafe.h); unbuffered, as stderr is */
	FILE *err0 = stderr, *err = cisafe_stream(stderr, CISAFE_TEXT);
	if (err) {
		setvbuf(err, NULL, _IONBF, 0);
		stderr = err;
	}
	json_use_xmalloc();
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
	if (err) {
		stderr = err0;
		fclose(err); /* what it held back, and its memory */
	}
	return status;
}
