/* test_sys_parse.c - system-report parsers beyond what tests/cases shows
 * (there, one real report in and its facts out, through the CLI): the
 * merge of several reports, the scan of a log's text, the torch OOM line,
 * env dumps, cut and hostile input. */
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
static int load(cJSON *facts, struct msgs *m, const char *path)
{
	size_t len;
	char *t = slurp(path, &len);
	int k = detect_sysreport(t, len);
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

/* The 2 x H200 host's 15 reports in one facts object.  What each report
 * gives alone is a case of tests/cases (topo/, nvsmi/, versions/, memory/);
 * here only what the merge decides: one entry per GPU whatever the number
 * of reports naming it, each GPU's fields gathered from several reports,
 * and no version conflict where every report agrees. */
static void test_h200(void)
{
	cJSON *f = cJSON_CreateObject();
	struct msgs m = {0};
	static const char *const files[] = {"topo-m.txt", "topo-p2p-r.txt", "topo-p2p-p.txt", "nvidia-smi.txt",
	                                    "nvidia-smi-L.txt", "nvidia-smi-q.txt", "nvcc-version.txt", "collect_env.txt",
	                                    "pip-list.txt", "pip-freeze.txt", "proc-driver-version.txt", "torch-version.txt",
	                                    "nccl-topo.xml", "memtrace-oom_unshard.csv", "nvidia-smi-l1.txt"};
	char p[256];
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		snprintf(p, sizeof p, "fixtures/sys/h200-2gpu/%s", files[i]);
		CHECK(load(f, &m, p) > 0);
	}
	CHECK(get(f, "versions.conflicts") == NULL); /* every report agrees */
	CHECK_INT(cJSON_GetArraySize(get(f, "gpus")), 2);
	CHECK_STR(gs(f, "gpus.0.name"), "NVIDIA H200");                               /* nvidia-smi, -L, -q */
	CHECK_STR(gs(f, "gpus.0.uuid"), "GPU-0cbaf63b-5102-0ac0-54f4-22b3052a0958"); /* -L, -q */
	CHECK_STR(gs(f, "gpus.1.bus_id"), "0000:00:07.0");                            /* -q, nccl-topo.xml */
	CHECK_INT(gn(f, "gpus.0.sm"), 90);                                           /* nccl-topo.xml */
	msgs_free(&m);
	cJSON_Delete(f);
}

/* A shell session with `topo -m` and then `topo -p2p p`: the scan of a
 * log's text finds both matrices, the p2p one with its cap from the
 * command.  `analyze` detects the file as one topo_matrix document and
 * ignores the second matrix with a warning, so this stays out of
 * tests/cases until the two agree. */
