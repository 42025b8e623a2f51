/* envvars.c - table of NCCL / PyTorch environment variables and the checker
 * behind the environment lint (rules_env.c).  See envvars.h.
 *
 * Table sources: NCCL docs/userguide env.rst at 2.30.7 and the NCCL_PARAM /
 * ncclGetEnv calls of NCCL 2.10-2.30 (reference §7.1, §7.4), PyTorch
 * ProcessGroupNCCL.hpp (§8.8).  "since"/"until" are bounded by the tags
 * grepped for the reference; NULL since = present in 2.10 or earlier. */
#include "rules/envvars.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/util.h"
#include "base/version.h"

#define NOCHK 1, 0
#define INT_(n, lo, hi, d, s, note) { n, ENV_INT, NULL, lo, hi, d, s, NULL, NULL, 0, note }
#define BOOL_(n, d, s, note) INT_(n, 0, 1, d, s, note)
#define NUM_(n, d, s, note) { n, ENV_INT, NULL, 1, 0, d, s, NULL, NULL, 0, note }
#define ENUM_(n, v, d, s, note) { n, ENV_ENUM, v, NOCHK, d, s, NULL, NULL, ENVF_NOCASE, note }
#define LIST_(n, v, d, s, note) { n, ENV_LIST, v, NOCHK, d, s, NULL, NULL, ENVF_NOCASE, note }
#define STR_(n, d, s, note) { n, ENV_STRING, NULL, NOCHK, d, s, NULL, NULL, 0, note }
#define GONE_(n, s, u, to, note) { n, ENV_STRING, NULL, NOCHK, NULL, s, u, to, 0, note }
#define TINT_(n, lo, hi, d, note) { n, ENV_INT, NULL, lo, hi, d, NULL, NULL, NULL, ENVF_TORCH, note }
#define TSTR_(n, d, note) { n, ENV_STRING, NULL, NOCHK, d, NULL, NULL, NULL, ENVF_TORCH, note }
#define TREN_(n, to, note) { n, ENV_INT, NULL, NOCHK, NULL, NULL, NULL, to, ENVF_TORCH, note }

#define LEVELS "LOC|NVL|NVB|C2C|PIX|PXB|P2C|PXN|PHB|SYS"

