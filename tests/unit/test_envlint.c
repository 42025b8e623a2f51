/* test_envlint.c - the environment variable table and checker (envvars.c)
 * and the env fact-rule provider (rules_env.c) on small bundles. */
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "engine/analysis.h"
#include "engine/bundle.h"
#include "rules/envvars.h"
#include "match/evidence.h"
#include "rules/rules.h"
#include "match/sigdb.h"
#include "testlib.h"

static enum env_verdict chk(const char *n, const char *v, int nccl, const char **rule, char **meant)
{
	struct env_finding f;
	enum env_verdict r = envvar_check(n, v, nccl, &f);
	if (rule)
		*rule = f.rule;
	if (meant)
		*meant = f.meant ? strdup(f.meant) : NULL;
	envvar_finding_free(&f);
	return r;
}

static void test_table(void)
{
	CHECK(envvar_count() > 250);
	/* names unique */
	int dup = 0;
	for (size_t i = 0; i < envvar_count(); i++)
		for (size_t j = i + 1; j < envvar_count(); j++)
			if (strcmp(envvar_at(i)->name, envvar_at(j)->name) == 0)
				dup++;
	CHECK_INT(dup, 0);
	CHECK(envvar_find("NCCL_SOCKET_IFNAME") != NULL);
	CHECK(envvar_find("nccl_socket_ifname") == NULL);
	CHECK(envvar_find("NCCL_INIT_TIMEOUT") == NULL);
	CHECK_STR(envvar_find("NCCL_ASYNC_ERROR_HANDLING")->renamed_to, "TORCH_NCCL_ASYNC_ERROR_HANDLING");
}

