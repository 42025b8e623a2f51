/* rules_infer.c - inferences that need several documents or several kinds
 * of evidence at once: what a stall, the host's GPUs and its topology say
 * together.  Each finding names what it rests on; the diagnoses are in
 * patterns/infer.json.
 *
 *   infer.init_stall_one_host  every NCCL process of the bundle is on one
 *       host with two GPUs or more, none got past init, nothing failed and
 *       the log just stops: a hang of init (or an excerpt).  On one host the
 *       transports init sets up are GPU peer-to-peer and shared memory; on a
 *       PCIe machine (the topology shows no NVLink, or the GPUs are PCIe or
 *       workstation boards) P2P through ACS or the IOMMU is the usual cause,
 *       and `verify --env NCCL_P2P_DISABLE=1` tells it apart.
 *   infer.graph_file_set  NCCL_GRAPH_FILE is set (NCCL's "set by environment"
 *       line, an env dump): NCCL takes its rings and trees from a file made
 *       for one machine instead of searching them; a path under /opt, /etc
 *       or /usr is the image's, not the job's (a VM image made for one VM
 *       size, run on another).
 *   infer.transport_shm / _socket  the transports NCCL's channel lines name (the first
 *       "via X" of each process) and why it took them when the machine
 *       offers a faster one: SHM where the topology shows NVLink (P2P off
 *       or impossible), TCP sockets where InfiniBand/RoCE ports are Active
 *       or NCCL found an IB device elsewhere (IB disabled or unusable); with
 *       the bus bandwidth nccl-tests measured.  Information for performance
 *       tickets, never a failure. */
#include "rules/rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "match/patids.h"
#include "parse/ranks.h"
#include "base/util.h"

static const struct rule_def DEFS[] = {
	{"infer.init_stall_pcie", "every NCCL process is on one PCIe host (topology or GPU names) with two or more GPUs, none got past init, nothing failed: init stalls"},
	{"infer.init_stall_one_host", "every NCCL process is on one host with two or more GPUs (the machine unknown), none got past init, nothing failed"},
	{"infer.init_hang_on_bridge", "a rank is stuck in init after NCCL chose a bridge or link-local interface, and the ranks are not shown to be on one host"},
	{"infer.graph_file_set", "NCCL_GRAPH_FILE is set: NCCL's channel graph comes from a file made for one machine"},
	{"infer.transport_shm", "NCCL used shared memory between GPUs that NVLink links, and why"},
	{"infer.transport_socket", "NCCL used TCP sockets between hosts that have InfiniBand/RoCE, and why"},
	{"infer.timeout_rank_missing", "every rank from 0 to the highest one reported a collective timeout except one, which printed no timeout and no error: it was elsewhere"},
	{"infer.init_invalid_usage", "communicator init (ncclCommInitRank) returned invalid usage: in NCCL's init that is a duplicate GPU"},
	{"infer.busbw_under_nvlink", "nccl-tests on one host measured a bus bandwidth far under what the NVLink links of its GPUs carry"},
	{"infer.busbw_under_nic", "nccl-tests across hosts measured a bus bandwidth far under what the Active RDMA ports of a host carry"},
	{"infer.ifname_one_host_only", "NCCL_SOCKET_IFNAME matched an interface on some hosts and none on another: the hosts name their interfaces differently"},
	{"infer.p2p_slower_than_copy", "p2pBandwidthLatencyTest: P2P writes between two GPUs are slower than copies staged through the host"},
	{"infer.store_host_lost", "the rendezvous store's connection broke after the job was running: the process that hosted the store ended first"},
};

/* Evidence so far feeds a diagnosis of severity error: something failed. */
static int error_evidence(const struct rule_ctx *rc)
{
	for (size_t d = 0; d < rc->db->ndiags; d++) {
		const struct diagdef *dg = &rc->db->diags[d];
		if (dg->severity != SEV_ERROR || dg->role == ROLE_CONTEXT)
			continue;
		for (size_t k = 0; k < dg->when_any.n; k++)
			if (evlist_has(rc->ev, dg->when_any.v[k]) && strncmp(dg->when_any.v[k], "ranks.", 6) != 0)
				return 1;
	}
	return 0;
}

