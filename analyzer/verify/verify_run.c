/* verify_run.c - the parent side of verify: fork the children of a run into
 * one process group, collect their NCCL output and status lines, relay the
 * unique id, enforce the deadline (SIGTERM, then SIGKILL, then reap), and
 * judge the run.  Also the probe of the host.  Never prints. */
#include "verify/verify_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct gchild {
	int ctl, out;          /* parent ends, -1 when closed */
	struct buf partial;    /* incomplete status line */
	uint64_t fail_seq;     /* arrival order of its first failure; 0 none */
};

static void append_log(const struct verify_cfg *cfg, struct verify_rank *k, const char *p, size_t n)
{
	size_t cap = cfg->log_cap ? cfg->log_cap : (8u << 20);
	size_t room = k->log.len < cap ? cap - k->log.len : 0;
	size_t take = n < room ? n : room;
	if (take)
		buf_add(&k->log, p, take);
	k->log_dropped += n - take;
}

static void reap(struct verify_rank *k, int block_s)
{
	if (k->reaped || k->pid <= 0)
		return;
	double until = mono() + block_s;
	for (;;) {
		int st = 0;
		pid_t w = waitpid((pid_t)k->pid, &st, WNOHANG);
		if (w == (pid_t)k->pid) {
			k->reaped = 1;
			k->exited = 1;
			if (WIFEXITED(st))
				k->exit_code = WEXITSTATUS(st);
			else if (WIFSIGNALED(st))
				k->term_signal = WTERMSIG(st);
			return;
		}
		if (w < 0 && errno != EINTR) {
			k->reaped = 1; /* not ours any more (ECHILD) */
			return;
		}
		if (mono() >= until)
			return;
		struct timespec ts = {0, 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

/* Read what is available on the fds of child i; handles status lines. */
static void drain(const struct verify_cfg *cfg, struct gchild *g, struct verify_rank *ranks, int n,
                  int i, short rev_out, short rev_ctl, uint64_t *seq, int *uid_sent)
{
	char tmp[65536];
	if (g[i].out >= 0 && rev_out) {
		ssize_t r = read(g[i].out, tmp, sizeof tmp);
		if (r > 0) {
			append_log(cfg, &ranks[i], tmp, (size_t)r);
		} else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
			close(g[i].out);
			g[i].out = -1;
		}
	}
	if (g[i].ctl >= 0 && rev_ctl) {
		ssize_t r = recv(g[i].ctl, tmp, sizeof tmp, 0);
		if (r > 0) {
			buf_add(&g[i].partial, tmp, (size_t)r);
			char *s = g[i].partial.data, *nl;
			while ((nl = memchr(s, '\n', g[i].partial.len - (size_t)(s - g[i].partial.data)))) {
				*nl = 0;
				strvec_push(&ranks[i].status, s);
				if (str_starts(s, "error ") && !g[i].fail_seq)
					g[i].fail_seq = ++*seq;
				if (i == 0 && str_starts(s, "uid ") && !*uid_sent) {
					unsigned char id[VERIFY_UID_BYTES];
					if (verify_unhex(s + 4, id, sizeof id) == 0) {
						for (int j = 1; j < n; j++)
							if (g[j].ctl >= 0)
								(void)send(g[j].ctl, id, sizeof id, MSG_NOSIGNAL);
						*uid_sent = 1;
					}
				}
				s = nl + 1;
			}
			size_t rest = g[i].partial.len - (size_t)(s - g[i].partial.data);
			memmove(g[i].partial.data, s, rest);
			g[i].partial.len = rest;
			g[i].partial.data[rest] = 0;
		} else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
			close(g[i].ctl);
			g[i].ctl = -1;
			int done = ranks[i].status.n && strcmp(ranks[i].status.v[ranks[i].status.n - 1], "done") == 0;
			if (!done && !g[i].fail_seq)
				g[i].fail_seq = ++*seq;
			if (i == 0 && !*uid_sent) {
				/* Rank 0 is gone without an id: let the others find out. */
				for (int j = 1; j < n; j++)
					if (g[j].ctl >= 0)
						shutdown(g[j].ctl, SHUT_WR);
				*uid_sent = -1;
			}
		}
	}
}

/* One group of rank processes being run. */
struct group {
	const struct verify_cfg *cfg;
	int n;
	struct gchild *g;
	struct verify_rank *ranks;
	struct pollfd *pf;
	pid_t pgid;
	uint64_t seq;
	int uid_sent;
};

/* In the child: stdin from /dev/null, stdout and stderr to the pipe, the
 * environment to test; then the rank's body. */
static void child(struct group *gr, int i, int ctl, int out, const struct venv_list *env, vchild_fn body)
{
	setpgid(0, gr->pgid);
	for (int j = 0; j < i; j++) {
		close(gr->g[j].ctl);
		close(gr->g[j].out);
	}
	int devnull = open("/dev/null", O_RDONLY);
	if (devnull >= 0) {
		dup2(devnull, 0);
		if (devnull > 2)
			close(devnull);
	}
	dup2(out, 1);
	dup2(out, 2);
	if (out > 2)
		close(out);
	verify_apply_env(env);
	struct vchild_arg a = {gr->cfg, env, i};
	int rc = body(ctl, &a);
	fflush(NULL);
	_exit(rc);
}

/* Fork the ranks, one process group; a rank that cannot start has failed. */
static void spawn(struct group *gr, const struct venv_list *env, vchild_fn body)
{
	int started = 0;
	fflush(NULL); /* or the children would inherit and repeat buffered output */
	for (int i = 0; i < gr->n; i++) {
		int sv[2], p[2];
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
			break;
		if (pipe2(p, O_CLOEXEC) != 0) {
			close(sv[0]);
			close(sv[1]);
			break;
		}
		pid_t pid = fork();
		if (pid < 0) {
			close(sv[0]); close(sv[1]); close(p[0]); close(p[1]);
			break;
		}
		if (pid == 0) {
			close(sv[0]);
			close(p[0]);
			child(gr, i, sv[1], p[1], env, body);
		}
		if (gr->pgid == 0)
			gr->pgid = pid;
		setpgid(pid, gr->pgid); /* both sides do it: no window for kill() */
		close(sv[1]);
		close(p[1]);
		gr->g[i].ctl = sv[0];
		gr->g[i].out = p[0];
		gr->ranks[i].pid = pid;
		started++;
	}
	for (int i = started; i < gr->n; i++) {
		gr->ranks[i].error = xasprintf("could not start rank %d: %s", i, strerror(errno));
		gr->g[i].fail_seq = ++gr->seq;
	}
}

static void poll_set(struct group *gr)
{
	for (int i = 0; i < gr->n; i++) {
		gr->pf[2 * i].fd = gr->g[i].out;
		gr->pf[2 * i].events = POLLIN;
		gr->pf[2 * i].revents = 0;
		gr->pf[2 * i + 1].fd = gr->g[i].ctl;
		gr->pf[2 * i + 1].events = POLLIN;
		gr->pf[2 * i + 1].revents = 0;
	}
}

static void drain_ready(struct group *gr, int pr)
{
	for (int i = 0; pr > 0 && i < gr->n; i++)
		drain(gr->cfg, gr->g, gr->ranks, gr->n, i, gr->pf[2 * i].revents, gr->pf[2 * i + 1].revents, &gr->seq,
		      &gr->uid_sent);
}

/* Read the ranks until all are done, the watchdog fires, or the grace time
 * after a first failure is over. */
static void watch(struct group *gr, double t0, double timeout_s, struct vgroup_result *res)
{
	double deadline = t0 + timeout_s, failed_at = -1;
	for (;;) {
		int open_fds = 0;
		poll_set(gr);
		for (int i = 0; i < gr->n; i++) {
			open_fds += (gr->g[i].out >= 0) + (gr->g[i].ctl >= 0);
			if (gr->g[i].fail_seq && failed_at < 0)
				failed_at = mono();
		}
		if (!open_fds)
			break;
		double now = mono();
		if (now >= deadline) {
			res->hung = 1;
			break;
		}
		if (failed_at >= 0 && now >= failed_at + gr->cfg->grace_s) {
			res->killed_after_fail = 1;
			break;
		}
		double until = deadline;
		if (failed_at >= 0 && failed_at + gr->cfg->grace_s < until)
			until = failed_at + gr->cfg->grace_s;
		int ms = (int)((until - now) * 1000) + 1;
		if (ms > 200)
			ms = 200;
		int pr = poll(gr->pf, (nfds_t)(2 * gr->n), ms);
		if (pr < 0 && errno != EINTR)
			break;
		drain_ready(gr, pr);
	}
}

/* A hang or a failure: SIGTERM to the group, 2 s to die and flush (their
 * output still read), then SIGKILL. */
static void stop(struct group *gr)
{
	for (int i = 0; i < gr->n; i++) {
		reap(&gr->ranks[i], 0);
		if (gr->ranks[i].pid > 0 && !gr->ranks[i].reaped)
			gr->ranks[i].killed_by_us = 1;
	}
	kill(-gr->pgid, SIGTERM);
	double until = mono() + 2.0;
	for (;;) {
		int alive = 0;
		for (int i = 0; i < gr->n; i++) {
			reap(&gr->ranks[i], 0);
			alive += gr->ranks[i].pid > 0 && !gr->ranks[i].reaped;
		}
		if (!alive || mono() >= until)
			break;
		for (int i = 0; i < gr->n; i++) {
			gr->pf[2 * i].fd = gr->g[i].out;
			gr->pf[2 * i].events = POLLIN;
			gr->pf[2 * i + 1].fd = gr->g[i].ctl;
			gr->pf[2 * i + 1].events = POLLIN;
		}
		int pr = poll(gr->pf, (nfds_t)(2 * gr->n), 50);
		drain_ready(gr, pr);
	}
	kill(-gr->pgid, SIGKILL);
}

/* Whatever is still buffered in the pipes; reap; the order of failure. */
static void collect(struct group *gr)
{
	for (int i = 0; i < gr->n; i++) {
		struct gchild *c = &gr->g[i];
		for (int k = 0; k < 64 && (c->out >= 0 || c->ctl >= 0); k++) {
			struct pollfd q[2] = {{c->out, POLLIN, 0}, {c->ctl, POLLIN, 0}};
			if (poll(q, 2, k == 0 ? 100 : 10) <= 0)
				break;
			drain(gr->cfg, gr->g, gr->ranks, gr->n, i, q[0].revents, q[1].revents, &gr->seq, &gr->uid_sent);
		}
		reap(&gr->ranks[i], 10);
		if (c->out >= 0)
			close(c->out);
		if (c->ctl >= 0)
			close(c->ctl);
		if (c->partial.len)
			strvec_push(&gr->ranks[i].status, c->partial.data);
		buf_free(&c->partial);
	}
}

void verify_group_run(const struct verify_cfg *cfg, const struct venv_list *env, int n,
                      vchild_fn body, struct verify_rank *ranks, double timeout_s,
                      struct vgroup_result *res)
{
	struct group gr = {cfg, n, xcalloc((size_t)n, sizeof(struct gchild)), ranks,
	                   xcalloc((size_t)(2 * n), sizeof(struct pollfd)), 0, 0, 0};
	double t0 = mono();
	memset(res, 0, sizeof *res);
	for (int i = 0; i < n; i++)
		gr.g[i].ctl = gr.g[i].out = -1;
	spawn(&gr, env, body);
	watch(&gr, t0, timeout_s, res);
	if ((res->hung || res->killed_after_fail) && gr.pgid > 0)
		stop(&gr);
	collect(&gr);
	res->seconds = mono() - t0;
	/* The order in which ranks failed, for the caller (verify_run_mode). */
	for (int i = 0; i < n; i++) {
		char *s = xasprintf("#fail_seq %llu", (unsigned long long)gr.g[i].fail_seq);
		strvec_push_owned(&ranks[i].status, s);
	}
	free(gr.pf);
	free(gr.g);
}

/* ---- judging a run ----------------------------------------------------- */

static enum vstage stage_from(const char *s)
{
	for (int i = 0; i < VS_COUNT; i++)
		if (strcmp(s, vstage_name((enum vstage)i)) == 0)
			return (enum vstage)i;
	return VS_START;
}

static void parse_rank(struct verify_rank *k, int nranks, uint64_t *fail_seq, enum vstage *err_stage)
{
	*fail_seq = 0;
	*err_stage = VS_COUNT;
	for (size_t i = 0; i < k->status.n; i++) {
		const char *s = k->status.v[i];
		if (str_starts(s, "stage ")) {
			k->stage = stage_from(s + 6);
		} else if (str_starts(s, "init_ms ")) {
			k->init_ms = atof(s + 8);
		} else if (str_starts(s, "check ")) {
			const char *sp = strchr(s + 6, ' ');
			if (sp && strcmp(sp + 1, "ok") == 0) {
				k->checks_ok++;
			} else {
				k->checks_bad++;
				if (!k->check_detail && sp)
					k->check_detail = xasprintf("%.*s floats: %s", (int)(sp - (s + 6)), s + 6,
					                            str_starts(sp + 1, "bad ") ? sp + 5 : sp + 1);
			}
		} else if (str_starts(s, "bw ")) {
			unsigned long long bytes = 0;
			int iters = 0;
			double ms = 0;
			if (sscanf(s + 3, "%llu %d %lf", &bytes, &iters, &ms) == 3 && ms > 0 && iters > 0) {
				k->bw_ms = ms;
				k->algbw = (double)bytes * iters / (ms / 1e3) / 1e9;
				k->busbw = nranks > 1 ? k->algbw * 2.0 * (nranks - 1) / nranks : 0;
			}
		} else if (str_starts(s, "error ")) {
			if (!k->error) {
				char stage[32] = "";
				int code = 0, used = 0;
				if (sscanf(s + 6, "%31s %d %n", stage, &code, &used) >= 2 && used > 0)
					k->error = xstrdup(s + 6 + used);
				else
					k->error = xstrdup(s + 6);
				*err_stage = stage_from(stage);
			}
		} else if (str_starts(s, "lasterr ")) {
			if (!k->last_error)
				k->last_error = xstrdup(s + 8);
		} else if (strcmp(s, "done") == 0) {
			k->done = 1;
			k->stage = VS_DONE;
		} else if (str_starts(s, "#fail_seq ")) {
			*fail_seq = strtoull(s + 10, NULL, 10);
		}
	}
}

static int not_done(const struct verify_rank *k)
{
	return !k->done && !k->error;
}

/* Each rank's status lines; a rank that died on its own signal, or exited
 * without saying why, failed too.  The rank that failed first (its index,
 * -1 none; *stage where) and whether any rank saw wrong values. */
static int first_failure(struct verify_run *r, enum vstage *stage, int *wrong)
{
	uint64_t best = 0;
	int first = -1;
	*stage = VS_COUNT;
	*wrong = 0;
	for (int i = 0; i < r->nranks; i++) {
		struct verify_rank *k = &r->ranks[i];
		uint64_t fs;
		enum vstage es;
		parse_rank(k, r->nranks, &fs, &es);
		if (k->checks_bad)
			*wrong = 1;
		if (!k->error && !k->done && k->exited && !k->killed_by_us) {
			if (k->term_signal)
				k->error = xasprintf("killed by signal %d (%s) during %s", k->term_signal,
				                     strsignal(k->term_signal), vstage_doing(k->stage));
			else
				k->error = xasprintf("exited with status %d during %s", k->exit_code,
				                     vstage_doing(k->stage));
			es = k->stage;
		}
		if (fs && k->error && (!best || fs < best)) {
			best = fs;
			first = i;
			*stage = es;
		}
	}
	return first;
}

/* "timed out after 60 s: ranks 0,1 still in ..." grouped by stage */
static char *hang_reason(const struct verify_cfg *cfg, const struct verify_run *r)
{
	struct buf b;
	buf_init(&b);
	buf_printf(&b, "timed out after %.0f s:", cfg->timeout_s);
	/* Group the ranks that did not finish by the stage they were in. */
	int first = 1;
	for (int st = 0; st < VS_COUNT; st++) {
		int cnt = 0;
		for (int i = 0; i < r->nranks; i++)
			cnt += not_done(&r->ranks[i]) && (int)r->ranks[i].stage == st;
		if (!cnt)
			continue;
		buf_printf(&b, "%s rank%s", first ? "" : ";", cnt > 1 ? "s" : "");
		int k = 0;
		for (int i = 0; i < r->nranks; i++)
			if (not_done(&r->ranks[i]) && (int)r->ranks[i].stage == st) {
				if (k < 16)
					buf_printf(&b, "%s%d", k ? "," : " ", i);
				else if (k == 16)
					buf_adds(&b, ",...");
				k++;
			}
		buf_printf(&b, " still in %s", vstage_doing((enum vstage)st));
		first = 0;
	}
	return buf_steal(&b);
}

static void run_init(const struct verify_cfg *cfg, const char *mode, const struct venv_list *env,
                     struct verify_run *r)
{
	memset(r, 0, sizeof *r);
	r->mode = xstrdup(mode);
	for (size_t i = 0; env && i < env->n; i++)
		venv_set(&r->env, env->v[i].key, env->v[i].value);
	r->nranks = cfg->nranks;
	r->ranks = xcalloc((size_t)cfg->nranks, sizeof *r->ranks);
	r->first_failed_rank = -1;
	r->algbw = r->busbw = -1;
	for (int i = 0; i < cfg->nranks; i++) {
		r->ranks[i].rank = i;
		r->ranks[i].gpu = cfg->gpus[i];
		r->ranks[i].algbw = r->ranks[i].busbw = -1;
		buf_init(&r->ranks[i].log);
	}
}

void verify_run_mode(const struct verify_cfg *cfg, const char *mode,
                     const struct venv_list *env, struct verify_run *r)
{
	run_init(cfg, mode, env, r);
	struct vgroup_result gr;
	verify_group_run(cfg, &r->env, cfg->nranks, verify_child_rank, r->ranks, cfg->timeout_s, &gr);
	r->seconds = gr.seconds;
	enum vstage best_stage;
	int wrong;
	r->first_failed_rank = first_failure(r, &best_stage, &wrong);
	if (r->first_failed_rank >= 0) {
		struct verify_rank *k = &r->ranks[r->first_failed_rank];
		if (k->term_signal && !k->killed_by_us)
			r->result = VR_CRASH;
		else if (best_stage == VS_LOAD || best_stage == VS_CUDA)
			r->result = VR_SETUP;
		else
			r->result = VR_FAIL;
		r->reason = xasprintf("rank %d (GPU %d): %s%s%s", k->rank, k->gpu, k->error,
		                      k->last_error ? "; last NCCL error: " : "",
		                      k->last_error ? k->last_error : "");
	} else if (gr.hung) {
		r->result = VR_HANG;
		r->reason = hang_reason(cfg, r);
	} else if (wrong) {
		r->result = VR_WRONG_VALUES;
		for (int i = 0; i < r->nranks; i++)
			if (r->ranks[i].checks_bad) {
				r->reason = xasprintf("all-reduce returned wrong values on rank %d (GPU %d): %s",
				                      i, r->ranks[i].gpu, r->ranks[i].check_detail);
				break;
			}
	} else {
		int all = 1;
		for (int i = 0; i < r->nranks; i++)
			all &= r->ranks[i].done;
		r->result = all ? VR_PASS : VR_FAIL;
		if (!all)
			r->reason = xstrdup("not every rank finished, and none said why");
	}
	if (r->result == VR_PASS || r->result == VR_WRONG_VALUES) {
		for (int i = 0; i < r->nranks; i++) {
			const struct verify_rank *k = &r->ranks[i];
			if (k->algbw >= 0 && (r->algbw < 0 || k->algbw < r->algbw)) {
				r->algbw = k->algbw;
				r->busbw = k->busbw;
			}
		}
	}
	verify_scan_logs(r);
}

/* ---- logs ---------------------------------------------------------------- */

static void each_line(const struct buf *b, void (*fn)(void *, const char *, size_t), void *ctx)
{
	const char *p = b->data, *end = b->data ? b->data + b->len : NULL;
	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (len && p[len - 1] == '\r')
			len--;
		fn(ctx, p, len);
		p = nl ? nl + 1 : end;
	}
}

