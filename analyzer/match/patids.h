/* patids.h - every id of the signature database (patterns/) and of the
 * fact rules that C code names, in one place: code uses these macros,
 * never a string of its own, and PATIDS (patids.c) lists them all, so that
 * check-db verifies the C-to-database direction too (sigdb_check_patids); the
 * database-to-C direction (an id in "when" that no signature or rule has)
 * is checked by the loader. */
#ifndef NT_PATIDS_H
#define NT_PATIDS_H

#include <stddef.h>
#include "base/util.h"

/* signatures (patterns/ib.json, patterns/cuda.json) */
#define SIG_IB_NO_DEVICE             "ib.no_device"
#define SIG_IB_USING_DEVICES         "ib.using_devices"
#define SIG_IB_LIBIBVERBS_MISSING    "ib.libibverbs_missing"
#define SIG_CUDA_NCCL_UNHANDLED_CUDA "cuda.nccl_unhandled_cuda"
/* one interface name on hosts whose interfaces differ (rules_infer.c) */
#define SIG_SOCKET_NO_INTERFACE_FOUND "socket.no_interface_found"
/* host telemetry (hypotheses.c: host RAM near full makes the OOM killer a suspect) */
#define SIG_DS_SEE_MEMORY_USAGE_CPU "ds.see_memory_usage_cpu"
/* signatures of the call before an error (rules_infer.c) */
#define SIG_VLLM_PYNCCL_COMM_INIT_CALL "vllm.pynccl_comm_init_call"
#define SIG_DEVICE_DUPLICATE_GPU       "device.duplicate_gpu"
/* signatures of a lost rendezvous-store connection (rules_infer.c) */
#define SIG_RDZV_STORE_CONNECTION_CLOSED "rdzv.store_connection_closed"
#define SIG_C10D_STORE_SOCKET_FAILED     "c10d.store_socket_failed"
/* signatures that say a job hung or timed out (rules_host.c: ACS with a hang) */
#define SIG_COLL_WATCHDOG_TIMEOUT      "coll.watchdog_timeout"
#define SIG_COLL_HEARTBEAT_STUCK       "coll.heartbeat_stuck"
#define SIG_C10D_BLOCKING_WAIT_TIMEOUT "c10d.blocking_wait_timeout"

/* diagnoses (patterns/ranks.json) that cascade.c anchors echoes on */
#define DIAG_RANKS_SIGKILL_OOM_KILLER     "ranks.sigkill_oom_killer"
#define DIAG_RANKS_KILLED_BY_SIGNAL       "ranks.killed_by_signal"
#define DIAG_RANKS_KILLED_BY_SIGBUS       "ranks.killed_by_sigbus"
#define DIAG_RANKS_DIED_SILENTLY          "ranks.died_silently"
#define DIAG_RANKS_MISSING_FROM_COMM      "ranks.missing_from_comm"
#define DIAG_RANKS_WATCHDOG_SEQNUM_BEHIND "ranks.watchdog_seqnum_behind"
#define DIAG_RANKS_COLLECTIVE_MISMATCH    "ranks.collective_mismatch"
#define DIAG_RANKS_NEVER_REACHED_NCCL     "ranks.never_reached_nccl"
#define DIAG_RANKS_BEHIND_NO_TIMEOUT      "ranks.behind_no_timeout"
#define DIAG_RANKS_LAUNCHER_ONLY          "ranks.launcher_only"
/* launcher records: a worker failed, not why (cascade.c ranks them below the
 * worker's own error line) */
#define DIAG_RANKS_EXITED_WITH_ERROR      "ranks.exited_with_error"
#define DIAG_RANKS_JOB_EXIT_NONZERO       "ranks.job_exit_nonzero"
#define DIAG_LAUNCH_WORKER_EXIT_NONZERO   "launch.worker_exit_nonzero"
#define DIAG_LAUNCH_MPI_RANK_SIGNALLED    "launch.mpi_rank_signalled"
#define DERIVED_ROW_CHILD_FAILED          "derived.exc.child_failed"
#define DERIVED_ROW_RESULT_REMOTE         "derived.result.remote"  /* hypotheses.c */
/* "a peer died" (patterns/rank.json): needs a peer (cascade.c) */
#define DIAG_RANK_PEER_EXITED             "rank.peer_exited"
#define DIAG_RANK_PEER_CONNECTION_LOST    "rank.peer_connection_lost"
#define DIAG_RANK_LOCAL_PEER_GONE         "rank.local_peer_gone"
/* diagnoses (patterns/flight.json) that cascade.c anchors echoes on: the dumps name the rank */
#define DIAG_FLIGHT_COLLECTIVE_TIMEOUT    "flight.collective_timeout"
#define DIAG_FLIGHT_DESYNC                "flight.desync"
#define DIAG_FLIGHT_P2P_UNMATCHED         "flight.p2p_unmatched"
#define DIAG_FLIGHT_WAITING_ON_MISSING    "flight.waiting_on_missing"

