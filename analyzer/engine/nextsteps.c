/* nextsteps.c - see nextsteps.h. */
#include "engine/nextsteps.h"

#include <string.h>

#include "engine/bundle.h"
#include "engine/diagnosis.h"
#include "engine/hypotheses.h"
#include "match/evidence.h"
#include "base/json.h"
#include "match/patids.h"
#include "parse/ranks.h"

static int has_kind(const struct bundle *b, enum doc_kind k)
{
	for (size_t i = 0; i < b->ndocs; i++)
		if (b->docs[i].kind == k)
			return 1;
	return 0;
}

static int is_hang(const struct bundle *b)
{
	return evlist_has(&b->ev, RULE_RANKS_STUCK_IN_INIT) || evlist_has(&b->ev, RULE_RANKS_MISSING_FROM_COMM) ||
	       evlist_has(&b->ev, RULE_RANKS_WATCHDOG_SEQNUM_BEHIND) || evlist_has(&b->ev, RULE_RANKS_COLLECTIVE_MISMATCH) ||
	       evlist_has(&b->ev, RULE_RANKS_LOG_ENDS_MIDWAY) || (b->ranks && b->ranks->saw_watchdog);
}

static int any_failure(const struct bundle *b)
{
	return b->verdict == VERDICT_DIAGNOSED || b->verdict == VERDICT_UNKNOWN_FAILURE;
}

static int among(const char *const *cats, size_t n, const char *c)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(cats[i], c) == 0)
			return 1;
	return 0;
}

/* Only what would change or confirm the answer: nothing after a certain
 * diagnosis (a port in use, a duplicate GPU); the topology when a
 * hypothesis rests on it (P2P, device assignment, NVSwitch) or the job
 * hung; versions when one is about versions, a CUDA fault or an NCCL
 * defect; everything when nothing was diagnosed. */
void next_steps(const struct bundle *b, struct strvec *out)
{
	const char *cats[3];
	int certain = 0;
	size_t nc = hypotheses_categories(b, cats, &certain);
	if (certain)
		return;
	int open = nc == 0; /* no diagnosis: every gap may matter */
	const struct ranks *r = b->ranks;
	int failed = any_failure(b) || is_hang(b);
	int hang = is_hang(b);
	int want_topo = open || hang || among(cats, nc, CAT_P2P_BROKEN) || among(cats, nc, CAT_DEVICE_ASSIGNMENT) ||
	                among(cats, nc, CAT_FABRIC_MANAGER);
	int want_versions = open || among(cats, nc, CAT_VERSION_MISMATCH) || among(cats, nc, CAT_NCCL_BUG_UPGRADE) ||
	                    among(cats, nc, CAT_CUDA_ERROR_OTHER) || among(cats, nc, CAT_FABRIC_MANAGER);
	int want_net = open || among(cats, nc, CAT_SOCKET_NETWORK) || among(cats, nc, CAT_IB_RDMA) ||
	               among(cats, nc, CAT_RANK_FAILURE) || among(cats, nc, CAT_RENDEZVOUS) || hang;
	int want_order = open || among(cats, nc, CAT_RANK_FAILURE) || among(cats, nc, CAT_COLLECTIVE_TIMEOUT) || hang;
	size_t nccl_procs = 0, world = 0;
	for (size_t i = 0; r && i < r->n; i++) {
		if (r->v[i].host)
			nccl_procs++;
		if (r->v[i].nranks > 0 && (size_t)r->v[i].nranks > world)
			world = (size_t)r->v[i].nranks;
	}
	if (!r || r->nccl_lines == 0)
		strvec_push(out, "No NCCL debug output: re-run with `NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,ENV "
		                 "NCCL_DEBUG_FILE=/tmp/nccl.%h.%p.log` (one file per process: %h = host, %p = pid) "
		                 "and attach every file");
	else if (world > 1 && nccl_procs < world && want_order)
		strvec_push_owned(out, xasprintf("Only %zu of %zu ranks' NCCL output is here: collect the logs of every "
		                                 "rank on every node (e.g. `NCCL_DEBUG_FILE=/shared/nccl.%%h.%%p.log`, or "
		                                 "torchrun `--log-dir DIR --redirects 3`) so that the ranks can be lined up",
		                                 nccl_procs, world));
	if (r && r->nccl_lines && !r->saw_net_lines && failed && want_net)
		strvec_push(out, "Include the network choice in the log: `NCCL_DEBUG_SUBSYS=INIT,NET,ENV` prints "
		                 "`Bootstrap: Using`, `NET/Socket : Using` and `NET/IB : Using` per rank");
	if (want_topo && !has_kind(b, DOC_TOPO_MATRIX) && !has_kind(b, DOC_TOPO_XML) && !has_kind(b, DOC_TOPO_P2P))
		strvec_push(out, "No topology: attach `nvidia-smi topo -m` from every host (and, for P2P doubts, "
		                 "`nvidia-smi topo -p2p r`; NCCL's own view with `NCCL_TOPO_DUMP_FILE=/tmp/topo.xml`)");
	if (want_versions && !has_kind(b, DOC_COLLECT_ENV) && !has_kind(b, DOC_PIP_LIST) && !has_kind(b, DOC_NVSMI) &&
	    !has_kind(b, DOC_NVSMI_Q))
		strvec_push(out, "No versions: attach `python -m torch.utils.collect_env` and `nvidia-smi` from every host "
		                 "(driver, CUDA, PyTorch and its NCCL)");
	if (r && r->saw_launcher && !r->saw_child_failed && failed && want_order)
		strvec_push(out, "The launcher's summary is missing: attach torchrun's output to the end (the "
		                 "ChildFailedError block lists every rank's exit code, signal and the first failure)");
	if (hang && !has_kind(b, DOC_FLIGHT_RECORDER))
		strvec_push(out, "For a hang, enable PyTorch's flight recorder: `TORCH_FR_BUFFER_SIZE=2000` (before "
		                 "torch 2.11: `TORCH_NCCL_TRACE_BUFFER_SIZE=2000`) with `TORCH_NCCL_DUMP_ON_TIMEOUT=1`; "
		                 "every rank dumps to `/tmp/nccl_trace_rank_<rank>` on timeout; attach every rank's dump "
		                 "(nccl-triage reads them next to the logs, safely). While it hangs, "
		                 "`py-spy dump --pid <pid>` of each rank shows where it waits");
	if (evlist_has(&b->ev, RULE_RANKS_SIGKILL_OOM_KILLER) || evlist_has(&b->ev, RULE_RANKS_DIED_SILENTLY))
		strvec_push(out, "A rank was SIGKILLed or vanished: attach `dmesg -T | tail -200` (or `journalctl -k`) from its host "
		                 "and the scheduler's record of the job (sacct, kubectl describe pod)");
	int ts = 0;
	for (size_t i = 0; r && i < r->n && !ts; i++)
		ts = r->v[i].first_error.ts >= 0 || r->v[i].last.ts >= 0;
	if (r && r->n > 1 && failed && !ts && want_order)
		strvec_push(out, "No timestamps to order the ranks: NCCL 2.26+ prints them on WARN lines only; add "
		                 "`NCCL_DEBUG_TIMESTAMP_LEVELS=WARN,INFO` (or collect logs through a collector that "
		                 "stamps each line)");
}

