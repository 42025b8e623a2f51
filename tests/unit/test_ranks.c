/* Tests of the rank timelines (ranks.c), the rank rules (rules_ranks.c),
 * cascade linking (cascade.c), the rank table and next steps.  Log lines
 * are real NCCL 2.28.9 / torch 2.11 output from fixtures/captures; the
 * bundle-level expectations are in fixtures/ranks/expected.tsv.  The
 * database is tests/db-min plus patterns/ranks.json (only the diagnoses
 * this module owns, so that other families cannot change the ranking). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/analysis.h"
#include "engine/bundle.h"
#include "engine/correlate.h"
#include "parse/linekw.h"
#include "parse/logline.h"
#include "engine/nextsteps.h"
#include "parse/ranks.h"
#include "report/ranktable.h"
#include "report/report.h"
#include "rules/rules.h"
#include "match/sigdb.h"
#include "testlib.h"
#include "testdb.h"

static struct sigdb db;

static void feed(struct ranks *r, const char *path, const char *text)
{
	uint64_t no = 0;
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);
		struct logline ll;
		logline_parse(text, n, &ll);
		ranks_note(r, &ll, path, ++no, 0);
		text += n + (nl ? 1 : 0);
	}
}

static void test_timestamps(void)
{
	double a = ranks_parse_ts("2026-11-30 14:16:25", 19);
	double b = ranks_parse_ts("[E1130 14:16:25.500000000 ProcessGroupNCCL.cpp:689] x", 52);
	double c = ranks_parse_ts("W1130 14:16:26.028000 1183 torch/distributed/run.py:851]", 56);
	double d = ranks_parse_ts("2026-11-30_14:16:25", 19);
	CHECK(a > 0);
	CHECK(b - a > 0.49 && b - a < 0.51);
	CHECK(c > b);
	CHECK(d == a);
	CHECK(ranks_parse_ts("vm:1224:1224 [0] NCCL INFO x", 27) < 0);
	CHECK(ranks_parse_ts("2026-13-30 14:16:25", 19) < 0);
	CHECK(ranks_parse_ts("", 0) < 0);
}

/* NCCL lines joined with Init lines and torchrun's block (duplicate_gpu, bad_socket_ifname). */
static void test_timelines(void)
{
	struct ranks *r = ranks_new();
	feed(r, "run.log",
	     "[rank1]  using cuda:0 of 2, torch 2.11.0+cu130 cuda 13.0 nccl (2, 28, 9)\n"
	     "vm:1224:1224 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n"
	     "vm:1225:1225 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n"
	     "vm:1225:1225 [0] NCCL INFO ncclCommInitRankConfig comm 0x31d13d50 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 60 commId 0xfd044cd5d55e6dab - Init START\n"
	     "vm:1224:1224 [0] NCCL INFO ncclCommInitRankConfig comm 0x1a64a540 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 60 commId 0xfd044cd5d55e6dab - Init START\n"
	     "\n"
	     "[2026-11-30 14:16:25] vm:1224:1224 [0] init.cc:904 NCCL WARN Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 60\n"
	     "\n"
	     "[2026-11-30 14:16:25] vm:1225:1225 [0] init.cc:904 NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 60\n"
	     "W1130 14:16:25.913000 1183 torch/distributed/elastic/multiprocessing/api.py:1012] Sending process 1224 closing signal SIGTERM\n"
	     "E1130 14:16:26.028000 1183 torch/distributed/elastic/multiprocessing/api.py:986] failed (exitcode: 1) local_rank: 1 (pid: 1225) of binary: /opt/torch/.venv/bin/python\n"
	     "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
	     "============================================================\n"
	     "/srv/job/train.py FAILED\n"
	     "------------------------------------------------------------\n"
	     "Failures:\n"
	     "[1]:\n"
	     "  time      : 2026-11-30_14:16:26\n"
	     "  host      : localhost\n"
	     "  rank      : 0 (local_rank: 0)\n"
	     "  exitcode  : 1 (pid: 1224)\n"
	     "  error_file: <N/A>\n"
	     "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
	     "------------------------------------------------------------\n"
	     "Root Cause (first observed failure):\n"
	     "[0]:\n"
	     "  time      : 2026-11-30_14:16:25\n"
	     "  host      : localhost\n"
	     "  rank      : 1 (local_rank: 1)\n"
	     "  exitcode  : 1 (pid: 1225)\n"
	     "  error_file: <N/A>\n"
	     "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
	     "============================================================\n");
	ranks_finish(r);
	CHECK_INT(r->n, 2);
	CHECK_INT(r->ncomms, 1);
	CHECK_STR(r->comms[0].id, "0xfd044cd5d55e6dab");
	CHECK_INT(r->comms[0].nranks, 2);
	CHECK_INT(ranks_lookup(r, "vm", 1224), 0);
	CHECK_INT(ranks_lookup(r, "vm", 1225), 1);
	const struct rank_proc *p0 = ranks_by_rank(r, 0), *p1 = ranks_by_rank(r, 1);
	CHECK(p0 && p1);
	if (p0 && p1) {
		CHECK_INT(p0->has_exit, 1);
		CHECK_INT(p0->exitcode, 1);
		CHECK_INT(p0->sigterm_sent, 1);
		CHECK_INT(p1->root_cause, 1);
		CHECK_INT(p1->local_rank, 1);
		CHECK_STR(p1->launcher_host, "localhost");
		CHECK_STR(rank_proc_milestone(p0), "init_start");
		CHECK_STR(p0->nccl_version, "2.28.9");
		CHECK_STR(p0->bus_id, "60");
		CHECK(p0->first_error.text && strstr(p0->first_error.text, "Duplicate GPU detected : rank 0"));
		CHECK(p0->first_failure); /* same second: the earlier line wins */
		CHECK(!p1->first_failure);
		/* the torch-only "[rank1]" line merged into the NCCL process of rank 1 */
		CHECK(p1->last.text != NULL);
	}
	ranks_free(r);
}

