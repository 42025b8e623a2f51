/* Tests of the clues that a generic result must not hide and of the
 * premises of issue 26's second pass (rules_derived.c refine_by_source and
 * the return-chain refinement, cascade.c refine_generic, verdict.c; the
 * premises added later in this file say what they test), over the whole
 * database (patterns/).  Every line is real: pasted in a learn-half thread
 * (tests/learn, tests/corpus, cited per case) or NCCL's own text.  Each case
 * also runs a variant with the one clue taken out, so that the test fails
 * when the clue stops mattering. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/analysis.h"
#include "engine/bundle.h"
#include "engine/diagnosis.h"
#include "engine/hypotheses.h"
#include "base/json.h"
#include "rules/rules.h"
#include "match/sigdb.h"
#include "base/util.h"
#include "testlib.h"
#include "testdb.h"

static struct sigdb db;

static int top_is(const struct bundle *b, const char *category)
{
	const struct diagnosis *t = tdb_top(b);
	int ok = t && strcmp(t->def->category, category) == 0;
	if (!ok)
		fprintf(stderr, "  top is %s (%s), want %s\n", t ? t->def->id : "(none)", t ? t->def->category : "-", category);
	return ok;
}

/* A generic CUDA error string in an NCCL WARN: the WARN's file names the
 * component.  tests/corpus/fabric-nccl-1705-nvls.log (NVIDIA/nccl#1705). */
static void test_source_file(void)
{
	const char *line = "[2025-05-10 23:09:41] bm-h100-02:630335:630409 [2] transport/nvls.cc:254 NCCL WARN Cuda failure 1 "
	                   "'invalid argument'\n";
	struct bundle *b = tdb_run_text(&db, "run.log", line);
	CHECK(top_is(b, "FABRIC_MANAGER"));
	const struct diagnosis *g = tdb_diag(b, "cuda.nccl_cuda_call_failed");
	CHECK(g && g->role == ROLE_CASCADE && g->refined_by && strcmp(g->refined_by, "derived.fabric_manager") == 0);
	CHECK(b->verdict == VERDICT_DIAGNOSED);
	CHECK(b->verdict_reason && strstr(b->verdict_reason, "transport/nvls.cc"));
	const struct diagnosis *t = tdb_top(b);
	CHECK(t && strstr(t->explanation, "only as a generic result") != NULL); /* not "no specific signature matched" */
	bundle_free(b);

	/* the clue taken out: the same WARN from init.cc names no component */
	char *plain = xstrdup(line), *at = strstr(plain, "transport/nvls.cc");
	memmove(at, at + strlen("transport/"), strlen(at + strlen("transport/")) + 1);
	memcpy(at, "init", 4); /* "init.cc:254" */
	b = tdb_run_text(&db, "run.log", plain);
	CHECK(top_is(b, "CUDA_ERROR_OTHER"));
	CHECK(tdb_diag(b, "derived.fabric_manager") == NULL);
	bundle_free(b);
	free(plain);

	/* a specific string is not generic: out of memory stays GPU_OOM
	 * (NCCL's CUDACHECK wording, src/include/checks.h) */
	b = tdb_run_text(&db, "run.log", "node1:4242:4242 [0] transport/nvls.cc:254 NCCL WARN Cuda failure 2 'out of memory'\n");
	CHECK(top_is(b, "GPU_OOM"));
	bundle_free(b);
}

/* A generic result with no WARN: the deepest frame of NCCL's return chain.
 * Two real pastes joined: PyTorch's line from
 * tests/learn/bug-pytorchexamples-611-torch11-unhandled-system.log
 * (pytorch/examples#611), the frame from
 * tests/learn/socket-nccl-1016-k8s-connection-abort.log (NVIDIA/nccl#1016). */
