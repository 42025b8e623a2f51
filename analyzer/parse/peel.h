/* peel.h - the outer prefixes of a log line as people paste them, peeled
 * before any matching (logline.c calls it; the NCCL prefix is logline's).
 *
 * One pass: a switch on the first byte picks the recognisers that can
 * start with it, each a fixed-offset test (no regex, no search), and the
 * loop goes on after a prefix, so any stack of them is peeled in any order.
 * The families, each taken from the program that prints it or from real
 * output (docs/inputs.md, "Lines as people paste them"):
 *   terminal    ANSI colour codes, as bytes or written out; CRLF (logline)
 *   collectors  ISO-8601 / RFC 3339 (docker -t, kubectl --timestamps, CRI
 *               log files "TS stdout F "), "YYYY-MM-DD HH:MM[:SS] ",
 *               journald/syslog "Aug 12 01:22:51 host ident[pid]: ",
 *               dmesg "[ 12.345678] " / "[  +0.000001] " / "[Mon Dec  1 ...] "
 *   launchers   torchrun "[rank3]:" "[default0]:", Slurm "3: " / "  3: "
 *               (srun -l), Open MPI / PMIx "[1,0]<stderr>:", "[1,0][host:pid]<stdout>: ",
 *               "[0]<stdout>: ", --timestamp-output's ctime before them,
 *               Ray "(Actor pid=N, ip=A) ", "(raylet) ", vLLM "(VllmWorker rank=1 pid=N) ",
 *               docker compose "svc-1  | "
 *   loggers     c10/glog "[E file.cpp:N] ", "[W1130 14:16:13.78 file.cpp:N] ",
 *               glog "E1201 12:00:00.123456 1234 file.cc:N] ", Python logging
 *               "WARNING:name:", vLLM "INFO 12-01 10:00:00 [file.py:N] " (and
 *               without brackets), SGLang "[2025-01-01 12:00:00 TP0] ",
 *               "[12:00:00 TP0] ", torchrun 2.0 "[ts] name: [WARNING] ",
 *               DeepSpeed "[ts] [INFO] [file.py:N:func] ", Ray's C++
 *               "[ts,ms L pid tid] file.cc:N: ", Hugging Face "12/01/2024 10:00:00
 *               - INFO - name - ", a host name glued in front of any of them
 *   crash       Open MPI's signal handler "[host:12345] " (opal/util/stacktrace.c),
 *               UCX's "[host:pid  :thread:tid] " (src/ucs/debug/log.c)
 *   pastes      markdown quoting "> ", a viewer's line number ("12\t")
 * What a prefix says goes to struct peel: the first timestamp, a rank, a
 * process id and host, the logger's severity.  All pointers point into the
 * caller's line.  Self-contained: standard C only. */
#ifndef NT_PEEL_H
#define NT_PEEL_H

#include <stddef.h>

/* The families, as bits of struct peel.families (the generated test of
 * tests/unit/test_peel.c checks that each one is recognised). */
enum peel_family {
	PF_ANSI, PF_ISO_TS, PF_DATE_TS, PF_SYSLOG, PF_DMESG, PF_TORCHRUN, PF_SLURM, PF_MPI, PF_MPI_TS,
	PF_RAY, PF_COMPOSE, PF_C10, PF_GLOG, PF_PYLOG, PF_VLLM, PF_SGLANG, PF_TORCHRUN_LOG, PF_DEEPSPEED,
	PF_RAY_CPP, PF_HF, PF_HOST, PF_QUOTE, PF_LINENO, PF_RAY_REPEAT, PF_CRASH_TAG, PF_COUNT
};

/* Logger headers (struct peel.logger_kind). */
enum peel_logger { PL_NONE, PL_C10, PL_GLOG, PL_PYTHON };

struct peel {
	const char *ts;      /* the first timestamp (its text, without brackets); NULL when none */
	size_t tsn;
	int rank;            /* a launcher's rank, a vLLM worker's rank=, SGLang's TPn; -1 */
	long pid;            /* a wrapper's process id (Ray pid=, journald ident[pid], PMIx [host:pid]); -1 */
	const char *host;    /* a wrapper's host or address (Ray ip=, journald, PMIx); NULL */
	size_t hostn;
	char severity;       /* a logger header's level: 'D' 'I' 'W' 'E' 'F' ('C' critical); 0 none */
	enum peel_logger logger;
	const char *head;    /* start of the first logger header: the literal scan starts here, so that
	                        the logger's name ("torch/distributed/elastic/...py:869] ") still counts */
	size_t tail;         /* bytes to drop at the end (Ray's " [repeated 3x across cluster]") */
	unsigned families;   /* 1u << enum peel_family of every family peeled */
};

/* Peel the prefixes at the start of [s, s+n); returns the bytes peeled
 * (0: none) and fills *p (initialised here). */
size_t peel_prefixes(const char *s, size_t n, struct peel *p);
const char *peel_family_name(enum peel_family f);

#endif