/* Communicators kept apart; sub-communicator without commId. */
static void test_comms(void)
{
	struct ranks *r = ranks_new();
	feed(r, "run.log",
	     "vm:3146:3146 [1] NCCL INFO ncclCommInitRankConfig comm 0x2bf31e50 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 70 commId 0x19811819b8bd787 - Init COMPLETE\n"
	     "vm:3145:3145 [0] NCCL INFO ncclCommInitRankConfig comm 0x3a94d2f0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 60 commId 0x19811819b8bd787 - Init COMPLETE\n"
	     "vm:3145:3145 [0] NCCL INFO ncclCommSplit comm 0x43c9d3a0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 60 parent 0x3a94d2f0 splitCount 1 color 2130503744 key 0 - Init COMPLETE\n"
	     "vm:3145:3145 [0] NCCL INFO comm 0x43c9d3a0 rank 0 nRanks 2 cudaDev 0 busId 60 - Abort START\n");
	ranks_finish(r);
	CHECK_INT(r->ncomms, 2);
	CHECK_STR(r->comms[0].id, "0x19811819b8bd787");
	CHECK_STR(r->comms[1].id, "nranks=2");
	CHECK_INT(r->comms[1].n, 1);
	CHECK_INT(r->comms[1].m[0].aborted, 1);
	CHECK_INT(r->comms[0].m[0].aborted, 0);
	const struct rank_proc *p0 = ranks_by_rank(r, 0);
	CHECK(p0 && p0->saw_abort && p0->cuda_dev == 0);
	ranks_free(r);
}

/* Per-process NCCL_DEBUG_FILE documents: unprefixed lines belong to the process. */
static void test_debug_file(void)
{
	struct ranks *r = ranks_new();
	feed(r, "nccl.vm.3014.log",
	     "vm:3014:3014 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n"
	     "vm:3014:3014 [0] NCCL INFO ncclCommInitRankConfig comm 0x3303f810 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 60 commId 0x3634fdbb33b62536 - Init START\n"
	     "Traceback (most recent call last):\n");
	feed(r, "nccl.vm.3015.log",
	     "vm:3015:3015 [1] NCCL INFO NCCL version 2.28.9+cuda13.0\n");
	ranks_finish(r);
	const struct rank_proc *p0 = ranks_by_rank(r, 0);
	CHECK(p0 != NULL);
	if (p0) {
		CHECK_STR(p0->debug_file, "nccl.vm.3014.log");
		CHECK_STR(p0->first_error.text, "Traceback (most recent call last):");
		CHECK_INT(p0->first_error.line, 3);
	}
	ranks_free(r);

	/* a traceback header gives way to the exception that ends it (oom_unshard) */
	r = ranks_new();
	feed(r, "run.log",
	     "[rank0]: Traceback (most recent call last):\n"
	     "[rank0]:   File \"/srv/job/train.py\", line 65, in <module>\n"
	     "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB.\n"
	     "[rank0]: RuntimeError: a later error\n");
	ranks_finish(r);
	p0 = ranks_by_rank(r, 0);
	CHECK(p0 != NULL);
	if (p0) {
		CHECK_STR(p0->first_error.text, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB.");
		CHECK_INT(p0->first_error.line, 3);
	}
	ranks_free(r);
}

/* Watchdog SeqNum per process group (torch_async_eh_off_timeout, subgroup_fail). */
static void test_watchdog(void)
{
	struct ranks *r = ranks_new();
	feed(r, "run.log",
	     "[rank1]:[E1130 15:05:44.408572066 ProcessGroupNCCL.cpp:689] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=20000) ran for 20026 milliseconds before timing out.\n"
	     "[rank1]:[E1130 15:05:44.408728133 ProcessGroupNCCL.cpp:2303] [PG ID 1 PG GUID 1(tp) Rank 1]  failure detected by watchdog at work sequence id: 2 PG status: last enqueued work: 2, last completed work: 1\n"
	     "[rank1]:[E1130 15:05:48.459271514 ProcessGroupNCCL.cpp:1914] [PG ID 0 PG GUID 0(default_pg) Rank 1] Received a dump signal due to a collective timeout from  rank 0 and we will try our best to dump the debug info. Last enqueued NCCL work: 1, last completed NCCL work: 1.\n");
	ranks_finish(r);
	const struct rank_proc *p1 = ranks_by_rank(r, 1);
	CHECK(p1 != NULL);
	if (p1) {
		CHECK_INT(p1->wd_seq, 2);
		CHECK_STR(p1->wd_op, "ALLREDUCE");
		CHECK_INT(p1->wd_numel, 1048576);
		CHECK_INT(p1->wd_pg, 1);
		CHECK_STR(p1->wd_pg_name, "1(tp)");
		CHECK_INT(p1->npgs, 2);
		CHECK_INT(p1->dump_observer, 1);
		CHECK_INT(p1->last_enqueued, 2);
		CHECK_STR(rank_proc_milestone(p1), "collective");
	}
	ranks_free(r);
}

static int ranks_match(const struct diagnosis *d, const char *want)
{
	char got[256] = "";
	size_t o = 0;
	for (size_t i = 0; i < d->nranks && o + 16 < sizeof got; i++)
		o += (size_t)snprintf(got + o, sizeof got - o, "%s%d", i ? "," : "", d->ranks[i]);
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "  ranks of %s: want %s, got %s\n", d->def->id, want, got);
		return 0;
	}
	return 1;
}

