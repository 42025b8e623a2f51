/* pipeline.h - two-stage line pipeline for one bundle.
 *
 * The reading thread (the caller: input, decompression, line splitting,
 * logline_parse, the prefilter scan, the regexes) fills line batches and
 * submits them; one consumer thread applies them in submission order (rank
 * timelines, evidence, facts).  Order is preserved, so the
 * result is byte-identical to doing both stages on one thread; the caller
 * calls pipeline_drain() before it touches anything the consumer writes.
 *
 * The reading thread finds each line's candidate signatures (the
 * prefilter) and records them.  Their regexes (about a quarter of the
 * work) go to whichever thread has the smaller share: when the consumer is
 * behind (half the ring waits) the reading thread runs their fast first
 * matches for the batch it fills (matcher_try: a pure function of the
 * line and the regex) and records the results; the consumer decides, in
 * line order, everything with state (a signature's budget of slow matches,
 * the limits), runs what was not tried, and puts the matches (signature,
 * PCRE2's ovector) and the matcher's messages in the record before it
 * applies them.  Which thread ran a fast match never changes the result.
 *
 * A batch owns its lines' bytes: the logline spans point into batch->text,
 * which is never reallocated while the batch holds lines.  The bytes are
 * copied there line by line (line_batch_room), or the reading thread reads
 * a chunk of input straight into it (line_batch_chunk) and its whole lines
 * stay where they were read. */
#ifndef NT_PIPELINE_H
#define NT_PIPELINE_H

#include <stddef.h>
#include <stdint.h>
#include "parse/logline.h"

/* A signature that matched a line: its index in the database, PCRE2's
 * return code (the groups set) and its ovector, 2 * rc offsets at
 * batch->ov[ov]. */
struct line_hit {
	uint32_t sig;
	int rc;
	size_t ov;
};

struct prepared_line {
	struct logline ll;    /* parsed and scanned (ll.kw); spans into the batch's text */
	const char *raw;      /* the whole line, in the batch's text */
	size_t rawlen;
	size_t qoff, qlen;    /* qoff > 0: raw is the message a wrapper's line quotes (bundle.c,
	                         embedded_warn), that line is raw - qoff, qlen bytes, in the same text:
	                         the evidence quotes the line the report names */
	uint64_t lineno;
	double ts;            /* the line's time (ranks_line_ts), -1 when none */
	int benign;           /* the line is benign (a benign entry, or a benign traceback's line):
	                         set by the consumer before it matches the line (bundle.c, line_benign) */
	size_t cand, ncand;   /* its candidate signatures: batch->cand[cand .. cand + ncand), in database order */
	size_t hit, nhit;     /* its matches: batch->hit[hit .. hit + nhit), in database order */
	size_t msg, nmsg;     /* the matcher's messages about it: batch->msg[msg .. msg + nmsg) */
	void *doc;            /* the caller's per-document state */
	int end_doc;          /* not a line: the end of document doc (the other fields unset) */
};

#define PIPELINE_BATCH_LINES 4096 /* records per batch (lines and document ends) */

struct line_batch {
	char *text;
	size_t len, cap;
	struct prepared_line *v;
	size_t n, capv;
	size_t *cand;         /* the lines' candidate signatures (indices in the database) */
	int *trc;             /* per candidate: matcher_try's code, MATCHER_NOT_TRIED when not tried */
	size_t *tovo;         /* per candidate that matched when tried: its ovector at batch->tov[tovo] */
	size_t ncand, capcand;
	size_t *tov;          /* the tried matches' ovectors (PCRE2_SIZE offsets) */
	size_t ntov, captov;
	int try_ahead;        /* the reading thread tries the candidates of this batch's lines
	                         (set by pipeline_batch: the consumer was behind) */
	struct line_hit *hit;
	size_t nhit, caphit;
	size_t *ov;           /* PCRE2_SIZE offsets (size_t) of the hits */
	size_t nov, capov;
	char **msg;           /* owned; freed when the batch is reused */
	size_t nmsg, capmsg;
};

/* Room for a line of n bytes at the end of batch->text: returns where to
 * copy it, or NULL when the batch must be submitted first (it is full of
 * lines, or not empty and the line does not fit).  An empty batch grows to
 * any n. */
char *line_batch_room_any(struct line_batch *bt, size_t n);
/* Room for a chunk of input read straight into the batch (bundle.c,
 * sink_room): at least min bytes at the end of its text, *avail of them in
 * all, the text never grown for it; NULL when the batch must be submitted
 * first (full of records, or too little text left) or min is more than a
 * batch holds.  An empty batch drops what its text held (no record points
 * at it: a chunk that ended without a whole line). */
char *line_batch_chunk(struct line_batch *bt, size_t min, size_t *avail);
/* A new record for the line just copied (uninitialised: set every field). */
struct prepared_line *line_batch_add_grow(struct line_batch *bt);
/* The candidate signatures of the line being prepared (pl): c[0 .. n) is copied. */
void line_batch_add_cands_any(struct line_batch *bt, struct prepared_line *pl, const size_t *c, size_t n);

/* The three above with their common case inline (a line that fits a batch
 * already holding lines, a record within capacity, a line without
 * candidates): the reading thread calls them on every line. */
static inline char *line_batch_room(struct line_batch *bt, size_t n)
{
	/* a batch that holds lines (so its text is allocated and not an
	 * oversized one _any would shrink) and has room for one more */
	if (bt->n > 0 && bt->n < PIPELINE_BATCH_LINES && bt->len + n <= bt->cap)
		return bt->text + bt->len; /* what _any returns */
	return line_batch_room_any(bt, n);
}

static inline struct prepared_line *line_batch_add(struct line_batch *bt)
{
	if (bt->n < bt->capv)
		return &bt->v[bt->n++];
	return line_batch_add_grow(bt);
}

static inline void line_batch_add_cands(struct line_batch *bt, struct prepared_line *pl, const size_t *c, size_t n)
{
	if (n == 0) {
		pl->cand = bt->ncand;
		pl->ncand = 0;
		return;
	}
	line_batch_add_cands_any(bt, pl, c, n);
}
/* The result of trying the candidate at batch->cand[k] (matcher_try):
 * rc, and ov[0 .. 2 * rc) copied when rc > 0. */
void line_batch_set_tried(struct line_batch *bt, size_t k, int rc, const size_t *ov);
/* A match of the line (pl): ov[0 .. 2 * rc) is copied. */
void line_batch_add_hit(struct line_batch *bt, struct prepared_line *pl, uint32_t sig, const size_t *ov, int rc);
/* A message about the line (pl); the batch takes msg (malloc'ed). */
void line_batch_add_msg(struct line_batch *bt, struct prepared_line *pl, char *msg);
/* Empty the batch for reuse (frees its messages). */
void line_batch_reset(struct line_batch *bt);
void line_batch_free(struct line_batch *bt);

typedef void (*batch_consumer)(void *ctx, struct line_batch *bt);

struct pipeline;

/* Starts the consumer thread; NULL if it cannot (the caller then does both
 * stages itself). */
struct pipeline *pipeline_start(batch_consumer consume, void *ctx);
/* An empty batch to fill (waits while every batch is in flight). */
struct line_batch *pipeline_batch(struct pipeline *p);
/* Hand a filled batch to the consumer (an empty one is taken back). */
void pipeline_submit(struct pipeline *p, struct line_batch *bt);
/* Wait until every submitted batch has been consumed. */
void pipeline_drain(struct pipeline *p);
/* Drain, stop the thread, free everything.  NULL is fine. */
void pipeline_stop(struct pipeline *p);

#endif