/* fact-rule evidence (rules_ranks.c) that the next steps look for */
#define RULE_RANKS_STUCK_IN_INIT          "ranks.stuck_in_init"
#define RULE_RANKS_MISSING_FROM_COMM      "ranks.missing_from_comm"
#define RULE_RANKS_WATCHDOG_SEQNUM_BEHIND "ranks.watchdog_seqnum_behind"
#define RULE_RANKS_COLLECTIVE_MISMATCH    "ranks.collective_mismatch"
#define RULE_RANKS_LOG_ENDS_MIDWAY        "ranks.log_ends_midway"
#define RULE_RANKS_SIGKILL_OOM_KILLER     "ranks.sigkill_oom_killer"
#define RULE_RANKS_DIED_SILENTLY          "ranks.died_silently"
#define RULE_RANKS_HANG_STOPPED_OUTSIDE   "ranks.hang_stopped_outside"
/* fact-rule evidence (rules_sys.c) that rules_host.c looks for */
#define RULE_TOPO_HANG_AFTER_P2P_SETUP    "topo.hang_after_p2p_setup"

/* id families (a prefix some ids share) */
#define FAMILY_OOM    "oom."
#define FAMILY_MEMORY "memory."
#define FAMILY_RANKS  "ranks."
#define FAMILY_FLIGHT "flight."
#define FAMILY_IB     "ib."
#define FAMILY_DERIVED "derived."  /* rows and diagnoses of patterns/derived.json */
#define FAMILY_FLOOR "floor."      /* the keyword tier's diagnoses (patterns/floor.json, rules_floor.c) */

/* categories (TAXONOMY) that cascade.c treats as echo-prone */
#define CAT_RANK_FAILURE       "RANK_FAILURE"
#define CAT_COLLECTIVE_TIMEOUT "COLLECTIVE_TIMEOUT"
#define CAT_SOCKET_NETWORK     "SOCKET_NETWORK"
#define CAT_IB_RDMA            "IB_RDMA"
#define CAT_RENDEZVOUS         "RENDEZVOUS"
/* the other categories (hypotheses.c: what tells each apart) */
#define CAT_P2P_BROKEN         "P2P_BROKEN"
#define CAT_SHM_EXHAUSTED      "SHM_EXHAUSTED"
#define CAT_GPU_OOM            "GPU_OOM"
#define CAT_VERSION_MISMATCH   "VERSION_MISMATCH"
#define CAT_DEVICE_ASSIGNMENT  "DEVICE_ASSIGNMENT"
#define CAT_FABRIC_MANAGER     "FABRIC_MANAGER"
#define CAT_MEMLOCK_LIMITS     "MEMLOCK_LIMITS"
#define CAT_NCCL_BUG_UPGRADE   "NCCL_BUG_UPGRADE"
#define CAT_ENV_MISCONFIG      "ENV_MISCONFIG"
#define CAT_CUDA_ERROR_OTHER   "CUDA_ERROR_OTHER"
#define CAT_OTHER              "OTHER"

enum patid_kind {
	PATID_SIGNATURE,  /* a signature of the database */
	PATID_DIAGNOSIS,  /* a diagnosis of the database */
	PATID_RULE,       /* a fact rule's id (rules_register) */
	PATID_FAMILY,     /* a prefix of at least one signature, diagnosis or rule id */
	PATID_CATEGORY,   /* a category of TAXONOMY */
	PATID_DERIVED_ROW,/* a row of a "derived" array (patterns/derived.json) */
};

struct patid {
	const char *id;
	enum patid_kind kind;
	const char *used_in;  /* the C files that name it */
};

extern const struct patid PATIDS[];
extern const size_t NPATIDS;

#endif
