/* bundle.h - one ticket: all its documents, the evidence found in them, the
 * facts derived, the warnings, and finally the diagnoses.
 *
 * A bundle is filled through its doc_sink (see input.h): each document is
 * classified from its head, log documents are split into lines and matched
 * against the signature database as they stream by, system reports are
 * buffered (up to SYSREPORT_MAX bytes) and handed to their parser.  Then
 * analysis_finish() (analysis.h) runs the fact rules and the correlator. */
#ifndef NT_BUNDLE_H
#define NT_BUNDLE_H

#include <stdint.h>
#include <cjson/cJSON.h>
#include "parse/detect.h"
#include "match/evidence.h"
#include "input/input.h"
#include "base/nt_limits.h"
#include "base/util.h"
#include "parse/sysparse.h"

struct sigdb;
struct matcher;
struct match_tried;
struct ranks;
struct flight;
struct json_arena;

#define SYSREPORT_MAX (16u << 20)

struct input_doc {
	char *path;
	enum doc_kind kind;
	uint64_t lines;
	uint64_t bytes;
	int complete;
};

enum verdict { VERDICT_HEALTHY, VERDICT_DIAGNOSED, VERDICT_UNKNOWN_FAILURE, VERDICT_NO_EVIDENCE };
const char *verdict_name(enum verdict v);

struct diagnosis;

struct bundle {
	char *name;
	const struct sigdb *db;     /* borrowed */
	struct matcher *matcher;    /* owned: the prefilter and the benign entries' regexes, on the
	                               thread that reads (their limits: the bundle's) */
	struct matcher *rmatcher;   /* the candidates' regexes, in line order where lines are applied
	                               (their budgets and limits): matcher itself, or with the
	                               pipeline the consumer's own (owned) */
	struct match_tried *tried;  /* owned: match_line's scratch, ntried entries */
	size_t ntried;
	struct limits lim;

	struct input_doc *docs;
	size_t ndocs, capdocs;
	size_t *docidx;             /* hash of docs[].path: index + 1, 0 empty (names are unique) */
	size_t ndocidx;
	struct evlist ev;
	long *sig_slot;             /* per signature: its id's evlist_slot, -1 before its first match */
	cJSON *facts;               /* owned; see docs/facts.md */
	struct json_arena *jarena;  /* owned, or NULL: the arena of the bundle's cJSON trees (bundle_json_arena) */
	struct json_arena *jprev;   /* the thread's arena before bundle_json_arena's scope */
	struct msgs warnings;       /* shown in the report's "warnings" */
	struct input_stats stats;

	struct failure_line *failures;
	size_t nfailures, capfailures;
	uint64_t failure_count;     /* all failure lines seen, kept or not */
	struct chain_clue *clues;   /* NCCL return-chain frames, first per process (derive.h) */
	size_t nclues, capclues;
	struct crash_clue *crashes; /* native crashes and stack dumps (parse/crash.h), the first few */
	size_t ncrashes, capcrashes;
	struct floor_pick floor;    /* the keyword tier's pick (every bundle; the JSON's "floor") */
	int saw_nccl;               /* any NCCL line at all */
	struct env_index envix;     /* facts.env by name, while input is read (sysparse.h) */
	uint64_t env_dropped;       /* "set by environment" lines past SYS_ENV_MAX variables */
	size_t torch_oom_kept;      /* OOM lines sysreport_torch_oom kept: at SYS_OOM_EVENTS_MAX it is not called */
	uint64_t offset_work;       /* raw bytes read to place matches in evidence text (tests bound it) */
	struct warn_site *wsites;   /* NCCL WARN lines' file:line and message start, the first
	                               BUNDLE_WSITES distinct ones (the version fingerprint, correlate.c) */
	size_t nwsites;

	struct ranks *ranks;        /* per-rank timelines (ranks.h) */
	struct flight *flight;      /* owned: flight-recorder dumps (parse/flight.h) */