/* What the bundle shows about the machine: 1 a PCIe machine (topology
 * without NVLink, or PCIe / workstation GPU names), -1 NVLink between the
 * GPUs, 0 unknown.  *what says from what. */
static int pcie_box(const cJSON *facts, char *what, size_t n)
{
	const cJSON *links = json_get(json_get(facts, "topology"), "links"), *l;
	int nv = 0, pci = 0;
	cJSON_ArrayForEach(l, links) {
		const char *c = json_str(l, "class");
		if (!c)
			continue;
		if (strcmp(c, "nvlink") == 0 || strcmp(c, "c2c") == 0)
			nv++;
		else if (strcmp(c, "unknown") != 0)
			pci++;
	}
	if (nv)
		return -1;
	if (pci) {
		snprintf(what, n, "the topology shows only PCIe paths between the GPUs (no NVLink)");
		return 1;
	}
	/* GPU names: nvidia-smi / collect_env, or nccl-tests' device list */
	static const char *const boards[] = {"GeForce", "TITAN", "Quadro", "RTX", "PCIe", "PCIE", NULL};
	const char *name = NULL;
	const cJSON *g;
	cJSON_ArrayForEach(g, json_get(facts, "gpus"))
		if (!name)
			name = json_str(g, "name");
	const cJSON *run;
	cJSON_ArrayForEach(run, json_get(json_get(facts, "nccl_tests"), "runs"))
		cJSON_ArrayForEach(g, json_get(run, "devices"))
			if (!name)
				name = json_str(g, "name");
	for (size_t i = 0; name && boards[i]; i++)
		if (strstr(name, boards[i])) {
			snprintf(what, n, "the GPUs are %s, PCIe boards", name);
			return 1;
		}
	return 0;
}

static void rule_init_stall(struct rule_ctx *rc)
{
	const struct ranks *r = rc->ranks;
	if (!r || !r->nccl_lines || rc->logs_cut || rc->failure_count || r->job_exit == 0 || r->saw_watchdog)
		return;
	const char *host = NULL;
	const struct rank_proc *last = NULL;
	size_t procs = 0;
	int gpus = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct rank_proc *p = &r->v[i];
		if (p->has_exit && p->exitcode != 0 && p->exitcode != -15)
			return; /* a rank failed: another finding says so */
		if (!p->host)
			continue;
		if (host && strcmp(host, p->host) != 0)
			return; /* several hosts: the network is in play */
		host = p->host;
		if (p->saw_init_complete || p->saw_coll || p->saw_connected || p->saw_destroy)
			return;
		procs++;
		if (p->nranks > gpus)
			gpus = p->nranks;
		if (!last || p->last.order > last->last.order)
			last = p;
	}
	int nranks = gpus; /* the largest communicator's size */
	int devices = 0;    /* GPUs driven by the processes seen (nccl-tests: one process, many) */
	const cJSON *run;
	cJSON_ArrayForEach(run, json_get(json_get(rc->facts, "nccl_tests"), "runs")) {
		double dc = 0;
		if (json_num(run, "device_count", &dc) && dc > devices)
			devices = (int)dc;
	}
	if (devices > gpus)
		gpus = devices;
	/* fewer processes than ranks, and no one process driving them all: the
	 * other ranks' output is not here, so "every rank on one host" is not
	 * known (they may run on hosts whose logs are missing) */
	if ((int)procs < nranks && devices < nranks)
		return;
	if ((int)procs > gpus)
		gpus = (int)procs;
	if (!host || gpus < 2 || !last || error_evidence(rc))
		return;
	char box[160] = "";
	int pcie = pcie_box(rc->facts, box, sizeof box);
	if (pcie < 0)
		return; /* NVLink: P2P over PCIe is not the suspect */
	struct capture c[4];
	char *gs = xasprintf("%d", gpus);
	c[0] = (struct capture){"host", (char *)host};
	c[1] = (struct capture){"gpus", gs};
	c[2] = (struct capture){"machine", pcie ? box : (char *)"nothing in the bundle says whether the GPUs are linked by NVLink"};
	c[3] = (struct capture){"last", last->last.text ? last->last.text : (char *)""};
	char *stmt = xasprintf("every NCCL process is on %s (%d GPUs) and none got past init; nothing failed and the log "
	                       "stops at: %s; %s",
	                       host, gpus, last->last.text ? last->last.text : "", pcie ? box : c[2].value);
	struct evidence *e = rule_emit(rc, pcie ? "infer.init_stall_pcie" : "infer.init_stall_one_host",
	                               last->last.path ? last->last.path : rc->name, last->last.line, stmt, c, 4);
	if (e) {
		e->host = evlist_keep(rc->ev, host);
		e->pid = last->pid;
	}
	free(stmt);
	free(gs);
}

