/* parse_host.c - host configuration listings to facts (docs/facts.md):
 *   `ulimit -a` (bash and zsh wording) and /proc/PID/limits -> facts.limits.memlock
 *   `df [-h|-k] /dev/shm`, `mount`, /proc/mounts            -> facts.shm
 *   `lsmod` (whole, or filtered by grep)                      -> facts.kernel_modules
 *   `ls -l`, `ldd`, `ldconfig -p`, `find` listings of libnccl -> facts.libnccl[]
 *   `ompi_info`, `mpirun --version`                           -> facts.mpi
 * Each is recognised line by line, so that a document holding several of
 * them (a "sysinfo.txt", a pasted ticket) gives all of them.  Lines come
 * through sys_lines (bounded). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/detect.h"
#include "parse/sysparse.h"

#define HC_MAX_LIBS 256
#define HC_MAX_COMPONENTS 64

/* kernel modules that matter to NCCL: GPU driver, GPUDirect RDMA, RDMA stack */
static const char *const MODULES[] = {
	"nvidia", "nvidia_uvm", "nvidia_drm", "nvidia_modeset", "nvidia_peermem", "nv_peer_mem",
	"nvidia_fs", "gdrdrv", "ib_core", "ib_uverbs", "mlx5_core", "mlx5_ib", "rdma_ucm", "rdma_cm",
	"ib_ipoib", "efa", NULL};

struct hcp {
	cJSON *facts;
	const char *path;
	int df_units;     /* 0 none, 1 human (-h), 1024 (1K-blocks) */
	int df_cols;      /* columns of the df header */
	int lsmod;        /* an lsmod header was seen */
};

/* "64M", "1.0M", "256G", "65536k" -> bytes (K = 1024); NAN when not a size */
static double human_bytes(const char *s)
{
	char *e;
	double v = strtod(s, &e);
	if (e == s || v < 0)
		return NAN;
	double mul = 1;
	switch (toupper((unsigned char)*e)) {
	case 0: return v;
	case 'B': mul = 1; break;
	case 'K': mul = 1024.0; break;
	case 'M': mul = 1024.0 * 1024; break;
	case 'G': mul = 1024.0 * 1024 * 1024; break;
	case 'T': mul = 1024.0 * 1024 * 1024 * 1024; break;
	default: return NAN;
	}
	e++;
	if (*e == 'i' || *e == 'I')
		e++;
	if (*e == 'B' || *e == 'b')
		e++;
	return *e ? NAN : v * mul;
}

static void set_shm(struct hcp *p, double bytes, const char *text, const char *fs, const char *how, uint64_t lineno)
{
	cJSON *o = sys_obj(p->facts, "shm");
	/* a later listing of the same document replaces an earlier one (stacked mounts: the last is in effect) */
	sys_set_num(o, "size_bytes", bytes);
	sys_set_str(o, "size_text", text);
	if (fs)
		sys_set_str(o, "filesystem", fs);
	sys_set_str(o, "from", how);
	sys_put_source(o, p->path, lineno);
}

/* "max locked memory       (kbytes, -l) 64", "-l: locked-in-memory size (kbytes) unlimited",
 * /proc/PID/limits "Max locked memory   65536   65536   bytes" */
static int memlock_line(struct hcp *p, const char *s, uint64_t lineno)
{
	const char *v = NULL;
	double mul = 1024; /* kbytes */
	const char *q;
	if ((q = strstr(s, "max locked memory")) && (q = strstr(q, "-l)")))
		v = q + 3;
	else if (!strncmp(s, "-l: locked-in-memory size (kbytes)", 34))
		v = s + 34;
	else if (!strncmp(s, "Max locked memory", 17)) {
		v = s + 17;
		mul = strstr(s, "bytes") ? 1 : 1024;
	}
	if (!v)
		return 0;
	while (*v == ' ' || *v == '\t')
		v++;
	cJSON *o = sys_obj(sys_obj(p->facts, "limits"), "memlock");
	if (!strncmp(v, "unlimited", 9)) {
		sys_set_bool(o, "unlimited", 1);
		cJSON_DeleteItemFromObjectCaseSensitive(o, "bytes");
		sys_set_str(o, "text", "unlimited");
	} else if (isdigit((unsigned char)*v)) {
		double n = strtod(v, NULL);
		if (!(n >= 0 && n < 1e18))
			return 0;
		sys_set_bool(o, "unlimited", 0);
		sys_set_num(o, "bytes", n * mul);
		char t[64];
		snprintf(t, sizeof t, "%.0f %s", n, mul == 1 ? "bytes" : "KiB");
		sys_set_str(o, "text", t);
	} else {
		return 0;
	}
	sys_put_source(o, p->path, lineno);
	return 1;
}