static const struct env_var TABLE[] = {
	/* ---- sockets, bootstrap ---- */
	{ "NCCL_SOCKET_IFNAME", ENV_IFLIST, NULL, NOCHK, "auto (ib*, then not docker/lo/virbr)", NULL, NULL, NULL, 0, "IP interfaces (prefixes; ^ exclude, = exact) for bootstrap and sockets" },
	ENUM_("NCCL_SOCKET_FAMILY", "AF_INET|AF_INET6", "unset", NULL, "force IPv4 or IPv6"),
	NUM_("NCCL_SOCKET_MAGIC", "built-in", "2.30", "socket handshake magic"),
	NUM_("NCCL_SOCKET_RETRY_CNT", "34", "2.24", "connect retries on ETIMEDOUT/ECONNREFUSED/EHOSTUNREACH"),
	NUM_("NCCL_SOCKET_RETRY_SLEEP_MSEC", "100", "2.24", "sleep n x this ms before connect retry n"),
	NUM_("NCCL_SOCKET_POLL_TIMEOUT_MSEC", "0", "2.28", "poll between bootstrap socket retries"),
	INT_("NCCL_SOCKET_NTHREADS", 1, 16, "1", NULL, "socket transport helper threads"),
	NUM_("NCCL_NSOCKS_PERTHREAD", "1", NULL, "sockets per helper thread"),
	NUM_("NCCL_SOCKET_INLINE", "128", "2.27", "inline size of socket messages"),
	NUM_("NCCL_SOCKET_MIN_TASKSIZE", "65536", "2.27", "minimum socket task size"),
	NUM_("NCCL_SOCKET_RCVBUF", "-1", "2.27", "socket receive buffer"),
	NUM_("NCCL_SOCKET_SNDBUF", "-1", "2.27", "socket send buffer"),
	STR_("NCCL_COMM_ID", "unset", NULL, "<ip>:<port> of a bootstrap root run by rank 0 (not needed with PyTorch)"),
	STR_("NCCL_HOSTID", "unset", NULL, "override host identity (which ranks count as one node)"),
	BOOL_("NCCL_OOB_NET_ENABLE", "0", "2.23", "use the NCCL network for the bootstrap allgather"),
	{ "NCCL_OOB_NET_IFNAME", ENV_IFLIST, NULL, NOCHK, "unset", "2.23", NULL, NULL, 0, "devices for the OOB net" },
	NUM_("NCCL_UID_STAGGER_THRESHOLD", "256", "2.23", "unique-id stagger threshold"),
	NUM_("NCCL_UID_STAGGER_RATE", "7000", "2.23", "unique-id stagger rate"),
	/* ---- network selection / plugins ---- */
	STR_("NCCL_NET", "auto", NULL, "force the network: IB, Socket or a plugin's name"),
	STR_("NCCL_NET_PLUGIN", "libnccl-net.so", NULL, "network plugin library suffix or name, or none"),
	STR_("NCCL_TUNER_PLUGIN", "libnccl-tuner.so", NULL, "tuner plugin"),
	STR_("NCCL_PROFILER_PLUGIN", "libnccl-profiler.so", NULL, "profiler plugin"),
	STR_("NCCL_ENV_PLUGIN", "libnccl-env.so", "2.28", "environment plugin"),
	STR_("NCCL_GIN_PLUGIN", NULL, "2.29", "GIN plugin"),
	STR_("NCCL_RMA_PLUGIN", NULL, "2.30", "RMA plugin"),
	NUM_("NCCL_NET_PLUGIN_REF_COUNT", "0", "2.26", "plugin reference counting"),
	NUM_("NCCL_GIN_PLUGIN_REF_COUNT", "0", "2.29", "GIN plugin reference counting"),
	NUM_("NCCL_RMA_PLUGIN_REF_COUNT", "0", "2.30", "RMA plugin reference counting"),
	INT_("NCCL_CROSS_NIC", 0, 2, "2", NULL, "allow rings/trees to use different NICs per node"),
	ENUM_("NCCL_NETDEVS_POLICY", NULL, "AUTO", "2.28", "NIC to GPU assignment: AUTO, MAX:N, ALL"),
	STR_("NCCL_NET_MERGE_LEVEL", NULL, "2.24", "NIC fusion level"),
	STR_("NCCL_NET_FORCE_MERGE", NULL, "2.24", "force NIC fusion"),
	ENUM_("NCCL_NET_MERGE_POLICY", "ALL|RAIL", "ALL", "2.30", "NIC merge policy"),
	BOOL_("NCCL_NET_DISABLE_INTRA", "0", NULL, "do not use the network inside a node"),
	BOOL_("NCCL_NET_FORCE_FLUSH", "0", NULL, "force GDR flush"),
	BOOL_("NCCL_NET_OPTIONAL_RECV_COMPLETION", "1", "2.24", "optional receive completion"),
	NUM_("NCCL_NET_OVERHEAD", "-2", NULL, "network overhead for tuning"),
	BOOL_("NCCL_NET_SHARED_BUFFERS", "1", NULL, "shared network buffers"),
	BOOL_("NCCL_NET_SHARED_COMMS", "1", NULL, "shared network comms (PXN)"),
	BOOL_("NCCL_IGNORE_NET_MISMATCH", "1", "2.30", "ignore network mismatch across ranks"),
	BOOL_("NCCL_IGNORE_COLLNET_MISMATCH", "0", "2.30", "ignore CollNet mismatch across ranks"),
	/* ---- InfiniBand / RoCE ---- */
	BOOL_("NCCL_IB_DISABLE", "0", NULL, "disable the IB/RoCE verbs transport (falls back to sockets)"),
	{ "NCCL_IB_HCA", ENV_IFLIST, NULL, NOCHK, "all", NULL, NULL, NULL, 0, "RDMA devices/ports (^ exclude, = exact, :port)" },
	INT_("NCCL_IB_TIMEOUT", 0, 31, "20 (18 in 2.14-2.22, 14 before)", NULL, "IB ACK timeout exponent: 4.096 us x 2^value"),
	INT_("NCCL_IB_RETRY_CNT", 0, 7, "7", NULL, "IB transport retry count"),
	NUM_("NCCL_IB_GID_INDEX", "-1 (auto since 2.21; 0 before)", NULL, "RoCE GID index"),
	ENUM_("NCCL_IB_ADDR_FAMILY", "AF_INET|AF_INET6", "AF_INET", "2.21", "GID auto-selection family"),
	STR_("NCCL_IB_ADDR_RANGE", "unset", "2.21", "GID auto-selection CIDR"),
	INT_("NCCL_IB_ROCE_VERSION_NUM", 1, 2, "2", "2.21", "RoCE version for GID auto-selection"),
	NUM_("NCCL_IB_SL", "0", NULL, "IB service level"),
	NUM_("NCCL_IB_TC", "0", NULL, "IB traffic class"),
	NUM_("NCCL_IB_FIFO_TC", "= NCCL_IB_TC", "2.22", "traffic class for control messages"),
	BOOL_("NCCL_IB_RETURN_ASYNC_EVENTS", "1", "2.23", "stop IB comms on fatal async events"),
	NUM_("NCCL_IB_AR_THRESHOLD", "8192", NULL, "adaptive-routing split threshold"),
	BOOL_("NCCL_IB_OOO_RQ", "0", "2.30", "out-of-order receive queue"),
	INT_("NCCL_IB_QPS_PER_CONNECTION", 1, 128, "1", NULL, "queue pairs per connection"),
	BOOL_("NCCL_IB_SPLIT_DATA_ON_QPS", "0", NULL, "split data over QPs"),
	INT_("NCCL_IB_PCI_RELAXED_ORDERING", 0, 2, "2", NULL, "PCIe relaxed ordering (2 = auto)"),
	BOOL_("NCCL_IB_ADAPTIVE_ROUTING", "1 on IB, 0 on RoCE", NULL, "adaptive routing"),
	BOOL_("NCCL_IB_ECE_ENABLE", "1", "2.23", "enhanced connection establishment"),
	BOOL_("NCCL_IB_MERGE_NICS", "1", NULL, "merge dual-port NICs"),
	BOOL_("NCCL_IB_MERGE_VFS", "1", NULL, "merge virtual functions"),
	NUM_("NCCL_IB_PKEY", "0", NULL, "IB partition key index"),
	BOOL_("NCCL_IB_USE_INLINE", "0", NULL, "inline IB sends"),
	BOOL_("NCCL_IB_DATA_DIRECT", "1", "2.27", "data-direct NICs"),
	BOOL_("NCCL_IB_DEVICE_PCI_ORDER", "1", "2.29", "order IB devices by PCI"),
	BOOL_("NCCL_IB_MQP_RETRY_ALL", "0", "2.24", "retry all multi-QP errors"),
	NUM_("NCCL_IB_MQP_RETRY_CNT", "34", "2.24", "multi-QP retry count"),
	NUM_("NCCL_IB_MQP_RETRY_SLEEP_MSEC", "100", "2.24", "multi-QP retry sleep"),
	NUM_("NCCL_IB_PREPOST_RECEIVE_WORK_REQUESTS", "-2", "2.29", "prepost receive WRs"),
	BOOL_("NCCL_IB_QUERY_PORT_SPEED", "1", "2.30", "query port speed"),
	NUM_("NCCL_IB_RECEIVER_SIDE_MATCHING_SCHEME", "-2", "2.29", "receiver-side matching"),
	BOOL_("NCCL_IB_RESILIENCY_PORT_FAILOVER", "0", "2.29", "port failover"),
	NUM_("NCCL_IB_RESILIENCY_PORT_FAILOVER_MAX_ATTEMPTS", "1", "2.29", "port failover attempts"),
	NUM_("NCCL_IB_RESILIENCY_PORT_FAILOVER_PROBE_DELAY", "10", "2.29", "port failover probe delay"),
	BOOL_("NCCL_IB_RESILIENCY_PORT_RECOVERY", "0", "2.30", "port recovery"),
	NUM_("NCCL_IB_RESILIENCY_PORT_RECOVERY_ACK_TIMEOUT", "5000", "2.30", "port recovery ack timeout"),
	NUM_("NCCL_IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_BATCH_INTERVAL", "500", "2.30", "port recovery"),
	NUM_("NCCL_IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_BATCH_SIZE", "5", "2.30", "port recovery"),
	NUM_("NCCL_IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_SEQUENCE_SIZE", "5", "2.30", "port recovery"),
	NUM_("NCCL_IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_TIMEOUT", "4000", "2.30", "port recovery"),
	NUM_("NCCL_IB_RESILIENCY_PORT_RECOVERY_ATTEMPTS_MAX", "5", "2.30", "port recovery"),
	NUM_("NCCL_IB_RESILIENCY_PORT_RECOVERY_START_DELAY", "200", "2.30", "port recovery"),
	NUM_("NCCL_IB_ROUTABLE_FLID_GID_INDEX", "1", "2.22", "routable FLID GID index"),
	BOOL_("NCCL_IB_SUBNET_AWARE_ROUTING", "0", "2.30", "subnet-aware routing"),
	NUM_("NCCL_IB_SUBNET_PREFIX_LEN", "24", "2.30", "subnet prefix length"),
	BOOL_("NCCL_IB_WARN_RAIL_LOCAL", "0", "2.24", "warn on rail mismatch"),
	STR_("NCCL_IBVERBS_LIB", NULL, "2.30", "libibverbs path"),
	/* ---- GPUDirect RDMA ---- */
	{ "NCCL_NET_GDR_LEVEL", ENV_LEVEL, LEVELS, 0, 5, "auto", NULL, NULL, NULL, 0, "max GPU-NIC distance for GPUDirect RDMA" },
	BOOL_("NCCL_NET_GDR_READ", "1 on NVLink platforms", NULL, "GPUDirect RDMA for sends"),
	BOOL_("NCCL_NET_GDR_C2C", "1", "2.26", "GDR over C2C"),
	BOOL_("NCCL_NET_GDR_MLOPART", "0", "2.30", "GDR MLO partitions"),
	BOOL_("NCCL_GDR_FLUSH_DISABLE", "0", NULL, "disable GDR flush"),
	BOOL_("NCCL_GDRCOPY_ENABLE", "0", NULL, "use GDRCopy"),
	BOOL_("NCCL_GDRCOPY_FIFO_ENABLE", "1", NULL, "GDRCopy FIFO"),
	BOOL_("NCCL_GDRCOPY_FLUSH_ENABLE", "0", NULL, "GDRCopy flush"),
	BOOL_("NCCL_GDRCOPY_SYNC_ENABLE", "1", NULL, "GDRCopy sync"),
	BOOL_("NCCL_DMABUF_ENABLE", "1", "2.13", "use DMA-BUF for GPUDirect RDMA"),
	/* ---- P2P / SHM / intra-node ---- */
	BOOL_("NCCL_P2P_DISABLE", "0", NULL, "disable P2P (CUDA IPC/cuMem) between GPUs; only 1 has effect"),
	{ "NCCL_P2P_LEVEL", ENV_LEVEL, LEVELS, 0, 5, "auto", NULL, NULL, NULL, 0, "max GPU-GPU distance for P2P (case-sensitive)" },
	BOOL_("NCCL_P2P_DIRECT_DISABLE", "0", NULL, "forbid direct pointer access between GPUs of one process"),
	NUM_("NCCL_P2P_READ_ENABLE", "-2", NULL, "P2P read"),
	BOOL_("NCCL_P2P_USE_CUDA_MEMCPY", "0", NULL, "copy engine for P2P"),
	NUM_("NCCL_P2P_NET_CHUNKSIZE", "131072", NULL, "P2P net chunk size"),
	NUM_("NCCL_P2P_NVL_CHUNKSIZE", "524288", NULL, "P2P NVLink chunk size"),
	NUM_("NCCL_P2P_PCI_CHUNKSIZE", "131072", NULL, "P2P PCI chunk size"),
	NUM_("NCCL_P2P_LL_THRESHOLD", "16384", NULL, "P2P LL threshold"),
	INT_("NCCL_P2P_PXN_LEVEL", 0, 2, "2", NULL, "PXN usage level"),
	BOOL_("NCCL_P2P_EPOCH_ENABLE", "1", "2.29", "P2P epochs"),
	NUM_("NCCL_P2P_MAX_PEERS", NULL, "2.30", "P2P max peers"),
	NUM_("NCCL_P2P_PER_CHANNEL_NET_BW", "14", "2.29", "P2P per-channel net bandwidth"),
	NUM_("NCCL_P2P_SCHEDULE_GROUP_SIZE", NULL, "2.28", "P2P schedule group size"),
	BOOL_("NCCL_IGNORE_DISABLED_P2P", "0", NULL, "silence the P2P-disabled warning"),
	BOOL_("NCCL_SHM_DISABLE", "0", NULL, "disable the shared-memory transport"),
	INT_("NCCL_SHM_LOCALITY", 1, 2, "2", NULL, "SHM buffer side (1 sender, 2 receiver)"),
	BOOL_("NCCL_NVB_DISABLE", "0", NULL, "no NVLink through an intermediate GPU"),
	BOOL_("NCCL_NVB_PRECONNECT", "1", NULL, "preconnect NVB peers"),
	BOOL_("NCCL_PXN_DISABLE", "0", NULL, "disable PXN"),
	BOOL_("NCCL_PXN_C2C", "1", "2.27", "PXN over C2C"),
	BOOL_("NCCL_CUMEM_ENABLE", "auto (1 where supported since 2.19)", "2.18", "use cuMem* for NCCL buffers"),
	BOOL_("NCCL_CUMEM_HOST_ENABLE", "1 (2.24+, driver >= 12.6)", "2.23", "use cuMem for host memory"),
	BOOL_("NCCL_IPC_USE_ABSTRACT_SOCKET", "1", "2.29", "abstract UDS for cuMem handle exchange"),
	INT_("NCCL_NVLS_ENABLE", 0, 2, "2", "2.17", "NVLink SHARP: 0 off, 1 on (fail if impossible), 2 auto"),
	NUM_("NCCL_NVLS_NCHANNELS", NULL, NULL, "NVLS channels"),
	NUM_("NCCL_NVLS_CHUNKSIZE", "131072", "2.21", "NVLS chunk size"),
	NUM_("NCCL_NVLSTREE_MAX_CHUNKSIZE", "-2", "2.20", "NVLSTree chunk size"),
	INT_("NCCL_MNNVL_ENABLE", 0, 2, "2", "2.21", "multi-node NVLink"),
	NUM_("NCCL_MNNVL_UUID", "-1", "2.25", "MNNVL UUID"),
	NUM_("NCCL_MNNVL_CLIQUE_ID", "-1", "2.25", "MNNVL clique id"),
	NUM_("NCCL_MNNVL_RAIL_PER_HOST", "0", "2.28", "MNNVL rail per host"),
	BOOL_("NCCL_MNNVL_SCATTER_NETS_ENABLE", "1", "2.27", "MNNVL scatter nets"),
	BOOL_("NCCL_MNNVL_CROSS_CLIQUE", "0", "2.30", "MNNVL cross clique"),
	BOOL_("NCCL_MULTI_RANK_GPU_ENABLE", "0", "2.30", "allow several ranks per GPU"),
	/* ---- algorithms, protocols, tuning ---- */
	LIST_("NCCL_ALGO", "Ring|Tree|CollNetDirect|CollNetChain|NVLS|NVLSTree|PAT|CollNet", "auto", NULL, "allowed algorithms (Ring, Tree, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT)"),
	LIST_("NCCL_PROTO", "LL|LL128|Simple", "auto", NULL, "allowed protocols (LL, LL128, Simple)"),
	NUM_("NCCL_BUFFSIZE", "4194304", NULL, "per-connection buffer size in bytes"),
	NUM_("NCCL_LL_BUFFSIZE", "-2", NULL, "LL buffer size"),
	NUM_("NCCL_LL128_BUFFSIZE", "-2", NULL, "LL128 buffer size"),
	ENUM_("NCCL_NTHREADS", "64|128|256|512", "512", NULL, "CUDA threads per NCCL block"),
	NUM_("NCCL_LL128_NTHREADS", "-2", NULL, "LL128 threads"),
	NUM_("NCCL_MAX_CTAS", "unset", "2.17", "maximum CTAs (channels)"),
	NUM_("NCCL_MIN_CTAS", "unset", "2.17", "minimum CTAs (channels)"),
	NUM_("NCCL_MAX_P2P_NCHANNELS", NULL, NULL, "max P2P channels"),
	NUM_("NCCL_MIN_P2P_NCHANNELS", "1", NULL, "min P2P channels"),
	NUM_("NCCL_NCHANNELS_PER_NET_PEER", NULL, NULL, "channels per net peer"),
	BOOL_("NCCL_UNPACK_DOUBLE_NCHANNELS", "1", "2.22", "double channels for unpack"),
	NUM_("NCCL_CHUNK_SIZE", "0", NULL, "chunk size"),
	STR_("NCCL_THREAD_THRESHOLDS", NULL, NULL, "thread thresholds"),
	INT_("NCCL_PAT_ENABLE", 0, 2, "2", "2.23", "PAT algorithm"),
	BOOL_("NCCL_COLLNET_ENABLE", "0", NULL, "CollNet (SHARP) plugin"),
	NUM_("NCCL_COLLNET_NODE_THRESHOLD", "2", NULL, "CollNet node threshold"),
	ENUM_("NCCL_CTA_POLICY", NULL, "DEFAULT", "2.27", "CTA policy"),
	NUM_("NCCL_CGA_CLUSTER_SIZE", "unset", "2.16", "CGA cluster size (0-8)"),
	BOOL_("NCCL_RUNTIME_CONNECT", "1", "2.22", "lazy connection setup"),
	NUM_("NCCL_CONNECT_ROUND_MAX_PEERS", "128", NULL, "peers per connect round"),
	BOOL_("NCCL_ALLGATHERV_ENABLE", "1", "2.29", "AllGatherV"),
	BOOL_("NCCL_ALLOC_P2P_NET_LL_BUFFERS", "0", NULL, "LL buffers for P2P net"),
	NUM_("NCCL_WORK_FIFO_BYTES", "1048576", "2.22", "work FIFO bytes (power of 2)"),
	NUM_("NCCL_WORK_ARGS_BYTES", NULL, "2.22", "work args bytes"),
	BOOL_("NCCL_LL128_C2C", "1", "2.27", "LL128 over C2C"),
	NUM_("NCCL_L1_SHARED_MEMORY_CARVEOUT", "0", NULL, "L1/shared memory carveout"),
	BOOL_("NCCL_SYM_GIN_KERNELS_ENABLE", "1", "2.29", "symmetric GIN kernels"),
	NUM_("NCCL_SYM_CTAS", "0", "2.27", "symmetric kernel CTAs"),
	STR_("NCCL_SYM_KERNEL", NULL, "2.27", "symmetric kernel selection"),
	NUM_("NCCL_SYM_CE_THRESHOLD", NULL, "2.29", "symmetric CE threshold"),
	BOOL_("NCCL_SYM_NOWIN_ENABLE", "0", "2.29", "symmetric without window"),
	BOOL_("NCCL_SYM_REUSE_SYSMEM_HANDLES", "0", "2.30", "symmetric sysmem handles"),
	NUM_("NCCL_SYM_RS_GIN_CHUNK_SIZE", "-1", "2.30", "symmetric RS GIN chunk"),
	BOOL_("NCCL_SYM_TMA_ENABLE", "0", "2.30", "symmetric TMA"),
	BOOL_("NCCL_WIN_ENABLE", "1", "2.27", "window registration"),
	NUM_("NCCL_WIN_STRIDE", "-1", "2.27", "window stride"),
	NUM_("NCCL_LSA_TEAM_SIZE", "0", "2.29", "LSA team size"),
	/* ---- registration, memory ---- */
	BOOL_("NCCL_GRAPH_REGISTER", "1", NULL, "register buffers captured in CUDA graphs"),
	BOOL_("NCCL_LOCAL_REGISTER", "1", "2.19", "local buffer registration"),
	BOOL_("NCCL_LEGACY_CUDA_REGISTER", "0", "2.24", "legacy CUDA registration"),
	BOOL_("NCCL_MULTI_SEGMENT_REGISTER", "1", "2.29", "multi-segment registration"),
	BOOL_("NCCL_SINGLE_PROC_MEM_REG_ENABLE", "0", "2.28", "single-process memory registration"),
	BOOL_("NCCL_ELASTIC_BUFFER_REGISTER", "1", "2.30", "elastic buffer registration"),
	BOOL_("NCCL_DISABLE_MEM_MANAGER", "0", "2.29", "disable memory manager"),
	NUM_("NCCL_SHADOW_MEMPOOL_MAX_SIZE", NULL, "2.30", "shadow mempool size"),
	INT_("NCCL_MEM_SYNC_DOMAIN", 0, 1, "1", "2.16", "CUDA memory sync domain"),
	BOOL_("NCCL_GRAPH_MIXING_SUPPORT", "1", "2.13", "mix graph and non-graph launches"),
	BOOL_("NCCL_GRAPH_STREAM_ORDERING", "1", "2.30", "graph stream ordering"),
	BOOL_("NCCL_NVLINK_UTIL_CENTRIC_SCHED_ENABLE", NULL, "2.27", "NVLink utilisation scheduling"),
	/* ---- launch, checks, misc ---- */
	ENUM_("NCCL_LAUNCH_MODE", "PARALLEL|GROUP", "PARALLEL", NULL, "kernel launch mode (GROUP deprecated)"),
	BOOL_("NCCL_LAUNCH_ORDER_IMPLICIT", "0", "2.26", "implicit launch ordering"),
	BOOL_("NCCL_LAUNCH_RACE_FATAL", "1", "2.26", "launch race is fatal"),
	BOOL_("NCCL_CHECK_POINTERS", "0", NULL, "pointer checks on every call (deprecated 2.29.7)"),
	ENUM_("NCCL_CHECK_MODE", "DEFAULT|DEBUG_LOCAL|DEBUG_GLOBAL", "DEFAULT", "2.29", "argument checking mode"),
	BOOL_("NCCL_COMM_BLOCKING", "unset (blocking)", "2.14", "blocking communicators"),
	NUM_("NCCL_COMM_SPLIT_SHARE_RESOURCES", NULL, NULL, "split shares resources"),
	NUM_("NCCL_COMM_SHRINK_SHARE_RESOURCES", NULL, "2.27", "shrink shares resources"),
	BOOL_("NCCL_SET_STACK_SIZE", "0", NULL, "set thread stack size"),
	BOOL_("NCCL_SET_CPU_STACK_SIZE", "1", "2.28", "set CPU stack size"),
	BOOL_("NCCL_SET_THREAD_NAME", "0", NULL, "name NCCL threads"),
	BOOL_("NCCL_IGNORE_CPU_AFFINITY", "0", NULL, "ignore job CPU affinity"),
	STR_("NCCL_PROXY_CPUSET", NULL, "2.28", "proxy thread CPU set"),
	NUM_("NCCL_PROXY_APPEND_BATCH_SIZE", "16", NULL, "proxy append batch"),
	NUM_("NCCL_PROGRESS_APPENDOP_FREQ", "8", NULL, "progress append frequency"),
	NUM_("NCCL_PROXY_DUMP_SIGNAL", "-1", NULL, "signal to dump proxy state"),
	NUM_("NCCL_GROUP_CUDA_STREAM", NULL, NULL, "group CUDA stream"),
	BOOL_("NCCL_GRAPH_HELPER_DISABLE", "0", NULL, "disable graph helper"),
	BOOL_("NCCL_NVTX_DISABLE", "0", "2.28", "disable NVTX ranges"),
	BOOL_("NCCL_REPORT_CONNECT_PROGRESS", "0", NULL, "report connection progress"),
	BOOL_("NCCL_ENABLE_VERSION_CHECK", "1", "2.29", "version check"),
	BOOL_("NCCL_RAS_ENABLE", "1", "2.24", "RAS subsystem"),
	STR_("NCCL_RAS_ADDR", "localhost:28028", "2.24", "RAS listening address"),
	NUM_("NCCL_RAS_TIMEOUT_FACTOR", "1", "2.24", "RAS timeout factor"),
	STR_("NCCL_CONF_FILE", "~/.nccl.conf, /etc/nccl.conf", "2.23", "static configuration file"),
	STR_("NCCL_NO_CACHE", NULL, "2.29", "disable cache"),
	BOOL_("NCCL_DEV_API_JIT", "0", "2.30", "device API JIT"),
	STR_("NCCL_PARAM_DUMP_ALL", NULL, "2.30", "dump all parameters"),
	BOOL_("NCCL_RMA_DISABLE", "0", "2.30", "disable RMA"),
	NUM_("NCCL_RMA_PROXY_DUMP_SIGNAL", "-1", "2.29", "RMA proxy dump signal"),
	NUM_("NCCL_RMA_PROXY_QUEUE_SIZE", "-1", "2.29", "RMA proxy queue size"),
	NUM_("NCCL_NUM_RMA_CTX", NULL, "2.29", "RMA contexts"),
	BOOL_("NCCL_MLOPART_RDMA_ENABLE", "0", "2.30", "MLO partition RDMA"),
	BOOL_("NCCL_TOPO_SPLIT_MLOPART", "1", "2.30", "split MLO partitions in topology"),
	BOOL_("NCCL_GIN_ENABLE", "1", "2.28", "GPU-initiated networking"),
	NUM_("NCCL_GIN_TYPE", "-1", "2.28", "GIN type"),
	NUM_("NCCL_GIN_ERROR_QUERY_SEC", "10", "2.28", "GIN error query period"),
	NUM_("NCCL_GIN_GDAKI_NIC_HANDLER", "0", "2.28", "GIN GDAKI NIC handler"),
	NUM_("NCCL_GIN_GDAKI_QP_DEPTH", "128", "2.28", "GIN GDAKI QP depth"),
	NUM_("NCCL_GIN_GDAKI_MAX_DEST_RD_ATOMIC", "-2", "2.30", "GIN"),
	NUM_("NCCL_GIN_GDAKI_MAX_QP_RD_ATOMIC", "-2", "2.30", "GIN"),
	NUM_("NCCL_GIN_PROXY_QUEUE_SIZE", "-1", "2.28", "GIN proxy queue size"),
	NUM_("NCCL_GIN_NCONNECTIONS", "-2", "2.29", "GIN connections"),
	NUM_("NCCL_GIN_IB_TC", "-1", "2.30", "GIN IB traffic class"),
	STR_("NCCL_GIN_CONNECTION_RAIL", NULL, "2.30", "GIN connection rail"),
	BOOL_("NCCL_GDAKI_USE_RELIABLE_DB", "0", "2.29", "GDAKI reliable doorbell"),
	{ "NCCL_GIN_COUNTER_POOL_SIZE", ENV_INT, NULL, NOCHK, NULL, "2.28", "2.29", NULL, 0, "GIN counter pool" },
	{ "NCCL_GIN_SIGNAL_POOL_SIZE", ENV_INT, NULL, NOCHK, NULL, "2.28", "2.29", NULL, 0, "GIN signal pool" },
	{ "NCCL_GIN_NCONTEXTS", ENV_INT, NULL, NOCHK, NULL, "2.28", "2.29", NULL, 0, "GIN contexts" },
	{ "NCCL_GIN_EXCLUSIVE_CONTEXTS", ENV_INT, NULL, NOCHK, NULL, "2.29", "2.29", NULL, 0, "GIN exclusive contexts" },
	/* ---- debug ---- */
	ENUM_("NCCL_DEBUG", "VERSION|WARN|INFO|ABORT|TRACE", "unset (no output)", NULL, "log level"),
	STR_("NCCL_DEBUG_FILE", "stdout", NULL, "log file; %h host, %p pid"),
	LIST_("NCCL_DEBUG_SUBSYS", "INIT|COLL|P2P|SHM|NET|GRAPH|TUNING|ENV|ALLOC|ALLOC_HOST|CALL|PROXY|NVLS|BOOTSTRAP|REG|PROFILE|RAS|DESTROY|ALL", "INIT,BOOTSTRAP,ENV", NULL, "log subsystems"),
	STR_("NCCL_DEBUG_TIMESTAMP_FORMAT", "[%F %T] ", "2.26", "timestamp format"),
	LIST_("NCCL_DEBUG_TIMESTAMP_LEVELS", "VERSION|WARN|INFO|ABORT|TRACE|ALL", "WARN", "2.26", "levels with timestamps"),
	BOOL_("NCCL_WARN_ENABLE_DEBUG_INFO", "0", "2.19", "raise level to INFO after the first WARN"),
	/* ---- topology files ---- */
	STR_("NCCL_TOPO_FILE", "virtualTopology.xml if present", NULL, "topology XML to load"),
	STR_("NCCL_TOPO_DUMP_FILE", "unset", NULL, "dump detected topology"),
	NUM_("NCCL_TOPO_DUMP_FILE_RANK", "0", NULL, "rank that dumps the topology"),
	STR_("NCCL_GRAPH_FILE", "unset", NULL, "graph XML to load"),
	STR_("NCCL_GRAPH_DUMP_FILE", "unset", NULL, "dump graphs"),
	NUM_("NCCL_GRAPH_DUMP_FILE_RANK", "0", NULL, "rank that dumps graphs"),
	/* ---- renamed / deprecated NCCL names ---- */
	{ "NCCL_MAX_NCHANNELS", ENV_INT, NULL, NOCHK, "auto", NULL, NULL, "NCCL_MAX_CTAS", 0, "deprecated since 2.17 in favour of NCCL_MAX_CTAS (still read)" },
	{ "NCCL_MIN_NCHANNELS", ENV_INT, NULL, NOCHK, "auto", NULL, NULL, "NCCL_MIN_CTAS", 0, "deprecated since 2.17 in favour of NCCL_MIN_CTAS (still read)" },
	{ "NCCL_MAX_NRINGS", ENV_INT, NULL, NOCHK, "auto", NULL, NULL, "NCCL_MAX_CTAS", 0, "old alias of NCCL_MAX_NCHANNELS (still read)" },
	{ "NCCL_MIN_NRINGS", ENV_INT, NULL, NOCHK, "auto", NULL, NULL, "NCCL_MIN_CTAS", 0, "old alias of NCCL_MIN_NCHANNELS (still read)" },
	/* ---- removed NCCL variables ---- */
	GONE_("NCCL_IB_GDR_LEVEL", NULL, "2.3", "NCCL_NET_GDR_LEVEL", "renamed to NCCL_NET_GDR_LEVEL in 2.4.0"),
	GONE_("NCCL_IB_CUDA_SUPPORT", NULL, "2.3", "NCCL_NET_GDR_LEVEL", "removed in 2.4.0; GPUDirect RDMA is controlled by NCCL_NET_GDR_LEVEL"),
	GONE_("NCCL_CHECKS_DISABLE", NULL, "2.2", NULL, "removed in 2.2.12"),
	GONE_("NCCL_SINGLE_RING_THRESHOLD", NULL, "2.2", NULL, "removed in 2.3"),
	GONE_("NCCL_LL_THRESHOLD", NULL, "2.4", "NCCL_PROTO", "removed in 2.5; protocols are chosen by the tuner (NCCL_PROTO restricts them)"),
	GONE_("NCCL_TREE_THRESHOLD", NULL, "2.4", "NCCL_ALGO", "removed in 2.5; algorithms are chosen by the tuner (NCCL_ALGO restricts them)"),
	GONE_("NCCL_AGG_ALLOC_MODE", NULL, "2.12", NULL, "removed after 2.12"),
	GONE_("NCCL_AGG_CHANNEL_SIZE", NULL, "2.19", NULL, "removed after 2.19"),
	GONE_("NCCL_CUDA_PATH", "2.14", "2.20", NULL, "removed after 2.20"),
	GONE_("NCCL_WORK_FIFO_DEPTH", "2.14", "2.21", "NCCL_WORK_FIFO_BYTES", "replaced by NCCL_WORK_FIFO_BYTES in 2.22"),
	GONE_("NCCL_PROXY_PROFILE", "2.12", "2.22", NULL, "removed after 2.22"),
	GONE_("NCCL_GDRCOPY_TAIL_ENABLE", NULL, "2.10", NULL, "removed after 2.10"),
	GONE_("NCCL_MNNVL", "2.20", "2.20", "NCCL_MNNVL_ENABLE", "only in 2.20; use NCCL_MNNVL_ENABLE"),
	GONE_("NCCL_CREATE_THREAD_CONTEXT", "2.14", "2.29", NULL, "removed in 2.30"),
	GONE_("NCCL_SHM_MEMCPY_MODE", "2.14", "2.29", NULL, "removed in 2.30"),
	GONE_("NCCL_SHM_USE_CUDA_MEMCPY", "2.14", "2.29", NULL, "removed in 2.30"),
	/* ---- container images set these for information; nothing reads them ---- */
	{ "NCCL_VERSION", ENV_STRING, NULL, NOCHK, NULL, NULL, NULL, NULL, ENVF_IMAGE, "set by NVIDIA CUDA container images to the packaged libnccl version; not read by NCCL" },
	/* ---- PyTorch (ProcessGroupNCCL, c10d, torchrun) ---- */
	TINT_("TORCH_NCCL_ASYNC_ERROR_HANDLING", 0, 3, "3 (torchrun sets 1)", "0 none, 1 tear down, 2 clean up only, 3 tear down without cleanup"),
	TINT_("TORCH_NCCL_BLOCKING_WAIT", 0, 1, "0", "blocking wait(); disables the watchdog"),
	TINT_("TORCH_NCCL_DESYNC_DEBUG", 0, 1, "0", "desync report on timeout"),
	TINT_("TORCH_NCCL_ENABLE_TIMING", 0, 1, "0", "per-collective timing"),
	TINT_("TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK", 0, 1, "0", "register allocator segments with NCCL"),
	TINT_("TORCH_NCCL_ENABLE_MONITORING", 0, 1, "1", "heartbeat monitor"),
	TINT_("TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC", 1, 1000000000LL, "480", "watchdog-stuck timeout"),
	TINT_("TORCH_NCCL_DUMP_ON_TIMEOUT", 0, 1, "1", "dump flight recorder on timeout"),
	TSTR_("TORCH_NCCL_DEBUG_INFO_PIPE_FILE", "", "named pipe to trigger a dump"),
	TINT_("TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC", 0, 1000000000LL, "15000", "wait for dump before exit"),
	TINT_("TORCH_NCCL_COORD_CHECK_MILSEC", 1, 1000000000LL, "1000", "dump signal poll interval"),
	TINT_("TORCH_NCCL_LOG_CPP_STACK_ON_UNCLEAN_SHUTDOWN", 0, 1, "1", "log C++ stacks"),
	TINT_("TORCH_NCCL_RETHROW_CUDA_ERRORS", 0, 1, "1", "rethrow CUDA errors"),
	TINT_("TORCH_NCCL_PROPAGATE_ERROR", 0, 1, "0", "propagate errors via TCPStore"),
	TINT_("TORCH_NCCL_CUDA_EVENT_CACHE", 0, 1, "1", "CUDA event cache"),
	TINT_("TORCH_NCCL_NAN_CHECK", 0, 1, "0", "NaN check"),
	TINT_("TORCH_NCCL_HIGH_PRIORITY", 0, 1, "0", "high-priority streams"),
	TINT_("TORCH_NCCL_BCAST_UNIQUEID", 0, 1, "1", "broadcast unique id"),
	TINT_("TORCH_NCCL_RANKS_PER_ROOT", 1, 1000000000LL, "128", "ranks per root"),
	TINT_("TORCH_NCCL_SHOW_EAGER_INIT_P2P_SERIALIZATION_WARNING", 0, 1, "0", "eager init warning"),
	TINT_("TORCH_NCCL_USE_COMM_NONBLOCKING", 0, 1, "0", "non-blocking communicator init"),
	TINT_("TORCH_NCCL_NONBLOCKING_TIMEOUT", -1, 1000000000LL, "-1", "non-blocking init timeout (s); needs TORCH_NCCL_USE_COMM_NONBLOCKING=1"),
	TINT_("TORCH_NCCL_EXTRA_DUMP_ON_EXEC", 0, 1, "0", "extra dump"),
	{ "TORCH_NCCL_AVOID_RECORD_STREAMS", ENV_INT, NULL, 0, 1, "default behaviour now", NULL, NULL, NULL, ENVF_TORCH, "deprecated: record-stream avoidance is the default" },
	{ "TORCH_NCCL_TRACE_BUFFER_SIZE", ENV_INT, NULL, 0, 1000000000LL, "2000", NULL, NULL, "TORCH_FR_BUFFER_SIZE", ENVF_TORCH, "flight recorder size; PyTorch 2.11 renamed it TORCH_FR_BUFFER_SIZE" },
	{ "TORCH_NCCL_DEBUG_INFO_TEMP_FILE", ENV_STRING, NULL, NOCHK, "/tmp/nccl_trace_rank_", NULL, NULL, "TORCH_FR_DUMP_TEMP_FILE", ENVF_TORCH, "flight recorder dump prefix; PyTorch 2.11 renamed it TORCH_FR_DUMP_TEMP_FILE" },
	TINT_("TORCH_FR_BUFFER_SIZE", 0, 1000000000LL, "2000", "flight recorder entries"),
	TSTR_("TORCH_FR_DUMP_TEMP_FILE", "/tmp/nccl_trace_rank_", "flight recorder dump prefix"),
	{ "TORCH_DISTRIBUTED_DEBUG", ENV_ENUM, "OFF|INFO|DETAIL", NOCHK, "OFF", NULL, NULL, NULL, ENVF_TORCH | ENVF_NOCASE, "c10d debug level; DETAIL checks collective consistency" },
	{ "TORCH_CPP_LOG_LEVEL", ENV_ENUM, "INFO|WARNING|ERROR|FATAL|0|1|2|3", NOCHK, "WARNING", NULL, NULL, NULL, ENVF_TORCH | ENVF_NOCASE, "C++ log level" },
	TINT_("TORCH_SHOW_CPP_STACKTRACES", 0, 1, "0", "C++ stack traces in exceptions"),
	TINT_("TORCHELASTIC_USE_AGENT_STORE", 0, 1, NULL, "workers use the agent's TCPStore"),
	/* PyTorch's deprecated NCCL_-prefixed aliases */
	TREN_("NCCL_ASYNC_ERROR_HANDLING", "TORCH_NCCL_ASYNC_ERROR_HANDLING", "PyTorch's variable, not NCCL's (NCCL never reads it); deprecated alias of TORCH_NCCL_ASYNC_ERROR_HANDLING"),
	TREN_("NCCL_BLOCKING_WAIT", "TORCH_NCCL_BLOCKING_WAIT", "PyTorch's variable, not NCCL's; deprecated alias of TORCH_NCCL_BLOCKING_WAIT"),
	TREN_("NCCL_DESYNC_DEBUG", "TORCH_NCCL_DESYNC_DEBUG", "PyTorch's variable, not NCCL's; deprecated alias of TORCH_NCCL_DESYNC_DEBUG"),
	TREN_("NCCL_ENABLE_TIMING", "TORCH_NCCL_ENABLE_TIMING", "PyTorch's variable, not NCCL's; deprecated alias of TORCH_NCCL_ENABLE_TIMING"),
	TREN_("NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK", "TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK", "PyTorch's variable; deprecated alias"),
	/* CUDA variables that matter for device assignment */
	{ "CUDA_VISIBLE_DEVICES", ENV_STRING, NULL, NOCHK, "all GPUs", NULL, NULL, NULL, ENVF_CUDA, "GPUs visible to the process, renumbered from 0" },
	{ "CUDA_LAUNCH_BLOCKING", ENV_INT, NULL, 0, 1, "0", NULL, NULL, NULL, ENVF_CUDA, "synchronous kernel launches (debugging)" },
	{ "CUDA_DEVICE_ORDER", ENV_ENUM, "FASTEST_FIRST|PCI_BUS_ID", NOCHK, "FASTEST_FIRST", NULL, NULL, NULL, ENVF_CUDA, "GPU numbering order" },
	{ "CUDA_DEVICE_MAX_CONNECTIONS", ENV_INT, NULL, 1, 32, "8", NULL, NULL, NULL, ENVF_CUDA, "hardware work queues" },
	{ "CUDA_MODULE_LOADING", ENV_ENUM, "LAZY|EAGER", NOCHK, "LAZY", NULL, NULL, NULL, ENVF_CUDA, "module loading mode" },
};

