/* collect.c - see collect.h.  The table of commands is PROBES: each names
 * its file, the kind analyze should give it (tests check that it does), its
 * command line and how its output is cut down (only the /dev/shm lines of
 * `mount`, the GPU stack of `pip list`, the kernel log's tail and its
 * Xid/NVRM lines).  A probe marked P_FALLBACK runs only when the probes
 * before it (back to the first that is no fallback) gave no output
 * (journalctl -k when dmesg is not allowed, /sbin/ldconfig when ldconfig
 * is not on PATH). */
#include "collect/collect.h"

#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "collect/proc.h"
#include "verify/verify.h"

#ifndef NT_VERSION
#define NT_VERSION "0.0.0"
#endif

extern char **environ;

enum filt { F_ALL, F_SHM, F_PIP, F_NCCL, F_KMSG };
enum { P_FALLBACK = 1, P_SLOW = 2, P_LIBNCCL = 4 };

struct probe {
	const char *file;
	const char *kind;
	const char *argv[6];
	enum filt filt;
	unsigned flags;
};

static const struct probe PROBES[] = {
	{"nvidia-smi.txt", "nvidia_smi", {"nvidia-smi"}, F_ALL, 0},
	{"nvidia-smi-q.txt", "nvidia_smi_q", {"nvidia-smi", "-q"}, F_ALL, 0},
	{"nvidia-smi-L.txt", "nvidia_smi_list", {"nvidia-smi", "-L"}, F_ALL, 0},
	{"topo-m.txt", "topo_matrix", {"nvidia-smi", "topo", "-m"}, F_ALL, 0},
	{"topo-p2p-r.txt", "topo_p2p", {"nvidia-smi", "topo", "-p2p", "r"}, F_ALL, 0},
	{"nvlink-s.txt", "text", {"nvidia-smi", "nvlink", "-s"}, F_ALL, 0},
	{"fabricmanager.txt", "text", {"systemctl", "status", "nvidia-fabricmanager", "--no-pager"}, F_ALL, 0},
	{"driver-version.txt", "driver_version", {"cat", "/proc/driver/nvidia/version"}, F_ALL, 0},
	{"nvcc-version.txt", "nvcc_version", {"nvcc", "--version"}, F_ALL, 0},
	{"nvcc-version.txt", "nvcc_version", {"/usr/local/cuda/bin/nvcc", "--version"}, F_ALL, P_FALLBACK},
	{"collect-env.txt", "collect_env", {"python3", "-m", "torch.utils.collect_env"}, F_ALL, P_SLOW},
	{"torch-versions.txt", "collect_env", /* the kind of version listings */
	 {"python3", "-c", "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.nccl.version())"},
	 F_ALL, P_SLOW},
	{"pip-list.txt", "package_list", {"python3", "-m", "pip", "list"}, F_PIP, P_SLOW},
	{"libnccl-ldconfig.txt", "host_config", {"ldconfig", "-p"}, F_NCCL, 0},
	{"libnccl-ldconfig.txt", "host_config", {"/sbin/ldconfig", "-p"}, F_NCCL, P_FALLBACK},
	{"libnccl-ls.txt", "host_config", {"ls", "-l"}, F_ALL, P_LIBNCCL},
	{"ulimit-a.txt", "host_config", {"bash", "-c", "ulimit -a"}, F_ALL, 0},
	{"ulimit-a.txt", "host_config", {"sh", "-c", "ulimit -a"}, F_ALL, P_FALLBACK},
	{"df-shm.txt", "host_config", {"df", "-h", "/dev/shm"}, F_ALL, 0},
	{"mount-shm.txt", "host_config", {"mount"}, F_SHM, 0},
	{"ibstat.txt", "ib_status", {"ibstat"}, F_ALL, 0},
	{"ibv_devinfo.txt", "ib_status", {"ibv_devinfo"}, F_ALL, 0},
	{"ibdev2netdev.txt", "ib_status", {"ibdev2netdev"}, F_ALL, 0},
	{"show_gids.txt", "ib_status", {"show_gids"}, F_ALL, 0},
	{"ip-br-addr.txt", "interfaces", {"ip", "-br", "addr"}, F_ALL, 0},
	{"lspci-vvv.txt", "lspci", {"lspci", "-vvv"}, F_ALL, 0},
	{"lsmod.txt", "host_config", {"lsmod"}, F_ALL, 0},
	{"dmesg.txt", "text", {"dmesg"}, F_KMSG, 0},
	{"journalctl-k.txt", "text", {"journalctl", "-k", "-b", "--no-pager"}, F_KMSG, P_FALLBACK},
	{"uname.txt", "text", {"uname", "-a"}, F_ALL, 0},
};
#define NPROBES (sizeof PROBES / sizeof *PROBES)

