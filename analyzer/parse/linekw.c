/* linekw.c - see linekw.h. */
#include "parse/linekw.h"

#include <string.h>
#include "base/acmatch.h"
#include "base/util.h"

static const struct {
	const char *text;
	enum linekw kw;
} LITERALS[] = {
	{"ChildFailedError", KW_CHILD_FAILED},
	{"elastic.multiprocessing.api.SignalException: Process ", KW_SIGNAL_EXCEPTION},
	{"torch/distributed/elastic", KW_ELASTIC},
	{"torch.distributed.elastic", KW_ELASTIC},
	{"torch/distributed/run.py", KW_ELASTIC},
	{"Traceback (most recent call last)", KW_TRACEBACK},
	{"terminate called after", KW_TERMINATE},
	{"Segmentation fault", KW_SEGFAULT},
	{"core dumped", KW_CORE_DUMPED},
	{"Fatal Python error", KW_FATAL_PYTHON},
	{"Watchdog caught", KW_WATCHDOG_CAUGHT},
	{"exitcode", KW_EXITCODE},
	{"] is setting up NCCL communicator and retrieving ncclUniqueId from [", KW_UNIQUEID_WAIT},
	{"Watchdog caught collective operation timeout: WorkNCCL(", KW_WD_TIMEOUT},
	{"timed out in blocking wait", KW_BLOCKING_WAIT},
	{"WorkNCCL(", KW_WORKNCCL},
	{"last enqueued work: ", KW_LAST_ENQUEUED},
	{"Last enqueued NCCL work: ", KW_LAST_ENQUEUED},
	{"last enqueued NCCL work: ", KW_LAST_ENQUEUED}, /* "Timeout at NCCL work: N, last enqueued NCCL work: M, ..." (torch 2.2-2.5) */
	{"Observed flight recorder dump signal from another rank", KW_DUMP_OBSERVED},
	{"Received a dump signal due to a collective timeout from", KW_DUMP_RECEIVED},
	{"Connection closed by remote peer", KW_REMOTE},
	{"Connection closed by localRank", KW_REMOTE},
	{"remote process exited", KW_REMOTE},
	{"ncclRemoteError", KW_REMOTE},
	{"Socket recv failed", KW_REMOTE},
	{"Connection reset by peer", KW_REMOTE},
	{"Broken pipe", KW_REMOTE},
	{"onnection closed", KW_CONN_CLOSED},
	{"NCCL version ", KW_NCCL_VERSION},
	{"CUDA out of memory", KW_CUDA_OOM},
	{"nccl-tests version", KW_NCCLTESTS},
	{"nThread ", KW_NCCLTESTS},
	{"Out of bounds values", KW_NCCLTESTS},
	{"Avg bus bandwidth", KW_NCCLTESTS},
	{"Test NCCL failure", KW_NCCLTESTS},
	{"Test CUDA failure", KW_NCCLTESTS},
	{": Test failure ", KW_NCCLTESTS},
	{"NCCL failure ", KW_NCCLTESTS}, /* nccl-tests v1 (parse_nccltests.c) */
	{"Cuda failure ", KW_NCCLTESTS},
	{"NVRM: Xid", KW_KMSG},
	{"NVRM: loading", KW_KMSG},
	/* the driver's lines that name a GPU ("GPU at PCI:...", "GPU Board
	 * Serial Number"): facts.kernel.nvrm[] */
	{"NVRM: GPU", KW_KMSG},
	{"Killed process ", KW_KMSG},
	{"Kill process ", KW_KMSG},
	{"oom-kill:constraint", KW_KMSG},
	{"]: segfault at ", KW_KMSG},
	{"general protection fault", KW_KMSG},
	/* the error levels of the components around NCCL: a line of one is failure
	 * evidence as an NCCL WARN is (UCX's "%-4s %-5s" level column; docs/derived.md) */
	{" UCX  ERROR ", KW_COMPONENT_ERROR},
	{"srun: error: ", KW_COMPONENT_ERROR},
	{"slurmstepd: error: ", KW_COMPONENT_ERROR},
	{"slurmstepd: fatal: ", KW_COMPONENT_ERROR},
	{"srun: fatal: ", KW_COMPONENT_ERROR},
	{"sbatch: error: ", KW_COMPONENT_ERROR},
	{"sbatch: fatal: ", KW_COMPONENT_ERROR},
	{"HAMI-core ERROR", KW_COMPONENT_ERROR},
	/* the NCCLCHECK / CUDACHECK macros of NCCL's examples, copied into
	 * TensorRT-LLM plugins, lmdeploy, vLLM's csrc: the wrapped result decides */
	{"Failed, NCCL error ", KW_COMPONENT_ERROR},
	{"Failed: Cuda error ", KW_COMPONENT_ERROR},
	{"[TensorRT-LLM][ERROR] ", KW_COMPONENT_ERROR},
	/* XLA (JAX, TensorFlow): "NCCL operation ncclCommInitRank(...) failed: <ncclGetErrorString>" */
	{"NCCL operation nccl", KW_COMPONENT_ERROR},
	{"libnccl", KW_TRACE_CALL},
	{"distributed_c10d.py\", line ", KW_TRACE_CALL},
	{"main_process_first", KW_TRACE_CALL},
	{".barrier(", KW_TRACE_CALL},
	{".all_reduce(", KW_TRACE_CALL},
	{".broadcast(", KW_TRACE_CALL},
	{".all_gather(", KW_TRACE_CALL},
	{".all_gather_into_tensor(", KW_TRACE_CALL},
	{".reduce_scatter_tensor(", KW_TRACE_CALL},
	{" examples/s]", KW_PROGRESS},
	{" terminated with signal ", KW_SPAWN_EXIT},
	{" terminated with exit code ", KW_SPAWN_EXIT},
	/* crash handlers and stack dumps (crash.h names the program of each) */
	{"Caught signal ", KW_CRASH},
	{"Process received signal ***", KW_CRASH},
	{"==== backtrace", KW_CRASH},
	{"*** SIG", KW_CRASH},
	{"*** Aborted at ", KW_CRASH},
	{"*** Check failure stack trace", KW_CRASH},
	{" received signal SIG", KW_CRASH},
	{"stop reason = signal SIG", KW_CRASH},
	{"#0  0x0000", KW_CRASH},
	{"CUDA Exception: ", KW_CRASH},
	{"most recent call first", KW_CRASH},
	{" (active", KW_CRASH},
	{" (idle)", KW_CRASH},
	{" (core dumped)", KW_CRASH},
	{" dumped core.", KW_CRASH},
	{"Bus error", KW_CRASH},
	/* failure lines of libraries and tools (bundle.c, failure_kind) */
	{"Cuda failure ", KW_LIB_ERROR},
	{"NCCL failure ", KW_LIB_ERROR},
	{"Health check failed", KW_LIB_ERROR},
	{"NCCL error", KW_LIB_ERROR},
	/* XLA (xla/service/gpu/nccl_utils.cc, JAX and TensorFlow): "NCCL operation ... failed: <result>.
	 * Last NCCL warning(error) log entry (may be unrelated) '<ncclGetLastError()>'." */
	{"log entry (may be unrelated) '", KW_EMBEDDED_WARN},
};

