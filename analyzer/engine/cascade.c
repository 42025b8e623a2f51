/* cascade.c - see cascade.h. */
#include "engine/cascade.h"

#include <stdlib.h>
#include <string.h>

#include "engine/bundle.h"
#include "engine/correlate.h"
#include "match/patids.h"
#include "parse/ranks.h"
#include "match/sigdb.h"
#include "base/util.h"

static int has_rank(const struct diagnosis *d, int rank)
{
	for (size_t i = 0; i < d->nranks; i++)
		if (d->ranks[i] == rank)
			return 1;
	return 0;
}

static int disjoint(const struct diagnosis *a, const struct diagnosis *b)
{
	for (size_t i = 0; i < b->nranks; i++)
		if (has_rank(a, b->ranks[i]))
			return 0;
	return 1;
}

static int echo_prone(const char *cat)
{
	static const char *const c[] = {CAT_RANK_FAILURE, CAT_COLLECTIVE_TIMEOUT, CAT_SOCKET_NETWORK, CAT_IB_RDMA, CAT_RENDEZVOUS, NULL};
	for (size_t i = 0; c[i]; i++)
		if (strcmp(cat, c[i]) == 0)
			return 1;
	return 0;
}

static int is_root_error(const struct diagnosis *d)
{
	return d->role == ROLE_ROOT && d->def->severity == SEV_ERROR;
}


/* A launcher's record of a worker's end (its exit status, torchrun's
 * ChildFailedError, mpirun's summary): it says that a worker failed, not
 * why.  A derived diagnosis counts when all its evidence is that record. */
static int launcher_record(const struct bundle *b, const struct diagnosis *d)
{
	static const char *const ids[] = {DIAG_RANKS_EXITED_WITH_ERROR, DIAG_RANKS_JOB_EXIT_NONZERO,
	                                  DIAG_LAUNCH_WORKER_EXIT_NONZERO, DIAG_LAUNCH_MPI_RANK_SIGNALLED, NULL};
	for (size_t k = 0; ids[k]; k++)
		if (strcmp(d->def->id, ids[k]) == 0)
			return 1;
	if (!d->def->derived || strncmp(d->def->id, FAMILY_DERIVED, strlen(FAMILY_DERIVED)) != 0 || !d->nev)
		return 0;
	for (size_t i = 0; i < d->nev; i++) {
		const char *row = evidence_cap(&b->ev.v[d->ev[i]], "row");
		if (!row || strcmp(row, DERIVED_ROW_CHILD_FAILED) != 0)
			return 0;
	}
	return 1;
}

/* A conclusion from what is absent ("no NCCL line, so rendezvous"): it
 * never beats a failure line that says something. */
static int fallback(const struct diagnosis *d)
{
	return strcmp(d->def->id, DIAG_RANKS_NEVER_REACHED_NCCL) == 0 || strcmp(d->def->id, DIAG_RANKS_LAUNCHER_ONLY) == 0;
}

/* The job has one process: every communicator seen has one rank. */
static int single_process(const struct bundle *b)
{
	const struct ranks *r = b->ranks;
	if (!r || !r->ncomms)
		return 0;
	for (size_t c = 0; c < r->ncomms; c++)
		if (r->comms[c].nranks != 1)
			return 0;
	return 1;
}

static const struct diagnosis *find_root(const struct bundle *b, const char *const *ids)
{
	for (size_t i = 0; i < b->ndiags; i++) /* in ranked order */
		for (size_t k = 0; ids[k]; k++)
			if (strcmp(b->diags[i].def->id, ids[k]) == 0 && is_root_error(&b->diags[i]))
				return &b->diags[i];
	return NULL;
}

/* Each cascade and fallback checks its own premise (docs/ranks.md):
 *   - a fallback ("never reached NCCL", the launcher's banner alone) beside
 *     any other root error, specific or derived, is a context remark;
 *   - a launcher's record of a worker's end is the echo of the worker's own
 *     error (any root error that is not a launcher record, on its ranks);
 *   - "a peer died" in a job of one process is no peer's death: context.
 * Returns 1 when a role changed. */
