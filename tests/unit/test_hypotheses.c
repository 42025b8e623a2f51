/* Tests of the ranking premises (cascade.c premises(), rules_ranks.c
 * rule_never_reached / rule_busy_timeout) and of the hypotheses
 * (hypotheses.c) over the whole database (patterns/).  The lines are real:
 * pasted in learn-half threads (tests/learn, cited per case) or NCCL's and
 * torchrun's own text; each case also runs a variant with the one clue
 * taken out, so that the test fails when the clue stops mattering.
 * Assertions name only what these modules decide (which diagnosis is the
 * fallback, the echo, the alternative), not ids other families own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/analysis.h"
#include "engine/bundle.h"
#include "engine/diagnosis.h"
#include "engine/hypotheses.h"
#include "engine/nextsteps.h"
#include "report/report.h"
#include "base/json.h"
#include "rules/rules.h"
#include "match/sigdb.h"
#include "testlib.h"
#include "testdb.h"

static struct sigdb db;

static int has_rank(const struct diagnosis *d, int r)
{
	for (size_t i = 0; d && i < d->nranks; i++)
		if (d->ranks[i] == r)
			return 1;
	return 0;
}

/* tests/learn/collective-chatglmet-137-tokenize.log (hiyouga/ChatGLM-Efficient-Tuning#137):
 * the waiting rank's traceback, glued to the main process's progress bar at 30:11. */
static const char CHATGLM[] =
	"Running tokenizer on dataset: 47%|###############8 | 3169000/6811963 [30:11<38:27, 1578.58 examples/s]Traceback (most recent call last):\n"
	"File \"/mnt/data/ChatMedNorm/src/train_sft.py\", line 94, in\n"
	"main()\n"
	"File \"/mnt/data/ChatMedNorm/src/utils/common.py\", line 506, in preprocess_data\n"
	"with training_args.main_process_first(desc=\"dataset map pre-processing\"):\n"
	"File \"/mnt/data/envs/lib/python3.9/site-packages/transformers/training_args.py\", line 1891, in main_process_first\n"
	"torch.distributed.barrier()\n"
	"File \"/mnt/data/envs/lib/python3.9/site-packages/torch/distributed/distributed_c10d.py\", line 3328, in barrier\n"
	"work = default_pg.barrier(opts=opts)\n";

static void test_busy_timeout(void)
{
	struct bundle *b = tdb_run_text(&db, "run.log", CHATGLM);
	const struct diagnosis *t = tdb_top(b), *f = tdb_diag(b, "ranks.failed_in_collective");
	CHECK(t && strcmp(t->def->id, "ranks.timeout_while_busy") == 0);
	CHECK(has_rank(t, 0)); /* the main process was busy: main_process_first */
	CHECK(f && f->role == ROLE_CASCADE);
	CHECK(tdb_diag(b, "ranks.never_reached_nccl") == NULL); /* the traceback is inside a collective */
	bundle_free(b);

	/* the same traceback 5 minutes into the step: no timeout inferred, but
	 * still inside a collective, so not "never reached NCCL" either */
	char *early = xstrdup(CHATGLM);
	memcpy(strstr(early, "[30:11<"), "[05:11<", 7);
	b = tdb_run_text(&db, "run.log", early);
	CHECK(tdb_diag(b, "ranks.timeout_while_busy") == NULL);
	t = tdb_top(b);
	CHECK(t && strcmp(t->def->id, "ranks.failed_in_collective") == 0 && t->def->derived);
	CHECK(tdb_diag(b, "ranks.never_reached_nccl") == NULL);
	bundle_free(b);
	free(early);

	/* an explicit failure of the program that names no rendezvous word
	 * (tests/learn oom-lmmr1-43, corpus-a: vLLM's cumem allocator in a Ray
	 * actor): "no NCCL line, so rendezvous" has nothing to stand on */
	b = tdb_run_text(&db, "run.log", "(ActorModelRayActor pid=348952) RuntimeError: CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:62\n");
	CHECK(tdb_diag(b, "ranks.never_reached_nccl") == NULL);
	t = tdb_top(b);
	CHECK(!t || strcmp(t->def->category, "RENDEZVOUS") != 0);
	bundle_free(b);
	/* no collective in the traceback and no progress bar: the fallback */
	b = tdb_run_text(&db, "run.log", "Traceback (most recent call last):\n"
	                        "  File \"train.py\", line 94, in <module>\n"
	                        "    main()\n"
	                        "RuntimeError: Address already in use\n");
	CHECK(tdb_diag(b, "ranks.never_reached_nccl") != NULL);
	CHECK(tdb_diag(b, "ranks.failed_in_collective") == NULL);
	bundle_free(b);
}

