/* Tests of the outer prefixes (peel.c), in two parts.
 *
 * 1. Each family on real lines: the prefix as the program that prints it
 *    writes it (its source is cited: a format instance) or as it came in a
 *    real report of the learn half (the file is named) or in the captures,
 *    and what the prefix says (timestamp, rank, pid, host, severity).
 * 2. Generated: every sample line of every signature of patterns/ (and of
 *    every benign entry), wrapped in each prefix of WRAPS below and in
 *    every stack of two of them, must give what the bare line gives: the
 *    same level, the same signatures matched with the same captures, the
 *    same benign entry, the same derived row; and, one wrap at a time, a
 *    bundle of that one line the same verdict and top diagnosis. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "engine/analysis.h"
#include "engine/bundle.h"
#include "engine/diagnosis.h"
#include "match/derive.h"
#include "match/match.h"
#include "match/sigdb.h"
#include "parse/logline.h"
#include "parse/peel.h"
#include "rules/rules.h"
#include "testlib.h"

static struct logline L;

static void parse(const char *s)
{
	logline_parse(s, strlen(s), &L);
}

static int span_is(struct span s, const char *want)
{
	return s.n == strlen(want) && memcmp(s.p, want, s.n) == 0;
}

static int msg_is(const char *want)
{
	int ok = span_is(L.msg, want);
	if (!ok)
		fprintf(stderr, "  message \"%.*s\", want \"%s\"\n", (int)L.msg.n, L.msg.p, want);
	return ok;
}

static int fam(enum peel_family f)
{
	return (L.families >> f) & 1;
}

static void test_families(void)
{
	/* docker / kubectl --timestamps, then the CRI log file's stream and tag (kubelet) */
	parse("2025-10-04T15:16:15.735123456Z stderr F [rank0]: torch.OutOfMemoryError: CUDA out of memory.");
	CHECK(msg_is("torch.OutOfMemoryError: CUDA out of memory."));
	CHECK(span_is(L.ts, "2025-10-04T15:16:15.735123456Z"));
	CHECK_INT(L.rank, 0);
	CHECK(fam(PF_ISO_TS) && fam(PF_TORCHRUN));
	/* journald with the process id (a systemd unit's log, see test_logline.c) */
	parse("Oct  3 06:34:02 HNET00 vllm-active.sh[4192747]: (Worker_TP0 pid=4192747) INFO Parent process exited");
	CHECK(msg_is("INFO Parent process exited"));
	CHECK(span_is(L.ts, "Oct  3 06:34:02"));
	CHECK_INT(L.wpid, 4192747);
	CHECK(span_is(L.whost, "HNET00"));
	/* dmesg (tests/learn/cuda-gpuburn-1-xid79-fallen-off-bus.log) and dmesg -H's
	 * relative stamp ("[%+5ld.%06ld]", util-linux; a format instance) */
	parse("[74889.542044] pcieport 0000:00:02.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, id=0010(Receiver ID)");
	CHECK(msg_is("pcieport 0000:00:02.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, id=0010(Receiver ID)"));
	CHECK(fam(PF_DMESG));
	parse("[  +0.000213] pcieport 0000:00:02.0: AER: Corrected error received: id=0010");
	CHECK(msg_is("pcieport 0000:00:02.0: AER: Corrected error received: id=0010"));
	/* torchrun: "[rankN]:" twice and "[defaultN]:" (fixtures/captures; tests/corpus) */
	parse("[default3]:[rank3]: torch.OutOfMemoryError: CUDA out of memory.");
	CHECK(msg_is("torch.OutOfMemoryError: CUDA out of memory."));
	CHECK_INT(L.rank, 3);
	/* Determined's "[rank=0] " after an empty field (tests/learn/oom-determined-5418-rank0.log) */
	parse("> [] [rank=0] RuntimeError: CUDA out of memory. Tried to allocate 824.00 MiB");
	CHECK(msg_is("RuntimeError: CUDA out of memory. Tried to allocate 824.00 MiB"));
	CHECK_INT(L.rank, 0);
	CHECK(fam(PF_QUOTE));
	/* Slurm srun --label, padded ("%*d: ", src/common/write_labelled_message.c) */
	parse(" 3: node1:100:100 [0] NCCL INFO Bootstrap : Using ib0:10.0.0.1<0>");
	CHECK_INT(L.level, LINE_INFO);
	CHECK_INT(L.rank, 3);
	parse("P1  7: RuntimeError: NCCL error");
	CHECK_INT(L.rank, 7);
	CHECK(msg_is("RuntimeError: NCCL error"));
	/* Open MPI 4 --tag-output --timestamp-output: ctime glued to the tag
	 * (orte/mca/iof/base/iof_base_output.c, v4.1.8) */
	parse("Mon Dec  1 10:00:00 2025[1,3]<stderr>:node1:100:100 [3] NCCL INFO Bootstrap : Using ib0:10.0.0.1<0>");
	CHECK_INT(L.level, LINE_INFO);
	CHECK_INT(L.rank, 3);
	CHECK(span_is(L.ts, "Mon Dec  1 10:00:00 2025"));
	/* PMIx (Open MPI 5): the bracketed ctime, the tag with host and pid
	 * (--output tag-detailed), the rank alone (src/common/pmix_iof.c) */
	parse("[Mon Dec  1 10:00:00 2025][1,2][node-3:4242]<stdout>: RuntimeError: NCCL error");
	CHECK(msg_is("RuntimeError: NCCL error"));
	CHECK_INT(L.rank, 2);
	CHECK_INT(L.wpid, 4242);
	CHECK(span_is(L.whost, "node-3"));
	parse("[5]<stderr>: RuntimeError: NCCL error");
	CHECK_INT(L.rank, 5);
	/* a quoted paste of an indented block with MPI tags (nccl-tests' footer under
	 * --tag-output, as test_logline.c cites it; a format instance) */
	parse(">         [1,0]<stdout>:# Out of bounds values : 0 OK");
	CHECK(msg_is("# Out of bounds values : 0 OK"));
	CHECK_INT(L.rank, 0);
	/* vLLM V1's worker tag (vllm/v1/executor/multiproc_executor.py: _add_prefix(sys.stdout,
	 * f"VllmWorker rank={rank}", pid)) before its logger's header (vllm/logger.py:
	 * "%(levelname)s %(asctime)s [%(fileinfo)s:%(lineno)d] %(message)s", "%m-%d %H:%M:%S");
	 * a format instance */
	parse("(VllmWorker rank=3 pid=4242) ERROR 11-02 10:00:00 [multiproc_executor.py:546] RuntimeError: CUDA error: out of memory");
	CHECK(msg_is("RuntimeError: CUDA error: out of memory"));
	CHECK_INT(L.rank, 3);
	CHECK_INT(L.wpid, 4242);
	CHECK_INT(L.logger, 'E');
	CHECK(span_is(L.ts, "11-02 10:00:00"));
	CHECK(fam(PF_RAY) && fam(PF_VLLM));
	/* the same header as a real log shows it (corpus-b's learn file device-vllm-16978) */
	parse("INFO 04-22 18:37:21 [multiproc_worker_utils.py:124] Killing local vLLM worker processes");
	CHECK(msg_is("Killing local vLLM worker processes"));
	parse("(raylet) A worker died or was killed while executing a task by an unexpected system error.");
	CHECK(msg_is("A worker died or was killed while executing a task by an unexpected system error."));
	parse("(RayTrainWorker pid=2273, ip=172.24.21.66) [rank7]:[W Utils.hpp:108] Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated");
	CHECK(msg_is("Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated"));
	CHECK_INT(L.rank, 7);
	CHECK_INT(L.wpid, 2273);
	CHECK(span_is(L.whost, "172.24.21.66"));
	CHECK_INT(L.logger_kind, PL_C10);
	CHECK_INT(L.logger, 'W');
	/* Ray's C++ logger, the raylet naming itself (corpus-b's learn file rank-wmpo-3) */
	parse("(raylet) [2025-12-07 09:57:19,206 E 393463 393463] (raylet) node_manager.cc:3277: 2 Workers (tasks / actors) killed due to memory pressure (OOM)");
	CHECK(msg_is("2 Workers (tasks / actors) killed due to memory pressure (OOM)"));
	CHECK(span_is(L.ts, "2025-12-07 09:57:19,206"));
	CHECK_INT(L.wpid, 393463);
	CHECK(fam(PF_RAY_CPP));
	/* Ray's log deduplication at the end (ray's log_dedup: "[repeated Nx across cluster]") */
	parse("(RayTrainWorker pid=2273, ip=172.24.21.66) Worker 0 has failed. [repeated 7x across cluster]");
	CHECK(msg_is("Worker 0 has failed."));
	CHECK(fam(PF_RAY_REPEAT));
	/* docker compose "%-Ns | " (cmd/formatter/logs.go), coloured */
	parse("\x1b[36mtrainer-1  | \x1b[0mvm:1159:1159 [0] NCCL INFO Using network Socket");
	CHECK_INT(L.level, LINE_INFO);
	CHECK(msg_is("Using network Socket"));
	CHECK(fam(PF_COMPOSE) && fam(PF_ANSI));
	/* glog, as torchrun 2.2+ writes its own lines (fixtures/captures): the
	 * logger's file still counts for the keywords (torchrun's own line) */
	parse("E1130 15:02:53.413000 761 torch/distributed/elastic/multiprocessing/api.py:986] failed (exitcode: 1) local_rank: 0 (pid: 1043) of binary: /usr/bin/python3");
	CHECK(msg_is("failed (exitcode: 1) local_rank: 0 (pid: 1043) of binary: /usr/bin/python3"));
	CHECK(span_is(L.ts, "E1130 15:02:53.413000"));
	CHECK(L.head != NULL && L.head < L.msg.p);
	CHECK(fam(PF_GLOG));
	parse("W1130 15:02:48.751000 758 torch/distributed/run.py:851] ");
	CHECK_INT((long)L.msg.n, 0);
	/* c10 with the month unpadded (tests/learn) */
	parse("[E108 20:04:34.467642512 socket.cpp:957] [c10d] The server socket has failed to listen on any local network address.");
	CHECK(msg_is("[c10d] The server socket has failed to listen on any local network address."));
	CHECK(span_is(L.ts, "E108 20:04:34.467642512"));
	/* Python logging's default format (tests/heldout/rank-codellama-118-sigkill.log) and
	 * torchrun 2.0's (tests/learn/socket-3k-197-noif.log) */
	parse("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: 29066) of binary: /usr/bin/python");
	CHECK(msg_is("failed (exitcode: -9) local_rank: 0 (pid: 29066) of binary: /usr/bin/python"));
	CHECK_INT(L.logger, 'E');
	CHECK(fam(PF_PYLOG));
	parse("[2023-10-28 02:56:13,393] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 23819 closing signal SIGTERM");
	CHECK(msg_is("Sending process 23819 closing signal SIGTERM"));
	CHECK(span_is(L.ts, "2023-10-28 02:56:13,393"));
	CHECK(fam(PF_TORCHRUN_LOG));
	/* DeepSpeed's launcher (corpus-b's learn file rank-deepspeed-3232) */
	parse("[2023-04-14 13:11:27,885] [ERROR] [launch.py:434:sigkill_handler] ['/usr/bin/python3', '-u', 'main.py', '--local_rank=0'] exits with return code = -9");
	CHECK(msg_is("['/usr/bin/python3', '-u', 'main.py', '--local_rank=0'] exits with return code = -9"));
	CHECK(fam(PF_DEEPSPEED));
	/* vLLM's older header without brackets (tests/learn/p2p-vllm-5484-hang-p2pdisable.log) */
	parse("INFO 11-11 14:17:08 pynccl.py:69] vLLM is using nccl==2.21.5");
	CHECK(msg_is("vLLM is using nccl==2.21.5"));
	/* SGLang: "[%(asctime)s{prefix}] %(message)s" with " TP{rank}" and "%Y-%m-%d %H:%M:%S",
	 * later "%m-%d %H:%M:%S" (sglang/srt/utils.py configure_logger; format instances), and a
	 * real time-only one (tests/learn/p2p-sglang-1509-customar.log) */
	parse("[2025-01-01 12:00:00 TP14] Scheduler hit an exception: Traceback (most recent call last):");
	CHECK(msg_is("Scheduler hit an exception: Traceback (most recent call last):"));
	CHECK_INT(L.rank, 14);
	CHECK(span_is(L.ts, "2025-01-01 12:00:00"));
	parse("[12-01 10:00:00 DP0 TP1] Scheduler hit an exception: Traceback (most recent call last):");
	CHECK(msg_is("Scheduler hit an exception: Traceback (most recent call last):"));
	CHECK(span_is(L.ts, "12-01 10:00:00"));
	CHECK_INT(L.rank, -1); /* two tags: the TP rank alone is no global rank */
	parse("[19:01:01 TP1] Init nccl begin.");
	CHECK(msg_is("Init nccl begin."));
	CHECK_INT(L.rank, 1);
	CHECK(fam(PF_SGLANG));
	/* Hugging Face's example scripts: "%(asctime)s - %(levelname)s - %(name)s - %(message)s"
	 * with "%m/%d/%Y %H:%M:%S" (the transformers examples under examples/pytorch), and with the
	 * default asctime; format instances */
	parse("12/01/2024 10:00:00 - INFO - __main__ - Distributed environment: MULTI_GPU  Backend: nccl");
	CHECK(msg_is("Distributed environment: MULTI_GPU  Backend: nccl"));
	CHECK(span_is(L.ts, "12/01/2024 10:00:00"));
	parse("2024-12-01 10:00:00,123 - ERROR - train - RuntimeError: NCCL error");
	CHECK(msg_is("RuntimeError: NCCL error"));
	CHECK_INT(L.logger, 'E');
	/* Python's level names (level_word: by the first byte, then the whole
	 * word), at their edges: each one, each cut by a byte, another case */
	{
		static const struct { const char *line; char sev; } LV[] = {
			{"DEBUG:root:x y", 'D'}, {"INFO:root:x y", 'I'}, {"WARNING:root:x y", 'W'},
			{"ERROR:root:x y", 'E'}, {"CRITICAL:root:x y", 'C'},
			{"DEBU:root:x y", 0}, {"INF:root:x y", 0}, {"WARNIN:root:x y", 0}, {"ERRO:root:x y", 0},
			{"CRITICA:root:x y", 0}, {"Info:root:x y", 0}, {"info:root:x y", 0}, {"FATAL:root:x y", 0},
			{"WARN:root:x y", 0}, {"EROR:root:x y", 0}, {"IINFO:root:x y", 0},
		};
		for (size_t i = 0; i < sizeof LV / sizeof LV[0]; i++) {
			parse(LV[i].line);
			CHECK_INT(L.logger, LV[i].sev);
			CHECK(LV[i].sev ? msg_is("x y") : msg_is(LV[i].line));
		}
		parse("2024-12-01 10:00:00,123 - CRITICAL - train - boom");
		CHECK(msg_is("boom"));
		CHECK_INT(L.logger, 'C');
		parse("2024-12-01 10:00:00,123 - CRITICA - train - boom"); /* the date's prefix alone */
		CHECK(msg_is("- CRITICA - train - boom"));
		CHECK_INT(L.logger, 0);
		parse("[2023-10-28 02:56:13,393] torch.distributed.run: [DEBUG] x");
		CHECK(msg_is("x"));
		CHECK_INT(L.logger, 'D');
	}
	/* rsyslog's escaped colour code "#033[": the one ansi form that starts
	 * with '#' (a table's header or a comment is left at once), at its edges */
	parse("#033[0mNCCL ok");
	CHECK(msg_is("NCCL ok"));
	CHECK(fam(PF_ANSI));
	parse("#033[1;31m x");
	CHECK(msg_is("x"));
	parse("#033[");     /* five bytes: too short */
	CHECK(msg_is("#033["));
	parse("#033[0");    /* no letter after the digits */
	CHECK(msg_is("#033[0"));
	parse("#133[0m x"); /* not "#0" */
	CHECK(msg_is("#133[0m x"));
	parse("#0 0x00007f in ncclFoo ()");
	CHECK(msg_is("#0 0x00007f in ncclFoo ()"));
	CHECK(!fam(PF_ANSI));
	parse("# nThread 1 nGpus 8");
	CHECK(msg_is("# nThread 1 nGpus 8"));
	CHECK_INT(L.families, 0);
	parse("#");
	CHECK(msg_is("#"));
	/* a host name glued in front of a header (pdsh's "host: ") */
	parse("gpu-node-3: [rank3]: RuntimeError: NCCL error");
	CHECK(msg_is("RuntimeError: NCCL error"));
	CHECK(span_is(L.whost, "gpu-node-3"));
	CHECK_INT(L.rank, 3);
	parse("10.0.0.7: (pid=4242) RuntimeError: NCCL error");
	CHECK(msg_is("RuntimeError: NCCL error"));
	CHECK_INT(L.wpid, 4242);
	/* markdown inline code around a pasted line (tests/learn/rdzv-maskrcnn-137-thd-address-in-use.log);
	 * a code fence is no such line */
	parse("`RuntimeError: Address already in use`");
	CHECK(msg_is("RuntimeError: Address already in use"));
	parse("```");
	CHECK(msg_is("```"));
	/* a viewer's line number (cat -n: "%6d\t") */
	parse("   123\tTraceback (most recent call last):");
	CHECK(msg_is("Traceback (most recent call last):"));
	CHECK(fam(PF_LINENO));

	/* crash handlers' tags: UCX (tests/learn/shm-pipedream-76-buserror.log) and Open MPI
	 * (v4.1.8 opal/util/stacktrace.c "[%s:%05d] "; the tag as in tests/learn/cuda-horovod-2365-illegal-access-mpirun.log) */
	parse("[8d6bf97c3bf4:3039 :0:3095] Caught signal 7 (Bus error: nonexistent physical address)");
	CHECK(msg_is("Caught signal 7 (Bus error: nonexistent physical address)"));
	CHECK(span_is(L.whost, "8d6bf97c3bf4"));
	CHECK_INT(L.wpid, 3039);
	parse("[1,25]<stderr>:[c199:12345] Signal: Aborted (6)");
	CHECK(msg_is("Signal: Aborted (6)"));
	CHECK_INT(L.rank, 25);
	CHECK_INT(L.wpid, 12345);
	/* look-alikes that are messages, not prefixes */
	const char *keep[] = {
		"RuntimeError: [rank0]: something",          /* an exception type is no host */
		"ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).",
		"INFO:     Started server process [12]",     /* uvicorn, not logging's default format */
		"(base) root@dgx-035:/workspace# ls",        /* a shell prompt */
		"[1]:",                                      /* torchrun's Failures block */
		"[2] rows",
		"[c10d] The server socket has failed to listen on any local network address.",
		"[::1]:29500 connect failed",
		">>> import torch",
		"Epoch 9/9",
		"    33554432       8388608     float     sum      -1   2174.8   15.43   24.69      0",
		"torch.distributed.DistBackendError: NCCL error in: NCCLUtils.hpp:268, unhandled system error",
		"Traceback (most recent call last):",
		"  File \"/usr/lib/python3.10/site-packages/torch/distributed/run.py\", line 12, in main",
	};
	for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
		parse(keep[i]);
		int ok = L.msg.p == keep[i] && L.msg.n == strlen(keep[i]);
		if (!ok)
			fprintf(stderr, "  peeled a message: \"%s\" -> \"%.*s\"\n", keep[i], (int)L.msg.n, L.msg.p);
		CHECK(ok);
	}
}

