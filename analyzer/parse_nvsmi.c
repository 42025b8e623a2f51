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

#include "sysparse.h"

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

int sys_parse_nvsmi(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m)
{
	struct sys_lines it;
	char *line;
	char *f[8];
	int added = 0, dashboards = 0, in_procs = 0, in_mig = 0;
	int cur_gpu = -1;
	char ts[64] = "";
	double t = NAN;
	uint64_t unparsed_gpu_lines = 0;

	sys_lines_init(&it, text, len);
	while ((line = sys_lines_next(&it, NULL))) {
		size_t ln = strlen(line);
		if (strstr(line, "NVIDIA-SMI ") && strstr(line, "Driver Version")) {
			dashboards++;
			in_procs = in_mig = 0;
			cur_gpu = -1;
			const char *d = strstr(line, "Driver Version:");
			char v[64];
			if (d && sscanf(d + 15, " %63[0-9.]", v) == 1)
				added += sys_version_set(facts, "driver", v, path, it.lineno);
			const char *c = strstr(line, "CUDA Version:");
			if (c && sscanf(c + 13, " %63[0-9.]", v) == 1)
				added += sys_version_set(facts, "cuda", v, path, it.lineno);
			continue;
		}
		/* date line before each dashboard */
		if (!strchr(line, '|')) {
			double tt = tstamp_epoch_of(line);
			if (!isnan(tt)) {
				t = tt;
				snprintf(ts, sizeof ts, "%s", sys_trim(line));
			}
			in_procs = 0;
			continue;
		}
		if (sys_memcasestr(line, ln, "| Processes:")) {
			in_procs = 1;
			continue;
		}
		if (sys_memcasestr(line, ln, "| MIG devices:")) {
			in_mig = 1;
			continue;
		}
		if (dashboards == 0)
			continue;
		int nf = split_bars(line, f, 8);
		if (nf == 0)
			continue;
		if (in_procs) {
			/* GPU [GI CI] PID Type Process-name Memory */
			if (nf < 1)
				continue;
			char *tok[64];
			char *copy = xstrdup(f[0]);
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
					add_process(facts, path, it.lineno, gpu, pid, type, nm.len ? nm.data : NULL, mem);
					buf_free(&nm);
					added++;
				}
			}
			free(copy);
			continue;
		}
		if (in_mig)
			continue;
		/* GPU line 1: "0  NVIDIA H200   On" | "00000000:00:06.0 Off" | "0" */
		if (nf >= 3 && isdigit((unsigned char)f[0][0])) {
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
					cur_gpu = idx;
					cJSON *g = sys_gpu(facts, idx, 1);
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
					char *ecc = f[2];
					if (isdigit((unsigned char)ecc[0])) {
						cJSON *e = sys_obj(g, "ecc");
						if (!cJSON_GetObjectItemCaseSensitive(e, "volatile_uncorrectable")) {
							cJSON_AddNumberToObject(e, "volatile_uncorrectable", atof(ecc));
							sys_put_source(e, path, it.lineno);
						}
					}
					if (!cJSON_GetObjectItemCaseSensitive(g, "source"))
						sys_put_source(g, path, it.lineno);
					added++;
				}
			} else if (nt >= 2 && isdigit((unsigned char)tok[0][0])) {
				unparsed_gpu_lines++;
			}
			free(bus);
			free(c1);
			free(c2);
			continue;
		}
		/* GPU line 2: memory "0MiB / 143771MiB" in the second field */
		if (nf >= 2 && cur_gpu >= 0 && strstr(f[1], "MiB") && strchr(f[1], '/')) {
			const char *e;
			double used = sys_parse_mib(f[1], &e);
			const char *sl = strchr(f[1], '/');
			double total = sl ? sys_parse_mib(sl + 1, NULL) : NAN;
			if (!isnan(used) && !isnan(total)) {
				cJSON *g = sys_gpu(facts, cur_gpu, 1);
				if (!cJSON_GetObjectItemCaseSensitive(g, "memory_total_mib"))
					cJSON_AddNumberToObject(g, "memory_total_mib", total);
				sys_mem_sample(facts, path, it.lineno, cur_gpu, ts[0] ? ts : NULL, t, used, total);
				added++;
			}
			cur_gpu = -1;
		}
	}
	sys_lines_free(&it);
	if (unparsed_gpu_lines)
		msgs_add(m, "%s: %llu GPU rows without a readable bus id skipped", path,
		         (unsigned long long)unparsed_gpu_lines);
	if (dashboards == 0)
		msgs_add(m, "%s: no nvidia-smi dashboard found", path);
	else if (dashboards > 1) {
		cJSON *mem = sys_obj(facts, "memory");
		cJSON *d = cJSON_GetObjectItemCaseSensitive(mem, "dashboards");
		if (!d)
			cJSON_AddNumberToObject(mem, "dashboards", dashboards);
	}
	return added;
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

