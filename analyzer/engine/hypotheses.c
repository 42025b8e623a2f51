/* hypotheses.c - see hypotheses.h.
 *
 * One copy of "what tells a category apart": CONFIRM below, per category,
 * is the next thing to collect (or the verify run) that confirms or rules
 * it out; the next steps and the renderers read it through the report's
 * "hypotheses".  The alternatives a diagnosis's evidence leaves open are in
 * OPEN: each names the diagnoses it applies to (or a category) and, for the
 * network ones, which transport the bundle shows decides the order. */
#include "engine/hypotheses.h"

#include <stdlib.h>
#include <string.h>

#include "engine/bundle.h"
#include "engine/diagnosis.h"
#include "base/json.h"
#include "match/patids.h"
#include "parse/ranks.h"
#include "base/util.h"

static const struct {
	const char *category, *confirm;
} CONFIRM[] = {
	{CAT_P2P_BROKEN, "`nccl-triage verify --env NCCL_P2P_DISABLE=1` on the host: init and the collective complete "
	                 "with P2P off when the P2P path is the cause; then ACS (`lspci -vvv | grep ACSCtl`) versus "
	                 "the IOMMU (`dmesg | grep -i -e DMAR -e IOMMU`, `iommu=pt`)"},
	{CAT_IB_RDMA, "the NET/IB lines of every rank (`NCCL_DEBUG_SUBSYS=INIT,NET`) and `ibstat` / `ibv_devinfo` on "
	              "every node; a run with `NCCL_IB_DISABLE=1` that works puts the fault on the IB path"},
	{CAT_SOCKET_NETWORK, "the `Bootstrap : Using` and `NET/Socket : Using` lines of every rank "
	                     "(`NCCL_DEBUG_SUBSYS=INIT,NET`) and `ip -br addr` on every host: which interface each "
	                     "rank chose and whether the peers reach it"},
	{CAT_SHM_EXHAUSTED, "`df -h /dev/shm` inside the container; a run with `NCCL_SHM_DISABLE=1` "
	                    "(`nccl-triage verify --env NCCL_SHM_DISABLE=1`) that works confirms it"},
	{CAT_GPU_OOM, "the GPU memory at the failure: `nvidia-smi --query-gpu=memory.used,memory.total --format=csv -lms 500` "
	              "during the run, or the `CUDA out of memory` line of the rank"},
	{CAT_VERSION_MISMATCH, "`python -m torch.utils.collect_env` and `nvidia-smi` from every host: driver, CUDA, "
	                       "PyTorch and its NCCL"},
	{CAT_COLLECTIVE_TIMEOUT, "which rank was elsewhere: the flight recorder (`TORCH_FR_BUFFER_SIZE=2000`, "
	                         "`TORCH_NCCL_DUMP_ON_TIMEOUT=1`) or `py-spy dump --pid` of every rank while it waits"},
	{CAT_RENDEZVOUS, "the launcher's output on every node: whether each reached the rendezvous, and whether "
	                 "MASTER_ADDR:MASTER_PORT is reachable and free (`ss -ltnp` on the master)"},
	{CAT_DEVICE_ASSIGNMENT, "the Init lines of every rank (`NCCL_DEBUG=INFO`: `cudaDev`, `busId`): two ranks on "
	                        "one bus id, or a device index beyond the visible GPUs"},
	{CAT_FABRIC_MANAGER, "`systemctl status nvidia-fabricmanager` and `nvidia-smi -q | grep -i -A2 fabric`; a run "
	                     "with `NCCL_NVLS_ENABLE=0`"},
	{CAT_MEMLOCK_LIMITS, "`ulimit -l` inside the job (containers: `--ulimit memlock=-1`)"},
	{CAT_NCCL_BUG_UPGRADE, "the NCCL version of every rank (the `NCCL version` banner); the same job with another "
	                       "NCCL release"},
	{CAT_ENV_MISCONFIG, "the `set by environment to` lines (`NCCL_DEBUG_SUBSYS=ENV`): the variables the job "
	                    "sets; the same job without them"},
	{CAT_RANK_FAILURE, "the first error of every rank (all logs: `NCCL_DEBUG_FILE=/tmp/nccl.%h.%p.log`) and the "
	                   "launcher's exit summary: which rank ended first and how (`dmesg -T` for a SIGKILL)"},
	{CAT_CUDA_ERROR_OTHER, "`dmesg -T | grep -i xid` and `nvidia-smi -q -d ECC` on the host; "
	                       "`CUDA_LAUNCH_BLOCKING=1` for a kernel fault"},
	{CAT_OTHER, "the whole log of every rank with `NCCL_DEBUG=INFO`"},
};

