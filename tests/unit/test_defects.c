/* Tests of the known-defect reading (correlate.c defect_version, verdict.c,
 * nextsteps.c) and of the NCCL version sources (rules/ncclver.c), on the
 * built-in database (patterns/).  The lines are real: nccl-tests#275's
 * failure line (tests/learn/bug-nccltests-275-internal-error-218.log), NCCL's
 * banner and format instances of the NCCL sources named in the signatures.
 *
 * A defect keyed on a version range is the cause when the bundle's NCCL
 * version is in the range (it outranks the generic reading), a lead when
 * the bundle shows no version (context, and a next step asks for it), and
 * absent when the version is outside. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/analysis.h"
#include "engine/bundle.h"
#include "engine/diagnosis.h"
#include "engine/nextsteps.h"
#include "rules/ncclver.h"
#include "rules/rules.h"
#include "match/sigdb.h"
#include "match/evidence.h"
#include "base/json.h"
#include "testlib.h"

static struct sigdb db;

#define FAIL275 "Test NCCL failure common.cu:1012 'internal error - please report this issue to the NCCL developers / ' .. dell03 pid 543317: Test failure common.cu:891\n"

static struct bundle *run_docs(const char *n1, const char *t1, const char *n2, const char *t2)
{
	struct bundle *b = bundle_new("t", &db, NULL);
	bundle_add_memory(b, n1, t1, strlen(t1));
	if (n2)
		bundle_add_memory(b, n2, t2, strlen(t2));
	analysis_finish(b);
	return b;
}

static const struct diagnosis *diag(const struct bundle *b, const char *id)
{
	for (size_t i = 0; i < b->ndiags; i++)
		if (strcmp(b->diags[i].def->id, id) == 0)
			return &b->diags[i];
	return NULL;
}

static const char *top(const struct bundle *b)
{
	for (size_t i = 0; i < b->ndiags; i++)
		if (b->diags[i].def->severity != SEV_INFO)
			return b->diags[i].def->id;
	return "";
}

static int steps_have(const struct bundle *b, const char *needle)
{
	cJSON *s = next_steps_json(b);
	int hit = 0;
	const cJSON *it;
	cJSON_ArrayForEach(it, s)
		hit |= cJSON_IsString(it) && strstr(it->valuestring, needle) != NULL;
	cJSON_Delete(s);
	return hit;
}

static void test_defect_versions(void)
{
	/* the version in range: the defect is the cause, and says why */
	struct bundle *b = run_docs("run.log", "node1:4242:4242 [0] NCCL INFO NCCL version 2.18.3+cuda12.2\n" FAIL275, NULL, NULL);
	CHECK_STR(top(b), "bug.internal_error_spurious_2_18");
	const struct diagnosis *d = diag(b, "bug.internal_error_spurious_2_18");
	CHECK(d && d->defect_version == DEFECT_CONFIRMED && d->role == ROLE_ROOT);
	CHECK(d && strstr(d->explanation, "NCCL 2.18.3 (") && strstr(d->explanation, "is in the affected range"));
	CHECK_INT(b->verdict, VERDICT_DIAGNOSED);
	CHECK(!steps_have(b, "Tell the NCCL version"));
	bundle_free(b);

	/* no version: the generic reading first, the defect a lead, the next step asks */
	b = run_docs("run.log", FAIL275, NULL, NULL);
	CHECK_STR(top(b), "nccl.internal_error");
	d = diag(b, "bug.internal_error_spurious_2_18");
	CHECK(d && d->defect_version == DEFECT_VERSION_UNKNOWN && d->role == ROLE_CONTEXT);
	CHECK(d && strstr(d->explanation, "does not show the NCCL version"));
	CHECK_INT(b->verdict, VERDICT_UNKNOWN_FAILURE);
	CHECK(steps_have(b, "Tell the NCCL version") && steps_have(b, "bug.internal_error_spurious_2_18"));
	bundle_free(b);

	/* the version outside the range: no defect */
	b = run_docs("run.log", "node1:4242:4242 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n" FAIL275, NULL, NULL);
	CHECK(diag(b, "bug.internal_error_spurious_2_18") == NULL);
	CHECK_STR(top(b), "nccl.internal_error");
	bundle_free(b);

	/* the version from another document: the pip wheel */
	b = run_docs("run.log", FAIL275, "pip.txt",
	             "Package            Version\n------------------ ----------\nnvidia-nccl-cu12   2.18.1\ntorch              2.1.0\n");
	d = diag(b, "bug.internal_error_spurious_2_18");
	CHECK(d && d->defect_version == DEFECT_CONFIRMED);
	CHECK(d && strstr(d->explanation, "pip package nvidia-nccl-cu12 2.18.1 [pip.txt:3]"));
	CHECK_STR(top(b), "bug.internal_error_spurious_2_18");
	bundle_free(b);

	/* a message that exists only in the range (2.3.7 src/misc/rings.cu:319): no version needed */
	b = run_docs("run.log", "node1:4242:4242 [0] misc/rings.cu:319 NCCL WARN Could not create rings, falling back on simple ring\n",
	             NULL, NULL);
	d = diag(b, "bug.rings_search_before_2_5");
	CHECK(d && d->defect_version == DEFECT_CONFIRMED);
	CHECK(d && strstr(d->explanation, "exists only in NCCL <2.5.6"));
	bundle_free(b);

	/* a confirmed defect outranks the generic root of the same line: the
	 * ring check (2.19.3 in range of the 2.19.4 fix, nccl#1020's line) */
	b = run_docs("run.log", "node1:4242:4242 [7] NCCL INFO NCCL version 2.19.3+cuda12.3\n"
	             "[7] graph/rings.cc:38 NCCL WARN Error : ring 0 does not loop back to start (13 != 15).\n", NULL, NULL);
	CHECK_STR(top(b), "bug.topology_nondeterministic_2_19_4");
	bundle_free(b);
	b = run_docs("run.log", "[7] graph/rings.cc:38 NCCL WARN Error : ring 0 does not loop back to start (13 != 15).\n", NULL, NULL);
	CHECK_STR(top(b), "ver.ranks_disagree_on_topology");
	bundle_free(b);
}

