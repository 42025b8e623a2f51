/* rules_floor.c - the floor (docs/derived.md, "The floor"): when no
 * signature, rule or derived row named a category for a bundle that failed,
 * the keyword tier's pick (linekw.h's floor keywords, the bundle's
 * floor_pick) names one, with low confidence, and says that this is all
 * there is.  The decision needs the diagnoses, so the engine calls
 * rules_floor_emit after correlating (analysis.c); the provider's table only
 * declares the evidence ids (patterns/floor.json has a diagnosis for each). */
#include "rules/rules.h"

#include <stdio.h>
#include <string.h>

#include "match/patids.h"
#include "parse/linekw.h"
#include "base/util.h"

static const struct rule_def DEFS[] = {
	{"floor.p2p_broken", "the keyword tier (nothing specific named a category): P2P_BROKEN"},
	{"floor.ib_rdma", "the keyword tier (nothing specific named a category): IB_RDMA"},
	{"floor.socket_network", "the keyword tier (nothing specific named a category): SOCKET_NETWORK"},
	{"floor.shm_exhausted", "the keyword tier (nothing specific named a category): SHM_EXHAUSTED"},
	{"floor.gpu_oom", "the keyword tier (nothing specific named a category): GPU_OOM"},
	{"floor.version_mismatch", "the keyword tier (nothing specific named a category): VERSION_MISMATCH"},
	{"floor.collective_timeout", "the keyword tier (nothing specific named a category): COLLECTIVE_TIMEOUT"},
	{"floor.rendezvous", "the keyword tier (nothing specific named a category): RENDEZVOUS"},
	{"floor.device_assignment", "the keyword tier (nothing specific named a category): DEVICE_ASSIGNMENT"},
	{"floor.fabric_manager", "the keyword tier (nothing specific named a category): FABRIC_MANAGER"},
	{"floor.memlock_limits", "the keyword tier (nothing specific named a category): MEMLOCK_LIMITS"},
	{"floor.cuda_error_other", "the keyword tier (nothing specific named a category): CUDA_ERROR_OTHER"},
	{"floor.rank_failure", "the keyword tier (nothing specific named a category): RANK_FAILURE"},
};

/* "floor.gpu_oom" for "GPU_OOM" (in buf). */
const char *rules_floor_id(const char *category, char *buf, size_t n)
{
	size_t k = (size_t)snprintf(buf, n, "%s", FAMILY_FLOOR);
	for (size_t i = 0; category[i] && k + 1 < n; i++)
		buf[k++] = (char)(category[i] >= 'A' && category[i] <= 'Z' ? category[i] - 'A' + 'a' : category[i]);
	buf[k] = 0;
	return buf;
}

void rules_floor_emit(struct rule_ctx *rc)
{
	const struct floor_pick *f = rc->floor;
	const struct floorkw *k = f && f->kw >= 0 ? floorkw_get((size_t)f->kw) : NULL;
	if (!k)
		return;
	char id[48];
	struct capture caps[3] = {
		{(char *)"keyword", (char *)k->text},
		{(char *)"category", (char *)k->category},
		{(char *)"tier", (char *)(k->tier == 1 ? "a phrase that states a cause" : "a keyword on a failure line")},
	};
	struct evidence *e = rule_emit(rc, rules_floor_id(k->category, id, sizeof id), f->path, f->line, f->raw, caps, 3);
	if (!e)
		return;
	/* the evidence is the line itself, verbatim at path:line */
	e->derived = 0;
	e->length = f->rawlength;
	e->cut = f->rawlength > 500;
	e->rank = f->rank;
	e->pid = f->pid;
	if (f->host && !e->host)
		e->host = evlist_keep(rc->ev, f->host); /* the list owns it (evidence.h) */
}

static void run(struct rule_ctx *rc)
{
	(void)rc; /* the floor is decided after the diagnoses (rules_floor_emit) */
}

const struct rule_provider RULES_FLOOR = {
	"floor", DEFS, sizeof DEFS / sizeof DEFS[0], run,
};