static void test_return_chain(void)
{
	const char *err = "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:272, unhandled system error\n";
	const char *frame = "pytorchjob-summarization-nvidia-debug-bp6y-ravi-agrawa-worker-0:116:236 [3] NCCL INFO misc/socket.cc:561 -> 2\n";
	char *both = xasprintf("%s%s", frame, err);
	struct bundle *b = tdb_run_text(&db, "run.log", both);
	CHECK(top_is(b, "SOCKET_NETWORK"));
	const struct diagnosis *t = tdb_top(b);
	CHECK(t && t->def->derived && strstr(t->explanation, "return chain") != NULL);
	CHECK(tdb_diag(b, "derived.other") == NULL); /* the generic reading became its echo (dropped) */
	bundle_free(b);
	free(both);

	/* without the frame: the generic reading */
	b = tdb_run_text(&db, "run.log", err);
	CHECK(top_is(b, "OTHER"));
	bundle_free(b);

	/* a frame that names no component (init.cc) adds nothing */
	both = xasprintf("pytorchjob-summarization-nvidia-debug-bp6y-ravi-agrawa-worker-0:116:236 [3] NCCL INFO init.cc:561 -> 2\n%s", err);
	b = tdb_run_text(&db, "run.log", both);
	CHECK(top_is(b, "OTHER"));
	bundle_free(b);
	free(both);
}

/* A return chain through NCCL's bootstrap or socket code in a process that
 * never reached Init COMPLETE is the failure (rules_derived.c
 * bootstrap_chain_in_init): tests/learn/socket-nccl-1000-dgx-ipoib-oob-bootstrap.log
 * (NVIDIA/nccl#1000, learn).  The same chain in a process that went on to
 * Init COMPLETE is a step it got past; a chain in other code with no
 * failure elsewhere is no failure either. */
static void test_bootstrap_chain(void)
{
	const char *chain = "dso-s1-r1-a100-03:2330:2658 [2] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB/SHARP\n"
	                    "dso-s1-r1-a100-03:2330:2658 [2] NCCL INFO misc/socket.cc:567 -> 2\n"
	                    "dso-s1-r1-a100-03:2330:2658 [2] NCCL INFO misc/socket.cc:618 -> 2\n"
	                    "dso-s1-r1-a100-03:2330:2658 [2] NCCL INFO bootstrap.cc:270 -> 2\n";
	struct bundle *b = tdb_run_text(&db, "run.log", chain);
	CHECK(top_is(b, "SOCKET_NETWORK"));
	bundle_free(b);

	char *done = xasprintf("%sdso-s1-r1-a100-03:2330:2658 [2] NCCL INFO ncclCommInitRank comm 0x5615c0cb6a40 rank 2 "
	                       "nranks 8 cudaDev 2 busId 47000 - Init COMPLETE\n", chain);
	b = tdb_run_text(&db, "run.log", done);
	CHECK(!top_is(b, "SOCKET_NETWORK"));
	bundle_free(b);
	free(done);

	b = tdb_run_text(&db, "run.log", "dso-s1-r1-a100-03:2330:2658 [2] NCCL INFO graph/xml.cc:567 -> 2\n");
	CHECK(tdb_diag(b, "derived.other") == NULL && !top_is(b, "SOCKET_NETWORK"));
	bundle_free(b);
}

/* A rank stuck in init after NCCL chose a link-local address, with the
 * other ranks not in view (rules_infer.c rule_init_hang_on_bridge):
 * tests/learn/socket-horovod-110-br0-linklocal.log (horovod/horovod#110,
 * learn), NCCL 2.3.5's "rank 0 nranks 4".  Without the interface line it is
 * no socket finding. */
static void test_init_hang_on_bridge(void)
{
	const char *head = "lf-solar-gpu13-pm:473785:473811 [0] NCCL INFO NET : Using interface br0:10.9.22.45<0>\n";
	const char *bridge = "lf-solar-gpu13-pm:473785:473811 [0] NCCL INFO NET : Using interface bond0:fe80::ae1f:6bff:fe20:f588%bond0<0>\n";
	const char *tail = "NCCL version 2.3.5+cuda9.0\n"
	                   "lf-solar-gpu13-pm:473785:473811 [0] NCCL INFO rank 0 nranks 4\n";
	char *all = xasprintf("%s%s%s", head, bridge, tail);
	struct bundle *b = tdb_run_text(&db, "run.log", all);
	CHECK(top_is(b, "SOCKET_NETWORK"));
	CHECK(tdb_diag(b, "infer.init_hang_on_bridge") != NULL);
	bundle_free(b);
	free(all);
	all = xasprintf("%s%s", head, tail);
	b = tdb_run_text(&db, "run.log", all);
	CHECK(tdb_diag(b, "infer.init_hang_on_bridge") == NULL);
	bundle_free(b);
	free(all);
}

