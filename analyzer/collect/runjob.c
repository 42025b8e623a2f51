/* runjob.c - see runjob.h. */
#include "collect/runjob.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "collect/proc.h"
#include "collect/sink.h"

#define READ_CHUNK (256u << 10)
#define PIPE_SIZE (1 << 20)
#define TTY_RING (1u << 20)
#define LOG_RING (8u << 20)
/* the least room at the log ring's tail worth reading into */
#define DIRECT_MIN (64u << 10)
/* After the job's process ended, how long processes it left may keep its
 * pipes open before run stops reading them. */
#define TAIL_GRACE_S 2.0
/* A wake that read less than half a pipe (the size the kernel gave it)
 * naps before the next poll, so that one read takes many of the job's
 * writes instead of one line: the wakes of this loop and of the sinks cost
 * more than the copying (bench/overhead.sh; naps of 25 ms cost a fifth more
 * CPU than 50).  The nap never holds the job up: at the rate the job wrote
 * since the pipes were last read empty, it lasts no longer than half a pipe
 * takes to fill, less NAP_SLACK_MS for a late wake, and none is shorter
 * than 1 ms (with 1 MiB pipes a 10 MB/s job gets the full NAP_MS; with
 * the 64 KiB a kernel may impose, naps shrink to what the rate allows).
 * NAP_MS bounds the delay of a line to the terminal: NAP_MS plus the write. */
#define NAP_MS 50
/* How long the log may take to drain at the end (finish_sink's wait). */
#define LOG_DRAIN_S 30
#define NAP_SLACK_MS 5

static int sig_w = -1;

static void on_signal(int sig)
{
	int e = errno;
	unsigned char c = (unsigned char)sig;
	ssize_t w = write(sig_w, &c, 1);
	(void)w;
	errno = e;
}

static const int FORWARDED[] = {SIGINT, SIGTERM, SIGHUP, SIGCHLD};
#define NSIG_HANDLED (sizeof FORWARDED / sizeof *FORWARDED)

static int same_file(int a, int b)
{
	struct stat x, y;
	if (fstat(a, &x) < 0 || fstat(b, &y) < 0)
		return 0;
	return x.st_dev == y.st_dev && x.st_ino == y.st_ino && x.st_rdev == y.st_rdev;
}

struct loop {
	const struct run_spec *s;
	struct run_result *r;
	pid_t pid;
	int fd[2];            /* stdout, stderr pipes (fd[1] -1 when merged) */
	struct sink *to[2];   /* the terminal sink of each */
	struct sink *log;
	int sig_r;
	double t0, kill_at, reaped_at;
	int term_sent, reaped;
	char *buf;
	size_t nap_below;     /* half the smaller pipe */
	size_t last_got;      /* bytes the last wake read */
	struct follow {       /* direct mode of stdout (0), stderr (1): run_job */
		int fd;       /* the file the job writes, opened for reading; -1: not direct */
		int append;   /* the job writes it O_APPEND (at its end) */
		off_t off;    /* the file's bytes before off are in the log */
	} fw[2];
	int nfollow;
	double followed_at;   /* direct mode: when the files were last read */
};

/* Pipe mode pays off for big pieces: a wake that reads a few KiB (a job
 * writing so fast that no nap is allowed) costs more through tee, splice
 * and the sinks' splices than through one read (bench/overhead.sh on the
 * GPU host: 100 MB/s took 2.4 times the CPU through the pipes). */
#define PIPE_MODE_MIN (64u << 10)

/* What fd k has, handed on without copying (sink.h's pipe mode): tee'd
 * into the pipe of one sink whose ring is empty, then moved (spliced) into
 * the other's pipe, or read and pushed into its ring when its pipe cannot
 * take it.  Bytes handed on; 0 when no pipe can be used now or the job's
 * pipe is empty (the read path then decides which). */