int sys_parse_nvsmi_q(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m)
{
	struct sys_lines it;
	char *line;
	char sect[8][64];
	int sind[8];
	int depth = 0, ordinal = -1, added = 0, attached = -1;
	struct qgpu q;
	memset(&q, 0, sizeof q);
	memset(sect, 0, sizeof sect);

	sys_lines_init(&it, text, len);
	while ((line = sys_lines_next(&it, NULL))) {
		int ind = 0;
		while (line[ind] == ' ')
			ind++;
		char *s = line + ind;
		if (!*s)
			continue;
		/* GPU section header at indent 0: "GPU 00000000:00:06.0" */
		if (ind == 0 && !strncmp(s, "GPU ", 4) && !strstr(s, " : ")) {
			char *bus = sys_bus_norm(s + 4);
			if (bus) {
				q_flush(&q, path);
				ordinal++;
				cJSON *g = sys_gpu_by_bus(facts, bus);
				if (!g) {
					g = sys_gpu(facts, ordinal, 1);
					const char *ob = json_str(g, "bus_id");
					if (ob && strcmp(ob, bus)) {
						msgs_add(m, "%s: line %llu: GPU %s is the %d-th GPU but gpus[%d] has bus %s; index left unknown",
						         path, (unsigned long long)it.lineno, bus, ordinal + 1, ordinal, ob);
						g = NULL;
					}
				}
				if (g) {
					if (!json_str(g, "bus_id"))
						sys_set_str(g, "bus_id", bus);
					if (!cJSON_GetObjectItemCaseSensitive(g, "source"))
						sys_put_source(g, path, it.lineno);
					q.g = g;
					added++;
				}
				free(bus);
				depth = 0;
				continue;
			}
		}
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
		while (depth > 0 && sind[depth - 1] >= ind)
			depth--;
		if (!val) {
			if (depth < 8) {
				snprintf(sect[depth], sizeof sect[depth], "%s", key);
				sind[depth] = ind;
				depth++;
			}
			continue;
		}
		if (ind == 0 || !q.g) {
			if (!strcmp(key, "Driver Version"))
				added += sys_version_set(facts, "driver", val, path, it.lineno);
			else if (!strcmp(key, "CUDA Version"))
				added += sys_version_set(facts, "cuda", val, path, it.lineno);
			else if (!strcmp(key, "Attached GPUs"))
				attached = atoi(val);
			continue;
		}
		int in_ecc = 0, in_vol = 0, in_agg = 0, in_dbit = 0, in_retired = 0, in_remap = 0, in_fb = 0;
		for (int i = 0; i < depth; i++) {
			if (!strcmp(sect[i], "ECC Errors")) in_ecc = 1;
			if (!strcmp(sect[i], "Volatile")) in_vol = 1;
			if (!strcmp(sect[i], "Aggregate")) in_agg = 1;
			if (!strcmp(sect[i], "Double Bit")) in_dbit = 1;
			if (!strcmp(sect[i], "Retired Pages")) in_retired = 1;
			if (!strcmp(sect[i], "Remapped Rows")) in_remap = 1;
			if (!strcmp(sect[i], "FB Memory Usage")) in_fb = 1;
		}
		int num = isdigit((unsigned char)val[0]);
		if (in_ecc && num && (strstr(key, "Uncorrectable") || (in_dbit && !strcmp(key, "Total")))) {
			if (in_vol) {
				q.vol_unc += atof(val);
				q.have_vol = 1;
				if (!q.vol_line || atof(val) > 0)
					q.vol_line = it.lineno;
			} else if (in_agg && !strstr(key, "Sources")) {
				q.agg_unc += atof(val);
				q.have_agg = 1;
				if (!q.agg_line || atof(val) > 0)
					q.agg_line = it.lineno;
			}
		} else if (in_retired) {
			if (!strcmp(key, "Double Bit ECC") && num) {
				q.retired_dbe = atof(val);
				q.have_retired = 1;
				q.retired_line = it.lineno;
			} else if (!strncmp(key, "Pending", 7) && (!strcmp(val, "Yes") || !strcmp(val, "No"))) {
				q.retired_pending = !strcmp(val, "Yes");
				q.pendpage_line = it.lineno;
			}
		} else if (in_remap) {
			if (!strcmp(key, "Uncorrectable Error") && num) {
				q.remap_unc = atof(val);
				q.have_remap = 1;
				q.remap_line = it.lineno;
			} else if (!strcmp(key, "Pending") && (!strcmp(val, "Yes") || !strcmp(val, "No"))) {
				q.remap_pending = !strcmp(val, "Yes");
				q.pend_line = it.lineno;
			} else if (!strcmp(key, "Remapping Failure Occurred")) {
				q.remap_failure = !strcmp(val, "Yes");
				q.fail_line = it.lineno;
			}
		} else if (in_fb) {
			if (!strcmp(key, "Total") && !cJSON_GetObjectItemCaseSensitive(q.g, "memory_total_mib")) {
				double v = sys_parse_mib(val, NULL);
				if (!isnan(v))
					cJSON_AddNumberToObject(q.g, "memory_total_mib", v);
			} else if (!strcmp(key, "Reserved") && !cJSON_GetObjectItemCaseSensitive(q.g, "memory_reserved_mib")) {
				double v = sys_parse_mib(val, NULL);
				if (!isnan(v))
					cJSON_AddNumberToObject(q.g, "memory_reserved_mib", v);
			} else if (!strcmp(key, "Used") && !cJSON_GetObjectItemCaseSensitive(q.g, "memory_used_mib")) {
				double v = sys_parse_mib(val, NULL);
				if (!isnan(v))
					cJSON_AddNumberToObject(q.g, "memory_used_mib", v);
			}
		} else if (depth == 0) {
			if (!strcmp(key, "Product Name") && !json_str(q.g, "name"))
				sys_set_str(q.g, "name", val);
			else if (!strcmp(key, "Product Name")) {
				if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(q.g, "name_truncated"))) {
					sys_set_str(q.g, "name", val);
					cJSON_DeleteItemFromObjectCaseSensitive(q.g, "name_truncated");
				}
			} else if (!strcmp(key, "Product Architecture"))
				sys_set_str(q.g, "architecture", val);
			else if (!strcmp(key, "Persistence Mode"))
				sys_set_str(q.g, "persistence", !strcmp(val, "Enabled") ? "on" : !strcmp(val, "Disabled") ? "off" : val);
			else if (!strcmp(key, "GPU UUID") && !json_str(q.g, "uuid"))
				sys_set_str(q.g, "uuid", val);
		}
	}
	q_flush(&q, path);
	sys_lines_free(&it);
	if (attached >= 0 && attached != ordinal + 1)
		msgs_add(m, "%s: says %d attached GPUs but %d GPU sections were readable", path, attached, ordinal + 1);
	if (!added)
		msgs_add(m, "%s: nothing readable in this nvidia-smi -q report", path);
	return added;
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

const struct sysreport_kind SYS_NVSMI_Q = {DOC_NVSMI_Q, "nvidia_smi_q", nvsmi_q_marker, NULL, sys_parse_nvsmi_q};
const struct sysreport_kind SYS_NVSMI = {DOC_NVSMI, "nvidia_smi", nvsmi_marker, NULL, sys_parse_nvsmi};
const struct sysreport_kind SYS_NVSMI_L = {DOC_NVSMI_L, "nvidia_smi_list", NULL, nvsmi_l_lines, sys_parse_nvsmi_l};