/* fixtures/ranks/expected.tsv over the real captures. */
static void test_captures(void)
{
	char *tsv = tdb_slurp("fixtures/ranks/expected.tsv");
	CHECK(tsv != NULL);
	if (!tsv)
		return;
	int cases = 0;
	for (char *line = strtok(tsv, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] == '#')
			continue;
		char *f[4] = {0};
		char *save = NULL, *p = line;
		for (int i = 0; i < 4; i++, p = NULL)
			f[i] = strtok_r(p, "\t", &save);
		if (!f[3])
			continue;
		cases++;
		struct bundle *b = bundle_new(f[0], &db, NULL);
		bundle_add_path(b, f[0], NULL);
		analysis_finish(b);
		const struct diagnosis *top = NULL;
		for (size_t i = 0; i < b->ndiags && !top; i++)
			if (b->diags[i].def->severity == SEV_ERROR && b->diags[i].role == ROLE_ROOT)
				top = &b->diags[i];
		if (strcmp(f[1], "-") == 0) {
			int ours = 0;
			for (size_t i = 0; i < b->ndiags; i++)
				ours += strncmp(b->diags[i].def->id, "ranks.", 6) == 0;
			if (ours)
				fprintf(stderr, "  %s: healthy capture got %s\n", f[0], b->diags[0].def->id);
			CHECK_INT(ours, 0);
		} else {
			if (!top || strcmp(top->def->id, f[1]) != 0)
				fprintf(stderr, "  %s: top %s\n", f[0], top ? top->def->id : "(none)");
			CHECK(top && strcmp(top->def->id, f[1]) == 0);
			CHECK(top && b->diags[0].def == top->def);
			CHECK(top && ranks_match(top, f[2]));
		}
		if (strcmp(f[3], "-") != 0) {
			char *save2 = NULL;
			for (char *e = strtok_r(f[3], ",", &save2); e; e = strtok_r(NULL, ",", &save2)) {
				char *eq = strchr(e, '=');
				if (!eq)
					continue;
				*eq = 0;
				const struct diagnosis *d = tdb_diag(b, e);
				int ok = d && d->role == ROLE_CASCADE && d->echo_of && strcmp(d->echo_of, eq + 1) == 0;
				if (!ok)
					fprintf(stderr, "  %s: %s should be an echo of %s (got %s)\n", f[0], e, eq + 1,
					        d ? (d->echo_of ? d->echo_of : "no echo") : "absent");
				CHECK(ok);
			}
		}
		bundle_free(b);
	}
	CHECK(cases >= 15);
	free(tsv);
}

/* Never reached NCCL; next steps ask for NCCL_DEBUG; the rank table. */
static void test_reports(void)
{
	struct bundle *b = tdb_run_text(&db, "run.log",
		"W1130 15:05:19.113000 2766 torch/distributed/run.py:851] *****************************************\n"
		"torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29635, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use\n");
	CHECK(tdb_diag(b, "ranks.never_reached_nccl") != NULL);
	cJSON *ns = next_steps_json(b);
	const cJSON *s0 = cJSON_GetArrayItem(ns, 0);
	CHECK(cJSON_IsString(s0) && strstr(s0->valuestring, "NCCL_DEBUG=INFO") &&
	      strstr(s0->valuestring, "NCCL_DEBUG_FILE="));
	cJSON_Delete(ns);
	bundle_free(b);

	b = bundle_new("t", &db, NULL);
	bundle_add_path(b, "fixtures/captures/h200-2gpu-more/sigkill_init", NULL);
	analysis_finish(b);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cJSON *bj = report_bundle_json(b, 0);
	rank_table_text(f, bj, 0);
	rank_table_md(f, bj);
	next_steps_text(f, cJSON_GetObjectItemCaseSensitive(bj, "next_steps"), 0);
	cJSON_Delete(bj);
	fclose(f);
	CHECK(buf && strstr(buf, "host:pid"));
	CHECK(buf && strstr(buf, "-9 SIGKILL"));
	CHECK(buf && strstr(buf, "| 1\\* |"));
	CHECK(buf && strstr(buf, "dmesg"));
	free(buf);
	bundle_free(b);
}

/* NCCL before 2.10: 2.2.13's header without the "NCCL" token and its init
 * line (https://github.com/NVIDIA/nccl-tests/issues/15, quoted from
 * tests/learn/socket-nccltests-15-connect-timeout.log), 2.3's "- COMPLETE"
 * and the "Ring NN :" connection lines of 2.3-2.6 (format instances of 2.3.7
 * src/init.cu:599 and src/transport/p2p.cu:480). */
