/* parse_nvsmi.c - `nvidia-smi` dashboards (one, or repeated by `-l`),
 * `nvidia-smi -q` and `nvidia-smi -L` to facts: versions.driver and
 * versions.cuda (the driver's highest CUDA), gpus[] (index, name, bus id,
 * memory, persistence, uuid, ECC and row-remapping counters), memory series
 * (one sample per GPU per dashboard) and memory.processes from the process
 * table.  Values nvidia-smi truncated ("14038...") are kept as text only. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/sysparse.h"

/* ---------- dashboard ---------- */

static int split_bars(char *s, char **f, int max)
{
	int n = 0;
	char *p = strchr(s, '|');
	if (!p)
		return 0;
	p++;
	while (n < max) {
		char *q = strchr(p, '|');
		if (!q)
			break;
		*q = 0;
		f[n++] = sys_trim(p);
		p = q + 1;
	}
	return n;
}

static void add_process(cJSON *facts, const char *path, uint64_t line, int gpu, long pid,
                        const char *type, const char *name, const char *mem)
{
	cJSON *procs = sys_arr(sys_obj(facts, "memory"), "processes");
	cJSON *p;
	double mib = NAN;
	if (mem && strstr(mem, "iB") && !strstr(mem, "..."))
		mib = sys_parse_mib(mem, NULL);
	cJSON_ArrayForEach(p, procs) {
		double g, pd;
		if (json_num(p, "gpu", &g) && json_num(p, "pid", &pd) && (int)g == gpu && (long)pd == pid) {
			double old;
			if (!isnan(mib) && (!json_num(p, "used_mib", &old) || mib > old)) {
				sys_set_num(p, "used_mib", mib);
				sys_put_source(p, path, line);
			}
			return;
		}
	}
	if (cJSON_GetArraySize(procs) >= 4096)
		return;
	p = cJSON_CreateObject();
	cJSON_AddNumberToObject(p, "gpu", gpu);
	cJSON_AddNumberToObject(p, "pid", (double)pid);
	if (type)
		sys_set_str(p, "type", type);
	if (name)
		sys_set_str(p, "name", name);
	if (!isnan(mib))
		cJSON_AddNumberToObject(p, "used_mib", mib);
	else if (mem)
		sys_set_str(p, "used_text", mem);
	cJSON_AddItemToObject(p, "source", sys_source(path, line));
	cJSON_AddItemToArray(procs, p);
}

/* The dashboard parse, line by line. */
struct dash {
	cJSON *facts;
	const char *path;
	uint64_t lineno;
	int added, dashboards, in_procs, in_mig;
	int cur_gpu;                  /* after GPU line 1: its memory line follows */
	char ts[64];                  /* the date line before the dashboard */
	double t;
	uint64_t unparsed_gpu_lines;
};

/* "| NVIDIA-SMI 580.95.05   Driver Version: 580.95.05   CUDA Version: 13.0 |" */
static void dash_banner(struct dash *d, const char *line)
{
	d->dashboards++;
	d->in_procs = d->in_mig = 0;
	d->cur_gpu = -1;
	const char *dv = strstr(line, "Driver Version:");
	char v[64];
	if (dv && sscanf(dv + 15, " %63[0-9.]", v) == 1)
		d->added += sys_version_set(d->facts, "driver", v, d->path, d->lineno);
	const char *c = strstr(line, "CUDA Version:");
	if (c && sscanf(c + 13, " %63[0-9.]", v) == 1)
		d->added += sys_version_set(d->facts, "cuda", v, d->path, d->lineno);
}