/* df header and rows */
static int df_line(struct hcp *p, char *s, uint64_t lineno)
{
	if (!strncmp(s, "Filesystem", 10) && strstr(s, "Mounted on")) {
		p->df_units = strstr(s, "1K-blocks") ? 1024 : strstr(s, "1M-blocks") ? 1024 * 1024 : 1;
		char *c = xstrdup(s);
		char *tok[16];
		p->df_cols = (int)sys_split_ws(c, tok, 16);
		free(c);
		return 1;
	}
	if (!p->df_units)
		return 0;
	char *c = xstrdup(s);
	char *tok[16];
	size_t n = sys_split_ws(c, tok, 16);
	int ok = 0;
	/* Filesystem Size Used Avail Use% Mounted-on (df -T adds Type) */
	if (n >= 6 && tok[n - 1][0] == '/' && strchr(tok[n - 2], '%')) {
		ok = 1;
		if (!strcmp(tok[n - 1], "/dev/shm")) {
			const char *size = tok[n - 5];
			double b = p->df_units == 1 ? human_bytes(size) : strtod(size, NULL) * p->df_units;
			if (!isnan(b))
				set_shm(p, b, size, tok[0], "df", lineno);
		}
	}
	free(c);
	return ok;
}

/* "shm on /dev/shm type tmpfs (rw,...,size=65536k)", /proc/mounts "shm /dev/shm tmpfs rw,...,size=65536k 0 0" */
static int mount_line(struct hcp *p, const char *s, uint64_t lineno)
{
	char fs[128], mnt[256], type[32], opts[512];
	int form = 0;
	if (sscanf(s, "%127s on %255s type %31s (%511[^)])", fs, mnt, type, opts) == 4)
		form = 1;
	else if (sscanf(s, "%127s %255s %31s %511s %*d %*d", fs, mnt, type, opts) == 4 && mnt[0] == '/' &&
	         strchr(opts, ',') && islower((unsigned char)type[0]))
		form = 2;
	if (!form)
		return 0;
	if (!strcmp(mnt, "/dev/shm")) {
		const char *sz = strstr(opts, "size=");
		char v[32];
		if (sz && sscanf(sz + 5, "%31[^,]", v) == 1) {
			double b = human_bytes(v);
			if (!isnan(b))
				set_shm(p, b, v, fs, "mount", lineno);
		}
		cJSON *o = sys_obj(p->facts, "shm");
		sys_set_str(o, "mount_options", opts);
	}
	return 1;
}

/* "Module                  Size  Used by", "nvidia_peermem         12288  0", "ib_core  491520  9 rdma_cm,..." */
static int lsmod_line(struct hcp *p, const char *s, uint64_t lineno)
{
	if (!strncmp(s, "Module", 6) && strstr(s, "Used by")) {
		p->lsmod = 1;
		cJSON *o = sys_obj(p->facts, "kernel_modules");
		sys_set_str(o, "listing", "full");
		sys_put_source(o, p->path, lineno);
		return 1;
	}
	char name[64];
	long size, users;
	int k = 0;
	if (sscanf(s, "%63[A-Za-z0-9_] %ld %ld%n", name, &size, &users, &k) != 3 || size <= 0 || users < 0)
		return 0;
	if (s[k] && s[k] != ' ' && s[k] != '\t')
		return 0;
	int known = 0;
	for (int i = 0; MODULES[i]; i++)
		if (!strcmp(MODULES[i], name))
			known = 1;
	if (!known)
		return p->lsmod; /* a row of a whole listing; elsewhere not proof of lsmod */
	cJSON *o = sys_obj(p->facts, "kernel_modules");
	if (!cJSON_GetObjectItemCaseSensitive(o, "listing")) {
		sys_set_str(o, "listing", "filtered"); /* no header: a grep of lsmod, absence proves nothing */
		sys_put_source(o, p->path, lineno);
	}
	cJSON *l = sys_obj(o, "loaded");
	if (!cJSON_GetObjectItemCaseSensitive(l, name)) {
		cJSON *m = cJSON_CreateObject();
		cJSON_AddNumberToObject(m, "users", (double)users);
		sys_put_source(m, p->path, lineno);
		cJSON_AddItemToObject(l, name, m);
	}
	return 1;
}

/* "libnccl.so.2.27.0" -> "2.27.0" */
static int lib_version(const char *file, char *out, size_t on)
{
	const char *b = strrchr(file, '/');
	b = b ? b + 1 : file;
	if (strncmp(b, "libnccl.so.", 11))
		return 0;
	const char *v = b + 11;
	int dots = 0;
	for (const char *c = v; *c; c++) {
		if (*c == '.')
			dots++;
		else if (!isdigit((unsigned char)*c))
			return 0;
	}
	if (dots < 2 || strlen(v) >= on)
		return 0;
	snprintf(out, on, "%s", v);
	return 1;
}