/* A diagnosis that blames a user action checks that the action is visible.
 * tests/learn/bug-nccl-1125-xml-busid-usb-nic.log (NVIDIA/nccl#1125): NCCL
 * detected the topology itself (a USB NIC, then the busid WARN); nothing
 * sets NCCL_TOPO_FILE, so "the topology file you gave" is a lead, and the
 * defect the line before the failure points at comes first. */
static void test_blamed_action(void)
{
	const char *usb = "clima:810632:810657 [0] NCCL INFO Topology detection: network path "
	                  "/sys/devices/pci0000:2b/0000:2b:08.1/0000:2e:00.3/usb1/1-1/1-1.2/1-1.2:2.0 is not a PCI device (usb). "
	                  "Attaching to first CPU\n";
	const char *warn = "clima:810632:810657 [0] graph/xml.h:85 NCCL WARN Attribute busid of node nic not found\n";
	char *both = xasprintf("%s%s", usb, warn);
	struct bundle *b = tdb_run_text(&db, "run.log", both);
	CHECK(top_is(b, "NCCL_BUG_UPGRADE"));
	const struct diagnosis *t = tdb_diag(b, "env.topo_file_invalid");
	CHECK(t && t->unseen_action && t->role == ROLE_CONTEXT && strstr(t->explanation, "lead, not the answer"));
	CHECK(b->verdict == VERDICT_DIAGNOSED && strstr(b->verdict_reason, "bug.nic_not_pci_busid_2_20"));
	bundle_free(b);
	free(both);

	/* the action shown (the variable set, in NCCL's own words: the
	 * "set by environment" form of NCCL's env.cc, the path of
	 * tests/learn/env-azhpc-327-graph-file-dev-not-found.log): the
	 * topology file is the answer again */
	both = xasprintf("clima:810632:810657 [0] NCCL INFO NCCL_TOPO_FILE set by environment to /opt/microsoft/ncv4/topo.xml\n%s",
	                 warn);
	b = tdb_run_text(&db, "run.log", both);
	t = tdb_diag(b, "env.topo_file_invalid");
	CHECK(t && !t->unseen_action && t->role == ROLE_ROOT);
	CHECK(top_is(b, "ENV_MISCONFIG"));
	bundle_free(b);
	free(both);

	/* without the line before it (no non-PCI NIC) the defect does not hold */
	b = tdb_run_text(&db, "run.log", warn);
	CHECK(tdb_diag(b, "bug.nic_not_pci_busid_2_20") == NULL);
	bundle_free(b);
}

/* A store connection lost mid-job points at the process that hosted the
 * store (rules_infer.c rule_store_lost).  Two real lines joined: rank 1's
 * Init COMPLETE from fixtures/captures (torch 2.11, NCCL 2.28.9) and the
 * TCPStore client's line of patterns/rendezvous.json's sample (PyTorch
 * Utils.hpp recvBytes). */
static void test_store_host(void)
{
	const char *init = "vm:3015:3015 [1] NCCL INFO ncclCommInitRankConfig comm 0x120408c0 rank 1 nranks 2 cudaDev 1 nvmlDev 1 "
	                   "busId 70 commId 0x3634fdbb33b62536 - Init COMPLETE\n";
	const char *lost = "[rank1]:[W901 07:40:19.968570826 TCPStore.cpp:125] [c10d] recvValue failed on SocketImpl(fd=64, "
	                   "addr=[localhost]:35986, remote=[localhost]:45489): Failed to recv, got 0 bytes. Connection was likely "
	                   "closed. Did the remote server shutdown or crash?\n";
	char *both = xasprintf("%s%s", init, lost);
	struct bundle *b = tdb_run_text(&db, "run.log", both);
	CHECK(top_is(b, "RANK_FAILURE"));
	const struct diagnosis *t = tdb_top(b);
	CHECK(t && strcmp(t->def->id, "infer.store_host_died") == 0 && t->nranks == 1 && t->ranks[0] == 0);
	bundle_free(b);
	free(both);
	/* before the rendezvous was over (no process past init): the store is the rendezvous's */
	b = tdb_run_text(&db, "run.log", lost);
	CHECK(tdb_diag(b, "infer.store_host_died") == NULL);
	CHECK(top_is(b, "RENDEZVOUS"));
	bundle_free(b);
}