static void rule_graph_file(struct rule_ctx *rc)
{
	const cJSON *e = json_get(json_get(rc->facts, "env"), "NCCL_GRAPH_FILE");
	const char *v = json_str(e, "value");
	if (!v || !*v)
		return;
	const char *path = json_str(e, "path");
	double line = 0;
	json_num(e, "line", &line);
	static const char *const image_dirs[] = {"/opt/", "/etc/", "/usr/", NULL};
	int image = 0;
	for (size_t i = 0; image_dirs[i]; i++)
		image |= strncmp(v, image_dirs[i], strlen(image_dirs[i])) == 0;
	const char *by = image ? "a path of the image (under /opt, /etc or /usr), not of the job: set by the machine image"
	                       : "a path of the job";
	struct capture c[2] = {{"value", (char *)v}, {"by", (char *)by}};
	char *stmt = xasprintf("NCCL_GRAPH_FILE=%s is set (%s)", v, by);
	rule_emit(rc, "infer.graph_file_set", path ? path : rc->name, line > 0 ? (uint64_t)line : 0, stmt, c, 2);
	free(stmt);
}

static const char *env_val(const cJSON *facts, const char *name)
{
	return json_str(json_get(json_get(facts, "env"), name), "value");
}

/* An RDMA port the host reports Active (ibstat, ibv_devinfo). */
static int ib_port_active(const cJSON *facts)
{
	const cJSON *p;
	cJSON_ArrayForEach(p, json_get(json_get(facts, "ib"), "ports")) {
		const char *st = json_str(p, "state");
		if (st && strncmp(st, "Active", 6) == 0)
			return 1;
	}
	return 0;
}

static void rule_transport(struct rule_ctx *rc)
{
	const struct ranks *r = rc->ranks;
	if (!r)
		return;
	const struct rank_proc *shm = NULL, *sock = NULL;
	for (size_t i = 0; i < r->n; i++) {
		const char *t = r->v[i].transport;
		if (!t)
			continue;
		if (!shm && strncmp(t, "SHM", 3) == 0)
			shm = &r->v[i];
		if (!sock && strncmp(t, "NET/Socket", 10) == 0)
			sock = &r->v[i];
	}
	char box[160];
	int nvlink = pcie_box(rc->facts, box, sizeof box) < 0;
	const char *why = NULL, *what = NULL, *id = NULL;
	const struct rank_proc *p = NULL;
	if (shm && nvlink) {
		p = shm;
		id = "infer.transport_shm";
		what = "shared memory (SHM) between GPUs that NVLink links";
		const char *dis = env_val(rc->facts, "NCCL_P2P_DISABLE"), *lvl = env_val(rc->facts, "NCCL_P2P_LEVEL");
		why = dis && strcmp(dis, "1") == 0 ? "NCCL_P2P_DISABLE=1 turns P2P off"
		      : lvl ? "NCCL_P2P_LEVEL limits P2P"
		            : "P2P between these processes was not possible (processes that cannot share CUDA memory: "
		              "containers without --ipc=host or in other PID namespaces) or is disabled where the log does "
		              "not show it";
	} else if (sock && (ib_port_active(rc->facts) || evlist_has(rc->ev, SIG_IB_USING_DEVICES))) {
		p = sock;
		id = "infer.transport_socket";
		what = "TCP sockets between hosts although InfiniBand/RoCE is there";
		const char *dis = env_val(rc->facts, "NCCL_IB_DISABLE");
		why = dis && strcmp(dis, "1") == 0 ? "NCCL_IB_DISABLE=1 turns IB off"
		      : evlist_has(rc->ev, SIG_IB_LIBIBVERBS_MISSING) ? "NCCL could not load libibverbs"
		                                                     : "NCCL found no usable IB device in this process (the "
		                                                       "device not passed to the container, NCCL_IB_HCA, the "
		                                                       "driver)";
	}
	if (!p)
		return;
	double bw = -1;
	json_num(json_get(json_get(rc->facts, "nccl_tests"), "avg_busbw"), "value", &bw);
	char bws[64] = "";
	if (bw >= 0)
		snprintf(bws, sizeof bws, "; nccl-tests measured %.1f GB/s average bus bandwidth", bw);
	struct capture c[4] = {{"transport", p->transport}, {"what", (char *)what}, {"why", (char *)why}, {"measured", bws}};
	char *stmt = xasprintf("NCCL's channels use %s (via %s): %s%s", what, p->transport, why, bws);
	struct evidence *e = rule_emit(rc, id, p->last.path ? p->last.path : rc->name, 0, stmt, c, 4);
	if (e && p->host)
		e->host = evlist_keep(rc->ev, p->host);
	free(stmt);
}

