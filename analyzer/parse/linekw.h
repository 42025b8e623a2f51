/* linekw.h - the fixed literals that the built-in line analyses (rank
 * timelines in ranks.c, unexplained failure lines and log facts in
 * bundle.c) look for in a line's message.
 *
 * They are found by the same prefilter pass that finds the signatures'
 * literals (sigdb adds them to its acmatch with LINEKW_FLAG set in the
 * value; matcher_scan collects them), so a line is scanned once, whatever
 * the number of checks; the result is a mask of KW_BIT(k) for every
 * keyword k present in the message.  linekw_scan() computes the same mask
 * the slow way, for callers without a matcher (and to test the fast one). */
#ifndef NT_LINEKW_H
#define NT_LINEKW_H

#include <stddef.h>
#include <stdint.h>

struct acmatch;

enum linekw {
	KW_CHILD_FAILED,      /* torchrun's ChildFailedError block */
	KW_SIGNAL_EXCEPTION,  /* the launcher itself got a signal */
	KW_ELASTIC,           /* torchrun's own log lines (any of three spellings) */
	KW_TRACEBACK,
	KW_TERMINATE,
	KW_SEGFAULT,
	KW_CORE_DUMPED,
	KW_FATAL_PYTHON,
	KW_WATCHDOG_CAUGHT,
	KW_EXITCODE,
	KW_UNIQUEID_WAIT,     /* "[r] is setting up NCCL communicator and retrieving ncclUniqueId from [root]" */
	KW_WD_TIMEOUT,        /* "Watchdog caught collective operation timeout: WorkNCCL(" */
	KW_BLOCKING_WAIT,     /* "timed out in blocking wait" */
	KW_WORKNCCL,          /* "WorkNCCL(" */
	KW_LAST_ENQUEUED,     /* either spelling of the watchdog's enqueued/completed counters */
	KW_DUMP_OBSERVED,     /* "Observed flight recorder dump signal from another rank" */
	KW_DUMP_RECEIVED,     /* "Received a dump signal due to a collective timeout from" */
	KW_REMOTE,            /* a peer is gone: "Connection reset by peer", "remote process exited", ... */
	KW_CONN_CLOSED,       /* "onnection closed" (NCCL's service thread, INFO) */
	KW_NCCL_VERSION,      /* "NCCL version " */
	KW_CUDA_OOM,          /* "CUDA out of memory" */
	KW_NCCLTESTS,         /* nccl-tests output: header, footer, failures (parse_nccltests.c) */
	KW_KMSG,              /* kernel messages: Xid, NVRM, OOM killer, segfaults (parse_kmsg.c) */
	KW_COMPONENT_ERROR,   /* a component's own error line: UCX, srun/sbatch/slurmstepd error and fatal, HAMi-core, NCCLCHECK/CUDACHECK (bundle.c) */
	KW_TRACE_CALL,        /* a stack frame that shows how far the job got: libnccl in a native
	                         backtrace, a c10d collective in a Python traceback (ranks.c) */
	KW_SPAWN_EXIT,        /* torch.multiprocessing.spawn: "process 3 terminated with signal SIGKILL" */
	KW_PROGRESS,          /* a datasets map progress bar ("... [30:11<38:27, 1578.58 examples/s]") */
	KW_CRASH,             /* a crash handler's or a stack dump's banner (crash.h), besides the four above */
	KW_LIB_ERROR,         /* "<lib> error: ... at file:line", an old nccl-tests "NCCL failure file:line",
	                         a health check's failure (bundle.c: failure lines) */
	KW_EMBEDDED_WARN,     /* a wrapper's line that quotes NCCL's last WARN message (ncclGetLastError):
	                         XLA's "Last NCCL warning(error) log entry (may be unrelated) '...'"
	                         (bundle.c matches the quoted message as a line of its own) */
	KW_COUNT
};

#define KW_BIT(k) ((uint64_t)1 << (k))
/* Not a literal: set in a line's keyword mask by bundle.c when the line is
 * on the benign list (patterns/benign.json), so that the rank timelines do
 * not take it for an error. */
#define KW_BENIGN_BIT ((uint64_t)1 << 62)
/* acmatch values with this bit are keywords (the low 8 bits are the enum) */
#define LINEKW_FLAG 0x80000000u

/* Add every keyword literal to ac, with the value LINEKW_FLAG | k, and
 * every floor keyword, with FLOORKW_FLAG | index. */
void linekw_add(struct acmatch *ac);

/* The floor (docs/derived.md, "The floor"): a keyword tier that names a
 * category when nothing specific does.  Each keyword names one category;
 * tier 1 is a phrase that states its cause, counted on any line: the
 * prefilter pass finds those (ll->floor: bit i for keyword i); tier 2 counts
 * only on a failure line (an NCCL WARN, a line with a failure word) that is
 * a failure line or matched a signature: floorkw_failure_line, until the
 * bundle has a pick (the first one wins, so few lines are searched). */
#define FLOORKW_FLAG 0x40000000u /* with the floor keyword's index in bits 8-13 */
struct floorkw {
	const char *text;
	const char *category;
	int tier;
};
size_t floorkw_count(void);
const struct floorkw *floorkw_get(size_t i);
/* The floor's tier-1 mask of a message, by searching (slow path, tests). */
uint64_t floorkw_scan(const char *s, size_t n);
/* The first tier-2 keyword in a failure line, or -1. */
int floorkw_failure_line(const char *s, size_t n);
/* The mask for a message, by searching for each literal (slow path). */
uint64_t linekw_scan(const char *s, size_t n);

#endif