#define NTABLE (sizeof TABLE / sizeof TABLE[0])

/* Names people write that do not exist, with what they probably meant. */
static const struct {
	const char *name, *meant, *note;
} MISNAMED[] = {
	{ "NCCL_INIT_TIMEOUT", "NCCL has no init timeout: bound init with init_process_group(timeout=timedelta(...)) or TORCH_NCCL_USE_COMM_NONBLOCKING=1 + TORCH_NCCL_NONBLOCKING_TIMEOUT",
	  "No NCCL release (2.10-2.30) reads NCCL_INIT_TIMEOUT." },
	{ "NCCL_TIMEOUT", "the collective timeout is PyTorch's init_process_group(timeout=timedelta(...)); NCCL_IB_TIMEOUT is the InfiniBand ACK timeout",
	  "Neither NCCL nor PyTorch reads NCCL_TIMEOUT." },
	{ "NCCL_SOCKET_TIMEOUT", "NCCL_SOCKET_RETRY_CNT / NCCL_SOCKET_RETRY_SLEEP_MSEC (2.24+) bound TCP connect retries",
	  "NCCL has no socket timeout variable." },
	{ "NCCL_CONNECT_TIMEOUT", "NCCL_SOCKET_RETRY_CNT / NCCL_SOCKET_RETRY_SLEEP_MSEC (2.24+)", "NCCL has no connect timeout variable." },
	{ "NCCL_P2P_DISABLED", "NCCL_P2P_DISABLE=1", "" },
	{ "NCCL_IB_DISABLED", "NCCL_IB_DISABLE=1", "" },
	{ "NCCL_SHM_DISABLED", "NCCL_SHM_DISABLE=1", "" },
	{ "NCCL_NVLS_DISABLE", "NCCL_NVLS_ENABLE=0", "" },
	{ "NCCL_NVLS_DISABLED", "NCCL_NVLS_ENABLE=0", "" },
	{ "NCCL_CUMEM_DISABLE", "NCCL_CUMEM_ENABLE=0", "" },
	{ "NCCL_NET_GDR_DISABLE", "NCCL_NET_GDR_LEVEL=LOC", "" },
	{ "NCCL_GDR_DISABLE", "NCCL_NET_GDR_LEVEL=LOC", "" },
	{ "NCCL_NVLINK_DISABLE", "NCCL_P2P_LEVEL / NCCL_P2P_DISABLE=1 (P2P over NVLink) or NCCL_NVLS_ENABLE=0 (NVLS)", "" },
	{ "NCCL_DEBUG_LEVEL", "NCCL_DEBUG=INFO", "" },
	{ "NCCL_LOG_LEVEL", "NCCL_DEBUG=INFO", "" },
	{ "NCCL_SOCKET_INTERFACE", "NCCL_SOCKET_IFNAME", "" },
	{ "NCCL_SOCKET_IFACE", "NCCL_SOCKET_IFNAME", "" },
	{ "NCCL_SOCKET_IF", "NCCL_SOCKET_IFNAME", "" },
	{ "NCCL_IFNAME", "NCCL_SOCKET_IFNAME", "" },
	{ "NCCL_IB_HCAS", "NCCL_IB_HCA", "" },
	{ "NCCL_IB_DEVICE", "NCCL_IB_HCA", "" },
	{ "NCCL_ALGORITHM", "NCCL_ALGO", "" },
	{ "NCCL_PROTOCOL", "NCCL_PROTO", "" },
};