/* A known NCCL defect matched but the bundle shows no NCCL version
 * (correlate.c, DEFECT_VERSION_UNKNOWN): ask for it, naming the defect,
 * rather than guess.  First: it decides between that defect and the rest. */
static void defect_version_steps(const struct bundle *b, struct strvec *out)
{
	struct buf names;
	buf_init(&names);
	size_t k = 0;
	for (size_t i = 0; i < b->ndiags; i++)
		if (b->diags[i].defect_version == DEFECT_VERSION_UNKNOWN && k++ < 3)
			buf_printf(&names, "%s'%s' (%s)", names.len ? "; " : "", b->diags[i].title, b->diags[i].def->id);
	if (k)
		strvec_push_owned(out, xasprintf("Tell the NCCL version: the failure matches the known NCCL defect%s %s%s, "
		                                 "which only some releases have. `NCCL_DEBUG=VERSION` prints `NCCL version 2.x.y` "
		                                 "at init; or attach `python -c 'import torch; print(torch.cuda.nccl.version())'`, "
		                                 "`pip list | grep -i nccl` and `ls -l` of the libnccl.so.2 the job loads (ldd)",
		                                 k > 1 ? "s" : "", names.data, k > 3 ? " and more" : ""));
	buf_free(&names);
}

cJSON *next_steps_json(const struct bundle *b)
{
	struct strvec sv = {0};
	defect_version_steps(b, &sv);
	next_steps(b, &sv);
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < sv.n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(sv.v[i]));
	strvec_free(&sv);
	return a;
}

void next_steps_text(FILE *out, const cJSON *steps, int markdown)
{
	if (markdown)
		fprintf(out, "**Next steps: what to collect**\n\n");
	else
		fprintf(out, "\nNext steps (what to collect):\n");
	if (!json_size(steps))
		fprintf(out, markdown ? "- Nothing more is needed to support this conclusion.\n" :
		                        "   nothing more is needed to support this conclusion\n");
	size_t i = 0;
	const cJSON *it;
	cJSON_ArrayForEach(it, steps) {
		if (!cJSON_IsString(it))
			continue;
		if (markdown)
			fprintf(out, "%zu. %s\n", i + 1, it->valuestring);
		else
			fprintf(out, "   %zu. %s\n", i + 1, it->valuestring);
		i++;
	}
	if (markdown)
		fprintf(out, "\n");
}