static const char *confirm_of(const char *cat)
{
	for (size_t i = 0; i < sizeof CONFIRM / sizeof CONFIRM[0]; i++)
		if (strcmp(CONFIRM[i].category, cat) == 0)
			return CONFIRM[i].confirm;
	return "the whole log of every rank with `NCCL_DEBUG=INFO`";
}

/* ---- what the bundle shows ---- */

static int has_family(const struct bundle *b, const char *prefix)
{
	size_t n = strlen(prefix);
	for (size_t i = 0; i < b->ev.ncounts; i++)
		if (b->ev.counts[i].count && strncmp(b->ev.counts[i].id, prefix, n) == 0)
			return 1;
	return 0;
}

/* NCCL used (or tried) InfiniBand/RoCE: its NET/IB device line, an IB
 * transport in a channel line, or any IB finding. */
static int shows_ib(const struct bundle *b)
{
	if (evlist_has(&b->ev, SIG_IB_USING_DEVICES))
		return 1;
	for (size_t i = 0; b->ranks && i < b->ranks->n; i++) {
		const char *t = b->ranks->v[i].transport;
		if (t && (strstr(t, "NET/IB") || strstr(t, "IBext")))
			return 1;
	}
	return has_family(b, FAMILY_IB) && !evlist_has(&b->ev, SIG_IB_NO_DEVICE);
}

/* A rank that died, was killed or never came is in the bundle. */
static int shows_dead_rank(const struct bundle *b)
{
	static const char *const ids[] = {DIAG_RANKS_SIGKILL_OOM_KILLER, DIAG_RANKS_KILLED_BY_SIGNAL, DIAG_RANKS_KILLED_BY_SIGBUS,
	                                  DIAG_RANKS_DIED_SILENTLY, DIAG_RANKS_MISSING_FROM_COMM, NULL};
	for (size_t i = 0; i < b->ndiags; i++)
		for (size_t k = 0; ids[k]; k++)
			if (strcmp(b->diags[i].def->id, ids[k]) == 0)
				return 1;
	return 0;
}

/* The job ran in a container: a host named like Docker's default hostname
 * (the container id: 12 hex digits) or a Kubernetes pod (*.svc.cluster.local).
 * Containers have a small /dev/shm by default (Docker: 64 MiB). */
static int in_container(const struct bundle *b)
{
	for (size_t i = 0; b->ranks && i < b->ranks->n; i++) {
		const char *hs[2] = {b->ranks->v[i].host, b->ranks->v[i].launcher_host};
		for (int k = 0; k < 2; k++) {
			const char *h = hs[k];
			if (!h)
				continue;
			if (strstr(h, ".svc.cluster.local"))
				return 1;
			size_t n = strlen(h), hex = 0, digits = 0;
			for (size_t j = 0; j < n; j++) {
				hex += (h[j] >= '0' && h[j] <= '9') || (h[j] >= 'a' && h[j] <= 'f');
				digits += h[j] >= '0' && h[j] <= '9';
			}
			if (n == 12 && hex == 12 && digits && digits < 12)
				return 1;
		}
	}
	return 0;
}

/* Host RAM near full in telemetry close to the end of a log (DeepSpeed's
 * see_memory_usage, psutil's percentage: 85% or more in the last 50 lines
 * of its document): the kernel's OOM killer is a suspect for any rank that
 * ended or went silent.  The percentage goes to *pct. */
