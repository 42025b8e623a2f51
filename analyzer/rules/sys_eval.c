/* sys_eval.c - what the system-report facts mean: derived facts (GPU
 * architecture and consumer-P2P flags from the model name, the groups of
 * mutually P2P-capable GPUs) and the fact rules of rules_sys.c, written as a
 * pure function over (facts, a summary of the log side) that reports each
 * finding through a callback.  Every statement cites the file and line of
 * the fact it rests on and carries its numbers as captures ({recommend},
 * {arith}, {pairs}, {groups}, ...).  Nothing here allocates beyond the call;
 * the callback copies what it keeps. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/sysparse.h"
#include "rules/sys_eval.h"
#include "rules/ncclver.h"

/* ---------- GPU models ---------- */

int sys_gpu_sm(const char *name)
{
	static const struct { const char *pat; int sm; } t[] = {
		{"GB300", 103}, {"B300", 103}, {"GB200", 100}, {"B200", 100}, {"B100", 100}, {"GB10", 121},
		{"RTX PRO 6000 Blackwell", 120}, {"RTX PRO", 120}, {"RTX 50", 120}, {"5090", 120}, {"5080", 120},
		{"5070", 120}, {"5060", 120},
		{"GH200", 90}, {"H200", 90}, {"H100", 90}, {"H800", 90}, {"H20", 90},
		{"RTX 6000 Ada", 89}, {"RTX 5000 Ada", 89}, {"RTX 4000 Ada", 89}, {"L40", 89}, {"L20", 89},
		{"L4", 89}, {"RTX 40", 89}, {"4090", 89}, {"4080", 89}, {"4070", 89}, {"4060", 89},
		{"A100", 80}, {"A800", 80}, {"A30", 80},
		{"A6000", 86}, {"A5000", 86}, {"A4000", 86}, {"A40", 86}, {"A10", 86}, {"A16", 86}, {"A2", 86},
		{"RTX 30", 86}, {"3090", 86}, {"3080", 86}, {"3070", 86}, {"3060", 86},
		{"T4", 75}, {"RTX 20", 75}, {"2080", 75}, {"Quadro RTX", 75}, {"TITAN RTX", 75},
		{"V100", 70}, {"TITAN V", 70}, {"P100", 60}, {"P40", 61}, {"GTX 10", 61}, {"1080", 61},
		{NULL, 0}};
	if (!name)
		return 0;
	for (int i = 0; t[i].pat; i++) {
		const char *p = strstr(name, t[i].pat);
		if (!p)
			continue;
		/* "A10" must not match "A100": the pattern must end at a word end */
		char after = p[strlen(t[i].pat)];
		if (isdigit((unsigned char)t[i].pat[strlen(t[i].pat) - 1]) && isdigit((unsigned char)after))
			continue;
		return t[i].sm;
	}
	return 0;
}

int sys_gpu_consumer_nop2p(const char *name)
{
	if (!name)
		return 0;
	if (!strstr(name, "GeForce") && !strstr(name, "RTX 4090") && !strstr(name, "RTX 5090"))
		return 0;
	const char *p = strstr(name, "RTX ");
	if (!p)
		return 0;
	return p[4] == '4' || p[4] == '5' ? (isdigit((unsigned char)p[5]) && isdigit((unsigned char)p[6])) : 0;
}

/* minimum CUDA toolkit (x10: 118 = 11.8) that knows an SM */
static int sm_min_cuda(int sm)
{
	switch (sm) {
	case 60: case 61: return 80;
	case 70: return 90;
	case 75: return 100;
	case 80: return 110;
	case 86: return 111;
	case 89: case 90: return 118;
	case 100: case 120: return 128;
	case 103: case 121: return 129;
	default: return 0;
	}
}

/* ---------- CUDA / driver tables (reference §9.1, §9.2) ---------- */

static const struct { int cuda; const char *driver; } DRIVER_MIN[] = {
	{132, "595.45.04"}, {131, "590.44.01"}, {130, "580.65.06"}, {129, "575.51.03"}, {128, "570.26"},
	{126, "560.28.03"}, {125, "555.42.02"}, {124, "550.54.14"}, {123, "545.23.06"}, {122, "535.54.03"},
	{121, "530.30.02"}, {120, "525.60.13"}, {118, "520.61.05"}, {117, "515.43.04"}, {116, "510.39.01"},
	{115, "495.29.05"}, {114, "470.42.01"}, {113, "465.19.01"}, {112, "460.27.03"}, {111, "455.23"},
	{110, "450.51.05"}, {0, NULL}};

/* "12.4.1" -> 124; -1 when unreadable */
static int cuda_code(const char *v)
{
	struct version x;
	if (!version_parse(v, &x) || x.part[0] < 1 || x.part[0] > 99 || x.part[1] > 9)
		return -1;
	return (int)(x.part[0] * 10 + x.part[1]);
}

static const char *driver_min_for(int cuda)
{
	for (int i = 0; DRIVER_MIN[i].driver; i++)
		if (DRIVER_MIN[i].cuda == cuda)
			return DRIVER_MIN[i].driver;
	/* between table rows (12.7 does not exist): the next lower entry */
	for (int i = 0; DRIVER_MIN[i].driver; i++)
		if (DRIVER_MIN[i].cuda < cuda)
			return DRIVER_MIN[i].driver;
	return NULL;
}

static int driver_max_cuda(const char *driver)
{
	for (int i = 0; DRIVER_MIN[i].driver; i++)
		if (version_cmp_str(driver, DRIVER_MIN[i].driver) >= 0)
			return DRIVER_MIN[i].cuda;
	return -1;
}

static const char *family_min(int major)
{
	switch (major) {
	case 13: return "580";
	case 12: return "525.60.13";
	case 11: return "450.80.02";
	default: return NULL;
	}
}

/* ---------- small helpers ---------- */

struct emitter {
	sys_emit_fn fn;
	void *ctx;
};

static void emit(struct emitter *e, const char *id, const cJSON *src, struct caplist *c, const char *fmt, ...)
	NT_PRINTF(5, 6);
static void emit(struct emitter *e, const char *id, const cJSON *src, struct caplist *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *st = xvasprintf(fmt, ap);
	va_end(ap);
	const char *path = json_str(src, "path");
	double line = 0;
	json_num(src, "line", &line);
	e->fn(e->ctx, id, path ? path : "", (uint64_t)line, st, c ? c->v : NULL, c ? c->n : 0);
	free(st);
	if (c)
		caplist_free(c);
}

static const char *src_str(const cJSON *src, char *buf, size_t n)
{
	const char *p = json_str(src, "path");
	double l = 0;
	json_num(src, "line", &l);
	snprintf(buf, n, "%s:%llu", p ? p : "?", (unsigned long long)l);
	return buf;
}

static const cJSON *version(const cJSON *facts, const char *key, const char **val)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(facts, "versions"), key);
	*val = json_str(v, "value");
	return *val ? cJSON_GetObjectItemCaseSensitive(v, "source") : NULL;
}

static const char *env_value(const cJSON *facts, const char *name)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(facts, "env"), name);
	return json_str(e, "value");
}

static double mib_to_gib(double m)
{
	return m / 1024.0;
}

/* ---------- derive ---------- */

#define NG 256

struct pairinfo {
	int ngpu;
	int idx[NG];             /* GPU numbers present */
	signed char cap[NG][NG]; /* 1 capable, 0 not, -1 unknown */
	char why[NG][NG][8];     /* link type or p2p status that decided */
};

static int pos_of(struct pairinfo *pi, int gpu)
{
	for (int i = 0; i < pi->ngpu; i++)
		if (pi->idx[i] == gpu)
			return i;
	if (pi->ngpu >= NG || gpu < 0)
		return -1;
	pi->idx[pi->ngpu] = gpu;
	for (int k = 0; k <= pi->ngpu; k++) {
		pi->cap[pi->ngpu][k] = pi->cap[k][pi->ngpu] = -1;
		pi->why[pi->ngpu][k][0] = pi->why[k][pi->ngpu][0] = 0;
	}
	return pi->ngpu++;
}