/* tests/learn/shm-xpk-965-torchtitan-rootcause.log (AI-Hypercomputer/xpk#965): only
 * torchrun's Root Cause block; its traceback stops at the first broadcast. */
static void test_collective_in_block(void)
{
	struct bundle *b = tdb_run_text(&db, "run.log",
		"Root Cause (first observed failure):\n"
		"[0]:\n"
		"  time      : 2026-01-13_09:20:58\n"
		"  host      : chengken-ubench-93mf-slice-job-0-0.chengken-ubench-93mf.default.svc.cluster.local\n"
		"  rank      : 0 (local_rank: 0)\n"
		"  exitcode  : 1 (pid: 1016)\n"
		"  error_file: /tmp/torchelastic_ey36uo59/chengken-ubench-93mf_i188asz_/attempt_0/0/error.json\n"
		"  traceback : Traceback (most recent call last):\n"
		"    File \"/app/torchtitan/torchtitan/distributed/utils.py\", line 140, in set_determinism\n"
		"      torch.distributed.broadcast(seed_tensor, src=0)\n");
	CHECK(tdb_diag(b, "ranks.never_reached_nccl") == NULL);
	const struct diagnosis *t = tdb_top(b);
	CHECK(t && strcmp(t->def->category, "RENDEZVOUS") != 0);
	/* a Kubernetes pod: /dev/shm is small there, shared memory is one of the hypotheses */
	cJSON *h = hypotheses_json(b);
	int shm = 0;
	const cJSON *it;
	cJSON_ArrayForEach(it, h)
		shm |= json_str(it, "category") && strcmp(json_str(it, "category"), "SHM_EXHAUSTED") == 0;
	CHECK(shm);
	double c0 = 0;
	json_num(cJSON_GetArrayItem(h, 0), "confidence", &c0);
	cJSON_ArrayForEach(it, h) {
		double c = 0;
		json_num(it, "confidence", &c);
		CHECK(c <= c0); /* an alternative is never likelier than the top */
	}
	cJSON_Delete(h);
	bundle_free(b);
}

/* tests/learn/bug-nccl-1996-ras.log (NVIDIA/nccl#1996): UCX's crash handler,
 * frames in libnccl.so: NCCL ran, so "never reached NCCL" is not said. */
static const char UCX_CRASH[] =
	"[n125-011-039:288505:0:296459] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x48)\n"
	"==== backtrace (tid: 296459) ====\n"
	" 0  /usr/lib/libucs.so.0(ucs_handle_error+0x2d4) [0x7fedc925c274]\n"
	" 3  /opt/tiger/nccl/lib/libnccl.so(+0x120057) [0x7ff1c18c1057]\n"
	" 4  /opt/tiger/nccl/lib/libnccl.so(+0x12209d) [0x7ff1c18c309d]\n"
	"Segmentation fault (core dumped)\n";

static void test_native_frames(void)
{
	struct bundle *b = tdb_run_text(&db, "run.log", UCX_CRASH);
	CHECK(tdb_diag(b, "ranks.never_reached_nccl") == NULL);
	bundle_free(b);
	char *other = xstrdup(UCX_CRASH);
	for (char *p = other; (p = strstr(p, "libnccl")) != NULL;)
		memcpy(p, "libfoox", 7);
	b = tdb_run_text(&db, "run.log", other);
	/* without NCCL frames the crash is its own explanation (issue 26: a crash
	 * block is failure evidence, derived.crash.signal_only), as
	 * rule_never_reached says of an explicit segfault: no "never reached NCCL" */
	CHECK(tdb_diag(b, "ranks.never_reached_nccl") == NULL);
	CHECK(tdb_diag(b, "derived.rank_failure") != NULL);
	bundle_free(b);
	free(other);
}