/* Processes: GPU [GI CI] PID Type Process-name Memory */
static void dash_process(struct dash *d, const char *field)
{
	char *tok[64];
	char *copy = xstrdup(field);
	size_t nt = sys_split_ws(copy, tok, 64);
	if (nt >= 4 && isdigit((unsigned char)tok[0][0])) {
		int gpu = atoi(tok[0]);
		size_t k = 1;
		/* GI and CI columns (N/A or numbers) are there when the row has 6+ fields */
		if (nt >= 6 && (strcmp(tok[1], "N/A") == 0 || isdigit((unsigned char)tok[1][0])) &&
		    (strcmp(tok[2], "N/A") == 0 || isdigit((unsigned char)tok[2][0])) &&
		    isdigit((unsigned char)tok[3][0]))
			k = 3;
		if (k < nt && isdigit((unsigned char)tok[k][0])) {
			long pid = atol(tok[k]);
			const char *type = k + 1 < nt ? tok[k + 1] : NULL;
			const char *mem = tok[nt - 1];
			/* the process name is everything between type and memory */
			struct buf nm;
			buf_init(&nm);
			for (size_t j = k + 2; j + 1 < nt; j++) {
				if (nm.len)
					buf_addc(&nm, ' ');
				buf_adds(&nm, tok[j]);
			}
			add_process(d->facts, d->path, d->lineno, gpu, pid, type, nm.len ? nm.data : NULL, mem);
			buf_free(&nm);
			d->added++;
		}
	}
	free(copy);
}

/* A GPU's facts from line 1: name ("NVIDIA H200 ... On"), bus id, ECC. */
static void dash_gpu_facts(struct dash *d, cJSON *g, char **tok, size_t nt, const char *bus, const char *ecc)
{
	size_t last = nt;
	const char *pers = NULL;
	if (nt >= 3 && (!strcmp(tok[nt - 1], "On") || !strcmp(tok[nt - 1], "Off"))) {
		pers = tok[nt - 1];
		last = nt - 1;
	}
	struct buf nm;
	buf_init(&nm);
	for (size_t j = 1; j < last; j++) {
		if (nm.len)
			buf_addc(&nm, ' ');
		buf_adds(&nm, tok[j]);
	}
	if (!json_str(g, "name") && nm.len) {
		sys_set_str(g, "name", nm.data);
		if (strstr(nm.data, "..."))
			sys_set_bool(g, "name_truncated", 1);
	}
	buf_free(&nm);
	if (!json_str(g, "bus_id"))
		sys_set_str(g, "bus_id", bus);
	if (pers && !json_str(g, "persistence"))
		sys_set_str(g, "persistence", !strcmp(pers, "On") ? "on" : "off");
	if (isdigit((unsigned char)ecc[0])) {
		cJSON *e = sys_obj(g, "ecc");
		if (!cJSON_GetObjectItemCaseSensitive(e, "volatile_uncorrectable")) {
			cJSON_AddNumberToObject(e, "volatile_uncorrectable", atof(ecc));
			sys_put_source(e, d->path, d->lineno);
		}
	}
	if (!cJSON_GetObjectItemCaseSensitive(g, "source"))
		sys_put_source(g, d->path, d->lineno);
}

/* GPU line 1: "0  NVIDIA H200   On" | "00000000:00:06.0 Off" | "0" */
static void dash_gpu_line(struct dash *d, char **f)
{
	char *bus = NULL;
	char *tok[32];
	char *c1 = xstrdup(f[0]);
	size_t nt = sys_split_ws(c1, tok, 32);
	char *c2 = xstrdup(f[1]);
	char *t2[8];
	size_t n2 = sys_split_ws(c2, t2, 8);
	if (n2 >= 1)
		bus = sys_bus_norm(t2[0]);
	if (nt >= 2 && bus) {
		int idx = atoi(tok[0]);
		if (idx >= 0 && idx < SYS_MAX_GPUS) {
			d->cur_gpu = idx;
			dash_gpu_facts(d, sys_gpu(d->facts, idx, 1), tok, nt, bus, f[2]);
			d->added++;
		}
	} else if (nt >= 2 && isdigit((unsigned char)tok[0][0])) {
		d->unparsed_gpu_lines++;
	}
	free(bus);
	free(c1);
	free(c2);
}

