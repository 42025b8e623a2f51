/* logline.h - split one log line into its prefixes and its message.
 *
 * First the outer prefixes, any stack of them (peel.h: collector and
 * journald timestamps, ANSI codes, launcher tags, Ray/vLLM worker tags,
 * docker compose, logger headers of glog, c10, Python logging, vLLM,
 * SGLang, DeepSpeed, markdown quoting, a viewer's line number), and a
 * trailing CR or "^M"; then NCCL's own prefix in every variant NCCL
 * 2.10-2.30 prints:
 *   [ts] host:pid:tid [dev] NCCL INFO msg
 *   [ts] host:pid:tid [dev] file:line (func) NCCL WARN msg
 *   host:pid:tid [dev] 12.345 func:line NCCL TRACE msg
 *   host:pid:tid NCCL CALL msg
 * and as pasted: the host redacted to nothing (":41367:41367 [1] ..."), no
 * host:pid:tid at all ("[3] include/shm.h:28 NCCL WARN ...", "init.cc:1582
 * NCCL WARN ...", "[0] NCCL INFO ..."; host empty, pid and tid -1); a
 * line number pasted in front of it ("451 host:..."); spaces in front
 * (a paste indented as a whole).
 * The older releases' forms too: .cu names (2.3-2.4), NCCL 2.0-2.2's lines
 * without the "NCCL" token ("host:pid:tid [dev] INFO msg", "host:pid:tid
 * [dev] file.cu:line WARN msg", "misc/ibvwrap.cu:60 WARN msg") and a space
 * after the colon ("ibvwrap.c: 106 NCCL WARN msg").
 * A line without an NCCL prefix is LINE_PLAIN; its message is the line
 * without the outer prefixes.  All pointers point into the caller's line. */
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
	/* what the outer prefixes said (peel.h) */
	long wpid;           /* a wrapper's process id: Ray "(pid=N)", journald "ident[pid]", PMIx
	                        "[1,0][host:pid]", Ray's C++ logger; -1 when none */
	struct span whost;   /* a wrapper's host or address (Ray ip=, journald, PMIx, pdsh); n == 0 when none */
	char logger;         /* a logger header's severity letter (D I W E F C); 0 when none */
	unsigned char logger_kind; /* enum peel_logger: PL_C10 (PyTorch's "[W1130 ... file.cpp:N] "), ... */
	const char *head;    /* the first logger header: keywords and literals are looked for from here
	                        to the message's end (a logger's name such as torchrun's
	                        "torch/distributed/run.py:851] " still counts); NULL when none */
	unsigned families;   /* the outer prefix families peeled (1u << enum peel_family) */
	/* keywords (linekw.h) present in msg: filled by matcher_scan(); zero and
	 * kw_known == 0 after logline_parse (use logline_keywords()) */
	uint64_t kw;
	uint64_t floor;      /* the floor's keywords present (linekw.h: bit i for keyword i), with kw */
	int kw_known;
	struct linekind lk;  /* linekind_classify(), after the scan; lk_known == 0 before */
	int lk_known;
};

void logline_parse(const char *line, size_t len, struct logline *out);
const char *line_level_name(enum line_level l);
/* ll->kw when the prefilter filled it, else linekw_scan() of the message. */
uint64_t logline_keywords(const struct logline *ll);

#endif
