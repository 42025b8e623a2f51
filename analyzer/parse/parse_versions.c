/* parse_versions.c - version reports to facts.versions: `nvcc --version`,
 * /proc/driver/nvidia/version, `pip list`, `pip freeze`, `conda list`,
 * PyTorch's and vLLM's collect_env (old "Key: value" and new "Key : value"
 * layouts, with their [pip3]/[conda] package lists and vLLM's GPU topology),
 * `llamafactory-cli env`, `ds_report`, and one-line
 * `python -c "import torch; print(...)"` outputs.
 *
 * Meaning of the keys (docs/facts.md): driver = kernel driver version;
 * cuda = highest CUDA the driver supports (nvidia-smi "CUDA Version");
 * nvcc = the toolkit on PATH (collect_env's "CUDA runtime version" is
 * nvcc's output too); torch_cuda = the CUDA the torch wheel was built with
 * and carries; cuda_runtime = the CUDA runtime library in use (the pip
 * nvidia-cuda-runtime package, else torch_cuda). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/sysparse.h"

static char *lower(const char *s)
{
	char *d = xstrdup(s);
	for (char *p = d; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return d;
}

/* first token of v that starts with a digit: "3.12.3 (main, ...)" -> "3.12.3" */
static int first_version(const char *v, char *out, size_t outsz)
{
	while (*v && !isdigit((unsigned char)*v))
		v++;
	size_t n = sys_scan_until(v, " \t\n\v\f\r,)", out, outsz); /* isspace's bytes, ',' and ')' */
	if (n == 0)
		return 0;
	while (n && out[n - 1] == '.')
		out[--n] = 0;
	return n > 0;
}

/* the CUDA version in a conda build string: "py3.11_cuda12.1_cudnn8.9.2_0" -> "12.1" */
static int conda_build_cuda(const char *build, char *out, size_t outsz)
{
	const char *cu = strstr(build, "cuda");
	if (!cu || !first_version(cu + 4, out, outsz))
		return 0;
	char *u = strchr(out, '_');
	if (u)
		*u = 0;
	return out[0] != 0;
}

/* a torch local version ("+cu121") as opposed to NCCL's build suffix
 * ("+cuda12.2"): the digits follow "+cu" directly */
static const char *torch_local(const char *s)
{
	for (const char *p = strstr(s, "+cu"); p; p = strstr(p + 3, "+cu"))
		if (isdigit((unsigned char)p[3]))
			return p;
	return NULL;
}

/* "+cu121" -> "12.1", "+cu130" -> "13.0", "+cu92" -> "9.2" */
static int cuda_from_local(const char *ver, char *out, size_t outsz)
{
	const char *p = strstr(ver, "+cu");
	if (!p || !isdigit((unsigned char)p[3]))
		return 0;
	p += 3;
	char d[8];
	size_t n = 0;
	while (isdigit((unsigned char)p[n]) && n < 6) {
		d[n] = p[n];
		n++;
	}
	d[n] = 0;
	if (n < 2)
		return 0;
	snprintf(out, outsz, "%.*s.%c", (int)(n - 1), d, d[n - 1]);
	return 1;
}

static int set_torch(cJSON *facts, const char *v, const char *path, uint64_t line)
{
	char ver[64], cu[16];
	if (!first_version(v, ver, sizeof ver))
		return 0;
	int n = sys_version_set(facts, "torch", ver, path, line);
	if (cuda_from_local(ver, cu, sizeof cu))
		n += sys_version_set(facts, "torch_cuda", cu, path, line);
	return n;
}

/* "GPU 0: NVIDIA H200" (collect_env) */
static int gpu_line(cJSON *facts, const char *s, const char *path, uint64_t line)
{
	int idx, k = 0;
	if (sscanf(s, "GPU %d: %n", &idx, &k) != 1 || k == 0 || idx < 0 || idx >= SYS_MAX_GPUS)
		return 0;
	char *name = xstrdup(s + k);
	char *u = strstr(name, " (UUID");
	if (u)
		*u = 0;
	sys_trim(name);
	int added = 0;
	if (*name) {
		cJSON *g = sys_gpu(facts, idx, 1);
		if (!json_str(g, "name")) {
			sys_set_str(g, "name", name);
			added = 1;
		}
		if (!cJSON_GetObjectItemCaseSensitive(g, "source"))
			sys_put_source(g, path, line);
	}
	free(name);
	return added;
}