static void test_topo_session(void)
{
	struct msgs m = {0};
	cJSON *f = cJSON_CreateObject();
	size_t len;
	char *t = slurp("fixtures/sys/public/topo-m-and-p2p-p-5gpu-node-session.txt", &len);
	CHECK(sysreport_scan_text(t, len, "session.txt", f, &m) > 0);
	free(t);
	CHECK_INT(gn(f, "topology.gpu_count"), 5);
	CHECK_STR(link_type(f, 3, 4), "PHB");
	CHECK_STR(gs(f, "topology.p2p.pcie.cap_from"), "command");
	CHECK_INT(gn(f, "topology.p2p.pcie.not_ok"), 0);
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

/* nvidia-smi -q Fabric and nvidia-smi nvlink -s (parse_nvsmi.c); each report alone is a case in
 * tests/cases/nvsmi (h200-nvidia-smi-q, h200-nvlink-s, the gpu-operator#2511 Fabric block) */
static void test_fabric_nvlink(void)
{
	cJSON *f = cJSON_CreateObject();
	struct msgs m = {0};
	/* the H200 capture's two reports merged: the fabric (Completed / Success) and 18 active links per GPU */
	CHECK(load(f, &m, "fixtures/sys/h200-2gpu/nvidia-smi-q.txt") > 0);
	CHECK(load(f, &m, "fixtures/captures/h200-2gpu/sys/nvlink-s.txt") > 0);
	CHECK_STR(gs(f, "gpus.1.fabric.status"), "Success");
	CHECK(get(f, "gpus.0.fabric.summary") == NULL); /* Health / Summary is not the registration */
	CHECK_INT(gn(f, "gpus.0.nvlink.links"), 18);
	CHECK(get(f, "gpus.1.nvlink.inactive_links") == NULL);
	/* a second listing of the same GPUs replaces the first instead of doubling it */
	CHECK(load(f, &m, "fixtures/captures/h200-2gpu/sys/nvlink-s.txt") > 0);
	CHECK_INT(gn(f, "gpus.0.nvlink.links"), 18);
	CHECK_INT(cJSON_GetArraySize(get(f, "gpus")), 2);
	cJSON_Delete(f);
	/* nvlink -s with inactive links: the "Link N: <inactive>" form Azure NHC's
	 * azure_gpu_nvlink.nhc greps for (a constructed instance, not a capture) */
	const char *nv = "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-00000000-0000-0000-0000-000000000001)\n"
	                 "\t Link 0: 26.562 GB/s\n\t Link 1: <inactive>\n\t Link 2: 26.562 GB/s\n\t Link 3: <inactive>\n"
	                 "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-00000000-0000-0000-0000-000000000002)\n"
	                 "\t Link 0: 26.562 GB/s\n";
	f = cJSON_CreateObject();
	CHECK(sysreport_parse(DOC_NVSMI_L, nv, strlen(nv), "nvlink-s.txt", f, &m) > 0);
	CHECK_INT(gn(f, "gpus.0.nvlink.links"), 4);
	CHECK_INT(gn(f, "gpus.0.nvlink.inactive"), 2);
	CHECK_STR(gs(f, "gpus.0.nvlink.inactive_links"), "1,3");
	CHECK_INT(gn(f, "gpus.0.nvlink.source.line"), 3);
	CHECK_INT(gn(f, "gpus.1.nvlink.inactive"), 0);
	CHECK_STR(gs(f, "gpus.1.uuid"), "GPU-00000000-0000-0000-0000-000000000002");
	/* a Link line before any GPU line, and a malformed one, are skipped */
	const char *bad = "\t Link 0: <inactive>\nGPU 0: X (UUID: GPU-1)\n\t Link x: <inactive>\n";
	cJSON_Delete(f);
	f = cJSON_CreateObject();
	CHECK(sysreport_parse(DOC_NVSMI_L, bad, strlen(bad), "bad.txt", f, &m) > 0);
	CHECK(get(f, "gpus.0.nvlink") == NULL);
	cJSON_Delete(f);
	msgs_free(&m);
}

/* cuda-samples p2pBandwidthLatencyTest (parse_p2pbw.c): cut or hostile
 * matrices (the real output is tests/cases/p2pbw). */
static void test_p2p_bandwidth(void)
{
	struct msgs m = {0};
	cJSON *f = cJSON_CreateObject();
	/* a row cut short, a row of another width, a matrix of 65 columns, garbage: no row taken from them */
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

/* sys_set_* and sys_put_source as they were (delete the first member of
 * that name, add a new one last): the in-place updates must make the same
 * tree, member order included. */
static void ref_set_str(cJSON *o, const char *k, const char *v)
{
	char *s = str_sanitize(v, strlen(v));
	cJSON_DeleteItemFromObjectCaseSensitive(o, k);
	cJSON_AddStringToObject(o, k, s);
	free(s);
}

static void ref_set_num(cJSON *o, const char *k, double v)
{
	cJSON_DeleteItemFromObjectCaseSensitive(o, k);
	cJSON_AddNumberToObject(o, k, v);
}

static void ref_set_bool(cJSON *o, const char *k, int v)
{
	cJSON_DeleteItemFromObjectCaseSensitive(o, k);
	cJSON_AddBoolToObject(o, k, v);
}

static void ref_put_source(cJSON *o, const char *path, uint64_t line)
{
	cJSON_DeleteItemFromObjectCaseSensitive(o, "source");
	cJSON_AddItemToObject(o, "source", sys_source(path, line));
}

/* two trees with the same members, two of them named "dup" */
static void set_pair(cJSON **a, cJSON **b)
{
	for (int i = 0; i < 2; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "dup", "first");
		cJSON_AddNumberToObject(o, "n", 1);
		cJSON_AddStringToObject(o, "s", "a fairly long value");
		cJSON_AddNumberToObject(o, "dup", 2);
		cJSON_AddFalseToObject(o, "b");
		cJSON_AddStringToObject(o, "last", "x");
		*(i ? b : a) = o;
	}
}

static void check_same(cJSON *a, cJSON *b, int line)
{
	char *pa = cJSON_PrintUnformatted(a), *pb = cJSON_PrintUnformatted(b);
	if (strcmp(pa, pb) != 0)
		fprintf(stderr, "line %d:\n  in place %s\n  expected %s\n", line, pa, pb);
	CHECK(strcmp(pa, pb) == 0);
	free(pa);
	free(pb);
}

static void test_set_in_place(void)
{
	cJSON *a = NULL, *b = NULL;
	set_pair(&a, &b);
	/* the same calls on both: a through sysparse.c, b through the old code */
#define BOTH(f, ...) (sys_##f(a, __VA_ARGS__), ref_##f(b, __VA_ARGS__), check_same(a, b, __LINE__))
	BOTH(set_num, "n", 7);          /* a middle member: moved last */
	BOTH(set_num, "n", 3e10);       /* last already; valueint saturates */
	BOTH(set_str, "s", "short");    /* shorter: copied in place */
	BOTH(set_str, "s", "a value longer than the one before it");
	BOTH(set_str, "last", "tab\there \x01 ctl"); /* sanitised */
	BOTH(set_str, "n", "was a number"); /* another type: replaced */
	BOTH(set_num, "s", -1);
	BOTH(set_bool, "b", 1);
	BOTH(set_bool, "b", 0);
	BOTH(set_bool, "s", 1);
	BOTH(set_str, "dup", "one");    /* the first "dup" (a string) */
	BOTH(set_str, "dup", "two");    /* now the number */
	BOTH(set_num, "dup", 5);
	BOTH(set_str, "new", "added");
	BOTH(put_source, "p.log", 10);
	BOTH(set_num, "after", 1);
	BOTH(put_source, "a/longer/path.log", 12); /* moved last, updated */
	BOTH(put_source, NULL, 13);
#undef BOTH
	CHECK(cJSON_GetObjectItemCaseSensitive(a, "source")->child->next->valueint == 13);
	/* a "source" that sys_source did not make is replaced */
	cJSON *src = cJSON_GetObjectItemCaseSensitive(a, "source");
	cJSON_AddStringToObject(src, "extra", "1");
	src = cJSON_GetObjectItemCaseSensitive(b, "source");
	cJSON_AddStringToObject(src, "extra", "1");
	sys_put_source(a, "q.log", 2);
	ref_put_source(b, "q.log", 2);
	check_same(a, b, __LINE__);
	/* the value is the node's own string (or its tail) */
	cJSON *s = cJSON_GetObjectItemCaseSensitive(a, "new");
	sys_set_str(a, "new", s->valuestring + 2);
	CHECK_STR(cJSON_GetObjectItemCaseSensitive(a, "new")->valuestring, "ded");
	s = cJSON_GetObjectItemCaseSensitive(a, "new");
	sys_set_str(a, "new", s->valuestring);
	CHECK_STR(cJSON_GetObjectItemCaseSensitive(a, "new")->valuestring, "ded");
	cJSON_Delete(a);
	cJSON_Delete(b);
}

/* sys_decimal is strtod, bit for bit, on what it takes (random digit
 * strings of every length and '.' position, the table cells nccl-tests
 * prints, the boundary of 15 digits), and declines the rest: a sign, an
 * exponent, 16 digits, a leading '.', two '.', a blank, "N/A". */
static void test_decimal(void)
{
	unsigned long long x = 88172645463325252ULL; /* xorshift: the same strings every run */
	int bad = 0;
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		char t[24];
		int nd = 1 + (int)(x % 15), dot = (int)((x >> 8) % (unsigned)(nd + 2)) - 1; /* -1: none */
		size_t k = 0;
		unsigned long long y = x >> 16;
		for (int d = 0; d < nd; d++) {
			if (d == dot + 1 && dot >= 0 && d > 0)
				t[k++] = '.';
			t[k++] = (char)('0' + (y % 10));
			y = y / 10 ? y / 10 : x * 2654435761u + (unsigned)d;
		}
		if (dot == nd - 1 && dot > 0 && (x & 1))
			t[k++] = '.'; /* "12." */
		t[k] = 0;
		double v = -1, w = strtod(t, NULL);
		if (!sys_decimal(t, &v) || memcmp(&v, &w, sizeof v) != 0) {
			if (bad++ < 5)
				fprintf(stderr, "sys_decimal(\"%s\") = %.17g, strtod %.17g\n", t, v, w);
		}
	}
	CHECK_INT(bad, 0);
	static const char *const OK[] = {"0", "96", "17.49", "2.20", "0.00", "477.32", "1048576", "999999999999999",
	                                 "0.00000000000001", "99999999999999.9", "12.", "007.50"};
	for (size_t i = 0; i < sizeof OK / sizeof OK[0]; i++) {
		double v = -1, w = strtod(OK[i], NULL);
		CHECK(sys_decimal(OK[i], &v) && memcmp(&v, &w, sizeof v) == 0);
	}
	static const char *const NO[] = {"", "-1", "+1", "2e-07", "1.2e+03", "1000000000000000", "0.000000000000001",
	                                 ".5", "1.2.3", "1 2", "N/A", "0x10", "inf", "1,5"};
	for (size_t i = 0; i < sizeof NO / sizeof NO[0]; i++) {
		double v = 42;
		CHECK(!sys_decimal(NO[i], &v) && v == 42);
	}
}