static int is_consumer_gpu(const cJSON *facts, int gpu)
{
	const cJSON *g = NULL;
	const cJSON *x;
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(facts, "gpus")) {
		double i;
		if (json_num(x, "index", &i) && (int)i == gpu)
			g = x;
	}
	return g && sys_gpu_consumer_nop2p(json_str(g, "name"));
}

static void build_pairs(const cJSON *facts, struct pairinfo *pi)
{
	memset(pi, 0, sizeof *pi);
	const cJSON *topo = cJSON_GetObjectItemCaseSensitive(facts, "topology");
	const cJSON *l;
	cJSON_ArrayForEach(l, cJSON_GetObjectItemCaseSensitive(topo, "links")) {
		double a, b;
		const char *t = json_str(l, "type");
		if (!t || !json_num(l, "a", &a) || !json_num(l, "b", &b))
			continue;
		int i = pos_of(pi, (int)a), j = pos_of(pi, (int)b);
		if (i < 0 || j < 0)
			continue;
		int c = topo_link_direct(t) ? 1 : 0;
		if (c && strncmp(t, "NV", 2) && is_consumer_gpu(facts, (int)a) && is_consumer_gpu(facts, (int)b))
			c = 0; /* GeForce RTX 40xx/50xx: no PCIe P2P even behind one switch */
		pi->cap[i][j] = pi->cap[j][i] = (signed char)c;
		snprintf(pi->why[i][j], 8, "%s", t);
		snprintf(pi->why[j][i], 8, "%s", t);
	}
	/* the P2P matrices have the last word: read and write must be OK */
	const cJSON *p2p = cJSON_GetObjectItemCaseSensitive(topo, "p2p");
	const cJSON *mt;
	cJSON_ArrayForEach(mt, p2p) {
		const char *cap = json_str(mt, "cap");
		int decisive = cap && (!strcmp(cap, "read") || !strcmp(cap, "write") || !strcmp(cap, "unknown"));
		int pcie = cap && !strcmp(cap, "pcie");
		if (!decisive && !pcie)
			continue;
		const cJSON *pr;
		cJSON_ArrayForEach(pr, cJSON_GetObjectItemCaseSensitive(mt, "pairs")) {
			double a, b;
			const char *s = json_str(pr, "status");
			if (!s || !json_num(pr, "a", &a) || !json_num(pr, "b", &b))
				continue;
			int i = pos_of(pi, (int)a), j = pos_of(pi, (int)b);
			if (i < 0 || j < 0)
				continue;
			int ok = !strcmp(s, "OK");
			if (pcie) {
				/* PCIe P2P status matters only where no NVLink joins the pair */
				if (!strncmp(pi->why[i][j], "NV", 2))
					continue;
				if (pi->cap[i][j] == -1 || ok == 0) {
					pi->cap[i][j] = pi->cap[j][i] = (signed char)ok;
					snprintf(pi->why[i][j], 8, "%s", s);
					snprintf(pi->why[j][i], 8, "%s", s);
				}
				continue;
			}
			if (!ok || pi->cap[i][j] == -1) {
				pi->cap[i][j] = pi->cap[j][i] = (signed char)(ok && pi->cap[i][j] != 0);
				if (!ok) {
					snprintf(pi->why[i][j], 8, "%s", s);
					snprintf(pi->why[j][i], 8, "%s", s);
				}
			}
		}
	}
}

/* maximal groups of mutually capable GPUs (greedy from each GPU), biggest first */
static int groups_of(struct pairinfo *pi, int out[][NG], int *sizes, int maxg)
{
	int ng = 0;
	/* sort positions by GPU number */
	int order[NG];
	for (int i = 0; i < pi->ngpu; i++)
		order[i] = i;
	for (int i = 1; i < pi->ngpu; i++)
		for (int k = i; k > 0 && pi->idx[order[k]] < pi->idx[order[k - 1]]; k--) {
			int t = order[k];
			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	for (int s = 0; s < pi->ngpu && ng < maxg; s++) {
		int g[NG], n = 0;
		g[n++] = order[s];
		for (int k = 0; k < pi->ngpu; k++) {
			int c = order[k];
			if (c == order[s])
				continue;
			int all = 1;
			for (int m = 0; m < n; m++)
				if (pi->cap[c][g[m]] != 1)
					all = 0;
			if (all)
				g[n++] = c;
		}
		if (n < 2)
			continue;
		/* to GPU numbers, sorted */
		int nums[NG];
		for (int m = 0; m < n; m++)
			nums[m] = pi->idx[g[m]];
		for (int i = 1; i < n; i++)
			for (int k = i; k > 0 && nums[k] < nums[k - 1]; k--) {
				int t = nums[k];
				nums[k] = nums[k - 1];
				nums[k - 1] = t;
			}
		int dup = 0;
		for (int q = 0; q < ng && !dup; q++) {
			if (sizes[q] < n)
				continue;
			/* subset of an existing group? */
			int all = 1;
			for (int m = 0; m < n; m++) {
				int f = 0;
				for (int r = 0; r < sizes[q]; r++)
					if (out[q][r] == nums[m])
						f = 1;
				if (!f)
					all = 0;
			}
			dup = all;
		}
		if (dup)
			continue;
		memcpy(out[ng], nums, (size_t)n * sizeof(int));
		sizes[ng++] = n;
	}
	/* biggest first, stable */
	for (int i = 1; i < ng; i++)
		for (int k = i; k > 0 && sizes[k] > sizes[k - 1]; k--) {
			int t = sizes[k];
			sizes[k] = sizes[k - 1];
			sizes[k - 1] = t;
			int tmp[NG];
			memcpy(tmp, out[k], sizeof tmp);
			memcpy(out[k], out[k - 1], sizeof tmp);
			memcpy(out[k - 1], tmp, sizeof tmp);
		}
	return ng;
}

static void groups_text(int out[][NG], const int *sizes, int ng, struct buf *b)
{
	for (int q = 0; q < ng; q++) {
		if (q)
			buf_adds(b, " ");
		buf_addc(b, '{');
		for (int m = 0; m < sizes[q]; m++)
			buf_printf(b, "%s%d", m ? "," : "", out[q][m]);
		buf_addc(b, '}');
	}
	if (ng == 0)
		buf_adds(b, "none");
}

void sys_derive(cJSON *facts)
{
	if (!facts)
		return;
	cJSON *g;
	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(facts, "gpus")) {
		const char *name = json_str(g, "name");
		if (!name)
			continue;
		int sm = sys_gpu_sm(name);
		if (sm && !cJSON_GetObjectItemCaseSensitive(g, "sm") && !cJSON_GetObjectItemCaseSensitive(g, "sm_from_name"))
			cJSON_AddNumberToObject(g, "sm_from_name", sm);
		sys_set_bool(g, "consumer_no_p2p", sys_gpu_consumer_nop2p(name));
	}
	cJSON *topo = cJSON_GetObjectItemCaseSensitive(facts, "topology");
	if (!topo)
		return;
	struct pairinfo *pi = xmalloc(sizeof *pi);
	build_pairs(facts, pi);
	if (pi->ngpu >= 2) {
		int (*out)[NG] = xmalloc(sizeof(int[64][NG]));
		int sizes[64];
		int ng = groups_of(pi, out, sizes, 64);
		cJSON *arr = cJSON_CreateArray();
		for (int q = 0; q < ng; q++)
			cJSON_AddItemToArray(arr, cJSON_CreateIntArray(out[q], sizes[q]));
		cJSON_DeleteItemFromObjectCaseSensitive(topo, "groups");
		cJSON_AddItemToObject(topo, "groups", arr);
		free(out);
	}
	free(pi);
}

/* ---------- rules ---------- */

static int job_size(const cJSON *facts, const struct sys_logctx *lc)
{
	if (lc && lc->nranks > 0)
		return lc->nranks;
	const char *v = env_value(facts, "LOCAL_WORLD_SIZE");
	if (!v)
		v = env_value(facts, "WORLD_SIZE");
	if (v && atoi(v) > 0)
		return atoi(v);
	return 0;
}

