/* test_sys_parse.c - system-report parsers on the real fixtures under
 * fixtures/sys/ (captures from the 2 x H200 host and pastes from public
 * issue threads): detection, GPU counts, link types, NICs, affinity, P2P
 * statuses, versions, memory peaks, OOM numbers, env, bad input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/detect.h"
#include "parse/sysparse.h"
#include "parse/sysreport.h"
#include "testlib.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		*len = 0;
		return xstrdup("");
	}
	struct buf b;
	buf_init(&b);
	char tmp[8192];
	size_t n;
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
		buf_add(&b, tmp, n);
	fclose(f);
	*len = b.len;
	return b.len ? buf_steal(&b) : (buf_free(&b), xstrdup(""));
}

/* parse one fixture with the kind detect_sysreport gives */
static int load(cJSON *facts, struct msgs *m, const char *path, int want_kind)
{
	size_t len;
	char *t = slurp(path, &len);
	int k = detect_sysreport(t, len);
	if (want_kind >= 0)
		CHECK_INT(k, want_kind);
	int n = k >= 0 ? sysreport_parse((enum doc_kind)k, t, len, path, facts, m) : 0;
	free(t);
	return n;
}

static const cJSON *get(const cJSON *o, const char *dotted)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", dotted);
	char *save = NULL;
	for (char *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save)) {
		if (cJSON_IsArray(o))
			o = cJSON_GetArrayItem(o, atoi(k));
		else
			o = cJSON_GetObjectItemCaseSensitive(o, k);
	}
	return o;
}

static const char *gs(const cJSON *o, const char *dotted)
{
	const cJSON *x = get(o, dotted);
	return cJSON_IsString(x) ? x->valuestring : NULL;
}