/* The job was past its rendezvous: a process got past NCCL init or into a
 * collective, a watchdog watched one, or a traceback stops inside one. */
static int past_rendezvous(const struct ranks *r)
{
	if (r->saw_watchdog || r->coll_call.path)
		return 1;
	for (size_t i = 0; i < r->n; i++) {
		const struct rank_proc *p = &r->v[i];
		if (p->saw_init_complete || p->saw_coll || p->saw_connected)
			return 1;
	}
	return 0;
}

/* The TCPStore lives in one process: rank 0's (init_process_group with
 * env:// or tcp://) or torchrun's agent on the master node.  Its clients
 * lose the connection when that process ends; once the job was running
 * (past_rendezvous) that is no rendezvous problem but the end of the store's
 * host: the rank that hosted it, rank 0 when it is not itself among the
 * ranks that lost the connection (then it is the agent). */
static void rule_store_lost(struct rule_ctx *rc)
{
	static const char *const lost[] = {SIG_RDZV_STORE_CONNECTION_CLOSED, SIG_C10D_STORE_SOCKET_FAILED, NULL};
	const struct ranks *r = rc->ranks;
	if (!r || !past_rendezvous(r))
		return;
	const struct evidence *first = NULL;
	int rank0_lost = 0;
	long slot[2] = {evlist_slot(rc->ev, lost[0]), evlist_slot(rc->ev, lost[1])};
	for (size_t i = 0; i < rc->ev->n; i++)
		for (size_t k = 0; lost[k]; k++)
			if (rule_ev_is(rc->ev, &rc->ev->v[i], slot[k], lost[k])) {
				if (!first)
					first = &rc->ev->v[i];
				rank0_lost |= rc->ev->v[i].rank == 0;
			}
	if (!first)
		return;
	const char *host = rank0_lost ? "torchrun's agent on the master node (rank 0 lost the connection too)"
	                              : "rank 0's process (or torchrun's agent on the master node)";
	char *path = xstrdup(first->path), *text = xstrdup(first->text);
	uint64_t line = first->line;
	struct capture c[2] = {{"store_host", (char *)host}, {"line", text}};
	char *stmt = xasprintf("the job was past its rendezvous (a process got past NCCL init or into a collective) "
	                       "when the connection to the rendezvous store broke: %s; the store lives in %s",
	                       text, host);
	struct evidence *e = rule_emit(rc, "infer.store_host_lost", path, line, stmt, c, 2);
	if (e)
		e->rank = rank0_lost ? -1 : 0;
	free(stmt);
	free(path);
	free(text);
}

/* Watchdog timeouts name their own ranks ("[Rank 3] Watchdog caught ...").
 * When every rank from 0 to the highest one reported a timeout but one, and
 * that one shows no error of its own, it did not wait in the collective: it
 * was elsewhere (evaluating, saving a checkpoint, a data-dependent branch),
 * and the others timed out waiting for it. */