_Static_assert(KW_COUNT <= 31, "keyword numbers must fit beside LINEKW_FLAG and in the mask");

/* The floor's keywords: what a person who greps a ticket for a cause would
 * grep for, one category each (TAXONOMY's "typical evidence"), every one 7
 * bytes or more (the prefilter's stride).  Not tuned to any set. */
static const struct floorkw FLOOR[] = {
	{"out of memory", "GPU_OOM", 1},
	{"OutOfMemoryError", "GPU_OOM", 1},
	{"Failed to CUDA calloc", "GPU_OOM", 1},
	{"CUDA OOM", "GPU_OOM", 1},
	{"No space left on device", "SHM_EXHAUSTED", 1},
	{"/dev/shm", "SHM_EXHAUSTED", 2},
	{"shared memory", "SHM_EXHAUSTED", 2},
	{"Bus error", "SHM_EXHAUSTED", 2},
	{"Duplicate GPU", "DEVICE_ASSIGNMENT", 1},
	{"invalid device ordinal", "DEVICE_ASSIGNMENT", 1},
	{"undefined symbol", "VERSION_MISMATCH", 1},
	{"version mismatch", "VERSION_MISMATCH", 1},
	{"driver version is insufficient", "VERSION_MISMATCH", 1},
	{"no kernel image is available", "VERSION_MISMATCH", 1},
	{"Fabric Manager", "FABRIC_MANAGER", 1},
	{"fabricmanager", "FABRIC_MANAGER", 1},
	{"system not yet initialized", "FABRIC_MANAGER", 1},
	{"NVLink SHARP", "FABRIC_MANAGER", 2},
	{"cuMulticast", "FABRIC_MANAGER", 2},
	{"RLIMIT_MEMLOCK", "MEMLOCK_LIMITS", 1},
	{"locked memory", "MEMLOCK_LIMITS", 2},
	{"memlock", "MEMLOCK_LIMITS", 2},
	{"completion with error", "IB_RDMA", 1},
	{"ibv_create", "IB_RDMA", 2},
	{"ibv_modify_qp", "IB_RDMA", 2},
	{"ibv_reg_mr", "IB_RDMA", 2},
	{"ibv_poll_cq", "IB_RDMA", 2},
	{"GPU Direct RDMA", "IB_RDMA", 2},
	{"nvidia-peermem", "IB_RDMA", 2},
	{"nv_peer_mem", "IB_RDMA", 2},
	{"peer access", "P2P_BROKEN", 2},
	{"peer-to-peer", "P2P_BROKEN", 2},
	{"P2P/IPC", "P2P_BROKEN", 2},
	{"cudaIpc", "P2P_BROKEN", 2},
	{"No route to host", "SOCKET_NETWORK", 1},
	{"Network is unreachable", "SOCKET_NETWORK", 1},
	{"Connection refused", "SOCKET_NETWORK", 2},
	{"Connection timed out", "SOCKET_NETWORK", 2},
	{"reset by peer", "SOCKET_NETWORK", 2},
	{"socket interface", "SOCKET_NETWORK", 2},
	{"NCCL_SOCKET_IFNAME", "SOCKET_NETWORK", 2},
	{"Address already in use", "RENDEZVOUS", 1},
	{"EADDRINUSE", "RENDEZVOUS", 1},
	{"endezvous", "RENDEZVOUS", 2},
	{"TCPStore", "RENDEZVOUS", 2},
	{"MASTER_ADDR", "RENDEZVOUS", 2},
	{"DistStoreError", "RENDEZVOUS", 2},
	{"Watchdog caught", "COLLECTIVE_TIMEOUT", 1},
	{"collective operation timeout", "COLLECTIVE_TIMEOUT", 1},
	{"Detected mismatch between collectives", "COLLECTIVE_TIMEOUT", 1},
	{"Timeout(ms)", "COLLECTIVE_TIMEOUT", 1},
	{"timed out after", "COLLECTIVE_TIMEOUT", 2},
	{"illegal memory access", "CUDA_ERROR_OTHER", 1},
	{"ECC error", "CUDA_ERROR_OTHER", 1},
	{"NVRM: Xid", "CUDA_ERROR_OTHER", 1},
	{"fallen off the bus", "CUDA_ERROR_OTHER", 1},
	{"device-side assert", "CUDA_ERROR_OTHER", 1},
	{"CUDA error", "CUDA_ERROR_OTHER", 2},
	{"unhandled cuda error", "CUDA_ERROR_OTHER", 2},
	{"Killed process", "RANK_FAILURE", 1},
	{"SIGKILL", "RANK_FAILURE", 2},
	{"exitcode: -9", "RANK_FAILURE", 2},
	{"Segmentation fault", "RANK_FAILURE", 2},
};
_Static_assert(sizeof FLOOR / sizeof FLOOR[0] <= 64, "the floor's mask has 64 bits");

