/* test_sys_rules.c - the fact rules of sys_eval.c over facts parsed from the
 * real fixtures: which rule ids fire, what they cite, the numbers they
 * carry ({recommend}, {arith}), and that healthy reports stay quiet. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/detect.h"
#include "rules/sys_eval.h"
#include "parse/sysparse.h"
#include "parse/sysreport.h"
#include "testlib.h"

struct got {
	char ids[64][64];
	char text[64][1024];
	char path[64][256];
	uint64_t line[64];
	char caps[64][512];
	int n;
};

static void collect(void *ctx, const char *id, const char *path, uint64_t line, const char *st,
                    const struct capture *caps, size_t ncaps)
{
	struct got *g = ctx;
	if (g->n >= 64)
		return;
	snprintf(g->ids[g->n], 64, "%s", id);
	snprintf(g->text[g->n], 1024, "%s", st);
	snprintf(g->path[g->n], 256, "%s", path);
	g->line[g->n] = line;
	g->caps[g->n][0] = 0;
	for (size_t i = 0; i < ncaps; i++) {
		size_t l = strlen(g->caps[g->n]);
		snprintf(g->caps[g->n] + l, 512 - l, "{%s=%s}", caps[i].name, caps[i].value);
	}
	g->n++;
}

static int find(const struct got *g, const char *id)
{
	for (int i = 0; i < g->n; i++)
		if (!strcmp(g->ids[i], id))
			return i;
	return -1;
}

static void load(cJSON *f, const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		fprintf(stderr, "cannot open %s\n", path);
		return;
	}
	struct buf b;
	buf_init(&b);
	char tmp[8192];
	size_t n;
	while ((n = fread(tmp, 1, sizeof tmp, fp)) > 0)
		buf_add(&b, tmp, n);
	fclose(fp);
	struct msgs m = {0};
	int k = detect_sysreport(b.data ? b.data : "", b.len);
	if (k >= 0)
		sysreport_parse((enum doc_kind)k, b.data, b.len, path, f, &m);
	else
		sysreport_scan_text(b.data ? b.data : "", b.len, path, f, &m);
	msgs_free(&m);
	buf_free(&b);
}

static void add_gpu(cJSON *f, int idx, const char *name)
{
	cJSON *g = sys_gpu(f, idx, 1);
	sys_set_str(g, "name", name);
	sys_put_source(g, "nvidia-smi.txt", 9 + 4 * idx);
}

static void test_healthy_h200(void)
{
	cJSON *f = cJSON_CreateObject();
	const char *files[] = {"topo-m.txt", "topo-p2p-r.txt", "topo-p2p-p.txt", "nvidia-smi.txt", "nvidia-smi-q.txt",
	                       "nvcc-version.txt", "collect_env.txt", "pip-list.txt", "torch-version.txt", NULL};
	for (int i = 0; files[i]; i++) {
		char p[256];
		snprintf(p, sizeof p, "fixtures/sys/h200-2gpu/%s", files[i]);
		load(f, p);
	}
	struct got g = {0};
	sys_rules_eval(f, NULL, collect, &g);
	for (int i = 0; i < g.n; i++)
		fprintf(stderr, "unexpected: %s %s\n", g.ids[i], g.text[i]);
	CHECK_INT(g.n, 0); /* NV18, PCIe NS on an NVLink pair, matching versions: nothing to say */
	/* the derived group: both GPUs */
	const cJSON *grp = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(f, "topology"), "groups"), 0);
	CHECK_INT(cJSON_GetArraySize(grp), 2);
	cJSON_Delete(f);
}

