/* Unit tests for crash.c: the detail lines of an open crash block (frame_kind's
 * first-byte gate before its list), at their edges. */
#include <string.h>
#include "parse/crash.h"
#include "parse/logline.h"
#include "testlib.h"

static struct crash C;

/* A fresh block opened by Open MPI's banner, then one line fed: its event. */
static enum crash_event after_banner(const char *line)
{
	struct logline ll;
	struct crash done;
	int closed;
	memset(&C, 0, sizeof C);
	logline_parse("*** Process received signal ***", 31, &ll);
	if (crash_line(&C, &ll, 1, 1, &done, &closed) != CRASH_EV_BANNER)
		return (enum crash_event)-1;
	logline_parse(line, strlen(line), &ll);
	return crash_line(&C, &ll, 2, 0, &done, &closed);
}

int main(void)
{
	/* every detail line of the list, and each cut by one byte (no detail) */
	static const char *const DETAILS[] = {
		"Signal: ", "Signal code: ", "Failing at address: ", "Associated errno: ", "==== backtrace", "=====",
		"*** End of error message ***", "what():", "Exception raised from ", "Current thread 0x", "Thread 0x",
		"Extension modules:", "Python v", "Stack trace of thread", "Module ", "Fatal Python error", "*** SIG",
		"Stack (most recent call first)", "Thread ",
	};
	char buf[128];
	for (size_t i = 0; i < sizeof DETAILS / sizeof DETAILS[0]; i++) {
		snprintf(buf, sizeof buf, "%sx", DETAILS[i]);
		CHECK_INT(after_banner(buf), CRASH_EV_FRAME);
		snprintf(buf, sizeof buf, "  %s", DETAILS[i]); /* after blanks */
		CHECK_INT(after_banner(buf), CRASH_EV_FRAME);
	}
	CHECK_INT(after_banner("Signal:"), CRASH_EV_NONE);        /* one byte short */
	CHECK_INT(after_banner("Signal code:x"), CRASH_EV_NONE);  /* "Signal: " not there either */
	CHECK_INT(after_banner("what()"), CRASH_EV_NONE);
	CHECK_INT(after_banner("Modules "), CRASH_EV_NONE);
	CHECK_INT(after_banner("====x"), CRASH_EV_NONE);
	CHECK_INT(after_banner("** SIG"), CRASH_EV_NONE);
	CHECK_INT(after_banner("xThread 0x"), CRASH_EV_NONE);      /* a first byte of no detail */
	CHECK_INT(after_banner("signal: 11"), CRASH_EV_NONE);      /* case */
	CHECK_INT(after_banner("python v3"), CRASH_EV_NONE);
	CHECK_INT(after_banner("Stack"), CRASH_EV_NONE);
	CHECK_INT(after_banner("Tread 0x"), CRASH_EV_NONE);
	/* frames still come first */
	CHECK_INT(after_banner("[ 3] /usr/lib/libnccl.so.2(+0x1234)[0x7f00]"), CRASH_EV_FRAME);
	CHECK_INT(after_banner("#0  0x00007f in ncclFoo () from libnccl.so.2"), CRASH_EV_FRAME);
	TEST_MAIN_END();
}
