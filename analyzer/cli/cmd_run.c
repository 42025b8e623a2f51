/* cmd_run.c - `nccl-triage run [--bundle DIR] [--collect|--no-collect]
 * [--always] [--timeout S] -- CMD ARGS...`: run a job with its evidence
 * switched on (the variables below, unless the user set them), copy its
 * output to the terminal and into DIR/HOST/ as it comes (collect/runjob.h),
 * and when it fails collect this host's system reports (collect/collect.h),
 * analyse DIR/HOST and print the cause, the fix and where the bundle is.
 * Exits with CMD's status (128+N for a signal N).  One bundle folder per
 * host, so that runs started per node (srun, mpirun, one pod per node)
 * on a shared folder give DIR/HOST1, DIR/HOST2 that `analyze DIR` reads as
 * one ticket.  With --redact nothing the bundle holds shows this host, the
 * user, addresses, GPU UUIDs or serials (collect/credact.h): the output is
 * copied into an unlinked file until the job ends, then written redacted;
 * the folder is DIR/host-HASH.  docs/collect.md. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "base/version.h"
#include "cli/cli.h"
#include "cli/clicommon.h"
#include "cli/commands.h"
#include "collect/citems.h"
#include "collect/collect.h"
#include "collect/credact.h"
#include "collect/runjob.h"
#include "engine/analysis.h"
#include "engine/bundle.h"
#include "report/redact.h"
#include "report/report.h"

#ifndef NT_VERSION
#define NT_VERSION "0.0.0"
#endif

extern char **environ;

struct runopts {
	const char *bundle;
	int collect, always, debug_file, redact;
	double timeout_s, kill_after_s, budget_s;
};

void cmd_run_help(FILE *out)
{
	fputs("\nUnless already set, CMD gets NCCL_DEBUG=INFO, NCCL_DEBUG_TIMESTAMP_LEVELS=WARN,INFO (NCCL\n"
	      "2.26+ found), the flight recorder (TORCH_FR_BUFFER_SIZE or TORCH_NCCL_TRACE_BUFFER_SIZE=2000,\n"
	      "TORCH_NCCL_DUMP_ON_TIMEOUT=1, dumps into DIR/HOST/fr/) and PYTHONUNBUFFERED=1.\n"
	      "Exit status: CMD's (128+N when a signal N ended it; 127 not found, 126 not allowed);\n"
	      "2 for a usage error before CMD started.\n",
	      out);
}

static int parse_opts(const struct common *c, struct runopts *o)
{
	memset(o, 0, sizeof *o);
	o->collect = 1;
	o->redact = c->redact;
	o->kill_after_s = 10;
	o->budget_s = 120;
	for (size_t i = 0; i < c->nargs; i++) {
		const struct cli_arg *a = &c->args[i];
		switch (a->id) {
		case OPT_BUNDLE: o->bundle = a->arg; break;
		case OPT_COLLECT: o->collect = 1; break;
		case OPT_NO_COLLECT: o->collect = 0; break;
		case OPT_ALWAYS: o->always = 1; break;
		case OPT_NCCL_DEBUG_FILE: o->debug_file = 1; break;
		case OPT_TIMEOUT:
			if (cli_seconds("timeout", a->arg, &o->timeout_s))
				return -1;
			break;
		case OPT_KILL_AFTER:
			if (cli_seconds("kill-after", a->arg, &o->kill_after_s))
				return -1;
			break;
		case OPT_BUDGET:
			if (cli_seconds("budget", a->arg, &o->budget_s))
				return -1;
			break;
		default: break;
		}
	}
	return 0;
}

static void safe_name(char *s)
{
	for (; *s; s++)
		if (!(('a' <= *s && *s <= 'z') || ('A' <= *s && *s <= 'Z') || ('0' <= *s && *s <= '9') || *s == '.' ||
		      *s == '-' || *s == '_'))
			*s = '_';
}

/* nccl-triage-run-JOB: the Slurm job (and step), the PMIx namespace (one
 * per mpirun), or the local time: the same on every node of a job where a
 * scheduler names it. */
static char *default_bundle(void)
{
	const char *j = getenv("SLURM_JOB_ID"), *st = getenv("SLURM_STEP_ID"), *ns = getenv("PMIX_NAMESPACE");
	char *s;
	if (j && *j)
		s = st && *st ? xasprintf("nccl-triage-run-slurm-%s.%s", j, st) : xasprintf("nccl-triage-run-slurm-%s", j);
	else if (ns && *ns)
		s = xasprintf("nccl-triage-run-%s", ns);
	else {
		char t[32];
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		strftime(t, sizeof t, "%Y%m%d-%H%M%S", &tm);
		s = xasprintf("nccl-triage-run-%s", t);
	}
	safe_name(s + 16);
	return s;
}

