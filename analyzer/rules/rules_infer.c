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
	{"infer.graph_file_set", "NCCL_GRAPH_FILE is set: NCCL's channel graph comes from a file made for one machine"},
	{"infer.transport_shm", "NCCL used shared memory between GPUs that NVLink links, and why"},
	{"infer.transport_socket", "NCCL used TCP sockets between hosts that have InfiniBand/RoCE, and why"},
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
	const cJSON *run;
	cJSON_ArrayForEach(run, json_get(json_get(rc->facts, "nccl_tests"), "runs")) {
		double dc = 0;
		if (json_num(run, "device_count", &dc) && dc > gpus)
			gpus = (int)dc;
	}
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
		e->host = xstrdup(host);
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
		e->host = xstrdup(p->host);
	free(stmt);
}

static void run(struct rule_ctx *rc)
{
	rule_init_stall(rc);
	rule_graph_file(rc);
	rule_transport(rc);
}

const struct rule_provider RULES_INFER = {
	"infer", DEFS, sizeof DEFS / sizeof DEFS[0], run,
};
