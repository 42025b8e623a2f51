/* rules_env.c - the environment lint as a fact-rule provider: checks every
 * variable the bundle reveals (facts.env, filled from env dumps, launch
 * command lines, export lines and NCCL's "X set by environment to Y" lines)
 * against the table in envvars.c, and flags settings that force a path the
 * bundle shows to be unusable (NCCL_NET=IB without an RDMA device).
 * Evidence goes to the rule context through rule_emit; nothing here
 * keeps state or prints. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cjson/cJSON.h>

#include "rules/envvars.h"
#include "base/json.h"
#include "match/patids.h"
#include "rules/rules.h"
#include "base/util.h"
#include "base/version.h"

static const struct rule_def ENV_RULES[] = {
	{ "env.unknown_variable", "an NCCL_/TORCH_NCCL_ variable that neither NCCL nor PyTorch reads" },
	{ "env.invalid_value", "a value NCCL or PyTorch rejects or silently ignores" },
	{ "env.renamed_variable", "an old name (e.g. NCCL_ASYNC_ERROR_HANDLING, PyTorch's) with its current name" },
	{ "env.removed_variable", "a variable removed from NCCL" },
	{ "env.forces_unusable_path", "a setting that forces a transport the bundle shows is unavailable" },
};

static uint64_t line_item(const cJSON *o)
{
	double v = 0;
	return json_num(o, "line", &v) && v > 0 ? (uint64_t)v : 0;
}

/* Highest NCCL version the bundle shows, as 22809; 0 when none. */
static int bundle_nccl_code(const struct rule_ctx *c)
{
	const cJSON *vs = cJSON_GetObjectItemCaseSensitive(c->facts, "nccl_versions");
	const cJSON *v;
	int best = 0;
	cJSON_ArrayForEach(v, vs) {
		if (!cJSON_IsString(v))
			continue;
		long code = version_code(v->valuestring);
		if (code > best)
			best = (int)code;
	}
	return best;
}

static void emit(struct rule_ctx *c, const char *rule, const char *name, const char *value,
                 const char *meant, const char *note, const cJSON *where)
{
	const char *src = json_str(where, "source");
	struct capture caps[5] = {
		{ (char *)"name", (char *)name },
		{ (char *)"value", (char *)value },
		{ (char *)"meant", (char *)(meant ? meant : "") },
		{ (char *)"note", (char *)(note ? note : "") },
		{ (char *)"source", (char *)(src ? src : "unknown") },
	};
	char *stmt = xasprintf("%s=%s: %s%s%s", name, value, note && *note ? note : "",
	                       note && *note ? " " : "", meant && *meant ? meant : "");
	const char *path = json_str(where, "path");
	rule_emit(c, rule, path ? path : "", line_item(where), stmt, caps, 5);
	free(stmt);
}

static int has_ib_device(const struct rule_ctx *c)
{
	return evlist_has(c->ev, SIG_IB_USING_DEVICES);
}

static int ib_absent(const struct rule_ctx *c)
{
	return (evlist_has(c->ev, SIG_IB_NO_DEVICE) || evlist_has(c->ev, SIG_IB_LIBIBVERBS_MISSING)) &&
	       !has_ib_device(c);
}

static void run_env(struct rule_ctx *c)
{
	const cJSON *env = cJSON_GetObjectItemCaseSensitive(c->facts, "env");
	if (!cJSON_IsObject(env))
		return;
	int nccl = bundle_nccl_code(c);
	const cJSON *it;
	cJSON_ArrayForEach(it, env) {
		const char *name = it->string;
		const char *value = json_str(it, "value");
		if (!name || !value)
			continue;
		struct env_finding f;
		enum env_verdict v = envvar_check(name, value, nccl, &f);
		c->work += f.work + 1;
		if (v != ENVCHK_OK && v != ENVCHK_IGNORED && f.rule)
			emit(c, f.rule, name, value, f.meant, f.note, it);
		envvar_finding_free(&f);

		/* settings that force a path the bundle shows to be unusable */
		if (strcmp(name, "NCCL_NET") == 0 && strcasecmp(value, "IB") == 0 && ib_absent(c))
			emit(c, "env.forces_unusable_path", name, value,
			     "unset NCCL_NET (NCCL picks IB when it works and falls back to sockets otherwise), or make the RDMA devices visible (rdma-core, /dev/infiniband in the container)",
			     "NCCL_NET=IB requires InfiniBand/RoCE, but NCCL found no RDMA device (`NET/IB : No device found`); NCCL cannot fall back to sockets and fails to initialise.",
			     it);
		else if (strcmp(name, "NCCL_IB_HCA") == 0 && *value && evlist_has(c->ev, SIG_IB_NO_DEVICE) &&
		         !has_ib_device(c))
			emit(c, "env.forces_unusable_path", name, value,
			     "set NCCL_IB_HCA to devices listed by `ibv_devinfo` (prefix match; `=mlx5_0` exact; `:1` port), or unset it",
			     "NCCL_IB_HCA matched no active RDMA port (`NET/IB : No device found`), so inter-node traffic falls back to TCP sockets.",
			     it);
	}
}

const struct rule_provider RULES_ENV = {
	"env", ENV_RULES, sizeof ENV_RULES / sizeof ENV_RULES[0], run_env,
};