/* tests/learn/rank-mmcv-2869-exit1.log (open-mmlab/mmcv#2869): torchrun's record of
 * rank 1's exit; before it, rank 1's own NCCL WARN (a line of NCCL's
 * transport/net_ib.cu, as patterns/derived.json's sample).  The record says
 * that the worker failed, the WARN why: the record is the echo. */
static const char CHILD_FAILED[] =
	"torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
	"============================================================\n"
	"./train.py FAILED\n"
	"------------------------------------------------------------\n"
	"Failures:\n"
	"  <NO_OTHER_FAILURES>\n"
	"------------------------------------------------------------\n"
	"Root Cause (first observed failure):\n"
	"[0]:\n"
	"  time      : 2023-07-14_16:14:46\n"
	"  host      : localhost\n"
	"  rank      : 1 (local_rank: 1)\n"
	"  exitcode  : 1 (pid: 8283)\n"
	"  error_file: <N/A>\n"
	"  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
	"============================================================\n";

static void test_launcher_record(void)
{
	struct bundle *b = tdb_run_text(&db, "run.log", CHILD_FAILED);
	const struct diagnosis *t = tdb_top(b);
	CHECK(t && strcmp(t->def->id, "ranks.exited_with_error") == 0); /* nothing else: the record leads */
	bundle_free(b);

	/* a specific signature's line, then a line that only derives a category */
	static const char *const own[] = {
		"gpu5:8283:8290 [1] transport/net_ib.cu:788 NCCL WARN NET/IB : Got completion with error 12, opcode 1, len 0, vendor err 129\n",
		"node1:8283:8290 [1] transport/net_ib/p2p.cc:1520 NCCL WARN NET/IB: rail 0 of 2 is not usable\n",
	};
	for (int k = 0; k < 2; k++) {
		struct buf s;
		buf_init(&s);
		buf_adds(&s, own[k]);
		buf_adds(&s, CHILD_FAILED);
		b = tdb_run_text(&db, "run.log", s.data);
		t = tdb_top(b);
		const struct diagnosis *rec = tdb_diag(b, "ranks.exited_with_error");
		CHECK(t && strcmp(t->def->category, "IB_RDMA") == 0 && (k == 0) == !t->def->derived);
		CHECK(rec && rec->role == ROLE_CASCADE && rec->echo_of && strcmp(rec->echo_of, t->def->id) == 0);
		bundle_free(b);
		buf_free(&s);
	}
}

/* "A peer died" needs a peer: NCCL's own remote-error text in a job whose
 * only communicator has one rank. */
static void test_single_process_peer(void)
{
	static const char REMOTE[] =
		"torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, remote process exited or there was a network error, NCCL version 2.21.5\n"
		"ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n";
	struct bundle *b = tdb_run_text(&db, "run.log", REMOTE);
	const struct diagnosis *t = tdb_top(b);
	CHECK(t && strcmp(t->def->category, "RANK_FAILURE") == 0 && t->role != ROLE_CONTEXT);
	bundle_free(b);
	struct buf s;
	buf_init(&s);
	buf_adds(&s, "vm:1159:1159 [0] NCCL INFO comm 0x55d5c3a0 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 18000 commId 0x6e61e4ffdc1a4b4f - Init START\n");
	buf_adds(&s, REMOTE);
	b = tdb_run_text(&db, "run.log", s.data);
	int peers = 0;
	for (size_t i = 0; i < b->ndiags; i++)
		if (strncmp(b->diags[i].def->id, "rank.peer", 9) == 0) {
			peers++;
			CHECK(b->diags[i].role == ROLE_CONTEXT);
		}
	CHECK(peers > 0);
	bundle_free(b);
	buf_free(&s);
}

/* tests/learn/ib-nccl-2076-socket-reset-redacted.log (NVIDIA/nccl#2076): a remote
 * error and nothing else.  The message itself names two causes: the first
 * hypothesis is the peer's death, the network ones follow, each with what
 * tells it apart; a certain diagnosis has no alternatives. */