static void test_old_releases(void)
{
	struct ranks *r = ranks_new();
	feed(r, "old.log",
	     "gpu-bql-144-103:18553:18553 [0] INFO NET : Using interface enp3s0:192.168.144.103<0>\n"
	     "NCCL version 2.2.13+cuda9.0\n"
	     "gpu-bql-144-103:18553:18612 [0] INFO comm 0x7fa42c00a3b0 rank 0 nranks 2\n"
	     "\n"
	     "gpu-bql-144-103:18553:18611 [0] include/socket.h:360 WARN Call to connect failed : Connection timed out\n"
	     "gpu-bql-144-103:18553:18611 [0] INFO transport/net_socket.cu:118 -> 2\n"
	     "node7:900:900 [1] NCCL INFO comm 0x5581d3a3c2d0 rank 1 nranks 2\n"
	     "node7:900:900 [1] NCCL INFO Ring 00 : 1[1] -> 0[0] via P2P/IPC\n"
	     "node7:900:900 [1] NCCL INFO comm 0x5581d3a3c2d0 rank 1 nranks 2 - COMPLETE\n");
	ranks_finish(r);
	CHECK_INT(r->n, 2);
	const struct rank_proc *p0 = ranks_by_rank(r, 0), *p1 = ranks_by_rank(r, 1);
	CHECK(p0 && p1);
	if (p0 && p1) {
		CHECK_STR(rank_proc_milestone(p0), "init_start");
		CHECK(p0->first_error.text && strstr(p0->first_error.text, "Call to connect failed : Connection timed out"));
		CHECK_INT(p0->saw_warn, 1);
		CHECK_STR(rank_proc_milestone(p1), "init_complete");
		CHECK_STR(p1->transport, "P2P/IPC");
		CHECK_INT(p1->cuda_dev, 1);
	}
	ranks_free(r);
	/* rank 0 alone, failing its own connect: rank 1 (no line at all) is
	 * not called missing; with an error of another kind it is */
	const char *one = "gpu-bql-144-103:18553:18612 [0] INFO comm 0x7fa42c00a3b0 rank 0 nranks 2\n"
	                  "gpu-bql-144-103:18553:18611 [0] include/socket.h:360 WARN Call to connect failed : Connection timed out\n";
	struct bundle *b = tdb_run_text(&db, "old.log", one);
	CHECK(!evlist_has(&b->ev, "ranks.missing_from_comm"));
	bundle_free(b);
	/* the output of one process alone cannot show that the other never
	 * joined (rules_ranks.c one_process_pasted) ... */
	b = tdb_run_text(&db, "old.log", "gpu-bql-144-103:18553:18612 [0] INFO comm 0x7fa42c00a3b0 rank 0 nranks 2\n"
	                        "gpu-bql-144-103:18553:18611 [0] init.cu:194 WARN Cuda failure 'out of memory'\n");
	CHECK(!evlist_has(&b->ev, "ranks.missing_from_comm"));
	bundle_free(b);
	/* ... a second process in view that never reached init can
	 * (NCCL 2.3's interface line, nccl#207) */
	b = tdb_run_text(&db, "old.log", "gpu-bql-144-103:18553:18612 [0] INFO comm 0x7fa42c00a3b0 rank 0 nranks 2\n"
	                        "gpu-bql-144-103:18554:18554 [1] NCCL INFO NET : Using interface ib0:12.12.12.102<0>\n"
	                        "gpu-bql-144-103:18553:18611 [0] init.cu:194 WARN Cuda failure 'out of memory'\n");
	CHECK(evlist_has(&b->ev, "ranks.missing_from_comm"));
	bundle_free(b);
	/* NCCL 2.3.5-2.6.4's "rank N nranks M" (ncclCommInitRank called) is
	 * that rank's Init START (nccl#207: ranks 0 and 2 printed only it) */
	struct ranks *r3 = ranks_new();
	feed(r3, "old.log", "gpu2:46654:46654 [0] NCCL INFO rank 0 nranks 8\n"
	                    "gpu2:46655:47153 [1] NCCL INFO comm 0x7f132405ad20 rank 1 nranks 8\n");
	ranks_finish(r3);
	const struct rank_proc *q0 = ranks_by_rank(r3, 0);
	CHECK(q0 && strcmp(rank_proc_milestone(q0), "init_start") == 0);
	ranks_free(r3);
}

/* Consistency across ranks and hosts (rules_ranks.c): the same bus id, worlds
 * of one rank, one hostname for ranks on different hosts.  Real lines:
 * fixtures/captures/h200-2gpu/scenarios/duplicate_gpu (NCCL 2.28.9, torch
 * 2.11) and tests/corpus/healthy-nccl-1267-init.log; each case also runs
 * without its clue. */