/* Bytes kept of one command's output before its filter (the kernel log of
 * a long boot, lspci -vvv of a large host), and of its stderr. */
#define OUT_CAP (32u << 20)
#define ERR_CAP 4096u
/* Lines of the kernel log's tail kept besides its Xid/NVRM/... lines. */
#define KMSG_TAIL 2000

void collect_opts_default(struct collect_opts *o)
{
	memset(o, 0, sizeof *o);
	o->timeout_s = 10;
	o->budget_s = 120;
	o->parallel = 4;
	o->sysdir = "sys";
}

void collect_utc(char *out, size_t n, long long t)
{
	time_t tt = t ? (time_t)t : time(NULL);
	struct tm tm;
	gmtime_r(&tt, &tm);
	strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void collect_hostname(char *shortname, size_t n, char *full, size_t fn)
{
	char h[256] = "";
	if (gethostname(h, sizeof h - 1) < 0 || !h[0])
		snprintf(h, sizeof h, "localhost");
	h[sizeof h - 1] = 0;
	if (full)
		snprintf(full, fn, "%s", h);
	size_t i = 0;
	for (; h[i] && h[i] != '.' && i + 1 < n; i++)
		shortname[i] = (isalnum((unsigned char)h[i]) || h[i] == '-' || h[i] == '_') ? h[i] : '_';
	shortname[i] = 0;
	if (!i)
		snprintf(shortname, n, "localhost");
}

/* ---- the environment ---- */

static int env_matters(const char *s)
{
	static const char *const prefixes[] = {"NCCL_", "TORCH_", "TORCHELASTIC_", "PYTORCH_", "CUDA_", "NVIDIA_",
	                                       "NVSHMEM_", "MASTER_", "SLURM_", "OMPI_", "PMI", "PMIX_", "UCX_",
	                                       "FI_", "MPI_", "HOROVOD_", "DEEPSPEED_", "VLLM_", NULL};
	static const char *const names[] = {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK",
	                                    "ROLE_RANK", "NODE_RANK", "LD_LIBRARY_PATH", "LD_PRELOAD", "HOSTNAME",
	                                    "OMP_NUM_THREADS", NULL};
	const char *eq = strchr(s, '=');
	if (!eq || eq == s)
		return 0;
	size_t n = (size_t)(eq - s);
	for (size_t i = 0; prefixes[i]; i++)
		if (n > strlen(prefixes[i]) && !strncmp(s, prefixes[i], strlen(prefixes[i])))
			return 1;
	for (size_t i = 0; names[i]; i++)
		if (n == strlen(names[i]) && !strncmp(s, names[i], n))
			return 1;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *collect_env_dump(char *const *env, size_t *count)
{
	struct strvec v = {0};
	for (char *const *e = env ? env : environ; e && *e; e++)
		if (env_matters(*e))
			strvec_push(&v, *e);
	if (v.n > 1)
		xqsort(v.v, v.n, sizeof *v.v, cmp_str);
	struct buf b;
	buf_init(&b);
	for (size_t i = 0; i < v.n; i++) {
		size_t start = b.len;
		for (const char *p = v.v[i]; *p; p++) {
			if (*p == '\n')
				buf_adds(&b, "\\n");
			else if (*p == '\r')
				buf_adds(&b, "\\r");
			else
				buf_addc(&b, *p);
		}
		b.len = start + str_mask_secrets(b.data + start, b.len - start);
		buf_addc(&b, '\n');
	}
	if (count)
		*count = v.n;
	strvec_free(&v);
	if (!b.data)
		return xstrdup("");
	return buf_steal(&b);
}

/* ---- output filters ---- */

static int has_ci(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);
	for (size_t i = 0; i + k <= n; i++)
		if (!strncasecmp(s + i, w, k))
			return 1;
	return 0;
}

static int keep_pip(const char *s, size_t n, size_t lineno)
{
	static const char *const stack[] = {"torch", "nvidia-", "nvidia_", "nccl", "cuda", "cupy", "triton", "jax",
	                                    "tensorflow", "deepspeed", "vllm", "sglang", "flash-attn", "flash_attn",
	                                    "xformers", "apex", "transformer-engine", "transformer_engine", "megatron",
	                                    "accelerate", "horovod", "mpi4py", "numpy", "lightning", "pytorch-lightning",
	                                    "ray", "tensorrt", "nixl", "ucx", NULL};
	if (lineno <= 2)
		return 1; /* "Package  Version" and its rule */
	for (size_t i = 0; stack[i]; i++) {
		size_t k = strlen(stack[i]);
		if (n >= k && !strncasecmp(s, stack[i], k))
			return 1;
	}
	return 0;
}

static int keep_kmsg(const char *s, size_t n)
{
	static const char *const words[] = {"Xid", "NVRM", "nvidia", "IOMMU", "DMAR", "AMD-Vi", "mlx5", "infiniband",
	                                    "ib_", "oom-kill", "Out of memory", "Killed process", "segfault",
	                                    "general protection", "NVLink", "nvswitch", "fabric", "PCIe Bus Error",
	                                    "AER", "hung_task", "soft lockup", "MCE", "Machine check", NULL};
	for (size_t i = 0; words[i]; i++)
		if (has_ci(s, n, words[i]))
			return 1;
	return 0;
}

static size_t count_lines(const struct buf *b)
{
	size_t n = 0;
	for (size_t i = 0; i < b->len; i++)
		n += b->data[i] == '\n';
	return n + (b->len && b->data[b->len - 1] != '\n');
}

/* dmesg's "[12345.678901] ..." before since (seconds since boot): a line
 * from before the job started (run); lines without a time are kept. */
static int kmsg_before(const char *s, size_t n, double since)
{
	if (since <= 0 || n < 3 || s[0] != '[')
		return 0;
	char tmp[32];
	size_t k = 1;
	while (k < n && k < sizeof tmp && s[k] == ' ')
		k++;
	size_t st = k;
	while (k < n && k - st < sizeof tmp - 1 && ((s[k] >= '0' && s[k] <= '9') || s[k] == '.'))
		k++;
	if (k == st || k >= n || s[k] != ']')
		return 0;
	memcpy(tmp, s + st, k - st);
	tmp[k - st] = 0;
	return strtod(tmp, NULL) < since;
}

/* Cut the output of a command down to the lines its filter keeps, in order. */
static void filter_output(enum filt f, const struct buf *in, struct buf *out, double since)
{
	const char *p = in->data ? in->data : "", *end = p + in->len;
	size_t lines = 0;
	for (const char *q = p; q < end; q++)
		lines += *q == '\n';
	if (in->len && end[-1] != '\n')
		lines++;
	size_t lineno = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		lineno++;
		int keep = 1;
		if (f == F_SHM)
			keep = has_ci(p, n, " /dev/shm ") || (n >= 9 && !memcmp(p + n - 9, " /dev/shm", 9));
		else if (f == F_PIP)
			keep = keep_pip(p, n, lineno);
		else if (f == F_NCCL)
			keep = has_ci(p, n, "libnccl");
		else if (f == F_KMSG)
			keep = (lineno + KMSG_TAIL > lines || keep_kmsg(p, n)) && !kmsg_before(p, n, since);
		if (keep) {
			buf_add(out, p, n);
			buf_addc(out, '\n');
		}
		p = nl ? nl + 1 : end;
	}
}