/* What the topology rules share: the P2P-capable groups, a concrete
 * recommendation, whether P2P is disabled already. */
struct topoctx {
	struct pairinfo *pi;
	struct buf gt;      /* the groups, as text */
	struct buf rec;     /* CUDA_VISIBLE_DEVICES=... for a group, or empty */
	int disabled;       /* NCCL_P2P_DISABLE=1 */
	const char *bw;     /* what disabling P2P costs */
};

static void topo_read(const cJSON *facts, const struct sys_logctx *lc, struct topoctx *t)
{
	t->pi = xmalloc(sizeof *t->pi);
	build_pairs(facts, t->pi);
	int (*out)[NG] = xmalloc(sizeof(int[64][NG]));
	int sizes[64];
	int ng = t->pi->ngpu >= 2 ? groups_of(t->pi, out, sizes, 64) : 0;
	buf_init(&t->gt);
	groups_text(out, sizes, ng, &t->gt);
	int need = job_size(facts, lc);
	const char *p2p_disable = env_value(facts, "NCCL_P2P_DISABLE");
	t->disabled = p2p_disable && atoi(p2p_disable) == 1;
	/* a concrete recommendation */
	buf_init(&t->rec);
	int pick = -1;
	for (int q = 0; q < ng; q++)
		if ((need <= 0 && pick < 0) || (need > 0 && sizes[q] >= need && pick < 0))
			pick = q;
	if (pick >= 0 && sizes[pick] < t->pi->ngpu) {
		int n = need > 0 && need <= sizes[pick] ? need : sizes[pick];
		buf_adds(&t->rec, "CUDA_VISIBLE_DEVICES=");
		for (int m = 0; m < n; m++)
			buf_printf(&t->rec, "%s%d", m ? "," : "", out[pick][m]);
		buf_printf(&t->rec, " (a group of %d GPUs with working P2P between every pair)", n);
	}
	free(out);
	t->bw = "NCCL_P2P_DISABLE=1: every transfer is then staged through host shared memory "
	        "(two PCIe crossings and a CPU copy instead of one direct transfer), so intra-node "
	        "bandwidth drops; on NVLink-connected GPUs it gives up NVLink entirely";
}

/* 1. GPU pairs through a host bridge or the CPU */
static void rule_p2p_through_cpu(const cJSON *topo, const struct topoctx *tc, struct emitter *e)
{
	struct buf pairs;
	buf_init(&pairs);
	int n = 0, total = 0, direct = 0;
	const cJSON *first = NULL;
	const cJSON *l;
	cJSON_ArrayForEach(l, cJSON_GetObjectItemCaseSensitive(topo, "links")) {
		const char *t = json_str(l, "type");
		double a, b;
		if (!t || !json_num(l, "a", &a) || !json_num(l, "b", &b))
			continue;
		total++;
		if (topo_link_direct(t) && !strncmp(t, "P", 1))
			direct++;
		if (!topo_link_through_cpu(t))
			continue;
		if (!first)
			first = cJSON_GetObjectItemCaseSensitive(l, "source");
		if (n < 12)
			buf_printf(&pairs, "%sGPU%d-GPU%d %s", n ? ", " : "", (int)a, (int)b, t);
		n++;
	}
	if (n > 12)
		buf_printf(&pairs, " and %d more", n - 12);
	if (n > 0) {
		struct caplist c = {0};
		char sb[600];
		caplist_add(&c, "pairs", "%s", pairs.data);
		caplist_add(&c, "groups", "%s", tc->gt.data);
		if (tc->rec.len)
			caplist_add(&c, "recommend", "%s", tc->rec.data);
		else if (direct)
			caplist_add(&c, "recommend", "NCCL_P2P_LEVEL=PXB (P2P only where GPUs share a PCIe switch; SHM across the host bridge)");
		else
			caplist_add(&c, "recommend", "%s", tc->disabled ? "P2P is already disabled (NCCL_P2P_DISABLE=1)" : tc->bw);
		caplist_add(&c, "count", "%d of %d", n, total);
		emit(e, "topo.p2p_through_cpu", first, &c,
		     "%d of %d GPU pairs cross a PCIe host bridge or the CPU interconnect (PHB/NODE/SYS): %s "
		     "[topology %s]; P2P-capable groups: %s",
		     n, total, pairs.data, src_str(first, sb, sizeof sb), tc->gt.data);
	}
	buf_free(&pairs);
}

/* 2. P2P matrices with pairs that are not OK */
static void rule_p2p_matrix(const cJSON *topo, const struct topoctx *t, struct emitter *e)
{
	const cJSON *mt;
	cJSON_ArrayForEach(mt, cJSON_GetObjectItemCaseSensitive(topo, "p2p")) {
		const char *cap = json_str(mt, "cap");
		if (!cap || !strcmp(cap, "atomics") || !strcmp(cap, "nvlink") || !strcmp(cap, "prop"))
			continue;
		int pcie = !strcmp(cap, "pcie");
		struct buf pairs;
		buf_init(&pairs);
		int n = 0;
		const cJSON *first = NULL, *pr;
		const char *status = NULL;
		cJSON_ArrayForEach(pr, cJSON_GetObjectItemCaseSensitive(mt, "pairs")) {
			const char *s = json_str(pr, "status");
			double a, b;
			if (!s || !strcmp(s, "OK") || !json_num(pr, "a", &a) || !json_num(pr, "b", &b) || a > b)
				continue;
			if (pcie) {
				int i = -1, j = -1;
				for (int k = 0; k < t->pi->ngpu; k++) {
					if (t->pi->idx[k] == (int)a) i = k;
					if (t->pi->idx[k] == (int)b) j = k;
				}
				if (i >= 0 && j >= 0 && !strncmp(t->pi->why[i][j], "NV", 2))
					continue; /* NS for PCIe is normal where NVLink carries P2P */
			}
			if (!first)
				first = cJSON_GetObjectItemCaseSensitive(pr, "source"), status = s;
			if (n < 12)
				buf_printf(&pairs, "%sGPU%d-GPU%d %s", n ? ", " : "", (int)a, (int)b, s);
			n++;
		}
		if (n > 0) {
			static const struct { const char *s, *m; } mean[] = {
				{"CNS", "chipset not supported"}, {"GNS", "GPU not supported"},
				{"TNS", "topology not supported"}, {"NS", "not supported"}, {"U", "unknown"},
				{"DR", "disabled by regkey"}, {NULL, NULL}};
			const char *meaning = "";
			for (int k = 0; mean[k].s; k++)
				if (!strcmp(status, mean[k].s))
					meaning = mean[k].m;
			struct caplist c = {0};
			char sb[600];
			caplist_add(&c, "pairs", "%s", pairs.data);
			caplist_add(&c, "cap", "%s", cap);
			caplist_add(&c, "status", "%s (%s)", status, meaning);
			caplist_add(&c, "groups", "%s", t->gt.data);
			caplist_add(&c, "recommend", "%s", t->rec.len ? t->rec.data : t->disabled ? "P2P is already disabled (NCCL_P2P_DISABLE=1)" : t->bw);
			emit(e, "topo.p2p_matrix_not_supported", first, &c,
			     "nvidia-smi topo -p2p %s reports %d GPU pair(s) without P2P: %s (%s = %s) [%s]; "
			     "P2P-capable groups: %s",
			     cap, n, pairs.data, status, meaning, src_str(first, sb, sizeof sb), t->gt.data);
		}
		buf_free(&pairs);
	}
}

