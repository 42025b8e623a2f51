/* flight.h - PyTorch flight-recorder dumps (TORCH_FR_BUFFER_SIZE /
 * TORCH_NCCL_TRACE_BUFFER_SIZE, dumped by the watchdog or on demand): one
 * document per rank, as torch pickles it or as its JSON form, every format
 * version since torch 2.2 (docs/flight.md).  Read with the safe pickle reader
 * (base/pickle.h): nothing in a dump is ever executed.
 *
 * Each dump is reduced as it arrives (flight_add_doc) to what the cross-rank
 * analysis needs: per process group and sequence number the calls the ranks
 * made (op, sizes, dtypes, state; the variants when ranks disagree), per rank
 * its window, its last entries and its pg_status, pending point-to-point
 * operations.  Memory grows with sequence numbers and call sites, not with
 * ranks x entries.  flight_finish() matches across ranks: the first
 * collective of each process group that did not complete everywhere, who
 * never scheduled it (behind), who waits in it, the mismatches torch's own
 * analyzer reports, ranks without a dump, and whether the log's watchdog
 * lines agree.  Not thread-safe; owned by one bundle. */
#ifndef NT_FLIGHT_H
#define NT_FLIGHT_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include "base/caplist.h"
#include "base/util.h"

struct ranks;
struct flight;

/* Caps: a dump larger than this is cut (a message says so). */
#define FLIGHT_DOC_MAX (64u << 20)
#define FLIGHT_MAX_RANKS 65536

struct flight *flight_new(void);
void flight_free(struct flight *f);

/* Whether a document's head (its first bytes) is a flight-recorder dump:
 * a pickle (PROTO 2-5) whose first strings are the dump's keys, or a JSON
 * object with them.  1 pickle, 2 JSON, 0 neither. */
int flight_sniff(const char *head, size_t n);

/* One whole dump (bytes owned by the caller, read during the call).  A dump
 * that cannot be read gets one line in m naming path and the place; the
 * rest of the bundle is unaffected.  complete 0: the input layer cut it. */
void flight_add_doc(struct flight *f, const char *path, const char *data, size_t n, int complete,
                    struct msgs *m);

/* Dumps read so far (0: the bundle has none and flight_finish does nothing). */
size_t flight_ndumps(const struct flight *f);

/* After the last document: the cross-rank analysis, and the comparison
 * with the rank timelines of the log (r may be NULL). */
void flight_finish(struct flight *f, const struct ranks *r);

/* ---- what flight_finish found (read by rules_flight.c) ---- */

enum flight_finding {
	FF_BEHIND,      /* ranks never scheduled the stop collective */
	FF_STALLED,     /* every rank of the group entered it, none completed */
	FF_DESYNC,      /* ranks called different collectives / sizes / dtypes at one sequence number */
	FF_P2P,         /* a send or recv whose peer never posted the matching op */
	FF_WAIT_MISSING, /* everyone with a dump waits; only ranks without a dump can be behind */
	FF_MISSING,     /* member ranks without a dump */
	FF_LOG,         /* the log's watchdog lines and the dumps disagree */
	FF_AGREE,       /* ... or agree (information) */
	FF_ALL_DONE,    /* every collective in the dumps completed */
};

struct flight_item {
	enum flight_finding kind;
	char *text;             /* the sentence, derived */
	char *path;             /* the dump (or log) it rests on */
	uint64_t line;          /* 0: the whole dump */
	int *ranks;             /* the ranks it names (culprits) */
	size_t nranks;
	struct caplist caps;    /* captures for the diagnosis, owned */
};

/* The findings, most important first; valid until flight_free. */
const struct flight_item *flight_items(const struct flight *f, size_t *n);
/* "hang: rank 17 behind at all_gather #4212 in fsdp.py:88" or NULL: the
 * one-line contribution of the dumps (batch summaries). */
const char *flight_headline(const struct flight *f);

/* The report's "flight_recorder" section (docs/json.md); NULL without
 * dumps.  Caller owns. */
cJSON *flight_json(const struct flight *f);

#endif