/* Prefixes of variables read by NCCL plugins or other libraries: not judged. */
static const char *const FOREIGN_PREFIXES[] = {
	"NCCL_GPUDIRECTTCPX_", "NCCL_FASTRAK_", "NCCL_TCPX_", "NCCL_IBEXT_", "NCCL_SHARP_",
	"NCCL_NVSHMEM_", "NCCL_TESTS_", "NCCL_HOME", "NCCL_ROOT", "NCCL_INCLUDE", "NCCL_LIB",
	"NCCL_PLUGIN_", "NCCL_OFI_", "NCCL_MSCCL", "NCCL_CTRAN_", "NCCL_RCCL",
};

size_t envvar_count(void) { return NTABLE; }

const struct env_var *envvar_at(size_t i) { return i < NTABLE ? &TABLE[i] : NULL; }

const struct env_var *envvar_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < NTABLE; i++)
		if (strcmp(TABLE[i].name, name) == 0)
			return &TABLE[i];
	return NULL;
}

int envvar_in_scope(const char *name)
{
	return str_starts(name, "NCCL_") || str_starts(name, "TORCH_NCCL_") ||
	       str_starts(name, "TORCH_DISTRIBUTED_") || strcmp(name, "TORCH_CPP_LOG_LEVEL") == 0 ||
	       str_starts(name, "TORCH_FR_");
}