/* 3. consumer GPUs */
static void rule_consumer_gpus(const cJSON *facts, const struct topoctx *t, struct emitter *e)
{
	int n = 0;
	const char *model = NULL;
	const cJSON *src = NULL, *g;
	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(facts, "gpus")) {
		const char *name = json_str(g, "name");
		if (sys_gpu_consumer_nop2p(name)) {
			n++;
			if (!model) {
				model = name;
				src = cJSON_GetObjectItemCaseSensitive(g, "source");
			}
		}
	}
	if (n >= 2 && !t->disabled) {
		struct caplist c = {0};
		char sb[600];
		caplist_add(&c, "gpu_model", "%s", model);
		caplist_add(&c, "recommend", "%s", t->bw);
		emit(e, "topo.consumer_gpu_p2p", src, &c,
		     "%d x %s [%s]: GeForce RTX 40xx/50xx boards have no working PCIe peer-to-peer; NCCL "
		     "either falls back or, where the driver still reports P2P, can hang after setting up "
		     "P2P channels", n, model, src_str(src, sb, sizeof sb));
	}
}

static void rule_topology(const cJSON *facts, const struct sys_logctx *lc, struct emitter *e)
{
	const cJSON *topo = cJSON_GetObjectItemCaseSensitive(facts, "topology");
	if (!topo)
		return;
	struct topoctx t;
	topo_read(facts, lc, &t);
	rule_p2p_through_cpu(topo, &t, e);
	rule_p2p_matrix(topo, &t, e);
	free(t.pi);
	t.pi = NULL;
	rule_consumer_gpus(facts, &t, e);
	buf_free(&t.gt);
	buf_free(&t.rec);
}

static void rule_hang_after_p2p(const cJSON *facts, const struct sys_logctx *lc, struct emitter *e,
                                int p2p_problem)
{
	if (!lc || !lc->p2p_last_text || !p2p_problem)
		return;
	(void)facts;
	struct caplist c = {0};
	cJSON *src = sys_source(lc->p2p_path, lc->p2p_line);
	caplist_add(&c, "last_line", "%s", lc->p2p_last_text);
	emit(e, "topo.hang_after_p2p_setup", src, &c,
	     "%d rank(s) stopped right after setting up P2P channels (last line: \"%s\") on GPUs whose P2P "
	     "path is unusable", lc->p2p_ranks > 0 ? lc->p2p_ranks : 1, lc->p2p_last_text);
	cJSON_Delete(src);
}

/* The versions the rules compare, with where each was read. */
struct vctx {
	const char *drv, *dcuda, *tcuda, *rt, *nvcc, *torch;
	const cJSON *sdrv, *sdc, *stc, *srt, *snv;
	cJSON *logsrc;   /* owned: the log's place of cudaDriverVersion, when used */
	int dmax;        /* the newest CUDA the driver supports, as 124; < 0 unknown */
};

static void versions_read(const cJSON *facts, const struct sys_logctx *lc, struct vctx *v)
{
	memset(v, 0, sizeof *v);
	v->sdrv = version(facts, "driver", &v->drv);
	v->sdc = version(facts, "cuda", &v->dcuda);
	v->stc = version(facts, "torch_cuda", &v->tcuda);
	v->srt = version(facts, "cuda_runtime", &v->rt);
	v->snv = version(facts, "nvcc", &v->nvcc);
	version(facts, "torch", &v->torch);
	/* driver's CUDA from the log when no nvidia-smi */
	if (!v->dcuda) {
		const cJSON *cdv = cJSON_GetObjectItemCaseSensitive(facts, "cuda_driver_versions");
		if (cJSON_GetArraySize(cdv) >= 1 && cJSON_IsString(cJSON_GetArrayItem(cdv, 0))) {
			v->dcuda = cJSON_GetArrayItem(cdv, 0)->valuestring;
			v->logsrc = sys_source(lc && lc->driver_path ? lc->driver_path : "NCCL log", lc ? lc->driver_line : 0);
			v->sdc = v->logsrc;
		}
	}
	v->dmax = cuda_code(v->dcuda);
	if (v->dmax < 0 && v->drv)
		v->dmax = driver_max_cuda(v->drv), v->sdc = v->sdrv;
}

/* The runtime in use (torch's build, else the pip runtime) against the driver. */
static void rule_driver_cuda(const struct vctx *v, struct emitter *e)
{
	char sb[600], sb2[600];
	const char *run = v->tcuda ? v->tcuda : v->rt;
	const cJSON *srun = v->tcuda ? v->stc : v->srt;
	const char *runwhat = v->tcuda ? "PyTorch's CUDA build" : "the CUDA runtime package";
	int rc = cuda_code(run);
	if (rc > 0 && v->dmax > 0 && rc > v->dmax) {
		struct caplist c = {0};
		const char *need = driver_min_for(rc);
		const char *fam = family_min(rc / 10);
		int minor_ok = rc / 10 == v->dmax / 10 && (!v->drv || !fam || version_cmp_str(v->drv, fam) >= 0);
		if (minor_ok) {
			caplist_add(&c, "runtime", "%s", run);
			caplist_add(&c, "driver_cuda", "%d.%d", v->dmax / 10, v->dmax % 10);
			caplist_add(&c, "recommend", "upgrade the driver to >= %s for full CUDA %s support", need ? need : "?", run);
			emit(e, "versions.minor_version_compat", srun, &c,
			     "%s is CUDA %s [%s] and the driver supports CUDA %d.%d [%s]: it runs under CUDA minor-version "
			     "compatibility (same major, driver >= %s), but features that need a newer driver (PTX JIT of newer "
			     "code) fail", runwhat, run, src_str(srun, sb, sizeof sb), v->dmax / 10, v->dmax % 10,
			     src_str(v->sdc, sb2, sizeof sb2), fam ? fam : "?");
		} else {
			caplist_add(&c, "runtime", "%s", run);
			caplist_add(&c, "driver_cuda", "%d.%d", v->dmax / 10, v->dmax % 10);
			if (v->drv)
				caplist_add(&c, "driver", "%s", v->drv);
			caplist_add(&c, "recommend", "install a driver >= %s (CUDA %s; minor-version compatibility needs >= %s), "
			        "or a PyTorch wheel built for CUDA <= %d.%d", need ? need : "?", run, fam ? fam : "?",
			        v->dmax / 10, v->dmax % 10);
			emit(e, "versions.driver_too_old_for_cuda", srun, &c,
			     "%s is CUDA %s [%s] but the driver%s%s supports CUDA %d.%d at most [%s]: CUDA %s needs a "
			     "driver >= %s (>= %s under minor-version compatibility)",
			     runwhat, run, src_str(srun, sb, sizeof sb), v->drv ? " " : "", v->drv ? v->drv : "", v->dmax / 10,
			     v->dmax % 10, src_str(v->sdc, sb2, sizeof sb2), run, need ? need : "?", fam ? fam : "?");
		}
	}
}

/* nvcc is for building extensions */
static void rule_nvcc(const struct vctx *v, struct emitter *e)
{
	char sb[600], sb2[600];
	int nc = cuda_code(v->nvcc), tc = cuda_code(v->tcuda);
	if (nc > 0 && tc > 0 && nc != tc) {
		struct caplist c = {0};
		caplist_add(&c, "nvcc", "%s", v->nvcc);
		caplist_add(&c, "torch_cuda", "%s", v->tcuda);
		emit(e, "versions.nvcc_differs_from_torch", v->snv, &c,
		     "nvcc is CUDA %s [%s] while PyTorch %s was built with CUDA %s [%s]: this matters only when "
		     "compiling CUDA extensions (flash-attn, apex, DeepSpeed ops); the PyTorch wheel runs on the CUDA "
		     "runtime it carries, not on the toolkit nvcc belongs to",
		     v->nvcc, src_str(v->snv, sb, sizeof sb), v->torch ? v->torch : "", v->tcuda, src_str(v->stc, sb2, sizeof sb2));
	}
}

