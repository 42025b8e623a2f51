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
};

_Static_assert(KW_COUNT <= 31, "keyword numbers must fit beside LINEKW_FLAG and in the mask");

void linekw_add(struct acmatch *ac)
{
	for (size_t i = 0; i < sizeof LITERALS / sizeof LITERALS[0]; i++)
		acmatch_add(ac, LITERALS[i].text, strlen(LITERALS[i].text), LINEKW_FLAG | (uint32_t)LITERALS[i].kw);
}

uint64_t linekw_scan(const char *s, size_t n)
{
	uint64_t mask = 0;
	for (size_t i = 0; i < sizeof LITERALS / sizeof LITERALS[0]; i++)
		if (!(mask & KW_BIT(LITERALS[i].kw)) && mem_find_rare(s, n, LITERALS[i].text, strlen(LITERALS[i].text)))
			mask |= KW_BIT(LITERALS[i].kw);
	return mask;
}