static const char *memfind(const char *h, size_t hl, const char *n)
{
	size_t nl = strlen(n);
	return nl <= hl ? memmem(h, hl, n, nl) : NULL;
}

static void scan_line(void *ctx, const char *s, size_t len)
{
	struct verify_run *r = ctx;
	const char *w = memfind(s, len, " NCCL WARN ");
	if (w) {
		w += strlen(" NCCL WARN ");
		char *t = str_sanitize(w, len - (size_t)(w - s));
		if (!strvec_contains(&r->warns, t) && r->warns.n < 50)
			strvec_push_owned(&r->warns, t);
		else
			free(t);
		return;
	}
	if (!memfind(s, len, " NCCL INFO Channel ") && !memfind(s, len, " NCCL INFO CollNet "))
		return;
	const char *v = memfind(s, len, " via ");
	if (!v)
		return;
	v += 5;
	size_t n = 0;
	while (v + n < s + len && v[n] != ' ')
		n++;
	char *t = str_sanitize(v, n);
	if (!strvec_contains(&r->transports, t))
		strvec_push_owned(&r->transports, t);
	else
		free(t);
}

void verify_scan_logs(struct verify_run *r)
{
	for (int i = 0; i < r->nranks; i++)
		each_line(&r->ranks[i].log, scan_line, r);
}