static void test_hypotheses(void)
{
	struct bundle *b = tdb_run_text(&db, "run.log",
		"torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, remote process exited or there was a network error, NCCL version 2.21.5\n"
		"ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.\n"
		"Last error:\n"
		"socketProgressOpt: Call to recv from 172....<33759> failed : Connection reset by peer\n");
	cJSON *h = hypotheses_json(b);
	CHECK_INT(json_size(h), 3);
	const cJSON *h0 = cJSON_GetArrayItem(h, 0), *h1 = cJSON_GetArrayItem(h, 1), *h2 = cJSON_GetArrayItem(h, 2);
	CHECK(json_str(h0, "category") && strcmp(json_str(h0, "category"), tdb_top(b)->def->category) == 0);
	CHECK(json_str(h0, "diagnosis") && strcmp(json_str(h0, "diagnosis"), tdb_top(b)->def->id) == 0);
	CHECK(json_str(h1, "category") && strcmp(json_str(h1, "category"), "SOCKET_NETWORK") == 0); /* no IB shown */
	CHECK(json_str(h2, "category") && strcmp(json_str(h2, "category"), "IB_RDMA") == 0);
	double c0 = 0, c1 = 0, c2 = 0;
	json_num(h0, "confidence", &c0);
	json_num(h1, "confidence", &c1);
	json_num(h2, "confidence", &c2);
	CHECK(c0 > c1 && c1 > c2 && c2 > 0);
	CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(h1, "diagnosis")));
	CHECK(json_str(h1, "tell_apart") && strstr(json_str(h1, "tell_apart"), "NET/Socket"));
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	hypotheses_text(f, h, 0);
	fclose(f);
	CHECK(buf && strstr(buf, "Hypotheses") && strstr(buf, "2. SOCKET_NETWORK, a guess"));
	free(buf);
	cJSON_Delete(h);
	bundle_free(b);

	/* the same excerpt where NCCL shows IB in use: IB comes first */
	b = tdb_run_text(&db, "run.log",
		"node1:4242:4300 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>\n"
		"torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, remote process exited or there was a network error, NCCL version 2.21.5\n");
	h = hypotheses_json(b);
	CHECK(json_size(h) >= 2 && strcmp(json_str(cJSON_GetArrayItem(h, 1), "category"), "IB_RDMA") == 0);
	cJSON_Delete(h);
	bundle_free(b);

	/* certain: the port is in use; one hypothesis, no section in the text */
	b = tdb_run_text(&db, "run.log",
		"torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29635, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use\n");
	h = hypotheses_json(b);
	CHECK_INT(json_size(h), 1);
	buf = NULL;
	f = open_memstream(&buf, &len);
	hypotheses_text(f, h, 1);
	fclose(f);
	CHECK(buf && !*buf);
	free(buf);
	cJSON_Delete(h);
	bundle_free(b);

	/* nothing failed: no hypotheses */
	b = tdb_run_text(&db, "run.log", "vm:1159:1159 [0] NCCL INFO comm 0x55d5c3a0 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 18000 commId 0x6e61e4ffdc1a4b4f - Init COMPLETE\n");
	h = hypotheses_json(b);
	CHECK_INT(json_size(h), 0);
	cJSON_Delete(h);
	bundle_free(b);
}

/* rules_infer.c: init stops on one host with several GPUs and nothing
 * failed.  tests/learn/p2p-nccl-257-iommu.log (NVIDIA/nccl#257: 4 GeForce GTX
 * 1080 Ti, resolved by intel_iommu=off); with NVLink in a topology, with a
 * second host, or with an error, the suspect is not P2P. */
