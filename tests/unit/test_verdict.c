/* Tests of the verdict (verdict.c), the benign list (patterns/benign.json,
 * bundle.c) and the exit records and launcher rules that feed them
 * (ranks.c, rules_ranks.c).  Every line is real output: the 2 x H200
 * captures in fixtures/captures (torch 2.11, NCCL 2.28.9), or public issue
 * threads cited beside them.  Where a test joins lines of two real captures
 * to build a case no single capture shows, the comment says so.  The
 * database is tests/db-min plus patterns/ranks.json (with patterns/infer.json, an echo target of it) and patterns/benign.json. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/analysis.h"
#include "engine/bundle.h"
#include "engine/correlate.h"
#include "parse/ranks.h"
#include "rules/rules.h"
#include "match/sigdb.h"
#include "testlib.h"
#include "testdb.h"

static struct sigdb db;

static const char *top_id(const struct bundle *b)
{
	return b->ndiags ? b->diags[0].def->id : "(none)";
}

static int reason_has(const struct bundle *b, const char *s)
{
	int ok = b->verdict_reason && strstr(b->verdict_reason, s) != NULL;
	if (!ok)
		fprintf(stderr, "  verdict_reason \"%s\" lacks \"%s\"\n", b->verdict_reason ? b->verdict_reason : "(null)", s);
	return ok;
}

/* torchrun's banner (fixtures/captures/h200-2gpu-more/rdzv_nnodes2_static/run.log, lines 1-4) */
#define BANNER \
	"W1130 15:04:37.812000 2891 torch/distributed/run.py:851] \n" \
	"W1130 15:04:37.812000 2891 torch/distributed/run.py:851] *****************************************\n" \
	"W1130 15:04:37.812000 2891 torch/distributed/run.py:851] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. \n" \
	"W1130 15:04:37.812000 2891 torch/distributed/run.py:851] *****************************************\n"

/* torch 2.11's exit warning of a rank that did not destroy its process
 * group (fixtures/captures/h200-2gpu/scenarios/oom_unshard/run.log) */
#define DESTROY_WARN \
	"[rank0]:[W1130 14:17:06.712116843 ProcessGroupNCCL.cpp:1575] Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())\n"

