/* detect.h - classify a document by its content (never its name). */
#ifndef NT_DETECT_H
#define NT_DETECT_H

#include <stddef.h>

enum doc_kind {
	DOC_EMPTY,
	DOC_BINARY,        /* mostly non-text: skipped with a warning */
	DOC_TEXT,          /* text of no known kind: still scanned by signatures */
	DOC_NCCL_LOG,      /* has NCCL INFO/WARN lines */
	DOC_TORCH_LOG,     /* PyTorch / torchrun output, tracebacks, no NCCL prefix */
	DOC_TOPO_MATRIX,   /* nvidia-smi topo -m / -mp */
	DOC_TOPO_P2P,      /* nvidia-smi topo -p2p X */
	DOC_TOPO_XML,      /* NCCL_TOPO_DUMP_FILE */
	DOC_NVSMI,         /* nvidia-smi dashboard (one or repeated, -l) */
	DOC_NVSMI_Q,       /* nvidia-smi -q */
	DOC_NVSMI_L,       /* nvidia-smi -L */
	DOC_MEM_CSV,       /* nvidia-smi --query-gpu ... --format=csv */
	DOC_PIP_LIST,      /* pip list / pip freeze / conda list */
	DOC_COLLECT_ENV,   /* python -m torch.utils.collect_env, vLLM collect_env */
	DOC_NVCC,          /* nvcc --version */
	DOC_DRIVER_VERSION,/* /proc/driver/nvidia/version */
	DOC_ENV_DUMP,      /* env / printenv / export lines */
	DOC_IB_STATUS,     /* ibstat, ibstatus, ibv_devinfo, ibdev2netdev, show_gids */
	DOC_LSPCI,         /* lspci -vvv */
	DOC_INTERFACES,    /* ip addr, ip -br addr, ifconfig */
	DOC_HOST_CONFIG,   /* ulimit -a, df /dev/shm, mount, lsmod, libnccl listings, ompi_info */
	DOC_P2P_BANDWIDTH, /* cuda-samples p2pBandwidthLatencyTest */
	DOC_COLLECT_MANIFEST, /* nccl-triage collect / run: manifest*.jsonl (parse_collect.c) */
	DOC_TRIAGE_REPORT, /* the report run kept in its bundle: not read again */
	DOC_FLIGHT_RECORDER, /* a PyTorch flight-recorder dump, pickle or JSON (parse/flight.h) */
	DOC_KIND_COUNT
};

const char *doc_kind_name(enum doc_kind k);
/* Look at the head of a document (the first bytes, at most a few hundred KiB)
 * and name its kind.  complete says whether head is the whole document. */
enum doc_kind detect_kind(const char *head, size_t len, int complete);
/* Whether lines of this kind are scanned by signatures (logs and unknown text). */
int doc_kind_is_log(enum doc_kind k);
/* The system-report kind of a document head (a DOC_* value), or -1, and
 * the name of a system-report kind (NULL for another): both from the
 * registry of system-report kinds, sysreport.c. */
int detect_sysreport(const char *head, size_t len);
/* Whether a line is a command with the environment in front of a launcher
 * ("NCCL_DEBUG=INFO mpirun -H a,b ..."), not a NAME=value line of an
 * environment dump (sysreport.c, beside the registry; detect.c's fallback
 * counts lines with it too). */
int env_prefixed_command(const char *s, size_t len);
const char *sysreport_kind_name(enum doc_kind k);
/* nccl-triage's own files in a bundle (a collect manifest, a report run
 * kept): recognised by their first bytes before anything else, a DOC_*
 * value or -1 (parse_collect.c). */
int detect_collected(const char *head, size_t len);
/* Whether the lines of a system report of this kind are also scanned by
 * signatures, as a log's are (its kind's lines_scanned, sysreport.c):
 * listings that quote what signatures know (ulimit -a's memlock line). */
int sysreport_kind_scanned(enum doc_kind k);

#endif