/* ---- libnccl files ---- */

static void add_existing(struct strvec *v, const char *path)
{
	struct stat st;
	if (path[0] == '/' && lstat(path, &st) == 0 && !strvec_contains(v, path))
		strvec_push(v, path);
}

static void add_glob(struct strvec *v, const char *pattern)
{
	glob_t g;
	if (glob(pattern, 0, NULL, &g) == 0)
		for (size_t i = 0; i < g.gl_pathc; i++)
			add_existing(v, g.gl_pathv[i]);
	globfree(&g);
}

/* The libnccl.so files a job may load: LD_LIBRARY_PATH, the system
 * folders, the Python environments' nvidia/nccl/lib (verify's search). */
static void libnccl_files(struct strvec *v)
{
	const char *ld = getenv("LD_LIBRARY_PATH");
	if (ld && *ld) {
		char *copy = xstrdup(ld), *save = NULL;
		for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			char *pat = xasprintf("%s/libnccl.so*", d);
			add_glob(v, pat);
			free(pat);
		}
		free(copy);
	}
	static const char *const sys[] = {"/usr/lib/x86_64-linux-gnu/libnccl.so*", "/usr/lib/aarch64-linux-gnu/libnccl.so*",
	                                  "/usr/lib64/libnccl.so*", "/usr/lib/libnccl.so*", "/usr/local/lib/libnccl.so*",
	                                  "/usr/local/cuda/lib64/libnccl.so*", "/usr/local/nccl/lib/libnccl.so*", NULL};
	for (size_t i = 0; sys[i]; i++)
		add_glob(v, sys[i]);
	struct strvec cand = {0};
	verify_nccl_candidates(NULL, &cand);
	for (size_t i = 0; i < cand.n; i++)
		add_existing(v, cand.v[i]);
	strvec_free(&cand);
}