/* The rank a c10d record names as its own ("[Rank 1] NCCL watchdog ...",
 * "[PG 1 Rank 1] ...") is the evidence's rank (bundle.c msg_self_rank), and
 * a rank missing from the timeouts of ranks 0..N is the one elsewhere
 * (rules_infer.c rule_timeout_missing).
 * tests/learn/cuda-kohya-1434-ecc-rank1.log (kohya-ss/sd-scripts#1434),
 * tests/learn/collective-ufld-119-eval-stuck.log
 * (cfzd/Ultra-Fast-Lane-Detection-v2#119: its lines differ only in the rank
 * and the milliseconds; the test keeps one duration). */
static void test_self_rank(void)
{
	struct bundle *b = tdb_run_text(&db, "run.log", "[E ProcessGroupNCCL.cpp:916] [Rank 1] NCCL watchdog thread terminated with "
	                                       "exception: CUDA error: uncorrectable ECC error encountered\n");
	const struct diagnosis *t = tdb_top(b);
	CHECK(t && t->nranks == 1 && t->ranks[0] == 1);
	bundle_free(b);
	/* "Rank 1" not in a c10d bracket is no rank of the line */
	b = tdb_run_text(&db, "run.log", "RuntimeError: CUDA error: uncorrectable ECC error encountered on Rank 1]\n");
	t = tdb_top(b);
	CHECK(t && t->nranks == 0);
	bundle_free(b);

	const char *w = "[E ProcessGroupNCCL.cpp:821] [Rank %d] Watchdog caught collective operation timeout: "
	                "WorkNCCL(SeqNum=4178, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1803391 milliseconds before timing out.\n";
	char *l3 = xasprintf(w, 3), *l1 = xasprintf(w, 1), *l2 = xasprintf(w, 2), *l0 = xasprintf(w, 0);
	char *three = xasprintf("Evaluating the results...\n%s%s%s", l3, l1, l2);
	b = tdb_run_text(&db, "run.log", three);
	t = tdb_top(b);
	CHECK(t && strcmp(t->def->id, "infer.timeout_rank_elsewhere") == 0 && t->nranks == 1 && t->ranks[0] == 0);
	bundle_free(b);
	/* every rank timed out: nobody was elsewhere */
	char *four = xasprintf("%s%s", three, l0);
	b = tdb_run_text(&db, "run.log", four);
	CHECK(tdb_diag(b, "infer.timeout_rank_elsewhere") == NULL);
	CHECK(top_is(b, "COLLECTIVE_TIMEOUT"));
	bundle_free(b);
	free(l0), free(l1), free(l2), free(l3), free(three), free(four);
}

/* The call before the error with the result code: ncclCommInitRank
 * returning invalid usage.  tests/learn/device-vllm-16978-dp-cuda-visible-devices.log
 * (vllm-project/vllm#16978). */
static void test_init_invalid_usage(void)
{
	const char *call = "    self.NCCL_CHECK(self._funcs[\"ncclCommInitRank\"](ctypes.byref(comm),\n";
	const char *rest = "  File \"/mnt/workspace/zhr/vllm_official/vllm/distributed/device_communicators/pynccl_wrapper.py\", line 256, in NCCL_CHECK\n"
	                   "    raise RuntimeError(f\"NCCL error: {error_str}\")\n"
	                   "RuntimeError: NCCL error: invalid usage (run with NCCL_DEBUG=WARN for details)\n";
	char *both = xasprintf("%s%s", call, rest);
	struct bundle *b = tdb_run_text(&db, "run.log", both);
	CHECK(top_is(b, "DEVICE_ASSIGNMENT"));
	bundle_free(b);
	free(both);
	/* without the call line: the generic reading */
	b = tdb_run_text(&db, "run.log", rest);
	CHECK(tdb_diag(b, "infer.init_invalid_usage_dup_gpu") == NULL);
	CHECK(top_is(b, "OTHER"));
	bundle_free(b);
}

/* Host RAM near full close to the end of a log makes the OOM killer a
 * suspect (hypotheses.c host_ram_high).  DeepSpeed's see_memory_usage line
 * as a format instance (runtime/utils.py: "CPU Virtual Memory:  used = %s
 * GB, percent = %s%%"; the real line of patterns/pyframeworks.json with the
 * figures changed), then the watchdog record of
 * tests/learn/collective-bergson-444-rank0work.log (EleutherAI/bergson#444). */