static void rule_timeout_missing(struct rule_ctx *rc)
{
	enum { MAXR = 1024 };
	unsigned char seen[MAXR];
	memset(seen, 0, sizeof seen);
	int hi = -1, n = 0;
	const struct evidence *first = NULL;
	long wslot = evlist_slot(rc->ev, SIG_COLL_WATCHDOG_TIMEOUT);
	for (size_t i = 0; i < rc->ev->n; i++) {
		const struct evidence *e = &rc->ev->v[i];
		if (!rule_ev_is(rc->ev, e, wslot, SIG_COLL_WATCHDOG_TIMEOUT) || e->rank < 0 || e->rank >= MAXR)
			continue;
		if (!first)
			first = e;
		n += !seen[e->rank];
		seen[e->rank] = 1;
		if (e->rank > hi)
			hi = e->rank;
	}
	if (n < 2 || n != hi)
		return; /* not exactly one rank of 0..hi missing */
	int miss = 0;
	while (miss <= hi && seen[miss])
		miss++;
	const struct ranks *r = rc->ranks;
	for (size_t i = 0; r && i < r->n; i++)
		if (r->v[i].rank == miss && (r->v[i].first_error.path || (r->v[i].has_exit && r->v[i].exitcode != 0)))
			return; /* it failed: its own finding says why */
	char *ms = xasprintf("%d", miss), *hs = xasprintf("%d", hi);
	struct capture c[2] = {{"rank", ms}, {"highest", hs}};
	char *stmt = xasprintf("ranks 0 to %d reported a watchdog timeout in the same wait, except rank %d, which printed "
	                       "no timeout and no error (first timeout: %s)", hi, miss, first->text);
	char *path = xstrdup(first->path);
	uint64_t line = first->line;
	struct evidence *e = rule_emit(rc, "infer.timeout_rank_missing", path, line, stmt, c, 2);
	if (e)
		e->rank = miss;
	free(stmt);
	free(path);
	free(ms);
	free(hs);
}

/* The call before the error and the result code together: in NCCL's
 * init (src/init.cc, 2.7-2.30) ncclCommInitRank returns ncclInvalidUsage
 * for "Duplicate GPU detected" (two ranks on one device); its other
 * invalid-usage exits are a topology or graph file of the wrong version and
 * NIC settings, each with a WARN of its own.  So a generic "invalid usage"
 * from communicator init, with no WARN that says otherwise, points at the
 * device assignment. */
static void rule_init_invalid_usage(struct rule_ctx *rc)
{
	if (!evlist_has(rc->ev, SIG_VLLM_PYNCCL_COMM_INIT_CALL) || evlist_has(rc->ev, SIG_DEVICE_DUPLICATE_GPU))
		return;
	const struct failure_line *f = NULL;
	for (size_t i = 0; i < rc->nfailures && !f; i++)
		if (strstr(rc->failures[i].text, "invalid usage"))
			f = &rc->failures[i];
	if (!f)
		return;
	for (size_t i = 0; i < rc->nfailures; i++)
		if (rc->failures[i].src)
			return; /* NCCL's own WARN is there: it says which */
	struct capture c[1] = {{"error", f->text}};
	char *stmt = xasprintf("the failing call is communicator init (ncclCommInitRank) and it returned invalid usage: %s",
	                       f->text);
	struct evidence *e = rule_emit(rc, "infer.init_invalid_usage", f->path, f->line, stmt, c, 1);
	if (e)
		e->rank = f->rank;
	free(stmt);
}

/* The fewest NVLinks between any two GPUs of the topology matrix ("NV18":
 * 18), 0 when a pair has none or there is no matrix. */
