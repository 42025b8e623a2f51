/* patids.c - see patids.h. */
#include "match/patids.h"

#include <string.h>

#include "match/derive.h"
#include "match/sigdb.h"

const struct patid PATIDS[] = {
	{SIG_IB_NO_DEVICE, PATID_SIGNATURE, "rules_env.c, rules_host.c"},
	{SIG_IB_USING_DEVICES, PATID_SIGNATURE, "rules_env.c, rules_host.c"},
	{SIG_RDZV_STORE_CONNECTION_CLOSED, PATID_SIGNATURE, "rules_infer.c"},
	{SIG_VLLM_PYNCCL_COMM_INIT_CALL, PATID_SIGNATURE, "rules_infer.c"},
	{SIG_DS_SEE_MEMORY_USAGE_CPU, PATID_SIGNATURE, "hypotheses.c"},
	{SIG_SOCKET_NO_INTERFACE_FOUND, PATID_SIGNATURE, "rules_infer.c"},
	{SIG_DEVICE_DUPLICATE_GPU, PATID_SIGNATURE, "rules_infer.c"},
	{SIG_C10D_STORE_SOCKET_FAILED, PATID_SIGNATURE, "rules_infer.c"},
	{SIG_IB_LIBIBVERBS_MISSING, PATID_SIGNATURE, "rules_env.c, rules_host.c"},
	{SIG_CUDA_NCCL_UNHANDLED_CUDA, PATID_SIGNATURE, "rules_sys.c"},
	{SIG_COLL_WATCHDOG_TIMEOUT, PATID_SIGNATURE, "rules_host.c"},
	{SIG_COLL_HEARTBEAT_STUCK, PATID_SIGNATURE, "rules_host.c"},
	{SIG_C10D_BLOCKING_WAIT_TIMEOUT, PATID_SIGNATURE, "rules_host.c"},
	{DIAG_RANKS_SIGKILL_OOM_KILLER, PATID_DIAGNOSIS, "cascade.c"},
	{DIAG_RANKS_KILLED_BY_SIGNAL, PATID_DIAGNOSIS, "cascade.c"},
	{DIAG_RANKS_KILLED_BY_SIGBUS, PATID_DIAGNOSIS, "cascade.c, hypotheses.c"},
	{DIAG_RANKS_DIED_SILENTLY, PATID_DIAGNOSIS, "cascade.c"},
	{DIAG_RANKS_MISSING_FROM_COMM, PATID_DIAGNOSIS, "cascade.c"},
	{DIAG_RANKS_WATCHDOG_SEQNUM_BEHIND, PATID_DIAGNOSIS, "cascade.c"},
	{DIAG_RANKS_COLLECTIVE_MISMATCH, PATID_DIAGNOSIS, "cascade.c"},
	{DIAG_RANKS_NEVER_REACHED_NCCL, PATID_DIAGNOSIS, "cascade.c"},
	{DIAG_RANKS_BEHIND_NO_TIMEOUT, PATID_DIAGNOSIS, "cascade.c"},
	{DIAG_RANKS_LAUNCHER_ONLY, PATID_DIAGNOSIS, "cascade.c"},
	{DIAG_RANKS_EXITED_WITH_ERROR, PATID_DIAGNOSIS, "cascade.c"},
	{DIAG_RANKS_JOB_EXIT_NONZERO, PATID_DIAGNOSIS, "cascade.c"},
	{DIAG_LAUNCH_WORKER_EXIT_NONZERO, PATID_DIAGNOSIS, "cascade.c"},
	{DIAG_LAUNCH_MPI_RANK_SIGNALLED, PATID_DIAGNOSIS, "cascade.c"},
	{DERIVED_ROW_CHILD_FAILED, PATID_DERIVED_ROW, "cascade.c"},
	{DERIVED_ROW_RESULT_REMOTE, PATID_DERIVED_ROW, "hypotheses.c"},
	{DIAG_RANK_PEER_EXITED, PATID_DIAGNOSIS, "cascade.c"},
	{DIAG_RANK_PEER_CONNECTION_LOST, PATID_DIAGNOSIS, "cascade.c"},
	{DIAG_RANK_LOCAL_PEER_GONE, PATID_DIAGNOSIS, "cascade.c"},
	{DIAG_FLIGHT_COLLECTIVE_TIMEOUT, PATID_DIAGNOSIS, "cascade.c"},
	{DIAG_FLIGHT_DESYNC, PATID_DIAGNOSIS, "cascade.c"},
	{DIAG_FLIGHT_P2P_UNMATCHED, PATID_DIAGNOSIS, "cascade.c"},
	{DIAG_FLIGHT_WAITING_ON_MISSING, PATID_DIAGNOSIS, "cascade.c"},
	{RULE_RANKS_STUCK_IN_INIT, PATID_RULE, "nextsteps.c, rules_host.c"},
	{RULE_RANKS_MISSING_FROM_COMM, PATID_RULE, "nextsteps.c"},
	{RULE_RANKS_WATCHDOG_SEQNUM_BEHIND, PATID_RULE, "nextsteps.c"},
	{RULE_RANKS_COLLECTIVE_MISMATCH, PATID_RULE, "nextsteps.c"},
	{RULE_RANKS_LOG_ENDS_MIDWAY, PATID_RULE, "nextsteps.c, rules_host.c"},
	{RULE_RANKS_SIGKILL_OOM_KILLER, PATID_RULE, "nextsteps.c"},
	{RULE_RANKS_DIED_SILENTLY, PATID_RULE, "nextsteps.c"},
	{RULE_RANKS_HANG_STOPPED_OUTSIDE, PATID_RULE, "rules_host.c"},
	{RULE_TOPO_HANG_AFTER_P2P_SETUP, PATID_RULE, "rules_host.c"},
	{FAMILY_OOM, PATID_FAMILY, "rules_sys.c"},
	{FAMILY_MEMORY, PATID_FAMILY, "rules_sys.c"},
	{FAMILY_RANKS, PATID_FAMILY, "cascade.c, rules_ranks.c"},
	{FAMILY_IB, PATID_FAMILY, "rules_host.c"},
	{FAMILY_DERIVED, PATID_FAMILY, "cascade.c, derive.c, rules_derived.c"},
	{FAMILY_FLOOR, PATID_FAMILY, "rules_floor.c, analysis.c"},
	{CAT_RANK_FAILURE, PATID_CATEGORY, "cascade.c"},
	{CAT_COLLECTIVE_TIMEOUT, PATID_CATEGORY, "cascade.c"},
	{CAT_SOCKET_NETWORK, PATID_CATEGORY, "cascade.c"},
	{CAT_IB_RDMA, PATID_CATEGORY, "cascade.c"},
	{CAT_RENDEZVOUS, PATID_CATEGORY, "cascade.c"},
	{CAT_P2P_BROKEN, PATID_CATEGORY, "hypotheses.c"},
	{CAT_SHM_EXHAUSTED, PATID_CATEGORY, "hypotheses.c"},
	{CAT_GPU_OOM, PATID_CATEGORY, "hypotheses.c"},
	{CAT_VERSION_MISMATCH, PATID_CATEGORY, "hypotheses.c"},
	{CAT_DEVICE_ASSIGNMENT, PATID_CATEGORY, "hypotheses.c"},
	{CAT_FABRIC_MANAGER, PATID_CATEGORY, "hypotheses.c"},
	{CAT_MEMLOCK_LIMITS, PATID_CATEGORY, "hypotheses.c"},
	{CAT_NCCL_BUG_UPGRADE, PATID_CATEGORY, "hypotheses.c"},
	{CAT_ENV_MISCONFIG, PATID_CATEGORY, "hypotheses.c"},
	{CAT_CUDA_ERROR_OTHER, PATID_CATEGORY, "hypotheses.c"},
	{CAT_OTHER, PATID_CATEGORY, "hypotheses.c"},
};
const size_t NPATIDS = sizeof PATIDS / sizeof PATIDS[0];