static void set(struct env_finding *f, enum env_verdict v, const char *rule, char *meant, char *note)
{
	f->verdict = v;
	f->rule = rule;
	f->meant = meant;
	f->note = note;
}

void envvar_finding_free(struct env_finding *f)
{
	if (!f)
		return;
	free(f->meant);
	free(f->note);
	f->meant = f->note = NULL;
}

/* Token t (length n) in the '|' list vals? */
static int token_in(const char *vals, const char *t, size_t n, int nocase)
{
	const char *p = vals;
	while (p && *p) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (len == n && (nocase ? strncasecmp(p, t, n) == 0 : strncmp(p, t, n) == 0))
			return 1;
		p = bar ? bar + 1 : NULL;
	}
	return 0;
}

static size_t trim(const char **s, size_t n)
{
	while (n && isspace((unsigned char)**s)) {
		(*s)++;
		n--;
	}
	while (n && isspace((unsigned char)(*s)[n - 1]))
		n--;
	return n;
}

/* Levenshtein distance when it is at most max, else max + 1: the band
 * |i - j| <= max of the table, stopped when a whole row is over max (names
 * are short, and a bundle may name thousands: *work counts the cells). */
static size_t edit_distance_max(const char *a, const char *b, size_t max, uint64_t *work)
{
	size_t la = strlen(a), lb = strlen(b);
	const size_t over = max + 1;
	if (la > 63 || lb > 63 || (la > lb ? la - lb : lb - la) > max)
		return over;
	if (!la || !lb)
		return la + lb; /* <= max: checked above */
	size_t d[64][64];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t lo = i > max ? i - max : 1, hi = i + max < lb ? i + max : lb;
		size_t rowmin = lo == 1 && i <= max ? i : over; /* d[i][0] is in the band */
		if (lo > 1)
			d[i][lo - 1] = over; /* outside the band: more than max */
		for (size_t j = lo; j <= hi; j++) {
			size_t c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (j < i + max && d[i - 1][j] + 1 < c) /* d[i-1][j] is in the band */
				c = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < c)
				c = d[i][j - 1] + 1;
			d[i][j] = c < over ? c : over;
			if (d[i][j] < rowmin)
				rowmin = d[i][j];
		}
		*work += hi >= lo ? hi - lo + 1 : 0;
		if (hi < lb)
			d[i][hi + 1] = over;
		if (rowmin > max)
			return over;
	}
	return d[la][lb];
}