static int min_nvlinks(const cJSON *facts, int *gpus)
{
	const cJSON *topo = json_get(facts, "topology"), *l;
	double n = 0;
	json_num(topo, "gpu_count", &n);
	*gpus = (int)n;
	int min = 0, pairs = 0;
	cJSON_ArrayForEach(l, json_get(topo, "links")) {
		const char *c = json_str(l, "class"), *t = json_str(l, "type");
		double a = -1, b = -1;
		json_num(l, "a", &a);
		json_num(l, "b", &b);
		if (a < 0 || b < 0 || a == b)
			continue;
		if (!c || strcmp(c, "nvlink") != 0 || !t || strncmp(t, "NV", 2) != 0)
			return 0; /* a pair without NVLink */
		int k = atoi(t + 2);
		if (k <= 0)
			return 0;
		if (!min || k < min)
			min = k;
		pairs++;
	}
	return *gpus >= 2 && pairs >= *gpus * (*gpus - 1) / 2 ? min : 0;
}

/* Measured bandwidth judged against what the topology and the transport
 * allow.  The largest message of an all-reduce-like nccl-tests run (64 MiB
 * or more: past the latency-bound sizes) moves at about the per-direction
 * rate of the narrowest path: NVLink 3 and 4 carry 25 GB/s per link and
 * direction (an NV12 pair 300 GB/s, NV18 450 GB/s), a host's RDMA ports
 * their Gb/s over 8.  Under 30% of that, the run did not use that path
 * (P2P off or SHM, GPUDirect RDMA off, a NIC not used) or the path is
 * degraded.  Information for a performance question, a warning: the verdict
 * does not change. */
static void rule_bandwidth(struct rule_ctx *rc)
{
	const cJSON *run;
	cJSON_ArrayForEach(run, json_get(json_get(rc->facts, "nccl_tests"), "runs")) {
		const cJSON *mb = json_get(run, "max_busbw");
		double v = 0, size = 0;
		if (!json_num(mb, "value", &v) || !json_num(mb, "size", &size) || size < 64.0 * 1024 * 1024 || v <= 0)
			continue;
		const char *prog = json_str(run, "program");
		if (prog && !strstr(prog, "all_reduce") && !strstr(prog, "all_gather") && !strstr(prog, "reduce_scatter"))
			continue;
		const char *host = NULL;
		int hosts = 0, ndev = 0;
		const cJSON *d;
		cJSON_ArrayForEach(d, json_get(run, "devices")) {
			const char *h = json_str(d, "host");
			ndev++;
			if (h && (!host || strcmp(h, host) != 0)) {
				hosts++; /* host changes: 1 when every device is on one host, >= 2 otherwise */
				host = h;
			}
		}
		char stmt[600];
		const char *id = NULL;
		int gpus = 0, k = min_nvlinks(rc->facts, &gpus);
		if (hosts == 1 && ndev >= 2 && k && v < 0.3 * k * 25) {
			id = "infer.busbw_under_nvlink";
			snprintf(stmt, sizeof stmt, "nccl-tests measured %.1f GB/s bus bandwidth at %.0f MiB on one host, while "
			         "every GPU pair of its topology has NVLink (NV%d at the narrowest: about %d GB/s per direction): "
			         "%.0f%% of it", v, size / (1024 * 1024), k, k * 25, 100 * v / (k * 25));
		} else if (hosts >= 2) {
			double gbps = 0;
			const cJSON *p;
			cJSON_ArrayForEach(p, json_get(json_get(rc->facts, "ib"), "ports")) {
				const char *st = json_str(p, "state");
				double r = 0;
				if (st && strncmp(st, "Active", 6) == 0 && json_num(p, "rate_gbps", &r))
					gbps += r;
			}
			if (gbps > 0 && v < 0.3 * gbps / 8) {
				id = "infer.busbw_under_nic";
				snprintf(stmt, sizeof stmt, "nccl-tests measured %.1f GB/s bus bandwidth at %.0f MiB across %d hosts, "
				         "while a host's Active RDMA ports carry %.0f Gb/s (about %.0f GB/s): %.0f%% of it", v,
				         size / (1024 * 1024), hosts, gbps, gbps / 8, 100 * v / (gbps / 8));
			}
		}
		if (!id)
			continue;
		char vs[32];
		snprintf(vs, sizeof vs, "%.1f", v);
		struct capture c[2] = {{"measured", vs}, {"what", stmt}};
		double line = 0;
		json_num(json_get(mb, "source") ? json_get(mb, "source") : json_get(run, "source"), "line", &line);
		const char *path = json_str(json_get(run, "source"), "path");
		rule_emit(rc, id, path ? path : rc->name, line > 0 ? (uint64_t)line : 0, stmt, c, 2);
		return;
	}
}