static int family_present(const struct sigdb *db, const char *prefix)
{
	size_t n = strlen(prefix);
	for (size_t i = 0; i < db->nsigs; i++)
		if (strncmp(db->sigs[i].id, prefix, n) == 0)
			return 1;
	for (size_t i = 0; i < db->ndiags; i++)
		if (strncmp(db->diags[i].id, prefix, n) == 0)
			return 1;
	for (size_t t = 0; t < db->nrules; t++)
		for (size_t i = 0; i < db->rules[t].n; i++)
			if (strncmp(db->rules[t].v[i].id, prefix, n) == 0)
				return 1;
	return 0;
}

int patids_check(const struct sigdb *db, struct msgs *m)
{
	static const char *const WHAT[] = {"signature", "diagnosis", "fact rule", "id family", "category", "derived row"};
	int missing = 0;
	for (size_t i = 0; i < NPATIDS; i++) {
		const struct patid *p = &PATIDS[i];
		int ok = 0;
		switch (p->kind) {
		case PATID_SIGNATURE: ok = sigdb_sig(db, p->id) != NULL; break;
		case PATID_DIAGNOSIS: ok = sigdb_diag(db, p->id) != NULL; break;
		case PATID_RULE: ok = sigdb_rule(db, p->id) != NULL; break;
		case PATID_FAMILY: ok = family_present(db, p->id); break;
		case PATID_CATEGORY: ok = category_valid(p->id); break;
		case PATID_DERIVED_ROW:
			for (size_t k = 0; k < db->nderived && !ok; k++)
				ok = strcmp(db->derived[k].id, p->id) == 0;
			break;
		}
		if (!ok) {
			msgs_add(m, "analyzer/patids.h: the %s \"%s\" (named in %s) is not in the database",
			         WHAT[p->kind], p->id, p->used_in);
			missing++;
		}
	}
	return missing;
}
