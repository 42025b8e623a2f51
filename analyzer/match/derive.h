/* derive.h - a category for every failure: when no specific signature
 * explains a failure line, its category is derived from NCCL's or
 * PyTorch's own structure (docs/derived.md), from the rows of the
 * "derived" arrays of patterns/ (patterns/derived.json):
 *   nccl_file   the source file of an NCCL WARN (`transport/net_ib.cc:1234
 *               NCCL WARN ...`), or of the deepest frame of its return
 *               chain (`init.cc:1234 -> 2`); optionally narrowed by the
 *               message;
 *   nccl_result the ncclResult a message or a return chain carries
 *               (`unhandled cuda error`, `-> 6`);
 *   exception   the type of a Python exception line (`DistNetworkError`,
 *               `torch.OutOfMemoryError`), optionally narrowed by the
 *               message;
 *   message     a record PyTorch or a launcher prints in a fixed form
 *               (the watchdog's "Watchdog caught collective operation
 *               timeout"), on any failure line;
 *   crash       a native crash or stack dump (parse/crash.h): the signal
 *               and the innermost frames that name NCCL, c10d or CUDA.
 * The first row that matches wins; its category becomes a diagnosis marked
 * "derived" (lower confidence, ranked after every specific one; the
 * explanation says it was derived and from what).  Rows are data, each with
 * its reasoning ("why") and samples that check-db derives. */
#ifndef NT_DERIVE_H
#define NT_DERIVE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "parse/logline.h"

struct msgs;
struct cJSON;

enum derive_from { DERIVE_NCCL_FILE, DERIVE_NCCL_RESULT, DERIVE_EXCEPTION, DERIVE_MESSAGE, DERIVE_CRASH };

struct derive_row {
	char *id;
	char *file;            /* pattern file it came from */
	size_t index;
	enum derive_from from;
	void *file_re;         /* pcre2_code: on the NCCL source file (nccl_file) */
	void *msg_re;          /* pcre2_code or NULL: on the message */
	void *type_re;         /* pcre2_code: on the exception type (exception) */
	void *signal_re;       /* pcre2_code or NULL: on the signal's name, "SIGBUS" (crash) */
	void *frame_re;        /* pcre2_code or NULL: on the crash's NCCL/c10d/CUDA frames (crash) */
	int code;              /* nccl_result: the ncclResult number, -1 none */
	char *category;
	char *why;
	const struct cJSON *json; /* borrowed from the database */
	char *re_src[5];       /* lazy rows: the sources of file_re .. frame_re, until compiled */
	char *broken;          /* lazy rows, owned: why a regex did not compile ("msg_re: ... at
	                          offset N"); the row then never matches (derive_lazy_failures) */
};

/* The rows of every loaded file, in load order; owned here (derive_free_rows),
 * held by the database (sigdb.h), which knows nothing of a row. */
struct derive_rows {
	struct derive_row *v;
	size_t n;
	int lazy;              /* set before loading (sigdb_set_lazy): the rows' regexes are
	                          compiled by the first derive_match, not at load */
	atomic_int ready;      /* lazy: compiled (release/acquire, under derive.c's lock) */
};

/* What a failure line gives the derivation. */
struct derive_input {
	const char *src;       /* NCCL source file of a WARN or return-chain frame, or NULL */
	const char *msg;       /* the message */
	size_t msgn;
	int code;              /* return code of a chain frame, -1 none */
	int exception;         /* msg is a Python exception line ("Type: text") */
	int crash;             /* a crash block: signal and frames below */
	const char *signal;    /* its signal's name ("SIGBUS"), or NULL */
	const char *frames;    /* its frames that name NCCL, c10d or CUDA, '\n' between them, or NULL */
};

/* Load one file's "derived" array (a JSON array) into rows.  Errors go to m as
 * "file:line: derived[i].key: problem" (the line in text, the file's JSON
 * text; "file: ..." when text is NULL); returns the number of errors.  The
 * keys of a row are checked by the loader (sigdb.c, KNOWN_KEYS). */
int derive_load(struct derive_rows *rows, const char *file, const struct cJSON *arr, const char *text, size_t len,
                struct msgs *m);
void derive_free_rows(struct derive_rows *rows);
/* Drop the rows from index n on (a file that failed to load). */
void derive_truncate(struct derive_rows *rows, size_t n);
/* The first row for this input, or NULL. */
const struct derive_row *derive_match(const struct derive_rows *rows, const struct derive_input *in);
/* Fill in from one parsed log line (a WARN's file, an exception line, a
 * return-chain frame); 0 when the line offers nothing to derive from. */
int derive_input_from_line(const struct logline *ll, struct derive_input *in);
/* A return-chain frame "init.cc:1234 -> 2" (INFO): its file and code. */
int derive_chain_frame(const struct span *m, struct span *file, int *code);
/* A crash row's input from a block of lines (check-db's samples of crash
 * rows are blocks: the banner and the frames, '\n' between lines): runs
 * them through crash.h; sigbuf and framesbuf hold the strings in *in.
 * Returns 0 when the text holds no crash block. */
int derive_input_from_block(const char *text, struct derive_input *in, char *sigbuf, size_t sign, char *framesbuf,
                            size_t framesn);
/* check-db: every row's samples derive to that row, its negative samples
 * to another row or none.  Returns failures; counts passes in *ok. */
/* One message per lazy row that did not compile (derive_row.broken). */
size_t derive_lazy_failures(const struct derive_rows *rows, struct msgs *m);
int derive_selftest(const struct derive_rows *rows, struct msgs *m, size_t *ok);
const char *derive_from_name(enum derive_from f);

#endif
