/* ranks.h - per-process timelines: which process is which rank of which
 * communicator, how far each got, how it ended, and who failed first.
 *
 * Fed every log line by bundle.c (ranks_note), it joins:
 *   - NCCL lines (host:pid:tid prefix) with the "... comm 0x.. rank N nranks M
 *     cudaDev D ... busId B commId C - Init START|COMPLETE" lines, kept apart
 *     per communicator (commId);
 *   - PyTorch lines with a launcher prefix ([rankN]:), including the watchdog
 *     "WorkNCCL(SeqNum=.., OpType=..)" and "last enqueued work" lines;
 *   - torchrun's ChildFailedError block (rank, exitcode, pid, signal, "Root
 *     Cause (first observed failure)"), "failed (exitcode: ..) local_rank: ..
 *     (pid: ..)" and "Sending process P closing signal SIGTERM";
 *   - per-process documents (NCCL_DEBUG_FILE=...%h.%p, torchrun --log-dir):
 *     a document whose NCCL lines all come from one host:pid; its unprefixed
 *     lines (tracebacks) are attributed to that process;
 *   - timestamps: NCCL "[YYYY-MM-DD HH:MM:SS]", ISO collector stamps, glog
 *     "[E1130 14:19:17.71..", torchrun "time : 2026-11-30_14:16:25".
 * ranks_finish() merges what is known by pid and by rank into one entry per
 * process and computes global ranks and the first failure.  After that the
 * structure is read-only (rules, reports).  All strings are owned by the
 * struct ranks; getters borrow. */
#ifndef NT_RANKS_H
#define NT_RANKS_H

#include <stdint.h>
#include <cjson/cJSON.h>
#include "base/hash.h"
#include "parse/logline.h"

/* Where a line was seen. */
struct rank_where {
	char *path;
	uint64_t line;     /* 1-based; 0 = none */
	char *text;        /* sanitised, cut to 300 bytes */
	uint64_t order;    /* arrival order of the line in the bundle */
	double ts;         /* seconds (month/day/time; year ignored), -1 = unknown */
	size_t rawn;       /* internal: text holds rawn unsanitised bytes until ranks_finish */
	int raw;
	unsigned doc;      /* internal: the document path belongs to (raw wheres) */
	const char *src;   /* internal: the caller's line bytes it holds instead, until ranks_lines_gone */
};

struct rank_proc {
	char *host;           /* NCCL hostname; NULL for a rank known only from torch/torchrun */
	size_t host_len;      /* internal: strlen(host) when proc_nccl made it */
	long pid;             /* -1 unknown */
	int rank;             /* global rank (after ranks_finish), -1 unknown */
	int nranks;           /* size of the largest communicator it joined */
	int cuda_dev;
	char *bus_id;
	char *comm_id;        /* commId of that communicator */
	char *nccl_version;
	int prefix_rank;      /* rank from a [rankN]: launcher prefix on its NCCL lines */
	int saw_banner, saw_init_start, saw_init_complete, saw_abort, saw_destroy, saw_warn;
	int saw_coll;         /* a collective was issued (opCount line, transport
	                       * connect after init, or a watchdog SeqNum) */
	int saw_exit_line;    /* process teardown seen (Closing env plugin, Destroy) */
	int saw_connected;    /* "Connected all rings" / "Connected all trees": its connections are up */
	uint64_t destroy_order; /* arrival order of its Destroy COMPLETE line; 0 none */
	char *transport;      /* first "via X" transport */
	/* PyTorch watchdog */
	long wd_seq;          /* SeqNum of the timed-out work, -1 none */
	char *wd_op;
	long wd_numel;        /* NumelIn, -1 unknown */
	long last_enqueued, last_completed; /* highest over its process groups; -2 unknown (torch prints -1 for none) */
	int wd_pg;            /* process group of the timed-out work ("[PG ID n ..."), -1 unknown */
	char *wd_pg_name;     /* "1(tp)" */
	struct rank_pg { int pg; long enq, comp; } pgs[8]; /* per process group, -1 = no "[PG ID" prefix */
	size_t npgs;
	int dump_observer;    /* only saw another rank's dump signal */
	struct rank_where wd_where;   /* the watchdog timeout line */
	struct rank_where enq_where;  /* the last "last enqueued work" line */
	/* launcher */
	int has_exit;
	int exitcode;
	int root_cause;       /* torchrun's "Root Cause (first observed failure)" */
	int sigterm_sent;     /* torchrun sent it SIGTERM */
	int local_rank;
	char *launcher_host;
	struct rank_where exit_where;
	/* failures and last line */
	struct rank_where first_error;
	struct rank_where last;
	/* borrowed views of `last`, set by ranks_finish (kept for older callers) */
	const char *last_path;
	uint64_t last_line;
	const char *last_text;
	char *debug_file;     /* a document holding only this process's lines */
	int first_failure;    /* set by ranks_finish on the rank that failed first */
	/* remote-peer errors (connection closed by peer, ncclRemoteError) */
	int remote_err;
	int remote_peer;      /* "closed by localRank N": N, else -1 */
	struct rank_where remote_where;
	int pid_guessed;      /* pid paired with the rank by launch order only */
	int rank_from_local;  /* rank taken from the local rank: one node, no global rank anywhere */
	uint64_t own_lines;   /* [rankN] lines of its own: not on the benign list, not a torch log record ("[W ...]") */
	int went_silent;      /* ranks_finish: output stops with no error, exit or
	                       * teardown while another rank reports its peer gone */
};