/* ---- the manifest ---- */

static void add_line(struct buf *m, cJSON *o)
{
	char *s = cJSON_PrintUnformatted(o);
	buf_adds(m, s);
	buf_addc(m, '\n');
	free(s);
	cJSON_Delete(o);
}

static const char *container_kind(void)
{
	struct stat st;
	if (getenv("KUBERNETES_SERVICE_HOST"))
		return "kubernetes";
	if (stat("/.dockerenv", &st) == 0)
		return "docker";
	if (stat("/run/.containerenv", &st) == 0)
		return "podman";
	const char *c = getenv("container");
	if (c && *c)
		return c;
	if (getenv("SINGULARITY_CONTAINER") || getenv("APPTAINER_CONTAINER"))
		return "apptainer";
	return "none";
}

void collect_manifest_header(struct buf *m, const struct collect_opts *o, const char *host, const char *kind)
{
	char t[32];
	collect_utc(t, sizeof t, 0);
	cJSON *h = cJSON_CreateObject();
	cJSON_AddNumberToObject(h, "nccl_triage_collect", 1);
	cJSON_AddStringToObject(h, "tool", "nccl-triage " NT_VERSION);
	cJSON_AddStringToObject(h, "by", kind);
	cJSON_AddStringToObject(h, "host", host);
	cJSON_AddStringToObject(h, "time", t);
	cJSON_AddBoolToObject(h, "root", geteuid() == 0);
	cJSON_AddStringToObject(h, "container", container_kind());
	cJSON_AddBoolToObject(h, "redacted", o->redact);
	cJSON_AddNumberToObject(h, "timeout_s", o->timeout_s);
	cJSON_AddNumberToObject(h, "budget_s", o->budget_s);
	if (o->cmdline)
		cJSON_AddStringToObject(h, "command", o->cmdline);
	add_line(m, h);
}