/* "-rank3" when a launcher started this process as one rank of several on
 * a host (srun, mpirun); "" for the whole job. */
static void rank_tag(char *out, size_t n)
{
	static const char *const vars[] = {"SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "RANK", NULL};
	out[0] = 0;
	for (size_t i = 0; vars[i]; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v && strspn(v, "0123456789") == strlen(v) && strlen(v) < 12) {
			snprintf(out, n, "-rank%s", v);
			return;
		}
	}
}

static int mkdir_p(const char *path)
{
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			if (mkdir(p, 0755) < 0 && errno != EEXIST) {
				free(p);
				return -1;
			}
			*s = '/';
		}
	int rc = mkdir(p, 0755) < 0 && errno != EEXIST ? -1 : 0;
	free(p);
	return rc;
}

struct bundle_files {
	char *host_dir;     /* DIR/HOST, absolute when it could be resolved */
	char *log_name;     /* job-rank0.log */
	char *stem;         /* "-rank0" or "-rank0.2": the manifest and report share it */
	int log_fd;
	int raw_fd;         /* --redact: the output as it comes, in an unlinked file; -1 */
	int manifest_fd, result_fd; /* created at the start, their room reserved (a full disk) */
	char host[128], full[256];
	char boot[64];      /* --redact: this boot's id, a name to hide; "" when unread */
	char folder[24];    /* --redact: host-HASH */
};

/* Room for the manifest (about 10 KiB with a collection) and the result,
 * taken before the job can fill the disk, so that a full disk is still
 * recorded. */
#define MANIFEST_ROOM (256 << 10)
#define RESULT_ROOM 4096

static int reserve(const char *dir, const char *name, off_t room)
{
	char *path = xasprintf("%s/%s", dir, name);
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		fprintf(stderr, "nccl-triage run: cannot create %s: %s\n", path, strerror(errno));
	else if (fallocate(fd, 0, 0, room) < 0 && errno != EOPNOTSUPP && errno != ENOSYS)
		fprintf(stderr, "nccl-triage run: cannot reserve room for %s: %s\n", path, strerror(errno));
	free(path);
	return fd;
}

/* Write what was reserved, then cut it to its length.  -1 on an error. */
static int fill(int fd, const char *p, size_t n)
{
	if (fd_write_all(fd, p, n, 0) < 0)
		return -1;
	return ftruncate(fd, (off_t)n);
}

/* --redact's folder, host-HASH of the boot id and the host name (every
 * process of the job on this host agrees on it); without a boot id, of a
 * random one: this process's own folder. */
static void redact_folder(struct bundle_files *f)
{
	char id[64] = "";
	FILE *b = fopen("/proc/sys/kernel/random/boot_id", "r");
	if (b) {
		if (fgets(id, sizeof id, b))
			id[strcspn(id, "\r\n")] = 0;
		fclose(b);
	}
	snprintf(f->boot, sizeof f->boot, "%s", id);
	if (!id[0]) {
		unsigned char rnd[16];
		if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
			unsigned long long t = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 32);
			memcpy(rnd, &t, sizeof t);
			memcpy(rnd + 8, &t, sizeof t);
		}
		for (size_t i = 0; i < sizeof rnd; i++)
			snprintf(id + 2 * i, 3, "%02x", rnd[i]);
	}
	credact_host_folder(id, f->full, f->folder);
}

/* An unlinked file in dir (O_TMPFILE, else created and unlinked at once):
 * the output until it is redacted; a killed run leaves no copy. */
static int unlinked_file(const char *dir)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	char *p = xasprintf("%s/.nccl-triage-run-XXXXXX", dir);
	fd = mkostemp(p, O_CLOEXEC);
	if (fd >= 0)
		unlink(p);
	free(p);
	return fd;
}

/* DIR/HOST and the job's log in it, created new (job.log, job.2.log ...
 * when a run before left one). -1 with a message when it cannot be made. */