static int premises(struct bundle *b)
{
	int changed = 0;
	for (size_t i = 0; i < b->ndiags; i++) {
		struct diagnosis *d = &b->diags[i];
		if (d->role == ROLE_CONTEXT || d->def->severity != SEV_ERROR)
			continue;
		int single = single_process(b) && (strcmp(d->def->id, DIAG_RANK_PEER_EXITED) == 0 ||
		                                   strcmp(d->def->id, DIAG_RANK_PEER_CONNECTION_LOST) == 0 ||
		                                   strcmp(d->def->id, DIAG_RANK_LOCAL_PEER_GONE) == 0);
		if (single) {
			d->role = ROLE_CONTEXT;
			d->echo_of = NULL;
			changed = 1;
			continue;
		}
		if (d->role != ROLE_ROOT || !(fallback(d) || launcher_record(b, d)))
			continue;
		for (size_t k = 0; k < b->ndiags; k++) {
			const struct diagnosis *s = &b->diags[k];
			if (k == i || !is_root_error(s) || fallback(s) || launcher_record(b, s))
				continue;
			if (fallback(d)) {
				d->role = ROLE_CONTEXT;
			} else {
				int covered = !d->nranks || !s->nranks;
				for (size_t r = 0; r < d->nranks && !covered; r++)
					covered = has_rank(s, d->ranks[r]);
				if (!covered)
					continue;
				d->role = ROLE_CASCADE;
				d->echo_of = s->def->id;
			}
			changed = 1;
			break;
		}
	}
	return changed;
}

/* A generic result never hides a more specific clue: a derived diagnosis
 * whose evidence says it refines a generic one (the "refines" capture of
 * rules_derived.c: the source file of the WARN that carried the generic
 * result, the deepest frame of the return chain) takes its place as the
 * root, and the generic one becomes its echo.  Before the other premises:
 * a specific root would otherwise absorb the derived one. */
static int refine_generic(struct bundle *b)
{
	int changed = 0;
	for (size_t i = 0; i < b->ndiags; i++) {
		const struct diagnosis *r = &b->diags[i];
		if (!r->def->derived || !is_root_error(r))
			continue;
		for (size_t e = 0; e < r->nev; e++) {
			const char *g = evidence_cap(&b->ev.v[r->ev[e]], "refines");
			for (size_t k = 0; g && k < b->ndiags; k++) {
				struct diagnosis *d = &b->diags[k];
				if (k == i || strcmp(d->def->id, g) != 0 || d->def->severity != SEV_ERROR || d->refined_by)
					continue;
				if (!d->def->generic && !(d->def->derived && (strcmp(d->def->category, CAT_OTHER) == 0 ||
				                                             strcmp(d->def->category, CAT_CUDA_ERROR_OTHER) == 0)))
					continue;
				d->role = ROLE_CASCADE;
				d->echo_of = r->def->id;
				d->refined_by = r->def->id;
				changed = 1;
			}
		}
	}
	return changed;
}