static size_t pump_pipes(struct loop *L, int k)
{
	struct sink *a = L->to[k], *b = L->log;
	int ra = sink_pipe_ready(a), rb = b && sink_pipe_ready(b);
	if (!ra && !rb)
		return 0;
	if (!ra) {
		a = b;
		b = L->to[k];
		rb = 0;
	}
	ssize_t n;
	do
		n = b ? tee(L->fd[k], a->pin[1], PIPE_SIZE, SPLICE_F_NONBLOCK)
		      : splice(L->fd[k], NULL, a->pin[1], NULL, PIPE_SIZE, SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		if (n < 0 && errno == EINVAL)
			sink_pipe_off(a);
		return 0; /* EAGAIN: the job's pipe empty or a's full; the read path tells */
	}
	sink_pipe_commit(a, (size_t)n);
	if (!b)
		return (size_t)n;
	/* the same n bytes, still in the job's pipe, for b */
	size_t m = 0;
	if (rb) {
		ssize_t w;
		do
			w = splice(L->fd[k], NULL, b->pin[1], NULL, (size_t)n, SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
		while (w < 0 && errno == EINTR);
		if (w > 0)
			m = (size_t)w;
		else if (w < 0 && errno == EINVAL)
			sink_pipe_off(b);
		sink_pipe_commit(b, m);
	}
	while (m < (size_t)n) {
		ssize_t r = read(L->fd[k], L->buf, (size_t)n - m < READ_CHUNK ? (size_t)n - m : READ_CHUNK);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break; /* cannot be: the tee'd bytes are there */
		sink_push(b, L->buf, (size_t)r);
		m += (size_t)r;
	}
	return (size_t)n;
}

/* Read what fd k has (at most 4 reads), hand it to its sinks.  Bytes read.
 * Through the sinks' pipes when they can take it; else a read goes
 * straight into the log's ring when it has the room (one copy fewer:
 * bench/overhead.sh), else into buf and is pushed. */
static size_t pump(struct loop *L, int k)
{
	size_t got = 0;
	for (int i = 0; i < 4 && L->fd[k] >= 0; i++) {
		size_t piped = L->last_got >= PIPE_MODE_MIN ? pump_pipes(L, k) : 0;
		if (piped) {
			if (k == 0)
				L->r->out_bytes += (uint64_t)piped;
			else
				L->r->err_bytes += (uint64_t)piped;
			got += piped;
			break; /* a tee takes all the pipe holds: another would find it empty */
		}
		size_t room = READ_CHUNK;
		char *p = L->log ? sink_reserve(L->log, DIRECT_MIN, &room) : NULL;
		if (room > READ_CHUNK)
			room = READ_CHUNK;
		ssize_t n = read(L->fd[k], p ? p : L->buf, room);
		if (p)
			sink_commit(L->log, n > 0 ? (size_t)n : 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			close(L->fd[k]);
			L->fd[k] = -1;
			break;
		}
		if (k == 0)
			L->r->out_bytes += (uint64_t)n;
		else
			L->r->err_bytes += (uint64_t)n;
		/* p stays readable after the commit: only this thread writes the ring */
		sink_push(L->to[k], p ? p : L->buf, (size_t)n);
		if (L->log && !p)
			sink_push(L->log, L->buf, (size_t)n);
		got += (size_t)n;
		if ((size_t)n < room)
			break;
	}
	return got;
}

/* Direct mode (run_job): the job writes to run's own stdout or stderr, a
 * regular file, itself; what it added since the last read goes from the
 * file into the log by splice(2) into the log sink's pipe (page
 * references, no copy in run's memory), else read and pushed.  A file that
 * shrank (cut by someone else) is said in the record. */
static int follow_one(struct loop *L, int k, int force)
{
	struct follow *f = &L->fw[k];
	struct stat st;
	if (f->fd < 0 || fstat(f->fd, &st) < 0)
		return 1;
	if (st.st_size < f->off) {
		/* cut by someone else (logrotate's copytruncate): an O_APPEND job
		 * writes on at the new end; any other writes on at its offset,
		 * which is past off when the log had caught up (else the bytes
		 * between were lost with the cut, and read as the hole's zeros) */
		L->r->direct_cut = 1;
		if (f->append)
			f->off = st.st_size;
		return 1;
	}
	/* the bytes written through the job's file description: its offset,
	 * which the job shares (it inherited run's fd), bounds them, so that
	 * old bytes past it (a file opened without truncating, `1<>file`) are
	 * not read as the job's; an O_APPEND description writes at the end */
	off_t end = st.st_size;
	if (!f->append) {
		off_t cur = lseek(k + 1, 0, SEEK_CUR);
		if (cur >= 0 && cur < end)
			end = cur;
	}
	while (f->off < end) {
		size_t want = (size_t)(end - f->off);
		ssize_t n = -1;
		if (sink_pipe_ready(L->log)) {
			do
				n = splice(f->fd, &f->off, L->log->pin[1], NULL, want < PIPE_SIZE ? want : PIPE_SIZE,
				           SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
			while (n < 0 && errno == EINTR);
			if (n > 0) {
				sink_pipe_commit(L->log, (size_t)n);
			} else if (n < 0 && errno == EINVAL) {
				sink_pipe_off(L->log);
			} else if (n < 0 && errno == EAGAIN && !force) {
				return 0; /* the log's pipe is full: its thread writes; the next read goes on */
			}
		}
		if (n < 0) {
			do
				n = pread(f->fd, L->buf, want < READ_CHUNK ? want : READ_CHUNK, f->off);
			while (n < 0 && errno == EINTR);
			if (n > 0) {
				sink_push(L->log, L->buf, (size_t)n);
				f->off += n;
			}
		}
		if (n <= 0)
			return 1; /* cannot be before the size fstat gave (but a file cut meanwhile) */
		if (k == 0)
			L->r->out_bytes += (uint64_t)n;
		else
			L->r->err_bytes += (uint64_t)n;
	}
	return 1;
}

/* The files' new bytes into the log; 1 when all are there.  force: a full
 * log pipe sends the rest through the log's ring (which counts what it
 * cannot take as lost) instead of leaving it for the next read. */
static int follow(struct loop *L, int force)
{
	int done = 1;
	for (int k = 0; k < 2 && L->nfollow; k++)
		done &= follow_one(L, k, force);
	return done;
}

/* After the job: what the files gained since the last read (up to NAP_MS
 * of output, more than the log's pipe holds at a high rate) waits for the
 * log's pipe to drain, as finish_sink waits for the log, then goes through
 * the ring. */
static void follow_last(struct loop *L)
{
	double until = proc_now() + LOG_DRAIN_S;
	while (!follow(L, 0) && proc_now() < until) {
		struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL);
	}
	follow(L, 1);
}

static void close_follows(struct loop *L)
{
	for (int k = 0; k < 2; k++)
		if (L->fw[k].fd >= 0) {
			close(L->fw[k].fd);
			L->fw[k].fd = -1;
		}
	L->nfollow = 0;
}

static void reap(struct loop *L, double now)
{
	int st;
	pid_t w = waitpid(L->pid, &st, WNOHANG);
	if (w != L->pid)
		return;
	L->reaped = 1;
	L->reaped_at = now;
	L->r->ms = (now - L->t0) * 1000;
	if (WIFEXITED(st)) {
		L->r->exited = 1;
		L->r->exit_code = WEXITSTATUS(st);
		L->r->status = L->r->exit_code;
	} else if (WIFSIGNALED(st)) {
		L->r->signaled = 1;
		L->r->term_sig = WTERMSIG(st);
		L->r->status = 128 + L->r->term_sig;
	}
}

/* The signals caught since the last wake: forwarded, and a SIGCHLD reaps.
 * waitpid only then (or once the pipes are closed, should a SIGCHLD have
 * been lost to a full signal pipe), not at every wake. */
static void signals(struct loop *L, double now)
{
	unsigned char c[64];
	ssize_t n;
	int child = L->fd[0] < 0 && L->fd[1] < 0;
	while ((n = read(L->sig_r, c, sizeof c)) > 0)
		for (ssize_t i = 0; i < n; i++) {
			if (c[i] == SIGCHLD) {
				child = 1;
				continue;
			}
			if (!L->reaped) {
				kill(-L->pid, c[i]);
				L->r->forwarded = c[i];
			}
		}
	if (!L->reaped && child)
		reap(L, now);
}

/* --timeout and the SIGKILL after it. */
static void timers(struct loop *L, double now)
{
	if (L->reaped)
		return;
	if (L->s->timeout_s > 0 && !L->term_sent && now - L->t0 >= L->s->timeout_s) {
		kill(-L->pid, SIGTERM);
		L->term_sent = 1;
		L->r->timed_out = 1;
		L->kill_at = now + L->s->kill_after_s;
	} else if (L->term_sent && now >= L->kill_at && !L->r->killed) {
		kill(-L->pid, SIGKILL);
		L->r->killed = 1;
	}
}

/* Milliseconds until the next timer, -1 when none. */
static int next_wake(const struct loop *L, double now)
{
	double at = -1;
	if (!L->reaped && L->s->timeout_s > 0 && !L->term_sent)
		at = L->t0 + L->s->timeout_s;
	if (!L->reaped && L->term_sent && !L->r->killed)
		at = L->kill_at;
	if (L->reaped)
		at = L->reaped_at + TAIL_GRACE_S;
	if (!L->reaped && L->fd[0] < 0 && L->fd[1] < 0)
		return 100; /* only the job's end is awaited: a lost SIGCHLD costs 100 ms */
	if (at < 0)
		return -1;
	double ms = (at - now) * 1000 + 1;
	return ms < 0 ? 0 : ms > 60000 ? 60000 : (int)ms;
}

static void loop_run(struct loop *L)
{
	double emptied = proc_now(); /* when the pipes were last read empty */
	for (;;) {
		if (L->reaped && L->fd[0] < 0 && L->fd[1] < 0) {
			follow_last(L); /* direct mode: the job's last bytes */
			break;
		}
		double now = proc_now();
		if (L->reaped && now - L->reaped_at >= TAIL_GRACE_S) {
			L->r->tail_open = 1;
			break;
		}
		struct pollfd pf[3];
		int np = 0, at[2] = {-1, -1};
		pf[np++] = (struct pollfd){L->sig_r, POLLIN, 0};
		for (int k = 0; k < 2; k++)
			if (L->fd[k] >= 0) {
				at[k] = np;
				pf[np++] = (struct pollfd){L->fd[k], POLLIN, 0};
			}
		int wake = next_wake(L, now);
		if (L->nfollow && (wake < 0 || wake > NAP_MS))
			wake = NAP_MS; /* direct mode: no pipe says when the files grew; they are read every NAP_MS */
		int ready = poll(pf, (nfds_t)np, wake);
		if (ready < 0 && errno != EINTR)
			break;
		now = proc_now();
		if ((ready > 0 && pf[0].revents) || (L->fd[0] < 0 && L->fd[1] < 0))
			signals(L, now); /* the second: a SIGCHLD lost to a full signal pipe (next_wake) */
		size_t got = 0;
		/* only the pipes poll found readable (or at their end): an empty
		 * one's read would only say EAGAIN */
		for (int k = 0; k < 2; k++)
			if (L->fd[k] >= 0 && ready > 0 && pf[at[k]].revents)
				got += pump(L, k);
		timers(L, now);
		/* the files every NAP_MS, not at every wake of a busy pipe: an
		 * fstat each (a job writing 100 MB/s to the pipe wakes this loop
		 * thousands of times a second; bench/overhead.sh) */
		if (L->nfollow && now - L->followed_at >= NAP_MS / 1000.0) {
			follow(L, 0);
			L->followed_at = now;
		}
		/* a job that writes many small pieces would wake this loop for
		 * each: while it writes and is far from filling a pipe, nap, so
		 * that one read takes many pieces; at the rate of the last wait,
		 * no longer than it takes to fill half a pipe */
		double t = proc_now(), ms = (t - emptied) * 1000;
		emptied = t;
		if (got)
			L->last_got = got;
		if (got > 0 && got < L->nap_below && !L->reaped) {
			ms = ms * (double)L->nap_below / (double)got - NAP_SLACK_MS;
			if (ms > NAP_MS)
				ms = NAP_MS;
			struct timespec nap = {0, (long)(ms * 1e6)};
			if (ms >= 1)
				nanosleep(&nap, NULL);
		}
	}
	for (int k = 0; k < 2; k++)
		if (L->fd[k] >= 0) {
			close(L->fd[k]);
			L->fd[k] = -1;
		}
	if (!L->reaped) {
		/* the loop failed: wait for the job itself */
		int st;
		while (waitpid(L->pid, &st, 0) < 0 && errno == EINTR)
			;
		L->r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
}

/* A pipe for the job, 1 MiB when the kernel allows (fs.pipe-max-size);
 * *half becomes half its size when that is smaller. */
static int make_pipe(int p[2], size_t *half)
{
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	fcntl(p[0], F_SETPIPE_SZ, PIPE_SIZE); /* best effort: 64 KiB otherwise */
	int sz = fcntl(p[0], F_GETPIPE_SZ);
	size_t h = sz > 0 ? (size_t)sz / 2 : 4096;
	if (h < *half)
		*half = h;
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	return 0;
}

/* Direct mode of run's fd out (1 or 2): when it is a regular file (`>
 * job.log 2>&1`, sbatch's --output) the job gets that file itself (no pipe,
 * no copy by run: the copy to the terminal was half of run's CPU,
 * bench/overhead.sh), and the log follows the file from where it stood
 * (its end when it is opened O_APPEND).  Only when the file can be opened
 * again for reading and is the same file; else the pipe.  The fd read, or
 * -1. */
static int open_direct(int out, off_t *start, int *append)
{
	struct stat a, b;
	if (fstat(out, &a) < 0 || !S_ISREG(a.st_mode))
		return -1;
	int fl = fcntl(out, F_GETFL);
	off_t at = fl >= 0 && (fl & O_APPEND) ? a.st_size : lseek(out, 0, SEEK_CUR);
	if (fl < 0 || at < 0)
		return -1;
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", out);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	if (fstat(fd, &b) < 0 || b.st_dev != a.st_dev || b.st_ino != a.st_ino) {
		close(fd);
		return -1;
	}
	*start = at;
	*append = (fl & O_APPEND) != 0;
	return fd;
}

/* Finish and free a sink (its struct too), unless its thread is left
 * stuck in a write: then the thread keeps it (sink_free leaves it). */
static void finish_sink(struct sink *s, double wait_s, uint64_t *lost, int *err, uint64_t *gaps)
{
	sink_finish(s, wait_s);
	*lost = s->lost;
	*err = s->err;
	*gaps = s->gaps;
	int stuck = s->started == 2;
	sink_free(s);
	if (!stuck)
		free(s);
}

int run_job(const struct run_spec *s, struct run_result *r)
{
	memset(r, 0, sizeof *r);
	struct loop L;
	memset(&L, 0, sizeof L);
	L.s = s;
	L.r = r;
	L.fd[0] = L.fd[1] = -1;
	L.nap_below = PIPE_SIZE / 2;
	int sp[2], po[2] = {-1, -1}, pe[2] = {-1, -1};
	r->merged = same_file(1, 2);
	for (int k = 0; k < 2; k++) {
		L.fw[k].fd = -1;
		if (s->log_fd >= 0 && (k == 0 || !r->merged))
			L.fw[k].fd = open_direct(k + 1, &L.fw[k].off, &L.fw[k].append);
		L.nfollow += L.fw[k].fd >= 0;
	}
	r->direct_out = L.fw[0].fd >= 0;
	r->direct_err = r->merged ? r->direct_out : L.fw[1].fd >= 0;
	if (pipe2(sp, O_CLOEXEC | O_NONBLOCK) < 0 || (!r->direct_out && make_pipe(po, &L.nap_below) < 0) ||
	    (!r->merged && !r->direct_err && make_pipe(pe, &L.nap_below) < 0)) {
		r->exec_errno = errno; /* before close_follows' close() can change it */
		close_follows(&L);
		return -1;
	}
	sig_w = sp[1];
	L.sig_r = sp[0];
	struct sigaction sa, old[NSIG_HANDLED];
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSIG_HANDLED; i++)
		sigaction(FORWARDED[i], &sa, &old[i]);
	L.t0 = proc_now();
	int e = 0;
	/* a direct stream is run's own fd, inherited; a merged one the same for both */
	int out_fd = r->direct_out ? 1 : po[1];
	L.pid = proc_spawn(s->argv, s->envp, 0, out_fd, r->merged ? out_fd : r->direct_err ? 2 : pe[1], NULL, &e);
	if (po[1] >= 0)
		close(po[1]);
	if (pe[1] >= 0)
		close(pe[1]);
	L.fd[0] = po[0];
	L.fd[1] = pe[0];
	int rc = 0;
	if (L.pid < 0) {
		r->exec_errno = e;
		r->status = e == ENOENT ? 127 : 126;
		for (int k = 0; k < 2; k++)
			if (L.fd[k] >= 0)
				close(L.fd[k]);
	} else {
		r->started = 1;
		/* on the heap: a sink whose thread is left stuck in a write
		 * (sink_finish) is never freed, and must outlive this frame; a
		 * direct stream has no terminal sink (the job writes its file) */
		struct sink *out = r->direct_out ? NULL : xcalloc(1, sizeof *out),
		            *err = r->merged || r->direct_err ? NULL : xcalloc(1, sizeof *err),
		            *log = s->log_fd >= 0 ? xcalloc(1, sizeof *log) : NULL;
		if (out)
			sink_start(out, 1, TTY_RING, PIPE_SIZE, "the terminal (stdout) was too slow; the bundle's log has them");
		if (err)
			sink_start(err, 2, TTY_RING, PIPE_SIZE, "the terminal (stderr) was too slow; the bundle's log has them");
		if (log)
			sink_start(log, s->log_fd, LOG_RING, PIPE_SIZE, "the disk was too slow");
		L.to[0] = out; /* NULL only for a direct stream, whose fd[] is -1 */
		L.to[1] = r->merged ? out : err;
		L.log = log;
		L.buf = xmalloc(READ_CHUNK);
		loop_run(&L);
		free(L.buf);
		close_follows(&L);
		if (out)
			finish_sink(out, 5, &r->out_lost, &r->out_errno, &r->out_gaps);
		if (err)
			finish_sink(err, 5, &r->err_lost, &r->err_errno, &r->err_gaps);
		if (log)
			finish_sink(log, LOG_DRAIN_S, &r->log_lost, &r->log_errno, &r->log_gaps);
	}
	for (size_t i = 0; i < NSIG_HANDLED; i++)
		sigaction(FORWARDED[i], &old[i], NULL);
	sig_w = -1;
	close(sp[0]);
	close(sp[1]);
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		r->cpu_ms = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
		            (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
		r->max_rss_kib = ru.ru_maxrss;
	}
	return rc;
}