/* GPU architecture against the build */
static void rule_arch(const cJSON *facts, const struct vctx *v, struct emitter *e)
{
	char sb[600], sb2[600];
	int tc = cuda_code(v->tcuda);
	const cJSON *g;
	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(facts, "gpus")) {
		double sm = 0;
		if (!json_num(g, "sm", &sm) && !json_num(g, "sm_from_name", &sm))
			continue;
		const char *name = json_str(g, "name");
		int need = sm_min_cuda((int)sm);
		const cJSON *src = cJSON_GetObjectItemCaseSensitive(g, "source");
		if (tc > 0 && need > 0 && tc < need) {
			struct caplist c = {0};
			caplist_add(&c, "arch", "sm_%d", (int)sm);
			caplist_add(&c, "torch_cuda", "%s", v->tcuda);
			caplist_add(&c, "recommend", "install a PyTorch wheel built for CUDA >= %d.%d (e.g. the cu%d index)",
			        need / 10, need % 10, need);
			emit(e, "versions.arch_not_in_build", v->stc, &c,
			     "%s is sm_%d [%s], which needs CUDA >= %d.%d, but PyTorch was built with CUDA %s [%s]: "
			     "its kernels do not include this architecture",
			     name ? name : "the GPU", (int)sm, src_str(src, sb, sizeof sb), need / 10, need % 10,
			     v->tcuda, src_str(v->stc, sb2, sizeof sb2));
			break;
		}
		if (tc >= 130 && sm > 0 && sm < 75) {
			struct caplist c = {0};
			caplist_add(&c, "arch", "sm_%d", (int)sm);
			caplist_add(&c, "torch_cuda", "%s", v->tcuda);
			caplist_add(&c, "recommend", "use a PyTorch wheel built for CUDA 12.x (the last with sm_%d)", (int)sm);
			emit(e, "versions.arch_not_in_build", v->stc, &c,
			     "%s is sm_%d [%s]; CUDA 13 dropped architectures before sm_75, and PyTorch here is "
			     "built with CUDA %s [%s]",
			     name ? name : "the GPU", (int)sm, src_str(src, sb, sizeof sb), v->tcuda,
			     src_str(v->stc, sb2, sizeof sb2));
			break;
		}
	}
}

/* NCCL 2.25.x on a consumer Blackwell GPU (sm_120: RTX 50xx, RTX PRO
 * Blackwell): that release's kernels ask for more shared memory than sm_120
 * offers (fixed in 2.26.2).  Only when the bundle shows both the GPU (facts.gpus
 * or an nccl-tests device line) and a 2.25 NCCL: without a version nothing is
 * said (no guess).  Evidence: the GPU's line. */
static void rule_nccl_on_blackwell(const cJSON *facts, struct emitter *e)
{
	/* the versions a defect range is tested on (ncclver.c: the most
	 * authoritative kind the bundle shows) */
	struct ncclver ov[NCCLVER_MAX];
	size_t nov = ncclver_collect(facts, ov, NCCLVER_MAX), first = 0;
	size_t nbest = ncclver_best(ov, nov, &first);
	const char *nccl = NULL;
	for (size_t k = first; k < nov && k < first + nbest && !nccl; k++)
		if (strncmp(ov[k].value, "2.25.", 5) == 0)
			nccl = ov[k].value;
	if (!nccl)
		return;
	const char *name = NULL;
	const cJSON *src = NULL, *g, *run, *d;
	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(facts, "gpus")) {
		double sm = 0;
		const char *n = json_str(g, "name");
		if ((json_num(g, "sm", &sm) || json_num(g, "sm_from_name", &sm)) ? sm == 120 : (n && sys_gpu_sm(n) == 120)) {
			name = n, src = cJSON_GetObjectItemCaseSensitive(g, "source");
			break;
		}
	}
	cJSON_ArrayForEach(run, json_get(json_get(facts, "nccl_tests"), "runs")) {
		cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(run, "devices")) {
			if (name)
				break;
			const char *n = json_str(d, "name");
			if (n && sys_gpu_sm(n) == 120)
				name = n, src = cJSON_GetObjectItemCaseSensitive(d, "source");
		}
	}
	if (!name)
		return;
	char sb[600];
	struct caplist c = {0};
	caplist_add(&c, "gpu", "%s", name);
	caplist_add(&c, "nccl", "%s", nccl);
	emit(e, "versions.nccl_2_25_on_sm120", src, &c,
	     "%s [%s] is consumer Blackwell (sm_120) and the job's NCCL is %s: NCCL 2.25's kernels need more shared "
	     "memory than sm_120 offers (fixed in 2.26.2)",
	     name, src_str(src, sb, sizeof sb), nccl);
}

/* The NCCL release of a package version that carries a 4th number of its
 * own ("2.21.5.1" of conda-forge, "2.18.1.0.3.0" of vllm-nccl-cu12):
 * its first three numbers, or the string as it is when it is no version. */
static void nccl3(const char *v, char *out, size_t n)
{
	struct version x;
	if (version_parse(v, &x) && x.n >= 3)
		snprintf(out, n, "%ld.%ld.%ld", x.part[0], x.part[1], x.part[2]);
	else
		snprintf(out, n, "%s", v);
}

/* several NCCL versions */
static void rule_multiple_nccl(const cJSON *facts, const struct sys_logctx *lc, struct emitter *e)
{
	char sb[600];
	struct buf w;
	buf_init(&w);
	int distinct = 0;
	char seen[8][24];
	const cJSON *first = NULL;
#define SEEN(v, where, src) do { \
int dup_ = 0; \
for (int k_ = 0; k_ < distinct; k_++) if (!strcmp(seen[k_], v)) dup_ = 1; \
if (!dup_ && distinct < 8) { snprintf(seen[distinct++], 24, "%.23s", v); } \
buf_printf(&w, "%s%s %s", w.len ? "; " : "", where, v); \
if (!first && (src)) first = (src); } while (0)
	const cJSON *nv = cJSON_GetObjectItemCaseSensitive(facts, "nccl_versions");
	const cJSON *x;
	cJSON_ArrayForEach(x, nv) if (cJSON_IsString(x)) SEEN(x->valuestring, "NCCL log banner", (const cJSON *)NULL);
	const char *np = NULL, *nt = NULL;
	const cJSON *snp = version(facts, "nccl_pip", &np);
	const cJSON *snt = version(facts, "nccl_torch", &nt);
	if (np) {
		char where[700];
		snprintf(where, sizeof where, "pip package [%s]", src_str(snp, sb, sizeof sb));
		SEEN(np, where, snp);
	}
	if (nt) {
		char where[700];
		snprintf(where, sizeof where, "torch.cuda.nccl.version() [%s]", src_str(snt, sb, sizeof sb));
		SEEN(nt, where, snt);
	}
	const char *ncv = NULL;
	const cJSON *snc = version(facts, "nccl_conda", &ncv);
	if (ncv) {
		/* conda-forge's "2.21.5.1": the 4th number is the package build */
		char v3[24], where[700];
		nccl3(ncv, v3, sizeof v3);
		snprintf(where, sizeof where, "conda package nccl %s [%s]", ncv, src_str(snc, sb, sizeof sb));
		SEEN(v3, where, snc);
	}
	/* what nccl-tests and ldd say the program ran with (ncclver.c reads them) */
	struct ncclver ov[NCCLVER_MAX];
	size_t nov = ncclver_collect(facts, ov, NCCLVER_MAX);
	for (size_t k = 0; k < nov; k++)
		if (ov[k].kind == NV_NCCLTESTS || ov[k].kind == NV_LDD)
			SEEN(ov[k].value, ov[k].where, (const cJSON *)NULL);
	/* several nvidia-nccl-cuXX packages side by side */
	int npk = 0;
	struct buf pk;
	buf_init(&pk);
	const cJSON *p;
	const cJSON *pkgs = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(facts, "versions"), "packages");
	cJSON_ArrayForEach(p, pkgs) {
		/* vLLM's own NCCL wheels (vllm-nccl-cu12 2.18.1.0.3.0: NCCL 2.18.1) are NCCLs too */
		int vllm = !strncmp(p->string, "vllm-nccl-cu", 12);
		if (strncmp(p->string, "nvidia-nccl", 11) && !vllm)
			continue;
		const char *pv = json_str(p, "version");
		struct version pvv;
		if (vllm && pv && version_parse(pv, &pvv) && pvv.n >= 3) {
			char v3[24], where[700];
			nccl3(pv, v3, sizeof v3);
			snprintf(where, sizeof where, "pip package %s %s [%s]", p->string, pv,
			         src_str(cJSON_GetObjectItemCaseSensitive(p, "source"), sb, sizeof sb));
			SEEN(v3, where, cJSON_GetObjectItemCaseSensitive(p, "source"));
		}
		npk++;
		buf_printf(&pk, "%s%s==%s", pk.len ? ", " : "", p->string, json_str(p, "version"));
		if (!first)
			first = cJSON_GetObjectItemCaseSensitive(p, "source");
	}
	if (distinct > 1 || npk > 1) {
		struct caplist c = {0};
		caplist_add(&c, "versions", "%s", w.data ? w.data : "");
		if (npk > 1)
			caplist_add(&c, "packages", "%s", pk.data);
		caplist_add(&c, "recommend", "make every rank load one libnccl: uninstall the extra nvidia-nccl-* wheel, "
		        "check LD_LIBRARY_PATH/LD_PRELOAD for a system libnccl, and use the same image on every node");
		cJSON *fallback = NULL;
		if (!first)
			first = fallback = sys_source(lc && lc->nccl_path ? lc->nccl_path : "NCCL log", lc ? lc->nccl_line : 0);
		emit(e, "versions.multiple_nccl", first, &c, "more than one NCCL in this job: %s%s%s",
		     w.data ? w.data : "", npk > 1 ? "; packages: " : "", npk > 1 ? pk.data : "");
		cJSON_Delete(fallback);
	}
