/* proc.h - the child processes of `collect` and `run`.  Each child runs in
 * a process group of its own (a timeout stops it and whatever it started),
 * with its signal dispositions and mask reset (SIGPIPE and SIGXFSZ ignored
 * here would otherwise be ignored there too), in the environment the
 * caller gives.  An exec that fails is told apart from a command that
 * fails: the child writes execvp's errno to a close-on-exec pipe, which the
 * parent reads before it returns (EOF: the exec succeeded).
 *
 * proc_run_all runs many short commands, a few at a time, each with its own
 * timeout inside a total budget, keeping a bounded head of their output. */
#ifndef NT_PROC_H
#define NT_PROC_H

#include <stdint.h>
#include <sys/types.h>
#include "base/util.h"

/* Start argv (argv[0] looked up in PATH) with the environment envp, stdin
 * in_fd (-1: /dev/null), stdout out_fd and stderr err_fd, in a new process
 * group whose id is the returned pid; cwd NULL keeps the current folder.
 * Returns the pid, or -1 with *err the errno of fork or of execvp (the
 * child then has been reaped). */
pid_t proc_spawn(char *const argv[], char *const envp[], int in_fd, int out_fd, int err_fd, const char *cwd,
                 int *err);

/* Seconds on the monotonic clock. */
double proc_now(void);

enum proc_state {
	PROC_PENDING,     /* not started yet */
	PROC_EXITED,      /* exit_code */
	PROC_SIGNALED,    /* term_sig: a signal we did not send */
	PROC_TIMEOUT,     /* its timeout ran out: stopped with SIGTERM, SIGKILL after a second */
	PROC_BUDGET,      /* the total budget ran out while it ran (stopped) or before it could start */
	PROC_EXEC_FAILED, /* exec_errno: ENOENT (not installed), EACCES (not allowed) ... */
	PROC_SPAWN_FAILED /* pipe or fork failed: exec_errno */
};

struct proc_job {
	/* in */
	char **argv;        /* borrowed */
	size_t out_cap;     /* bytes of stdout kept (the rest is counted) */
	size_t err_cap;     /* bytes of stderr kept */
	double timeout_s;
	/* out */
	enum proc_state state;
	int exit_code, term_sig, exec_errno;
	double ms;
	struct buf out, err; /* owned; free with proc_job_free */
	uint64_t out_total, err_total;
	/* internal */
	pid_t pid;
	int fd_out, fd_err;
	double t0, deadline, kill_at, reaped_at;
	int term_sent, reaped, by_budget;
};

/* Run every job, at most parallel at a time, in table order; a job starts
 * only while the budget (seconds from the call) lasts. */
void proc_run_all(struct proc_job *jobs, size_t n, size_t parallel, double budget_s, char *const envp[]);
void proc_job_free(struct proc_job *j);

#endif