static void test_pcie_topologies(void)
{
	cJSON *f = cJSON_CreateObject();
	load(f, "fixtures/sys/public/topo-m-5gpu-spaces-sys-phb-node.txt");
	struct got g = {0};
	sys_rules_eval(f, NULL, collect, &g);
	int i = find(&g, "topo.p2p_through_cpu");
	CHECK(i >= 0);
	if (i >= 0) {
		CHECK(strstr(g.text[i], "10 of 10 GPU pairs") != NULL);
		CHECK(strstr(g.text[i], "GPU0-GPU1 SYS") != NULL);
		CHECK(strstr(g.caps[i], "NCCL_P2P_DISABLE=1") != NULL);
		CHECK_STR(g.path[i], "fixtures/sys/public/topo-m-5gpu-spaces-sys-phb-node.txt");
		CHECK_INT(g.line[i], 2);
	}
	cJSON_Delete(f);

	/* 2 x RTX 5090: PHB, P2P matrix GNS, GeForce names */
	f = cJSON_CreateObject();
	load(f, "fixtures/sys/public/topo-m-2x5090-phb.txt");
	load(f, "fixtures/sys/public/topo-p2p-2x5090-gns.txt");
	add_gpu(f, 0, "NVIDIA GeForce RTX 5090");
	add_gpu(f, 1, "NVIDIA GeForce RTX 5090");
	memset(&g, 0, sizeof g);
	sys_rules_eval(f, NULL, collect, &g);
	CHECK(find(&g, "topo.p2p_through_cpu") >= 0);
	i = find(&g, "topo.p2p_matrix_not_supported");
	CHECK(i >= 0);
	if (i >= 0)
		CHECK(strstr(g.text[i], "GPU0-GPU1 GNS") && strstr(g.text[i], "GPU not supported"));
	CHECK(find(&g, "topo.consumer_gpu_p2p") >= 0);
	CHECK(find(&g, "topo.hang_after_p2p_setup") < 0);
	/* ... and a log whose last line is a P2P channel: the hang is tied to it */
	struct sys_logctx lc = {0};
	lc.p2p_last_text = "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM";
	lc.p2p_path = "rank0.log";
	lc.p2p_line = 88;
	lc.p2p_ranks = 2;
	memset(&g, 0, sizeof g);
	sys_rules_eval(f, &lc, collect, &g);
	i = find(&g, "topo.hang_after_p2p_setup");
	CHECK(i >= 0);
	if (i >= 0) {
		CHECK_STR(g.path[i], "rank0.log");
		CHECK_INT(g.line[i], 88);
	}
	/* with P2P disabled in the environment, the consumer rule is quiet */
	sys_env_set(f, "NCCL_P2P_DISABLE", "1", "env.txt", 1, "env_dump");
	memset(&g, 0, sizeof g);
	sys_rules_eval(f, NULL, collect, &g);
	CHECK(find(&g, "topo.consumer_gpu_p2p") < 0);
	cJSON_Delete(f);

	/* 8 x H100 on NVLink with NICs behind PIX/NODE/SYS: GPU pairs are fine */
	f = cJSON_CreateObject();
	load(f, "fixtures/sys/public/topo-m-8xh100-nics-truncated.txt");
	memset(&g, 0, sizeof g);
	sys_rules_eval(f, NULL, collect, &g);
	CHECK(find(&g, "topo.p2p_through_cpu") < 0);
	cJSON_Delete(f);
}