/* no version, but the WARN line's file:line (patterns/nccl_sites.tsv):
 * nccl#379's graph/xml.h:77 is NCCL 2.6.4-2.7.8 only, inside the 2.8.3 fix;
 * graph/xml.h:85 is 2.11.4 and later: outside; nccl#1020's graph/rings.cc:38
 * is 2.5.6-2.22.3: partly inside, still unknown */
static void test_fingerprint(void)
{
	struct bundle *b = run_docs("run.log", "graph/xml.h:77 NCCL WARN Attribute arch of node cpu not found\n", NULL, NULL);
	const struct diagnosis *d = diag(b, "bug.topo_file_fewer_gpus_2_8");
	CHECK(d && d->defect_version == DEFECT_CONFIRMED);
	CHECK(d && strstr(d->explanation, "(graph/xml.h:77 [run.log:1]) is that of NCCL 2.6.4-2.7.8 only"));
	CHECK_STR(top(b), "bug.topo_file_fewer_gpus_2_8");
	bundle_free(b);
	b = run_docs("run.log", "node1:4242:4242 [0] graph/xml.h:85 NCCL WARN Attribute busid of node pci not found\n", NULL, NULL);
	CHECK(diag(b, "bug.topo_file_fewer_gpus_2_8") == NULL);
	CHECK_STR(top(b), "env.topo_file_invalid");
	bundle_free(b);
	b = run_docs("run.log", "[7] graph/rings.cc:38 NCCL WARN Error : ring 0 does not loop back to start (13 != 15).\n", NULL, NULL);
	d = diag(b, "bug.topology_nondeterministic_2_19_4");
	CHECK(d && d->defect_version == DEFECT_VERSION_UNKNOWN);
	CHECK(d && strstr(d->explanation, "narrows the release to NCCL 2.5.6-2.22.3"));
	bundle_free(b);
	/* a version outranks the fingerprint: 2.8.4's banner with xml.h:77 (a patched build) */
	b = run_docs("run.log", "node1:4242:4242 [0] NCCL INFO NCCL version 2.8.4+cuda11.2\n"
	             "node1:4242:4242 [0] graph/xml.h:77 NCCL WARN Attribute arch of node cpu not found\n", NULL, NULL);
	CHECK(diag(b, "bug.topo_file_fewer_gpus_2_8") == NULL);
	bundle_free(b);
}

