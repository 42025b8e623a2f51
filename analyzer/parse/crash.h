/* crash.h - native crashes and stack dumps, one line at a time: a banner
 * starts a block, the frames after it are read until a line that is no
 * frame, and the block keeps what the derived crash rows need
 * (patterns/derived.json, "from": "crash"; docs/derived.md): the signal and
 * the innermost frames that name NCCL, c10d or CUDA.
 *
 * Banners (each printed so by the program named):
 *   UCX            "Caught signal 7 (Bus error: nonexistent physical address)",
 *                  "==== backtrace (tid:   3095) ====" (src/ucs/debug/debug.c)
 *   Open MPI       "*** Process received signal ***", "Signal: Bus error (7)"
 *                  (opal/util/stacktrace.c)
 *   abseil / glog  "*** SIGSEGV received at time=1713225805 on cpu 63 ***", glog's CHECK
 *                  "*** Check failure stack trace: ***",
 *                  "*** SIGSEGV (@0x0) received by PID 12 (TID 0x7f..) ..."
 *   gdb, cuda-gdb  'Thread 1 "python" received signal SIGBUS, Bus error.',
 *                  "Program received signal SIGSEGV", "CUDA Exception: Warp Illegal Address";
 *                  a "bt" pasted alone opens at its "#0  0x... in f ()"
 *   lldb           "* thread #1, name = 'python', stop reason = signal SIGSTOP"
 *   faulthandler   "Fatal Python error: Segmentation fault", "Current thread 0x... (most
 *                  recent call first):", "Thread 0x... (most recent call first):"
 *   py-spy dump    'Thread 1302975 (active): "MainThread"'
 *   c10            "Exception raised from query at .../CUDAEvent.h:125 (most recent call first):",
 *                  "terminate called after throwing an instance of 'c10::Error'"
 *   shells         "Segmentation fault (core dumped)", "Bus error (core dumped)",
 *                  "Aborted (core dumped)"; systemd-coredump "... dumped core."
 * Frames: UCX " 2 0x... ncclGroupEnd()  ???:0", glibc "/lib/libc.so.6(+0x42520)[0x..]",
 * Open MPI "[ 3] /usr/lib/libnccl.so.2(+0x..)[0x..]", abseil "    @ 0x... (unknown)",
 * gdb "#0  0x... in ncclFoo () from libnccl.so.2", c10 "frame #3: c10d::...", lldb
 * "frame #10: 0x... libcudart.so.11.0`cudaEventSynchronize + 344",
 * faulthandler '  File "x.py", line 12 in f', py-spy "    ncclAllReduce (collectives.cc:49)".
 * Self-contained apart from the line struct; the bundle owns one per document. */
#ifndef NT_CRASH_H
#define NT_CRASH_H

#include <stddef.h>
#include <stdint.h>
#include "parse/logline.h"

#define CRASH_FRAMES_TEXT 1024
#define CRASH_FRAMES_READ 16     /* frames of a block searched for NCCL, c10d or CUDA names */

enum crash_kind { CRASH_NONE, CRASH_SIGNAL, CRASH_DEBUGGER, CRASH_FAULTHANDLER, CRASH_PYSPY, CRASH_C10, CRASH_NOTICE };

struct crash {
	int open;
	enum crash_kind kind;
	int sig;                    /* the signal number, 0 when the block does not say */
	int rank;                   /* the banner's launcher rank (frames of other ranks are not its) */
	int frames;                 /* frame lines read */
	int gap;                    /* lines since the last frame or detail */
	uint64_t line;              /* the banner's line */
	/* the innermost frame that names NCCL, c10d or CUDA (frames are printed
	 * innermost first), and every such frame, joined with '\n' */
	char frame[256];
	uint64_t frame_line;        /* 0: none */
	char text[CRASH_FRAMES_TEXT];
	size_t textn;
};

/* What crash_line made of a line. */
enum crash_event { CRASH_EV_NONE, CRASH_EV_BANNER, CRASH_EV_FRAME };

/* Whether the message can start a block (cheap: the caller gates it with
 * the prefilter's KW_CRASH keyword); its kind and signal. */
enum crash_kind crash_banner(const struct span *m, int *sig);
/* Feed one line (is_banner_kw: the line has the KW_CRASH keyword).  When the
 * open block ended before this line, *closed is set and *done is a copy of
 * it; then the line may open the next block.  Returns CRASH_EV_BANNER when
 * this line opened a block, CRASH_EV_FRAME when it is a frame or detail
 * line of the open one. */
enum crash_event crash_line(struct crash *c, const struct logline *ll, uint64_t lineno, int is_banner_kw,
                            struct crash *done, int *closed);
/* The end of the document: the open block, if any, in *done (*closed). */
void crash_end(struct crash *c, struct crash *done, int *closed);
/* "SIGBUS" for 7; NULL for 0 or an unknown number. */
const char *crash_signal_name(int sig);

#endif
