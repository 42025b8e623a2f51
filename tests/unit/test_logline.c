/* Unit tests for logline.c: every NCCL prefix variant 2.10-2.30 and the
 * launcher prefixes, on lines taken from real logs and from NCCL's format
 * strings (reference section 1.1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse/logline.h"
#include "parse/peel.h"
#include "testlib.h"

static struct logline L;

static void parse(const char *s)
{
	logline_parse(s, strlen(s), &L);
}

static int msg_is(const char *want)
{
	return L.msg.n == strlen(want) && memcmp(L.msg.p, want, L.msg.n) == 0;
}

static int span_is(struct span s, const char *want)
{
	return s.n == strlen(want) && memcmp(s.p, want, s.n) == 0;
}

int main(void)
{
	/* 2.28 INFO (real capture) */
	parse("vm:1159:1159 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to nonexist0");
	CHECK_INT(L.level, LINE_INFO);
	CHECK(msg_is("NCCL_SOCKET_IFNAME set by environment to nonexist0"));
	CHECK(span_is(L.host, "vm"));
	CHECK_INT(L.pid, 1159);
	CHECK_INT(L.tid, 1159);
	CHECK_INT(L.dev, 0);
	CHECK_INT(L.rank, -1);

	/* a WARN pasted without host, file and line (tests/learn/bug-nccl-137: the
	 * reporter kept the level); a bare "WARN " alone is no NCCL line */
	parse("NCCL WARN Unable to allocate shared memory (4214784 bytes) : Interrupted system call");
	CHECK_INT(L.level, LINE_WARN);
	CHECK(msg_is("Unable to allocate shared memory (4214784 bytes) : Interrupted system call"));
	CHECK_INT(L.pid, -1);
	parse("WARN Unable to allocate shared memory (4214784 bytes) : Interrupted system call");
	CHECK_INT(L.level, LINE_PLAIN);

	/* 2.26+ WARN with timestamp (real capture) */
	parse("[2026-11-30 14:16:13] vm:1159:1159 [0] bootstrap.cc:114 NCCL WARN Bootstrap : no socket interface found");
	CHECK_INT(L.level, LINE_WARN);
	CHECK(msg_is("Bootstrap : no socket interface found"));
	CHECK(span_is(L.ts, "2026-11-30 14:16:13"));
	CHECK(span_is(L.file, "bootstrap.cc"));
	CHECK_INT(L.srcline, 114);

	/* 2.30 WARN with (function) */
	parse("node-7:2211:2290 [3] misc/socket.cc:582 (socketPollConnect) NCCL WARN socketPollConnect: connect to 10.0.0.2<43210> returned Connection refused, exceeded error retry count after 35 attempts");
	CHECK_INT(L.level, LINE_WARN);
	CHECK(span_is(L.func, "socketPollConnect"));
	CHECK(span_is(L.file, "misc/socket.cc"));
	CHECK_INT(L.dev, 3);
	CHECK(span_is(L.host, "node-7"));

	/* a net plugin logging with __PRETTY_FUNCTION__ for NCCL's file: aws-ofi-nccl
	 * in C (a bare name; real: aws/aws-ofi-nccl#24) and in C++ (1.16+: the whole
	 * signature; the format instance of src/nccl_ofi_net.cpp:259 of v1.16.0) */
	parse("[1,23]<stdout>:ip-172-32-45-165:72593:73427 [7] create_nccl_ofi_component:459 NCCL WARN NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument");
	CHECK_INT(L.level, LINE_WARN);
	CHECK(span_is(L.file, "create_nccl_ofi_component"));
	CHECK_INT(L.srcline, 459);
	CHECK(msg_is("NET/OFI Couldn't open AV. RC: -22, ERROR: Invalid argument"));
	parse("ip-10-0-0-1:79:79 [0] int nccl_net_ofi_create_plugin(nccl_net_ofi_plugin_t**):259 NCCL WARN NET/OFI Unable to find a protocol that worked.  Failing initialization.");
	CHECK_INT(L.level, LINE_WARN);
	CHECK(span_is(L.func, "int nccl_net_ofi_create_plugin(nccl_net_ofi_plugin_t**)"));
	CHECK_INT((int)L.file.n, 0);
	CHECK_INT(L.srcline, 259);
	CHECK_INT(L.dev, 0);
	CHECK(span_is(L.host, "ip-10-0-0-1"));
	CHECK(msg_is("NET/OFI Unable to find a protocol that worked.  Failing initialization."));
	parse("ip-10-0-0-1:79:79 [0] virtual int nccl_net_ofi_rdma_ep_t::cleanup_resources():1740 NCCL TRACE NET/OFI x");
	CHECK_INT(L.level, LINE_TRACE);
	CHECK(span_is(L.func, "virtual int nccl_net_ofi_rdma_ep_t::cleanup_resources()"));
	/* no signature: not a plugin's location */
	parse("ip-10-0-0-1:79:79 [0] the run took 12 NCCL WARN something");
	CHECK_INT(L.level, LINE_PLAIN);
	parse("ip-10-0-0-1:79:79 [0] see (x) :12 NCCL WARN something");
	CHECK_INT(L.level, LINE_PLAIN);

	/* 2.10-2.25 WARN, no timestamp; hostname with dots truncated by NCCL but dashes kept */
	parse("gpu-a100-01:45231:45290 [7] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.1.1.5<56001> with error 12, opcode 0, len 0, vendor err 129");
	CHECK_INT(L.level, LINE_WARN);
	CHECK_INT(L.dev, 7);
	CHECK(span_is(L.file, "transport/net_ib.cc"));

	/* WARN with an empty message (the "\n" variants) */
	parse("host:1:2 [0] init.cc:10 NCCL WARN");
	CHECK_INT(L.level, LINE_WARN);
	CHECK_INT((long)L.msg.n, 0);

	/* TRACE and CALL */
	parse("host:12:13 [1] 1234.567890 ncclProxyProgress:88 NCCL TRACE something happened");
	CHECK_INT(L.level, LINE_TRACE);
	CHECK(msg_is("something happened"));
	parse("host:12:13 NCCL CALL ncclCommInitRank(0x5581,2,0x7f..,0,0)");
	CHECK_INT(L.level, LINE_CALL);
	CHECK_INT(L.dev, -1);

	/* torch [rankN]: prefix in front of an NCCL line and of a glog line */
	parse("[rank1]:vm:1225:1225 [0] NCCL INFO cudaDriverVersion 13000");
	CHECK_INT(L.level, LINE_INFO);
	CHECK_INT(L.rank, 1);
	CHECK(msg_is("cudaDriverVersion 13000"));
	parse("[rank0]:[E1130 14:19:17.712615150 ProcessGroupNCCL.cpp:689] [Rank 0] Watchdog caught collective operation timeout");
	CHECK_INT(L.level, LINE_PLAIN);
	CHECK_INT(L.rank, 0);
	/* the c10 logger header is peeled (peel.h); its time and severity are kept */
	CHECK(msg_is("[Rank 0] Watchdog caught collective operation timeout"));
	CHECK(span_is(L.ts, "E1130 14:19:17.712615150"));
	CHECK_INT(L.logger, 'E');
	CHECK_INT(L.logger_kind, PL_C10);
	parse("[rank1]  using cuda:1 of 2");
	CHECK_INT(L.rank, 1);
	CHECK(msg_is("using cuda:1 of 2"));
	parse("[default3]:[rank3]: torch.OutOfMemoryError: CUDA out of memory.");
	CHECK_INT(L.rank, 3);
	CHECK(msg_is("torch.OutOfMemoryError: CUDA out of memory."));

	/* mpirun --tag-output and srun -l */
	parse("[1,3]<stderr>:node1:100:100 [3] NCCL INFO Bootstrap: Using ib0:10.0.0.1<0>");
	CHECK_INT(L.rank, 3);
	CHECK_INT(L.level, LINE_INFO);
	parse("12: node1:100:100 [0] NCCL INFO comm 0x1 rank 12 nranks 16 cudaDev 0 busId 18000 - Init COMPLETE");
	CHECK_INT(L.rank, 12);
	CHECK_INT(L.level, LINE_INFO);

	/* collector ISO timestamp */
	parse("2026-11-30T14:16:13.123456789Z vm:1:1 [0] NCCL INFO NET/IB : No device found.");
	CHECK_INT(L.level, LINE_INFO);
	CHECK(span_is(L.ts, "2026-11-30T14:16:13.123456789Z"));

	/* CRLF and plain lines */
	parse("vm:1159:1159 [0] NCCL INFO Using network Socket\r");
	CHECK(msg_is("Using network Socket"));
	parse("NCCL version 2.18.6+cuda12.1");
	CHECK_INT(L.level, LINE_PLAIN);
	CHECK(msg_is("NCCL version 2.18.6+cuda12.1"));
	parse("Traceback (most recent call last):");
	CHECK_INT(L.level, LINE_PLAIN);
	parse("");
	CHECK_INT(L.level, LINE_PLAIN);
	CHECK_INT((long)L.msg.n, 0);
	/* look-alikes that are not NCCL prefixes */
	parse("http://host:80:90 [0] NCCL INFO");
	CHECK_INT(L.level, LINE_PLAIN);
	parse("a:1:2 [x] NCCL INFO y");
	CHECK_INT(L.level, LINE_PLAIN);
	/* ---- lines as people paste them (issue 13): every sample is real ---- */
	/* old file:line WARN without host:pid:tid (NVIDIA/nccl-tests#206, tests/corpus/memlock-nccl-tests-206.log) */
	parse("misc/ibvwrap.cc:278 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory");
	CHECK_INT(L.level, LINE_WARN);
	CHECK(span_is(L.file, "misc/ibvwrap.cc"));
	CHECK_INT(L.srcline, 278);
	CHECK(msg_is("Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory"));
	CHECK_INT(L.pid, -1);
	CHECK_INT((long)L.host.n, 0);
	/* the same in lmdeploy's log (InternLM/lmdeploy#1108, tests/heldout) */
	parse("init.cc:1582 NCCL WARN Cuda failure 'CUDA driver version is insufficient for CUDA runtime version'");
	CHECK_INT(L.level, LINE_WARN);
	CHECK(span_is(L.file, "init.cc"));
	/* only "[dev]" left of the prefix (NVIDIA/nccl#525, tests/corpus/shm-nccl-525-kubeflow.log) */
	parse("[3] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device");
	CHECK_INT(L.level, LINE_WARN);
	CHECK_INT(L.dev, 3);
	CHECK(span_is(L.file, "include/shm.h"));
	CHECK(msg_is("Call to posix_fallocate failed : No space left on device"));
	CHECK_INT((long)L.ts.n, 0);
	/* the host redacted to nothing, behind srun -l's "201: " (NVIDIA/nccl#653, tests/corpus/env-nccl-653-collnet.log) */
	parse("201: :41367:41367 [1] enqueue.cc:422 NCCL WARN Error : no algorithm/protocol available");
	CHECK_INT(L.level, LINE_WARN);
	CHECK_INT(L.rank, 201);
	CHECK_INT(L.pid, 41367);
	CHECK_INT((long)L.host.n, 0);
	CHECK(msg_is("Error : no algorithm/protocol available"));
	/* a numeric "[N] " launcher rank in front of a whole prefix (NVIDIA/nccl#1232) */
	parse("[1] node2:22555:22555 [0] NCCL INFO Channel 00/0 : 2[1] -> 1[0] [receive] via NET/Socket/0");
	CHECK_INT(L.level, LINE_INFO);
	CHECK_INT(L.rank, 1);
	CHECK_INT(L.dev, 0);
	CHECK(span_is(L.host, "node2"));
	CHECK_INT((long)L.ts.n, 0);
	/* mpirun --tag-output with no space after the tag (nccl-tests output in an AWS EKS guide, code index) */
	parse("[1,0]<stdout>:# Out of bounds values : 0 OK");
	CHECK_INT(L.rank, 0);
	CHECK(msg_is("# Out of bounds values : 0 OK"));
	/* Ray's worker prefixes (ray-project/ray_lightning#24, tests/corpus; vLLM logs quoted in public repositories) */
	parse("(pid=909608) z-pc:909608:910337 [0] transport/p2p.cc:238 NCCL WARN failed to open CUDA IPC handle : 217 peer access is not supported between these two devices");
	CHECK_INT(L.level, LINE_WARN);
	CHECK(span_is(L.file, "transport/p2p.cc"));
	CHECK_INT(L.pid, 909608);
	parse("(RayWorkerWrapper pid=263, ip=10.0.16.95) INFO 01-30 11:53:53 model_runner.py:1115] Loading model weights took 7.5100 GB");
	CHECK_INT(L.level, LINE_PLAIN);
	CHECK(msg_is("Loading model weights took 7.5100 GB"));
	CHECK_INT(L.wpid, 263);
	CHECK(span_is(L.whost, "10.0.16.95"));
	CHECK(span_is(L.ts, "01-30 11:53:53"));
	/* colour codes: as bytes (Ray wraps relayed lines), as cat -v shows them, with the escape
	 * byte lost, and as rsyslog writes them (vLLM logs quoted in public repositories) */
	parse("\x1b[36m(RayWorkerWrapper pid=123, ip=10.0.0.2)\x1b[0m denoising:  40%|");
	CHECK(msg_is("denoising:  40%|"));
	parse("^[[1;36m(VllmWorkerProcess pid=176029)^[[0;0m ERROR 04-17 15:30:42 [multiproc_worker_utils.py:238] Exception in worker VllmWorkerProcess while processing method load_model.^M");
	CHECK(msg_is("Exception in worker VllmWorkerProcess while processing method load_model."));
	CHECK_INT(L.logger, 'E');
	parse("[1;36m(VllmWorkerProcess pid=103728)[0;0m INFO 07-09 12:57:20 [multiproc_worker_utils.py:225] Worker ready; awaiting tasks");
	CHECK(msg_is("Worker ready; awaiting tasks"));
	parse("#033[1;36m(VllmWorkerProcess pid=240)#033[0;0m INFO 02-14 08:23:15 worker.py:266] the current vLLM instance can use total_gpu_memory (39.39GiB) x gpu_memory_utilization (0.90) = 35.45GiB");
	CHECK(msg_is("the current vLLM instance can use total_gpu_memory (39.39GiB) x gpu_memory_utilization (0.90) = 35.45GiB"));
	/* the escaped forms of a GitHub Actions log (gh run view --log, code index) */
	parse("2026-09-03T02:33:34.5485495Z ^[[36;1mnpm run typecheck^[[0m");
	CHECK(span_is(L.ts, "2026-09-03T02:33:34.5485495Z"));
	CHECK(msg_is("npm run typecheck")); /* the closing colour code too */
	/* docker / kubectl --timestamps RFC 3339 in front of torch's rank prefix (ai2cm/ace#679) */
	parse("2025-10-04T15:16:15.735Z [rank0]:[W1004 15:16:15.503072590 ProcessGroupNCCL.cpp:1479] Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())");
	CHECK_INT(L.rank, 0);
	CHECK(span_is(L.ts, "2025-10-04T15:16:15.735Z"));
	CHECK_INT(L.level, LINE_PLAIN);
	/* a collector's "YYYY-MM-DD HH:MM " (NVIDIA/nccl#1610) */
	parse(" 2025-02-18 12:54 ncivki7qpk7pmo1btv0h0:179:3087 [6] proxy.cc:1458 NCCL WARN [Service thread] Accept failed Resource temporarily unavailable" + 1);
	CHECK_INT(L.level, LINE_WARN);
	CHECK(span_is(L.ts, "2025-02-18 12:54"));
	CHECK(span_is(L.host, "ncivki7qpk7pmo1btv0h0"));
	CHECK(span_is(L.file, "proxy.cc"));
	/* journald's short format (a kernel line quoted in a public GitHub issue, code index) */
	parse("Aug 12 01:22:51 err-Stealth-16-AI-Studio-A1VGG kernel: NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)");
	CHECK(msg_is("NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)"));
	CHECK(span_is(L.ts, "Aug 12 01:22:51"));
	/* ... whose ident[pid] may front a vLLM worker prefix (a systemd unit's log, code index) */
	parse("Oct  3 06:34:02 HNET00 vllm-active.sh[4192747]: (Worker_TP0 pid=4192747) INFO Parent process exited");
	CHECK(msg_is("INFO Parent process exited"));
	/* a line number pasted in front (espnet/espnet#1940, tests/heldout) */
	parse("451 tj1-asr-train-v100-11:41449:41449 [6] NCCL INFO Bootstrap : Using [0]eth0:10.38.10.4<0>");
	CHECK_INT(L.level, LINE_INFO);
	CHECK(span_is(L.host, "tj1-asr-train-v100-11"));
	CHECK(msg_is("Bootstrap : Using [0]eth0:10.38.10.4<0>"));
	/* ... but a number and a space alone are data (nccl-tests rows) */
	parse("    33554432       8388608     float     sum      -1   2174.8   15.43   24.69      0   2170.2   15.46   24.74      0" + 4);
	CHECK_INT(L.level, LINE_PLAIN);
	CHECK_INT(L.rank, -1);
	/* look-alikes of the new forms stay plain */
	parse("train.py:12 loss 0.3");
	CHECK_INT(L.level, LINE_PLAIN);
	parse("(pid 12) text");
	CHECK(msg_is("(pid 12) text"));
	parse("[2] rows");
	CHECK_INT(L.level, LINE_PLAIN);
	CHECK(msg_is("[2] rows"));
	parse("May the run succeed: yes");
	CHECK(msg_is("May the run succeed: yes"));

	/* a NUL byte inside the line is data, not an end */
	const char withnul[] = "vm:1:1 [0] init.cc:1 NCCL WARN a\0b";
	logline_parse(withnul, sizeof withnul - 1, &L);
	CHECK_INT(L.level, LINE_WARN);
	CHECK_INT((long)L.msg.n, 3);

	/* a line that is only a timestamp bracket and a blank, after an NCCL
	 * line (the prefix memo set), in a buffer of exactly its bytes: nothing
	 * past it is read (the memo's first-byte test; ASan says otherwise) */
	parse("vm:1159:1159 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>");
	char *bare = malloc(11);
	memcpy(bare, "[12345678] ", 11);
	logline_parse(bare, 11, &L);
	CHECK_INT(L.level, LINE_PLAIN);
	free(bare);

	/* a line that starts with a blank and that no outer prefix takes is
	 * not tried as it is (no prefix starts with a blank): the indent path
	 * finds the NCCL prefix after the blanks, at its edges */
	parse("   vm:1159:1159 [0] NCCL INFO ok");
	CHECK_INT(L.level, LINE_INFO);
	CHECK(msg_is("ok"));
	CHECK_INT(L.pid, 1159);
	parse("\tvm:1159:1160 [1] NCCL INFO ok"); /* a tab */
	CHECK_INT(L.level, LINE_INFO);
	CHECK_INT(L.tid, 1160);
	parse(" \t NCCL INFO hostless"); /* mixed blanks, then no host */
	CHECK_INT(L.level, LINE_INFO);
	CHECK(msg_is("hostless"));
	parse("                 vm:1:1 [0] NCCL INFO x"); /* 17 blanks: past the indent's 16 */
	CHECK_INT(L.level, LINE_PLAIN);
	CHECK_INT(L.pid, -1);
	parse("          "); /* only blanks */
	CHECK_INT(L.level, LINE_PLAIN);
	CHECK_INT((long)L.msg.n, 10);
	parse(" vm:1:1 [0] NCC"); /* blank-led, short of a level */
	CHECK_INT(L.level, LINE_PLAIN);
	CHECK(msg_is(" vm:1:1 [0] NCC"));
	parse("  [1,0]<stdout>:vm:7:7 [0] NCCL INFO tagged"); /* blanks before a launcher's tag: peeled */
	CHECK_INT(L.level, LINE_INFO);
	CHECK_INT(L.rank, 0);
	CHECK(msg_is("tagged"));
	/* the prefix memo's slots, compared first at the 8 bytes after the host:
	 * six processes of one host interleaved (more than the slots), each line
	 * with its own pid, tid and device; then lines that share those 8 bytes
	 * with a slot and differ after them */
	for (int round = 0; round < 3; round++)
		for (int p = 0; p < 6; p++) {
			char line[96];
			snprintf(line, sizeof line, "node-1:%d:%d [%d] NCCL INFO m%d", 4100 + p, 4200 + p, p, p);
			parse(line);
			CHECK_INT(L.level, LINE_INFO);
			CHECK_INT(L.pid, 4100 + p);
			CHECK_INT(L.tid, 4200 + p);
			CHECK_INT(L.dev, p);
			CHECK(span_is(L.host, "node-1"));
			snprintf(line, sizeof line, "m%d", p);
			CHECK(msg_is(line));
		}
	parse("node-1:4100:4200 [0] NCCL INFO again");
	parse("node-1:4100:4200 [0] NCCL CALL ncclAllReduce(x)"); /* same 8 bytes, another level */
	CHECK_INT(L.level, LINE_CALL);
	CHECK(msg_is("ncclAllReduce(x)"));
	parse("node-1:4100:4200 [1] NCCL INFO dev1"); /* same 8 bytes, another device */
	CHECK_INT(L.dev, 1);
	CHECK(msg_is("dev1"));
	parse("node-1:4100:42000 [0] NCCL INFO tid"); /* the tid longer after the 8 bytes */
	CHECK_INT(L.tid, 42000);
	parse("node-2:4100:4200 [0] NCCL INFO host2"); /* another host, the same numbers */
	CHECK(span_is(L.host, "node-2"));
	parse("node-1:4100:4200 [0] NCCL INF"); /* shorter than the slot */
	CHECK_INT(L.level, LINE_PLAIN);
	/* empty lines, after the CR strip too */
	parse("");
	CHECK_INT(L.level, LINE_PLAIN);
	CHECK_INT((long)L.msg.n, 0);
	CHECK_INT(L.rank, -1);
	CHECK_INT(L.wpid, -1);
	CHECK_INT(L.families, 0);
	parse("\r\r");
	CHECK_INT((long)L.msg.n, 0);
	CHECK(L.head == NULL && L.ts.n == 0 && L.whost.n == 0);
	parse("^M");
	CHECK_INT((long)L.msg.n, 0);
	TEST_MAIN_END();
}
