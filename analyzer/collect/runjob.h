/* runjob.h - `nccl-triage run`'s supervision of the job: CMD in a process
 * group of its own, its stdout and stderr read from pipes (1 MiB each when
 * the kernel allows) and copied, as they come and in the order they come,
 * to this process's stdout/stderr and to the bundle's log, each through a
 * sink (sink.h) so that neither a slow terminal nor a full disk ever blocks
 * the reading; SIGINT, SIGTERM and SIGHUP forwarded to the group; a
 * --timeout that stops the group (SIGTERM, SIGKILL after kill_after_s).
 * When this process's stdout and stderr are one file (a terminal, one log)
 * the job gets one pipe for both, so their order is kept exactly; else
 * each has its own pipe and the log interleaves them in the order they are
 * read.  A stream that goes to a regular file is not piped at all: the job
 * writes to the file itself and the log copies from the file as it grows
 * (direct mode: no copy to the terminal by run; the log interleaves two
 * such files, or a file and a pipe, in the order each wake reads them). */
#ifndef NT_RUNJOB_H
#define NT_RUNJOB_H

#include <stdint.h>

struct run_spec {
	char **argv;
	char **envp;          /* the job's environment */
	int log_fd;           /* the bundle's copy of the output, -1: none */
	double timeout_s;     /* 0: none */
	double kill_after_s;  /* after a SIGTERM (timeout or forwarded) the group ignores */
};

struct run_result {
	int started;          /* 0: exec failed (exec_errno): status 127 (126 not allowed) */
	int exec_errno;
	int exited, exit_code, signaled, term_sig;
	int timed_out;        /* the --timeout stopped it */
	int killed;           /* SIGKILL was needed */
	int forwarded;        /* the last signal forwarded to it, 0 */
	int status;           /* run's exit status: exit_code, 128+N, 127/126 */
	int merged;           /* stdout and stderr shared one pipe (or, direct, one file) */
	int direct_out, direct_err; /* direct mode: the stream was a regular file, which the job
	                         wrote itself, and the log copied from it as it grew (runjob.c) */
	int direct_cut;       /* direct mode: the file shrank while followed (truncated elsewhere) */
	double ms;
	uint64_t out_bytes, err_bytes;
	uint64_t log_lost, out_lost, err_lost;     /* bytes the sinks could not write */
	int log_errno, out_errno, err_errno;
	uint64_t log_gaps, out_gaps, err_gaps;     /* "lost here" notes written */
	int tail_open;        /* processes of the job kept its pipes open after it ended: not waited for */
	double cpu_ms;        /* this process's own CPU time (all threads), not the job's */
	long max_rss_kib;
};

/* Run the job to its end.  0; -1 when pipes or threads could not be made
 * (nothing ran: exec_errno). */
int run_job(const struct run_spec *s, struct run_result *r);

#endif