static int hyp_tells(const struct bundle *b, const char *cat, const char *word)
{
	cJSON *h = hypotheses_json(b);
	int found = 0;
	const cJSON *x;
	cJSON_ArrayForEach(x, h)
		found |= json_str(x, "category") && strcmp(json_str(x, "category"), cat) == 0 && json_str(x, "tell_apart") &&
		         strstr(json_str(x, "tell_apart"), word) != NULL;
	cJSON_Delete(h);
	return found;
}

static void test_host_ram(void)
{
	const char *wd = "    Watchdog caught collective operation timeout\n";
	char *hi = xasprintf("[INFO] [utils.py:791:see_memory_usage] CPU Virtual Memory:  used = 241.90 GB, percent = 97.3%%\n%s", wd);
	struct bundle *b = tdb_run_text(&db, "run.log", hi);
	CHECK(hyp_tells(b, "RANK_FAILURE", "killed process"));
	bundle_free(b);
	free(hi);
	char *lo = xasprintf("[INFO] [utils.py:791:see_memory_usage] CPU Virtual Memory:  used = 15.56 GB, percent = 12.4%%\n%s", wd);
	b = tdb_run_text(&db, "run.log", lo);
	CHECK(!hyp_tells(b, "RANK_FAILURE", "killed process"));
	bundle_free(b);
	free(lo);
}

/* Measured bandwidth judged against what the topology allows
 * (rules_infer.c rule_bandwidth).  Three real sources joined to build a case
 * none shows whole: the 2-GPU NV18 matrix of fixtures/captures/h200-2gpu/sys/topo-m.txt,
 * two device lines of nccl-tests' header from
 * tests/learn/healthy-nccl-583-a100-mpirun-header.log (NVIDIA/nccl#583) and
 * the column header of tests/learn/healthy-nccltests-249-g5-single-rank-busbw0.log
 * (NVIDIA/nccl-tests#249; both with their '#' restored: markdown ate it),
 * and the all_reduce rows of
 * tests/learn/healthy-gardenlinux-4556-nccltests-p2p-off.log
 * (gardenlinux/gardenlinux#4556: a run with P2P disabled). */
static void test_bandwidth(void)
{
	char *topo = tdb_slurp("fixtures/captures/h200-2gpu/sys/topo-m.txt");
	const char *nt =
		"# nThread 1 nGpus 1 minBytes 32 maxBytes 8589934592 step: 2(factor) warmup iters: 5       iters: 20 validation: 1 single_test: 0 test_buffer_kind: 2\n"
		"#\n"
		"# Using devices\n"
		"#   Rank  0 Pid 1821213 on AI-A100-Beethoven01 device  0 [0x00] NVIDIA A100-SXM4-40GB\n"
		"#   Rank  1 Pid 1821214 on AI-A100-Beethoven01 device  1 [0x00] NVIDIA A100-SXM4-40GB\n"
		"#\n"
		"#                                                              out-of-place                       in-place          \n"
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
		"#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       \n"
		"    33554432       8388608     float     sum      -1   2762.6   12.15   18.22      0   2764.5   12.14   18.21      0\n"
		"    67108864      16777216     float     sum      -1   5484.4   12.24   18.35      0   5473.4   12.26   18.39      0\n"
		"   134217728      33554432     float     sum      -1    10961   12.25   18.37      0    10857   12.36   18.54      0\n"
		"   536870912     134217728     float     sum      -1    42915   12.51   18.76      0    42866   12.52   18.79      0\n"
		"# Out of bounds values : 0 OK\n"
		"# Avg bus bandwidth    : 7.48202 \n";
	CHECK(topo != NULL);
	struct bundle *b = bundle_new("t", &db, NULL);
	bundle_add_memory(b, "topo-m.txt", topo ? topo : "", topo ? strlen(topo) : 0);
	bundle_add_memory(b, "nccl-tests.log", nt, strlen(nt));
	analysis_finish(b);
	CHECK(tdb_diag(b, "infer.busbw_far_under_nvlink") != NULL);
	CHECK(b->verdict == VERDICT_HEALTHY); /* a warning for a performance question: the run completed */
	bundle_free(b);
	/* without the topology nothing says what the path allows */
	b = tdb_run_text(&db, "nccl-tests.log", nt);
	CHECK(tdb_diag(b, "infer.busbw_far_under_nvlink") == NULL);
	bundle_free(b);
	free(topo);
}

