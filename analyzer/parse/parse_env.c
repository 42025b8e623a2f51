/* parse_env.c - environment variables to facts.env:
 *   `env` / `printenv` dumps            NAME=value             source "env_dump"
 *   shell scripts                       export NAME=value,
 *                                       declare -x NAME="v"    source "script"
 *   command lines                       NAME=v [NAME2=v] cmd,
 *                                       env NAME=v cmd, docker -e NAME=v,
 *                                       mpirun -x NAME=v       source "command_line"
 * facts.env.NAME = {"value", "path", "line", "source"}; the first value wins
 * and a different later value goes to facts.env_conflicts[]. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/sysparse.h"

static size_t name_len(const char *s)
{
	size_t n = 0;
	if (!(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_')
		n++;
	return n;
}

/* ---- facts.env, hashed ---- */

static _Thread_local struct env_index *cur_index;

void sys_env_index_use(struct env_index *x)
{
	cur_index = x;
}

void env_index_free(struct env_index *x)
{
	free(x->v);
	hindex_free(&x->ix);
	memset(x, 0, sizeof *x);
}

static int env_hash_at(const void *ctx, size_t i, uint64_t *h)
{
	*h = hash_str(HASH_SEED, ((const struct env_index *)ctx)->v[i]->string);
	return 1;
}

/* Index the children of env added since the last call. */
static void env_index_sync(struct env_index *x, cJSON *env)
{
	if (x->env != env) {
		env_index_free(x);
		x->env = env;
	}
	for (cJSON *c = x->last ? x->last->next : env->child; c; c = c->next) {
		x->last = c;
		if (!c->string)
			continue;
		if (x->n == x->cap) {
			x->cap = x->cap ? x->cap * 2 : 64;
			x->v = xrealloc(x->v, x->cap * sizeof *x->v);
		}
		x->v[x->n++] = c;
		if (hindex_crowded(&x->ix, x->n))
			hindex_grow(&x->ix, x->n, env_hash_at, x);
		else
			hindex_put(&x->ix, hash_str(HASH_SEED, c->string), x->n - 1);
	}
}

cJSON *sys_env_find(cJSON *facts, struct env_index *x, const char *name, cJSON **envp, size_t *count)
{
	cJSON *env = sys_obj(facts, "env");
	*envp = env;
	if (!x) {
		*count = (size_t)cJSON_GetArraySize(env);
		return cJSON_GetObjectItemCaseSensitive(env, name);
	}
	env_index_sync(x, env);
	*count = x->n;
	uint64_t h = hash_str(HASH_SEED, name);
	if (x->ix.nslot)
		for (size_t s = hindex_first(&x->ix, h); x->ix.slot[s]; s = hindex_next(&x->ix, s)) {
			cJSON *c = x->v[x->ix.slot[s] - 1];
			x->work++;
			if (strcmp(c->string, name) == 0)
				return c;
		}
	return NULL;
}

cJSON *sys_env_value(const char *value, size_t n, const char *path, uint64_t line, const char *source)
{
	cJSON *o = cJSON_CreateObject();
	char *v = str_sanitize_cut(value, n, SYS_ENV_VALUE_MAX);
	cJSON_AddStringToObject(o, "value", v);
	free(v);
	cJSON_AddStringToObject(o, "path", path);
	cJSON_AddNumberToObject(o, "line", (double)line);
	cJSON_AddStringToObject(o, "source", source);
	if (n > SYS_ENV_VALUE_MAX)
		cJSON_AddNumberToObject(o, "length", (double)n);
	return o;
}

int sys_env_set(cJSON *facts, const char *name, const char *value,
                const char *path, uint64_t line, const char *source)
{
	/* a secret's value never reaches a report (util.h: str_secret_name) */
	if (str_secret_name(name, strlen(name)))
		value = "***";
	cJSON *env;
	size_t count;
	cJSON *cur = sys_env_find(facts, cur_index, name, &env, &count);
	if (cur) {
		const char *old = json_str(cur, "value");
		if (old && strcmp(old, value)) {
			cJSON *arr = sys_arr(facts, "env_conflicts");
			if (cJSON_GetArraySize(arr) < 256) {
				cJSON *c = cJSON_CreateObject();
				cJSON_AddStringToObject(c, "name", name);
				char *v = str_sanitize_cut(value, strlen(value), SYS_ENV_VALUE_MAX);
				cJSON_AddStringToObject(c, "value", v);
				free(v);
				cJSON_AddStringToObject(c, "first", old);
				cJSON_AddStringToObject(c, "path", path);
				cJSON_AddNumberToObject(c, "line", (double)line);
				cJSON_AddStringToObject(c, "source", source);
				cJSON_AddItemToArray(arr, c);
			}
		}
		return 0;
	}
	if (count >= SYS_ENV_MAX)
		return -1;
	cJSON_AddItemToObject(env, name, sys_env_value(value, strlen(value), path, line, source));
	return 1;
}

/* Parse one NAME=value word at *pp; advances *pp past it.  The value may be
 * quoted with ' or ".  Returns 1 and fills name/value (caller frees). */
