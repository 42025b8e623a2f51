/* verdict.c - see verdict.h. */
#include "engine/verdict.h"

#include <string.h>

#include "engine/bundle.h"
#include "engine/correlate.h"
#include "base/json.h"
#include "parse/ranks.h"
#include "parse/flight.h"
#include "match/sigdb.h"
#include "base/util.h"

/* Evidence from a log line matched by a signature (not a fact rule over
 * system reports): the bundle shows a run. */
static int log_signature_evidence(const struct bundle *b)
{
	for (size_t i = 0; i < b->ev.n; i++)
		if (sigdb_sig(b->db, b->ev.v[i].id))
			return 1;
	return 0;
}

/* nccl-tests result: rows, Avg bus bandwidth, wrong values, read from
 * facts.nccl_tests (parse_nccltests.c, docs/facts.md), the one parser of
 * nccl-tests output.  1 and *what when every run completed (its "Avg bus
 * bandwidth" footer) with no wrong values and no "Test ... failure" line
 * (facts.nccl_tests.healthy); 2 when the runs are tables pasted alone, their
 * rows without header and footer and nothing wrong (.rows_only: what was
 * run is shown, how it ended is not); -1 when a run printed wrong values or
 * a test failure (.failed); 0 otherwise (none, or a table without its
 * footer after its header).
 * *seen: nccl-tests output was read (a run to show). */
static int nccltests_result(const struct bundle *b, char *what, size_t whatn, int *seen)
{
	const cJSON *nt = json_get(b->facts, "nccl_tests");
	*seen = json_size(json_get(nt, "runs")) > 0;
	if (!*seen)
		return 0;
	if (cJSON_IsTrue(json_get(nt, "failed")))
		return -1;
	if (cJSON_IsTrue(json_get(nt, "rows_only"))) {
		double rows = 0;
		json_num(nt, "rows_shown", &rows);
		snprintf(what, whatn,
		         "%.0f rows of its table (no header and no footer in these lines: the run's start and end are "
		         "not shown)",
		         rows);
		return 2;
	}
	if (!cJSON_IsTrue(json_get(nt, "healthy")))
		return 0;
	int unchecked = 0;
	const cJSON *r;
	cJSON_ArrayForEach(r, json_get(nt, "runs"))
		unchecked |= cJSON_IsFalse(json_get(r, "validated"));
	snprintf(what, whatn, "%s", unchecked ? "bus bandwidth reported (values not checked: -c 0)" : "bus bandwidth reported");
	return 1;
}

static int shows_run(const struct bundle *b)
{
	const struct ranks *r = b->ranks;
	char what[200];
	int seen;
	nccltests_result(b, what, sizeof what, &seen);
	if (b->saw_nccl || b->failure_count || seen || flight_ndumps(b->flight))
		return 1; /* a flight-recorder dump is a run's own record */
	if (r && r->job_exit >= 0)
		return 1;
	if (r && (r->nccl_lines || r->n || r->saw_launcher || r->saw_nccl_text || r->saw_watchdog))
		return 1;
	return log_signature_evidence(b);
}

/* Failure evidence kept outside the failure lines: a rank's failing exit or
 * signal, the launcher stopped from outside, a failing job exit record,
 * torchrun's failure block.  Normally a ranks.* diagnosis says it; this is
 * the net under it.  Returns a short description or NULL. */
static const char *launcher_failure(const struct ranks *r)
{
	if (!r)
		return NULL;
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].has_exit && r->v[i].exitcode != 0)
			return "a rank ended with a non-zero exit status or a signal";
	if (r->saw_child_failed)
		return "torchrun reported failed workers";
	if (r->launcher_signalled)
		return "the job was stopped from outside (signal, time limit)";
	if (r->job_exit > 0)
		return "the job's exit status record is not 0";
	return NULL;
}

/* The first document that was cut (inputs[].complete false), or NULL.  The
 * one source of truth for "the input was cut" is the input layer's count
 * (b->stats.cut, the report's incomplete_inputs), which also counts cuts
 * that cut no single document (a corrupt archive header, data after the
 * end, a cap on members); this only names a document when there is one. */
static const struct input_doc *cut_doc(const struct bundle *b, size_t *ncut)
{
	const struct input_doc *first = NULL;
	*ncut = 0;
	for (size_t i = 0; i < b->ndocs; i++)
		if (!b->docs[i].complete) {
			if (!first)
				first = &b->docs[i];
			(*ncut)++;
		}
	return first;
}