	struct diagnosis *diags;
	size_t ndiags;
	enum verdict verdict;
	char *verdict_reason;       /* owned: why the verdict is what it is (verdict.c) */
	uint64_t benign_lines;      /* lines matched by the benign list (patterns/benign.json) */
	/* bundle_set_audit: the lines that hold a failure word and that nothing
	 * explains (no signature, benign entry, derived row, launcher record,
	 * traceback or crash-report frame), as "path:line: text" */
	int audit;
	struct strvec audit_lines;
	uint64_t audit_more;        /* past AUDIT_KEPT, only counted */

	/* streaming state of the current document (bundle.c) */
	void *cur;
	/* lines applied on a second thread (bundle_set_threads; bundle.c) */
	int threads;
	int summary_only;           /* 1: no context lines, no match spans (bundle_summary_only) */
	struct pipeline *pipe;      /* owned; NULL when lines are applied in place */
	struct line_batch *fill;    /* the batch being filled (in pipe) */
	struct line_batch *solo;    /* owned: the one-line batch of lines applied in place */
	/* input read straight into the batch being filled (bundle.c, sink_room) */
	char *room;                 /* where the last sink_room had the input read; NULL: nowhere */
	size_t room_plen;           /* the unfinished line it copied in front of that place */
	const char *rcur, *rend;    /* while such a chunk is split into lines: the current line's
	                               start and the chunk's end, in fill's text; NULL otherwise */
	size_t ndeferred;           /* document ends queued in the pipeline since the last drain */
	size_t deferred_bytes;      /* and the buffers they hold */
};

#define BUNDLE_WSITES 16
struct warn_site {
	char *file;                 /* owned */
	int line;
	char msg[48];               /* the message's first bytes, NUL-terminated */
	size_t msglen;
	char *path;                 /* owned: where the line is */
	uint64_t lineno;
};

/* db is borrowed and must outlive the bundle. */
struct bundle *bundle_new(const char *name, const struct sigdb *db, const struct limits *lim);
void bundle_free(struct bundle *b);
/* threads 2: lines are parsed and scanned on the thread that feeds the
 * bundle and applied (timelines, regexes, evidence) on a second one; the
 * result is the same as with 1 (the default).  Before any input. */
void bundle_set_threads(struct bundle *b, int threads);
/* Collect the unexplained failure-word lines (analyze --unexplained); before any input. */
void bundle_set_audit(struct bundle *b, int on);
/* on 1: evidence gets no context lines (before, after) and no match spans
 * (match, cspan stay 0), for a caller whose output reads neither (batch
 * --summary-only: report_bundle_summary_json); nothing else changes (no
 * step of the analysis reads them).  Before any input. */
void bundle_summary_only(struct bundle *b, int on);
/* on 1: from now until bundle_json_arena(b, 0), every cJSON node and
 * string this thread makes (the facts, their parsers' temporaries, the
 * flight recorder's trees) is the bundle's, in an arena of the bundle
 * (base/json.h, json_arena_enter) that bundle_free frees at once, without
 * a walk of the trees: for a caller whose bundle is filled on this one
 * thread (no bundle_set_threads) and whose trees never leave the bundle
 * (batch: its reports copy the facts).  On 1 right after bundle_new, 0
 * after analysis_finish, before anything else makes cJSON on this thread. */
void bundle_json_arena(struct bundle *b, int on);
struct doc_sink bundle_sink(struct bundle *b);
/* Feed a whole operand (path or '-'); its input errors also go to
 * input_errors when not NULL (batch reports them per bundle). */
int bundle_add_path(struct bundle *b, const char *path, struct msgs *input_errors);
int bundle_add_memory(struct bundle *b, const char *name, const void *data, size_t len);
/* After the last input: stop the line pipeline, finish the rank timelines,
 * place evidence known by host:pid on its rank.  analysis_finish
 * (analysis.h) calls it, then runs the rules and the correlator. */
void bundle_end_input(struct bundle *b);
/* Free the diagnoses (correlate.c fills them again). */
void bundle_clear_diagnoses(struct bundle *b);
#endif