/* One interface name exported to hosts whose interfaces differ: with
 * NCCL_SOCKET_IFNAME set, some host's NCCL found an interface for its
 * bootstrap (facts.nodes.<host>.bootstrap) while another host's found none
 * (socket.no_interface_found).  The variable is right on the first and
 * wrong on the second. */
static void rule_ifname_hosts(struct rule_ctx *rc)
{
	const char *v = env_val(rc->facts, "NCCL_SOCKET_IFNAME");
	if (!v || !*v)
		return;
	const struct evidence *none = NULL;
	long nslot = evlist_slot(rc->ev, SIG_SOCKET_NO_INTERFACE_FOUND);
	for (size_t i = 0; i < rc->ev->n && !none; i++)
		if (rule_ev_is(rc->ev, &rc->ev->v[i], nslot, SIG_SOCKET_NO_INTERFACE_FOUND) && rc->ev->v[i].host)
			none = &rc->ev->v[i];
	if (!none)
		return;
	const cJSON *nodes = json_get(rc->facts, "nodes"), *n;
	const char *okhost = NULL, *okif = NULL;
	cJSON_ArrayForEach(n, nodes) {
		const char *b = json_str(json_get(n, "bootstrap"), "value");
		if (b && n->string && strcmp(n->string, none->host) != 0) {
			okhost = n->string;
			okif = b;
			break;
		}
	}
	if (!okhost)
		return;
	struct capture c[4] = {{"ifname", (char *)v}, {"host_ok", (char *)okhost}, {"iface_ok", (char *)okif},
	                       {"host_none", none->host}};
	char *stmt = xasprintf("NCCL_SOCKET_IFNAME=%s: on %s NCCL found %s, on %s it found no socket interface", v, okhost,
	                       okif, none->host);
	char *path = xstrdup(none->path), *host = xstrdup(none->host);
	uint64_t line = none->line;
	struct evidence *e = rule_emit(rc, "infer.ifname_one_host_only", path, line, stmt, c, 4);
	if (e && !e->host)
		e->host = evlist_keep(rc->ev, host);
	free(host);
	free(path);
	free(stmt);
}

/* Measured peer-to-peer bandwidth against the copy through the host
 * (facts.p2p_bandwidth, cuda-samples' p2pBandwidthLatencyTest): P2P is the
 * faster path whenever it works (PCIe P2P at least matches the staged
 * copy, NVLink far exceeds it); P2P writes at under half the staged rate
 * mean the peer path is broken (ACS or the IOMMU sending the writes through
 * the root complex, a board without working P2P), which is also what hangs
 * or slows NCCL's P2P transport. */
static void rule_p2p_bandwidth(struct rule_ctx *rc)
{
	static const char *const kinds[][3] = {{"unidirectional", "unidirectional_disabled", "unidirectional_enabled"},
	                                       {"bidirectional", "bidirectional_disabled", "bidirectional_enabled"}};
	const cJSON *bw = json_get(rc->facts, "p2p_bandwidth");
	for (size_t k = 0; bw && k < 2; k++) {
		const cJSON *off = json_get(json_get(bw, kinds[k][1]), "rows"), *on = json_get(json_get(bw, kinds[k][2]), "rows");
		int n = cJSON_GetArraySize(off);
		if (n < 2 || n != cJSON_GetArraySize(on))
			continue;
		int bi = -1, bj = -1;
		double best = 1, von = 0, voff = 0;
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++) {
				const cJSON *a = cJSON_GetArrayItem(cJSON_GetArrayItem(off, i), j);
				const cJSON *b = cJSON_GetArrayItem(cJSON_GetArrayItem(on, i), j);
				if (i == j || !cJSON_IsNumber(a) || !cJSON_IsNumber(b) || a->valuedouble <= 0)
					continue;
				double r = b->valuedouble / a->valuedouble;
				if (r < best) {
					best = r;
					bi = i, bj = j;
					von = b->valuedouble, voff = a->valuedouble;
				}
			}
		if (bi < 0 || best >= 0.5)
			continue;
		char pair[32], what[200];
		snprintf(pair, sizeof pair, "%d -> %d", bi, bj);
		snprintf(what, sizeof what, "%s P2P writes %.2f GB/s against %.2f GB/s with P2P disabled (%.0f%%)", kinds[k][0],
		         von, voff, 100 * best);
		struct capture c[2] = {{"pair", pair}, {"measured", what}};
		char *stmt = xasprintf("p2pBandwidthLatencyTest: between GPU %s, %s: peer-to-peer is slower than the copy "
		                       "through the host", pair, what);
		const cJSON *src = json_get(json_get(bw, kinds[k][2]), "source");
		double line = 0;
		json_num(src, "line", &line);
		const char *path = json_str(src, "path");
		rule_emit(rc, "infer.p2p_slower_than_copy", path ? path : rc->name, line > 0 ? (uint64_t)line : 0, stmt, c, 2);
		free(stmt);
		return;
	}
}