/* "0, 1" of the processes matching want (1: reached Init COMPLETE, 0: did not). */
static void list_ranks(struct buf *o, const struct ranks *r, int complete)
{
	size_t k = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct rank_proc *p = &r->v[i];
		int past = p->saw_init_complete || p->saw_coll || p->saw_destroy || p->saw_connected;
		if (!p->host || past != complete || (!complete && !p->saw_init_start))
			continue;
		if (k++ == 8) {
			buf_adds(o, ", ...");
			break;
		}
		if (k > 1)
			buf_adds(o, ", ");
		if (p->rank >= 0)
			buf_printf(o, "%d", p->rank);
		else
			buf_printf(o, "%s:%ld", p->host, p->pid);
		if (!complete)
			buf_printf(o, " (%s)", rank_proc_milestone(p));
	}
}

/* The first error diagnosis, specific or derived.  A known NCCL defect whose
 * version the bundle does not show (correlate.c) is no answer by itself: it
 * is taken only when nothing else names the failure (*lead); so is a diagnosis
 * that blames a user action the bundle does not show (correlate.c). */
static const struct diagnosis *top_error(const struct bundle *b, int derived, const struct diagnosis **lead)
{
	for (size_t i = 0; i < b->ndiags; i++)
		if (b->diags[i].def->severity == SEV_ERROR && b->diags[i].def->derived == derived) {
			if (b->diags[i].defect_version != DEFECT_VERSION_UNKNOWN && !b->diags[i].unseen_action)
				return &b->diags[i];
			if (lead && !*lead)
				*lead = &b->diags[i];
		}
	return NULL;
}

static const struct diagnosis *find_diag(const struct bundle *b, const char *id)
{
	for (size_t i = 0; i < b->ndiags; i++)
		if (strcmp(b->diags[i].def->id, id) == 0)
			return &b->diags[i];
	return NULL;
}

/* what a derived diagnosis was derived from (its first evidence's "from") */
static const char *from_of(const struct bundle *b, const struct diagnosis *d)
{
	const char *f = d->nev ? evidence_cap(&b->ev.v[d->ev[0]], "from") : NULL;
	return f ? f : "its structure";
}