/* ---- the generated test ---- */

/* One wrap per family, each as its program prints it (part 1 cites them);
 * the stacks of two are every outer x every inner of this list. */
/* tier: where a wrap stands in a stack, outermost first: 0 a paste's
 * decorations (a quote, a viewer's line number), 1 what collects the output
 * (timestamps, compose, colours, a host), 2 launchers, 3 loggers.  A stack
 * of two puts a wrap of a tier inside one of the same or an outer tier (a
 * crash handler's tag is the process's own, a logger's tier; a host glued in
 * front of a launcher's tag is a launcher's). */
static const struct wrap {
	enum peel_family fam;
	const char *pre, *post;
	int tier;
	int rank; /* the rank the wrap names, -1 none */
} WRAPS[] = {
	{PF_ANSI, "\x1b[1;31m", "\x1b[0m", 1, -1},
	{PF_ISO_TS, "2025-10-04T15:16:15.735123456Z ", "", 1, -1},
	{PF_ISO_TS, "2025-10-04T15:16:15.735123456Z stderr F ", "", 1, -1},
	{PF_DATE_TS, "2025-02-18 12:54:07 ", "", 1, -1},
	{PF_SYSLOG, "Aug 12 01:22:51 node-3 python[4242]: ", "", 1, -1},
	{PF_DMESG, "[ 1374.484938] ", "", 1, -1},
	{PF_TORCHRUN, "[rank3]:", "", 2, 3},
	{PF_TORCHRUN, "[default0]:", "", 2, 0},
	{PF_SLURM, " 3: ", "", 2, 3},
	{PF_MPI, "[1,3]<stderr>:", "", 2, 3},
	{PF_MPI, "[1,2][node-3:4242]<stdout>: ", "", 2, 2},
	{PF_MPI_TS, "Mon Dec  1 10:00:00 2025[1,3]<stdout>:", "", 2, 3},
	{PF_MPI_TS, "[Mon Dec  1 10:00:00 2025][1,3]<stdout>: ", "", 2, 3},
	{PF_RAY, "(RayWorkerWrapper pid=4242, ip=10.0.0.3) ", "", 2, -1},
	{PF_RAY, "(VllmWorker rank=1 pid=4242) ", "", 2, 1},
	{PF_RAY, "(VllmWorkerProcess pid=18565) ", "", 2, -1},
	{PF_RAY, "(raylet) ", "", 2, -1},
	{PF_RAY_REPEAT, "(pid=4242) ", " [repeated 3x across cluster]", 2, -1},
	{PF_COMPOSE, "trainer-1  | ", "", 1, -1},
	{PF_C10, "[E1130 14:19:17.712615150 ProcessGroupNCCL.cpp:689] ", "", 3, -1},
	{PF_C10, "[W Utils.hpp:108] ", "", 3, -1},
	{PF_GLOG, "E1201 12:00:00.123456 4242 train.cc:12] ", "", 3, -1},
	{PF_PYLOG, "ERROR:root:", "", 3, -1},
	{PF_VLLM, "ERROR 11-02 10:00:00 [multiproc_executor.py:546] ", "", 3, -1},
	{PF_VLLM, "INFO 11-11 14:17:08 pynccl.py:69] ", "", 3, -1},
	{PF_SGLANG, "[2025-01-01 12:00:00 TP3] ", "", 3, 3},
	{PF_SGLANG, "[12-01 10:00:00 TP3] ", "", 3, 3},
	{PF_TORCHRUN_LOG, "[2023-10-28 02:56:13,393] __main__: [ERROR] ", "", 3, -1},
	{PF_DEEPSPEED, "[2023-04-14 13:11:27,885] [ERROR] [engine.py:434:step] ", "", 3, -1},
	{PF_RAY_CPP, "[2025-12-07 09:57:19,206 E 393463 393463] (raylet) node_manager.cc:3277: ", "", 3, -1},
	{PF_HF, "12/01/2024 10:00:00 - ERROR - __main__ - ", "", 3, -1},
	{PF_HOST, "gpu-node-3: [rank3]:", "", 2, 3},
	{PF_QUOTE, "> ", "", 0, -1},
	{PF_LINENO, "   123\t", "", 0, -1},
	{PF_CRASH_TAG, "[8d6bf97c3bf4:3039 :0:3095] ", "", 3, -1},
	{PF_CRASH_TAG, "[node1:04242] ", "", 3, -1},
};
#define NWRAPS (sizeof WRAPS / sizeof WRAPS[0])