static void add_lib(struct hcp *p, const char *path, const char *target, const char *how, int loaded, uint64_t lineno)
{
	cJSON *arr = sys_arr(p->facts, "libnccl");
	if (cJSON_GetArraySize(arr) >= HC_MAX_LIBS)
		return;
	cJSON *o = cJSON_CreateObject();
	sys_set_str(o, "path", path);
	if (target)
		sys_set_str(o, "target", target);
	char v[32];
	if (lib_version(target ? target : path, v, sizeof v) || lib_version(path, v, sizeof v))
		sys_set_str(o, "version", v);
	sys_set_str(o, "from", how);
	if (loaded)
		sys_set_bool(o, "resolved", 1);
	sys_put_source(o, p->path, lineno);
	cJSON_AddItemToArray(arr, o);
}

/* ls -l, ldd, ldconfig -p and plain paths naming libnccl.so* */
static int lib_line(struct hcp *p, char *s, uint64_t lineno)
{
	if (!strstr(s, "libnccl.so") || strstr(s, "libnccl-net") || strstr(s, "NCCL INFO") || strstr(s, "NCCL WARN"))
		return 0;
	char *arrow;
	char *tok[24];
	/* ldd: "libnccl.so.2 => /usr/lib/.../libnccl.so.2 (0x00007f...)" or "=> not found";
	 * ldconfig -p: "libnccl.so.2 (libc6,x86-64) => /usr/lib/.../libnccl.so.2" */
	if ((arrow = strstr(s, " => "))) {
		char *l = xstrdup(s);
		char *a = strstr(l, " => ");
		*a = 0;
		size_t ln = sys_split_ws(l, tok, 24);
		int ok = 0;
		if (ln >= 1 && !strncmp(tok[0], "libnccl.so", 10)) {
			char *r = a + 4;
			char *rt[4];
			size_t rn = sys_split_ws(r, rt, 4);
			int ldconfig = ln >= 2 && tok[1][0] == '(';
			if (rn >= 1 && rt[0][0] == '/') {
				add_lib(p, rt[0], NULL, ldconfig ? "ldconfig" : "ldd", !ldconfig, lineno);
				ok = 1;
			} else if (rn >= 2 && !strcmp(rt[0], "not") && !strcmp(rt[1], "found")) {
				cJSON *arr = sys_arr(p->facts, "libnccl");
				if (cJSON_GetArraySize(arr) < HC_MAX_LIBS) {
					cJSON *o = cJSON_CreateObject();
					sys_set_str(o, "path", tok[0]);
					sys_set_str(o, "from", "ldd");
					sys_set_bool(o, "not_found", 1);
					sys_put_source(o, p->path, lineno);
					cJSON_AddItemToArray(arr, o);
				}
				ok = 1;
			}
		}
		free(l);
		return ok;
	}
	char *c = xstrdup(s);
	size_t n = sys_split_ws(c, tok, 24);
	int ok = 0;
	/* ls -l: "lrwxrwxrwx 1 root root 17 Jul 17 19:02 /path/libnccl.so.2 -> libnccl.so.2.27.0" */
	if (n >= 9 && strlen(tok[0]) >= 10 && strchr("-lcdbps", tok[0][0]) && strchr("r-", tok[0][1])) {
		for (size_t i = 1; i < n; i++)
			if (strstr(tok[i], "libnccl.so")) {
				const char *target = i + 2 < n && !strcmp(tok[i + 1], "->") ? tok[i + 2] : NULL;
				add_lib(p, tok[i], target, "ls", 0, lineno);
				ok = 1;
				break;
			}
	} else if (n == 1 && tok[0][0] == '/' && strstr(tok[0], "/libnccl.so")) {
		add_lib(p, tok[0], NULL, "path", 0, lineno); /* find / locate output */
		ok = 1;
	}
	free(c);
	return ok;
}

static void add_component(cJSON *mpi, const char *fw, const char *name)
{
	cJSON *c = sys_obj(mpi, "components");
	cJSON *arr = sys_arr(c, fw);
	if (cJSON_GetArraySize(arr) >= HC_MAX_COMPONENTS)
		return;
	const cJSON *e;
	cJSON_ArrayForEach(e, arr)
		if (cJSON_IsString(e) && !strcmp(e->valuestring, name))
			return;
	cJSON_AddItemToArray(arr, cJSON_CreateString(name));
}

/* ompi_info: "Open MPI: 4.1.5", "MCA btl: tcp (MCA v2.1.0, API v3.1.0, Component v4.0.3)";
 * "mpirun (Open MPI) 4.1.5" */