/* A rank stuck in init (ranks.stuck_in_init) after NCCL chose a bridge or
 * link-local address for its sockets (socket.bridge_interface_chosen), in a
 * bundle that does not show every rank on one host (rule_init_stall found
 * nothing): peers on other hosts cannot reach that address.  Runs after
 * rule_init_stall and after the rank rules (rules.c's order). */
static void rule_init_hang_on_bridge(struct rule_ctx *rc)
{
	const struct evlist *ev = rc->ev;
	if (!evlist_has(ev, "ranks.stuck_in_init") || !evlist_has(ev, "socket.bridge_interface_chosen") ||
	    evlist_has(ev, "infer.init_stall_pcie") || evlist_has(ev, "infer.init_stall_one_host"))
		return; /* every rank on one host (init_stall): the interface is harmless there */
	const struct evidence *stuck = NULL, *bridge = NULL;
	long sslot = evlist_slot(ev, "ranks.stuck_in_init"), bslot = evlist_slot(ev, "socket.bridge_interface_chosen");
	for (size_t i = 0; i < ev->n && !(stuck && bridge); i++) {
		const struct evidence *e = &ev->v[i];
		if (!stuck && rule_ev_is(ev, e, sslot, "ranks.stuck_in_init"))
			stuck = e;
		else if (!bridge && rule_ev_is(ev, e, bslot, "socket.bridge_interface_chosen"))
			bridge = e;
	}
	if (!stuck || !bridge)
		return;
	const char *ifname = evidence_cap(bridge, "ifname"), *addr = evidence_cap(bridge, "addr");
	struct capture c[2] = {{"ifname", (char *)(ifname ? ifname : "")}, {"addr", (char *)(addr ? addr : "")}};
	char *stmt = xasprintf("a rank reached Init START and never Init COMPLETE (%s:%llu) after NCCL chose %s (%s) for its "
	                       "sockets (%s:%llu); the bundle does not show every rank on one host",
	                       stuck->path ? stuck->path : rc->name, (unsigned long long)stuck->line, c[0].value, c[1].value,
	                       bridge->path ? bridge->path : rc->name, (unsigned long long)bridge->line);
	char *path = xstrdup(bridge->path ? bridge->path : rc->name); /* rule_emit may move the evidence array */
	uint64_t line = bridge->line;
	rule_emit(rc, "infer.init_hang_on_bridge", path, line, stmt, c, 2);
	free(path);
	free(stmt);
}

static void run(struct rule_ctx *rc)
{
	rule_init_stall(rc);
	rule_init_hang_on_bridge(rc);
	rule_graph_file(rc);
	rule_transport(rc);
	rule_store_lost(rc);
	rule_timeout_missing(rc);
	rule_init_invalid_usage(rc);
	rule_bandwidth(rc);
	rule_ifname_hosts(rc);
	rule_p2p_bandwidth(rc);
}

const struct rule_provider RULES_INFER = {
	"infer", DEFS, sizeof DEFS / sizeof DEFS[0], run,
};
