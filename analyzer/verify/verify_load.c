/* verify_load.c - where verify looks for libnccl.so.2 and libcuda.so.1, the
 * environment changes of a mode, and small shared helpers.  Pure functions
 * except verify_apply_env (which changes this process's environment and is
 * only called in a child). */
#include "verify/verify_int.h"

#include <ctype.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void verify_cfg_default(struct verify_cfg *c)
{
	memset(c, 0, sizeof *c);
	c->bytes = 64u << 20;
	c->iters = 20;
	c->warmup = 5;
	c->timeout_s = 60;
	c->grace_s = 5;
	c->log_cap = 8u << 20;
}

/* ---- environment changes -------------------------------------------- */

static int valid_key(const char *k, size_t n)
{
	if (n == 0 || isdigit((unsigned char)k[0]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(isalnum((unsigned char)k[i]) || k[i] == '_'))
			return 0;
	return 1;
}

void venv_set(struct venv_list *l, const char *key, const char *value)
{
	for (size_t i = 0; i < l->n; i++) {
		if (strcmp(l->v[i].key, key) == 0) {
			free(l->v[i].value);
			l->v[i].value = value ? xstrdup(value) : NULL;
			return;
		}
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n].key = xstrdup(key);
	l->v[l->n].value = value ? xstrdup(value) : NULL;
	l->n++;
}

int venv_parse(struct venv_list *l, const char *arg)
{
	const char *eq = strchr(arg, '=');
	if (!eq) {
		if (arg[0] == '-')
			arg++;
		if (!valid_key(arg, strlen(arg)))
			return -1;
		venv_set(l, arg, NULL);
		return 0;
	}
	if (!valid_key(arg, (size_t)(eq - arg)))
		return -1;
	char *k = xstrndup(arg, (size_t)(eq - arg));
	venv_set(l, k, eq + 1);
	free(k);
	return 0;
}

void venv_free(struct venv_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free(l->v[i].value);
	}
	free(l->v);
	memset(l, 0, sizeof *l);
}

char *venv_describe(const struct venv_list *l)
{
	if (l->n == 0)
		return xstrdup("(environment as is)");
	struct buf b;
	buf_init(&b);
	for (size_t i = 0; i < l->n; i++) {
		if (i)
			buf_addc(&b, ' ');
		if (l->v[i].value)
			buf_printf(&b, "%s=%s", l->v[i].key, l->v[i].value);
		else
			buf_printf(&b, "unset %s", l->v[i].key);
	}
	return buf_steal(&b);
}

void verify_apply_env(const struct venv_list *env)
{
	for (size_t i = 0; env && i < env->n; i++) {
		if (env->v[i].value)
			setenv(env->v[i].key, env->v[i].value, 1);
		else
			unsetenv(env->v[i].key);
	}
	/* What the analysis needs; none of it changes NCCL's behaviour.  The
	 * debug file would take the output away from the captured pipe. */
	setenv("NCCL_DEBUG", "INFO", 1);
	setenv("NCCL_DEBUG_SUBSYS", "INIT,NET,ENV", 1);
	unsetenv("NCCL_DEBUG_FILE");
}

/* ---- library candidates ---------------------------------------------- */

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static void push_unique(struct strvec *out, const char *s)
{
	if (!strvec_contains(out, s))
		strvec_push(out, s);
}

static void push_glob(struct strvec *out, const char *pattern)
{
	glob_t g;
	if (glob(pattern, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			push_unique(out, g.gl_pathv[i]);
	}
	globfree(&g);
}

static void explicit_lib(const char *given, const char *soname, struct strvec *out)
{
	if (is_dir(given)) {
		char *p = xasprintf("%s/%s", given, soname);
		push_unique(out, p);
		free(p);
	} else {
		push_unique(out, given);
	}
}

/* Prefix dirs of Python environments: VIRTUAL_ENV, CONDA_PREFIX, every
 * PATH entry that holds a python3 (its parent), ~/.local, /usr/local, /usr,
 * /opt/ any-name /.venv, /opt/conda. */
static void python_prefixes(struct strvec *out)
{
	const char *v;
	if ((v = getenv("VIRTUAL_ENV")) && *v)
		push_unique(out, v);
	if ((v = getenv("CONDA_PREFIX")) && *v)
		push_unique(out, v);
	if ((v = getenv("PATH")) && *v) {
		char *copy = xstrdup(v), *save = NULL;
		for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			char *py = xasprintf("%s/python3", d);
			struct stat st;
			if (d[0] == '/' && stat(py, &st) == 0) {
				char *parent = xstrdup(d);
				char *slash = strrchr(parent, '/');
				if (slash && slash != parent) {
					*slash = 0;
					push_unique(out, parent);
				}
				free(parent);
			}
			free(py);
		}
		free(copy);
	}
	if ((v = getenv("HOME")) && *v) {
		char *p = xasprintf("%s/.local", v);
		push_unique(out, p);
		free(p);
	}
	push_unique(out, "/usr/local");
	push_unique(out, "/usr");
	push_unique(out, "/opt/conda");
	glob_t g;
	if (glob("/opt/*/.venv", GLOB_ONLYDIR, NULL, &g) == 0)
		for (size_t i = 0; i < g.gl_pathc; i++)
			push_unique(out, g.gl_pathv[i]);
	globfree(&g);
}