static int valid_pkg_name(const char *s)
{
	if (!isalnum((unsigned char)*s))
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.')
			return 0;
	return 1;
}

static int valid_version(const char *s)
{
	return isdigit((unsigned char)*s) && strlen(s) < 64;
}

/* key/value forms: "Key: value", "Key : value", "- Key: value",
 * "key ........ value" (ds_report). */
static int split_kv(char *s, char **k, char **v)
{
	char *t = sys_trim(s);
	if (t[0] == '-' && t[1] == ' ')
		t += 2;
	char *dots = strstr(t, " ....");
	if (dots) {
		*dots = 0;
		char *val = dots + 1;
		while (*val == '.')
			val++;
		*k = sys_trim(t);
		*v = sys_trim(val);
		return **k != 0;
	}
	char *c = strchr(t, ':');
	if (!c || c == t)
		return 0;
	*c = 0;
	*k = sys_trim(t);
	*v = sys_trim(c + 1);
	return **k != 0 && strlen(*k) < 64;
}

static int handle_kv(cJSON *facts, const char *key, const char *val, const char *path, uint64_t line,
                     int *in_gpu_list)
{
	char ver[128];
	char *k = lower(key);
	int n = 0;
	/* strip backticks: "`llamafactory` version" */
	char *w = k;
	for (char *r = k; *r; r++)
		if (*r != '`')
			*w++ = *r;
	*w = 0;
	if (!strcmp(k, "pytorch version") || !strcmp(k, "torch version")) {
		n += set_torch(facts, val, path, line);
	} else if (!strcmp(k, "cuda used to build pytorch") || !strcmp(k, "torch cuda version")) {
		if (first_version(val, ver, sizeof ver))
			n += sys_version_set(facts, "torch_cuda", ver, path, line);
	} else if (!strcmp(k, "cuda runtime version") || !strcmp(k, "nvcc version")) {
		if (first_version(val, ver, sizeof ver))
			n += sys_version_set(facts, "nvcc", ver, path, line);
	} else if (!strcmp(k, "nvidia driver version") || !strcmp(k, "driver version")) {
		if (first_version(val, ver, sizeof ver))
			n += sys_version_set(facts, "driver", ver, path, line);
	} else if (!strcmp(k, "cuda version") || !strcmp(k, "cuda driver version")) {
		if (first_version(val, ver, sizeof ver))
			n += sys_version_set(facts, "cuda", ver, path, line);
	} else if (!strcmp(k, "python version")) {
		if (first_version(val, ver, sizeof ver))
			n += sys_version_set(facts, "python", ver, path, line);
	} else if (!strcmp(k, "nccl version") || !strcmp(k, "nccl")) {
		if (first_version(val, ver, sizeof ver))
			n += sys_version_set(facts, "nccl_torch", ver, path, line);
	} else if (!strcmp(k, "deepspeed info")) {
		if (first_version(val, ver, sizeof ver)) {
			char *plus = strchr(ver, '+');
			if (plus)
				*plus = 0;
			n += sys_package_set(facts, "deepspeed", ver, path, line);
		}
	} else if (!strcmp(k, "gpu models and configuration")) {
		*in_gpu_list = 1;
		if (!strncmp(val, "GPU ", 4))
			n += gpu_line(facts, val, path, line);
		else if (*val && strcmp(val, "Could not collect")) {
			cJSON *g = sys_gpu(facts, 0, 1);
			if (!json_str(g, "name")) {
				sys_set_str(g, "name", val);
				sys_put_source(g, path, line);
				n++;
			}
		}
	} else if (!strcmp(k, "gpu type")) {
		cJSON *g = sys_gpu(facts, 0, 1);
		if (!json_str(g, "name") && *val) {
			sys_set_str(g, "name", val);
			sys_put_source(g, path, line);
			n++;
		}
	} else if (!strcmp(k, "gpu number")) {
		if (isdigit((unsigned char)*val) && !cJSON_GetObjectItemCaseSensitive(facts, "gpu_count_reported")) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddNumberToObject(o, "value", atoi(val));
			cJSON_AddItemToObject(o, "source", sys_source(path, line));
			cJSON_AddItemToObject(facts, "gpu_count_reported", o);
			n++;
		}
	} else {
		size_t kl = strlen(k);
		/* "vllm version", "deepspeed version", "transformers version", "llamafactory version" */
		if (kl > 8 && !strcmp(k + kl - 8, " version") && first_version(val, ver, sizeof ver)) {
			k[kl - 8] = 0;
			if (valid_pkg_name(k) && strcmp(k, "os") && strcmp(k, "gcc") && strcmp(k, "clang") &&
			    strcmp(k, "cmake") && strcmp(k, "libc") && strcmp(k, "rocm") && strcmp(k, "hip runtime") &&
			    strcmp(k, "miopen runtime") && strcmp(k, "cudnn"))
				n += sys_package_set(facts, k, ver, path, line);
		}
	}
	free(k);
	return n;
}

