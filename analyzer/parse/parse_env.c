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

#define ENV_MAX 4096

static size_t name_len(const char *s)
{
	size_t n = 0;
	if (!(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_')
		n++;
	return n;
}

int sys_env_set(cJSON *facts, const char *name, const char *value,
                const char *path, uint64_t line, const char *source)
{
	cJSON *env = sys_obj(facts, "env");
	/* a secret's value never reaches a report (util.h: str_secret_name) */
	if (str_secret_name(name, strlen(name)))
		value = "***";
	cJSON *cur = cJSON_GetObjectItemCaseSensitive(env, name);
	if (cur) {
		const char *old = json_str(cur, "value");
		if (old && strcmp(old, value)) {
			cJSON *arr = sys_arr(facts, "env_conflicts");
			if (cJSON_GetArraySize(arr) < 256) {
				cJSON *c = cJSON_CreateObject();
				cJSON_AddStringToObject(c, "name", name);
				char *v = str_sanitize(value, strlen(value));
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
	if (cJSON_GetArraySize(env) >= ENV_MAX)
		return 0;
	cJSON *o = cJSON_CreateObject();
	char *v = str_sanitize(value, strlen(value));
	cJSON_AddStringToObject(o, "value", v);
	free(v);
	cJSON_AddStringToObject(o, "path", path);
	cJSON_AddNumberToObject(o, "line", (double)line);
	cJSON_AddStringToObject(o, "source", source);
	cJSON_AddItemToObject(env, name, o);
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
	uint64_t odd = 0;
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
					added += sys_env_set(facts, name, value, path, it.lineno, "command_line");
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
			if (!strcmp(source, "env_dump") || interesting(name))
				added += sys_env_set(facts, name, value, path, it.lineno, source);
			free(name);
			free(value);
		}
	}
	sys_lines_free(&it);
	if (odd)
		msgs_add(m, "%s: %llu lines that look like assignments were not readable", path, (unsigned long long)odd);
	if (!added)
		msgs_add(m, "%s: no environment variables found", path);
	return added;
}

/* ---- recognising it ---- */

static int env_lines(const struct sys_head *h)
{
	int kv = h->env_kv + h->exports;
	if (kv >= 3 && kv * 2 >= h->lines)
		return 1;
	return kv >= 1 && kv == h->lines; /* a short env.txt: every line is NAME=value */
}

const struct sysreport_kind SYS_ENV_DUMP = {DOC_ENV_DUMP, "env_dump", NULL, env_lines, sys_parse_env, 0};