static void test_versions(void)
{
	/* driver 470 (CUDA 11.4) with a cu121 PyTorch */
	cJSON *f = cJSON_CreateObject();
	load(f, "fixtures/sys/public/nvidia-smi-470-header-line.txt");
	load(f, "fixtures/sys/public/llamafactory-cli-env.txt");
	struct got g = {0};
	sys_rules_eval(f, NULL, collect, &g);
	int i = find(&g, "versions.driver_too_old_for_cuda");
	CHECK(i >= 0);
	if (i >= 0) {
		CHECK(strstr(g.text[i], "CUDA 12.1") && strstr(g.text[i], "11.4"));
		CHECK(strstr(g.caps[i], "530.30.02") != NULL); /* CUDA 12.1's minimum */
		CHECK(strstr(g.caps[i], "525.60.13") != NULL); /* 12.x minor-version compatibility */
		CHECK_STR(g.path[i], "fixtures/sys/public/llamafactory-cli-env.txt");
	}
	cJSON_Delete(f);

	/* ds_report: nvcc 12.0, torch cu121 -> context only */
	f = cJSON_CreateObject();
	load(f, "fixtures/sys/public/ds_report-env.txt");
	memset(&g, 0, sizeof g);
	sys_rules_eval(f, NULL, collect, &g);
	i = find(&g, "versions.nvcc_differs_from_torch");
	CHECK(i >= 0);
	if (i >= 0)
		CHECK(strstr(g.text[i], "only when compiling") != NULL);
	CHECK(find(&g, "versions.driver_too_old_for_cuda") < 0);
	cJSON_Delete(f);

	/* RTX 5090 (sm_120) with a cu121 PyTorch */
	f = cJSON_CreateObject();
	load(f, "fixtures/sys/public/llamafactory-cli-env.txt");
	cJSON_DeleteItemFromObjectCaseSensitive(f, "gpus");
	add_gpu(f, 0, "NVIDIA GeForce RTX 5090");
	memset(&g, 0, sizeof g);
	sys_rules_eval(f, NULL, collect, &g);
	i = find(&g, "versions.arch_not_in_build");
	CHECK(i >= 0);
	if (i >= 0)
		CHECK(strstr(g.caps[i], "sm_120") && strstr(g.text[i], "12.8"));
	cJSON_Delete(f);

	/* NCCL 2.25.1 and an RTX 5090: the 2.25 shared-memory defect; 2.26.2 or no version: nothing */
	const char *nvs[] = {"2.25.1", "2.26.2", NULL};
	for (int k = 0; k < 3; k++) {
		f = cJSON_CreateObject();
		add_gpu(f, 0, "NVIDIA GeForce RTX 5090");
		if (nvs[k])
			cJSON_AddItemToObject(f, "nccl_versions", cJSON_CreateStringArray(&nvs[k], 1));
		memset(&g, 0, sizeof g);
		sys_rules_eval(f, NULL, collect, &g);
		i = find(&g, "versions.nccl_2_25_on_sm120");
		CHECK(k == 0 ? i >= 0 : i < 0);
		if (i >= 0)
			CHECK(strstr(g.caps[i], "2.25.1") && strstr(g.text[i], "RTX 5090") && strstr(g.path[i], "nvidia-smi.txt"));
		cJSON_Delete(f);
	}

	/* two NCCL wheels and two CUDA majors side by side (pip freeze lines as pip prints them) */
	f = cJSON_CreateObject();
	const char *pf = "nvidia-nccl-cu11==2.14.3\nnvidia-nccl-cu12==2.18.1\ntorch==2.1.0\nnvidia-cublas-cu12==12.1.3.1\n"
	                 "nvidia-cuda-runtime-cu11==11.7.99\n";
	struct msgs m = {0};
	sysreport_parse(DOC_PIP_LIST, pf, strlen(pf), "pip-freeze.txt", f, &m);
	msgs_free(&m);
	memset(&g, 0, sizeof g);
	sys_rules_eval(f, NULL, collect, &g);
	CHECK(find(&g, "versions.multiple_nccl") >= 0);
	i = find(&g, "versions.mixed_cuda_wheels");
	CHECK(i >= 0);
	if (i >= 0)
		CHECK(strstr(g.text[i], "CUDA 11") && strstr(g.text[i], "CUDA 12"));
	cJSON_Delete(f);
}