/* after all lines: versions derived from packages */
static int derive_from_packages(cJSON *facts, const char *path)
{
	cJSON *pk = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(facts, "versions"), "packages");
	cJSON *p;
	int n = 0;
	(void)path;
	cJSON_ArrayForEach(p, pk) {
		const char *name = p->string;
		const char *ver = json_str(p, "version");
		cJSON *src = cJSON_GetObjectItemCaseSensitive(p, "source");
		const char *sp = json_str(src, "path");
		double sl = 0;
		json_num(src, "line", &sl);
		if (!ver || !sp)
			continue;
		if (!strcmp(name, "torch") || !strcmp(name, "pytorch"))
			n += set_torch(facts, ver, sp, (uint64_t)sl);
		else if (!strncmp(name, "nvidia-nccl", 11))
			n += sys_version_set(facts, "nccl_pip", ver, sp, (uint64_t)sl);
		else if (!strcmp(name, "nccl"))
			/* conda-forge's "nccl 2.21.5.1" (the 4th number is the package build) */
			n += sys_version_set(facts, "nccl_conda", ver, sp, (uint64_t)sl);
		else if (!strncmp(name, "nvidia-cuda-runtime", 19))
			n += sys_version_set(facts, "cuda_runtime", ver, sp, (uint64_t)sl);
		else if (!strcmp(name, "pytorch-cuda"))
			n += sys_version_set(facts, "torch_cuda", ver, sp, (uint64_t)sl);
		else if (!strcmp(name, "vllm"))
			n += sys_version_set(facts, "vllm", ver, sp, (uint64_t)sl);
		else if (!strcmp(name, "deepspeed"))
			n += sys_version_set(facts, "deepspeed", ver, sp, (uint64_t)sl);
	}
	return n;
}

/* The parse of a version listing, line by line. */
struct vparse {
	cJSON *facts;
	const char *path;
	uint64_t lineno;
	int added;
	int mode;         /* 0 free, 1 pip list rows, 2 conda rows */
	int in_gpu_list;
	int nccl_call;    /* the line before called torch.cuda.nccl.version() */
};

/* "Cuda compilation tools, release 12.4, V12.4.131" */
static void v_nvcc(struct vparse *p, const char *at)
{
	char ver[128];
	const char *v = strstr(at, ", V");
	if (v && first_version(v + 3, ver, sizeof ver))
		p->added += sys_version_set(p->facts, "nvcc", ver, p->path, p->lineno);
	else if (first_version(at + 32, ver, sizeof ver))
		p->added += sys_version_set(p->facts, "nvcc", ver, p->path, p->lineno);
}

/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  ...": the
 * first token that looks like NNN.NN[.NN] */
static void v_nvrm(struct vparse *p, const char *at)
{
	char *tok[16];
	char *c = xstrdup(at + 13);
	size_t nt = sys_split_ws(c, tok, 16);
	for (size_t i = 0; i < nt; i++) {
		int a, b;
		if (sscanf(tok[i], "%d.%d", &a, &b) == 2 && a >= 100 && a < 10000 && isdigit((unsigned char)tok[i][0])) {
			p->added += sys_version_set(p->facts, "driver", tok[i], p->path, p->lineno);
			break;
		}
	}
	free(c);
}

/* pytorch/torch "... cudaXY" build strings of conda rows */
static void v_conda_torch(struct vparse *p, char **tok, size_t nt)
{
	char ver[128];
	if (nt >= 3 && (!strcmp(tok[0], "pytorch") || !strcmp(tok[0], "torch"))) {
		if (conda_build_cuda(tok[2], ver, sizeof ver))
			p->added += sys_version_set(p->facts, "torch_cuda", ver, p->path, p->lineno);
	}
}