void verdict_decide(struct bundle *b)
{
	struct buf why;
	buf_init(&why);
	const struct ranks *r = b->ranks;
	int run = shows_run(b);
	const struct diagnosis *lead = NULL;
	const struct diagnosis *spec = top_error(b, 0, &lead), *der = top_error(b, 1, NULL);
	if (!spec && !der)
		spec = lead;
	size_t ncut = 0;
	const struct input_doc *cut = cut_doc(b, &ncut);
	char nt_what[200] = "";
	int nt_seen;
	int nccltests = nccltests_result(b, nt_what, sizeof nt_what, &nt_seen);
	size_t nccl_procs = 0, nccl_complete = 0, nccl_stuck = 0, nccl_destroyed = 0, torch_ranks = 0, torch_quiet = 0;
	for (size_t i = 0; r && i < r->n; i++) {
		const struct rank_proc *p = &r->v[i];
		if (p->host) {
			nccl_procs++;
			/* past init: Init COMPLETE, a collective after it, or its teardown */
			int past = p->saw_init_complete || p->saw_coll || p->saw_destroy || p->saw_connected;
			nccl_complete += past;
			nccl_stuck += p->saw_init_start && !past;
			nccl_destroyed += p->saw_destroy != 0;
		} else if (p->rank >= 0) {
			torch_ranks++;
			torch_quiet += !p->last.path || !p->own_lines; /* only benign lines: not a sign of life */
		}
	}

	const struct diagnosis *refined = spec && spec->refined_by ? find_diag(b, spec->refined_by) : NULL;
	if (run && refined) {
		/* a signature knows the failure, its generic result names no
		 * component, and the WARN's file or the return chain does */
		b->verdict = VERDICT_DIAGNOSED;
		buf_printf(&why, "failure found: %s (%s, from %s; %s gives only a generic result)", refined->def->category,
		           refined->def->id, from_of(b, refined), spec->def->id);
	} else if (run && spec) {
		b->verdict = VERDICT_DIAGNOSED;
		buf_printf(&why, "failure found: %s (%s)", spec->def->category, spec->def->id);
	} else if (run && (der || b->failure_count || launcher_failure(r) || nccltests < 0)) {
		b->verdict = VERDICT_UNKNOWN_FAILURE;
		if (der)
			buf_printf(&why, "failure evidence that no specific signature explains; category derived: %s (%s)",
			           der->def->category, der->def->id);
		else if (!b->failure_count && nccltests < 0)
			buf_adds(&why, "nccl-tests failed: wrong values (\"Out of bounds values : N FAILED\" or a #wrong count "
			               "above 0) or a \"Test ... failure\" line (facts.nccl_tests); no signature explains it");
		else if (!b->failure_count)
			buf_printf(&why, "failure evidence that no signature explains: %s", launcher_failure(r));
		else
			buf_printf(&why, "failure evidence that no signature explains (%llu line%s, listed under unexplained)",
			           (unsigned long long)b->failure_count, b->failure_count == 1 ? "" : "s");
	} else if (b->stats.cut || cut) {
		b->verdict = VERDICT_UNKNOWN_FAILURE;
		if (cut)
			buf_printf(&why, "the input was cut: %s is incomplete%s (see warnings); what is missing may hold the "
			                 "failure, so this cannot be called healthy: collect the whole file again",
			           cut->path, ncut > 1 ? " and more documents" : "");
		else
			buf_printf(&why, "the input was cut: %zu place%s could not be read to the end (incomplete_inputs, see "
			                 "warnings); what is missing may hold the failure, so this cannot be called healthy: "
			                 "collect the whole bundle again",
			           b->stats.cut, b->stats.cut == 1 ? "" : "s");
	} else if (!run) {
		b->verdict = VERDICT_NO_EVIDENCE;
		int sys = 0;
		for (size_t i = 0; i < b->ndocs && !sys; i++)
			sys = b->docs[i].kind != DOC_TEXT && b->docs[i].kind != DOC_EMPTY && b->docs[i].kind != DOC_BINARY &&
			      !doc_kind_is_log(b->docs[i].kind);
		if (sys)
			buf_adds(&why, "no run in these inputs: system reports only (their findings are listed; "
			               "attach the job's log to judge the run)");
		else
			buf_adds(&why, "nothing recognisable: no NCCL or PyTorch output and no system report");
	} else if (r && r->doc_ends_in_coll && r->job_exit != 0 && !(nccl_procs && nccl_destroyed == nccl_procs)) {
		b->verdict = VERDICT_NO_EVIDENCE;
		buf_printf(&why, "not healthy: %s ends with an NCCL collective call (line %llu) and nothing after it: the run "
		                 "stops inside a collective with no error and no end (a hang, or an excerpt); collect the "
		                 "whole log of every rank to the end, and py-spy dumps while it hangs",
		           r->coll_end_where.path ? r->coll_end_where.path : "a log", (unsigned long long)r->coll_end_where.line);
	} else if (nccl_complete && !nccl_stuck) {
		/* every member of a communicator takes part in its init: once one
		 * completed it, a process whose lines show no init milestone is an
		 * excerpt's gap, not a rank that stopped */
		b->verdict = VERDICT_HEALTHY;
		if (nccl_complete == nccl_procs)
			buf_printf(&why, "every NCCL process that appears (%zu) got past init (Init COMPLETE, its connections, "
			                 "a collective or its teardown)%s and nothing failed",
			           nccl_procs, nccl_destroyed == nccl_procs ? ", and destroyed its communicators" : "");
		else
			buf_printf(&why, "%zu of the %zu NCCL processes that appear got past init (Init COMPLETE, their "
			                 "connections, a collective or teardown), none stopped in init, and nothing failed",
			           nccl_complete, nccl_procs);
	} else if (nccltests >= 1 && !nccl_stuck) {
		b->verdict = VERDICT_HEALTHY;
		buf_printf(&why, "nccl-tests ran: %s and no wrong values", nt_what);
	} else if (r && r->job_exit == 0 && !nccl_procs) {
		b->verdict = VERDICT_HEALTHY;
		buf_adds(&why, "the job's exit status record is 0 and nothing failed");
	} else if (!nccl_procs && torch_ranks && !torch_quiet) {
		b->verdict = VERDICT_HEALTHY;
		buf_printf(&why, "each of the %zu ranks printed its own output with no error and no failing exit "
		                 "(no NCCL debug output to confirm init)", torch_ranks);
	} else {
		b->verdict = VERDICT_NO_EVIDENCE;
		if (nccl_stuck) {
			buf_adds(&why, "not healthy: the log stops before Init COMPLETE on ");
			list_ranks(&why, r, 0);
			buf_adds(&why, " with no error and no end: an excerpt, or a run still hanging or killed without a "
			               "trace when the log was taken; collect the whole log of every rank to the end");
		} else {
			buf_adds(&why, "neither success nor failure: no rank reached Init COMPLETE, failed or reported its end "
			               "in these lines (an excerpt?); collect the whole log of every rank with NCCL_DEBUG=INFO");
		}
	}
	free(b->verdict_reason);
	/* host names come from the logs: sanitised like every reported string */
	b->verdict_reason = str_sanitize(why.data ? why.data : "", why.len);
	buf_free(&why);
}