static void test_sources(void)
{
	cJSON *f = cJSON_Parse(
	    "{\"nccl_versions\": [\"2.19.3\"],"
	    " \"versions\": {\"nccl_torch\": {\"value\": \"2.18.1\", \"source\": {\"path\": \"env.txt\", \"line\": 4}},"
	    "   \"nccl_conda\": {\"value\": \"2.21.5.1\", \"source\": {\"path\": \"conda.txt\", \"line\": 9}},"
	    "   \"packages\": {\"nvidia-nccl-cu12\": {\"version\": \"2.20.5\", \"source\": {\"path\": \"pip.txt\", \"line\": 2}},"
	    "                \"nvidia-nccl-cu11\": {\"version\": \"2.14.3\", \"source\": {\"path\": \"pip.txt\", \"line\": 3}}}},"
	    " \"libnccl\": [{\"path\": \"/usr/lib/libnccl.so.2\", \"version\": \"2.21.5\", \"from\": \"ls\", \"source\": {\"path\": \"ls.txt\", \"line\": 1}}],"
	    " \"env\": {\"NCCL_VERSION\": {\"value\": \"2.17.1-1\", \"path\": \"env.txt\", \"line\": 7}},"
	    " \"nccl_tests\": {\"runs\": [{\"nccl_library\": \"2.26.6\", \"source\": {\"path\": \"t.log\", \"line\": 1}}]}}");
	struct ncclver v[NCCLVER_MAX];
	size_t n = ncclver_collect(f, v, NCCLVER_MAX);
	CHECK_INT((long)n, 8);
	CHECK_INT(v[0].kind, NV_LOG);
	CHECK_STR(v[0].value, "2.19.3");
	CHECK_INT(v[1].kind, NV_TORCH);
	CHECK(strstr(v[1].where, "[env.txt:4]") != NULL);
	CHECK_INT(v[2].kind, NV_NCCLTESTS);
	CHECK_STR(v[2].value, "2.26.6");
	size_t first, k = ncclver_best(v, n, &first);
	CHECK_INT((long)k, 1);
	int conda = 0, env = 0, pip = 0;
	for (size_t i = 0; i < n; i++) {
		conda |= v[i].kind == NV_CONDA && !strcmp(v[i].value, "2.21.5"); /* the 4th number is the build */
		env |= v[i].kind == NV_ENV && !strcmp(v[i].value, "2.17.1") && strstr(v[i].where, "[env.txt:7]");
		pip += v[i].kind == NV_PIP;
	}
	CHECK(conda && env);
	CHECK_INT(pip, 2);
	cJSON_Delete(f);
	/* not NCCL versions: a CUDA "12.4", a bare "2" */
	f = cJSON_Parse("{\"versions\": {\"nccl_torch\": {\"value\": \"12.4\"}, \"nccl_conda\": {\"value\": \"2\"}}}");
	CHECK_INT((long)ncclver_collect(f, v, NCCLVER_MAX), 0);
	cJSON_Delete(f);
}

/* the version sources of a free-form paste: pip freeze rows (two NCCL
 * wheels: itself a finding), a REPL's torch.cuda.nccl.version() tuple, the
 * image's NCCL_VERSION= */
static void test_paste(void)
{
	struct bundle *b = run_docs("versions.txt",
	                            "torch==2.1.0\nnumpy==1.26.4\nnvidia-nccl-cu12==2.18.1\nnvidia-nccl-cu11==2.14.3\n"
	                            "triton==2.1.0\nfilelock==3.13.1\n>>> import torch\n>>> torch.cuda.nccl.version()\n"
	                            "(2, 18, 1)\nNCCL_VERSION=2.19.3-1\n",
	                            NULL, NULL);
	const cJSON *vs = cJSON_GetObjectItemCaseSensitive(b->facts, "versions");
	CHECK_STR(json_str(cJSON_GetObjectItemCaseSensitive(vs, "nccl_torch"), "value"), "2.18.1");
	CHECK_STR(json_str(cJSON_GetObjectItemCaseSensitive(vs, "nccl_env"), "value"), "2.19.3-1");
	CHECK(evlist_has(&b->ev, "versions.multiple_nccl"));
	struct ncclver v[NCCLVER_MAX];
	size_t first, n = ncclver_best(v, ncclver_collect(b->facts, v, NCCLVER_MAX), &first);
	CHECK_INT((long)n, 1);
	CHECK_INT(v[first].kind, NV_TORCH);
	CHECK(strstr(v[first].where, "[versions.txt:9]") != NULL);
	bundle_free(b);
	/* a tuple with no nccl.version() call before it is no NCCL version */
	b = run_docs("versions.txt", "torch==2.1.0\nnumpy==1.26.4\nscipy==1.11.0\ntriton==2.1.0\nfilelock==3.13.1\n(2, 18, 1)\n",
	             NULL, NULL);
	CHECK(json_str(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(b->facts, "versions"), "nccl_torch"),
	               "value") == NULL);
	bundle_free(b);
}

int main(void)
{
	struct msgs m = {0};
	sigdb_init(&db);
	rules_register(&db);
	CHECK_INT(sigdb_load_dir(&db, "patterns", &m), 0);
	CHECK_INT(sigdb_finalize(&db, &m), 0);
	for (size_t i = 0; i < m.list.n; i++)
		fprintf(stderr, "%s\n", m.list.v[i]);
	msgs_free(&m);
	test_defect_versions();
	test_sources();
	test_paste();
	test_fingerprint();
	sigdb_free(&db);
	TEST_MAIN_END();
}
