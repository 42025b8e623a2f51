/* flight_int.h - the state shared by the flight-recorder modules:
 * flight.c (a dump document to calls, and flight_finish, which runs the
 * steps below in order), flight_match.c (the cross-rank store and its
 * analysis), flight_log.c (the findings), flight_json.c (the report
 * section); each calls only the ones after it in flight_finish's order.
 * All memory is owned by struct flight. */
#ifndef NT_FLIGHT_INT_H
#define NT_FLIGHT_INT_H

#include "parse/flight.h"
#include "base/pyval.h"

/* interned strings: id 0 is "" */
struct fr_strtab {
	char **s;
	uint32_t *len;
	size_t n, cap;
	uint32_t *idx; /* open addressing: id + 1, 0 empty */
	size_t nidx;
};
uint32_t fr_intern(struct fr_strtab *t, const char *s, size_t n);
static inline const char *fr_str(const struct fr_strtab *t, uint32_t id)
{
	return id < t->n ? t->s[id] : "";
}

enum fr_state { ST_UNKNOWN, ST_SCHEDULED, ST_STARTED, ST_COMPLETED };
const char *fr_state_name(int st);

/* One entry of a dump (or one coalesced group of entries), reduced. */
struct fr_call {
	int64_t seq;            /* collective_seq_id (seq_id before format 2.0) */
	int64_t p2p_seq;        /* p2p_seq_id, -1 unknown */
	int64_t record_id;      /* -1 unknown */
	int64_t time_ns;        /* time_created_ns, 0 unknown */
	int64_t in_numel, out_numel; /* elements of the first input / output tensor, -1 unknown */
	uint32_t pg;            /* index into flight.pgs */
	uint32_t op;            /* "all_reduce", "send" ... (interned) */
	uint32_t in_key, out_key, in_dt, out_dt; /* "[[1024]]", "Float" (interned) */
	uint32_t frames;        /* the stack, one "name at file:line" per line (interned) */
	uint32_t where;         /* the first frame outside torch's collective API (interned) */
	int32_t src, dst;       /* send/recv: group-local ranks; -1 */
	int32_t nops;           /* entries folded into this call (a coalesced group) */
	int32_t nins, nouts;    /* input / output tensors */
	uint8_t state;          /* enum fr_state */
	uint8_t is_p2p;
	uint8_t marker;         /* the "coalesced" end marker of a group */
};

#define FR_VARIANTS 4
#define FR_VRANKS 8
struct fr_variant {
	uint32_t op, in_key, out_key, in_dt, out_dt;
	uint32_t count;
	int ranks[FR_VRANKS];   /* the first ones */
	uint32_t where;
};

/* One sequence number of one process group, across ranks. */
struct fr_ref {
	int64_t seq;
	struct fr_variant v[FR_VARIANTS];
	uint8_t nv;
	uint8_t used;
	uint32_t extra;          /* ranks of further variants */
	uint32_t have, completed, started, scheduled;
	int64_t sum_in, sum_out; /* all_to_all: numels over ranks */
	int64_t first_time;
	int first_rank;
	int state_rank_a, state_rank_b; /* two ranks whose states differ, -1 */
	uint8_t state_a, state_b;
};

struct fr_pg {
	uint32_t name, desc;     /* interned */
	int64_t pg_id;           /* ProcessGroupNCCL uid_ (pg_id of its entries), -1 */
	int *members;            /* sorted global ranks (pg_config), NULL unknown */
	size_t nmembers;
	/* the member lists the dumps give ("[0, 1, 2]"), with the ranks that give each */
	struct fr_mlist { char *text; uint32_t count; int ranks[FR_VRANKS]; } ml[4];
	size_t nml;
	struct fr_ref *refs;     /* refs[seq - base] */
	size_t nrefs;
	int64_t base;
	uint64_t p2p_calls;
};