/* sys_hex3 against the sscanf calls it stands for ("%x:%x:%x)%n" with end
 * ')', "%x:%x:%x" with -1): wherever it reads, sscanf reads 3 fields, the
 * same values and (')') the same %n, on random strings of hex digits,
 * colons, signs, blanks, "0x", other bytes and fields long enough to
 * overflow.  Where it does not read, its callers ask sscanf. */
static void test_hex3(void)
{
	static const char A[] = "0123456789abcdefABCDEF::::))xX+- \tg.]";
	unsigned long long x = 0x2545F4914F6CDD1DULL;
	int bad = 0, read = 0;
	for (int i = 0; i < 300000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		char t[40];
		size_t n = (size_t)(x % 26);
		unsigned long long y = x >> 5;
		for (size_t k = 0; k < n; k++) {
			/* mostly hex digits and colons: the forms that come close */
			t[k] = (y & 3) ? A[(y >> 2) % 22 + ((y & 3) == 1 ? 4 : 0)] : A[(y >> 2) % (sizeof A - 1)];
			y = y >> 7 ? y >> 7 : x * 0x9E3779B97F4A7C15ULL + k;
		}
		t[n] = 0;
		for (int end = -1; end <= ')'; end += ')' + 1) {
			unsigned v[3] = {7, 7, 7}, w[3] = {9, 9, 9};
			int k = sys_hex3(t, end, v), kn = 0, nf;
			if (!k)
				continue;
			read++;
			if (end < 0)
				nf = sscanf(t, "%x:%x:%x", &w[0], &w[1], &w[2]), kn = k;
			else
				nf = sscanf(t, "%x:%x:%x)%n", &w[0], &w[1], &w[2], &kn);
			if ((nf != 3 || memcmp(v, w, sizeof v) || kn != k) && bad++ < 5)
				fprintf(stderr, "sys_hex3(\"%s\", %d) = %d: %x %x %x, sscanf %d: %x %x %x %%n %d\n", t, end, k,
				        v[0], v[1], v[2], nf, w[0], w[1], w[2], kn);
		}
	}
	CHECK_INT(bad, 0);
	CHECK(read > 10000);
	unsigned v[3];
	CHECK_INT(sys_hex3("0000:01:00)", ')', v), 11);
	CHECK(v[0] == 0 && v[1] == 1 && v[2] == 0);
	CHECK_INT(sys_hex3("0009:01:00", -1, v), 11); /* the NUL after the field counts */
	CHECK(v[0] == 9 && v[1] == 1 && v[2] == 0);
	CHECK_INT(sys_hex3("fffffffff:1:2)", ')', v), 14); /* strtoul's overflow, as sscanf's */
	CHECK(v[0] == 0xffffffffu);
	static const char *const NO[] = {"", "0000:01:00 )", "0x0:1:2)", "+1:2:3)", " 1:2:3)", "1:2)", "1::2:3)", "g:1:2)"};
	for (size_t i = 0; i < sizeof NO / sizeof NO[0]; i++)
		CHECK_INT(sys_hex3(NO[i], ')', v), 0);
}