/* "[1] is setting up NCCL communicator and retrieving ncclUniqueId from [0]
 * via c10d key-value store ... got error": rank 0 never published the id. */
struct uid_wait {
	int waiter, root;
	struct rank_where where;
};

struct rank_member {
	size_t proc;
	int rank;
	int start, complete, aborted;
	char *comm_ptr;
	struct rank_where start_where;
};

struct rank_comm {
	char *id;             /* commId "0x..", or "nranks=N" when the line has none */
	int nranks;
	struct rank_member *m;
	size_t n, cap;
};

struct launcher_exit; /* private */
struct rank_mref;     /* private */
struct rank_doc;      /* private */

/* Processes (and launcher exit records) followed per bundle: past this,
 * lines of further processes are still matched by signatures but not put
 * on a timeline (counted in `untracked`, reported as a warning), so a log
 * with a hundred thousand pids cannot make the timeline work quadratic. */
#define RANKS_MAX_PROCS 4096
/* The same for communicators, their members (all communicators together),
 * launcher exit records of distinct processes and uniqueId waits of
 * distinct (waiter, root) pairs; and the largest communicator believed
 * (an Init line that claims more ranks is not followed).  Every lookup
 * per line is hashed, so the work per line does not grow with the log. */
#define RANKS_MAX_COMMS 4096
#define RANKS_MAX_MEMBERS 65536
#define RANKS_MAX_UID 4096
#define RANKS_MAX_NRANKS 1000000

struct ranks {
	uint64_t untracked;   /* lines and exits of processes past RANKS_MAX_PROCS */
	uint64_t untracked_comm; /* Init lines of communicators past RANKS_MAX_COMMS */
	uint64_t untracked_member; /* Init lines of members past RANKS_MAX_MEMBERS */
	uint64_t untracked_nranks; /* Init lines that claim more than RANKS_MAX_NRANKS ranks */
	uint64_t untracked_exit; /* launcher exit records of processes past RANKS_MAX_PROCS records */
	uint64_t untracked_uid;  /* uniqueId waits past RANKS_MAX_UID pairs */
	uint64_t work;        /* probes and steps of the per-line lookups: what tests bound */
	struct rank_proc *v;
	size_t n, cap;
	struct rank_comm *comms;
	size_t ncomms, capcomms;
	uint64_t order;       /* lines seen */
	uint64_t nccl_lines;  /* lines with an NCCL prefix */
	int saw_launcher;     /* torchrun / elastic output seen */
	int saw_child_failed; /* ChildFailedError block seen */
	int saw_watchdog;     /* any WorkNCCL watchdog line */
	int saw_net_lines;    /* "Bootstrap: Using" / "NET/..." lines (network choice logged) */
	int saw_nccl_text;    /* a plain line names NCCL (PyTorch's NCCL errors, ProcessGroupNCCL) */
	int launcher_signalled; /* torchrun itself got a signal (SignalException), a scheduler cancelled
	                           the step, or an exit record says timeout(1) stopped it: stopped from outside */
	struct rank_where launcher_signal_where;
	/* the job's own exit status record ("exit=N" of a wrapper script,
	 * mpirun/srun exit reports): -1 none seen */
	int job_exit;
	struct rank_where job_exit_where;
	/* the launcher's banner and nothing after it: no rank, no NCCL line,
	 * no other line after the launcher's last line in its document */
	int launcher_quiet;   /* a launcher document ends with launcher lines only */
	int launcher_followed;/* a launcher document has other lines after its launcher lines */
	struct rank_where launcher_last; /* the last launcher line */
	/* How far a job without NCCL output got, from its stack traces (KW_TRACE_CALL):
	 * a c10d collective in a Python traceback (a frame of distributed_c10d.py or
	 * the code line calling it; transformers' main_process_first is a barrier)
	 * means the process group existed; libnccl in a native backtrace sets
	 * saw_nccl_text. */
	struct rank_where coll_call;  /* the first such frame or code line */
	char *coll_call_op;           /* "barrier", "broadcast", ... */
	int coll_call_rank;           /* its [rankN] prefix, -1 none */
	int coll_call_main_first;     /* through main_process_first: the main process works, the others wait */
	/* the last progress bar of a long step (KW_PROGRESS): how long the step had run
	 * when the line was printed; a failure at ~30 min of it is the default timeout */
	long progress_elapsed;        /* seconds, -1 none */
	struct rank_where progress_where;
	int doc_ends_in_coll; /* a log document's last line is an NCCL collective call (opCount):
	                         the run stops inside a collective unless something says it ended */
	struct rank_where coll_end_where;
	int finished;
	/* private state */
	struct uid_wait *uid;
	size_t nuid, capuid;
	struct launcher_exit *ex;
	size_t nex, capex;
	int ex_pending;       /* ex[nex] was handed out and is not yet settled (ranks.c) */
	struct rank_doc *doc;
	const char *doc_key;  /* the caller's path pointer for doc (compared before the string) */
	unsigned doc_serial;  /* numbers the documents: 1, 2, ... */
	struct hindex pix;    /* host:pid -> position in v, while lines are noted; again after ranks_finish */
	struct hindex tix;    /* rank -> position in v of a process known only by rank, while lines are noted */
	struct hindex wix;    /* pid -> position in v of an NCCL process (host:pid), while lines are noted */
	struct hindex rix;    /* rank -> the first position in v with that rank, after ranks_finish */
	struct hindex cix;    /* commId -> position in comms */
	struct hindex mix;    /* communicator members -> position in mref (ranks.c) */
	struct rank_mref *mref;
	size_t nmref, capmref, nmembers;
	struct hindex uix;    /* (waiter, root) -> position in uid */
	struct hindex eix;    /* launcher exit records by process -> position in ex, from RANKS_MAX_PROCS records on */
	size_t last_proc;     /* 1 + index of the process of the previous NCCL line (consecutive lines
	                         mostly come from one process); 0 = none */
	size_t last_proc2;    /* the one before it (two ranks' lines interleaved); 0 = none */
	int borrow;           /* ranks_borrow_lines: raw wheres point into the caller's lines */
	int no_fast;          /* tests: every plain line through all of note_plain (ranks.c's fast path off) */
	struct rank_where *lent[32]; /* the raw wheres that do (src set); nlent of them */
	size_t nlent;
};