static char *joined(char *const *argv)
{
	struct buf b;
	buf_init(&b);
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			buf_addc(&b, ' ');
		int q = strpbrk(argv[i], " \t'\";|&*?") != NULL;
		if (q)
			buf_addc(&b, '\'');
		buf_adds(&b, argv[i]);
		if (q)
			buf_addc(&b, '\'');
	}
	return buf_steal(&b);
}

/* The first non-blank line of s, cut to 300 bytes, masked; NULL when none. */
static char *first_line(const struct buf *s)
{
	const char *p = s->data ? s->data : "", *end = p + s->len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *a = p;
		while (n && isspace((unsigned char)*a)) {
			a++;
			n--;
		}
		if (n)
			return str_sanitize_cut(a, n, 300);
		p = nl ? nl + 1 : end;
	}
	return NULL;
}

static int says_denied(const struct buf *b)
{
	const char *p = b->data ? b->data : "";
	return has_ci(p, b->len, "Permission denied") || has_ci(p, b->len, "Operation not permitted") ||
	       has_ci(p, b->len, "insufficient permissions") || has_ci(p, b->len, "Access denied") ||
	       has_ci(p, b->len, "must be root") || has_ci(p, b->len, "must be superuser");
}

/* The status word of a finished command and, for a failure, what was wrong. */
static const char *status_of(const struct proc_job *j, const struct probe *p, char **why)
{
	*why = NULL;
	switch (j->state) {
	case PROC_EXEC_FAILED:
		if (j->exec_errno == ENOENT) {
			*why = xasprintf("%s: not installed (not found in PATH)", j->argv[0]);
			return "missing";
		}
		*why = xasprintf("%s: cannot run: %s", j->argv[0], strerror(j->exec_errno));
		return j->exec_errno == EACCES || j->exec_errno == EPERM ? "denied" : "failed";
	case PROC_SPAWN_FAILED:
		*why = xasprintf("cannot start: %s", strerror(j->exec_errno));
		return "failed";
	case PROC_TIMEOUT:
		*why = xasprintf("no end after %.0f s: stopped", j->timeout_s);
		return "timeout";
	case PROC_BUDGET:
		*why = xstrdup(j->t0 > 0 ? "stopped: the total budget (--budget) ran out" :
		                           "not run: the total budget (--budget) ran out");
		return "skipped";
	case PROC_SIGNALED:
		*why = xasprintf("killed by signal %d", j->term_sig);
		return "failed";
	case PROC_EXITED:
		break;
	case PROC_PENDING:
		*why = xstrdup("not run");
		return "skipped";
	}
	if (j->exit_code == 0) {
		/* lspci without root: "Capabilities: <access denied>" */
		if (p->filt == F_ALL && j->out.data && strstr(j->out.data, "<access denied>")) {
			*why = xstrdup("ran, but parts of its output need root (\"<access denied>\")");
			return "partial";
		}
		return "ok";
	}
	char *l = first_line(&j->err);
	if (!l)
		l = first_line(&j->out);
	*why = xasprintf("exit status %d%s%s", j->exit_code, l ? ": " : "", l ? l : "");
	int denied = says_denied(&j->err) || (!j->err.len && says_denied(&j->out));
	free(l);
	return denied ? "denied" : "failed";
}

static void count(struct collect_counts *c, const char *st)
{
	c->total++;
	if (!strcmp(st, "ok") || !strcmp(st, "partial"))
		c->ok++;
	else if (!strcmp(st, "missing") || !strcmp(st, "absent"))
		c->missing++;
	else if (!strcmp(st, "denied"))
		c->denied++;
	else if (!strcmp(st, "timeout"))
		c->timeout++;
	else if (!strcmp(st, "skipped"))
		c->skipped++;
	else
		c->failed++;
}