static struct sigdb db;
static struct matcher *mt;

/* What a line gives: its level, the signatures it matches with their
 * captures, its benign entry, its derived row: one string. */
struct result {
	char text[4096];
	size_t n;
};

static void add(struct result *r, const char *s, size_t n)
{
	if (r->n + n + 1 < sizeof r->text) {
		memcpy(r->text + r->n, s, n);
		r->n += n;
		r->text[r->n] = 0;
	}
}

static void on_match(void *ctx, const struct signature *s, const struct logline *ll, const PCRE2_SIZE *ov, int ng)
{
	struct result *r = ctx;
	add(r, " ", 1);
	add(r, s->id, strlen(s->id));
	for (int g = 1; g < ng; g++) {
		if (ov[2 * g] == PCRE2_UNSET)
			continue;
		add(r, "|", 1);
		add(r, ll->msg.p + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
	}
}

static void line_result(const char *line, struct result *r)
{
	struct logline ll;
	r->n = 0;
	r->text[0] = 0;
	logline_parse(line, strlen(line), &ll);
	char lv[16];
	snprintf(lv, sizeof lv, "%d", (int)ll.level);
	add(r, lv, strlen(lv));
	size_t nc = matcher_scan(mt, &ll);
	const struct signature *bs = matcher_benign(mt, &ll, matcher_candidates(mt), nc);
	if (bs) {
		add(r, " benign:", 8);
		add(r, bs->id, strlen(bs->id));
	}
	nc = matcher_scan(mt, &ll);
	matcher_match_list(mt, &ll, matcher_candidates(mt), nc, "test", on_match, r, NULL);
	struct derive_input in;
	const struct derive_row *row = derive_input_from_line(&ll, &in) ? derive_match(&db.derived, &in) : NULL;
	if (row) {
		add(r, " derived:", 9);
		add(r, row->id, strlen(row->id));
	}
}

/* A one-line bundle: whether it failed, and its top diagnosis (the first of
 * severity error or warning, as tests/accuracy scores it).  Not the verdict
 * itself, nor the context diagnoses: a launcher's rank tag is evidence of
 * its own ("every rank seen printed lines of its own" makes a tagged line
 * healthy where the bare one has no evidence, docs/verdicts.md; a known
 * rank without NCCL output adds ranks.never_reached_nccl as context). */
static void bundle_result(const char *line, char *out, size_t outn)
{
	struct bundle *b = bundle_new("t", &db, NULL);
	bundle_add_memory(b, "ticket.log", line, strlen(line));
	analysis_finish(b);
	int failed = b->verdict == VERDICT_DIAGNOSED || b->verdict == VERDICT_UNKNOWN_FAILURE;
	const char *top = "-";
	for (size_t i = 0; i < b->ndiags && *top == '-'; i++)
		if (b->diags[i].def->severity != SEV_INFO)
			top = b->diags[i].def->id;
	snprintf(out, outn, "%s %s", failed ? "failed" : "not failed", top);
	bundle_free(b);
}

static int nsamples, line_fails, bundle_fails;
static size_t nstacks;

static void wrapped(char *buf, size_t bn, const struct wrap *o, const struct wrap *i, const char *line)
{
	snprintf(buf, bn, "%s%s%s%s%s", o ? o->pre : "", i->pre, line, i->post, o ? o->post : "");
}

static void test_sample(const char *line)
{
	struct result bare, got;
	line_result(line, &bare);
	char bb[256], rb[256], ref[8192];
	bundle_result(line, bb, sizeof bb);
	nsamples++;
	static char buf[8192];
	for (size_t i = 0; i < NWRAPS; i++) {
		wrapped(buf, sizeof buf, NULL, &WRAPS[i], line);
		line_result(buf, &got);
		if (strcmp(bare.text, got.text) != 0) {
			if (line_fails++ < 10)
				fprintf(stderr, "  wrapped in %s: \"%s\"\n    gives \"%s\"\n    bare  \"%s\"\n",
				        peel_family_name(WRAPS[i].fam), buf, got.text, bare.text);
		}
		/* a wrap that names a rank is compared with the line under torchrun's
		 * tag of that rank: a known rank is a fact of its own (a launcher
		 * record tagged with a rank is the rank's output, not the launcher's;
		 * a rank without NCCL output gives ranks.never_reached_nccl) */
		const char *want = bb;
		if (WRAPS[i].rank >= 0) {
			snprintf(ref, sizeof ref, "[rank%d]:%s", WRAPS[i].rank, line);
			bundle_result(ref, rb, sizeof rb);
			want = rb;
		}
		char gb[256];
		bundle_result(buf, gb, sizeof gb);
		if (strcmp(want, gb) != 0 && bundle_fails++ < 10)
			fprintf(stderr, "  bundle of \"%s\": %s, bare: %s\n", buf, gb, want);
		for (size_t o = 0; o < NWRAPS; o++) {
			if (WRAPS[o].tier > WRAPS[i].tier || (WRAPS[i].fam == PF_HOST && WRAPS[o].tier >= 2))
				continue; /* a host glued in front comes outside any launcher's tag */
			wrapped(buf, sizeof buf, &WRAPS[o], &WRAPS[i], line);
			nstacks += nsamples == 1;
			line_result(buf, &got);
			if (strcmp(bare.text, got.text) != 0 && line_fails++ < 10)
				fprintf(stderr, "  wrapped in %s + %s: \"%s\"\n    gives \"%s\"\n    bare  \"%s\"\n",
				        peel_family_name(WRAPS[o].fam), peel_family_name(WRAPS[i].fam), buf, got.text,
				        bare.text);
		}
	}
}

static void test_generated(void)
{
	struct msgs m = {0};
	sigdb_init(&db);
	rules_register(&db);
	CHECK(sigdb_load_dir(&db, "patterns", &m) == 0);
	CHECK(sigdb_finalize(&db, &m) == 0);
	msgs_free(&m);
	mt = matcher_new(&db);
	/* every family of peel.h has a wrap */
	unsigned all = 0;
	for (size_t i = 0; i < NWRAPS; i++)
		all |= 1u << WRAPS[i].fam;
	for (int f = 0; f < PF_COUNT; f++)
		if (!((all >> f) & 1))
			fprintf(stderr, "  no wrap for family %s\n", peel_family_name((enum peel_family)f));
	CHECK(all == (1u << PF_COUNT) - 1);
	/* each wrap is recognised as its family */
	for (size_t i = 0; i < NWRAPS; i++) {
		char buf[512];
		wrapped(buf, sizeof buf, NULL, &WRAPS[i], "RuntimeError: NCCL error");
		parse(buf);
		int ok = fam(WRAPS[i].fam) && msg_is("RuntimeError: NCCL error");
		if (!ok)
			fprintf(stderr, "  wrap %zu (%s) not peeled: \"%s\"\n", i, peel_family_name(WRAPS[i].fam), buf);
		CHECK(ok);
	}
	for (size_t s = 0; s < db.nsigs; s++) {
		const cJSON *smp = cJSON_GetObjectItemCaseSensitive(db.sigs[s].json, "samples"), *it;
		cJSON_ArrayForEach(it, smp) {
			const cJSON *l = cJSON_IsString(it) ? it : cJSON_GetObjectItemCaseSensitive(it, "line");
			if (cJSON_IsString(l))
				test_sample(l->valuestring);
		}
	}
	printf("test_peel: %d samples x %zu wraps (and %zu stacks of two): %d line differences, %d bundle differences\n",
	       nsamples, NWRAPS, nstacks, line_fails, bundle_fails);
	CHECK(nsamples > 700);
	CHECK_INT(line_fails, 0);
	CHECK_INT(bundle_fails, 0);
	matcher_free(mt);
	sigdb_free(&db);
}

int main(void)
{
	test_families();
	test_generated();
	TEST_MAIN_END();
}