/* collect_env's "[pip3] name==v" and "[conda] name v build"; 1 when s was one */
static int v_collect_env_pkg(struct vparse *p, char *s)
{
	char *tok[16];
	if (!strncmp(s, "[pip3] ", 7) || !strncmp(s, "[pip] ", 6)) {
		char *e = strstr(s, "==");
		if (e) {
			*e = 0;
			char *name = sys_trim(strchr(s, ']') + 1);
			char *v = sys_trim(e + 2);
			if (valid_pkg_name(name) && valid_version(v))
				p->added += sys_package_set(p->facts, name, v, p->path, p->lineno);
		}
		return 1;
	}
	if (!strncmp(s, "[conda] ", 8)) {
		size_t nt = sys_split_ws(s + 8, tok, 16);
		if (nt >= 2 && valid_pkg_name(tok[0]) && valid_version(tok[1])) {
			p->added += sys_package_set(p->facts, tok[0], tok[1], p->path, p->lineno);
			v_conda_torch(p, tok, nt);
		}
		return 1;
	}
	return 0;
}

/* "name==v" (pip freeze) or a row of a pip / conda table; 1 when it was */
static int v_package_row(struct vparse *p, char *s)
{
	char *e = strstr(s, "==");
	if (e && !strchr(s, ' ')) {
		*e = 0;
		char *v = e + 2;
		if (valid_pkg_name(s) && valid_version(v)) {
			p->added += sys_package_set(p->facts, s, v, p->path, p->lineno);
			return 1;
		}
		*e = '=';
	}
	if (!p->mode)
		return 0;
	char *tok[16];
	char *c = xstrdup(s);
	size_t nt = sys_split_ws(c, tok, 16);
	int ok = nt >= 2 && valid_pkg_name(tok[0]) && valid_version(tok[1]);
	if (ok) {
		p->added += sys_package_set(p->facts, tok[0], tok[1], p->path, p->lineno);
		if (p->mode == 2)
			v_conda_torch(p, tok, nt);
	}
	free(c);
	return ok;
}

/* torch one-liners: "2.11.0+cu130 13.0 (2, 28, 9) 91900", or the bare
 * "(2, 18, 1)" a REPL prints under ">>> torch.cuda.nccl.version()"; 1 when
 * s was one */
static int v_torch_oneliner(struct vparse *p, const char *s)
{
	int a, b, c3;
	const char *tp = strchr(s, '(');
	int after_call = p->nccl_call && tp == s;
	p->nccl_call = strstr(s, "nccl.version()") != NULL;
	if (tp && sscanf(tp, "(%d, %d, %d)", &a, &b, &c3) == 3 && a == 2 && b >= 0 && b < 100 &&
	    (torch_local(s) || sys_memcasestr(s, strlen(s), "nccl") || after_call)) {
		char v[32];
		snprintf(v, sizeof v, "%d.%d.%d", a, b, c3);
		p->added += sys_version_set(p->facts, "nccl_torch", v, p->path, p->lineno);
	}
	/* "2.18.3+cuda12.2" is NCCL's version string, not torch's: only
	 * "+cuNNN" is torch's local version */
	if (!isdigit((unsigned char)s[0]) || !torch_local(s))
		return 0;
	char *tok[16];
	char *c = xstrdup(s);
	size_t nt = sys_split_ws(c, tok, 16);
	if (nt >= 1 && torch_local(tok[0])) {
		p->added += set_torch(p->facts, tok[0], p->path, p->lineno);
		if (nt >= 2 && isdigit((unsigned char)tok[1][0]) && strchr(tok[1], '.') && strlen(tok[1]) <= 5)
			p->added += sys_version_set(p->facts, "torch_cuda", tok[1], p->path, p->lineno);
	}
	free(c);
	return 1;
}