/* One command's manifest line and file. */
static void record(const struct collect_opts *o, const struct probe *p, struct proc_job *j, struct citems *items,
                   struct buf *m, struct collect_counts *cnt, int *got)
{
	char *why;
	const char *st = status_of(j, p, &why);
	struct buf kept;
	buf_init(&kept);
	if (p->filt == F_ALL)
		buf_add(&kept, j->out.data ? j->out.data : "", j->out.len);
	else
		filter_output(p->filt, &j->out, &kept, o->since_uptime);
	if (p->filt == F_PIP && count_lines(&kept) <= 2)
		buf_reset(&kept); /* the header alone: no package of the GPU stack */
	char *name = xasprintf("%s/%s", o->sysdir, p->file);
	/* a fallback's file replaces nothing: it only runs when there was none */
	if (kept.len && !citems_find(items, name)) {
		citems_add(items, name, kept.data, kept.len);
		*got = 1;
	}
	cJSON *l = cJSON_CreateObject();
	cJSON_AddStringToObject(l, "file", name);
	cJSON_AddStringToObject(l, "kind", p->kind);
	char *cmd = joined(j->argv);
	cJSON_AddStringToObject(l, "command", cmd);
	free(cmd);
	cJSON_AddStringToObject(l, "status", st);
	if (j->state == PROC_EXITED)
		cJSON_AddNumberToObject(l, "exit", j->exit_code);
	else
		cJSON_AddNullToObject(l, "exit");
	if (j->state == PROC_SIGNALED || j->state == PROC_TIMEOUT)
		cJSON_AddNumberToObject(l, "signal", j->term_sig);
	cJSON_AddNumberToObject(l, "ms", (double)(long long)(j->ms + 0.5));
	cJSON_AddNumberToObject(l, "bytes", (double)j->out_total);
	cJSON_AddNumberToObject(l, "kept", (double)kept.len);
	cJSON_AddBoolToObject(l, "cut", j->out_total > j->out.len);
	if (p->filt != F_ALL)
		cJSON_AddStringToObject(l, "filter", p->filt == F_KMSG && o->since_uptime > 0 ?
		                                         "Xid/NVRM/IOMMU/RDMA/OOM lines and the last 2000, since the job started" :
		                                     p->filt == F_SHM    ? "lines of /dev/shm" :
		                                     p->filt == F_PIP    ? "the GPU stack's packages" :
		                                     p->filt == F_NCCL   ? "lines naming libnccl" :
		                                                           "Xid/NVRM/IOMMU/RDMA/OOM lines and the last 2000");
	if (why)
		cJSON_AddStringToObject(l, "error", why);
	add_line(m, l);
	count(cnt, st);
	free(why);
	free(name);
	buf_free(&kept);
}

/* A file that no command could make (no libnccl found): its manifest line. */
static void record_absent(const struct collect_opts *o, const struct probe *p, const char *why, struct buf *m,
                          struct collect_counts *cnt)
{
	cJSON *l = cJSON_CreateObject();
	char *name = xasprintf("%s/%s", o->sysdir, p->file);
	cJSON_AddStringToObject(l, "file", name);
	cJSON_AddStringToObject(l, "kind", p->kind);
	cJSON_AddStringToObject(l, "command", p->argv[0]);
	cJSON_AddStringToObject(l, "status", "absent");
	cJSON_AddNullToObject(l, "exit");
	cJSON_AddNumberToObject(l, "ms", 0);
	cJSON_AddNumberToObject(l, "bytes", 0);
	cJSON_AddNumberToObject(l, "kept", 0);
	cJSON_AddBoolToObject(l, "cut", 0);
	cJSON_AddStringToObject(l, "error", why);
	add_line(m, l);
	count(cnt, "absent");
	free(name);
}

/* The child environment: ours with a clean locale, no pager, no colour,
 * no byte-code or pip cache written. */