#undef SEEN
	buf_free(&w);
	buf_free(&pk);
}

/* cu11/cu12/cu13 wheels side by side */
static void rule_mixed_wheels(const cJSON *facts, struct emitter *e)
{
	const cJSON *pkgs = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(facts, "versions"), "packages");
	const cJSON *p;
	int majors[4] = {0}; /* 10, 11, 12, 13 */
	struct buf ex[4];
	const cJSON *src[4] = {0};
	for (int k = 0; k < 4; k++)
		buf_init(&ex[k]);
	cJSON_ArrayForEach(p, pkgs) {
		const char *n = p->string;
		int maj = 0;
		const char *q = strstr(n, "-cu");
		if (q && isdigit((unsigned char)q[3]) && isdigit((unsigned char)q[4]))
			maj = (q[3] - '0') * 10 + (q[4] - '0');
		else if ((q = strstr(n, "-cuda")) && isdigit((unsigned char)q[5]) && isdigit((unsigned char)q[6]))
			maj = (q[5] - '0') * 10 + (q[6] - '0');
		const char *ver = json_str(p, "version");
		if (!maj && (!strcmp(n, "torch") || !strcmp(n, "torchvision") || !strcmp(n, "torchaudio")) && ver &&
		    (q = strstr(ver, "+cu")) && isdigit((unsigned char)q[3]) && isdigit((unsigned char)q[4])) {
			int d = atoi(q + 3);
			maj = d >= 100 ? d / 10 : d / 10; /* cu118 -> 11, cu92 -> 9 */
			if (d < 100)
				maj = d / 10;
		}
		if (maj < 10 || maj > 13)
			continue;
		int k = maj - 10;
		majors[k]++;
		if (ex[k].len < 200)
			buf_printf(&ex[k], "%s%s==%s", ex[k].len ? ", " : "", n, ver ? ver : "?");
		if (!src[k])
			src[k] = cJSON_GetObjectItemCaseSensitive(p, "source");
	}
	int kinds = 0;
	for (int k = 0; k < 4; k++)
		kinds += majors[k] > 0;
	if (kinds > 1) {
		struct buf all;
		buf_init(&all);
		const cJSON *first = NULL;
		for (int k = 0; k < 4; k++)
			if (majors[k]) {
				buf_printf(&all, "%sCUDA %d: %s", all.len ? "; " : "", 10 + k, ex[k].data);
				if (!first)
					first = src[k];
			}
		struct caplist c = {0};
		caplist_add(&c, "wheels", "%s", all.data);
		caplist_add(&c, "recommend", "keep one CUDA major: reinstall torch from one index (e.g. "
		        "--index-url https://download.pytorch.org/whl/cu1XY) and remove the other nvidia-*-cuNN wheels");
		emit(e, "versions.mixed_cuda_wheels", first, &c,
		     "wheels for more than one CUDA major version are installed side by side: %s", all.data);
		buf_free(&all);
	}
	for (int k = 0; k < 4; k++)
		buf_free(&ex[k]);
}

/* the same version key differing between reports (nodes) */
static void rule_versions_differ(const cJSON *facts, struct emitter *e)
{
	char sb[600];
	const cJSON *cf;
	cJSON_ArrayForEach(cf, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(facts, "versions"), "conflicts")) {
		const char *k = json_str(cf, "key");
		if (!k || (strcmp(k, "driver") && strcmp(k, "torch") && strcmp(k, "nccl_pip") && strcmp(k, "nccl_torch") &&
		           strcmp(k, "torch_cuda") && strcmp(k, "cuda")))
			continue;
		struct caplist c = {0};
		caplist_add(&c, "key", "%s", k);
		caplist_add(&c, "first", "%s", json_str(cf, "first"));
		caplist_add(&c, "second", "%s", json_str(cf, "value"));
		const cJSON *src = cJSON_GetObjectItemCaseSensitive(cf, "source");
		emit(e, "versions.differ_between_reports", src, &c,
		     "%s differs between the reports of this bundle: %s, and %s [%s] (different nodes or images?)",
		     k, json_str(cf, "first"), json_str(cf, "value"), src_str(src, sb, sizeof sb));
	}
}

static void rule_versions(const cJSON *facts, const struct sys_logctx *lc, struct emitter *e)
{
	struct vctx v;
	versions_read(facts, lc, &v);
	rule_driver_cuda(&v, e);
	rule_nvcc(&v, e);
	rule_arch(facts, &v, e);
	rule_nccl_on_blackwell(facts, e);
	rule_multiple_nccl(facts, lc, e);
	rule_mixed_wheels(facts, e);
	rule_versions_differ(facts, e);
	cJSON_Delete(v.logsrc);
}

/* OOM messages with their arithmetic, and the memory others held then */
static void rule_oom_events(const cJSON *mem, struct emitter *e)
{
	char sb[600];
	const cJSON *ev;
	int nev = 0;
	cJSON_ArrayForEach(ev, cJSON_GetObjectItemCaseSensitive(mem, "oom_events")) {
		if (nev++ >= 2)
			break;
		double tried, cap, fr, use, alloc, other, oth;
		const cJSON *src = cJSON_GetObjectItemCaseSensitive(ev, "source");
		double g = -1;
		json_num(ev, "gpu", &g);
		if (json_num(ev, "tried_mib", &tried) && json_num(ev, "capacity_mib", &cap)) {
			struct caplist c = {0};
			struct buf a;
			buf_init(&a);
			if (json_num(ev, "process_in_use_mib", &use))
				buf_printf(&a, "%.2f GiB in use by the process + %.2f GiB requested = %.2f GiB > %.2f GiB capacity",
				           mib_to_gib(use), mib_to_gib(tried), mib_to_gib(use + tried), mib_to_gib(cap));
			else if (json_num(ev, "allocated_mib", &alloc))
				buf_printf(&a, "%.2f GiB allocated by PyTorch + %.2f GiB requested = %.2f GiB against %.2f GiB capacity",
				           mib_to_gib(alloc), mib_to_gib(tried), mib_to_gib(alloc + tried), mib_to_gib(cap));
			else
				buf_printf(&a, "%.2f GiB requested of %.2f GiB capacity", mib_to_gib(tried), mib_to_gib(cap));
			if (json_num(ev, "free_mib", &fr))
				buf_printf(&a, " (only %.2f MiB free)", fr);
			caplist_add(&c, "arith", "%s", a.data);
			if (g >= 0)
				caplist_add(&c, "gpu", "%d", (int)g);
			emit(e, "memory.oom_event", src, &c, "PyTorch ran out of memory on GPU %d: %s [%s]", (int)g, a.data,
			     src_str(src, sb, sizeof sb));
			buf_free(&a);
		}
		/* memory held by others, from the same message */
		if ((json_num(ev, "other_processes_mib", &oth) && oth > 0) ||
		    (json_num(ev, "held_elsewhere_mib", &other) && other >= 1024)) {
			if (!json_num(ev, "other_processes_mib", &oth))
				oth = other;
			struct caplist c = {0};
			caplist_add(&c, "arith", "%.2f GiB capacity - %.2f MiB free - this process's in-use = %.2f GiB held by other processes",
			        json_num(ev, "capacity_mib", &cap) ? mib_to_gib(cap) : 0,
			        json_num(ev, "free_mib", &fr) ? fr : 0, mib_to_gib(oth));
			caplist_add(&c, "recommend", "free the GPU (nvidia-smi shows the processes; kill stale ones) or lower this job's share");
			emit(e, "memory.other_process_holds_memory", src, &c,
			     "%.2f GiB of GPU %d is held by other processes at the moment of the OOM [%s]", mib_to_gib(oth),
			     (int)g, src_str(src, sb, sizeof sb));
		}
	}
}