/* sys_scan_until against sscanf's "%N[^STOPS]" for the stop sets and sizes
 * its callers use (and the edges: 1 and 3 bytes), on random strings: the
 * same count (0 where sscanf converts nothing) and the same bytes. */
static void test_scan_until(void)
{
	static const char *const STOPS[] = {", ", " '", ",", " \t\n\v\f\r,)", " \t\n\v\f\r"};
	static const size_t CAP[] = {128, 64, 256, 2, 4};
	static const char A[] = "ab, '\t\n\v\f\r)(x.";
	unsigned long long x = 0x9E3779B97F4A7C15ULL;
	int bad = 0, full = 0;
	for (int i = 0; i < 100000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		char t[300];
		size_t n = (x & 1) ? (size_t)(x % 9) : (size_t)((x >> 4) % 290); /* short, and past every cap */
		unsigned long long y = x >> 9;
		for (size_t k = 0; k < n; k++) {
			t[k] = (y % 5) ? 'a' + (char)(y % 7) : A[(y >> 3) % (sizeof A - 1)];
			y = y >> 6 ? y >> 6 : x * 2654435761u + k;
		}
		t[n] = 0;
		size_t si = (x >> 20) % 5, ci = (x >> 24) % 5;
		char fmt[40], want[300] = "", got[300];
		snprintf(fmt, sizeof fmt, "%%%zu[^%s]", CAP[ci] - 1, STOPS[si]);
		int nw = sscanf(t, fmt, want);
		memset(got, 'Z', sizeof got);
		size_t ng = sys_scan_until(t, STOPS[si], got, CAP[ci]);
		full += ng == CAP[ci] - 1;
		if ((nw == 1) != (ng != 0) || strcmp(got, nw == 1 ? want : "") || strlen(got) != ng) {
			if (bad++ < 5)
				fprintf(stderr, "sys_scan_until(\"%s\", %s, %zu) = %zu \"%s\", sscanf %d \"%s\"\n", t, fmt, CAP[ci], ng,
				        got, nw, want);
		}
	}
	CHECK_INT(bad, 0);
	CHECK(full > 1000); /* the cap was reached */
}