int main(void)
{
	struct msgs m = {0};
	sigdb_init(&db);
	rules_register(&db);
	CHECK_INT(sigdb_load_dir(&db, "tests/db-min", &m), 0);
	const char *files[] = {"patterns/ranks.json", "patterns/infer.json", "patterns/benign.json"};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char *t = tdb_slurp(files[i]);
		CHECK(t != NULL);
		CHECK_INT(sigdb_load_text(&db, files[i], t ? t : "{}", t ? strlen(t) : 2, &m), 0);
		free(t);
	}
	CHECK_INT(sigdb_finalize(&db, &m), 0);
	for (size_t i = 0; i < m.list.n; i++)
		fprintf(stderr, "  %s\n", m.list.v[i]);
	size_t ok = 0;
	CHECK_INT(sigdb_selftest(&db, &m, &ok), 0);

	/* 1. a launcher banner with nothing after it: not healthy, the job never formed */
	struct bundle *b = tdb_run_text(&db, "run.log", BANNER);
	CHECK_INT(b->verdict, VERDICT_DIAGNOSED);
	CHECK_STR(top_id(b), "ranks.launcher_only");
	CHECK_STR(b->diags[0].def->category, "RENDEZVOUS");
	bundle_free(b);
	/* ... with the wrapper's exit record of a job killed by SIGKILL (the
	 * captures' result.txt format: fixtures/captures/h200-2gpu-more/README.md) */
	b = bundle_new("t", &db, NULL);
	bundle_add_memory(b, "run.log", BANNER, strlen(BANNER));
	bundle_add_memory(b, "result.txt", "exit=137 ms=150004\n", 19);
	analysis_finish(b);
	CHECK_INT(b->verdict, VERDICT_DIAGNOSED);
	CHECK_STR(top_id(b), "ranks.launcher_only");
	CHECK(b->ndiags && b->diags[0].title && strstr(b->diags[0].title, "killed by SIGKILL") != NULL);
	CHECK_INT(b->ranks->job_exit, 137);
	bundle_free(b);
	/* ... and a banner followed by a clean exit record is not a failure */
	b = bundle_new("t", &db, NULL);
	bundle_add_memory(b, "run.log", BANNER, strlen(BANNER));
	bundle_add_memory(b, "result.txt", "exit=0 ms=8799\n", 15);
	analysis_finish(b);
	CHECK(b->verdict == VERDICT_HEALTHY);
	CHECK(tdb_diag(b, "ranks.launcher_only") == NULL);
	bundle_free(b);

	/* 2. a successful run with a harmless warning at shutdown: healthy.
	 * fixtures/captures/h200-2gpu-more/ok_unset/run.log (torch 2.11, no
	 * NCCL_DEBUG) followed by torch 2.11's exit warning from another capture
	 * of the same host and version (oom_unshard): joined for this test. */
	char *okunset = tdb_slurp("fixtures/captures/h200-2gpu-more/ok_unset/run.log");
	CHECK(okunset != NULL);
	if (okunset) {
		struct buf t;
		buf_init(&t);
		buf_adds(&t, okunset);
		buf_adds(&t, DESTROY_WARN);
		b = tdb_run_text(&db, "run.log", t.data);
		CHECK_INT(b->verdict, VERDICT_HEALTHY);
		CHECK_INT(b->failure_count, 0);
		CHECK_INT(b->benign_lines, 1);
		bundle_free(b);
		buf_free(&t);
		free(okunset);
	}
	/* the warning alone is no sign of a run */
	b = tdb_run_text(&db, "run.log", DESTROY_WARN);
	CHECK_INT(b->verdict, VERDICT_NO_EVIDENCE);
	bundle_free(b);

	/* 3. a rank that exited with status 1 after init: a RANK_FAILURE, never
	 * healthy.  The init of fixtures/captures/h200-2gpu-more/ok_timestamps
	 * (both ranks reach Init COMPLETE) joined with the torchrun failure block
	 * of fixtures/captures/h200-2gpu/scenarios/oom_unshard (rank 1, exitcode 1,
	 * the root cause) for this test: no signature knows why the rank exited. */
	const char *exit1 =
		"[2026-11-30 15:03:14] vm:1329:1329 [0] NCCL INFO ncclCommInitRankConfig comm 0x29133540 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 60 commId 0x9b5e86d27a94d7f2 - Init COMPLETE\n"
		"[2026-11-30 15:03:14] vm:1330:1330 [1] NCCL INFO ncclCommInitRankConfig comm 0x3c32dfa0 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 70 commId 0x9b5e86d27a94d7f2 - Init COMPLETE\n"
		"torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
		"============================================================\n"
		"/srv/job/train.py FAILED\n"
		"------------------------------------------------------------\n"
		"Failures:\n"
		"  <NO_OTHER_FAILURES>\n"
		"------------------------------------------------------------\n"
		"Root Cause (first observed failure):\n"
		"[0]:\n"
		"  time      : 2026-11-30_14:17:07\n"
		"  host      : localhost\n"
		"  rank      : 1 (local_rank: 1)\n"
		"  exitcode  : 1 (pid: 1426)\n"
		"  error_file: <N/A>\n"
		"  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
		"============================================================\n";
	b = tdb_run_text(&db, "run.log", exit1);
	CHECK(b->verdict == VERDICT_UNKNOWN_FAILURE || b->verdict == VERDICT_DIAGNOSED);
	const struct diagnosis *d = tdb_diag(b, "ranks.exited_with_error");
	CHECK(d != NULL);
	if (d) {
		CHECK_STR(d->def->category, "RANK_FAILURE");
		CHECK_INT(d->nranks, 1);
		CHECK_INT(d->nranks ? d->ranks[0] : -1, 1);
		CHECK(d->def->derived);
		CHECK(strstr(d->explanation, "Derived from") != NULL);
	}
	bundle_free(b);

	/* 4. Slurm and Open MPI exit reports are launcher records too
	 *    https://github.com/OptimalScale/LMFlow/issues/471 has srun's form;
	 *    the lines below are quoted in public repositories (code index) */
	b = tdb_run_text(&db, "slurm.log",
		"srun: error: sn30-r1-h1: task 0: Exited with exit code 1\n"
		"srun: Terminating job step 30399.0\n"
		"slurmstepd: error: *** STEP 30399.0 ON sn30-r1-h1 CANCELLED AT 2024-04-03T09:40:00 ***\n");
	CHECK(b->verdict != VERDICT_HEALTHY && b->verdict != VERDICT_NO_EVIDENCE);
	CHECK(tdb_diag(b, "ranks.exited_with_error") != NULL);
	CHECK(b->ranks->launcher_signalled);
	bundle_free(b);
	b = tdb_run_text(&db, "mpi.log",
		"mpirun noticed that process rank 14 with PID 4257 on node compute-0-2.local exited on signal 11 (Segmentation fault).\n");
	d = tdb_diag(b, "ranks.killed_by_signal");
	CHECK(d != NULL && d->nranks == 1 && d->ranks[0] == 14);
	bundle_free(b);
	b = tdb_run_text(&db, "slurm2.log", "srun: error: node30: tasks 0-1: Exited with exit code 1\n");
	d = tdb_diag(b, "ranks.exited_with_error");
	CHECK(d != NULL && d->nranks == 2);
	bundle_free(b);
	/* the plain launches' per-rank record: rank 1 SIGKILLed, rank 0 stopped by timeout(1) */
	b = tdb_run_text(&db, "result.txt", "exit=rank0:124 rank1:137 ms=50406\n");
	d = tdb_diag(b, "ranks.sigkill_oom_killer");
	CHECK(d != NULL && d->nranks == 1 && d->ranks[0] == 1);
	CHECK(d && strstr(d->title, "OOM killer, the scheduler or an operator") != NULL);
	bundle_free(b);

	/* 5. "Exception ignored in:" and its traceback are benign (a destructor
	 *    at interpreter exit); https://github.com/OptimalScale/LMFlow/issues/471 */
	b = tdb_run_text(&db, "ds.log",
		"Exception ignored in: <function DeepSpeedCPUAdam.__del__ at 0x7fce946893a0>\n"
		"Traceback (most recent call last):\n"
		"  File \"/root/anaconda3/envs/lmflow3/lib/python3.9/site-packages/deepspeed/ops/adam/cpu_adam.py\", line 102, in __del__\n"
		"    self.ds_opt_adam.destroy_adam(self.opt_id)\n"
		"AttributeError: 'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'\n"
		"Exception ignored in: <function DeepSpeedCPUAdam.__del__ at 0x7fef501d23a0>\n"
		"Traceback (most recent call last):\n"
		"  File \"/root/anaconda3/envs/lmflow3/lib/python3.9/site-packages/deepspeed/ops/adam/cpu_adam.py\", line 102, in __del__\n"
		"AttributeError: 'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'\n");
	CHECK_INT(b->failure_count, 0);
	CHECK_INT(b->benign_lines, 9);
	CHECK(b->verdict != VERDICT_HEALTHY); /* benign lines alone show no run */
	CHECK(b->verdict != VERDICT_UNKNOWN_FAILURE && b->verdict != VERDICT_DIAGNOSED);
	bundle_free(b);
	/* the block ends at its exception line: a traceback after it counts */
	b = tdb_run_text(&db, "ds2.log",
		"Exception ignored in: <function DeepSpeedCPUAdam.__del__ at 0x7fce946893a0>\n"
		"Traceback (most recent call last):\n"
		"  File \"/root/anaconda3/envs/lmflow3/lib/python3.9/site-packages/deepspeed/ops/adam/cpu_adam.py\", line 102, in __del__\n"
		"AttributeError: 'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'\n"
		"Traceback (most recent call last):\n"
		"  File \"/root/anaconda3/envs/lmflow3/lib/python3.9/site-packages/deepspeed/ops/adam/cpu_adam.py\", line 96, in __init__\n"
		"AttributeError: 'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'\n");
	CHECK_INT(b->failure_count, 2);
	CHECK(b->verdict == VERDICT_UNKNOWN_FAILURE || b->verdict == VERDICT_DIAGNOSED);
	bundle_free(b);

	/* 6. system reports only: no run, findings listed */
	char *topo = tdb_slurp("fixtures/captures/h200-2gpu/sys/topo-m.txt");
	CHECK(topo != NULL);
	if (topo) {
		b = tdb_run_text(&db, "topo-m.txt", topo);
		CHECK_INT(b->verdict, VERDICT_NO_EVIDENCE);
		CHECK(reason_has(b, "system reports only"));
		bundle_free(b);
		free(topo);
	}

	/* 7. a healthy capture is healthy, and says why without claiming more */
	char *ok1 = tdb_slurp("fixtures/captures/h200-2gpu-more/ok_timestamps/run.log");
	CHECK(ok1 != NULL);
	if (ok1) {
		b = tdb_run_text(&db, "run.log", ok1);
		CHECK_INT(b->verdict, VERDICT_HEALTHY);
		CHECK(reason_has(b, "got past init"));
		bundle_free(b);
		/* an excerpt that stops before Init COMPLETE: never healthy */
		char *cut = strstr(ok1, "ncclCommInitRankConfig comm 0x29133540 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 60 commId 0x9b5e86d27a94d7f2 - Init START");
		CHECK(cut != NULL);
		if (cut) {
			char *nl = strchr(cut, '\n');
			if (nl)
				nl[1] = 0;
			b = tdb_run_text(&db, "run.log", ok1);
			CHECK(b->verdict != VERDICT_HEALTHY);
			bundle_free(b);
		}
		free(ok1);
	}
	/* an excerpt of init, the first lines only (nothing completed, nothing failed) */
	b = tdb_run_text(&db, "run.log",
		"vm:1329:1329 [0] NCCL INFO Bootstrap: Using eth0:192.0.2.2<0>\n"
		"vm:1329:1329 [0] NCCL INFO cudaDriverVersion 13000\n");
	CHECK_INT(b->verdict, VERDICT_NO_EVIDENCE);
	CHECK(reason_has(b, "Init COMPLETE"));
	bundle_free(b);

	/* a log that ends with a collective call and nothing after it: not healthy.
	 * fixtures/captures/h200-2gpu-more/env_subsys_coll/run.log (NCCL_DEBUG_SUBSYS=COLL)
	 * cut after its last "AllReduce: opCount" line; whole, it is healthy */
	char *coll = tdb_slurp("fixtures/captures/h200-2gpu-more/env_subsys_coll/run.log");
	CHECK(coll != NULL);
	if (coll) {
		b = tdb_run_text(&db, "run.log", coll);
		CHECK_INT(b->verdict, VERDICT_HEALTHY);
		bundle_free(b);
		char *last = NULL, *q = coll;
		while ((q = strstr(q, "AllReduce: opCount")) != NULL)
			last = q++;
		CHECK(last != NULL);
		if (last && strchr(last, '\n')) {
			strchr(last, '\n')[1] = 0;
			b = tdb_run_text(&db, "run.log", coll);
			CHECK_INT(b->verdict, VERDICT_NO_EVIDENCE);
			CHECK(reason_has(b, "stops inside a collective"));
			bundle_free(b);
		}
		free(coll);
	}

	/* 8. in a timeout, the rank that is behind, not the one that waited:
	 * lines 148, 149 and 157 of fixtures/captures/h200-2gpu-more/torch_async_eh_off_timeout/run.log
	 * (rank 1 saving a checkpoint, rank 0's watchdog, rank 1 only seeing the dump signal) */
	b = tdb_run_text(&db, "run.log",
		"[rank1]  saving checkpoint\n"
		"[rank0]:[E1130 15:04:54.835190787 ProcessGroupNCCL.cpp:689] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=15000) ran for 15040 milliseconds before timing out.\n"
		"[rank1]:[E1130 15:04:59.262869997 ProcessGroupNCCL.cpp:1849] [PG ID 0 PG GUID 0(default_pg) Rank 1] Observed flight recorder dump signal from another rank via TCPStore.\n");
	d = tdb_diag(b, "ranks.behind_no_timeout");
	CHECK(d != NULL && d->nranks == 1 && d->ranks[0] == 1);
	CHECK_STR(top_id(b), "ranks.behind_no_timeout");
	CHECK(d && strstr(d->title, "Rank 1 is behind") != NULL);
	bundle_free(b);

	/* 9. rank labels never say -1 */
	b = tdb_run_text(&db, "result.txt", "exit=137 ms=150004\n");
	for (size_t i = 0; i < b->ndiags; i++) {
		CHECK(strstr(b->diags[i].title, "-1") == NULL);
		CHECK(strstr(b->diags[i].explanation, "rank -1") == NULL);
	}
	CHECK(b->verdict == VERDICT_UNKNOWN_FAILURE);
	bundle_free(b);

	/* 10. nccl-tests (nccltests_result in verdict.c): the footer with no
	 * wrong values is positive evidence; wrong values are a failure even
	 * when every NCCL process reached Init COMPLETE.  Lines from
	 * https://github.com/NVIDIA/nccl-tests/issues/369 (2 x GH200, 2.17.8)
	 * and /119 (the healthy tail), the NCCL line from fixtures/captures/h200-2gpu/scenarios. */