static int bundle_open(const struct runopts *o, struct bundle_files *f)
{
	memset(f, 0, sizeof *f);
	f->log_fd = f->raw_fd = f->manifest_fd = f->result_fd = -1;
	collect_hostname(f->host, sizeof f->host, f->full, sizeof f->full);
	if (o->redact)
		redact_folder(f);
	char *base = o->bundle ? xstrdup(o->bundle) : default_bundle();
	char *dir = xasprintf("%s/%s", base, o->redact ? f->folder : f->host);
	free(base);
	if (mkdir_p(dir) < 0) {
		fprintf(stderr, "nccl-triage run: cannot create the bundle folder %s: %s\n", dir, strerror(errno));
		free(dir);
		return -1;
	}
	char *real = realpath(dir, NULL);
	f->host_dir = real ? real : dir;
	if (real)
		free(dir);
	/* before any file is made: without it there is no redacted bundle */
	if (o->redact && (f->raw_fd = unlinked_file(f->host_dir)) < 0) {
		fprintf(stderr, "nccl-triage run: cannot create a temporary file in %s: %s\n", f->host_dir, strerror(errno));
		free(f->host_dir);
		f->host_dir = NULL;
		return -1;
	}
	char tag[24];
	rank_tag(tag, sizeof tag);
	for (int k = 1; k < 1000 && f->log_fd < 0; k++) {
		char *stem = k == 1 ? xstrdup(tag) : xasprintf("%s.%d", tag, k);
		char *name = xasprintf("job%s.log", stem);
		char *path = xasprintf("%s/%s", f->host_dir, name);
		f->log_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		int e = errno;
		free(path);
		if (f->log_fd >= 0) {
			f->log_name = name;
			f->stem = stem;
			char *mn = xasprintf("manifest%s.jsonl", stem), *rn = xasprintf("result%s.txt", stem);
			f->manifest_fd = reserve(f->host_dir, mn, MANIFEST_ROOM);
			f->result_fd = reserve(f->host_dir, rn, RESULT_ROOM);
			free(mn);
			free(rn);
			break;
		}
		free(name);
		free(stem);
		if (e != EEXIST) {
			fprintf(stderr, "nccl-triage run: cannot create the job's log in %s: %s\n", f->host_dir, strerror(e));
			break;
		}
	}
	if (f->log_fd >= 0)
		return 0;
	if (f->raw_fd >= 0)
		close(f->raw_fd);
	f->raw_fd = -1;
	free(f->host_dir);
	f->host_dir = NULL;
	return -1;
}

/* ---- the job's environment ---- */

struct jobenv {
	struct strvec v;   /* NAME=value, NULL-terminated at the end */
	cJSON *set;        /* what run added */
};

static int is_set(const char *name)
{
	const char *v = getenv(name);
	return v != NULL;
}

static void env_add(struct jobenv *e, const char *name, const char *value)
{
	strvec_push_owned(&e->v, xasprintf("%s=%s", name, value));
	cJSON_AddStringToObject(e->set, name, value);
}

/* The evidence switched on, each only where the user did not set it (nor,
 * for a renamed variable, its other name). */
static void job_env(const struct runopts *o, const struct bundle_files *f, struct jobenv *e, cJSON *rec)
{
	memset(e, 0, sizeof *e);
	e->set = cJSON_CreateObject();
	for (char **p = environ; p && *p; p++)
		strvec_push(&e->v, *p);
	char nccl[64], torch[64], from[600];
	collect_stack_versions(nccl, sizeof nccl, torch, sizeof torch, from, sizeof from);
	if (nccl[0])
		cJSON_AddStringToObject(rec, "nccl_version_found", nccl);
	if (from[0])
		cJSON_AddStringToObject(rec, "nccl_version_from", from);
	if (torch[0])
		cJSON_AddStringToObject(rec, "torch_version_found", torch);
	if (!is_set("NCCL_DEBUG"))
		env_add(e, "NCCL_DEBUG", "INFO");
	/* NCCL 2.26 added timestamps to its lines; an older one does not know the variable */
	if (!is_set("NCCL_DEBUG_TIMESTAMP_LEVELS") && nccl[0] && version_cmp_str(nccl, "2.26") >= 0)
		env_add(e, "NCCL_DEBUG_TIMESTAMP_LEVELS", "WARN,INFO");
	/* PyTorch 2.11 renamed the flight recorder's variables (TORCH_FR_*); with
	 * no torch found both names are set */
	int new_fr = torch[0] && version_cmp_str(torch, "2.11") >= 0, old_fr = !torch[0] || !new_fr;
	if (!is_set("TORCH_FR_BUFFER_SIZE") && !is_set("TORCH_NCCL_TRACE_BUFFER_SIZE")) {
		if (new_fr || !torch[0])
			env_add(e, "TORCH_FR_BUFFER_SIZE", "2000");
		if (old_fr)
			env_add(e, "TORCH_NCCL_TRACE_BUFFER_SIZE", "2000");
	}
	if (!is_set("TORCH_NCCL_DUMP_ON_TIMEOUT"))
		env_add(e, "TORCH_NCCL_DUMP_ON_TIMEOUT", "1");
	if (!is_set("TORCH_FR_DUMP_TEMP_FILE") && !is_set("TORCH_NCCL_DEBUG_INFO_TEMP_FILE")) {
		char *fr = xasprintf("%s/fr", f->host_dir);
		if (mkdir(fr, 0755) == 0 || errno == EEXIST) {
			char *prefix = xasprintf("%s/nccl_trace_rank_", fr);
			if (new_fr || !torch[0])
				env_add(e, "TORCH_FR_DUMP_TEMP_FILE", prefix);
			if (old_fr)
				env_add(e, "TORCH_NCCL_DEBUG_INFO_TEMP_FILE", prefix);
			free(prefix);
		}
		free(fr);
	}
	if (!is_set("PYTHONUNBUFFERED"))
		env_add(e, "PYTHONUNBUFFERED", "1");
	if (o->debug_file && !is_set("NCCL_DEBUG_FILE")) {
		/* --redact: no host name in the file's name, and this run's own
		 * files (stem) so that it rewrites no other rank's */
		char *p = o->redact ? xasprintf("%s/nccl%s.%%p.log", f->host_dir, f->stem ? f->stem : "")
		                    : xasprintf("%s/nccl.%%h.%%p.log", f->host_dir);
		env_add(e, "NCCL_DEBUG_FILE", p);
		free(p);
	}
	strvec_push_owned(&e->v, NULL);
	e->v.n--; /* the NULL stays at v[n] */
}