/* One interface name exported to hosts whose interfaces differ
 * (rules_infer.c rule_ifname_hosts).  Real lines of two reports joined:
 * gpu01's from tests/learn/env-nccl-676-ibext-ignores-ib-disable.log
 * (NVIDIA/nccl#676), vm's from fixtures/captures (NCCL_SOCKET_IFNAME naming
 * no interface of that host). */
static void test_ifname_hosts(void)
{
	const char *ok = "gpu01:138879:138879 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to en\n"
	                 "gpu01:138879:138879 [0] NCCL INFO Bootstrap : Using enp225s0f1:10.10.10.2<0>\n";
	const char *none = "[2026-11-30 14:16:13] vm:1159:1159 [0] bootstrap.cc:114 NCCL WARN Bootstrap : no socket interface found\n";
	char *both = xasprintf("%s%s", ok, none);
	struct bundle *b = tdb_run_text(&db, "run.log", both);
	const struct diagnosis *t = tdb_top(b);
	CHECK(t && strcmp(t->def->id, "infer.ifname_differs_across_hosts") == 0);
	bundle_free(b);
	free(both);
	/* one host only: the plain "no interface" reading */
	b = tdb_run_text(&db, "run.log", none);
	CHECK(tdb_diag(b, "infer.ifname_differs_across_hosts") == NULL);
	CHECK(top_is(b, "SOCKET_NETWORK"));
	bundle_free(b);
}

/* Measured P2P bandwidth against the staged copy (rules_infer.c
 * rule_p2p_bandwidth): tests/learn/p2p-mlengineering-1-a6000.log
 * (stas00/ml-engineering#1). */
static void test_p2p_bandwidth(void)
{
	char *t = tdb_slurp("tests/learn/p2p-mlengineering-1-a6000.log");
	CHECK(t != NULL);
	struct bundle *b = tdb_run_text(&db, "p2p.txt", t ? t : "");
	const struct diagnosis *d = tdb_top(b);
	CHECK(d && strcmp(d->def->id, "infer.p2p_path_broken") == 0);
	bundle_free(b);
	/* the P2P=Enabled matrix taken out: nothing to compare */
	char *cut = t ? strstr(t, "Unidirectional P2P=Enabled") : NULL;
	if (cut)
		*cut = 0;
	b = tdb_run_text(&db, "p2p.txt", t ? t : "");
	CHECK(tdb_diag(b, "infer.p2p_path_broken") == NULL);
	bundle_free(b);
	free(t);
}

/* rules_derived.c asks derive_match once per distinct input (its memo):
 * the same generic WARN from two files, each line three times, still
 * refines by each line's own file (the memo's key holds the file), and
 * every repeat counts as its first did. */
static void test_derive_memo(void)
{
	static const char *const W[] = {
	    "[2025-05-10 23:09:41] bm-h100-02:630335:630409 [2] transport/nvls.cc:254 NCCL WARN Cuda failure 1 'invalid argument'\n",
	    "[2025-05-10 23:09:41] bm-h100-03:630336:630410 [3] transport/p2p.cc:254 NCCL WARN Cuda failure 1 'invalid argument'\n"};
	struct buf t;
	buf_init(&t);
	for (int rep = 0; rep < 3; rep++)
		for (int i = 0; i < 2; i++)
			buf_adds(&t, W[i]);
	struct bundle *b = tdb_run_text(&db, "run.log", t.data);
	CHECK_INT(evlist_count(&b->ev, "derived.fabric_manager"), 3);
	CHECK_INT(evlist_count(&b->ev, "derived.p2p_broken"), 3);
	bundle_free(b);
	for (int i = 0; i < 2; i++) { /* each file alone: its own category only */
		b = tdb_run_text(&db, "run.log", W[i]);
		CHECK_INT(evlist_count(&b->ev, "derived.fabric_manager"), i == 0);
		CHECK_INT(evlist_count(&b->ev, "derived.p2p_broken"), i == 1);
		bundle_free(b);
	}
	buf_free(&t);
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
	test_source_file();
	test_return_chain();
	test_bootstrap_chain();
	test_init_hang_on_bridge();
	test_blamed_action();
	test_store_host();
	test_self_rank();
	test_init_invalid_usage();
	test_host_ram();
	test_bandwidth();
	test_ifname_hosts();
	test_p2p_bandwidth();
	test_derive_memo();
	sigdb_free(&db);
	TEST_MAIN_END();
}