static void test_consistency(void)
{
	char *dup = tdb_slurp("fixtures/captures/h200-2gpu/scenarios/duplicate_gpu/run.log");
	CHECK(dup != NULL);
	if (!dup)
		return;
	/* without NCCL's own "Duplicate GPU detected" lines (an older NCCL, a hang) */
	struct buf nowarn;
	buf_init(&nowarn);
	for (char *l = dup; *l;) {
		char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l + 1) : strlen(l);
		if (!memmem(l, n, "Duplicate GPU detected", 22))
			buf_add(&nowarn, l, n);
		l += n;
	}
	struct bundle *b = tdb_run_text(&db, "run.log", nowarn.data);
	const struct diagnosis *d = tdb_diag(b, "ranks.same_bus_id");
	CHECK(d && b->diags == d && d->nranks == 2);
	const struct diagnosis *st = tdb_diag(b, "ranks.stuck_in_init");
	CHECK(!st || (st->role == ROLE_CASCADE && st->echo_of && strcmp(st->echo_of, "ranks.same_bus_id") == 0));
	bundle_free(b);
	/* with them: NCCL's message leads, the rule corroborates */
	b = tdb_run_text(&db, "run.log", dup);
	d = tdb_diag(b, "ranks.same_bus_id");
	CHECK(d && d->role == ROLE_CONTEXT && d->supports && strcmp(d->supports, "t.dup") == 0);
	bundle_free(b);
	/* different bus ids: nothing */
	char *other = xstrdup(nowarn.data);
	char *q = strstr(other, "rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 60");
	CHECK(q != NULL);
	if (q)
		memcpy(strstr(q, "busId 60") + 6, "70", 2);
	b = tdb_run_text(&db, "run.log", other);
	CHECK(tdb_diag(b, "ranks.same_bus_id") == NULL);
	bundle_free(b);
	free(other);

	/* one hostname: the launcher ran ranks 0 and 1 on two hosts, NCCL says vm for both */
	struct buf two;
	buf_init(&two);
	for (char *l = nowarn.data; *l;) {
		char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l + 1) : strlen(l);
		if (memmem(l, n, "  host      : localhost", 23)) {
			static int k;
			buf_adds(&two, k++ ? "  host      : node-b\n" : "  host      : node-a\n");
		} else {
			buf_add(&two, l, n);
		}
		l += n;
	}
	b = tdb_run_text(&db, "run.log", two.data);
	d = tdb_diag(b, "ranks.one_hostname");
	CHECK(d != NULL && d->def->severity == SEV_ERROR);
	bundle_free(b);
	b = tdb_run_text(&db, "run.log", nowarn.data); /* both "localhost": one host */
	CHECK(tdb_diag(b, "ranks.one_hostname") == NULL);
	bundle_free(b);
	buf_free(&two);
	buf_free(&nowarn);
	free(dup);

	/* worlds of one: two processes, each "rank 0 nranks 1" */
	static const char ONE[] =
		"instance-8g-96c-2:525781:525957 [0] NCCL INFO comm 0x55f90cbfd740 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 30 commId 0x795b968dc454cfee - Init START\n"
		"instance-8g-96c-2:525782:525958 [1] NCCL INFO comm 0x55f90cbfd740 rank 0 nranks 1 cudaDev 1 nvmlDev 1 busId 40 commId 0x795b968dc454cfef - Init START\n";
	b = tdb_run_text(&db, "run.log", ONE);
	d = tdb_diag(b, "ranks.worlds_of_one");
	CHECK(d && d->def->severity == SEV_WARNING);
	bundle_free(b);
	b = tdb_run_text(&db, "run.log", "instance-8g-96c-2:525781:525957 [0] NCCL INFO comm 0x55f90cbfd740 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 30 commId 0x795b968dc454cfee - Init START\n");
	CHECK(tdb_diag(b, "ranks.worlds_of_one") == NULL); /* one process alone is a one-GPU run */
	bundle_free(b);
}

/* torch.multiprocessing.spawn's exit records (spawn.py "process %d terminated
 * with signal %s" / "with exit code %d"); the SIGKILL and SIGBUS lines are
 * from learn-half threads (shenyunhang/DRN-WSOD-pytorch#11, a StableTTS
 * report of corpus-b). */
static void test_spawn_exits(void)
{
	struct bundle *b = tdb_run_text(&db, "run.log", "Traceback (most recent call last):\n"
	                                       "Exception: process 3 terminated with signal SIGKILL\n");
	const struct diagnosis *d = tdb_diag(b, "ranks.sigkill_oom_killer");
	CHECK(d && d->nranks == 1 && d->ranks[0] == 3 && b->diags == d);
	CHECK(tdb_diag(b, "ranks.never_reached_nccl") == NULL); /* a death explains it */
	bundle_free(b);
	b = tdb_run_text(&db, "run.log", "torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGBUS\n");
	d = tdb_diag(b, "ranks.killed_by_sigbus");
	CHECK(d && d->nranks == 1 && d->ranks[0] == 0 && strcmp(d->def->category, "SHM_EXHAUSTED") == 0);
	bundle_free(b);
	b = tdb_run_text(&db, "run.log", "torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with exit code 1\n");
	d = tdb_diag(b, "ranks.exited_with_error");
	CHECK(d && d->nranks == 1 && d->ranks[0] == 1);
	bundle_free(b);
	b = tdb_run_text(&db, "run.log", "Exception: process 3 terminated with signal SIGFOO\n");
	CHECK(tdb_diag(b, "ranks.sigkill_oom_killer") == NULL && tdb_diag(b, "ranks.killed_by_signal") == NULL);
	bundle_free(b);
}

/* torchrun's agent names workers by local rank only; on one node that is
 * the rank (hpcaitech/ColossalAI#3514, a learn-half thread). */