static void jobenv_free(struct jobenv *e)
{
	strvec_free(&e->v);
	cJSON_Delete(e->set);
}

/* ---- after the job ---- */

static char *argv_text(char **argv)
{
	struct buf b;
	buf_init(&b);
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			buf_addc(&b, ' ');
		int q = strpbrk(argv[i], " \t'\";|&*?$") != NULL || !argv[i][0];
		buf_adds(&b, q ? "'" : "");
		buf_adds(&b, argv[i]);
		buf_adds(&b, q ? "'" : "");
	}
	char *s = buf_steal(&b);
	char *t = str_sanitize(s, strlen(s)); /* secrets on the command line masked too */
	free(s);
	return t;
}

static void add_num_or_null(cJSON *o, const char *k, int have, double v)
{
	if (have)
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static void add_err(cJSON *o, const char *k, int e)
{
	if (e)
		cJSON_AddStringToObject(o, k, strerror(e));
	else
		cJSON_AddNullToObject(o, k);
}

/* The manifest's last line: what the job did and what the copy lost. */
static void run_record(cJSON *rec, const struct runopts *o, const struct bundle_files *f, char **argv,
                       const struct run_result *r, struct jobenv *e)
{
	char *cmd = argv_text(argv);
	cJSON_AddStringToObject(rec, "command", cmd);
	free(cmd);
	cJSON_AddBoolToObject(rec, "started", r->started);
	if (!r->started)
		add_err(rec, "error", r->exec_errno);
	cJSON_AddNumberToObject(rec, "status", r->status);
	add_num_or_null(rec, "exit", r->exited, r->exit_code);
	add_num_or_null(rec, "signal", r->signaled, r->term_sig);
	cJSON_AddBoolToObject(rec, "timed_out", r->timed_out);
	if (o->timeout_s > 0)
		cJSON_AddNumberToObject(rec, "timeout_s", o->timeout_s);
	cJSON_AddBoolToObject(rec, "killed", r->killed);
	add_num_or_null(rec, "forwarded", r->forwarded != 0, r->forwarded);
	cJSON_AddNumberToObject(rec, "ms", (double)(long long)(r->ms + 0.5));
	cJSON_AddBoolToObject(rec, "merged", r->merged);
	/* runjob.h: the job wrote to the file itself, the log followed it */
	if (r->direct_out)
		cJSON_AddBoolToObject(rec, "stdout_direct", 1);
	if (r->direct_err)
		cJSON_AddBoolToObject(rec, "stderr_direct", 1);
	if (r->direct_cut)
		cJSON_AddBoolToObject(rec, "direct_file_shrank", 1);
	cJSON_AddNumberToObject(rec, "stdout_bytes", (double)r->out_bytes);
	cJSON_AddNumberToObject(rec, "stderr_bytes", (double)r->err_bytes);
	cJSON_AddStringToObject(rec, "log", f->log_name);
	uint64_t total = r->out_bytes + r->err_bytes;
	cJSON_AddNumberToObject(rec, "log_bytes", (double)(total > r->log_lost ? total - r->log_lost : 0));
	cJSON_AddNumberToObject(rec, "log_lost", (double)r->log_lost);
	add_err(rec, "log_error", r->log_errno);
	cJSON_AddNumberToObject(rec, "log_gaps", (double)r->log_gaps);
	cJSON_AddNumberToObject(rec, "terminal_lost", (double)(r->out_lost + r->err_lost));
	add_err(rec, "terminal_error", r->out_errno ? r->out_errno : r->err_errno);
	cJSON_AddBoolToObject(rec, "tail_open", r->tail_open);
	cJSON_AddNumberToObject(rec, "cpu_ms", (double)(long long)(r->cpu_ms + 0.5));
	cJSON_AddNumberToObject(rec, "max_rss_kib", (double)r->max_rss_kib);
	cJSON_AddItemToObject(rec, "set", e->set);
	e->set = NULL;
	cJSON_AddBoolToObject(rec, "redacted", o->redact);
}

/* What ended the job, in words: "exit status 1", "killed by signal 11". */
static void ended(char *out, size_t n, const struct run_result *r)
{
	if (!r->started)
		snprintf(out, n, "could not start (%s)", strerror(r->exec_errno));
	else if (r->timed_out)
		snprintf(out, n, "was stopped by --timeout after %.1f s (%s)", r->ms / 1000,
		         r->signaled ? (r->term_sig == SIGKILL ? "SIGKILL" : "SIGTERM") : "it exited");
	else if (r->signaled)
		snprintf(out, n, "was killed by signal %d (%s) after %.1f s", r->term_sig, strsignal(r->term_sig),
		         r->ms / 1000);
	else
		snprintf(out, n, "exited with status %d after %.1f s", r->exit_code, r->ms / 1000);
}

struct job_clock {
	double uptime;      /* seconds since boot when the job started (/proc/uptime), 0 unknown */
	long long epoch;
};

static void job_clock_now(struct job_clock *jc)
{
	jc->uptime = 0;
	jc->epoch = (long long)time(NULL);
	FILE *u = fopen("/proc/uptime", "r");
	if (u) {
		if (fscanf(u, "%lf", &jc->uptime) != 1)
			jc->uptime = 0;
		fclose(u);
	}
}

/* Collect into f->host_dir unless another process of the job on this host
 * did (sys/ exists: the first to fail collects).  red (--redact): the
 * reports and the manifest's lines are learned from, the reports written
 * rewritten (the manifest is rewritten whole at the end). */
static void collect_into(const struct runopts *o, const struct bundle_files *f, const struct job_clock *jc,
                         struct buf *m, cJSON *rec, size_t *nreports, struct redactor *red)
{
	char *sys = xasprintf("%s/sys", f->host_dir);
	if (mkdir(sys, 0755) < 0) {
		cJSON_AddStringToObject(rec, "collect",
		                        errno == EEXIST ? "not here: sys/ exists (another process of the job on this host "
		                                          "collected)" : strerror(errno));
		free(sys);
		return;
	}
	free(sys);
	struct collect_opts co;
	collect_opts_default(&co);
	co.budget_s = o->budget_s;
	co.cmdline = "nccl-triage run";
	co.redact = o->redact;
	/* the kernel's messages from a minute before the job on: older ones
	 * (another job's segfault last week) are not this job's */
	if (jc->uptime > 60)
		co.since_uptime = jc->uptime - 60;
	if (jc->epoch > 60)
		co.since_epoch = jc->epoch - 60;
	/* env.txt is the environment run was given: what run added is the
	 * manifest's run.set, not the user's setting */
	struct citems items = {0};
	struct collect_counts k;
	collect_host(&co, &items, m, &k);
	if (red) {
		credact_learn_buf(red, m);
		credact_learn_items(red, &items);
		credact_rewrite_items(red, &items);
	}
	char *err = NULL;
	if (citems_write_dir(&items, f->host_dir, &err) < 0) {
		fprintf(stderr, "nccl-triage run: %s\n", err);
		cJSON_AddStringToObject(rec, "collect", err);
	} else {
		cJSON_AddStringToObject(rec, "collect", "yes");
	}
	*nreports = items.n;
	free(err);
	citems_free(&items);
}

/* Analyse DIR/HOST; the full report to DIR/HOST/report*.txt, the summary
 * to stderr.  Returns 0 when the analysis ran.  red (--redact): the report
 * redacted as analyze --redact does, with the names the files were
 * redacted with (what the folder's files quote is redacted already; the
 * folder's path, and what other processes of the job leave there, not). */
static int analyse(const struct common *c, const struct bundle_files *f, struct redactor *red)
{
	struct sigdb db;
	if (load_db(&db, c, LOAD_SLIM) < 0) {
		sigdb_free(&db);
		return -1;
	}
	struct analysis_opts ao = {&db, &c->lim, online_cpus() > 1 ? 2 : 1, 0, 0, 0};
	int ok = 0;
	struct bundle *b = analysis_run(f->host_dir, f->host_dir, &ao, NULL, &ok);
	cJSON *doc = report_json(&b, 1, &db, 0);
	bundle_free(b);
	if (red) {
		redact_alias_forms(red); /* 192.0.2.1 in the files is ip-1 in the report */
		redact_json(red, json_get(doc, "bundles"));
		cJSON_AddBoolToObject(doc, "redacted", 1);
	}
	struct report_opts ro = {0, c->evidence, 0};
	char *path = xasprintf("%s/report%s.txt", f->host_dir, f->stem);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (out) {
		char t[32];
		collect_utc(t, sizeof t, 0);
		/* this first line makes analyze skip the file (parse_collect.c): a
		 * report quotes log lines that are already in the bundle */
		fprintf(out, "# nccl-triage " NT_VERSION " report of this bundle (nccl-triage run, %s)\n", t);
		report_text(out, doc, &ro);
	}
	int werr = !out || ferror(out);
	if (out && fclose(out) != 0)
		werr = 1;
	else if (!out && fd >= 0)
		close(fd);
	const cJSON *b0 = cJSON_GetArrayItem(json_get(doc, "bundles"), 0);
	report_text_summary(stderr, b0, &ro);
	if (werr)
		fprintf(stderr, "nccl-triage run: cannot write the full report %s: %s\n", path, strerror(errno ? errno : EIO));
	else
		fprintf(stderr, "nccl-triage run: full report: %s\n", path);
	free(path);
	cJSON_Delete(doc);
	unload_db(&db);
	return 0;
}

/* The manifest and the job's result, in the files reserved beside the log.
 * result*.txt is a wrapper's exit record, "exit=STATUS ms=MS" (parse/ranks.c
 * reads it as the job's end: 124, as timeout(1) reports, when --timeout
 * stopped the job; empty when the job could not start). */
static void write_manifest(const struct bundle_files *f, const struct buf *m, const struct run_result *r)
{
	if (f->manifest_fd >= 0 && (fill(f->manifest_fd, m->data, m->len) < 0 || close(f->manifest_fd) < 0))
		fprintf(stderr, "nccl-triage run: cannot write %s/manifest%s.jsonl: %s\n", f->host_dir, f->stem,
		        strerror(errno));
	char line[64] = "";
	if (r->started)
		snprintf(line, sizeof line, "exit=%d ms=%.0f\n", r->timed_out ? 124 : r->status, r->ms);
	if (f->result_fd >= 0 && (fill(f->result_fd, line, strlen(line)) < 0 || close(f->result_fd) < 0))
		fprintf(stderr, "nccl-triage run: cannot write %s/result%s.txt: %s\n", f->host_dir, f->stem, strerror(errno));
}

/* ---- --redact ---- */

/* This run's own NCCL_DEBUG_FILE logs (--nccl-debug-file), DIR/HOST/
 * nccl{stem}.PID.log: their names into v. */
static void own_nccl_logs(const struct bundle_files *f, struct strvec *v)
{
	DIR *d = opendir(f->host_dir);
	if (!d)
		return;
	char *pre = xasprintf("nccl%s.", f->stem);
	size_t pl = strlen(pre);
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		size_t l = strlen(n);
		if (l > pl + 4 && !strncmp(n, pre, pl) && !strcmp(n + l - 4, ".log") &&
		    strspn(n + pl, "0123456789") == l - pl - 4)
			strvec_push(v, n);
	}
	closedir(d);
	free(pre);
}

