/* logline.h - split one log line into its prefixes and its message.
 *
 * Handles, in any combination and stacked: an ISO-8601 / RFC 3339
 * collector timestamp (docker, kubectl --timestamps) or "YYYY-MM-DD HH:MM ",
 * journald's short format ("Aug 12 01:22:51 host ident[pid]: "), ANSI
 * colour codes as bytes or written out ("^[[0m", "\x1b[0m", "\033[",
 * "\u001b[", "#033[", "[1;36m" with the escape lost), Ray/vLLM worker
 * prefixes ("(RayWorkerWrapper pid=263, ip=...) ", "(pid=909608) "),
 * launcher prefixes ([rank3]:, [default0]:, [1,0]<stderr>:, "3: " from
 * srun -l, a numeric "[1] " rank), a pasted line number, a trailing "^M";
 * and NCCL's own prefix in every variant NCCL 2.10-2.30 prints:
 *   [ts] host:pid:tid [dev] NCCL INFO msg
 *   [ts] host:pid:tid [dev] file:line (func) NCCL WARN msg
 *   host:pid:tid [dev] 12.345 func:line NCCL TRACE msg
 *   host:pid:tid NCCL CALL msg
 * and as pasted: the host redacted to nothing (":41367:41367 [1] ..."), no
 * host:pid:tid at all ("[3] include/shm.h:28 NCCL WARN ...", "init.cc:1582
 * NCCL WARN ...", "[0] NCCL INFO ..."; host empty, pid and tid -1).
 * The older releases' forms too: .cu names (2.3-2.4), NCCL 2.0-2.2's lines
 * without the "NCCL" token ("host:pid:tid [dev] INFO msg", "host:pid:tid
 * [dev] file.cu:line WARN msg", "misc/ibvwrap.cu:60 WARN msg") and a space
 * after the colon ("ibvwrap.c: 106 NCCL WARN msg").
 * A line without an NCCL prefix is LINE_PLAIN; its message is the line
 * without launcher prefixes.  All pointers point into the caller's line. */
#ifndef NT_LOGLINE_H
#define NT_LOGLINE_H

#include <stddef.h>
#include <stdint.h>

enum line_level { LINE_PLAIN, LINE_INFO, LINE_WARN, LINE_TRACE, LINE_CALL };

struct span {
	const char *p;
	size_t n;
};

/* What kind of line it is (linekind.h: decided once, after the prefilter
 * pass; lk_known says it was). */
enum line_kind { LK_OTHER, LK_NCCL, LK_TRACEBACK, LK_TORCH, LK_TABLE };
struct linekind {
	unsigned char kind;         /* enum line_kind */
	unsigned char exception;    /* the message is a Python exception line */
	unsigned char indent;       /* blanks before that exception line (0: column 0) */
	unsigned char table_row;    /* its first byte after blanks is '#' or a digit */
	unsigned char torch_record; /* PyTorch's own logging: "[W ...", "[E1130 ..." */
};

struct logline {
	enum line_level level;
	struct span msg;     /* what signatures match */
	struct span ts;      /* NCCL [timestamp] or collector timestamp; n == 0 when none */
	struct span host;    /* NCCL host; n == 0 when none */
	long pid, tid;       /* -1 when none */
	int dev;             /* NCCL [cudaDev]; -1 when none */
	int rank;            /* from a launcher prefix ([rank3]:, 3: ...); -1 when none */
	struct span file;    /* WARN/TRACE file:line */
	int srcline;
	struct span func;    /* 2.30 "(function)" on WARN */
	/* keywords (linekw.h) present in msg: filled by matcher_scan(); zero and
	 * kw_known == 0 after logline_parse (use logline_keywords()) */
	uint64_t kw;
	int kw_known;
	struct linekind lk;  /* linekind_classify(), after the scan; lk_known == 0 before */
	int lk_known;
};

void logline_parse(const char *line, size_t len, struct logline *out);
const char *line_level_name(enum line_level l);
/* ll->kw when the prefilter filled it, else linekw_scan() of the message. */
uint64_t logline_keywords(const struct logline *ll);

#endif