static void test_checks(void)
{
	const char *rule;
	char *meant;
	/* the article's advice */
	CHECK_INT(chk("NCCL_ALGO", "simple", 22809, &rule, &meant), ENVCHK_INVALID);
	CHECK_STR(rule, "env.invalid_value");
	CHECK(meant && strstr(meant, "NCCL_PROTO=simple"));
	free(meant);
	CHECK_INT(chk("NCCL_INIT_TIMEOUT", "180", 0, &rule, &meant), ENVCHK_UNKNOWN);
	CHECK_STR(rule, "env.unknown_variable");
	CHECK(meant && strstr(meant, "init_process_group"));
	free(meant);
	CHECK_INT(chk("NCCL_ASYNC_ERROR_HANDLING", "0", 0, &rule, &meant), ENVCHK_RENAMED);
	CHECK_STR(rule, "env.renamed_variable");
	CHECK_STR(meant, "TORCH_NCCL_ASYNC_ERROR_HANDLING");
	free(meant);
	CHECK_INT(chk("NCCL_P2P_DISABLE", "1", 0, NULL, NULL), ENVCHK_OK);
	CHECK_INT(chk("NCCL_IB_DISABLE", "1", 0, NULL, NULL), ENVCHK_OK);
	/* values that are right */
	CHECK_INT(chk("NCCL_ALGO", "Ring,Tree", 22809, NULL, NULL), ENVCHK_OK);
	CHECK_INT(chk("NCCL_ALGO", "^NVLS", 22809, NULL, NULL), ENVCHK_OK);
	CHECK_INT(chk("NCCL_ALGO", "allreduce:tree;allgather:ring", 22809, NULL, NULL), ENVCHK_OK);
	CHECK_INT(chk("NCCL_ALGO", "allreduce:tree;allgather:ring", 22300, NULL, NULL), ENVCHK_INVALID);
	CHECK_INT(chk("NCCL_PROTO", "Simple", 22809, NULL, NULL), ENVCHK_OK);
	CHECK_INT(chk("NCCL_PROTO", "ring", 22809, &rule, &meant), ENVCHK_INVALID);
	CHECK(meant && strstr(meant, "NCCL_ALGO=ring"));
	free(meant);
	CHECK_INT(chk("NCCL_DEBUG", "info", 0, NULL, NULL), ENVCHK_OK);
	CHECK_INT(chk("NCCL_DEBUG", "1", 0, NULL, NULL), ENVCHK_INVALID);
	CHECK_INT(chk("NCCL_DEBUG_SUBSYS", "INIT,NET,GRAPH", 0, NULL, NULL), ENVCHK_OK);
	CHECK_INT(chk("NCCL_DEBUG_SUBSYS", "^INIT,FOO", 0, NULL, NULL), ENVCHK_INVALID);
	/* P2P level: case-sensitive, NODE is not a level */
	CHECK_INT(chk("NCCL_P2P_LEVEL", "NVL", 0, NULL, NULL), ENVCHK_OK);
	CHECK_INT(chk("NCCL_P2P_LEVEL", "3", 0, NULL, NULL), ENVCHK_OK);
	CHECK_INT(chk("NCCL_P2P_LEVEL", "nvl", 0, &rule, &meant), ENVCHK_INVALID);
	CHECK(meant && strstr(meant, "NVL"));
	free(meant);
	CHECK_INT(chk("NCCL_P2P_LEVEL", "NODE", 0, &rule, &meant), ENVCHK_INVALID);
	CHECK(meant && strstr(meant, "PHB"));
	free(meant);
	/* integers and ranges */
	CHECK_INT(chk("NCCL_IB_TIMEOUT", "22", 0, NULL, NULL), ENVCHK_OK);
	CHECK_INT(chk("NCCL_IB_TIMEOUT", "40", 0, NULL, NULL), ENVCHK_INVALID);
	CHECK_INT(chk("NCCL_P2P_DISABLE", "true", 0, NULL, NULL), ENVCHK_INVALID);
	CHECK_INT(chk("NCCL_BUFFSIZE", "0x400000", 0, NULL, NULL), ENVCHK_OK);
	CHECK_INT(chk("NCCL_NVLS_ENABLE", "0", 0, NULL, NULL), ENVCHK_OK);
	CHECK_INT(chk("NCCL_NTHREADS", "1024", 0, NULL, NULL), ENVCHK_INVALID);
	/* interface lists */
	CHECK_INT(chk("NCCL_SOCKET_IFNAME", "^docker,lo", 0, NULL, NULL), ENVCHK_OK);
	CHECK_INT(chk("NCCL_SOCKET_IFNAME", "^=docker0", 0, NULL, NULL), ENVCHK_OK);
	CHECK_INT(chk("NCCL_SOCKET_IFNAME", "=^docker0", 0, NULL, NULL), ENVCHK_INVALID);
	CHECK_INT(chk("NCCL_SOCKET_IFNAME", "eth0,^docker", 0, NULL, NULL), ENVCHK_INVALID);
	CHECK_INT(chk("NCCL_SOCKET_IFNAME", "nonexist0", 0, NULL, NULL), ENVCHK_OK); /* syntax fine; existence is not ours */
	/* unknown, misspelled, foreign, removed */
	CHECK_INT(chk("NCCL_SOCKET_IFNAM", "eth0", 0, &rule, &meant), ENVCHK_UNKNOWN);
	CHECK(meant && strstr(meant, "NCCL_SOCKET_IFNAME"));
	free(meant);
	CHECK_INT(chk("NCCL_P2P_DISABLED", "1", 0, NULL, &meant), ENVCHK_UNKNOWN);
	CHECK(meant && strstr(meant, "NCCL_P2P_DISABLE=1"));
	free(meant);
	CHECK_INT(chk("NCCL_IBEXT_DISABLE", "1", 0, NULL, NULL), ENVCHK_IGNORED);
	CHECK_INT(chk("NCCL_VERSION", "2.15.5-1", 0, NULL, NULL), ENVCHK_IGNORED);
	CHECK_INT(chk("PATH", "/usr/bin", 0, NULL, NULL), ENVCHK_IGNORED);
	CHECK_INT(chk("NCCL_LL_THRESHOLD", "0", 0, &rule, NULL), ENVCHK_REMOVED);
	CHECK_STR(rule, "env.removed_variable");
	CHECK_INT(chk("NCCL_CREATE_THREAD_CONTEXT", "1", 22809, NULL, NULL), ENVCHK_OK);
	CHECK_INT(chk("NCCL_CREATE_THREAD_CONTEXT", "1", 23007, NULL, NULL), ENVCHK_REMOVED);
	/* PyTorch */
	CHECK_INT(chk("TORCH_NCCL_ASYNC_ERROR_HANDLING", "1", 0, NULL, NULL), ENVCHK_OK);
	CHECK_INT(chk("TORCH_NCCL_ASYNC_ERROR_HANDLING", "7", 0, NULL, NULL), ENVCHK_INVALID);
	CHECK_INT(chk("TORCH_DISTRIBUTED_DEBUG", "DETAIL", 0, NULL, NULL), ENVCHK_OK);
	CHECK_INT(chk("TORCH_DISTRIBUTED_DEBUG", "ON", 0, NULL, NULL), ENVCHK_INVALID);
	CHECK_INT(chk("TORCH_NCCL_TRACE_BUFFER_SIZE", "2000", 0, &rule, &meant), ENVCHK_RENAMED);
	CHECK_STR(meant, "TORCH_FR_BUFFER_SIZE");
	free(meant);
	/* robustness */
	CHECK_INT(chk("NCCL_ALGO", "", 0, NULL, NULL), ENVCHK_OK);
	CHECK_INT(chk("NCCL_ALGO", ",,;;:", 22809, NULL, NULL), ENVCHK_INVALID);
	CHECK_INT(chk(NULL, "x", 0, NULL, NULL), ENVCHK_IGNORED);
}