static int open_in(const struct bundle_files *f, const char *name)
{
	char *path = xasprintf("%s/%s", f->host_dir, name);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	free(path);
	return fd;
}

/* One of them rewritten: a new file beside it, renamed over it.  When that
 * fails it is removed: no unredacted log stays. */
static void rewrite_nccl_log(const struct bundle_files *f, const char *name, struct redactor *red)
{
	char *path = xasprintf("%s/%s", f->host_dir, name);
	char *tmp = xasprintf("%s/.nccl-triage-redact-XXXXXX", f->host_dir);
	int in = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int out = in >= 0 ? mkostemp(tmp, O_CLOEXEC) : -1;
	int ok = out >= 0 && credact_copy_fd(red, in, out) == 0 && fchmod(out, 0644) == 0;
	int e = errno;
	if (out >= 0 && close(out) < 0 && ok) {
		ok = 0;
		e = errno;
	}
	if (ok && rename(tmp, path) < 0) {
		ok = 0;
		e = errno;
	}
	if (in >= 0)
		close(in);
	if (!ok) {
		if (out >= 0)
			unlink(tmp);
		unlink(path);
		fprintf(stderr, "nccl-triage run: cannot redact %s (%s): removed\n", path, strerror(e ? e : EIO));
	}
	free(tmp);
	free(path);
}

