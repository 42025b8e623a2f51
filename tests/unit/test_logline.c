/* Unit tests for logline.c: every NCCL prefix variant 2.10-2.30 and the
 * launcher prefixes, on lines taken from real logs and from NCCL's format
 * strings (reference section 1.1). */
#include <string.h>
#include "logline.h"
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
	CHECK(msg_is("[E1130 14:19:17.712615150 ProcessGroupNCCL.cpp:689] [Rank 0] Watchdog caught collective operation timeout"));
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
	/* a NUL byte inside the line is data, not an end */
	const char withnul[] = "vm:1:1 [0] init.cc:1 NCCL WARN a\0b";
	logline_parse(withnul, sizeof withnul - 1, &L);
	CHECK_INT(L.level, LINE_WARN);
	CHECK_INT((long)L.msg.n, 3);
	TEST_MAIN_END();
}
