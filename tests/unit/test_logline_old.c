/* Unit tests for logline.c: NCCL's own line header in the eras before 2.10.
 * The lines are real (learn-half threads, quoted byte-exact) or instances of
 * the formats of the old tags' debug code:
 *   2.0-2.2 (no tag, no source; real output of learn-half threads): "host:pid:tid [dev] INFO msg",
 *     "host:pid:tid [dev] file:line WARN msg", "file:line WARN msg";
 *   2.3.7 src/include/debug.h, 2.4.8 src/include/debug.h, 2.5.7 src/debug.cc:
 *     "\n%s:%d:%d [%d] %s:%d NCCL WARN ", "%s:%d:%d [%d] NCCL INFO ",
 *     .cu source names up to 2.4.2;
 *   a net plugin's line pasted with a space after the colon (issue 22 names
 *     "ibvwrap.c: 106"). */
#include <string.h>
#include "parse/logline.h"
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
	/* NCCL 2.2.13 (https://github.com/NVIDIA/nccl-tests/issues/15,
	 * tests/learn/socket-nccltests-15-connect-timeout.log) */
	parse("gpu-bql-144-103:18553:18553 [0] INFO NET : Using interface enp3s0:192.168.144.103<0>");
	CHECK_INT(L.level, LINE_INFO);
	CHECK(msg_is("NET : Using interface enp3s0:192.168.144.103<0>"));
	CHECK(span_is(L.host, "gpu-bql-144-103"));
	CHECK_INT(L.pid, 18553);
	CHECK_INT(L.tid, 18553);
	CHECK_INT(L.dev, 0);
	parse("gpu-bql-144-103:18553:18611 [0] include/socket.h:360 WARN Call to connect failed : Connection timed out");
	CHECK_INT(L.level, LINE_WARN);
	CHECK(msg_is("Call to connect failed : Connection timed out"));
	CHECK(span_is(L.file, "include/socket.h"));
	CHECK_INT(L.srcline, 360);
	CHECK_INT(L.tid, 18611);
	/* the return chain of 2.2 (INFO, file:line -> code) */
	parse("gpu-bql-144-103:18553:18611 [0] INFO transport/net_socket.cu:118 -> 2");
	CHECK_INT(L.level, LINE_INFO);
	CHECK(msg_is("transport/net_socket.cu:118 -> 2"));
	/* the same prefix again (the memo of the last INFO prefix) */
	parse("gpu-bql-144-103:18553:18611 [0] INFO bootstrap.cu:28 -> 2 [Net]");
	CHECK_INT(L.level, LINE_INFO);
	CHECK(msg_is("bootstrap.cu:28 -> 2 [Net]"));
	CHECK(span_is(L.host, "gpu-bql-144-103"));
	/* pasted without host:pid:tid (https://github.com/NVIDIA/nccl/issues/210,
	 * tests/learn/socket-nccl-210-noif.log) */
	parse("include/socket.h:344 WARN Socket creation failed : Address family not supported by protocol");
	CHECK_INT(L.level, LINE_WARN);
	CHECK(msg_is("Socket creation failed : Address family not supported by protocol"));
	CHECK(span_is(L.file, "include/socket.h"));
	CHECK_INT(L.srcline, 344);
	CHECK_INT(L.pid, -1);

	/* NCCL 2.3/2.4: .cu names with the NCCL token (nccl#230, nccl#551) */
	parse("container-e275-1553839402050-12124-01-000057:815:864 [0] transport/net_ib.cu:80 NCCL WARN NET/IB : Got async event : local catastrophic error");
	CHECK_INT(L.level, LINE_WARN);
	CHECK(span_is(L.file, "transport/net_ib.cu"));
	CHECK_INT(L.srcline, 80);
	CHECK(msg_is("NET/IB : Got async event : local catastrophic error"));
	parse("gpunodev2:10770:10794 [0] misc/ibvwrap.cu:284 NCCL WARN Call to ibv_modify_qp failed with error No such device");
	CHECK_INT(L.level, LINE_WARN);
	CHECK(span_is(L.file, "misc/ibvwrap.cu"));
	parse("gpunodev2:10770:10794 [0] NCCL INFO misc/group.cu:69 -> 2 [Async thread]");
	CHECK_INT(L.level, LINE_INFO);
	CHECK(msg_is("misc/group.cu:69 -> 2 [Async thread]"));
	/* the old ring lines are INFO messages like any other (2.3.7 src/transport/p2p.cu:480) */
	parse("node1:4242:4242 [0] NCCL INFO Ring 00 : 0[0] -> 1[1] via P2P/IPC");
	CHECK_INT(L.level, LINE_INFO);
	CHECK(msg_is("Ring 00 : 0[0] -> 1[1] via P2P/IPC"));
	/* 2.2 ring line without "Ring NN :" */
	parse("gpu-bql-144-103:18553:18612 [0] INFO 0 -> 1 via P2P/IPC");
	CHECK_INT(L.level, LINE_INFO);
	CHECK(msg_is("0 -> 1 via P2P/IPC"));

	/* a net plugin's line with a space after the colon */
	parse("ibvwrap.c: 106 NCCL WARN Call to ibv_reg_mr failed");
	CHECK_INT(L.level, LINE_WARN);
	CHECK(span_is(L.file, "ibvwrap.c"));
	CHECK_INT(L.srcline, 106);
	CHECK(msg_is("Call to ibv_reg_mr failed"));

	/* look-alikes stay plain: a Python logger's WARN after a .py name, an
	 * INFO without the [dev] bracket, a bare INFO */
	parse("train.py:12 WARN loss is nan");
	CHECK_INT(L.level, LINE_PLAIN);
	parse("node1:4242:4242 INFO something");
	CHECK_INT(L.level, LINE_PLAIN);
	parse("INFO 0 -> 1 via P2P/IPC");
	CHECK_INT(L.level, LINE_PLAIN);
	parse("Note: 5 WARN x");
	CHECK_INT(L.level, LINE_PLAIN);
	parse("setup.cfg:3 WARN deprecated");
	CHECK_INT(L.level, LINE_PLAIN);
	TEST_MAIN_END();
}