static int assignment(const char **pp, char **name, char **value)
{
	const char *p = *pp;
	size_t nl = name_len(p);
	if (!nl || p[nl] != '=')
		return 0;
	const char *v = p + nl + 1;
	struct buf b;
	buf_init(&b);
	while (*v && *v != ' ' && *v != '\t') {
		if (*v == '"' || *v == '\'') {
			char q = *v++;
			while (*v && *v != q) {
				if (q == '"' && *v == '\\' && v[1])
					v++;
				buf_addc(&b, *v++);
			}
			if (*v == q)
				v++;
		} else {
			buf_addc(&b, *v++);
		}
	}
	*name = xstrndup(p, nl);
	*value = buf_steal(&b);
	*pp = v;
	return 1;
}

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static int interesting(const char *name)
{
	/* In command lines and scripts only variables that matter here. */
	static const char *pre[] = {"NCCL_", "TORCH_", "CUDA_", "PYTORCH_", "MASTER_", "WORLD_SIZE", "RANK",
	                            "LOCAL_RANK", "OMP_", "GLOO_", "UCX_", "FI_", "LD_LIBRARY_PATH", "VLLM_",
	                            "NVIDIA_", "DS_", "ACCELERATE_", "HF_", "TP_", "NPROC", NULL};
	for (int i = 0; pre[i]; i++)
		if (!strncmp(name, pre[i], strlen(pre[i])))
			return 1;
	return 0;
}

int sys_parse_env(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m)
{
	struct sys_lines it;
	char *line;
	int added = 0;
	uint64_t odd = 0, dropped = 0;
	sys_lines_init(&it, text, len);
	while ((line = sys_lines_next(&it, NULL))) {
		const char *p = skip_ws(line);
		if (!*p || *p == '#')
			continue;
		if (!strncmp(p, "$ ", 2))
			p = skip_ws(p + 2);
		char *name, *value;
		const char *source = "env_dump";
		if (!strncmp(p, "export ", 7)) {
			p = skip_ws(p + 7);
			source = "script";
		} else if (!strncmp(p, "declare -x ", 11)) {
			p = skip_ws(p + 11);
			source = "script";
		} else if (!strncmp(p, "env ", 4)) {
			p = skip_ws(p + 4);
			source = "command_line";
		}
		const char *start = p;
		int nass = 0;
		const char *q = p;
		while (assignment(&q, &name, &value)) {
			nass++;
			q = skip_ws(q);
			free(name);
			free(value);
			if (!*q)
				break;
		}
		if (nass == 0) {
			/* -e NAME=v / --env NAME=v / -x NAME=v inside a command */
			const char *s = p;
			while ((s = strstr(s, " -")) != NULL) {
				const char *o = s + 1;
				const char *a = NULL;
				if (!strncmp(o, "-e ", 3) || !strncmp(o, "-x ", 3))
					a = skip_ws(o + 3);
				else if (!strncmp(o, "--env ", 6))
					a = skip_ws(o + 6);
				else if (!strncmp(o, "--env=", 6))
					a = o + 6;
				s = o;
				if (a && assignment(&a, &name, &value)) {
					int r = sys_env_set(facts, name, value, path, it.lineno, "command_line");
					added += r > 0;
					dropped += r < 0;
					free(name);
					free(value);
				}
			}
			if (strchr(p, '=') && !strchr(p, ' '))
				odd++;
			continue;
		}
		/* assignments followed by a command word: a command line */
		int is_cmd = *q != 0;
		if (is_cmd && !strcmp(source, "env_dump"))
			source = "command_line";
		q = start;
		for (int i = 0; i < nass; i++) {
			if (!assignment(&q, &name, &value))
				break;
			q = skip_ws(q);
			if (!strcmp(source, "env_dump") || interesting(name)) {
				int r = sys_env_set(facts, name, value, path, it.lineno, source);
				added += r > 0;
				dropped += r < 0;
			}
			free(name);
			free(value);
		}
	}
	sys_lines_free(&it);
	if (odd)
		msgs_add(m, "%s: %llu lines that look like assignments were not readable", path, (unsigned long long)odd);
	if (dropped)
		msgs_add(m, "%s: more than %d environment variables: %llu assignments of others were not kept", path,
		         SYS_ENV_MAX, (unsigned long long)dropped);
	if (!added)
		msgs_add(m, "%s: no environment variables found", path);
	return added;
}

/* ---- recognising it ---- */

static int env_lines(const struct sys_head *h)
{
	int kv = h->env_kv + h->exports;
	/* a pasted command line (or a few), each with the environment in front
	 * of its launcher, is the job's command, not an environment dump: a
	 * script holds other NAME=value or export lines too */
	if (h->env_cmd >= kv)
		return 0;
	if (kv >= 3 && kv * 2 >= h->lines)
		return 1;
	return kv >= 1 && kv == h->lines; /* a short env.txt: every line is NAME=value */
}

const struct sysreport_kind SYS_ENV_DUMP = {DOC_ENV_DUMP, "env_dump", NULL, env_lines, sys_parse_env, 0};