/* The log's CUDA memory failure of GPU g: the line of an OOM event of that
 * GPU (facts.memory.oom_events, "GPU 1 has a total capacity ..."), as the
 * log has it when it is among lc's lines, else the event's text; else the
 * log's first memory failure (no line says which GPU it was). */
static void oom_line_of(const cJSON *mem, const struct sys_logctx *lc, int g, const char **text, const char **path,
                        uint64_t *line)
{
	*text = lc->oom_text;
	*path = lc->oom_path;
	*line = lc->oom_line;
	const cJSON *ev;
	cJSON_ArrayForEach(ev, cJSON_GetObjectItemCaseSensitive(mem, "oom_events")) {
		double eg, el = 0;
		const cJSON *src = cJSON_GetObjectItemCaseSensitive(ev, "source");
		const char *ep = json_str(src, "path");
		if (!json_num(ev, "gpu", &eg) || (int)eg != g || !ep || !json_num(src, "line", &el))
			continue;
		for (size_t i = 0; i < lc->nooms; i++)
			if (lc->ooms[i].path && !strcmp(lc->ooms[i].path, ep) && lc->ooms[i].line == (uint64_t)el) {
				*text = lc->ooms[i].text;
				*path = lc->ooms[i].path;
				*line = lc->ooms[i].line;
				return;
			}
		if (json_str(ev, "text")) {
			*text = json_str(ev, "text");
			*path = ep;
			*line = (uint64_t)el;
			return;
		}
	}
}

/* traces at capacity */
static void rule_at_capacity(const cJSON *mem, const struct sys_logctx *lc, struct emitter *e)
{
	char sb[600];
	const cJSON *s;
	int at_cap = 0;
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(mem, "series")) {
		double pk, tot, frac, g, n = 0;
		if (!json_num(s, "peak_mib", &pk) || !json_num(s, "total_mib", &tot) || tot <= 0 ||
		    !json_num(s, "gpu", &g))
			continue;
		json_num(s, "sample_count", &n);
		frac = pk / tot;
		if (frac < 0.97 || at_cap >= 4)
			continue;
		at_cap++;
		const cJSON *src = cJSON_GetObjectItemCaseSensitive(s, "peak_source");
		const char *pts = json_str(s, "peak_ts");
		struct caplist c = {0};
		caplist_add(&c, "arith", "peak %.0f MiB of %.0f MiB = %.1f%% (headroom %.0f MiB)", pk, tot, frac * 100, tot - pk);
		caplist_add(&c, "gpu", "%d", (int)g);
		if (lc && lc->oom_in_log) {
			char sb2[600];
			const char *ot, *op;
			uint64_t ol;
			oom_line_of(mem, lc, (int)g, &ot, &op, &ol);
			cJSON *lsrc = sys_source(op, ol);
			/* quoted log text is cut visibly ("…"), never in silence */
			ot = ot ? ot : "";
			char *q200 = str_sanitize_cut(ot, strlen(ot), 200), *q160 = str_sanitize_cut(ot, strlen(ot), 160);
			caplist_add(&c, "log", "%s", q200);
			caplist_add(&c, "recommend", "shard the model over more GPUs or use GPUs with more memory, lower the batch "
			        "size or sequence length, or free the memory other processes hold; see `nccl-triage mem`");
			emit(e, "memory.oom_at_capacity", src, &c,
			     "GPU %d reached %.0f of %.0f MiB (%.1f%%, %.0f MiB headroom%s%s) [%s], and the log reports a CUDA "
			     "memory failure: \"%s\" [%s]; an NCCL 'unhandled cuda error' here is the OOM surfacing through NCCL",
			     (int)g, pk, tot, frac * 100, tot - pk, pts ? ", at " : "", pts ? pts : "", src_str(src, sb, sizeof sb),
			     q160, src_str(lsrc, sb2, sizeof sb2));
			free(q200);
			free(q160);
			cJSON_Delete(lsrc);
		} else {
			emit(e, "memory.near_capacity", src, &c,
			     "GPU %d reached %.0f of %.0f MiB (%.1f%%, %.0f MiB headroom) [%s]: any further allocation (an FSDP "
			     "unshard buffer, NCCL's own buffers) fails", (int)g, pk, tot, frac * 100, tot - pk,
			     src_str(src, sb, sizeof sb));
		}
	}
}

/* memory in use before the job: trace baseline */
static void rule_baseline(const cJSON *mem, struct emitter *e)
{
	char sb[600];
	const cJSON *s;
	cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(mem, "series")) {
		double base, tot, g, n = 0;
		if (!json_num(s, "baseline_mib", &base) || !json_num(s, "gpu", &g))
			continue;
		json_num(s, "sample_count", &n);
		if (n < 3 || base < 2048)
			continue;
		if (!json_num(s, "total_mib", &tot))
			tot = 0;
		const cJSON *src = cJSON_GetObjectItemCaseSensitive(s, "baseline_source");
		struct caplist c = {0};
		caplist_add(&c, "arith", "%.0f MiB in use at the first sample%s", base, tot > 0 ? "" : "");
		caplist_add(&c, "gpu", "%d", (int)g);
		caplist_add(&c, "recommend", "check `nvidia-smi` for processes left on the GPU before starting the job");
		emit(e, "memory.other_process_holds_memory", src, &c,
		     "GPU %d already had %.0f MiB%s in use when the trace started [%s]: memory held before this job ran "
		     "(another job, a stale process, or the job itself if the trace began late)",
		     (int)g, base, tot > 0 ? "" : "", src_str(src, sb, sizeof sb));
		break;
	}
}

/* several processes on one GPU in a process table */
static void rule_shared_gpu(const cJSON *mem, struct emitter *e)
{
	char sb[600];
	const cJSON *p, *q;
	const cJSON *procs = cJSON_GetObjectItemCaseSensitive(mem, "processes");
	int done[64] = {0};
	cJSON_ArrayForEach(p, procs) {
		double g;
		if (!json_num(p, "gpu", &g) || g < 0 || g >= 64 || done[(int)g])
			continue;
		int n = 0;
		struct buf l;
		buf_init(&l);
		cJSON_ArrayForEach(q, procs) {
			double g2, pid, u;
			if (!json_num(q, "gpu", &g2) || g2 != g || !json_num(q, "pid", &pid))
				continue;
			n++;
			const char *nm = json_str(q, "name");
			if (json_num(q, "used_mib", &u))
				buf_printf(&l, "%spid %.0f %s %.0f MiB", l.len ? ", " : "", pid, nm ? nm : "", u);
			else
				buf_printf(&l, "%spid %.0f %s %s", l.len ? ", " : "", pid, nm ? nm : "",
				           json_str(q, "used_text") ? json_str(q, "used_text") : "");
		}
		done[(int)g] = 1;
		if (n >= 2) {
			const cJSON *src = cJSON_GetObjectItemCaseSensitive(p, "source");
			struct caplist c = {0};
			caplist_add(&c, "processes", "%s", l.data);
			caplist_add(&c, "gpu", "%d", (int)g);
			caplist_add(&c, "recommend", "one job per GPU: stop the other process (or give it other GPUs with CUDA_VISIBLE_DEVICES)");
			emit(e, "memory.other_process_holds_memory", src, &c, "%d processes share GPU %d: %s [%s]", n,
			     (int)g, l.data, src_str(src, sb, sizeof sb));
		}
		buf_free(&l);
	}
}