static void test_rank_from_local(void)
{
	static const char AGENT[] =
		"WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 812914 closing signal SIGTERM\n"
		"WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 812915 closing signal SIGTERM\n"
		"WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 812916 closing signal SIGTERM\n"
		"ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 3 (pid: 812917) of binary: /data/chenhao/anaconda3/envs/ColossalAI-Chat/bin/python\n";
	struct bundle *b = tdb_run_text(&db, "run.log", AGENT);
	const struct diagnosis *d = tdb_diag(b, "ranks.sigkill_oom_killer");
	CHECK(d && d->nranks == 1 && d->ranks[0] == 3);
	const struct rank_proc *p = ranks_by_rank(b->ranks, 3);
	CHECK(p && p->rank_from_local && p->pid == 812917);
	bundle_free(b);
	/* NCCL lines of two hosts: local ranks repeat per node, no guess */
	struct buf s;
	buf_init(&s);
	buf_adds(&s, "node-a:812917:812917 [3] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
	             "node-b:912917:912917 [3] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>\n");
	buf_adds(&s, AGENT);
	b = tdb_run_text(&db, "run.log", s.data);
	d = tdb_diag(b, "ranks.sigkill_oom_killer");
	CHECK(d && d->nranks == 0);
	bundle_free(b);
	buf_free(&s);
}

/* ranks_borrow_lines: the timelines of lines that go away after
 * ranks_lines_gone (scribbled over, then freed) equal those of lines
 * copied at once (ranks_note), over every capture log in one stream: many
 * documents and processes (r->v moves, r->lent fills up), flushes every 1-7
 * lines in a seeded random pattern. */
static void test_borrow(void)
{
	FILE *f = popen("find fixtures/captures -type f -name '*.log' | LC_ALL=C sort", "r");
	CHECK(f != NULL);
	if (!f)
		return;
	struct ranks *a = ranks_new(), *b = ranks_new();
	ranks_borrow_lines(b);
	char path[4096];
	char *held[200];
	size_t nheld = 0, ndocs = 0, nlines = 0;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	unsigned next_gone = 1;
	char *paths[256];
	while (ndocs < 256 && fgets(path, sizeof path, f)) {
		path[strcspn(path, "\n")] = 0;
		char *text = tdb_slurp(path);
		if (!text)
			continue;
		paths[ndocs++] = strdup(path);
		const char *pth = paths[ndocs - 1];
		uint64_t no = 0;
		for (const char *t = text; *t;) {
			const char *nl = strchr(t, '\n');
			size_t n = nl ? (size_t)(nl - t) : strlen(t);
			struct logline ll;
			logline_parse(t, n, &ll);
			ranks_note(a, &ll, pth, ++no, 0);
			char *c = malloc(n + 1);
			memcpy(c, t, n);
			c[n] = 0;
			logline_parse(c, n, &ll);
			ranks_note_at(b, &ll, pth, no, 0, ranks_line_ts(&ll));
			held[nheld++] = c;
			nlines++;
			if (nheld == next_gone || nheld == 8) {
				ranks_lines_gone(b);
				for (size_t i = 0; i < nheld; i++) {
					memset(held[i], 'X', strlen(held[i]));
					free(held[i]);
				}
				nheld = 0;
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				next_gone = 1 + (unsigned)((seed >> 33) % 7);
			}
			t += n + (nl ? 1 : 0);
		}
		free(text);
	}
	pclose(f);
	/* one document of 60 processes in one batch: more raw wheres held at
	 * once than r->lent has room for */
	ranks_lines_gone(b);
	for (size_t i = 0; i < nheld; i++)
		free(held[i]);
	nheld = 0;
	for (int round = 0; round < 3; round++)
		for (int pid = 0; pid < 60; pid++) {
			char line[160];
			int n = snprintf(line, sizeof line, "node%d:%d:%d [0] NCCL INFO Channel 0%d/0 : round %d of pid %d",
			                 pid % 4, 7000 + pid, 7000 + pid, round, round, pid);
			struct logline ll;
			logline_parse(line, (size_t)n, &ll);
			ranks_note(a, &ll, "many.log", (uint64_t)(round * 60 + pid + 1), 0);
			char *c = strdup(line);
			logline_parse(c, (size_t)n, &ll);
			ranks_note_at(b, &ll, "many.log", (uint64_t)(round * 60 + pid + 1), 0, ranks_line_ts(&ll));
			held[nheld++] = c;
		}
	ranks_finish(a);
	ranks_finish(b); /* reads what the held lines say: they are still there */
	for (size_t i = 0; i < nheld; i++)
		free(held[i]);
	CHECK(ndocs > 20);
	CHECK(nlines > 1000);
	CHECK(a->n > 40);
	cJSON *ja = ranks_to_json(a), *jb = ranks_to_json(b);
	char *sa = cJSON_PrintUnformatted(ja), *sb = cJSON_PrintUnformatted(jb);
	CHECK(strcmp(sa, sb) == 0);
	CHECK(strstr(sa, "XXXX") == NULL);
	free(sa);
	free(sb);
	cJSON_Delete(ja);
	cJSON_Delete(jb);
	ja = ranks_comms_json(a);
	jb = ranks_comms_json(b);
	sa = cJSON_PrintUnformatted(ja);
	sb = cJSON_PrintUnformatted(jb);
	CHECK(strcmp(sa, sb) == 0);
	free(sa);
	free(sb);
	cJSON_Delete(ja);
	cJSON_Delete(jb);
	ranks_free(a);
	ranks_free(b);
	for (size_t i = 0; i < ndocs; i++)
		free(paths[i]);
}

/* ranks.c's fast path for plain lines (ranks_note_at) against all of
 * note_plain: every capture log line, also with each of the prefixes that
 * its tests look at (blanks, 'R', exit records, torchrun's block and
 * agent, spawn, signals, launcher and wrapper tags, keywords), in one stream
 * of documents; the same timelines, the same answer per line. */