static void test_memory(void)
{
	cJSON *f = cJSON_CreateObject();
	load(f, "fixtures/sys/h200-2gpu/memtrace-oom_unshard.csv");
	struct got g = {0};
	sys_rules_eval(f, NULL, collect, &g);
	CHECK(find(&g, "memory.near_capacity") >= 0);
	CHECK(find(&g, "memory.oom_at_capacity") < 0);
	/* with the failure in the log: the arithmetic and both citations */
	struct sys_logctx lc = {0};
	lc.oom_in_log = 1;
	lc.oom_text = "NCCL error: unhandled cuda error";
	lc.oom_path = "run.log";
	lc.oom_line = 102;
	memset(&g, 0, sizeof g);
	sys_rules_eval(f, &lc, collect, &g);
	int i = find(&g, "memory.oom_at_capacity");
	CHECK(i >= 0);
	if (i >= 0) {
		CHECK(strstr(g.caps[i], "peak 142611 MiB of 143771 MiB = 99.2% (headroom 1160 MiB)") != NULL);
		CHECK(strstr(g.text[i], "run.log:102") != NULL);
		CHECK_INT(g.line[i], 104);
	}
	/* the OOM message's own arithmetic */
	const char *line = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total "
	                   "capacity of 139.80 GiB of which 545.06 MiB is free. Including non-PyTorch memory, this process "
	                   "has 139.26 GiB memory in use.";
	sysreport_torch_oom(line, strlen(line), f, "run.log", 102);
	memset(&g, 0, sizeof g);
	sys_rules_eval(f, NULL, collect, &g);
	i = find(&g, "memory.oom_event");
	CHECK(i >= 0);
	if (i >= 0)
		CHECK(strstr(g.caps[i], "139.26 GiB in use by the process + 4.00 GiB requested = 143.26 GiB > 139.80 GiB capacity") != NULL);
	CHECK(find(&g, "memory.other_process_holds_memory") < 0); /* 7.9 MiB elsewhere is rounding, not a process */
	cJSON_Delete(f);

	/* each GPU at capacity quotes its own rank's OOM line (the demo ticket's
	 * torchrun.log:102 and :107), not the first of the log */
	f = cJSON_CreateObject();
	load(f, "fixtures/sys/h200-2gpu/memtrace-oom_unshard.csv");
	const char *l0 = "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a "
	                 "total capacity of 139.80 GiB of which 545.06 MiB is free.";
	const char *l1 = "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 1 has a "
	                 "total capacity of 139.80 GiB of which 545.06 MiB is free.";
	sysreport_torch_oom(l0, strlen(l0), f, "torchrun.log", 102);
	sysreport_torch_oom(l1, strlen(l1), f, "torchrun.log", 107);
	memset(&lc, 0, sizeof lc);
	lc.oom_in_log = 1;
	lc.oom_text = l0;
	lc.oom_path = "torchrun.log";
	lc.oom_line = 102;
	lc.ooms[0] = (struct sys_oom_line){l0, "torchrun.log", 102};
	lc.ooms[1] = (struct sys_oom_line){l1, "torchrun.log", 107};
	lc.nooms = 2;
	memset(&g, 0, sizeof g);
	sys_rules_eval(f, &lc, collect, &g);
	int seen = 0;
	for (int k = 0; k < g.n; k++) {
		if (strcmp(g.ids[k], "memory.oom_at_capacity"))
			continue;
		int gpu1 = strstr(g.text[k], "GPU 1 reached") != NULL;
		CHECK(strstr(g.text[k], gpu1 ? "\"[rank1]: " : "\"[rank0]: ") != NULL);
		CHECK(strstr(g.text[k], gpu1 ? "torchrun.log:107" : "torchrun.log:102") != NULL);
		CHECK(strstr(g.text[k], gpu1 ? "GPU 0 has" : "GPU 1 has") == NULL);
		seen |= 1 << gpu1;
	}
	CHECK_INT(seen, 3);
	cJSON_Delete(f);

	/* the nvidia-smi -l capture: another process on both GPUs */
	f = cJSON_CreateObject();
	load(f, "fixtures/sys/h200-2gpu/nvidia-smi-l1.txt");
	memset(&g, 0, sizeof g);
	sys_rules_eval(f, NULL, collect, &g);
	i = find(&g, "memory.other_process_holds_memory");
	CHECK(i >= 0);
	cJSON_Delete(f);
}

static void test_ecc_env(void)
{
	cJSON *f = cJSON_CreateObject();
	cJSON *gpu = sys_gpu(f, 3, 1);
	sys_set_str(gpu, "bus_id", "0000:3b:00.0");
	cJSON *e = sys_obj(gpu, "ecc");
	cJSON *v = cJSON_CreateObject();
	cJSON_AddNumberToObject(v, "value", 2);
	cJSON_AddItemToObject(v, "source", sys_source("nvidia-smi-q.txt", 152));
	cJSON_AddItemToObject(e, "volatile_uncorrectable", v);
	struct got g = {0};
	sys_rules_eval(f, NULL, collect, &g);
	int i = find(&g, "ecc.uncorrectable");
	CHECK(i >= 0);
	if (i >= 0)
		CHECK_INT(g.line[i], 152);
	cJSON_Delete(f);
	CHECK_INT(sys_gpu_sm("NVIDIA A100-SXM4-80GB"), 80);
	CHECK_INT(sys_gpu_sm("NVIDIA A10"), 86);
	CHECK_INT(sys_gpu_sm("NVIDIA L40S"), 89);
	CHECK_INT(sys_gpu_sm("NVIDIA GeForce RTX 5090 D"), 120);
	CHECK(sys_gpu_consumer_nop2p("NVIDIA GeForce RTX 4090"));
	CHECK(!sys_gpu_consumer_nop2p("NVIDIA GeForce RTX 3090"));
	CHECK(!sys_gpu_consumer_nop2p("NVIDIA RTX 6000 Ada Generation"));
}