/* GPU line 2: memory "0MiB / 143771MiB" in the second field */
static void dash_memory_line(struct dash *d, const char *field)
{
	const char *e;
	double used = sys_parse_mib(field, &e);
	const char *sl = strchr(field, '/');
	double total = sl ? sys_parse_mib(sl + 1, NULL) : NAN;
	if (!isnan(used) && !isnan(total)) {
		cJSON *g = sys_gpu(d->facts, d->cur_gpu, 1);
		if (!cJSON_GetObjectItemCaseSensitive(g, "memory_total_mib"))
			cJSON_AddNumberToObject(g, "memory_total_mib", total);
		sys_mem_sample(d->facts, d->path, d->lineno, d->cur_gpu, d->ts[0] ? d->ts : NULL, d->t, used, total);
		d->added++;
	}
	d->cur_gpu = -1;
}

static void dash_line(struct dash *d, char *line)
{
	size_t ln = strlen(line);
	char *f[8];
	if (strstr(line, "NVIDIA-SMI ") && strstr(line, "Driver Version")) {
		dash_banner(d, line);
		return;
	}
	/* date line before each dashboard */
	if (!strchr(line, '|')) {
		double tt = tstamp_epoch_of(line);
		if (!isnan(tt)) {
			d->t = tt;
			snprintf(d->ts, sizeof d->ts, "%s", sys_trim(line));
		}
		d->in_procs = 0;
		return;
	}
	if (sys_memcasestr(line, ln, "| Processes:")) {
		d->in_procs = 1;
		return;
	}
	if (sys_memcasestr(line, ln, "| MIG devices:")) {
		d->in_mig = 1;
		return;
	}
	if (d->dashboards == 0)
		return;
	int nf = split_bars(line, f, 8);
	if (nf == 0)
		return;
	if (d->in_procs)
		dash_process(d, f[0]);
	else if (d->in_mig)
		return;
	else if (nf >= 3 && isdigit((unsigned char)f[0][0]))
		dash_gpu_line(d, f);
	else if (nf >= 2 && d->cur_gpu >= 0 && strstr(f[1], "MiB") && strchr(f[1], '/'))
		dash_memory_line(d, f[1]);
}

int sys_parse_nvsmi(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m)
{
	struct dash d;
	memset(&d, 0, sizeof d);
	d.facts = facts;
	d.path = path;
	d.cur_gpu = -1;
	d.t = NAN;
	struct sys_lines it;
	char *line;
	sys_lines_init(&it, text, len);
	while ((line = sys_lines_next(&it, NULL))) {
		d.lineno = it.lineno;
		dash_line(&d, line);
	}
	sys_lines_free(&it);
	if (d.unparsed_gpu_lines)
		msgs_add(m, "%s: %llu GPU rows without a readable bus id skipped", path,
		         (unsigned long long)d.unparsed_gpu_lines);
	if (d.dashboards == 0)
		msgs_add(m, "%s: no nvidia-smi dashboard found", path);
	else if (d.dashboards > 1) {
		cJSON *mem = sys_obj(facts, "memory");
		cJSON *dd = cJSON_GetObjectItemCaseSensitive(mem, "dashboards");
		if (!dd)
			cJSON_AddNumberToObject(mem, "dashboards", d.dashboards);
	}
	return d.added;
}

/* ---------- nvidia-smi -L ---------- */

int sys_parse_nvsmi_l(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m)
{
	struct sys_lines it;
	char *line;
	int added = 0;
	sys_lines_init(&it, text, len);
	while ((line = sys_lines_next(&it, NULL))) {
		int idx, n = 0;
		if (sscanf(line, "GPU %d: %n", &idx, &n) != 1 || n == 0 || idx < 0 || idx >= SYS_MAX_GPUS)
			continue;
		char *name = line + n;
		char *u = strstr(name, " (UUID: ");
		char *uuid = NULL;
		if (u) {
			*u = 0;
			uuid = u + 8;
			char *e = strchr(uuid, ')');
			if (e)
				*e = 0;
		}
		cJSON *g = sys_gpu(facts, idx, 1);
		if (!json_str(g, "name") || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g, "name_truncated"))) {
			sys_set_str(g, "name", sys_trim(name));
			cJSON_DeleteItemFromObjectCaseSensitive(g, "name_truncated");
		}
		if (uuid && !json_str(g, "uuid"))
			sys_set_str(g, "uuid", uuid);
		if (!cJSON_GetObjectItemCaseSensitive(g, "source"))
			sys_put_source(g, path, it.lineno);
		added++;
	}
	sys_lines_free(&it);
	if (!added)
		msgs_add(m, "%s: no 'GPU N: name (UUID: ...)' lines found", path);
	return added;
}