static void test_init_stall(void)
{
	char *log = tdb_slurp("tests/learn/p2p-nccl-257-iommu.log");
	CHECK(log != NULL);
	if (!log)
		return;
	struct bundle *b = tdb_run_text(&db, "run.log", log);
	const struct diagnosis *t = tdb_top(b);
	CHECK(t && strcmp(t->def->id, "infer.init_stall_pcie_host") == 0 && t->def->severity == SEV_WARNING);
	CHECK(b->verdict == VERDICT_NO_EVIDENCE); /* a suspect, not a failure found */
	cJSON *bj = report_bundle_json(b, 0);
	const cJSON *env = json_get(json_get(cJSON_GetArrayItem(json_get(bj, "diagnoses"), 0), "verify"), "env");
	CHECK(json_str(env, "NCCL_P2P_DISABLE") && strcmp(json_str(env, "NCCL_P2P_DISABLE"), "1") == 0);
	cJSON_Delete(bj);
	bundle_free(b);

	/* the same with an NVLink topology of the host: not P2P over PCIe */
	char *topo = tdb_slurp("fixtures/sys/h200-2gpu/topo-m.txt");
	CHECK(topo != NULL);
	b = bundle_new("t", &db, NULL);
	bundle_add_memory(b, "run.log", log, strlen(log));
	if (topo)
		bundle_add_memory(b, "topo-m.txt", topo, strlen(topo));
	analysis_finish(b);
	CHECK(tdb_diag(b, "infer.init_stall_pcie_host") == NULL && tdb_diag(b, "infer.init_stall_host") == NULL);
	bundle_free(b);
	free(topo);

	/* a second host: the network is in play */
	struct buf s;
	buf_init(&s);
	buf_adds(&s, log);
	buf_adds(&s, "jupyter-other:15900:15900 [0] NCCL INFO Bootstrap : Using [0]eth0:10.2.3.33<0>\n");
	b = tdb_run_text(&db, "run.log", s.data);
	CHECK(tdb_diag(b, "infer.init_stall_pcie_host") == NULL);
	bundle_free(b);
	buf_free(&s);

	/* an error: another finding explains it */
	buf_init(&s);
	buf_adds(&s, log);
	buf_adds(&s, "jupyter-vmarkovtsev:15833:15833 [0] init.cc:904 NCCL WARN Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 2000\n");
	b = tdb_run_text(&db, "run.log", s.data);
	CHECK(tdb_diag(b, "infer.init_stall_pcie_host") == NULL);
	bundle_free(b);
	buf_free(&s);
	free(log);
}

/* NCCL_GRAPH_FILE set by the image (NVIDIA/nccl#1240: the maintainer: never
 * set it in production); NCCL_TOPO_FILE alone is not this finding. */
static void test_graph_file(void)
{
	struct bundle *b = tdb_run_text(&db, "run.log", "Spotllm:73025:73112 [0] NCCL INFO NCCL_GRAPH_FILE set by environment to /opt/microsoft/ncv4/graph.xml\n");
	const struct diagnosis *t = tdb_top(b);
	CHECK(t && strcmp(t->def->id, "infer.graph_file_set") == 0 && strcmp(t->def->category, "ENV_MISCONFIG") == 0);
	CHECK(t && strstr(t->explanation, "set by the machine image"));
	bundle_free(b);
	b = tdb_run_text(&db, "run.log", "Spotllm:73025:73112 [0] NCCL INFO NCCL_GRAPH_FILE set by environment to /home/me/graph.xml\n");
	t = tdb_top(b);
	CHECK(t && strcmp(t->def->id, "infer.graph_file_set") == 0 && !strstr(t->explanation, "machine image"));
	bundle_free(b);
	b = tdb_run_text(&db, "run.log", "::16674:17023 [0] NCCL INFO NCCL_TOPO_FILE set by environment to /opt/microsoft/ncv4/topo.xml\n"
	                        "Spotllm:73025:73112 [0] NCCL INFO NCCL_TOPO_FILE set by environment to /opt/microsoft/ncv4/topo.xml\n");
	CHECK(tdb_diag(b, "infer.graph_file_set") == NULL);
	bundle_free(b);
}

static struct bundle *run_docs(const char *const *paths, const char *const *names, size_t n)
{
	struct bundle *b = bundle_new("t", &db, NULL);
	for (size_t i = 0; i < n; i++) {
		char *t = tdb_slurp(paths[i]);
		CHECK(t != NULL);
		if (t)
			bundle_add_memory(b, names[i], t, strlen(t));
		free(t);
	}
	analysis_finish(b);
	return b;
}

/* The transport NCCL used and why, when the machine has a faster one: a real
 * 2 x H200 run with NCCL_P2P_DISABLE=1 (SHM) beside the host's NVLink
 * topology; a 64-rank socket run (NVIDIA/nccl#226, NCCL 2.4 "Ring ... via
 * NET/Socket/0" lines) beside an ibstat with an Active port. */