static const struct env_var *closest(const char *name, uint64_t *work)
{
	const struct env_var *best = NULL;
	size_t bd = 3;
	for (size_t i = 0; i < NTABLE && bd > 0; i++) {
		size_t dd = edit_distance_max(name, TABLE[i].name, bd - 1, work);
		if (dd < bd) {
			bd = dd;
			best = &TABLE[i];
		}
	}
	return best;
}

static const char *ALGOS = "Ring|Tree|CollNetDirect|CollNetChain|NVLS|NVLSTree|PAT|CollNet";
static const char *PROTOS = "LL|LL128|Simple";
static const char *FUNCS = "Broadcast|Reduce|AllGather|ReduceScatter|AllReduce";

/* NCCL_ALGO / NCCL_PROTO: "[^]tok,tok" or (2.24+) "func:[^]list;func:list". */
static enum env_verdict check_algo_proto(const struct env_var *v, const char *value, int nccl,
                                         struct env_finding *f)
{
	int is_algo = strcmp(v->name, "NCCL_ALGO") == 0;
	const char *valid = is_algo ? ALGOS : PROTOS;
	const char *other = is_algo ? PROTOS : ALGOS;
	const char *p = value;
	while (*p) {
		const char *semi = strchr(p, ';');
		size_t seg = semi ? (size_t)(semi - p) : strlen(p);
		const char *colon = memchr(p, ':', seg);
		const char *list = p;
		size_t ln = seg;
		if (colon) {
			const char *fn = p;
			size_t fl = trim(&fn, (size_t)(colon - p));
			if (!token_in(FUNCS, fn, fl, 1)) {
				set(f, ENVCHK_INVALID, "env.invalid_value",
				    xasprintf("use one of Broadcast, Reduce, AllGather, ReduceScatter, AllReduce before ':' (or no prefix)"),
				    xasprintf("\"%.*s\" is not a collective name; NCCL 2.24+ fails init with `Unrecognized prefix token`.",
				              (int)fl, fn));
				return f->verdict;
			}
			list = colon + 1;
			ln = seg - (size_t)(colon + 1 - p);
		}
		ln = trim(&list, ln);
		if (ln && *list == '^') {
			list++;
			ln--;
		}
		while (ln) {
			const char *comma = memchr(list, ',', ln);
			size_t tl = comma ? (size_t)(comma - list) : ln;
			const char *t = list;
			size_t tn = trim(&t, tl);
			if (tn && !token_in(valid, t, tn, 1)) {
				const char *when = nccl == 0 ? "NCCL 2.24 and later fail communicator init with `Unrecognized element token`; older releases silently ignore the token"
				                 : nccl >= 22400 ? "This NCCL (2.24+) fails communicator init with `Unrecognized element token`"
				                                 : "This NCCL (before 2.24) silently ignores the token, so the setting does nothing";
				if (token_in(other, t, tn, 1)) {
					set(f, ENVCHK_INVALID, "env.invalid_value",
					    is_algo ? xasprintf("unset NCCL_ALGO; if the %.*s protocol was meant, set NCCL_PROTO=%.*s", (int)tn, t, (int)tn, t)
					            : xasprintf("unset NCCL_PROTO; if the %.*s algorithm was meant, set NCCL_ALGO=%.*s", (int)tn, t, (int)tn, t),
					    xasprintf("\"%.*s\" is a%s, not a%s. Valid %s values: %s. %s.", (int)tn, t,
					              is_algo ? " protocol" : "n algorithm", is_algo ? "n algorithm" : " protocol",
					              v->name, is_algo ? "Ring, Tree, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT" : "LL, LL128, Simple", when));
				} else {
					set(f, ENVCHK_INVALID, "env.invalid_value",
					    xasprintf("unset %s (NCCL's tuner chooses), or use one of %s", v->name,
					              is_algo ? "Ring, Tree, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT" : "LL, LL128, Simple"),
					    xasprintf("\"%.*s\" is not a valid %s name. %s.", (int)tn, t, is_algo ? "algorithm" : "protocol", when));
				}
				return f->verdict;
			}
			if (!comma)
				break;
			ln -= tl + 1;
			list = comma + 1;
		}
		if (!semi)
			break;
		if (nccl && nccl < 22400) {
			set(f, ENVCHK_INVALID, "env.invalid_value", xasprintf("use a plain list (e.g. NCCL_ALGO=Ring,Tree) with this NCCL"),
			    xasprintf("The per-collective `func:list;func:list` syntax needs NCCL 2.24 or later."));
			return f->verdict;
		}
		p = semi + 1;
	}
	return ENVCHK_OK;
}

