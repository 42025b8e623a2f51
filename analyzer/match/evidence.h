/* evidence.h - one observation that supports a diagnosis: a log line matched
 * by a signature, or a fact rule that fired.  Its list owns its id, path,
 * text, captures, spans, context lines, host, src and ts (one arena:
 * thousands of small strings a bundle, freed together: whoever sets host,
 * src or ts copies it into the list, evlist_keep). */
#ifndef NT_EVIDENCE_H
#define NT_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>
#include "base/arena.h"
#include "base/caplist.h"
#include "base/hash.h"
#include "base/util.h"

#define EVIDENCE_TEXT_MAX 500     /* bytes of a line, and of a capture, that evidence keeps */
#define EVIDENCE_CONTEXT 2        /* lines kept before and after a matched line */
#define EVIDENCE_CONTEXT_TEXT 240

/* struct capture (base/caplist.h): a value is sanitised; a signature's
 * capture of a log line is cut to EVIDENCE_TEXT_MAX bytes (then it ends
 * with "…", bundle.c). */

struct evidence {
	char *id;          /* signature id or fact-rule id */
	char *path;        /* document name inside the bundle */
	uint64_t line;     /* 1-based line in that document; 0 = whole document */
	char *text;        /* the line (sanitised, cut to 500 bytes: then it ends with "…")
	                      or a rule's statement */
	size_t length;     /* bytes of the text before any cut (> the kept text: it was cut) */
	int cut;           /* the text was cut (it ends with "…") */
	int derived;       /* a sentence a rule composed from facts, not the verbatim line
	                      path:line (rule_emit sets it; docs/json.md "kind") */
	/* where the signature matched in text (byte offsets, set for log
	 * lines): the whole match and each capture; end == 0: unknown */
	struct { size_t start, end; } match, *cspan; /* cspan: ncaps items or NULL */
	int rank;          /* -1 unknown */
	char *host;        /* NULL unknown (in the list: evlist_keep) */
	char *src;         /* the source file of an NCCL WARN line ("transport/nvls.cc"), or NULL (in the list) */
	long pid;          /* -1 unknown */
	char *ts;          /* timestamp as printed, NULL when none (in the list) */
	struct capture *caps;
	size_t ncaps;
	uint64_t seq;      /* order of arrival in the bundle: lower = earlier */
	size_t id_slot;    /* the id's position in the list's counts (evlist_slot) */
	/* the lines around a log line (sanitised, cut to EVIDENCE_CONTEXT_TEXT
	 * bytes), filled in by bundle.c from evlist_keep; none for rule
	 * evidence.  A line is shared by the evidence around it. */
	char *before[EVIDENCE_CONTEXT]; /* a cut one ends with "…" */
	char *after[EVIDENCE_CONTEXT];
	unsigned nbefore, nafter;
};

struct evlist {
	struct evidence *v;
	size_t n, cap;
	uint64_t next_seq;
	/* Bound on kept evidence per id: beyond it only the count grows, so a
	 * 10 GB log of identical warnings does not fill memory. */
	size_t per_id_cap;
	struct { char *id; size_t count; } *counts;
	size_t ncounts, capcounts;
	struct hindex cix;  /* counts[] by id (every match asks: no scan of the ids) */
	struct arena strs;  /* the kept evidence's strings and arrays (evidence.h's first comment) */
	const char *last_path; /* in strs: the path of the evidence added last (the same document's are shared) */
};

/* Unexplained failure evidence (tracebacks, NCCL WARNs, non-zero exits) that
 * the verdict unknown_failure rests on; kept short. */
struct failure_line {
	char *path;
	uint64_t line;
	char *text;
	char *what; /* "nccl_warn", "traceback", "exit_code", "error" */
	char *raw;  /* the whole line (sanitised, cut to 500 bytes: then it ends with "…"): evidence text */
	size_t rawlength; /* bytes of the whole line */
	char *src;  /* an NCCL WARN's source file ("transport/net_ib.cc"), or NULL */
	char *host; /* NCCL host, or NULL */
	long pid;   /* NCCL pid, -1 none */
	int rank;   /* launcher prefix rank, -1 none */
	size_t length; /* bytes of the line; the text was cut (ends with "…") when longer */
	int cut;
};

/* A frame of NCCL's return chain, "init.cc:1234 -> 2" (INFO): the first one
 * of each process, for the derived categories (derive.h). */
struct chain_clue {
	char *path;
	uint64_t line;
	char *raw;        /* the line, as failure_line's */
	size_t rawlength;
	char *src;
	int code;
	char *host;
	long pid;
	int rank;
};