/* fabric.gpu_not_registered and nvlink.links_inactive: the real fixtures, and
 * the states the rule must stay quiet on */
static void test_fabric_nvlink_rules(void)
{
	struct got g = {0};
	cJSON *f = cJSON_CreateObject();
	load(f, "fixtures/sys/h200-2gpu/nvidia-smi-q.txt");
	load(f, "fixtures/captures/h200-2gpu/sys/nvlink-s.txt");
	sys_rules_eval(f, NULL, collect, &g);
	CHECK(find(&g, "fabric.gpu_not_registered") < 0); /* Completed / Success */
	CHECK(find(&g, "nvlink.links_inactive") < 0);
	cJSON_Delete(f);
	f = cJSON_CreateObject();
	load(f, "fixtures/sys/public/nvidia-smi-q-fabric-in-progress-gpuop-2511-truncated.txt");
	memset(&g, 0, sizeof g);
	sys_rules_eval(f, NULL, collect, &g);
	int i = find(&g, "fabric.gpu_not_registered");
	CHECK(i >= 0);
	if (i >= 0) {
		CHECK_INT(g.line[i], 2);
		CHECK(strstr(g.text[i], "'In Progress'") != NULL);
		CHECK(strstr(g.caps[i], "{status=N/A}") != NULL);
	}
	cJSON_Delete(f);
	/* per GPU: Not Supported and N/A are quiet, Completed with an error status is not */
	static const struct { const char *state, *status; int fires; } C[] = {
		{"Not Supported", "N/A", 0}, {"N/A", "N/A", 0}, {"Completed", "Success", 0}, {"Completed", "N/A", 0},
		{"Not Started", "N/A", 1}, {"In Progress", "N/A", 1}, {"Completed", "Insufficient Resources", 1}};
	for (size_t k = 0; k < sizeof C / sizeof C[0]; k++) {
		f = cJSON_CreateObject();
		cJSON *gpu = sys_gpu(f, 2, 1);
		sys_set_str(gpu, "bus_id", "0000:3b:00.0");
		cJSON *fb = sys_obj(gpu, "fabric");
		sys_set_str(fb, "state", C[k].state);
		sys_set_str(fb, "status", C[k].status);
		sys_put_source(fb, "q.txt", 240);
		memset(&g, 0, sizeof g);
		sys_rules_eval(f, NULL, collect, &g);
		i = find(&g, "fabric.gpu_not_registered");
		CHECK_INT(i >= 0, C[k].fires);
		if (i >= 0)
			CHECK(strstr(g.text[i], "GPU 2 (0000:3b:00.0)") != NULL);
		cJSON_Delete(f);
	}
	/* nvlink -s with two inactive links on GPU 0 */
	f = cJSON_CreateObject();
	cJSON *gpu = sys_gpu(f, 0, 1);
	cJSON *nv = sys_obj(gpu, "nvlink");
	sys_set_num(nv, "links", 18);
	sys_set_num(nv, "inactive", 2);
	sys_set_str(nv, "inactive_links", "3,5");
	sys_put_source(nv, "nvlink-s.txt", 5);
	memset(&g, 0, sizeof g);
	sys_rules_eval(f, NULL, collect, &g);
	i = find(&g, "nvlink.links_inactive");
	CHECK(i >= 0);
	if (i >= 0) {
		CHECK(strstr(g.text[i], "2 of its 18 NVLinks inactive (link 3,5)") != NULL);
		CHECK_INT(g.line[i], 5);
	}
	cJSON_Delete(f);
}

int main(void)
{
	test_fabric_nvlink_rules();
	test_healthy_h200();
	test_pcie_topologies();
	test_versions();
	test_memory();
	test_ecc_env();
	TEST_MAIN_END();
}