#define NT_HEAD \
	"#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong \n" \
	"#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         \n" \
	"     2097152        524288     float     sum      -1   338.61    6.19    6.19       0   351.38    5.97    5.97       0\n"
#define NT_WRONG_ROW \
	"     1048576        262144     float     sum      -1   477.32    2.20    2.20      96   492.81    2.13    2.13      32\n"
	b = tdb_run_text(&db, "nt.log", NT_HEAD "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 84.8558\n");
	CHECK_INT(b->verdict, VERDICT_HEALTHY);
	CHECK(reason_has(b, "nccl-tests ran"));
	bundle_free(b);
	b = tdb_run_text(&db, "nt.log", NT_HEAD NT_WRONG_ROW "# Out of bounds values : 4 FAILED\n# Avg bus bandwidth    : 4.79995 \n");
	CHECK_INT(b->verdict, VERDICT_UNKNOWN_FAILURE);
	CHECK(reason_has(b, "wrong values"));
	bundle_free(b);
	/* the footer alone says FAILED (a row cut away): still a failure */
	b = tdb_run_text(&db, "nt.log", NT_HEAD "# Out of bounds values : 4 FAILED\n# Avg bus bandwidth    : 4.79995 \n");
	CHECK_INT(b->verdict, VERDICT_UNKNOWN_FAILURE);
	bundle_free(b);
	/* wrong values beside NCCL's Init COMPLETE: never healthy */
	b = tdb_run_text(&db, "nt.log", "vm:1503:1503 [0] NCCL INFO ncclCommInitRankConfig comm 0xe1a7770 rank 0 nranks 2 cudaDev 0 "
	                       "nvmlDev 0 busId 60 commId 0xe7e70582ccba9c1b - Init COMPLETE\n"
	                       NT_HEAD NT_WRONG_ROW "# Out of bounds values : 4 FAILED\n# Avg bus bandwidth    : 4.79995 \n");
	CHECK(b->verdict != VERDICT_HEALTHY);
	bundle_free(b);

	sigdb_free(&db);
	msgs_free(&m);
	TEST_MAIN_END();
}