static void test_transport(void)
{
	const char *shm[] = {"fixtures/captures/h200-2gpu/scenarios/ok_p2p_ib_disabled/run.log",
	                     "fixtures/captures/h200-2gpu/scenarios/ok_p2p_ib_disabled/env.txt",
	                     "fixtures/sys/h200-2gpu/topo-m.txt"};
	const char *shmn[] = {"run.log", "env.txt", "topo-m.txt"};
	struct bundle *b = run_docs(shm, shmn, 3);
	const struct diagnosis *d = tdb_diag(b, "infer.transport_shm");
	CHECK(d && d->def->severity == SEV_INFO && strstr(d->explanation, "NCCL_P2P_DISABLE=1"));
	CHECK(b->verdict == VERDICT_HEALTHY); /* information, never a failure */
	bundle_free(b);
	b = run_docs(shm, shmn, 2); /* no topology: nothing says NVLink is there */
	CHECK(tdb_diag(b, "infer.transport_shm") == NULL);
	bundle_free(b);

	const char *sock[] = {"tests/learn/healthy-nccl-226-64ranks.log", "fixtures/sys/public/ibstat-8xcx7-1591-truncated.txt"};
	const char *sockn[] = {"run.log", "ibstat.txt"};
	b = run_docs(sock, sockn, 2);
	d = tdb_diag(b, "infer.transport_socket");
	CHECK(d && strstr(d->explanation, "NET/Socket"));
	bundle_free(b);
	b = run_docs(sock, sockn, 1);
	CHECK(tdb_diag(b, "infer.transport_socket") == NULL);
	bundle_free(b);
}

static int steps_have(const struct bundle *b, const char *what)
{
	struct strvec sv = {0};
	next_steps(b, &sv);
	int found = 0;
	for (size_t i = 0; i < sv.n; i++)
		found |= strstr(sv.v[i], what) != NULL;
	strvec_free(&sv);
	return found;
}

/* Next steps ask only for what would change or confirm the answer; fix
 * commands carry the values of the evidence (the port). */
static void test_next_steps(void)
{
	struct bundle *b = tdb_run_text(&db, "run.log",
		"torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29635, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use\n");
	struct strvec sv = {0};
	next_steps(b, &sv);
	CHECK_INT(sv.n, 0); /* certain: nothing to collect */
	strvec_free(&sv);
	cJSON *bj = report_bundle_json(b, 0);
	const cJSON *fix = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(json_get(bj, "diagnoses"), 0), "fix");
	const cJSON *f0 = cJSON_GetArrayItem(fix, 0);
	CHECK(cJSON_IsString(f0) && strstr(f0->valuestring, "grep :29635") && !strstr(f0->valuestring, "<port>"));
	cJSON_Delete(bj);
	bundle_free(b);

	/* a remote error: not certain; network and ordering matter, the
	 * topology and the versions do not */
	b = tdb_run_text(&db, "run.log",
		"torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, remote process exited or there was a network error, NCCL version 2.21.5\n");
	CHECK(steps_have(b, "NCCL_DEBUG=INFO"));
	CHECK(!steps_have(b, "No topology"));
	CHECK(!steps_have(b, "No versions"));
	bundle_free(b);


	/* nothing diagnosed at all (an excerpt of NCCL's start): every gap may matter */
	b = tdb_run_text(&db, "run.log", "jupyter-vmarkovtsev:15833:15833 [0] NCCL INFO NET/Socket : Using [0]eth0:10.2.3.32<0>\n");
	CHECK(tdb_top(b) == NULL);
	CHECK(steps_have(b, "No topology"));
	CHECK(steps_have(b, "No versions"));
	bundle_free(b);
}

static void test_words(void)
{
	CHECK(strcmp(confidence_word(0.93), "near certain") == 0);
	CHECK(strcmp(confidence_word(0.9), "near certain") == 0);
	CHECK(strcmp(confidence_word(0.89), "likely") == 0);
	CHECK(strcmp(confidence_word(0.55), "possible") == 0);
	CHECK(strcmp(confidence_word(0.35), "weak") == 0);
	CHECK(strcmp(confidence_word(0.2), "a guess") == 0);
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
	test_busy_timeout();
	test_collective_in_block();
	test_native_frames();
	test_launcher_record();
	test_single_process_peer();
	test_hypotheses();
	test_next_steps();
	test_init_stall();
	test_graph_file();
	test_transport();
	test_words();
	sigdb_free(&db);
	TEST_MAIN_END();
}