/* ---------- nvidia-smi -q ---------- */

struct qgpu {
	cJSON *g;
	double vol_unc, agg_unc, retired_dbe, remap_unc;
	int have_vol, have_agg, have_retired, have_remap;
	uint64_t vol_line, agg_line, retired_line, remap_line, pend_line, fail_line, pendpage_line;
	int remap_pending, remap_failure, retired_pending;
};

static void q_flush(struct qgpu *q, const char *path)
{
	if (!q->g)
		return;
	cJSON *e = sys_obj(q->g, "ecc");
	cJSON_DeleteItemFromObjectCaseSensitive(e, "volatile_uncorrectable");
#define PUT(have, key, val, ln) do { if (have) { \
	cJSON *o = cJSON_CreateObject(); cJSON_AddNumberToObject(o, "value", val); \
	cJSON_AddItemToObject(o, "source", sys_source(path, ln)); \
	cJSON_DeleteItemFromObjectCaseSensitive(e, key); cJSON_AddItemToObject(e, key, o); } } while (0)
	PUT(q->have_vol, "volatile_uncorrectable", q->vol_unc, q->vol_line);
	PUT(q->have_agg, "aggregate_uncorrectable", q->agg_unc, q->agg_line);
	PUT(q->have_retired, "retired_pages_dbe", q->retired_dbe, q->retired_line);
	PUT(q->have_remap, "remapped_rows_uncorrectable", q->remap_unc, q->remap_line);
	PUT(q->pend_line, "remap_pending", q->remap_pending, q->pend_line);
	PUT(q->fail_line, "remap_failure", q->remap_failure, q->fail_line);
	PUT(q->pendpage_line, "retired_pages_pending", q->retired_pending, q->pendpage_line);
#undef PUT
	cJSON_DeleteItemFromObjectCaseSensitive(e, "source");
	if (!e->child)
		cJSON_DeleteItemFromObjectCaseSensitive(q->g, "ecc");
	memset(q, 0, sizeof *q);
}

/* The -q parse, line by line: the sections open at the current line. */
struct qparse {
	cJSON *facts;
	const char *path;
	struct msgs *m;
	uint64_t lineno;
	char sect[8][64];
	int sind[8];
	int depth, ordinal, added, attached;
	struct qgpu q;
};

/* "GPU 00000000:00:06.0" at indent 0: a new GPU section; 0 when s is not one. */
static int q_gpu_header(struct qparse *p, const char *s)
{
	char *bus = sys_bus_norm(s + 4);
	if (!bus)
		return 0;
	q_flush(&p->q, p->path);
	p->ordinal++;
	cJSON *g = sys_gpu_by_bus(p->facts, bus);
	if (!g) {
		g = sys_gpu(p->facts, p->ordinal, 1);
		const char *ob = json_str(g, "bus_id");
		if (ob && strcmp(ob, bus)) {
			msgs_add(p->m, "%s: line %llu: GPU %s is the %d-th GPU but gpus[%d] has bus %s; index left unknown",
			         p->path, (unsigned long long)p->lineno, bus, p->ordinal + 1, p->ordinal, ob);
			g = NULL;
		}
	}
	if (g) {
		if (!json_str(g, "bus_id"))
			sys_set_str(g, "bus_id", bus);
		if (!cJSON_GetObjectItemCaseSensitive(g, "source"))
			sys_put_source(g, p->path, p->lineno);
		p->q.g = g;
		p->added++;
	}
	free(bus);
	p->depth = 0;
	return 1;
}