static char *ranks_state(const struct ranks *r)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "procs", ranks_to_json(r));
	cJSON_AddItemToObject(o, "comms", ranks_comms_json(r));
	char buf[512];
	snprintf(buf, sizeof buf, "%d %d %d %d %d %d %d %d %d %ld %d %d %d %s %d %llu %llu %s %s %s %s %s",
	         r->saw_launcher, r->saw_child_failed, r->saw_watchdog, r->saw_net_lines, r->saw_nccl_text,
	         r->launcher_signalled, r->job_exit, r->launcher_quiet, r->launcher_followed, r->progress_elapsed,
	         r->doc_ends_in_coll, r->coll_call_rank, r->coll_call_main_first,
	         r->coll_call_op ? r->coll_call_op : "-", (int)r->nuid, (unsigned long long)r->untracked,
	         (unsigned long long)r->order, r->launcher_last.text ? r->launcher_last.text : "-",
	         r->coll_call.text ? r->coll_call.text : "-", r->progress_where.text ? r->progress_where.text : "-",
	         r->launcher_signal_where.text ? r->launcher_signal_where.text : "-",
	         r->job_exit_where.text ? r->job_exit_where.text : "-");
	cJSON_AddStringToObject(o, "state", buf);
	char *s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return s;
}

/* What a line may change, outside the documents' private state. */
static uint64_t ranks_sig(const struct ranks *r)
{
	long v[] = {(long)r->n, (long)r->nex, (long)r->nuid, (long)r->ncomms, r->saw_launcher, r->saw_child_failed,
	            r->saw_watchdog, r->saw_net_lines, r->saw_nccl_text, r->launcher_signalled, r->job_exit,
	            r->progress_elapsed, (long)r->progress_where.line, (long)r->coll_call.line,
	            (long)r->launcher_last.line, (long)r->launcher_last.order, (long)r->launcher_signal_where.line,
	            (long)r->job_exit_where.line, (long)r->untracked, (long)r->nccl_lines, r->coll_call_rank,
	            r->launcher_quiet, r->launcher_followed, r->doc_ends_in_coll};
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < sizeof v / sizeof *v; i++)
		h = (h ^ (uint64_t)v[i]) * 1099511628211ull;
	for (size_t i = 0; i < r->n; i++) {
		const struct rank_proc *p = &r->v[i];
		long w[] = {p->rank, p->pid, (long)p->last.line, (long)p->last.order, (long)p->first_error.line,
		            (long)p->own_lines, p->saw_coll, p->saw_warn, p->wd_seq, p->last_enqueued, p->remote_err,
		            p->dump_observer, p->prefix_rank, (long)p->wd_where.line, (long)p->enq_where.line};
		for (size_t k = 0; k < sizeof w / sizeof *w; k++)
			h = (h ^ (uint64_t)w[k]) * 1099511628211ull;
	}
	return h;
}