static enum env_verdict check_level(const struct env_var *v, const char *value, struct env_finding *f)
{
	const char *t = value;
	size_t n = trim(&t, strlen(value));
	if (n && token_in(v->values, t, n, 0))
		return ENVCHK_OK;
	char *endp;
	errno = 0;
	long long x = strtoll(t, &endp, 10);
	if (n && endp == t + n && errno == 0 && x >= 0 && x <= 5)
		return ENVCHK_OK;
	if (n && token_in(v->values, t, n, 1)) {
		char up[16];
		size_t k;
		for (k = 0; k < n && k < sizeof up - 1; k++)
			up[k] = (char)toupper((unsigned char)t[k]);
		up[k] = 0;
		set(f, ENVCHK_INVALID, "env.invalid_value", xasprintf("%s=%s (upper case)", v->name, up),
		    xasprintf("%s is case-sensitive: NCCL silently ignores \"%.*s\" and keeps its automatic choice.", v->name, (int)n, t));
		return f->verdict;
	}
	if (n == 4 && strncasecmp(t, "NODE", 4) == 0) {
		set(f, ENVCHK_INVALID, "env.invalid_value", xasprintf("%s=PHB (NCCL's name for what nvidia-smi calls NODE)", v->name),
		    xasprintf("NODE is an nvidia-smi topology term, not an NCCL level; NCCL silently ignores it."));
		return f->verdict;
	}
	set(f, ENVCHK_INVALID, "env.invalid_value",
	    xasprintf("one of LOC, NVL, PIX, PXB, PHB, SYS (or NCCL_P2P_DISABLE=1 to turn P2P off)"),
	    xasprintf("\"%.*s\" is not an NCCL topology level; NCCL silently ignores it (no INFO line) and keeps its automatic choice.", (int)n, t));
	return f->verdict;
}

/* NCCL_SOCKET_IFNAME / NCCL_IB_HCA: "[^][=]name[,name...]" */
static enum env_verdict check_iflist(const struct env_var *v, const char *value, struct env_finding *f)
{
	const char *p = value;
	size_t n = strlen(p);
	if (n == 0)
		return ENVCHK_OK;
	if (isspace((unsigned char)p[0]) || isspace((unsigned char)p[n - 1]) || strchr(p, ' ')) {
		set(f, ENVCHK_INVALID, "env.invalid_value", xasprintf("remove the spaces: a comma list without blanks, e.g. %s=eth0,eth1", v->name),
		    xasprintf("Spaces become part of the interface names, which then match nothing."));
		return f->verdict;
	}
	if (str_starts(p, "=^")) {
		set(f, ENVCHK_INVALID, "env.invalid_value", xasprintf("%s=^=%s (the ^ must come first)", v->name, p + 2),
		    xasprintf("`=^` makes NCCL look for an interface literally named \"^%s\".", p + 2));
		return f->verdict;
	}
	const char *q = p[0] == '^' ? p + 1 : p;
	if (strchr(q, '^')) {
		set(f, ENVCHK_INVALID, "env.invalid_value",
		    xasprintf("one list, either all included or all excluded: e.g. %s=eth0 or %s=^docker,lo", v->name, v->name),
		    xasprintf("`^` is only recognised as the first character and applies to the whole list; here it is part of a name."));
		return f->verdict;
	}
	return ENVCHK_OK;
}