static int in_section(const struct qparse *p, const char *name)
{
	for (int i = 0; i < p->depth; i++)
		if (!strcmp(p->sect[i], name))
			return 1;
	return 0;
}

/* ECC Errors: uncorrectable counts, volatile and aggregate */
static void q_ecc(struct qparse *p, const char *key, const char *val)
{
	struct qgpu *q = &p->q;
	if (in_section(p, "Volatile")) {
		q->vol_unc += atof(val);
		q->have_vol = 1;
		if (!q->vol_line || atof(val) > 0)
			q->vol_line = p->lineno;
	} else if (in_section(p, "Aggregate") && !strstr(key, "Sources")) {
		q->agg_unc += atof(val);
		q->have_agg = 1;
		if (!q->agg_line || atof(val) > 0)
			q->agg_line = p->lineno;
	}
}

static void q_retired(struct qparse *p, const char *key, const char *val, int num)
{
	struct qgpu *q = &p->q;
	if (!strcmp(key, "Double Bit ECC") && num) {
		q->retired_dbe = atof(val);
		q->have_retired = 1;
		q->retired_line = p->lineno;
	} else if (!strncmp(key, "Pending", 7) && (!strcmp(val, "Yes") || !strcmp(val, "No"))) {
		q->retired_pending = !strcmp(val, "Yes");
		q->pendpage_line = p->lineno;
	}
}

static void q_remapped(struct qparse *p, const char *key, const char *val, int num)
{
	struct qgpu *q = &p->q;
	if (!strcmp(key, "Uncorrectable Error") && num) {
		q->remap_unc = atof(val);
		q->have_remap = 1;
		q->remap_line = p->lineno;
	} else if (!strcmp(key, "Pending") && (!strcmp(val, "Yes") || !strcmp(val, "No"))) {
		q->remap_pending = !strcmp(val, "Yes");
		q->pend_line = p->lineno;
	} else if (!strcmp(key, "Remapping Failure Occurred")) {
		q->remap_failure = !strcmp(val, "Yes");
		q->fail_line = p->lineno;
	}
}

/* FB Memory Usage: Total, Reserved, Used (the first seen) */
static void q_fb(struct qparse *p, const char *key, const char *val)
{
	static const struct { const char *key, *fact; } F[] = {
		{"Total", "memory_total_mib"}, {"Reserved", "memory_reserved_mib"}, {"Used", "memory_used_mib"}};
	for (size_t i = 0; i < 3; i++)
		if (!strcmp(key, F[i].key)) {
			if (cJSON_GetObjectItemCaseSensitive(p->q.g, F[i].fact))
				return;
			double v = sys_parse_mib(val, NULL);
			if (!isnan(v))
				cJSON_AddNumberToObject(p->q.g, F[i].fact, v);
			return;
		}
}

/* keys directly in the GPU section */
static void q_gpu_key(struct qparse *p, const char *key, const char *val)
{
	cJSON *g = p->q.g;
	if (!strcmp(key, "Product Name") && !json_str(g, "name"))
		sys_set_str(g, "name", val);
	else if (!strcmp(key, "Product Name")) {
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g, "name_truncated"))) {
			sys_set_str(g, "name", val);
			cJSON_DeleteItemFromObjectCaseSensitive(g, "name_truncated");
		}
	} else if (!strcmp(key, "Product Architecture"))
		sys_set_str(g, "architecture", val);
	else if (!strcmp(key, "Persistence Mode"))
		sys_set_str(g, "persistence", !strcmp(val, "Enabled") ? "on" : !strcmp(val, "Disabled") ? "off" : val);
	else if (!strcmp(key, "GPU UUID") && !json_str(g, "uuid"))
		sys_set_str(g, "uuid", val);
}