static void test_fast_path(void)
{
	static const char *const pre[] = {
		"", " ", "\t", "R", "e", "s", "m", "Root Cause (first observed failure):", "exit=3 ", "exit=rank0:1 ",
		"srun: error: n1: task 0: Exited with exit code 1 ", "slurmstepd: error: *** STEP 1.0 ON n1 CANCELLED AT x *** ",
		"mpirun noticed that process rank 1 with PID 77 on node n exited on signal 9 ",
		"process 3 terminated with signal SIGKILL ", "[rank1]:", "(pid=1224) ", "[E1130 14:16:25.5 x.cpp:1] ",
		"torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "got signal: 15 ",
		"torch.distributed.elastic.agent.server.api:[default] ", "NCCL error ", "WorkNCCL(SeqNum=3, OpType=BROADCAST) ",
		"Traceback (most recent call last): ", " 3169000/6811963 [30:11<38:27, 1578.58 examples/s]",
		"[0] is setting up NCCL communicator and retrieving ncclUniqueId from [1] ", "=====", "  rank      : 1 ",
		"Map: 3169000/6811963 [30:11<38:27, 1578.58 examples/s] ", "(pid=3015) ", "(pid=3014) ", "[rank1]: ",
	};
	/* first: documents whose outcome hangs on one plain line each (the NCCL
	 * word, a launcher followed by output, output after a collective call) */
	static const char *const synth[][2] = {
		{"nccl-word.log", "ProcessGroupNCCL started\n"},
		{"agent.log", "I1130 14:16:25.913000 1183 torch/distributed/run.py:851] starting\nplain output\n"},
		{"coll.log", "vm:9:9 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x2\nplain after it\n"},
		{"rank.log", "[rank3]: RuntimeError: boom\n[rank3]: hello\n"},
		{"wpid.log", "vm:4242:4242 [0] NCCL INFO hello\n(pid=4242) plain output\n"},
		{"tab.log", "\tRoot Cause (first observed failure):\n[0]:\n  exitcode  : 1 (pid: 99)\n=====\n"},
		{"frame.log", "File \"/x/torch/distributed/distributed_c10d.py\", line 3328, in barrier\n"},
		{"inner.log", "[Rank 5] WorkNCCL(SeqNum=3, OpType=BROADCAST) stuck\n"},
		{"signal.log", "elastic.multiprocessing.api.SignalException: Process 17 got signal: 15\n"},
		{"exit.log", "exit=137 ms=100\nsrun: error: n1: task 0: Exited with exit code 1\nmpirun noticed that process rank 2 with PID 7 on node n exited on signal 9 (Killed).\n"},
		{"spawn.log", "Exception: process 3 terminated with signal SIGKILL\n"},
		{"uid.log", "E [2] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: timeout\n"},
		{"progress.log", "Map: 3169000/6811963 [30:11<38:27, 1578.58 examples/s]\n"},
		{"space.log", " Root Cause (first observed failure):\n[0]:\n  exitcode  : 1 (pid: 98)\n=====\n"},
		{"signal2.log", "raise elastic.multiprocessing.api.SignalException: Process 17 got signal: 15\n"},
		{"child.log", "ChildFailedError: \n=====\nFailures:\n[1]:\n  exitcode  : 1 (pid: 97)\n"},
		{"inner2.log", "Watchdog: [Rank 6] WorkNCCL(SeqNum=3, OpType=BROADCAST) stuck\n"},
		{"benign.log", "vm:5151:5151 [0] NCCL INFO hello\nValueError: boom\n"},
		{"err.log", "vm:6161:6161 [0] NCCL INFO hello\nValueError: real\n"},
		{"empty.log", "vm:7171:7171 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x2\n\n"},
	};
	FILE *f = popen("find fixtures/captures -type f -name '*.log' | LC_ALL=C sort", "r");
	CHECK(f != NULL);
	if (!f)
		return;
	struct ranks *a = ranks_new(), *b = ranks_new();
	b->no_fast = 1;
	char path[4096];
	char *paths[256];
	size_t ndocs = 0, nlines = 0, same = 0;
	uint64_t seed = 42;
	size_t nsynth = 0;
	while (ndocs < 256) {
		char *text;
		if (nsynth < sizeof synth / sizeof *synth) {
			snprintf(path, sizeof path, "%s", synth[nsynth][0]);
			text = strdup(synth[nsynth++][1]);
		} else {
			if (!fgets(path, sizeof path, f))
				break;
			path[strcspn(path, "\n")] = 0;
			text = tdb_slurp(path);
		}
		if (!text)
			continue;
		paths[ndocs++] = strdup(path);
		uint64_t no = 0;
		for (const char *t = text; *t;) {
			const char *nl = strchr(t, '\n');
			size_t n = nl ? (size_t)(nl - t) : strlen(t);
			/* the line as it is, and once with a prefix picked at random */
			for (int v = 0; v < (nsynth > ndocs - 1 ? 1 : 2); v++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				const char *p = v ? pre[(seed >> 33) % (sizeof pre / sizeof *pre)] : "";
				size_t pn = strlen(p);
				char *c = malloc(pn + n + 1);
				memcpy(c, p, pn);
				memcpy(c + pn, t, n);
				c[pn + n] = 0;
				struct logline ll;
				logline_parse(c, pn + n, &ll);
				struct logline cp = ll; /* now and then a line on the benign list (bundle.c: apply_benign) */
				if ((v && (seed >> 20) % 5 == 0) || strcmp(paths[ndocs - 1], "benign.log") == 0) {
					cp.kw = logline_keywords(&ll) | KW_BENIGN_BIT;
					cp.kw_known = 1;
				}
				int ra = ranks_note(a, &cp, paths[ndocs - 1], ++no, 0);
				int rb = ranks_note(b, &cp, paths[ndocs - 1], no, 0);
				same += ra == rb && ranks_sig(a) == ranks_sig(b);
				nlines++;
				free(c);
			}
			t += n + (nl ? 1 : 0);
		}
		free(text);
	}
	pclose(f);
	CHECK(nlines > 2000);
	CHECK_INT((long)same, (long)nlines);
	ranks_finish(a);
	ranks_finish(b);
	char *sa = ranks_state(a), *sb = ranks_state(b);
	CHECK(strcmp(sa, sb) == 0);
	free(sa);
	free(sb);
	ranks_free(a);
	ranks_free(b);
	for (size_t i = 0; i < ndocs; i++)
		free(paths[i]);
}

int main(void)
{
	struct msgs m = {0};
	sigdb_init(&db);
	rules_register(&db);
	CHECK_INT(sigdb_load_dir(&db, "tests/db-min", &m), 0);
	char *rj = tdb_slurp("patterns/ranks.json");
	CHECK(rj != NULL);
	if (rj)
		CHECK_INT(sigdb_load_text(&db, "patterns/ranks.json", rj, strlen(rj), &m), 0);
	free(rj);
	/* the inferences that patterns/ranks.json's echoes name (infer.init_hang_one_host) */
	rj = tdb_slurp("patterns/infer.json");
	CHECK(rj != NULL);
	if (rj)
		CHECK_INT(sigdb_load_text(&db, "patterns/infer.json", rj, strlen(rj), &m), 0);
	free(rj);
	CHECK_INT(sigdb_finalize(&db, &m), 0);
	for (size_t i = 0; i < m.list.n; i++)
		fprintf(stderr, "%s\n", m.list.v[i]);
	msgs_free(&m);

	test_timestamps();
	test_borrow();
	test_fast_path();
	test_timelines();
	test_old_releases();
	test_comms();
	test_debug_file();
	test_watchdog();
	test_captures();
	test_reports();
	test_consistency();
	test_spawn_exits();
	test_rank_from_local();
	sigdb_free(&db);
	TEST_MAIN_END();
}