/* A native crash or stack dump (parse/crash.h): its banner line, the signal,
 * and the innermost frames that name NCCL, c10d or CUDA, for the derived
 * crash rows (derive.h). */
struct crash_clue {
	char *path;
	uint64_t line;    /* the banner */
	char *raw;        /* the banner line, as failure_line's */
	size_t rawlength;
	int sig;          /* 0: the block does not say */
	char *frame;      /* the innermost NCCL/c10d/CUDA frame, or NULL */
	uint64_t frame_line;
	char *frames;     /* every such frame, '\n' between them, or NULL */
	char *host;       /* the banner's NCCL host or a wrapper's, or NULL */
	long pid;         /* -1 none */
	int rank;
};

/* The floor's pick (linekw.h, docs/derived.md "The floor"): the first line
 * of the lowest tier that holds one of its keywords; kw -1 when none. */
struct floor_pick {
	int kw;           /* index into linekw.h's floor keywords, -1 none */
	int tier;
	char *path;
	uint64_t line;
	char *raw;        /* the line, as failure_line's */
	size_t rawlength;
	char *host;
	long pid;
	int rank;
};

/* What is known of one line's sanitising (struct evline): s[0..len) is
 * (state 1) or is not (state 2) its own str_sanitize, printable ASCII with
 * nothing to mask (str_sanitize_keeps); state 0: nothing known.  A line's
 * copies (its evidence text, its context lines) look at it once: being
 * clean holds for every prefix of a clean text, so one check of the
 * longest prefix answers for the shorter cuts.  The caller owns it and
 * zeroes it for every new line (it describes bytes, not a pointer). */
struct evline {
	size_t len;
	int state;
};

void evlist_init(struct evlist *l);
void evlist_free(struct evlist *l);
/* Add evidence; copies every string (into the list).  caps may be NULL.  Returns the stored
 * item (borrowed; valid until the next add), or NULL when the per-id cap was
 * reached (the occurrence is still counted). */
struct evidence *evlist_add(struct evlist *l, const char *id, const char *path,
                            uint64_t line, const char *text, size_t textlen,
                            const struct capture *caps, size_t ncaps);
/* evlist_add of the id at slot (its evlist_slot(), known to the caller:
 * no lookup of the id).  lm: a memo of the text (struct evline), read and
 * updated; NULL: none.  Bit i of clean (i < 32): caps[i].value is its own
 * str_sanitize (the caller checked: sanitised, it came out unchanged), so
 * it is copied as it is. */
struct evidence *evlist_add_at(struct evlist *l, size_t slot, const char *path, uint64_t line,
                               const char *text, size_t textlen, struct evline *lm,
                               const struct capture *caps, size_t ncaps, uint32_t clean);
/* The bytes of str_sanitize_cut(s, n, max), kept in the list (a context
 * line); lm: a memo of the line s (struct evline), or NULL. */
char *evlist_keep_line(struct evlist *l, const char *s, size_t n, size_t max, struct evline *lm);
/* Whether str_sanitize_cut(s, n, max) of the line lm describes is s cut to
 * min(n, max) bytes, unchanged (and "…" when n > max): lm says s is clean
 * far enough. */
static inline int evline_clean(const struct evline *lm, size_t n, size_t max)
{
	return lm->state == 1 && (lm->len >= n || lm->len > max);
}
size_t evlist_count(const struct evlist *l, const char *id);
/* Whether evlist_add of id would only count it (the per-id cap is reached):
 * a caller with captures to copy asks first. */
int evlist_full(const struct evlist *l, const char *id);
/* The fast path of an id seen before: slot is its evlist_slot().  When
 * its cap is reached, counts the occurrence as evlist_add would and returns
 * 1; else returns 0 (then call evlist_add). */
int evlist_count_capped(struct evlist *l, size_t slot);
/* The position of id in l->counts (every id seen has one: evidence.id_slot),
 * or -1 when no evidence of id was added. */
long evlist_slot(const struct evlist *l, const char *id);
int evlist_has(const struct evlist *l, const char *id);
/* A copy of s that lives as long as the list (a context line), or n zeroed
 * bytes (an evidence's cspan). */
char *evlist_keep(struct evlist *l, const char *s);
/* s[0..n) and a NUL, kept as evlist_keep; the same sanitised (the bytes
 * of str_sanitize(s, n)). */
char *evlist_keepn(struct evlist *l, const char *s, size_t n);
char *evlist_keep_sanitized(struct evlist *l, const char *s, size_t n);
void *evlist_zalloc(struct evlist *l, size_t n);
const char *evidence_cap(const struct evidence *e, const char *name);

#endif