void cascade_link(struct bundle *b)
{
	if (!b->ndiags)
		return;
	int refined = refine_generic(b);
	static const char *const death[] = {DIAG_RANKS_SIGKILL_OOM_KILLER, DIAG_RANKS_KILLED_BY_SIGNAL, DIAG_RANKS_KILLED_BY_SIGBUS,
	                                    DIAG_RANKS_DIED_SILENTLY, NULL};
	static const char *const absent[] = {DIAG_RANKS_MISSING_FROM_COMM, NULL};
	/* the flight recorder's findings first: the dumps name the rank and the call */
	static const char *const behind[] = {DIAG_FLIGHT_DESYNC, DIAG_FLIGHT_COLLECTIVE_TIMEOUT, DIAG_FLIGHT_P2P_UNMATCHED,
	                                     DIAG_RANKS_WATCHDOG_SEQNUM_BEHIND, DIAG_RANKS_COLLECTIVE_MISMATCH,
	                                     DIAG_RANKS_BEHIND_NO_TIMEOUT, DIAG_FLIGHT_WAITING_ON_MISSING, NULL};
	const struct diagnosis *anchor = find_root(b, death);
	if (!anchor)
		anchor = find_root(b, absent);
	if (!anchor)
		anchor = find_root(b, behind);
	const struct rank_proc *first = b->ranks ? ranks_first_failure(b->ranks) : NULL;
	for (size_t i = 0; i < b->ndiags && !anchor && first && first->rank >= 0; i++)
		if (is_root_error(&b->diags[i]) && has_rank(&b->diags[i], first->rank))
			anchor = &b->diags[i];
	int changed = refined;
	if (!anchor)
		goto context;
	int flight = strncmp(anchor->def->id, FAMILY_FLIGHT, strlen(FAMILY_FLIGHT)) == 0;
	int mine = flight || strncmp(anchor->def->id, FAMILY_RANKS, strlen(FAMILY_RANKS)) == 0;
	const char *fam = flight ? FAMILY_FLIGHT : FAMILY_RANKS; /* the anchor's own family is not its echo */
	int gone = 0; /* the anchor is a rank that died or never came */
	for (size_t k = 0; death[k]; k++)
		gone |= strcmp(anchor->def->id, death[k]) == 0;
	gone |= strcmp(anchor->def->id, absent[0]) == 0;
	for (size_t i = 0; i < b->ndiags; i++) {
		struct diagnosis *d = &b->diags[i];
		if (d == anchor)
			continue;
		int echo = 0;
		if (d->role == ROLE_CASCADE && !d->echo_of)
			echo = 1; /* a cascade without a (root) target: this is its root */
		else if (is_root_error(d) && echo_prone(d->def->category) && d->nranks && anchor->nranks &&
		         disjoint(anchor, d))
			echo = 1; /* seen only on the other ranks */
		else if (is_root_error(d) && gone && echo_prone(d->def->category) && !d->nranks &&
		         d->confidence < anchor->confidence)
			echo = 1; /* not tied to a rank: the waiting of the survivors */
		else if (is_root_error(d) && mine && strncmp(d->def->id, fam, strlen(fam)) != 0 &&
		         strcmp(d->def->category, anchor->def->category) == 0 && d->confidence <= anchor->confidence)
			echo = 1; /* the same finding, less specific */
		if (echo) {
			d->role = ROLE_CASCADE;
			d->echo_of = anchor->def->id;
			changed = 1;
		}
	}
context:
	/* One root per failure chain: a derived diagnosis (a category read from
	 * NCCL's or torch's structure, a rank's exit status) on ranks that a
	 * specific root already covers is that root's consequence. */
	for (size_t i = 0; i < b->ndiags; i++) {
		struct diagnosis *d = &b->diags[i];
		if (!d->def->derived || !is_root_error(d))
			continue;
		for (size_t k = 0; k < b->ndiags; k++) {
			const struct diagnosis *s = &b->diags[k];
			/* a fallback is no root to echo: premises() below makes it context */
			if (k == i || s->def->derived || !is_root_error(s) || fallback(s))
				continue;
			int covered = !d->nranks || !s->nranks;
			for (size_t r = 0; r < d->nranks && !covered; r++)
				covered = has_rank(s, d->ranks[r]);
			if (covered) {
				d->role = ROLE_CASCADE;
				d->echo_of = s->def->id;
				changed = 1;
				break;
			}
		}
	}
	/* a derived category (patterns/derived.json) that echoes a specific root
	 * says nothing the root does not: dropped (its lines stay listed under
	 * "unexplained"); a rank's own exit (ranks.exited_with_error) stays */
	size_t u = 0;
	for (size_t i = 0; i < b->ndiags; i++) {
		struct diagnosis *d = &b->diags[i];
		if (d->def->derived && d->role == ROLE_CASCADE && strncmp(d->def->id, FAMILY_DERIVED, strlen(FAMILY_DERIVED)) == 0) {
			free(d->title);
			free(d->explanation);
			free(d->ev);
			free(d->ranks);
			continue;
		}
		if (u != i)
			b->diags[u] = *d;
		u++;
	}
	b->ndiags = u;
	changed |= premises(b);
	if (changed)
		correlate_sort(b->diags, b->ndiags);
}