static char **child_env(void)
{
	struct strvec v = {0};
	for (char **e = environ; e && *e; e++)
		if (strncmp(*e, "LC_", 3) && strncmp(*e, "LANG=", 5) && strncmp(*e, "LANGUAGE=", 9) &&
		    strncmp(*e, "PAGER=", 6) && strncmp(*e, "SYSTEMD_PAGER=", 14))
			strvec_push(&v, *e);
	static const char *const add[] = {"LC_ALL=C", "LANG=C", "PAGER=cat", "SYSTEMD_PAGER=", "SYSTEMD_COLORS=0",
	                                  "NO_COLOR=1", "PYTHONDONTWRITEBYTECODE=1", "PIP_DISABLE_PIP_VERSION_CHECK=1",
	                                  "PIP_NO_INPUT=1", NULL};
	for (size_t i = 0; add[i]; i++)
		strvec_push(&v, add[i]);
	strvec_push_owned(&v, NULL);
	return v.v;
}

static void free_env(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

/* Run the probes of one round (fallbacks: round 1) and record them. */
static void run_round(const struct collect_opts *o, int round, int *got, double budget_end, char **env,
                      struct citems *items, struct buf *m, struct collect_counts *cnt)
{
	struct proc_job jobs[NPROBES];
	size_t which[NPROBES], nj = 0;
	struct strvec libs = {0};
	char **lib_argv = NULL;
	char since_arg[32];
	memset(jobs, 0, sizeof jobs);
	for (size_t i = 0; i < NPROBES; i++) {
		const struct probe *p = &PROBES[i];
		if (!!(p->flags & P_FALLBACK) != round)
			continue;
		if (round == 1) {
			/* the probe it stands in for (the nearest before it that is no
			 * fallback) or a fallback between them gave output */
			int have = 0;
			for (size_t k = i; k-- > 0;) {
				have |= got[k];
				if (!(PROBES[k].flags & P_FALLBACK))
					break;
			}
			if (have)
				continue;
		}
		struct proc_job *j = &jobs[nj];
		if (p->flags & P_LIBNCCL) {
			libnccl_files(&libs);
			if (!libs.n) {
				record_absent(o, p, "no libnccl.so file on LD_LIBRARY_PATH, in the system folders or in a Python "
				                    "environment", m, cnt);
				continue;
			}
			lib_argv = xcalloc(libs.n + 3, sizeof *lib_argv);
			lib_argv[0] = (char *)"ls";
			lib_argv[1] = (char *)"-l";
			for (size_t k = 0; k < libs.n; k++)
				lib_argv[k + 2] = libs.v[k];
			j->argv = lib_argv;
		} else if (o->since_epoch > 0 && !strcmp(p->argv[0], "journalctl")) {
			/* run: the kernel's messages since the job started */
			snprintf(since_arg, sizeof since_arg, "@%lld", o->since_epoch);
			static const char *jargv[] = {"journalctl", "-k", "-b", "--no-pager", "--since", NULL, NULL};
			jargv[5] = since_arg;
			j->argv = (char **)jargv;
		} else {
			j->argv = (char **)p->argv;
		}
		j->out_cap = OUT_CAP;
		j->err_cap = ERR_CAP;
		j->timeout_s = o->timeout_s * (p->flags & P_SLOW ? 3 : 1);
		which[nj++] = i;
	}
	double left = budget_end - proc_now();
	proc_run_all(jobs, nj, o->parallel, left > 0 ? left : 0, env);
	for (size_t k = 0; k < nj; k++) {
		record(o, &PROBES[which[k]], &jobs[k], items, m, cnt, &got[which[k]]);
		proc_job_free(&jobs[k]);
	}
	free(lib_argv);
	strvec_free(&libs);
}

void collect_host(const struct collect_opts *o, struct citems *items, struct buf *m, struct collect_counts *cnt)
{
	memset(cnt, 0, sizeof *cnt);
	int got[NPROBES] = {0};
	char **env = child_env();
	double budget_end = proc_now() + o->budget_s;
	run_round(o, 0, got, budget_end, env, items, m, cnt);
	run_round(o, 1, got, budget_end, env, items, m, cnt);
	free_env(env);
	/* the environment: no command, this process's (or the job's) */
	size_t nvars = 0;
	char *dump = collect_env_dump(o->env, &nvars);
	cJSON *l = cJSON_CreateObject();
	cJSON_AddStringToObject(l, "file", "env.txt");
	cJSON_AddStringToObject(l, "kind", "env_dump");
	cJSON_AddStringToObject(l, "command", "(the environment, filtered)");
	cJSON_AddStringToObject(l, "status", "ok");
	cJSON_AddNullToObject(l, "exit");
	cJSON_AddNumberToObject(l, "ms", 0);
	cJSON_AddNumberToObject(l, "bytes", (double)strlen(dump));
	cJSON_AddNumberToObject(l, "kept", (double)strlen(dump));
	cJSON_AddBoolToObject(l, "cut", 0);
	cJSON_AddNumberToObject(l, "variables", (double)nvars);
	add_line(m, l);
	count(cnt, "ok");
	if (*dump)
		citems_add(items, "env.txt", dump, strlen(dump));
	free(dump);
}

/* ---- the stack's versions, from files ---- */

/* "__version__ = '2.11.0+cu130'" of torch/version.py */
static int torch_version_file(const char *site, char *out, size_t n)
{
	char *p = xasprintf("%s/torch/version.py", site);
	FILE *f = fopen(p, "r");
	free(p);
	if (!f)
		return 0;
	char line[256];
	int ok = 0;
	while (!ok && fgets(line, sizeof line, f)) {
		const char *q = strstr(line, "__version__");
		if (!q || strncmp(line, "__version__", 11))
			continue;
		q = strpbrk(q, "'\"");
		if (!q)
			continue;
		size_t l = strcspn(q + 1, "'\"");
		if (l && l < n) {
			memcpy(out, q + 1, l);
			out[l] = 0;
			ok = 1;
		}
	}
	fclose(f);
	return ok;
}

/* nvidia_nccl_cu13-2.28.9.dist-info -> 2.28.9 */
static int nccl_wheel(const char *site, char *out, size_t n)
{
	char *pat = xasprintf("%s/nvidia_nccl_cu*-*.dist-info", site);
	glob_t g;
	int ok = 0;
	if (glob(pat, GLOB_ONLYDIR, NULL, &g) == 0 && g.gl_pathc) {
		const char *b = strrchr(g.gl_pathv[0], '/');
		const char *d = b ? strchr(b, '-') : NULL;
		const char *e = d ? strstr(d, ".dist-info") : NULL;
		if (d && e && (size_t)(e - d - 1) < n && e > d + 1) {
			memcpy(out, d + 1, (size_t)(e - d - 1));
			out[e - d - 1] = 0;
			ok = 1;
		}
	}
	globfree(&g);
	free(pat);
	return ok;
}

void collect_stack_versions(char *nccl, size_t nn, char *torch, size_t tn, char *from, size_t fn)
{
	nccl[0] = torch[0] = from[0] = 0;
	struct strvec sites = {0};
	verify_python_sites(&sites);
	for (size_t i = 0; i < sites.n && !torch[0]; i++)
		if (torch_version_file(sites.v[i], torch, tn)) {
			if (nccl_wheel(sites.v[i], nccl, nn))
				snprintf(from, fn, "%s (nvidia-nccl wheel)", sites.v[i]);
		}
	strvec_free(&sites);
	if (nccl[0])
		return;
	struct strvec libs = {0};
	libnccl_files(&libs);
	for (size_t i = 0; i < libs.n && !nccl[0]; i++) {
		const char *b = strrchr(libs.v[i], '/');
		b = b ? b + 1 : libs.v[i];
		if (!strncmp(b, "libnccl.so.2.", 13) && strlen(b + 11) < nn) {
			snprintf(nccl, nn, "%s", b + 11);
			snprintf(from, fn, "%s", libs.v[i]);
		}
	}
	strvec_free(&libs);
}