struct lastctx {
	struct strvec all, nccl;
};

static void last_line(void *ctx, const char *s, size_t len)
{
	struct lastctx *c = ctx;
	if (!len)
		return;
	char *t = str_sanitize(s, len > 400 ? 400 : len);
	if (memfind(s, len, " NCCL "))
		strvec_push(&c->nccl, t);
	strvec_push_owned(&c->all, t);
}

void verify_last_lines(const struct verify_rank *k, size_t n, struct strvec *out)
{
	struct lastctx c = {{0}, {0}};
	each_line(&k->log, last_line, &c);
	const struct strvec *src = c.nccl.n ? &c.nccl : &c.all;
	for (size_t i = src->n > n ? src->n - n : 0; i < src->n; i++)
		strvec_push(out, src->v[i]);
	strvec_free(&c.all);
	strvec_free(&c.nccl);
}

/* ---- probe ----------------------------------------------------------------- */

int verify_probe_host(const struct verify_cfg *cfg, double timeout_s, struct verify_probe *p)
{
	struct verify_rank k;
	struct vgroup_result gr;
	struct verify_cfg c = *cfg;
	int gpus0 = 0;
	char *cuda_err = NULL, *nccl_err = NULL;
	int miss_driver = 0, miss_nccl = 0, done = 0;

	memset(p, 0, sizeof *p);
	memset(&k, 0, sizeof k);
	buf_init(&k.log);
	c.nranks = 1;
	c.gpus = &gpus0;
	verify_group_run(&c, NULL, 1, verify_child_probe, &k, timeout_s, &gr);
	for (size_t i = 0; i < k.status.n; i++) {
		const char *s = k.status.v[i];
		if (str_starts(s, "tried cuda ") || str_starts(s, "tried nccl ")) {
			strvec_push(&p->tried, s + 6);
		} else if (str_starts(s, "loaderr cuda ")) {
			free(cuda_err);
			cuda_err = xstrdup(s + 13);
		} else if (str_starts(s, "loaderr nccl ")) {
			free(nccl_err);
			nccl_err = xstrdup(s + 13);
		} else if (strcmp(s, "missing driver") == 0) {
			miss_driver = 1;
		} else if (str_starts(s, "cuda_path ")) {
			p->cuda_path = xstrdup(s + 10);
		} else if (str_starts(s, "driver ")) {
			p->driver_version = atoi(s + 7);
		} else if (str_starts(s, "dev ")) {
			int idx = 0, used = 0;
			char bus[64];
			if (sscanf(s + 4, "%d %63s %n", &idx, bus, &used) >= 2 && used > 0) {
				p->gpus = xrealloc(p->gpus, (p->ngpus + 1) * sizeof *p->gpus);
				p->gpus[p->ngpus].index = idx;
				p->gpus[p->ngpus].bus_id = xstrdup(bus);
				p->gpus[p->ngpus].name = xstrdup(s + 4 + used);
				p->ngpus++;
			}
		} else if (strcmp(s, "missing nccl") == 0) {
			miss_nccl = 1;
		} else if (str_starts(s, "nccl_path ")) {
			p->nccl_path = xstrdup(s + 10);
		} else if (str_starts(s, "nccl_version ")) {
			p->nccl_version = atoi(s + 13);
		} else if (strcmp(s, "done") == 0) {
			done = 1;
		}
	}
	if (miss_driver)
		strvec_push_owned(&p->missing, xasprintf(
			"no CUDA driver: libcuda.so.1 could not be loaded (%s)", cuda_err ? cuda_err : "not found"));
	for (size_t i = 0; i < k.status.n; i++)
		if (str_starts(k.status.v[i], "missing gpu "))
			strvec_push_owned(&p->missing, xasprintf("no usable GPU: %s", k.status.v[i] + 12));
	if (miss_nccl) {
		struct buf b;
		buf_init(&b);
		buf_adds(&b, "no NCCL: libnccl.so.2 could not be loaded (");
		buf_adds(&b, nccl_err ? nccl_err : "not found");
		buf_adds(&b, "); tried:");
		for (size_t i = 0; i < p->tried.n; i++)
			if (str_starts(p->tried.v[i], "nccl "))
				buf_printf(&b, " %s", p->tried.v[i] + 5);
		strvec_push_owned(&p->missing, buf_steal(&b));
	}
	if (!done) {
		reap(&k, 0);
		if (gr.hung)
			strvec_push_owned(&p->missing, xasprintf(
				"the probe (dlopen, cuInit, ncclGetVersion) did not finish within %.0f s", timeout_s));
		else if (k.term_signal)
			strvec_push_owned(&p->missing, xasprintf(
				"the probe (dlopen, cuInit, ncclGetVersion) was killed by signal %d (%s)",
				k.term_signal, strsignal(k.term_signal)));
		else
			strvec_push_owned(&p->missing, xasprintf(
				"the probe (dlopen, cuInit, ncclGetVersion) stopped early (exit status %d)", k.exit_code));
	}
	free(cuda_err);
	free(nccl_err);
	buf_free(&k.log);
	strvec_free(&k.status);
	p->ok = p->missing.n == 0 && p->ngpus > 0 && p->nccl_path && p->cuda_path;
	if (!p->ok && p->missing.n == 0)
		strvec_push(&p->missing, "no usable GPU: the driver lists no device");
	return p->ok ? 0 : -1;
}
