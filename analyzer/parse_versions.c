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

#include "sysparse.h"

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
	size_t n = 0;
	while (v[n] && !isspace((unsigned char)v[n]) && v[n] != ',' && v[n] != ')' && n + 1 < outsz)
		n++;
	if (n == 0)
		return 0;
	memcpy(out, v, n);
	out[n] = 0;
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
		if (!sys_get_str(g, "name")) {
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
			if (!sys_get_str(g, "name")) {
				sys_set_str(g, "name", val);
				sys_put_source(g, path, line);
				n++;
			}
		}
	} else if (!strcmp(k, "gpu type")) {
		cJSON *g = sys_gpu(facts, 0, 1);
		if (!sys_get_str(g, "name") && *val) {
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
		const char *ver = sys_get_str(p, "version");
		cJSON *src = cJSON_GetObjectItemCaseSensitive(p, "source");
		const char *sp = sys_get_str(src, "path");
		double sl = 0;
		sys_get_num(src, "line", &sl);
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

int sys_parse_versions(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m)
{
	struct sys_lines it;
	char *line;
	int added = 0;
	int mode = 0; /* 0 free, 1 pip list rows, 2 conda rows */
	int in_gpu_list = 0;
	char *tok[16];

	sys_lines_init(&it, text, len);
	while ((line = sys_lines_next(&it, NULL))) {
		char *s = sys_trim(line);
		if (!*s) {
			in_gpu_list = 0;
			continue;
		}
		char ver[128];
		const char *p;
		if ((p = strstr(s, "Cuda compilation tools, release "))) {
			const char *v = strstr(p, ", V");
			if (v && first_version(v + 3, ver, sizeof ver))
				added += sys_version_set(facts, "nvcc", ver, path, it.lineno);
			else if (first_version(p + 32, ver, sizeof ver))
				added += sys_version_set(facts, "nvcc", ver, path, it.lineno);
			continue;
		}
		if ((p = strstr(s, "NVRM version:"))) {
			/* the first token that looks like NNN.NN[.NN] */
			char *c = xstrdup(p + 13);
			size_t nt = sys_split_ws(c, tok, 16);
			for (size_t i = 0; i < nt; i++) {
				int a, b;
				if (sscanf(tok[i], "%d.%d", &a, &b) == 2 && a >= 100 && a < 10000 && isdigit((unsigned char)tok[i][0])) {
					added += sys_version_set(facts, "driver", tok[i], path, it.lineno);
					break;
				}
			}
			free(c);
			continue;
		}
		if (in_gpu_list && !strncmp(s, "GPU ", 4)) {
			added += gpu_line(facts, s, path, it.lineno);
			continue;
		}
		in_gpu_list = 0;
		/* package listings */
		if (!strncmp(s, "[pip3] ", 7) || !strncmp(s, "[pip] ", 6)) {
			char *e = strstr(s, "==");
			if (e) {
				*e = 0;
				char *name = sys_trim(strchr(s, ']') + 1);
				char *v = sys_trim(e + 2);
				if (valid_pkg_name(name) && valid_version(v))
					added += sys_package_set(facts, name, v, path, it.lineno);
			}
			continue;
		}
		if (!strncmp(s, "[conda] ", 8)) {
			size_t nt = sys_split_ws(s + 8, tok, 16);
			if (nt >= 2 && valid_pkg_name(tok[0]) && valid_version(tok[1])) {
				added += sys_package_set(facts, tok[0], tok[1], path, it.lineno);
				if (nt >= 3 && (!strcmp(tok[0], "pytorch") || !strcmp(tok[0], "torch"))) {
					if (conda_build_cuda(tok[2], ver, sizeof ver))
						added += sys_version_set(facts, "torch_cuda", ver, path, it.lineno);
				}
			}
			continue;
		}
		if (!strncmp(s, "Package", 7) && strstr(s, "Version")) {
			mode = 1;
			continue;
		}
		if (!strncmp(s, "# Name", 6) && strstr(s, "Version")) {
			mode = 2;
			continue;
		}
		if (s[0] == '#' || !strncmp(s, "---", 3))
			continue;
		{
			char *e = strstr(s, "==");
			if (e && !strchr(s, ' ')) {
				*e = 0;
				char *v = e + 2;
				if (valid_pkg_name(s) && valid_version(v)) {
					added += sys_package_set(facts, s, v, path, it.lineno);
					continue;
				}
				*e = '=';
			}
		}
		if (mode) {
			char *c = xstrdup(s);
			size_t nt = sys_split_ws(c, tok, 16);
			int ok = nt >= 2 && valid_pkg_name(tok[0]) && valid_version(tok[1]);
			if (ok) {
				added += sys_package_set(facts, tok[0], tok[1], path, it.lineno);
				if (mode == 2 && nt >= 3 && (!strcmp(tok[0], "pytorch") || !strcmp(tok[0], "torch"))) {
					if (conda_build_cuda(tok[2], ver, sizeof ver))
						added += sys_version_set(facts, "torch_cuda", ver, path, it.lineno);
				}
			}
			free(c);
			if (ok)
				continue;
		}
		/* torch one-liners: "2.11.0+cu130 13.0 (2, 28, 9) 91900" */
		{
			int a, b, c3;
			const char *tp = strchr(s, '(');
			if (tp && sscanf(tp, "(%d, %d, %d)", &a, &b, &c3) == 3 && a == 2 && b >= 0 && b < 100 &&
			    (torch_local(s) || sys_memcasestr(s, strlen(s), "nccl"))) {
				char v[32];
				snprintf(v, sizeof v, "%d.%d.%d", a, b, c3);
				added += sys_version_set(facts, "nccl_torch", v, path, it.lineno);
			}
			/* "2.18.3+cuda12.2" is NCCL's version string, not torch's: only
			 * "+cuNNN" is torch's local version */
			if (isdigit((unsigned char)s[0]) && torch_local(s)) {
				char *c = xstrdup(s);
				size_t nt = sys_split_ws(c, tok, 16);
				if (nt >= 1 && torch_local(tok[0])) {
					added += set_torch(facts, tok[0], path, it.lineno);
					if (nt >= 2 && isdigit((unsigned char)tok[1][0]) && strchr(tok[1], '.') && strlen(tok[1]) <= 5)
						added += sys_version_set(facts, "torch_cuda", tok[1], path, it.lineno);
				}
				free(c);
				continue;
			}
		}
		/* key: value forms */
		{
			char *c = xstrdup(s);
			char *k, *v;
			if (split_kv(c, &k, &v))
				added += handle_kv(facts, k, v, path, it.lineno, &in_gpu_list);
			free(c);
		}
	}
	sys_lines_free(&it);
	added += derive_from_packages(facts, path);
	/* vLLM's collect_env embeds `nvidia-smi topo -m` */
	if (memmem(text, len, "GPU Topology", 12)) {
		struct msgs quiet = {0};
		added += sys_parse_topo(text, len, path, facts, &quiet) > 0;
		msgs_free(&quiet);
	}
	if (!added)
		msgs_add(m, "%s: no version information found", path);
	return added;
}
