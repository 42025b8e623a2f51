/* proc.c - see proc.h. */
#include "collect/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double proc_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* In the child, between fork and exec: async-signal-safe calls only. */
static void child_exec(char *const argv[], char *const envp[], int in_fd, int out_fd, int err_fd, const char *cwd,
                       int report_fd)
{
	static const int sigs[] = {SIGPIPE, SIGXFSZ, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD, SIGTTOU, SIGTTIN, SIGALRM};
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		signal(sigs[i], SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setpgid(0, 0);
	int nul = -1;
	if (in_fd < 0) {
		nul = open("/dev/null", O_RDONLY);
		in_fd = nul;
	}
	if ((in_fd >= 0 && in_fd != 0 && dup2(in_fd, 0) < 0) || (out_fd != 1 && dup2(out_fd, 1) < 0) ||
	    (err_fd != 2 && dup2(err_fd, 2) < 0))
		goto fail;
	if (cwd && chdir(cwd) < 0)
		goto fail;
	execvpe(argv[0], argv, envp);
fail:;
	int e = errno;
	ssize_t w = write(report_fd, &e, sizeof e);
	(void)w;
	_exit(127);
}

pid_t proc_spawn(char *const argv[], char *const envp[], int in_fd, int out_fd, int err_fd, const char *cwd,
                 int *err)
{
	int rep[2];
	*err = 0;
	if (pipe2(rep, O_CLOEXEC) < 0) {
		*err = errno;
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		*err = errno;
		close(rep[0]);
		close(rep[1]);
		return -1;
	}
	if (pid == 0) {
		close(rep[0]);
		child_exec(argv, envp, in_fd, out_fd, err_fd, cwd, rep[1]);
	}
	close(rep[1]);
	setpgid(pid, pid); /* also here: whichever of the two runs first */
	int e = 0;
	ssize_t r;
	do
		r = read(rep[0], &e, sizeof e);
	while (r < 0 && errno == EINTR);
	close(rep[0]);
	if (r == (ssize_t)sizeof e) {
		*err = e ? e : ENOEXEC;
		int st;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		return -1;
	}
	return pid;
}

void proc_job_free(struct proc_job *j)
{
	buf_free(&j->out);
	buf_free(&j->err);
}

static void start(struct proc_job *j, char *const envp[], double now, double budget_end)
{
	int po[2], pe[2];
	buf_init(&j->out);
	buf_init(&j->err);
	j->t0 = now;
	j->fd_out = j->fd_err = -1;
	if (pipe2(po, O_CLOEXEC) < 0) {
		j->state = PROC_SPAWN_FAILED;
		j->exec_errno = errno;
		return;
	}
	if (pipe2(pe, O_CLOEXEC) < 0) {
		j->state = PROC_SPAWN_FAILED;
		j->exec_errno = errno;
		close(po[0]);
		close(po[1]);
		return;
	}
	int e;
	pid_t pid = proc_spawn(j->argv, envp, -1, po[1], pe[1], "/", &e);
	close(po[1]);
	close(pe[1]);
	if (pid < 0) {
		close(po[0]);
		close(pe[0]);
		j->state = e == EAGAIN || e == ENOMEM ? PROC_SPAWN_FAILED : PROC_EXEC_FAILED;
		j->exec_errno = e;
		j->ms = (proc_now() - now) * 1000;
		return;
	}
	fcntl(po[0], F_SETFL, O_NONBLOCK);
	fcntl(pe[0], F_SETFL, O_NONBLOCK);
	j->pid = pid;
	j->fd_out = po[0];
	j->fd_err = pe[0];
	j->deadline = now + j->timeout_s;
	if (j->deadline > budget_end) {
		j->deadline = budget_end;
		j->by_budget = 1;
	}
}

/* Read what fd has; keep up to cap bytes in b, count all. */
static void drain(int *fd, struct buf *b, size_t cap, uint64_t *total)
{
	char tmp[65536];
	for (;;) {
		ssize_t r = read(*fd, tmp, sizeof tmp);
		if (r > 0) {
			*total += (uint64_t)r;
			if (b->len < cap)
				buf_add(b, tmp, (size_t)r < cap - b->len ? (size_t)r : cap - b->len);
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return;
		close(*fd); /* EOF or an error */
		*fd = -1;
		return;
	}
}

/* The leader ended: stop what it left in its group (it is a zombie until
 * reaped, so the group id cannot be reused meanwhile), then reap it. */
static int try_reap(struct proc_job *j, double now)
{
	siginfo_t si;
	memset(&si, 0, sizeof si);
	if (waitid(P_PID, (id_t)j->pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid != j->pid)
		return 0;
	kill(-j->pid, SIGKILL);
	int st = 0;
	while (waitpid(j->pid, &st, 0) < 0 && errno == EINTR)
		;
	j->reaped = 1;
	j->reaped_at = now;
	j->ms = (now - j->t0) * 1000;
	if (WIFEXITED(st)) {
		j->exit_code = WEXITSTATUS(st);
		j->state = PROC_EXITED;
	} else {
		j->term_sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
		j->state = PROC_SIGNALED;
	}
	if (j->term_sent)
		j->state = j->by_budget ? PROC_BUDGET : PROC_TIMEOUT;
	return 1;
}

/* One job's timers: SIGTERM at the deadline, SIGKILL a second later; the
 * pipes of a reaped job are given a second to reach EOF.  1 when done. */
static int tick(struct proc_job *j, double now)
{
	if (!j->reaped) {
		if (!j->term_sent && now >= j->deadline) {
			kill(-j->pid, SIGTERM);
			j->term_sent = 1;
			j->kill_at = now + 1.0;
		} else if (j->term_sent && now >= j->kill_at) {
			kill(-j->pid, SIGKILL);
			j->kill_at = now + 3600;
		}
		try_reap(j, now);
	}
	if (j->reaped && (j->fd_out >= 0 || j->fd_err >= 0) && now - j->reaped_at > 1.0) {
		if (j->fd_out >= 0)
			close(j->fd_out);
		if (j->fd_err >= 0)
			close(j->fd_err);
		j->fd_out = j->fd_err = -1;
	}
	return j->reaped && j->fd_out < 0 && j->fd_err < 0;
}

void proc_run_all(struct proc_job *jobs, size_t n, size_t parallel, double budget_s, char *const envp[])
{
	double budget_end = proc_now() + budget_s;
	size_t next = 0, running = 0;
	size_t *run = xcalloc(parallel ? parallel : 1, sizeof *run);
	struct pollfd *pf = xcalloc(2 * (parallel ? parallel : 1), sizeof *pf);
	if (parallel == 0)
		parallel = 1;
	for (size_t i = 0; i < n; i++)
		jobs[i].state = PROC_PENDING;
	for (;;) {
		double now = proc_now();
		while (running < parallel && next < n) {
			struct proc_job *j = &jobs[next];
			if (now >= budget_end) {
				buf_init(&j->out);
				buf_init(&j->err);
				j->state = PROC_BUDGET;
				next++;
				continue;
			}
			start(j, envp, now, budget_end);
			if (j->state == PROC_PENDING)
				run[running++] = next;
			next++;
		}
		if (running == 0 && next >= n)
			break;
		size_t np = 0;
		for (size_t k = 0; k < running; k++) {
			struct proc_job *j = &jobs[run[k]];
			if (j->fd_out >= 0)
				pf[np++] = (struct pollfd){j->fd_out, POLLIN, 0};
			if (j->fd_err >= 0)
				pf[np++] = (struct pollfd){j->fd_err, POLLIN, 0};
		}
		/* short naps: exits and deadlines are checked between them */
		if (poll(pf, np, 50) < 0 && errno != EINTR)
			break;
		now = proc_now();
		for (size_t k = 0; k < running;) {
			struct proc_job *j = &jobs[run[k]];
			if (j->fd_out >= 0)
				drain(&j->fd_out, &j->out, j->out_cap, &j->out_total);
			if (j->fd_err >= 0)
				drain(&j->fd_err, &j->err, j->err_cap, &j->err_total);
			if (tick(j, now))
				run[k] = run[--running];
			else
				k++;
		}
	}
	free(run);
	free(pf);
}