static void v_line(struct vparse *p, char *line)
{
	char *s = sys_trim(line);
	const char *at;
	if (!*s) {
		p->in_gpu_list = 0;
		return;
	}
	if ((at = strstr(s, "Cuda compilation tools, release "))) {
		v_nvcc(p, at);
		return;
	}
	if ((at = strstr(s, "NVRM version:"))) {
		v_nvrm(p, at);
		return;
	}
	if (p->in_gpu_list && !strncmp(s, "GPU ", 4)) {
		p->added += gpu_line(p->facts, s, p->path, p->lineno);
		return;
	}
	p->in_gpu_list = 0;
	if (v_collect_env_pkg(p, s))
		return;
	if (!strncmp(s, "Package", 7) && strstr(s, "Version")) {
		p->mode = 1;
		return;
	}
	if (!strncmp(s, "# Name", 6) && strstr(s, "Version")) {
		p->mode = 2;
		return;
	}
	if (s[0] == '#' || !strncmp(s, "---", 3))
		return;
	/* NCCL_VERSION=2.19.3-1: NVIDIA's container images set it to their libnccl */
	if (!strncmp(s, "NCCL_VERSION=", 13) && isdigit((unsigned char)s[13])) {
		char ver[64];
		if (first_version(s + 13, ver, sizeof ver))
			p->added += sys_version_set(p->facts, "nccl_env", ver, p->path, p->lineno);
		return;
	}
	if (v_package_row(p, s) || v_torch_oneliner(p, s))
		return;
	/* key: value forms */
	char *c = xstrdup(s);
	char *k, *v;
	if (split_kv(c, &k, &v))
		p->added += handle_kv(p->facts, k, v, p->path, p->lineno, &p->in_gpu_list);
	free(c);
}

int sys_parse_versions(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m)
{
	struct vparse p = {facts, path, 0, 0, 0, 0, 0};
	struct sys_lines it;
	char *line;
	sys_lines_init(&it, text, len);
	while ((line = sys_lines_next(&it, NULL))) {
		p.lineno = it.lineno;
		v_line(&p, line);
	}
	sys_lines_free(&it);
	p.added += derive_from_packages(facts, path);
	/* vLLM's collect_env embeds `nvidia-smi topo -m` */
	if (memmem(text, len, "GPU Topology", 12)) {
		struct msgs quiet = {0};
		p.added += sys_parse_topo(text, len, path, facts, &quiet) > 0;
		msgs_free(&quiet);
	}
	if (!p.added)
		msgs_add(m, "%s: no version information found", path);
	return p.added;
}

/* ---- recognising them ---- */

static int collect_env_marker(const char *h, size_t n)
{
	return sys_has(h, n, "PyTorch version:") || sys_has(h, n, "Collecting environment information") ||
	       (sys_has(h, n, "PyTorch version") && sys_has(h, n, "CUDA used to build PyTorch")) ||
	       sys_has(h, n, "DeepSpeed general environment info") || sys_has(h, n, "torch cuda version ....") ||
	       (sys_has(h, n, "- PyTorch version:") && sys_has(h, n, "version:"));
}

/* python -c "import torch; print(torch.__version__, torch.version.cuda, ...)" */
static int collect_env_lines(const struct sys_head *h)
{
	/* torch's "+cu130", not NCCL's "+cuda13.0" */
	if (h->lines > 3 || !isdigit((unsigned char)h->p[0]))
		return 0;
	const char *cu = memmem(h->p, h->n, "+cu", 3);
	while (cu && (size_t)(cu - h->p) + 3 < h->n && !isdigit((unsigned char)cu[3]))
		cu = memmem(cu + 3, h->n - (size_t)(cu + 3 - h->p), "+cu", 3);
	return cu && (size_t)(cu - h->p) + 3 < h->n;
}

static int nvcc_marker(const char *h, size_t n)
{
	return sys_has(h, n, "Cuda compilation tools, release");
}

static int driver_marker(const char *h, size_t n)
{
	return sys_has(h, n, "NVRM version: NVIDIA");
}

static int pip_lines(const struct sys_head *h)
{
	return h->pip_hdr || h->conda_hdr || (h->pip_eq >= 5 && h->pip_eq * 2 >= h->lines);
}

const struct sysreport_kind SYS_COLLECT_ENV = {DOC_COLLECT_ENV, "collect_env", collect_env_marker, collect_env_lines,
                                               sys_parse_versions, 0};
const struct sysreport_kind SYS_NVCC = {DOC_NVCC, "nvcc_version", nvcc_marker, NULL, sys_parse_versions, 1};
const struct sysreport_kind SYS_DRIVER_VERSION = {DOC_DRIVER_VERSION, "driver_version", driver_marker, NULL,
                                                  sys_parse_versions, 0};
const struct sysreport_kind SYS_PIP_LIST = {DOC_PIP_LIST, "package_list", NULL, pip_lines, sys_parse_versions, 0};