/* "Key : value" inside a GPU section */
static void q_value(struct qparse *p, const char *key, const char *val)
{
	int num = isdigit((unsigned char)val[0]);
	if (in_section(p, "ECC Errors") && num &&
	    (strstr(key, "Uncorrectable") || (in_section(p, "Double Bit") && !strcmp(key, "Total"))))
		q_ecc(p, key, val);
	else if (in_section(p, "Retired Pages"))
		q_retired(p, key, val, num);
	else if (in_section(p, "Remapped Rows"))
		q_remapped(p, key, val, num);
	else if (in_section(p, "FB Memory Usage"))
		q_fb(p, key, val);
	else if (p->depth == 0)
		q_gpu_key(p, key, val);
}

static void q_line(struct qparse *p, char *line)
{
	int ind = 0;
	while (line[ind] == ' ')
		ind++;
	char *s = line + ind;
	if (!*s)
		return;
	if (ind == 0 && !strncmp(s, "GPU ", 4) && !strstr(s, " : ") && q_gpu_header(p, s))
		return;
	char *colon = strstr(s, " : ");
	char *key = s, *val = NULL;
	if (colon) {
		*colon = 0;
		key = sys_trim(s);
		val = sys_trim(colon + 3);
	} else {
		size_t kl = strlen(s);
		if (kl && s[kl - 1] == ':')
			s[kl - 1] = 0; /* "Key :" with an empty value */
		key = sys_trim(s);
	}
	while (p->depth > 0 && p->sind[p->depth - 1] >= ind)
		p->depth--;
	if (!val) {
		if (p->depth < 8) {
			snprintf(p->sect[p->depth], sizeof p->sect[p->depth], "%s", key);
			p->sind[p->depth] = ind;
			p->depth++;
		}
		return;
	}
	if (ind == 0 || !p->q.g) {
		if (!strcmp(key, "Driver Version"))
			p->added += sys_version_set(p->facts, "driver", val, p->path, p->lineno);
		else if (!strcmp(key, "CUDA Version"))
			p->added += sys_version_set(p->facts, "cuda", val, p->path, p->lineno);
		else if (!strcmp(key, "Attached GPUs"))
			p->attached = atoi(val);
		return;
	}
	q_value(p, key, val);
}

int sys_parse_nvsmi_q(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m)
{
	struct qparse p;
	memset(&p, 0, sizeof p);
	p.facts = facts;
	p.path = path;
	p.m = m;
	p.ordinal = -1;
	p.attached = -1;
	struct sys_lines it;
	char *line;
	sys_lines_init(&it, text, len);
	while ((line = sys_lines_next(&it, NULL))) {
		p.lineno = it.lineno;
		q_line(&p, line);
	}
	q_flush(&p.q, path);
	sys_lines_free(&it);
	if (p.attached >= 0 && p.attached != p.ordinal + 1)
		msgs_add(m, "%s: says %d attached GPUs but %d GPU sections were readable", path, p.attached, p.ordinal + 1);
	if (!p.added)
		msgs_add(m, "%s: nothing readable in this nvidia-smi -q report", path);
	return p.added;
}

/* ---- recognising them ---- */

static int nvsmi_q_marker(const char *h, size_t n)
{
	return sys_has(h, n, "==============NVSMI LOG==============");
}

static int nvsmi_marker(const char *h, size_t n)
{
	return sys_has(h, n, "| NVIDIA-SMI ") && sys_has(h, n, "Driver Version");
}

static int nvsmi_l_lines(const struct sys_head *h)
{
	return h->gpu_l >= 1 && h->gpu_l * 2 >= h->lines;
}

const struct sysreport_kind SYS_NVSMI_Q = {DOC_NVSMI_Q, "nvidia_smi_q", nvsmi_q_marker, NULL, sys_parse_nvsmi_q, 0};
const struct sysreport_kind SYS_NVSMI = {DOC_NVSMI, "nvidia_smi", nvsmi_marker, NULL, sys_parse_nvsmi, 1};
const struct sysreport_kind SYS_NVSMI_L = {DOC_NVSMI_L, "nvidia_smi_list", NULL, nvsmi_l_lines, sys_parse_nvsmi_l, 0};