/* sys_bdf is snprintf's "%04x:%02x:%02x.0" over the whole range its
 * callers allow (every bus and device, domains at every digit's edges). */
static void test_bdf(void)
{
	static const unsigned DOM[] = {0, 1, 9, 0xa, 0xf, 0x10, 0xff, 0x100, 0xfff, 0x1000, 0x1234, 0xabcd, 0xfffe, 0xffff};
	int bad = 0;
	for (size_t d = 0; d < sizeof DOM / sizeof DOM[0]; d++)
		for (unsigned b = 0; b <= 0xff; b++)
			for (unsigned v = 0; v <= 0x1f; v++) {
				char got[13], want[24];
				sys_bdf(got, DOM[d], b, v);
				snprintf(want, sizeof want, "%04x:%02x:%02x.0", DOM[d], b, v);
				if (strcmp(got, want) && bad++ < 5)
					fprintf(stderr, "sys_bdf(%x, %x, %x) = %s, snprintf %s\n", DOM[d], b, v, got, want);
			}
	CHECK_INT(bad, 0);
}

int main(void)
{
	test_decimal();
	test_hex3();
	test_scan_until();
	test_bdf();
	test_h200();
	test_topo_session();
	test_oom_and_env();
	test_bad_input();
	test_fabric_nvlink();
	test_p2p_bandwidth();
	test_set_in_place();
	TEST_MAIN_END();
}