static void rule_memory(const cJSON *facts, const struct sys_logctx *lc, struct emitter *e)
{
	const cJSON *mem = cJSON_GetObjectItemCaseSensitive(facts, "memory");
	rule_oom_events(mem, e);
	rule_at_capacity(mem, lc, e);
	rule_baseline(mem, e);
	rule_shared_gpu(mem, e);
}

static void rule_ecc(const cJSON *facts, struct emitter *e)
{
	const cJSON *g;
	char sb[600];
	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(facts, "gpus")) {
		const cJSON *ecc = cJSON_GetObjectItemCaseSensitive(g, "ecc");
		if (!ecc)
			continue;
		double idx = -1;
		json_num(g, "index", &idx);
		static const struct { const char *key, *what; } k[] = {
			{"volatile_uncorrectable", "uncorrectable ECC errors since the last reset"},
			{"remap_failure", "a row-remapping failure"},
			{"remap_pending", "a row remapping pending (needs a GPU reset)"},
			{"retired_pages_pending", "page retirement pending (needs a reset)"},
			{"aggregate_uncorrectable", "uncorrectable ECC errors over the GPU's lifetime"},
			{"retired_pages_dbe", "pages retired for double-bit errors"},
			{NULL, NULL}};
		for (int i = 0; k[i].key; i++) {
			const cJSON *o = cJSON_GetObjectItemCaseSensitive(ecc, k[i].key);
			double v = 0;
			const cJSON *src = NULL;
			if (cJSON_IsNumber(o))
				v = o->valuedouble, src = cJSON_GetObjectItemCaseSensitive(ecc, "source");
			else if (o && json_num(o, "value", &v))
				src = cJSON_GetObjectItemCaseSensitive(o, "source");
			if (v <= 0)
				continue;
			struct caplist c = {0};
			caplist_add(&c, "gpu", "%d", (int)idx);
			caplist_add(&c, "count", "%.0f", v);
			const char *id = i < 4 ? "ecc.uncorrectable" : "ecc.history";
			emit(e, id, src, &c, "GPU %d (%s) shows %s: %.0f [%s]", (int)idx,
			     json_str(g, "bus_id") ? json_str(g, "bus_id") : "?", k[i].what, v, src_str(src, sb, sizeof sb));
			break;
		}
	}
}

/* nvidia-smi -q's Fabric section (parse_nvsmi.c): Not Started / In Progress means
 * Fabric Manager (or the IMEX/NVLink fabric) never registered the GPU; Completed
 * with a Status other than Success means registration failed.  Not Supported and
 * N/A are GPUs without a fabric (PCIe, a single GPU, older drivers). */
static void fabric_one(const cJSON *fb, int idx, const char *bus, struct emitter *e)
{
	const char *st = json_str(fb, "state"), *status = json_str(fb, "status");
	char sb[600], who[96];
	if (!st)
		return;
	int waiting = !strcmp(st, "Not Started") || !strcmp(st, "In Progress");
	int failed = !strcmp(st, "Completed") && status && strcmp(status, "Success") && strcmp(status, "N/A");
	if (!waiting && !failed)
		return;
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(fb, "source");
	if (idx >= 0)
		snprintf(who, sizeof who, "GPU %d (%s)", idx, bus ? bus : "?");
	else
		snprintf(who, sizeof who, "a GPU (the excerpt names none)");
	struct caplist c = {0};
	caplist_add(&c, "gpu", "%s", who);
	caplist_add(&c, "state", "%s", st);
	caplist_add(&c, "status", "%s", status ? status : "N/A");
	emit(e, "fabric.gpu_not_registered", src, &c, "%s reports fabric state '%s', status '%s' [%s]: %s", who, st,
	     status ? status : "N/A", src_str(src, sb, sizeof sb),
	     waiting ? "the NVLink fabric has not registered it (Fabric Manager not running, still training the "
	               "links, or the GPU outside any active partition)"
	             : "its registration with the NVLink fabric completed with an error");
}

static void rule_fabric(const cJSON *facts, struct emitter *e)
{
	const cJSON *g;
	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(facts, "gpus")) {
		double idx = -1;
		json_num(g, "index", &idx);
		const cJSON *fb = cJSON_GetObjectItemCaseSensitive(g, "fabric");
		if (fb)
			fabric_one(fb, (int)idx, json_str(g, "bus_id"), e);
	}
	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(facts, "fabric_unattributed"))
		fabric_one(g, -1, NULL, e);
}

/* nvidia-smi nvlink -s: links shown <inactive> on a GPU that has NVLinks */
static void rule_nvlink(const cJSON *facts, struct emitter *e)
{
	const cJSON *g;
	char sb[600];
	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(facts, "gpus")) {
		const cJSON *nv = cJSON_GetObjectItemCaseSensitive(g, "nvlink");
		double idx = -1, links = 0, ina = 0;
		json_num(g, "index", &idx);
		if (!nv || !json_num(nv, "inactive", &ina) || ina <= 0)
			continue;
		json_num(nv, "links", &links);
		const cJSON *src = cJSON_GetObjectItemCaseSensitive(nv, "source");
		const char *which = json_str(nv, "inactive_links");
		struct caplist c = {0};
		caplist_add(&c, "gpu", "%d", (int)idx);
		caplist_add(&c, "inactive_links", "%s", which ? which : "?");
		caplist_add(&c, "links", "%.0f of %.0f", ina, links);
		emit(e, "nvlink.links_inactive", src, &c, "GPU %d (%s) shows %.0f of its %.0f NVLinks inactive (link %s) [%s]",
		     (int)idx, json_str(g, "bus_id") ? json_str(g, "bus_id") : "?", ina, links, which ? which : "?",
		     src_str(src, sb, sizeof sb));
	}
}

void sys_rules_eval(cJSON *facts, const struct sys_logctx *lc, sys_emit_fn fn, void *ctx)
{
	if (!facts || !fn)
		return;
	struct emitter e = {fn, ctx};
	sys_derive(facts);
	/* was a P2P problem found?  (for tying a hang to it) */
	struct seen {
		int any;
	} seen = {0};
	struct emitter probe;
	(void)probe;
	rule_topology(facts, lc, &e);
	/* P2P problem: any topology finding that makes P2P unusable */
	{
		const cJSON *topo = cJSON_GetObjectItemCaseSensitive(facts, "topology");
		const cJSON *l;
		cJSON_ArrayForEach(l, cJSON_GetObjectItemCaseSensitive(topo, "links")) {
			const char *t = json_str(l, "type");
			if (t && topo_link_through_cpu(t))
				seen.any = 1;
		}
		const cJSON *mt;
		cJSON_ArrayForEach(mt, cJSON_GetObjectItemCaseSensitive(topo, "p2p")) {
			double bad;
			const char *cap = json_str(mt, "cap");
			if (cap && (!strcmp(cap, "read") || !strcmp(cap, "write") || !strcmp(cap, "unknown")) &&
			    json_num(mt, "not_ok", &bad) && bad > 0)
				seen.any = 1;
		}
		int consumer = 0;
		const cJSON *g;
		cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(facts, "gpus"))
			consumer += sys_gpu_consumer_nop2p(json_str(g, "name"));
		if (consumer >= 2)
			seen.any = 1;
	}
	rule_hang_after_p2p(facts, lc, &e, seen.any);
	rule_versions(facts, lc, &e);
	rule_memory(facts, lc, &e);
	rule_ecc(facts, &e);
	rule_fabric(facts, &e);
	rule_nvlink(facts, &e);
}