static double gn(const cJSON *o, const char *dotted)
{
	const cJSON *x = get(o, dotted);
	return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

static const char *link_type(const cJSON *facts, int a, int b)
{
	const cJSON *l;
	cJSON_ArrayForEach(l, get(facts, "topology.links")) {
		if ((int)gn(l, "a") == a && (int)gn(l, "b") == b)
			return gs(l, "type");
	}
	return NULL;
}

static void test_h200(void)
{
	cJSON *f = cJSON_CreateObject();
	struct msgs m = {0};
	const char *d = "fixtures/sys/h200-2gpu/";
	char p[256];
#define L(name, kind) (snprintf(p, sizeof p, "%s%s", d, name), load(f, &m, p, kind))
	CHECK(L("topo-m.txt", DOC_TOPO_MATRIX) > 0);
	CHECK(L("topo-p2p-r.txt", DOC_TOPO_P2P) > 0);
	CHECK(L("topo-p2p-p.txt", DOC_TOPO_P2P) > 0);
	CHECK(L("nvidia-smi.txt", DOC_NVSMI) > 0);
	CHECK(L("nvidia-smi-L.txt", DOC_NVSMI_L) > 0);
	CHECK(L("nvidia-smi-q.txt", DOC_NVSMI_Q) > 0);
	CHECK(L("nvcc-version.txt", DOC_NVCC) > 0);
	CHECK(L("collect_env.txt", DOC_COLLECT_ENV) > 0);
	CHECK(L("pip-list.txt", DOC_PIP_LIST) > 0);
	CHECK(L("pip-freeze.txt", DOC_PIP_LIST) > 0);
	CHECK(L("proc-driver-version.txt", DOC_DRIVER_VERSION) > 0);
	CHECK(L("torch-version.txt", DOC_COLLECT_ENV) > 0);
	CHECK(L("nccl-topo.xml", DOC_TOPO_XML) > 0);
	CHECK(L("memtrace-oom_unshard.csv", DOC_MEM_CSV) > 0);
	CHECK(L("nvidia-smi-l1.txt", DOC_NVSMI) > 0);
#undef L
	CHECK_INT(gn(f, "topology.gpu_count"), 2);
	CHECK_STR(link_type(f, 0, 1), "NV18");
	CHECK_STR(gs(f, "topology.links.0.class"), "nvlink");
	CHECK_STR(gs(f, "topology.links.0.source.path"), "fixtures/sys/h200-2gpu/topo-m.txt");
	CHECK_INT(gn(f, "topology.links.0.source.line"), 2);
	CHECK_STR(gs(f, "topology.affinity.1.cpu"), "0-31");
	CHECK_STR(gs(f, "topology.affinity.1.gpu_numa_id"), "N/A");
	CHECK_STR(gs(f, "topology.legend"), "current");
	CHECK_STR(gs(f, "topology.p2p.read.cap_from"), "document name");
	CHECK_INT(gn(f, "topology.p2p.read.not_ok"), 0);
	CHECK_INT(gn(f, "topology.p2p.pcie.not_ok"), 2);
	CHECK_STR(gs(f, "topology.p2p.pcie.pairs.0.status"), "NS");
	CHECK_STR(gs(f, "versions.driver.value"), "580.159.04");
	CHECK_STR(gs(f, "versions.cuda.value"), "13.0");
	CHECK_STR(gs(f, "versions.nvcc.value"), "13.0.88");
	CHECK_STR(gs(f, "versions.torch.value"), "2.11.0+cu130");
	CHECK_STR(gs(f, "versions.torch_cuda.value"), "13.0");
	CHECK_STR(gs(f, "versions.nccl_pip.value"), "2.28.9");
	CHECK_STR(gs(f, "versions.nccl_torch.value"), "2.28.9");
	CHECK_STR(gs(f, "versions.python.value"), "3.12.3");
	CHECK_STR(gs(f, "versions.cuda_runtime.value"), "13.0.96");
	CHECK_STR(gs(f, "versions.packages.nvidia-nccl-cu13.version"), "2.28.9");
	CHECK(get(f, "versions.conflicts") == NULL); /* every report agrees */
	CHECK_INT(cJSON_GetArraySize(get(f, "gpus")), 2);
	CHECK_STR(gs(f, "gpus.0.name"), "NVIDIA H200");
	CHECK_STR(gs(f, "gpus.1.bus_id"), "0000:00:07.0");
	CHECK_INT(gn(f, "gpus.0.memory_total_mib"), 143771);
	CHECK_STR(gs(f, "gpus.0.uuid"), "GPU-0cbaf63b-5102-0ac0-54f4-22b3052a0958");
	CHECK_STR(gs(f, "gpus.0.persistence"), "on");
	CHECK_INT(gn(f, "gpus.0.sm"), 90);
	CHECK_INT(gn(f, "gpus.0.ecc.volatile_uncorrectable.value"), 0);
	CHECK_INT(gn(f, "gpus.1.ecc.remapped_rows_uncorrectable.source.line"), 425);
	CHECK_STR(gs(f, "topology.xml.nets.0.name"), "eth0");
	/* memory: the CSV trace of the OOM run and the nvidia-smi -l dashboards */
	const cJSON *s;
	int csv = 0, dash = 0;
	cJSON_ArrayForEach(s, get(f, "memory.series")) {
		const char *path = gs(s, "path");
		if (strstr(path, "memtrace") && gn(s, "gpu") == 0) {
			csv++;
			CHECK_INT(gn(s, "peak_mib"), 142611);
			CHECK_INT(gn(s, "total_mib"), 143771);
			CHECK_INT(gn(s, "headroom_mib"), 1160);
			CHECK_INT(gn(s, "sample_count"), 60);
			CHECK_INT(gn(s, "peak_source.line"), 104);
			CHECK_STR(gs(s, "peak_ts"), "2026/11/30 14:17:06.251");
		}
		if (strstr(path, "nvidia-smi-l1") && gn(s, "gpu") == 1) {
			dash++;
			CHECK_INT(gn(s, "peak_mib"), 141109);
			CHECK_INT(gn(s, "sample_count"), 5);
		}
	}
	CHECK_INT(csv, 1);
	CHECK_INT(dash, 1);
	/* the process table: truncated values stay text */
	int truncated = 0;
	cJSON_ArrayForEach(s, get(f, "memory.processes")) {
		if (gn(s, "pid") == 4158) {
			CHECK(get(s, "used_mib") == NULL);
			CHECK(gs(s, "used_text") && strstr(gs(s, "used_text"), "..."));
			truncated++;
		}
		if (gn(s, "pid") == 2648)
			CHECK_INT(gn(s, "used_mib"), 710);
	}
	CHECK_INT(truncated, 2);
	msgs_free(&m);
	cJSON_Delete(f);
}

static void test_public_topologies(void)
{
	struct msgs m = {0};
	cJSON *f = cJSON_CreateObject();
	load(f, &m, "fixtures/sys/public/topo-m-5gpu-spaces-sys-phb-node.txt", DOC_TOPO_MATRIX);
	CHECK_INT(gn(f, "topology.gpu_count"), 5);
	CHECK_INT(cJSON_GetArraySize(get(f, "topology.links")), 10);
	CHECK_STR(link_type(f, 0, 1), "SYS");
	CHECK_STR(link_type(f, 1, 2), "PHB");
	CHECK_STR(link_type(f, 1, 3), "NODE");
	CHECK_STR(link_type(f, 3, 4), "PHB");
	CHECK_STR(gs(f, "topology.affinity.0.cpu"), "8-15,24-31");
	CHECK_STR(gs(f, "topology.affinity.0.numa"), "1");
	CHECK(get(f, "topology.skipped") == NULL);
	cJSON_Delete(f);

	f = cJSON_CreateObject();
	load(f, &m, "fixtures/sys/public/topo-m-8xh100-nics-truncated.txt", DOC_TOPO_MATRIX);
	CHECK_INT(gn(f, "topology.gpu_count"), 8);
	CHECK_INT(gn(f, "topology.nic_count"), 9);
	CHECK_INT(cJSON_GetArraySize(get(f, "topology.links")), 28);
	CHECK_STR(link_type(f, 6, 7), "NV18");
	CHECK_INT(cJSON_GetArraySize(get(f, "topology.nic_links")), 72);
	CHECK_STR(gs(f, "topology.nic_links.8.type"), "PIX"); /* GPU0-NIC8 */
	CHECK_STR(gs(f, "topology.affinity.4.cpu"), "80-159");
	cJSON_Delete(f);

	f = cJSON_CreateObject();
	load(f, &m, "fixtures/sys/public/topo-m-16gpu-mlx5-columns-truncated.txt", DOC_TOPO_MATRIX);
	CHECK_INT(gn(f, "topology.gpu_count"), 16);
	CHECK_INT(gn(f, "topology.nic_count"), 10);
	CHECK_STR(gs(f, "topology.nics.0.device"), "mlx5_0");
	CHECK_STR(link_type(f, 0, 15), "NV6");
	/* GPU4's row is cut inside the affinity column: its cells are whole, the value is kept as printed */
	CHECK_STR(link_type(f, 4, 5), "NV6");
	cJSON_Delete(f);

	f = cJSON_CreateObject();
	load(f, &m, "fixtures/sys/public/topo-m-2xl4-sys-nolegend.txt", DOC_TOPO_MATRIX);
	CHECK_STR(link_type(f, 0, 1), "SYS");
	CHECK_STR(gs(f, "topology.affinity.1.numa"), "2");
	CHECK_STR(gs(f, "topology.legend"), "absent");
	cJSON_Delete(f);

	f = cJSON_CreateObject();
	load(f, &m, "fixtures/sys/public/topo-m-and-p2p-p-5gpu-node-session.txt", -1);
	size_t len;
	char *t = slurp("fixtures/sys/public/topo-m-and-p2p-p-5gpu-node-session.txt", &len);
	CHECK(sysreport_scan_text(t, len, "session.txt", f, &m) > 0);
	free(t);
	CHECK_INT(gn(f, "topology.gpu_count"), 5);
	CHECK_STR(link_type(f, 3, 4), "PHB");
	CHECK_STR(gs(f, "topology.p2p.pcie.cap_from"), "command");
	CHECK_INT(gn(f, "topology.p2p.pcie.not_ok"), 0);
	cJSON_Delete(f);

	f = cJSON_CreateObject();
	load(f, &m, "fixtures/sys/public/topo-p2p-2x5090-gns.txt", DOC_TOPO_P2P);
	CHECK_STR(gs(f, "topology.p2p.unknown.pairs.0.status"), "GNS");
	CHECK_INT(gn(f, "topology.p2p.unknown.not_ok"), 2);
	cJSON_Delete(f);
	msgs_free(&m);
}

static void test_versions_public(void)
{
	struct msgs m = {0};
	cJSON *f = cJSON_CreateObject();
	load(f, &m, "fixtures/sys/public/nvcc-11.3.txt", DOC_NVCC);
	CHECK_STR(gs(f, "versions.nvcc.value"), "11.3.109");
	cJSON_Delete(f);

	f = cJSON_CreateObject();
	load(f, &m, "fixtures/sys/public/ds_report-env.txt", DOC_COLLECT_ENV);
	CHECK_STR(gs(f, "versions.torch.value"), "2.3.0+cu121");
	CHECK_STR(gs(f, "versions.torch_cuda.value"), "12.1");
	CHECK_STR(gs(f, "versions.nvcc.value"), "12.0");
	CHECK_STR(gs(f, "versions.packages.deepspeed.version"), "0.15.5");
	cJSON_Delete(f);

	f = cJSON_CreateObject();
	load(f, &m, "fixtures/sys/public/llamafactory-cli-env.txt", DOC_COLLECT_ENV);
	CHECK_STR(gs(f, "versions.torch.value"), "2.4.0+cu121");
	CHECK_STR(gs(f, "versions.python.value"), "3.12.7");
	CHECK_STR(gs(f, "versions.vllm.value"), "0.6.1");
	CHECK_STR(gs(f, "versions.packages.llamafactory.version"), "0.9.2.dev0");
	CHECK_STR(gs(f, "gpus.0.name"), "NVIDIA A100-PCIE-40GB");
	cJSON_Delete(f);

	f = cJSON_CreateObject();
	size_t len;
	char *t = slurp("fixtures/sys/public/nvidia-smi-470-header-line.txt", &len);
	sysreport_scan_text(t, len, "hdr.txt", f, &m);
	free(t);
	cJSON_Delete(f);
	msgs_free(&m);
}

static void test_oom_and_env(void)
{
	cJSON *f = cJSON_CreateObject();
	const char *line = "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a "
	                   "total capacity of 139.80 GiB of which 545.06 MiB is free. Including non-PyTorch memory, this "
	                   "process has 139.26 GiB memory in use. Of the allocated memory 138.29 GiB is allocated by "
	                   "PyTorch, and 16.00 MiB is reserved by PyTorch but unallocated.";
	CHECK_INT(sysreport_torch_oom(line, strlen(line), f, "run.log", 102), 1);
	CHECK_INT(gn(f, "memory.oom_events.0.tried_mib"), 4096);
	CHECK(fabs(gn(f, "memory.oom_events.0.capacity_mib") - 139.80 * 1024) < 0.01);
	CHECK(fabs(gn(f, "memory.oom_events.0.free_mib") - 545.06) < 0.001);
	CHECK(fabs(gn(f, "memory.oom_events.0.process_in_use_mib") - 139.26 * 1024) < 0.01);
	CHECK_INT(gn(f, "memory.oom_events.0.rank"), 0);
	CHECK_INT(gn(f, "memory.oom_events.0.source.line"), 102);
	CHECK(sysreport_torch_oom("no oom here", 11, f, "x", 1) == 0);
	/* 256 events kept; a line past them is not taken */
	for (int i = 1; i < 256; i++)
		CHECK(sysreport_torch_oom(line, strlen(line), f, "run.log", 102 + (uint64_t)i) == 1);
	CHECK(sysreport_torch_oom(line, strlen(line), f, "run.log", 400) == 0);
	CHECK_INT(cJSON_GetArraySize(get(f, "memory.oom_events")), 256);
	CHECK_INT(gn(f, "memory.oom_events.255.source.line"), 357);
	cJSON_Delete(f);

	f = cJSON_CreateObject();
	struct msgs m = {0};
	const char *env = "NCCL_P2P_DISABLE=1\nNCCL_IB_DISABLE=1\n";
	CHECK_INT(detect_sysreport(env, strlen(env)), DOC_ENV_DUMP);
	CHECK(sysreport_parse(DOC_ENV_DUMP, env, strlen(env), "env.txt", f, &m) == 2);
	CHECK_STR(gs(f, "env.NCCL_P2P_DISABLE.value"), "1");
	CHECK_STR(gs(f, "env.NCCL_P2P_DISABLE.source"), "env_dump");
	CHECK_INT(gn(f, "env.NCCL_IB_DISABLE.line"), 2);
	const char *script = "export NCCL_P2P_DISABLE=0\nCUDA_VISIBLE_DEVICES=0,1 NCCL_DEBUG=INFO torchrun --nproc_per_node 2 train.py\n";
	sysreport_parse(DOC_ENV_DUMP, script, strlen(script), "run.sh", f, &m);
	CHECK_STR(gs(f, "env.CUDA_VISIBLE_DEVICES.value"), "0,1");
	CHECK_STR(gs(f, "env.CUDA_VISIBLE_DEVICES.source"), "command_line");
	CHECK_STR(gs(f, "env_conflicts.0.name"), "NCCL_P2P_DISABLE");
	CHECK_STR(gs(f, "env_conflicts.0.value"), "0");
	msgs_free(&m);
	cJSON_Delete(f);
}

static void test_bad_input(void)
{
	struct msgs m = {0};
	cJSON *f = cJSON_CreateObject();
	/* half-pasted matrix: the last row stops after two cells */
	const char *half = "\tGPU0\tGPU1\tGPU2\tCPU Affinity\nGPU0\t X \tPHB\tSYS\t0-7\nGPU1\tPHB\t X \tSYS\t0-7\nGPU2\tSYS\tSY";
	CHECK(sysreport_parse(DOC_TOPO_MATRIX, half, strlen(half), "half.txt", f, &m) > 0);
	CHECK_STR(link_type(f, 0, 2), "SYS");
	CHECK_STR(link_type(f, 1, 2), "SYS");
	CHECK(get(f, "topology.skipped.0.what") != NULL);
	CHECK(m.list.n > 0);
	cJSON_Delete(f);
	/* garbage, NULs, and empty input never crash and yield nothing */
	f = cJSON_CreateObject();
	const char junk[] = "GPU0\0\x1b[4m\t X \tNV\xff\n\n|| NVIDIA-SMI |\n<system version=\"1\"><gpu dev=\"";
	for (int k = DOC_TOPO_MATRIX; k <= DOC_ENV_DUMP; k++)
		sysreport_parse((enum doc_kind)k, junk, sizeof junk - 1, "junk", f, &m);
	sysreport_parse(DOC_TOPO_MATRIX, "", 0, "empty", f, &m);
	CHECK_INT(cJSON_GetArraySize(get(f, "topology.links")), 0);
	cJSON_Delete(f);
	/* a trace with a gap and an unreadable line */
	f = cJSON_CreateObject();
	const char *csv = "timestamp, index, memory.used [MiB], memory.total [MiB]\n"
	                  "2026/11/30 14:16:53.366, 0, 100 MiB, 24564 MiB\n"
	                  "2026/11/30 14:16:54.366, 0, 200 MiB, 24564 MiB\n"
	                  "garbage line\n"
	                  "2026/11/30 14:17:54.366, 0, 24000 MiB, 24564 MiB\n";
	CHECK_INT(sysreport_parse(DOC_MEM_CSV, csv, strlen(csv), "t.csv", f, &m), 3);
	CHECK_INT(gn(f, "memory.series.0.gaps"), 1);
	CHECK_INT(gn(f, "memory.series.0.peak_mib"), 24000);
	CHECK_INT(gn(f, "memory.series.0.headroom_mib"), 564);
	/* noheader,nounits variant: columns inferred */
	const char *nh = "0, 1200, 24564\n1, 900, 24564\n0, 20000, 24564\n1, 21000, 24564\n";
	cJSON_Delete(f);
	f = cJSON_CreateObject();
	CHECK_INT(sysreport_parse(DOC_MEM_CSV, nh, strlen(nh), "nh.csv", f, &m), 4);
	CHECK_INT(gn(f, "memory.series.1.peak_mib"), 21000);
	CHECK(cJSON_IsTrue(get(f, "memory.series.0.columns_guessed")));
	cJSON_Delete(f);
	msgs_free(&m);
}

/* cuda-samples p2pBandwidthLatencyTest (parse_p2pbw.c): the real output of
 * tests/learn/p2p-mlengineering-1-a6000.log (stas00/ml-engineering#1), and
 * cut or hostile matrices. */
static void test_p2p_bandwidth(void)
{
	struct msgs m = {0};
	cJSON *f = cJSON_CreateObject();
	CHECK(load(f, &m, "tests/learn/p2p-mlengineering-1-a6000.log", DOC_P2P_BANDWIDTH) == 6);
	CHECK_INT(cJSON_GetArraySize(get(f, "p2p_bandwidth.unidirectional_disabled.rows")), 3);
	CHECK(fabs(gn(f, "p2p_bandwidth.unidirectional_disabled.rows.0.1") - 13.15) < 1e-9);
	CHECK(fabs(gn(f, "p2p_bandwidth.unidirectional_enabled.rows.0.2") - 1.58) < 1e-9);
	CHECK_INT(gn(f, "p2p_bandwidth.unidirectional_enabled.source.line"), 26);
	CHECK(get(f, "p2p_bandwidth.bidirectional_enabled") == NULL);
	cJSON_Delete(f);
	/* a row cut short, a row of another width, a matrix of 65 columns, garbage: no row taken from them */
	f = cJSON_CreateObject();
	const char *bad = "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)\n   D\\D     0      1\n"
	                  "     0 673.49   2.60\n     1   2.12\n     1   2.12 3.0 4.0\n"
	                  "Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)\n   D\\D 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 "
	                  "21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 "
	                  "56 57 58 59 60 61 62 63 64\n     0 1 1\n\xff\x1b[4m\0\n";
	CHECK_INT(sysreport_parse(DOC_P2P_BANDWIDTH, bad, strlen(bad), "bad.txt", f, &m), 1);
	CHECK_INT(cJSON_GetArraySize(get(f, "p2p_bandwidth.unidirectional_enabled.rows")), 1);
	CHECK_INT(cJSON_GetArraySize(get(f, "p2p_bandwidth.bidirectional_disabled.rows")), 0);
	sysreport_parse(DOC_P2P_BANDWIDTH, "", 0, "empty", f, &m);
	cJSON_Delete(f);
	msgs_free(&m);
}

int main(void)
{
	test_h200();
	test_public_topologies();
	test_versions_public();
	test_oom_and_env();
	test_bad_input();
	test_p2p_bandwidth();
	TEST_MAIN_END();
}