static int host_ram_high(const struct bundle *b, double *pct)
{
	const struct evidence *last = NULL;
	for (size_t i = 0; i < b->ev.n; i++)
		if (strcmp(b->ev.v[i].id, SIG_DS_SEE_MEMORY_USAGE_CPU) == 0)
			last = &b->ev.v[i];
	const char *p = last ? evidence_cap(last, "pct") : NULL;
	if (!p || (*pct = strtod(p, NULL)) < 85)
		return 0;
	for (size_t i = 0; i < b->ndocs; i++)
		if (strcmp(b->docs[i].path, last->path) == 0)
			return last->line + 50 >= b->docs[i].lines;
	return 0;
}

/* ---- the alternatives a diagnosis leaves open ---- */

struct hyp {
	const char *category;
	double confidence;
	const char *diagnosis; /* borrowed id, or NULL */
	const char *tell;      /* borrowed */
};

struct hypset {
	struct hyp v[3];
	size_t n;
};

static int hyp_has(const struct hypset *h, const char *cat)
{
	for (size_t i = 0; i < h->n; i++)
		if (strcmp(h->v[i].category, cat) == 0)
			return 1;
	return 0;
}

/* Candidates are gathered, then the best of other categories kept. */
struct cand {
	struct hyp h;
	size_t order;
};

struct cands {
	struct cand v[16];
	size_t n;
};