void verify_nccl_candidates(const char *nccl_lib, struct strvec *out)
{
	if (nccl_lib && *nccl_lib) {
		explicit_lib(nccl_lib, "libnccl.so.2", out);
		return;
	}
	push_unique(out, "libnccl.so.2"); /* LD_LIBRARY_PATH, ld.so.cache, /lib, /usr/lib */
	struct strvec sites = {0};
	verify_python_sites(&sites);
	for (size_t i = 0; i < sites.n; i++) {
		char *p = xasprintf("%s/nvidia/nccl/lib/libnccl.so.2", sites.v[i]);
		struct stat st;
		if (stat(p, &st) == 0)
			push_unique(out, p);
		free(p);
	}
	strvec_free(&sites);
}

void verify_python_sites(struct strvec *out)
{
	struct strvec pre = {0};
	python_prefixes(&pre);
	for (size_t i = 0; i < pre.n; i++) {
		const char *sub[] = {"lib/python3*/site-packages", "lib/python3*/dist-packages", "lib/python3/dist-packages"};
		for (size_t j = 0; j < sizeof sub / sizeof *sub; j++) {
			char *pat = xasprintf("%s/%s", pre.v[i], sub[j]);
			glob_t g;
			if (glob(pat, GLOB_ONLYDIR, NULL, &g) == 0)
				for (size_t k = 0; k < g.gl_pathc; k++)
					push_unique(out, g.gl_pathv[k]);
			globfree(&g);
			free(pat);
		}
	}
	strvec_free(&pre);
}

void verify_cuda_candidates(const char *cuda_lib, struct strvec *out)
{
	if (cuda_lib && *cuda_lib) {
		explicit_lib(cuda_lib, "libcuda.so.1", out);
		return;
	}
	push_unique(out, "libcuda.so.1");
	/* Driver folders that containers mount but ld.so.cache may not list. */
	push_glob(out, "/usr/local/nvidia/lib64/libcuda.so.1");
	push_glob(out, "/usr/lib/wsl/lib/libcuda.so.1");
}

/* ---- names and hex --------------------------------------------------- */

const char *vstage_name(enum vstage s)
{
	static const char *const names[VS_COUNT] = {
		"start", "load", "cuda", "uid", "init", "check", "bw", "destroy", "done"};
	return (unsigned)s < VS_COUNT ? names[s] : "?";
}

const char *vstage_doing(enum vstage s)
{
	static const char *const doing[VS_COUNT] = {
		"starting", "loading libcuda/libnccl", "setting up the GPU (cuInit, cuMemAlloc)",
		"ncclGetUniqueId / waiting for the unique id", "ncclCommInitRank",
		"the all-reduce value check", "the all-reduce bandwidth measurement",
		"ncclCommDestroy", "done"};
	return (unsigned)s < VS_COUNT ? doing[s] : "?";
}

const char *vresult_name(enum vresult r)
{
	switch (r) {
	case VR_PASS: return "pass";
	case VR_FAIL: return "fail";
	case VR_WRONG_VALUES: return "wrong_values";
	case VR_HANG: return "hang";
	case VR_CRASH: return "crash";
	case VR_SETUP: return "setup_error";
	}
	return "?";
}

void verify_hex(const unsigned char *p, size_t n, char *out)
{
	static const char d[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = d[p[i] >> 4];
		out[2 * i + 1] = d[p[i] & 15];
	}
	out[2 * n] = 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int verify_unhex(const char *s, unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int hi = hexval(s[2 * i]), lo = hi < 0 ? -1 : hexval(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		p[i] = (unsigned char)(hi << 4 | lo);
	}
	return s[2 * n] == 0 || s[2 * n] == '\n' || s[2 * n] == ' ' ? 0 : -1;
}

void verify_probe_free(struct verify_probe *p)
{
	free(p->cuda_path);
	free(p->nccl_path);
	for (size_t i = 0; i < p->ngpus; i++) {
		free(p->gpus[i].name);
		free(p->gpus[i].bus_id);
	}
	free(p->gpus);
	strvec_free(&p->missing);
	strvec_free(&p->tried);
	memset(p, 0, sizeof *p);
}

void verify_run_free(struct verify_run *r)
{
	free(r->mode);
	venv_free(&r->env);
	for (int i = 0; r->ranks && i < r->nranks; i++) {
		struct verify_rank *k = &r->ranks[i];
		free(k->check_detail);
		free(k->error);
		free(k->last_error);
		buf_free(&k->log);
		strvec_free(&k->status);
	}
	free(r->ranks);
	free(r->reason);
	strvec_free(&r->transports);
	strvec_free(&r->warns);
	verify_analysis_free(r->analysis);
	memset(r, 0, sizeof *r);
}