struct ranks *ranks_new(void);
void ranks_free(struct ranks *r);
/* Record one log line (any level). seq is the bundle's evidence counter. */
/* Returns 1 when the line was a launcher's record (torchrun's own lines and
 * its ChildFailedError block, an exit record of another launcher). */
int ranks_note(struct ranks *r, const struct logline *ll, const char *path, uint64_t lineno, uint64_t seq);
/* The same with the line's time computed already: ts = ranks_line_ts(ll)
 * (bundle.c takes it in apply_batch). */
int ranks_note_at(struct ranks *r, const struct logline *ll, const char *path, uint64_t lineno, uint64_t seq,
                  double ts);
/* The bytes of the lines given to ranks_note_at stay where they are until
 * the caller calls ranks_lines_gone(): a process's last line is then copied
 * once per process and batch of lines, not at every line.  Off by default
 * (ranks_note's callers may reuse a line's buffer at once). */
void ranks_borrow_lines(struct ranks *r);
/* The lines noted so far are about to go away (a batch is reused, a
 * buffer rewritten): copy what is kept of them.  Cheap when nothing is. */
void ranks_lines_gone(struct ranks *r);
/* Close the current document, merge, compute global ranks and the first
 * failure.  Idempotent; call before querying. */
void ranks_finish(struct ranks *r);
/* The NCCL process host:pid (hashed once ranks_finish ran), or NULL. */
const struct rank_proc *ranks_proc_at(const struct ranks *r, const char *host, long pid);
/* Global rank of host:pid, or -1. */
int ranks_lookup(const struct ranks *r, const char *host, long pid);
/* The process that failed first, or NULL. */
const struct rank_proc *ranks_first_failure(const struct ranks *r);
/* Entry for a global rank, or NULL. */
const struct rank_proc *ranks_by_rank(const struct ranks *r, int rank);
/* <0 when a's first error came before b's; by timestamp when both have
 * one, else by arrival order. */
int ranks_cmp_first_error(const struct rank_proc *a, const struct rank_proc *b);
/* No error, exit or teardown seen for it. */
int rank_proc_open_ended(const struct rank_proc *p);
/* Ended by a signal other than SIGTERM (and not SIGABRT after its own error). */
int rank_proc_killed(const struct rank_proc *p);
/* "started", "banner", "init_start", "init_complete", "collective",
 * "aborted", "destroyed". */
const char *rank_proc_milestone(const struct rank_proc *p);
/* "SIGKILL" for 9, ... ; NULL when unknown. */
const char *ranks_signal_name(int sig);
/* Parse a timestamp found at the start of s (see above); -1 when none. */
double ranks_parse_ts(const char *s, size_t n);
/* The time of a log line as the timelines read it: its prefix's timestamp,
 * else (a line read as plain) one at the start of its message; -1 none.
 * Depends on the line only. */
double ranks_line_ts(const struct logline *ll);
/* JSON array for the report (one object per process, sorted by rank). */
cJSON *ranks_to_json(const struct ranks *r);
/* JSON array of communicators: [{"comm_id", "nranks", "ranks_seen", "missing", "complete"}]. */
cJSON *ranks_comms_json(const struct ranks *r);

#endif