static int ompi_line(struct hcp *p, const char *s, uint64_t lineno)
{
	char v[64], fw[32], name[64];
	cJSON *mpi;
	if (sscanf(s, "Open MPI: %63s", v) == 1 && isdigit((unsigned char)v[0])) {
		mpi = sys_obj(p->facts, "mpi");
		sys_set_str(mpi, "implementation", "Open MPI");
		cJSON *o = sys_obj(mpi, "version");
		sys_set_str(o, "value", v);
		sys_put_source(o, p->path, lineno);
		return 1;
	}
	if ((sscanf(s, "mpirun (Open MPI) %63s", v) == 1 || sscanf(s, "mpiexec (Open MPI) %63s", v) == 1) &&
	    isdigit((unsigned char)v[0])) {
		mpi = sys_obj(p->facts, "mpi");
		sys_set_str(mpi, "implementation", "Open MPI");
		cJSON *o = sys_obj(mpi, "version");
		if (!json_str(o, "value")) {
			sys_set_str(o, "value", v);
			sys_put_source(o, p->path, lineno);
		}
		return 1;
	}
	if (sscanf(s, "MCA %31[a-z_]: %63[A-Za-z0-9_] (", fw, name) == 2) {
		mpi = sys_obj(p->facts, "mpi");
		add_component(mpi, fw, name);
		const char *cv = strstr(s, "Component v");
		if (cv && sscanf(cv + 11, "%63[0-9.a-z]", v) == 1 && !cJSON_GetObjectItemCaseSensitive(mpi, "version")) {
			/* the component version is the Open MPI release when no "Open MPI:" line is there */
			cJSON *o = sys_obj(mpi, "version");
			sys_set_str(o, "value", v);
			sys_set_str(o, "from", "component version");
			sys_put_source(o, p->path, lineno);
			sys_set_str(mpi, "implementation", "Open MPI");
		}
		return 1;
	}
	/* a wrapped MCA line's continuation: "                          v4.0.3)" */
	if (s[0] == 'v' && isdigit((unsigned char)s[1]) && s[strlen(s) - 1] == ')' && cJSON_GetObjectItemCaseSensitive(p->facts, "mpi"))
		return 1;
	return 0;
}

static int host_line(void *ctx, const char *raw, char *s, uint64_t lineno)
{
	struct hcp *p = ctx;
	(void)raw;
	if (memlock_line(p, s, lineno) || df_line(p, s, lineno) || mount_line(p, s, lineno) ||
	    lsmod_line(p, s, lineno) || lib_line(p, s, lineno) || ompi_line(p, s, lineno))
		return 1;
	/* the other lines of `ulimit -a` */
	return strstr(s, "(blocks, -") || strstr(s, "(kbytes, -") || strstr(s, "(seconds, -") ||
	       strstr(s, "(bytes, -") || strstr(s, "(-i) ") || strstr(s, "(-u) ") || strstr(s, "(-n) ") ||
	       strstr(s, "(-e) ") || strstr(s, "(-r) ") || strstr(s, "(-x) ") || strstr(s, "(-R) ") ||
	       (strstr(s, "(512 bytes, -p)"));
}

static int host_parse(const char *text, size_t len, const char *path, cJSON *facts, int *nonblank)
{
	struct hcp p;
	memset(&p, 0, sizeof p);
	p.facts = facts;
	p.path = path ? path : "";
	return sys_lines_feed(text, len, host_line, &p, nonblank);
}

int sys_parse_host(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m)
{
	return sys_lines_report(host_parse, text, len, path, facts, m, "no host configuration listing found");
}

static int host_marker(const char *h, size_t n)
{
	return sys_has(h, n, "max locked memory") || sys_has(h, n, "locked-in-memory") ||
	       sys_has(h, n, "Max locked memory") || sys_has(h, n, "Mounted on") || sys_has(h, n, " type tmpfs") ||
	       sys_has(h, n, "/dev/shm tmpfs") || sys_has(h, n, "Used by") || sys_has(h, n, "libnccl.so") ||
	       sys_has(h, n, "Open MPI") || sys_has(h, n, "MCA btl") || sys_has(h, n, "MCA pml") ||
	       sys_has(h, n, "nvidia_peermem") || sys_has(h, n, "nv_peer_mem");
}

int sys_detect_host(const char *head, size_t len)
{
	if (!host_marker(head, len))
		return 0;
	return sys_lines_mostly(host_parse, head, len);
}

int sys_scan_host(const char *text, size_t len, const char *path, cJSON *facts)
{
	if (!text || !host_marker(text, len))
		return 0;
	return host_parse(text, len, path, facts, NULL) > 0;
}

/* Its lines go through the signatures too: `ulimit -a`'s "max locked
 * memory" line, `ldd`'s "not found" are theirs as much as the facts'. */
const struct sysreport_kind SYS_HOST_CONFIG = {DOC_HOST_CONFIG, "host_config", sys_detect_host, NULL, sys_parse_host, 1};
