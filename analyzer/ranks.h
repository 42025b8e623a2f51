/* ranks.h - per-process timelines: which NCCL process (host:pid) is which
 * rank of which communicator, and how far it got (banner, Init START, Init
 * COMPLETE, first collective, last line).  Fed line by line by bundle.c;
 * queried by rules and reports. */
#ifndef NT_RANKS_H
#define NT_RANKS_H

#include <stdint.h>
#include <cjson/cJSON.h>
#include "logline.h"

struct rank_proc {
	char *host;
	long pid;
	int rank;             /* -1 until an Init line names it */
	int nranks;
	int cuda_dev;
	char *bus_id;
	char *comm_id;
	char *nccl_version;
	int saw_banner, saw_init_start, saw_init_complete, saw_abort, saw_warn;
	char *last_path;      /* last line seen from this process */
	uint64_t last_line;
	char *last_text;
	char *first_warn;     /* first WARN message */
	uint64_t first_warn_seq;
};

/* At most RANKS_MAX processes are tracked (a hash index finds them); lines
 * of further processes are still matched by signatures but only counted
 * here, in untracked_lines (bundle_finish reports them). */
#define RANKS_MAX 16384

struct ranks {
	struct rank_proc *v;
	size_t n, cap;
	uint32_t *index;          /* open addressing: 1 + position in v, 0 = free */
	size_t icap;              /* power of two, > 2 * RANKS_MAX */
	uint64_t untracked_lines; /* lines of processes beyond RANKS_MAX */
};

struct ranks *ranks_new(void);
void ranks_free(struct ranks *r);
/* Record one parsed NCCL line (level != LINE_PLAIN). */
void ranks_note(struct ranks *r, const struct logline *ll, const char *path, uint64_t lineno, uint64_t seq);
/* Rank of host:pid, or -1. */
int ranks_lookup(const struct ranks *r, const char *host, long pid);
/* JSON array for the report (one object per process, sorted by rank). */
cJSON *ranks_to_json(const struct ranks *r);

#endif