/* A name the table does not have: foreign families pass, known misnamings
 * and near misses are named. */
static enum env_verdict check_unknown(const char *name, struct env_finding *f)
{
	if (str_starts(name, "CUDA_"))
		return ENVCHK_IGNORED;
	for (size_t i = 0; i < sizeof FOREIGN_PREFIXES / sizeof FOREIGN_PREFIXES[0]; i++)
		if (str_starts(name, FOREIGN_PREFIXES[i]))
			return ENVCHK_IGNORED;
	for (size_t i = 0; i < sizeof MISNAMED / sizeof MISNAMED[0]; i++)
		if (strcmp(MISNAMED[i].name, name) == 0) {
			set(f, ENVCHK_UNKNOWN, "env.unknown_variable", xstrdup(MISNAMED[i].meant),
			    xstrdup(MISNAMED[i].note));
			return f->verdict;
		}
	const struct env_var *c = closest(name, &f->work);
	if (c)
		set(f, ENVCHK_UNKNOWN, "env.unknown_variable", xasprintf("probably %s (%s)", c->name, c->note),
		    xasprintf("Closest known name: %s.", c->name));
	else
		set(f, ENVCHK_UNKNOWN, "env.unknown_variable", xasprintf("check the spelling against NCCL's env documentation"),
		    xstrdup(""));
	return f->verdict;
}

static enum env_verdict check_int(const struct env_var *v, const char *name, const char *t, size_t n,
                                  struct env_finding *f)
{
	char *endp;
	errno = 0;
	long long x = strtoll(t, &endp, 0);
	if (n == 0 || endp != t + n || errno) {
		const char *hint = (v->min == 0 && v->max == 1) ? "1 (or 0)" : "an integer";
		set(f, ENVCHK_INVALID, "env.invalid_value", xasprintf("%s=%s", name, hint),
		    (v->flags & ENVF_TORCH)
		        ? xasprintf("%s takes an integer; \"%.*s\" is not one.", name, (int)n, t)
		        : xasprintf("NCCL parses %s as an integer; \"%.*s\" is not one, so NCCL prints `Invalid value` and uses the default (%s).",
		                    name, (int)n, t, v->deflt ? v->deflt : "default"));
		return f->verdict;
	}
	if (v->min <= v->max && (x < v->min || x > v->max)) {
		set(f, ENVCHK_INVALID, "env.invalid_value", xasprintf("a value between %lld and %lld", v->min, v->max),
		    xasprintf("%s=%lld is outside %lld..%lld (%s).", name, x, v->min, v->max, v->note));
		return f->verdict;
	}
	if (!(v->flags & ENVF_TORCH) && v->min == 0 && v->max == 1 && x > 1 &&
	    (strcmp(name, "NCCL_P2P_DISABLE") == 0)) {
		set(f, ENVCHK_INVALID, "env.invalid_value", xasprintf("NCCL_P2P_DISABLE=1"),
		    xasprintf("Only the value 1 disables P2P."));
		return f->verdict;
	}
	return ENVCHK_OK;
}

static enum env_verdict check_enum(const struct env_var *v, const char *name, const char *t, size_t n,
                                   struct env_finding *f)
{
	if (!v->values)
		return ENVCHK_OK;
	if (n && token_in(v->values, t, n, (v->flags & ENVF_NOCASE) != 0))
		return ENVCHK_OK;
	if (strcmp(name, "NCCL_NTHREADS") == 0) {
		set(f, ENVCHK_INVALID, "env.invalid_value", xasprintf("one of 64, 128, 256, 512, or unset"),
		    xasprintf("NCCL ignores NCCL_NTHREADS=%.*s (INFO `Invalid NCCL_NTHREADS`).", (int)n, t));
		return f->verdict;
	}
	if (strcmp(name, "NCCL_DEBUG") == 0) {
		set(f, ENVCHK_INVALID, "env.invalid_value", xasprintf("NCCL_DEBUG=INFO (or WARN)"),
		    xasprintf("NCCL_DEBUG accepts VERSION, WARN, INFO, TRACE; with \"%.*s\" NCCL prints nothing at all.", (int)n, t));
		return f->verdict;
	}
	{
		struct buf b;
		buf_init(&b);
		for (const char *p = v->values; *p; p++)
			buf_addc(&b, *p == '|' ? ',' : *p);
		set(f, ENVCHK_INVALID, "env.invalid_value", xasprintf("one of %s", b.data),
		    xasprintf("%s does not accept \"%.*s\" (%s).", name, (int)n, t, v->note));
		buf_free(&b);
	}
	return f->verdict;
}

static enum env_verdict check_list(const struct env_var *v, const char *name, const char *value, const char *t,
                                   size_t n, int nccl, struct env_finding *f)
{
	if (strcmp(name, "NCCL_ALGO") == 0 || strcmp(name, "NCCL_PROTO") == 0)
		return check_algo_proto(v, value, nccl, f);
	{
		const char *p = t;
		size_t ln = n;
		if (ln && *p == '^') {
			p++;
			ln--;
		}
		while (ln) {
			const char *comma = memchr(p, ',', ln);
			size_t tl = comma ? (size_t)(comma - p) : ln;
			const char *tok = p;
			size_t tn = trim(&tok, tl);
			if (tn && !token_in(v->values, tok, tn, 1)) {
				set(f, ENVCHK_INVALID, "env.invalid_value", xasprintf("names from: %s", v->values),
				    xasprintf("\"%.*s\" is not a %s name; NCCL ignores it.", (int)tn, tok, name));
				return f->verdict;
			}
			if (!comma)
				break;
			ln -= tl + 1;
			p = comma + 1;
		}
	}
	return ENVCHK_OK;
}

enum env_verdict envvar_check(const char *name, const char *value, int nccl, struct env_finding *f)
{
	memset(f, 0, sizeof *f);
	if (!name || !value)
		return ENVCHK_IGNORED;
	if (!envvar_in_scope(name) && !str_starts(name, "CUDA_"))
		return ENVCHK_IGNORED;
	const struct env_var *v = envvar_find(name);
	if (!v)
		return check_unknown(name, f);
	if (v->flags & ENVF_IMAGE)
		return ENVCHK_IGNORED;
	/* removed */
	if (v->until && (nccl == 0 || nccl > version_code(v->until) + 99)) {
		if (nccl || !v->since || version_code(v->until) < 22000) {
			set(f, ENVCHK_REMOVED, "env.removed_variable",
			    v->renamed_to ? xasprintf("use %s", v->renamed_to) : xasprintf("remove %s", name),
			    xasprintf("%s: %s; NCCL%s ignores it.", name, v->note, nccl ? " in this job" : " 2.10 and later"));
			return f->verdict;
		}
	}
	/* renamed (the old name may still work) */
	if (v->renamed_to && !v->until) {
		char *note;
		if (strcmp(name, "NCCL_ASYNC_ERROR_HANDLING") == 0 && strcmp(value, "0") == 0)
			note = xasprintf("%s. Setting it to 0 turns off PyTorch's error handling: a failed or hung collective is never aborted, so the job hangs instead of failing with a message.", v->note);
		else if (strcmp(name, "NCCL_BLOCKING_WAIT") == 0)
			note = xasprintf("%s. Blocking wait also disables the watchdog thread.", v->note);
		else
			note = xasprintf("%s.", v->note);
		set(f, ENVCHK_RENAMED, "env.renamed_variable", xstrdup(v->renamed_to), note);
		return f->verdict;
	}
	const char *t = value;
	size_t n = trim(&t, strlen(value));
	switch (v->type) {
	case ENV_INT:
		return check_int(v, name, t, n, f);
	case ENV_ENUM:
		return check_enum(v, name, t, n, f);
	case ENV_LIST:
		return check_list(v, name, value, t, n, nccl, f);
	case ENV_LEVEL:
		return check_level(v, value, f);
	case ENV_IFLIST:
		return check_iflist(v, value, f);
	case ENV_STRING:
		return ENVCHK_OK;
	}
	return ENVCHK_OK;
}