static void cand_add(struct cands *c, const char *cat, double conf, const char *diag, const char *tell)
{
	if (c->n == sizeof c->v / sizeof c->v[0])
		return;
	c->v[c->n].h = (struct hyp){cat, conf, diag, tell};
	c->v[c->n].order = c->n;
	c->n++;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if (x->h.confidence != y->h.confidence)
		return x->h.confidence > y->h.confidence ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int id_in(const char *id, const char *const *ids)
{
	for (size_t k = 0; ids[k]; k++)
		if (strcmp(id, ids[k]) == 0)
			return 1;
	return 0;
}

/* The row a derived diagnosis came from (its first evidence item). */
static const char *derived_row(const struct bundle *b, const struct diagnosis *d)
{
	return d->nev ? evidence_cap(&b->ev.v[d->ev[0]], "row") : NULL;
}

static void open_alternatives(const struct bundle *b, const struct diagnosis *top, struct cands *c)
{
	const char *cat = top->def->category, *id = top->def->id, *row = derived_row(b, top);
	double rest = 1.0 - top->confidence;
	if (rest < 0.1)
		rest = 0.1;
	int ib = shows_ib(b);
	double pct = 0;
	if (strcmp(cat, CAT_RANK_FAILURE) != 0 && top->confidence < 0.9 && host_ram_high(b, &pct))
		cand_add(c, CAT_RANK_FAILURE, rest * 0.6, NULL,
		         "the host's RAM was near full close to the end of the log (DeepSpeed's see_memory_usage): "
		         "`dmesg -T | grep -i -e 'killed process' -e oom` on that node; a rank the kernel's OOM killer ended "
		         "shows exit -9 / SIGKILL in the launcher's summary");
	/* in a container, /dev/shm is small unless the job asked for more: a
	 * failure that names no cause may be NCCL's or a DataLoader's segment */
	if (in_container(b) && strcmp(cat, CAT_SHM_EXHAUSTED) != 0 && top->confidence < 0.8)
		cand_add(c, CAT_SHM_EXHAUSTED, rest * 0.5, NULL,
		         "`df -h /dev/shm` inside the container (the host name is a container's; Docker's default is 64 MiB): "
		         "a run with `NCCL_SHM_DISABLE=1` that works, or a larger `--shm-size`, confirms it");
	/* "remote process exited or there was a network error": the message names both */
	static const char *const remote[] = {DIAG_RANK_PEER_EXITED, DIAG_RANK_PEER_CONNECTION_LOST,
	                                     DIAG_RANK_LOCAL_PEER_GONE, NULL};
	if (strcmp(cat, CAT_RANK_FAILURE) == 0 && !shows_dead_rank(b) &&
	    (id_in(id, remote) || (row && strcmp(row, DERIVED_ROW_RESULT_REMOTE) == 0))) {
		const char *tib = "the peer's own log: a peer that died shows its own error or exit; when every peer lived, "
		                  "the IB link broke: `ibstat` and the port error counters on both nodes, NCCL's NET/IB WARN "
		                  "lines (`NCCL_DEBUG=INFO`)";
		const char *tsock = "the peer's own log: a peer that died shows its own error or exit; when every peer "
		                    "lived, the TCP path broke: the interface each rank chose (`NET/Socket : Using`, "
		                    "`NCCL_SOCKET_IFNAME`), a firewall or an MTU between the hosts";
		cand_add(c, ib ? CAT_IB_RDMA : CAT_SOCKET_NETWORK, rest * 0.6, NULL, ib ? tib : tsock);
		cand_add(c, ib ? CAT_SOCKET_NETWORK : CAT_IB_RDMA, rest * 0.3, NULL, ib ? tsock : tib);
		return;
	}
	/* a timeout says that someone did not arrive, not who or why */
	if (strcmp(cat, CAT_COLLECTIVE_TIMEOUT) == 0 && top->def->derived) {
		cand_add(c, CAT_RANK_FAILURE, rest * 0.5, NULL,
		         "every rank's log to its end: a rank that died or hung without a word is the one the others "
		         "waited for");
		cand_add(c, ib ? CAT_IB_RDMA : CAT_SOCKET_NETWORK, rest * 0.3, NULL,
		         "NCCL's WARN lines and the NET lines of every rank (`NCCL_DEBUG=INFO`): a transport that stopped "
		         "moving data names itself there");
		return;
	}
	/* ncclUnhandledCudaError: a CUDA call failed; which one, NCCL's WARN before it says */
	if (strcmp(cat, CAT_CUDA_ERROR_OTHER) == 0 && top->confidence < 0.6) {
		cand_add(c, CAT_GPU_OOM, rest * 0.5, NULL,
		         "the `Cuda failure 'out of memory'` WARN line before the error (`NCCL_DEBUG=WARN`), or the GPU "
		         "memory near capacity at the failure (`nvidia-smi`)");
		cand_add(c, CAT_VERSION_MISMATCH, rest * 0.3, NULL,
		         "`nvidia-smi` (the driver's CUDA version) against the CUDA PyTorch and NCCL were built with "
		         "(`collect_env`): a driver older than the runtime fails its first calls");
		return;
	}
	/* system error / internal error / invalid usage: the code names no host category */
	if (strcmp(cat, CAT_OTHER) == 0) {
		const char *tell = "`NCCL_DEBUG=INFO`: the WARN line just before the error names the call that failed "
		                   "(a socket, a shared-memory segment, a verbs call)";
		cand_add(c, ib ? CAT_IB_RDMA : CAT_SOCKET_NETWORK, rest * 0.4, NULL, tell);
		cand_add(c, CAT_SHM_EXHAUSTED, rest * 0.3, NULL, tell);
		return;
	}
	/* a store that fails: the process hosting it, or the path to it */
	if (strcmp(cat, CAT_RENDEZVOUS) == 0 && top->confidence < 0.9) {
		cand_add(c, CAT_RANK_FAILURE, rest * 0.4, NULL,
		         "the log of the process that hosts the store (rank 0, MASTER_ADDR): a store that goes away "
		         "mid-job is that process ending");
		cand_add(c, CAT_SOCKET_NETWORK, rest * 0.3, NULL,
		         "from another node: `nc -zv MASTER_ADDR MASTER_PORT` (a firewall or a wrong address)");
	}
}

/* A role weighs a diagnosis as an alternative: an echo or a remark is a
 * weaker explanation than a root. */
static double role_weight(enum role r)
{
	return r == ROLE_ROOT ? 1.0 : r == ROLE_CONTEXT ? 0.6 : 0.5;
}

static const char *tell_of(const struct diagnosis *d)
{
	return confirm_of(d->def->category);
}

static void build(const struct bundle *b, struct hypset *h)
{
	h->n = 0;
	const struct diagnosis *top = NULL;
	size_t ti = 0;
	for (size_t i = 0; i < b->ndiags && !top; i++)
		if (b->diags[i].def->severity == SEV_ERROR || b->diags[i].def->severity == SEV_WARNING) {
			top = &b->diags[i];
			ti = i;
		}
	if (!top)
		return;
	h->v[h->n++] = (struct hyp){top->def->category, top->confidence, top->def->id, tell_of(top)};
	if (top->confidence >= HYP_CERTAIN)
		return; /* certain: nothing else to tell apart */
	struct cands c = {.n = 0};
	double cap = top->confidence - 0.01;
	for (size_t i = ti + 1; i < b->ndiags; i++) {
		const struct diagnosis *d = &b->diags[i];
		if (d->def->severity != SEV_ERROR && d->def->severity != SEV_WARNING)
			continue;
		double conf = d->confidence * role_weight(d->role);
		cand_add(&c, d->def->category, conf < cap ? conf : cap, d->def->id, tell_of(d));
	}
	size_t from = c.n;
	open_alternatives(b, top, &c);
	for (size_t i = from; i < c.n; i++)
		if (c.v[i].h.confidence > cap)
			c.v[i].h.confidence = cap; /* an alternative is never likelier than the top */
	xqsort(c.v, c.n, sizeof c.v[0], cmp_cand);
	for (size_t i = 0; i < c.n && h->n < 3; i++)
		if (!hyp_has(h, c.v[i].h.category))
			h->v[h->n++] = c.v[i].h;
}

size_t hypotheses_categories(const struct bundle *b, const char *cats[3], int *certain)
{
	struct hypset h;
	build(b, &h);
	*certain = 0;
	for (size_t i = 0; i < h.n; i++)
		cats[i] = h.v[i].category;
	if (h.n) {
		const struct diagdef *d = h.v[0].diagnosis ? sigdb_diag(b->db, h.v[0].diagnosis) : NULL;
		*certain = d && !d->derived && h.v[0].confidence >= HYP_CERTAIN;
	}
	return h.n;
}

static double two_decimals(double v)
{
	return (double)(long)(v * 100 + 0.5) / 100.0;
}

cJSON *hypotheses_json(const struct bundle *b)
{
	struct hypset h;
	build(b, &h);
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < h.n; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "category", h.v[i].category);
		cJSON_AddNumberToObject(o, "confidence", two_decimals(h.v[i].confidence));
		if (h.v[i].diagnosis)
			cJSON_AddStringToObject(o, "diagnosis", h.v[i].diagnosis);
		else
			cJSON_AddNullToObject(o, "diagnosis");
		cJSON_AddStringToObject(o, "tell_apart", h.v[i].tell);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

const char *confidence_word(double c)
{
	return c >= 0.9 ? "near certain" : c >= 0.7 ? "likely" : c >= 0.5 ? "possible" : c >= 0.3 ? "weak" : "a guess";
}

void hypotheses_text(FILE *out, const cJSON *hyps, int markdown)
{
	if (json_size(hyps) < 2)
		return;
	if (markdown)
		fprintf(out, "**Hypotheses** (the top diagnosis is not certain; what tells them apart)\n\n");
	else
		fprintf(out, "\nHypotheses (the top diagnosis is not certain; what tells them apart):\n");
	size_t i = 0;
	const cJSON *it;
	cJSON_ArrayForEach(it, hyps) {
		double conf = 0;
		json_num(it, "confidence", &conf);
		const char *cat = json_str(it, "category"), *id = json_str(it, "diagnosis"), *tell = json_str(it, "tell_apart");
		if (markdown)
			fprintf(out, "%zu. **%s**, %s (%.2f)%s%s%s: %s\n", ++i, cat ? cat : "?", confidence_word(conf), conf,
			        id ? " — `" : "", id ? id : "", id ? "`" : "", tell ? tell : "");
		else
			fprintf(out, "   %zu. %s, %s (%.2f)%s%s: %s\n", ++i, cat ? cat : "?", confidence_word(conf), conf,
			        id ? " — " : "", id ? id : "", tell ? tell : "");
	}
	if (markdown)
		fprintf(out, "\n");
}