size_t floorkw_count(void)
{
	return sizeof FLOOR / sizeof FLOOR[0];
}

const struct floorkw *floorkw_get(size_t i)
{
	return i < floorkw_count() ? &FLOOR[i] : NULL;
}

uint64_t floorkw_scan(const char *s, size_t n)
{
	uint64_t mask = 0;
	for (size_t i = 0; i < floorkw_count(); i++)
		if (FLOOR[i].tier == 1 && mem_find_rare(s, n, FLOOR[i].text, strlen(FLOOR[i].text)))
			mask |= (uint64_t)1 << i;
	return mask;
}

int floorkw_failure_line(const char *s, size_t n)
{
	for (size_t i = 0; i < floorkw_count(); i++)
		if (FLOOR[i].tier == 2 && mem_find_rare(s, n, FLOOR[i].text, strlen(FLOOR[i].text)))
			return (int)i;
	return -1;
}

void linekw_add(struct acmatch *ac)
{
	/* a literal that is both a keyword and a floor keyword is one entry that
	 * reports both (LINEKW_FLAG | FLOORKW_FLAG | floor index << 8 | keyword):
	 * each entry costs the prefilter a little on every line */
	uint64_t shared = 0;
	for (size_t i = 0; i < sizeof LITERALS / sizeof LITERALS[0]; i++) {
		uint32_t v = LINEKW_FLAG | (uint32_t)LITERALS[i].kw;
		for (size_t f = 0; f < sizeof FLOOR / sizeof FLOOR[0]; f++)
			if (FLOOR[f].tier == 1 && strcmp(FLOOR[f].text, LITERALS[i].text) == 0) {
				v |= FLOORKW_FLAG | (uint32_t)f << 8;
				shared |= (uint64_t)1 << f;
			}
		acmatch_add(ac, LITERALS[i].text, strlen(LITERALS[i].text), v);
	}
	for (size_t i = 0; i < sizeof FLOOR / sizeof FLOOR[0]; i++)
		if (!(shared >> i & 1) && FLOOR[i].tier == 1) /* tier 2: floorkw_failure_line() */
			acmatch_add(ac, FLOOR[i].text, strlen(FLOOR[i].text), FLOORKW_FLAG | (uint32_t)i << 8);
}

uint64_t linekw_scan(const char *s, size_t n)
{
	uint64_t mask = 0;
	for (size_t i = 0; i < sizeof LITERALS / sizeof LITERALS[0]; i++)
		if (!(mask & KW_BIT(LITERALS[i].kw)) && mem_find_rare(s, n, LITERALS[i].text, strlen(LITERALS[i].text)))
			mask |= KW_BIT(LITERALS[i].kw);
	return mask;
}