#define FR_PENDING 16
struct fr_rank_pg {
	uint32_t pg;
	int64_t first_seq, last_seq; /* collectives in the window; -1 none */
	int64_t first_incomplete;    /* the first collective not completed; -1 none */
	int64_t st_enq, st_start, st_comp; /* pg_status; has_status */
	int has_status;
	struct fr_call last;         /* its last collective or p2p call */
	int has_last;
	struct fr_call pending[FR_PENDING]; /* p2p calls not completed */
	size_t npending;
	uint64_t npending_all;
};

#define FR_LANE 8
struct fr_rank {
	int rank;
	char *path;
	uint32_t version;        /* interned */
	uint64_t nentries;
	int json, has_frames, cut;
	struct fr_rank_pg *pgs;
	size_t npgs;
	struct fr_call lane[FR_LANE]; /* the last calls, a ring */
	size_t nlane;
	uint64_t ncalls;
	/* pg_status keyed by pg_id, until the entries say which pg that is */
	struct { int64_t pg_id, enq, start, comp; } status[64];
	size_t nstatus;
	/* the coalesced group being read */
	struct fr_call grp;
	int has_grp;
};

struct flight {
	struct fr_strtab str;
	struct arena arena;        /* the value tree of the dump being read, reused from one to the next */
	struct fr_pg *pgs;
	size_t npgs, cappgs;
	struct fr_rank *ranks;
	size_t nranks, capranks;
	struct strvec unread;    /* dumps that could not be read */
	struct strvec noted;     /* "path: why" of dumps read in part */
	struct flight_item *items;
	size_t nitems, capitems;
	char *headline;
	cJSON *json;             /* built by flight_finish */
	int finished;
	/* the stop (flight_match.c), read by flight_json.c */
	struct fr_stop *stops;
	size_t nstops;
	struct fr_mismatch *mis;
	size_t nmis;
	struct fr_log *log;
	size_t nlog;
};

/* ---- the store (flight_match.c), fed by flight.c ---- */
struct fr_rank *fr_rank_begin(struct flight *f, int rank, const char *path, struct msgs *m);
uint32_t fr_pg_find(struct flight *f, const char *name, size_t nl, const char *desc, size_t dl);
/* members of pg from one dump's pg_config (ranks sorted), as seen by rank r */
void fr_pg_members(struct flight *f, uint32_t pg, const int *ranks, size_t n, int r, const char *as_text);
void fr_note_call(struct flight *f, struct fr_rank *r, const struct fr_call *c);
void fr_rank_end(struct flight *f, struct fr_rank *r);
struct fr_rank_pg *fr_rank_pg(struct fr_rank *r, uint32_t pg);

/* ---- the result (flight_match.c), rendered by flight_json.c ---- */
struct fr_stop {
	uint32_t pg;
	int64_t seq;
	int p2p;                 /* a point-to-point stop */
	struct fr_call call;     /* the stop collective as a waiting (or the first) rank has it */
	int *behind, *waiting, *done, *missing;
	size_t nbehind, nwaiting, ndone, nmissing;
	int all_scheduled, all_started;
};
struct fr_mismatch {
	const char *kind;        /* "op", "sizes", "dtypes", "numel", "state", "membership", "wrong_group" */
	uint32_t pg;
	int64_t seq;
	int ranks[FR_VRANKS];    /* the ranks that differ */
	size_t nranks;
	uint32_t extra;
	char *detail;            /* a sentence */
	int first;               /* the first of its process group */
};
struct fr_log {
	int rank;
	int agrees;
	char *text;
	char *path;
	uint64_t line;
};

const struct fr_rank *fr_rank_by(const struct flight *f, int rank);
/* the stops, mismatches and send/recv pairs across the dumps (flight_match.c) */
void fr_analyse(struct flight *f);
/* the stop the findings lead with: a collective one with ranks behind, the earliest (flight_log.c) */
const struct fr_stop *fr_main_stop(const struct flight *f);
void fr_items(struct flight *f);
void fr_log_compare(struct flight *f, const struct ranks *r);
void flight_build_json(struct flight *f);

#endif
