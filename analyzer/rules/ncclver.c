/* ncclver.c - see ncclver.h. */
#include "rules/ncclver.h"

#include <stdio.h>
#include <string.h>

#include "base/json.h"
#include "base/version.h"

struct acc {
	struct ncclver *v;
	size_t n, max;
};

/* "[path:line]" of a {path, line} object, "" when it has none */
static void src_text(const cJSON *src, char *out, size_t n)
{
	const char *p = json_str(src, "path");
	double l = 0;
	if (p && json_num(src, "line", &l) && l > 0)
		snprintf(out, n, " [%s:%.0f]", p, l);
	else if (p)
		snprintf(out, n, " [%s]", p);
	else
		out[0] = 0;
}

/* one observation: value normalised to three numbers, deduplicated */
static void add(struct acc *a, enum ncclver_kind k, const char *value, const char *what, const cJSON *src)
{
	struct version x;
	if (!value || !version_parse(value, &x) || x.n < 3 || x.part[0] != 2)
		return; /* NCCL 2.x.y only: a "2" or "12.4" is not one */
	char v3[24];
	snprintf(v3, sizeof v3, "%ld.%ld.%ld", x.part[0], x.part[1], x.part[2]);
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].kind == k && strcmp(a->v[i].value, v3) == 0)
			return;
	if (a->n >= a->max)
		return;
	struct ncclver *o = &a->v[a->n++];
	snprintf(o->value, sizeof o->value, "%s", v3);
	o->kind = k;
	char s[200];
	src_text(src, s, sizeof s);
	snprintf(o->where, sizeof o->where, "%s%s", what, s);
}

static void from_log(struct acc *a, const cJSON *facts)
{
	const cJSON *node;
	cJSON_ArrayForEach(node, cJSON_GetObjectItemCaseSensitive(facts, "nodes")) {
		const cJSON *o = cJSON_GetObjectItemCaseSensitive(node, "nccl_version");
		char what[160];
		snprintf(what, sizeof what, "NCCL's banner on %s", node->string ? node->string : "a host");
		add(a, NV_LOG, json_str(o, "value"), what, cJSON_GetObjectItemCaseSensitive(o, "source"));
		const cJSON *e;
		cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(o, "others"))
			add(a, NV_LOG, json_str(e, "value"), what, cJSON_GetObjectItemCaseSensitive(e, "source"));
	}
	const cJSON *s;
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(facts, "nccl_versions"))
		if (cJSON_IsString(s))
			add(a, NV_LOG, s->valuestring, "the NCCL log (banner or 'NCCL version' in an error text)", NULL);
}

static void from_versions(struct acc *a, const cJSON *facts)
{
	const cJSON *vs = cJSON_GetObjectItemCaseSensitive(facts, "versions");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(vs, "nccl_torch");
	add(a, NV_TORCH, json_str(t, "value"), "torch.cuda.nccl.version()", cJSON_GetObjectItemCaseSensitive(t, "source"));
	const cJSON *p;
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(vs, "packages")) {
		/* nvidia-nccl-cu12 2.21.5; vLLM's own wheel vllm-nccl-cu12 2.18.1.0.3.0 is NCCL 2.18.1 */
		if (!p->string || (strncmp(p->string, "nvidia-nccl", 11) && strncmp(p->string, "vllm-nccl-cu", 12)))
			continue;
		char what[160];
		snprintf(what, sizeof what, "pip package %s %s", p->string, json_str(p, "version") ? json_str(p, "version") : "");
		add(a, NV_PIP, json_str(p, "version"), what, cJSON_GetObjectItemCaseSensitive(p, "source"));
	}
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(vs, "nccl_conda");
	char what[160];
	snprintf(what, sizeof what, "conda package nccl %s", json_str(c, "value") ? json_str(c, "value") : "");
	add(a, NV_CONDA, json_str(c, "value"), what, cJSON_GetObjectItemCaseSensitive(c, "source"));
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(vs, "nccl_env");
	add(a, NV_ENV, json_str(e, "value"), "NCCL_VERSION= (the image's packaged libnccl)",
	    cJSON_GetObjectItemCaseSensitive(e, "source"));
}

static void from_host(struct acc *a, const cJSON *facts)
{
	const cJSON *r;
	cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(facts, "nccl_tests"), "runs"))
		add(a, NV_NCCLTESTS, json_str(r, "nccl_library"), "nccl-tests' header (nccl-library)",
		    cJSON_GetObjectItemCaseSensitive(r, "source"));
	const cJSON *l;
	cJSON_ArrayForEach(l, cJSON_GetObjectItemCaseSensitive(facts, "libnccl")) {
		const char *from = json_str(l, "from");
		int ldd = from && !strcmp(from, "ldd");
		char what[200];
		snprintf(what, sizeof what, "%s %s", ldd ? "ldd: the program loads" : "the file", json_str(l, "path") ? json_str(l, "path") : "libnccl");
		add(a, ldd ? NV_LDD : NV_FILE, json_str(l, "version"), what, cJSON_GetObjectItemCaseSensitive(l, "source"));
	}
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(facts, "env"), "NCCL_VERSION");
	if (e) {
		cJSON *src = cJSON_CreateObject();
		if (json_str(e, "path"))
			cJSON_AddStringToObject(src, "path", json_str(e, "path"));
		double ln = 0;
		if (json_num(e, "line", &ln))
			cJSON_AddNumberToObject(src, "line", ln);
		add(a, NV_ENV, json_str(e, "value"), "NCCL_VERSION in the environment (the image's packaged libnccl)", src);
		cJSON_Delete(src);
	}
}

size_t ncclver_collect(const cJSON *facts, struct ncclver *out, size_t max)
{
	struct acc a = {out, 0, max};
	from_log(&a, facts);
	from_versions(&a, facts);
	from_host(&a, facts);
	/* by authority, keeping the order of discovery within a kind */
	for (size_t i = 1; i < a.n; i++)
		for (size_t j = i; j > 0 && out[j - 1].kind > out[j].kind; j--) {
			struct ncclver t = out[j - 1];
			out[j - 1] = out[j];
			out[j] = t;
		}
	return a.n;
}

size_t ncclver_best(const struct ncclver *v, size_t n, size_t *first)
{
	*first = 0;
	if (!n)
		return 0;
	size_t k = 1;
	while (k < n && v[k].kind == v[0].kind)
		k++;
	return k;
}