static void add_env(cJSON *facts, const char *name, const char *value)
{
	cJSON *env = cJSON_GetObjectItemCaseSensitive(facts, "env");
	if (!env)
		env = cJSON_AddObjectToObject(facts, "env");
	cJSON *o = cJSON_AddObjectToObject(env, name);
	cJSON_AddStringToObject(o, "value", value);
	cJSON_AddStringToObject(o, "path", "env.txt");
	cJSON_AddNumberToObject(o, "line", 3);
	cJSON_AddStringToObject(o, "source", "env_dump");
}

static const struct evidence *find_ev(const struct bundle *b, const char *id, const char *name)
{
	for (size_t i = 0; i < b->ev.n; i++)
		if (strcmp(b->ev.v[i].id, id) == 0 && (!name || strcmp(evidence_cap(&b->ev.v[i], "name"), name) == 0))
			return &b->ev.v[i];
	return NULL;
}

static void run_env(struct bundle *b)
{
	struct rule_ctx rc;
	analysis_rule_ctx(b, &rc);
	RULES_ENV.run(&rc);
}

static void test_provider(void)
{
	struct sigdb db;
	sigdb_init(&db);
	CHECK_STR(RULES_ENV.name, "env");
	CHECK_INT(RULES_ENV.nrules, 5);

	/* the article's five-step environment */
	struct bundle *b = bundle_new("t", &db, NULL);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(b->facts, "nccl_versions"), cJSON_CreateString("2.28.9"));
	add_env(b->facts, "NCCL_ALGO", "simple");
	add_env(b->facts, "NCCL_INIT_TIMEOUT", "180");
	add_env(b->facts, "NCCL_ASYNC_ERROR_HANDLING", "0");
	add_env(b->facts, "NCCL_P2P_DISABLE", "1");
	add_env(b->facts, "NCCL_IB_DISABLE", "1");
	add_env(b->facts, "CUDA_VISIBLE_DEVICES", "0,1");
	run_env(b);
	const struct evidence *e = find_ev(b, "env.invalid_value", "NCCL_ALGO");
	CHECK(e != NULL);
	if (e) {
		CHECK_STR(evidence_cap(e, "value"), "simple");
		CHECK(strstr(evidence_cap(e, "note"), "fails communicator init") != NULL);
		CHECK_STR(e->path, "env.txt");
		CHECK_INT(e->line, 3);
	}
	CHECK(find_ev(b, "env.unknown_variable", "NCCL_INIT_TIMEOUT") != NULL);
	e = find_ev(b, "env.renamed_variable", "NCCL_ASYNC_ERROR_HANDLING");
	CHECK(e != NULL);
	if (e)
		CHECK(strstr(evidence_cap(e, "note"), "hangs instead of failing") != NULL);
	CHECK_INT(b->ev.n, 3); /* the valid ones produce nothing */
	bundle_free(b);

	/* older NCCL: the bad token is silently ignored */
	b = bundle_new("t2", &db, NULL);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(b->facts, "nccl_versions"), cJSON_CreateString("2.18.6"));
	add_env(b->facts, "NCCL_ALGO", "simple");
	run_env(b);
	e = find_ev(b, "env.invalid_value", "NCCL_ALGO");
	CHECK(e && strstr(evidence_cap(e, "note"), "silently ignores"));
	bundle_free(b);

	/* NCCL_NET=IB without an RDMA device */
	b = bundle_new("t3", &db, NULL);
	add_env(b->facts, "NCCL_NET", "IB");
	evlist_add(&b->ev, "ib.no_device", "run.log", 7, "NET/IB : No device found.", 25, NULL, 0);
	run_env(b);
	CHECK(find_ev(b, "env.forces_unusable_path", "NCCL_NET") != NULL);
	bundle_free(b);

	/* NCCL_NET=IB where IB works: nothing */
	b = bundle_new("t4", &db, NULL);
	add_env(b->facts, "NCCL_NET", "IB");
	evlist_add(&b->ev, "ib.using_devices", "run.log", 7, "NET/IB : Using [0]mlx5_0:1/IB", 30, NULL, 0);
	run_env(b);
	CHECK_INT(b->ev.n, 1);
	bundle_free(b);

	/* no facts at all, and malformed facts */
	b = bundle_new("t5", &db, NULL);
	run_env(b);
	CHECK_INT(b->ev.n, 0);
	cJSON_AddStringToObject(b->facts, "env", "not an object");
	run_env(b);
	CHECK_INT(b->ev.n, 0);
	bundle_free(b);
	sigdb_free(&db);
}

int main(void)
{
	test_table();
	test_checks();
	test_provider();
	TEST_MAIN_END();
}