/* Files in DIR/HOST/fr/ (the flight recorder's dumps: pickles, not text). */
static size_t fr_dumps(const struct bundle_files *f)
{
	char *fr = xasprintf("%s/fr", f->host_dir);
	DIR *d = opendir(fr);
	size_t n = 0;
	struct dirent *de;
	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	free(fr);
	return n;
}

/* After the job, before anything is written: a redactor that knows this
 * host's and the user's names, the boot id, and has learned from the
 * job's whole output, this run's NCCL logs (their names into logs), the
 * command line and what run added to the environment. */
static struct redactor *redact_start(const struct bundle_files *f, const struct jobenv *e, const char *cmd,
                                     struct strvec *logs)
{
	const char *hosts[4], *users[4];
	cli_own_names(f->host, f->full, hosts, users);
	/* this host is host-HASH, its folder's name, in every file: the same
	 * for every process on it, another than every other host's (analyze
	 * DIR reads the hosts' folders as one job) */
	struct redactor *red = credact_new(NULL, users);
	for (size_t i = 0; hosts[i]; i++)
		redact_learn_host_as(red, hosts[i], f->folder);
	if (f->boot[0])
		redact_learn_host_as(red, f->boot, f->folder);
	if (credact_learn_fd(red, f->raw_fd) < 0)
		fprintf(stderr, "nccl-triage run: cannot read back the job's output: %s\n", strerror(errno));
	if (cJSON_GetObjectItemCaseSensitive(e->set, "NCCL_DEBUG_FILE"))
		own_nccl_logs(f, logs); /* only where run named them */
	for (size_t i = 0; i < logs->n; i++) {
		int fd = open_in(f, logs->v[i]);
		if (fd >= 0 && credact_learn_fd(red, fd) < 0)
			fprintf(stderr, "nccl-triage run: cannot read %s/%s: %s\n", f->host_dir, logs->v[i], strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	redact_learn_line(red, cmd);
	const cJSON *v;
	cJSON_ArrayForEach(v, e->set) {
		char *kv = xasprintf("%s=%s", v->string, cJSON_IsString(v) ? v->valuestring : "");
		redact_learn_line(red, kv);
		free(kv);
	}
	return red;
}

/* Close the fd the job's output was copied to, unless the log's thread
 * may still be in a write to it (sink_finish gave up on it: ETIMEDOUT, a
 * disk that stalled): then /dev/null takes its number, so that a late write
 * lands nowhere rather than in a file opened after it (the report, a
 * rewritten NCCL log). */
static void retire_copy_fd(int fd, int log_errno)
{
	if (fd < 0)
		return;
	int null = log_errno == ETIMEDOUT ? open("/dev/null", O_WRONLY | O_CLOEXEC) : -1;
	if (null < 0 || dup2(null, fd) < 0)
		close(fd);
	if (null >= 0)
		close(null);
}

/* The job's log written redacted from the unlinked copy; this run's NCCL
 * logs rewritten. */
static void redact_finish(struct bundle_files *f, struct redactor *red, const struct strvec *logs, int log_errno)
{
	if (credact_copy_fd(red, f->raw_fd, f->log_fd) < 0)
		fprintf(stderr, "nccl-triage run: cannot write the redacted log %s/%s: %s\n", f->host_dir, f->log_name,
		        strerror(errno));
	retire_copy_fd(f->raw_fd, log_errno);
	close(f->log_fd);
	f->raw_fd = f->log_fd = -1;
	for (size_t i = 0; i < logs->n; i++)
		rewrite_nccl_log(f, logs->v[i], red);
}

static void loss_notes(const struct bundle_files *f, const struct run_result *r)
{
	if (r->log_lost)
		fprintf(stderr, "nccl-triage run: the bundle's copy of the output (%s/%s) is incomplete: %llu bytes lost "
		        "(%s)\n", f->host_dir, f->log_name, (unsigned long long)r->log_lost,
		        r->log_errno ? strerror(r->log_errno) : "the disk was too slow");
	if (r->out_lost + r->err_lost)
		fprintf(stderr, "nccl-triage run: %llu bytes of the job's output were not shown here (%s); the bundle's log "
		        "has them\n", (unsigned long long)(r->out_lost + r->err_lost),
		        r->out_errno || r->err_errno ? strerror(r->out_errno ? r->out_errno : r->err_errno) :
		                                       "the terminal was too slow");
}

int cmd_run(struct common *c, struct strvec *ops)
{
	struct runopts o;
	if (parse_opts(c, &o) < 0)
		return EXIT_TROUBLE;
	if (!ops->n) {
		fprintf(stderr, "nccl-triage run: no command\nhint: nccl-triage run -- torchrun --nproc-per-node 8 train.py\n");
		return EXIT_TROUBLE;
	}
	signal(SIGXFSZ, SIG_IGN); /* a file size limit: EFBIG on the log, not the end of run */
	strvec_push_owned(ops, NULL);
	ops->n--;
	struct bundle_files f;
	int have_bundle = bundle_open(&o, &f) == 0;
	if (!have_bundle)
		fprintf(stderr, "nccl-triage run: running the job without a bundle\n");
	cJSON *rec = cJSON_CreateObject();
	struct jobenv e;
	struct bundle_files nob = {0};
	if (!have_bundle) {
		nob.host_dir = xstrdup("/nonexistent");
		nob.log_fd = -1;
	}
	job_env(&o, have_bundle ? &f : &nob, &e, rec);
	/* --redact: the output goes to the unlinked copy, job.log stays empty until the end */
	int copy_fd = !have_bundle ? -1 : o.redact ? f.raw_fd : f.log_fd;
	struct run_spec spec = {ops->v, e.v.v, copy_fd, o.timeout_s, o.kill_after_s};
	struct run_result r;
	struct job_clock jc;
	job_clock_now(&jc);
	if (run_job(&spec, &r) < 0)
		fprintf(stderr, "nccl-triage run: cannot start the job: %s\n", strerror(r.exec_errno));
	else if (!r.started)
		fprintf(stderr, "nccl-triage run: %s: %s\n", ops->v[0],
		        r.exec_errno == ENOENT ? "command not found" : strerror(r.exec_errno));
	char how[200];
	ended(how, sizeof how, &r);
	char *cmd = argv_text(ops->v);
	int failed = r.status != 0 || r.timed_out;
	if (have_bundle) {
		struct strvec nccl_logs = {0};
		struct redactor *red = o.redact ? redact_start(&f, &e, cmd, &nccl_logs) : NULL;
		if (!red)
			retire_copy_fd(f.log_fd, r.log_errno);
		struct buf m;
		buf_init(&m);
		struct collect_opts co;
		collect_opts_default(&co);
		co.redact = o.redact;
		collect_manifest_header(&m, &co, f.full, "run");
		size_t nrep = 0;
		if ((failed || o.always) && o.collect)
			collect_into(&o, &f, &jc, &m, rec, &nrep, red);
		run_record(rec, &o, &f, ops->v, &r, &e);
		size_t nfr = red ? fr_dumps(&f) : 0;
		if (nfr)
			cJSON_AddNumberToObject(rec, "fr_unredacted", (double)nfr);
		cJSON *line = cJSON_CreateObject();
		cJSON_AddItemToObject(line, "run", rec);
		char *s = cJSON_PrintUnformatted(line);
		buf_adds(&m, s);
		buf_addc(&m, '\n');
		free(s);
		cJSON_Delete(line);
		if (red) {
			credact_rewrite_buf(red, &m);
			redact_finish(&f, red, &nccl_logs, r.log_errno);
		}
		write_manifest(&f, &m, &r);
		buf_free(&m);
		strvec_free(&nccl_logs);
		if (nfr)
			fprintf(stderr, "nccl-triage run: fr/ holds %zu flight-recorder dumps that --redact does not rewrite; "
			        "they may show host names, addresses and paths: read or remove %s/fr before the bundle leaves "
			        "this machine\n", nfr, f.host_dir);
		if (failed || o.always) {
			fprintf(stderr, "nccl-triage run: %s %s\n", cmd, how);
			if (analyse(c, &f, red) < 0)
				fprintf(stderr, "nccl-triage run: the bundle could not be analysed (see above)\n");
			fprintf(stderr, "nccl-triage run: bundle: %s (%s%s); nccl-triage analyze %s\n", f.host_dir, f.log_name,
			        nrep ? " and this host's system reports" : "", f.host_dir);
		} else {
			fprintf(stderr, "nccl-triage run: %s %s; its output is in %s/%s\n", cmd, how, f.host_dir, f.log_name);
		}
		loss_notes(&f, &r);
		redactor_free(red);
		free(f.host_dir);
		free(f.log_name);
		free(f.stem);
	} else {
		cJSON_Delete(rec);
		fprintf(stderr, "nccl-triage run: %s %s\n", cmd, how);
		free(nob.host_dir);
	}
	free(cmd);
	jobenv_free(&e);
	return r.status;
}
