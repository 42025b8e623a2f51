/* Unit tests for linekind.c: the NCCL line's answer without the plain
 * line's tests (level not plain and a pid), at its edges, and the kinds
 * and flags of the plain lines. */
#include <string.h>
#include "parse/linekind.h"
#include "parse/logline.h"
#include "testlib.h"

static struct logline L;

static const struct linekind *kind_of(const char *s)
{
	logline_parse(s, strlen(s), &L);
	linekind_classify(&L);
	return &L.lk;
}

/* a hand-made line: level, pid, message (the keywords scanned) */
static const struct linekind *kind_made(enum line_level lvl, long pid, const char *msg)
{
	memset(&L, 0, sizeof L);
	L.level = lvl;
	L.pid = L.tid = pid;
	L.dev = L.rank = -1;
	L.msg.p = msg;
	L.msg.n = strlen(msg);
	linekind_classify(&L);
	return &L.lk;
}

static int flags0(const struct linekind *k)
{
	return !k->exception && !k->indent && !k->table_row && !k->torch_record;
}

int main(void)
{
	const struct linekind *k;
	/* NCCL lines with host:pid:tid: LK_NCCL and no flags, whatever the message */
	k = kind_of("vm:1159:1159 [0] NCCL INFO 12 ValueError: x");
	CHECK_INT(k->kind, LK_NCCL);
	CHECK(flags0(k));
	CHECK_INT(L.lk_known, 1);
	k = kind_of("vm:1159:1159 [0] misc/socket.cc:1 NCCL WARN # not a table");
	CHECK_INT(k->kind, LK_NCCL);
	CHECK(flags0(k));
	/* the edges of that test: pid 0 is a pid; -1 is none; a plain level never */
	k = kind_made(LINE_INFO, 0, "ValueError: x");
	CHECK_INT(k->kind, LK_NCCL);
	CHECK(flags0(k));
	k = kind_made(LINE_CALL, 7, "# x");
	CHECK_INT(k->kind, LK_NCCL);
	CHECK(flags0(k));
	k = kind_made(LINE_WARN, -1, "ValueError: x"); /* an NCCL line without host:pid:tid: the flags, kind NCCL */
	CHECK_INT(k->kind, LK_NCCL);
	CHECK_INT(k->exception, 1);
	k = kind_made(LINE_PLAIN, 5, "ValueError: x"); /* a pid on a plain line: still plain */
	CHECK_INT(k->kind, LK_TRACEBACK);
	CHECK_INT(k->exception, 1);
	k = kind_of("NCCL WARN 12 things"); /* hostless: the table flag is set, the kind is NCCL's */
	CHECK_INT(L.pid, -1);
	CHECK_INT(k->kind, LK_NCCL);
	CHECK_INT(k->table_row, 1);
	/* plain lines */
	k = kind_of("torch.distributed.DistBackendError: NCCL error");
	CHECK_INT(k->kind, LK_TRACEBACK);
	CHECK_INT(k->exception, 1);
	CHECK_INT(k->indent, 0);
	k = kind_of("    RuntimeError: boom");
	CHECK_INT(k->kind, LK_TRACEBACK);
	CHECK_INT(k->indent, 4);
	k = kind_of("  File \"x.py\", line 1, in f");
	CHECK_INT(k->kind, LK_TRACEBACK);
	CHECK_INT(k->exception, 0);
	CHECK_INT(k->indent, 0);
	k = kind_of("a.b.RendezvousTimeoutError");
	CHECK_INT(k->exception, 1);
	k = kind_of("RendezvousTimeoutError"); /* alone, without a '.' */
	CHECK_INT(k->exception, 0);
	CHECK_INT(k->kind, LK_OTHER);
	k = kind_of("ray.exceptions.RayTaskError(OutOfMemoryError): x");
	CHECK_INT(k->exception, 1);
	k = kind_of("#  size  count");
	CHECK_INT(k->kind, LK_TABLE);
	CHECK_INT(k->table_row, 1);
	k = kind_of("   1024   256  float");
	CHECK_INT(k->kind, LK_TABLE);
	k = kind_of("                    7"); /* 20 blanks: past the exception test's 16, the table test reads on */
	CHECK_INT(k->table_row, 1);
	k = kind_of("hello world");
	CHECK_INT(k->kind, LK_OTHER);
	CHECK(flags0(k));
	k = kind_of("");
	CHECK_INT(k->kind, LK_OTHER);
	CHECK(flags0(k));
	/* linekind_compute: the same answer, ll untouched */
	struct linekind tmp;
	logline_parse("vm:1:1 [0] NCCL INFO x", 22, &L);
	CHECK_INT(linekind_get(&L, &tmp)->kind, LK_NCCL);
	CHECK_INT(L.lk_known, 0);
	logline_parse("ValueError: y", 13, &L);
	CHECK_INT(linekind_get(&L, &tmp)->kind, LK_TRACEBACK);
	CHECK_INT(L.lk_known, 0);
	TEST_MAIN_END();
}
