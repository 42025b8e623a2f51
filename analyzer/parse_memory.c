/* parse_memory.c - GPU memory over time and at the moment of failure:
 *  - `nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits] -l/-lms`
 *    traces in any column order (a header names the columns; without one the
 *    columns are inferred from the values and the guess is reported);
 *  - `--query-compute-apps=pid,...,used_memory` tables (memory.processes);
 *  - PyTorch "CUDA out of memory" messages, old and new wording
 *    (memory.oom_events, with every number the message gives).
 * Samples go to facts.memory.series[] (one per document and GPU) through
 * sys_mem_sample(), which also keeps peak, baseline, headroom and gaps. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"
#include "sysparse.h"

/* ---------- series ---------- */

static cJSON *find_series(cJSON *facts, const char *path, int gpu)
{
	cJSON *ser = sys_arr(sys_obj(facts, "memory"), "series");
	cJSON *s;
	cJSON_ArrayForEach(s, ser) {
		double g;
		const char *p = sys_get_str(s, "path");
		if (p && !strcmp(p, path) && sys_get_num(s, "gpu", &g) && (int)g == gpu)
			return s;
	}
	if (cJSON_GetArraySize(ser) >= 1024)
		return NULL;
	s = cJSON_CreateObject();
	cJSON_AddNumberToObject(s, "gpu", gpu);
	cJSON_AddStringToObject(s, "path", path);
	cJSON_AddItemToObject(s, "samples", cJSON_CreateArray());
	cJSON_AddNumberToObject(s, "sample_count", 0);
	cJSON_AddItemToArray(ser, s);
	return s;
}

void sys_mem_sample(cJSON *facts, const char *path, uint64_t line, int gpu,
                    const char *ts, double t, double used, double total)
{
	if (isnan(used) || used < 0)
		return;
	cJSON *s = find_series(facts, path, gpu);
	if (!s)
		return;
	double n = 0, t0, last, peak, iv;
	sys_get_num(s, "sample_count", &n);
	double rel = NAN;
	if (!isnan(t)) {
		if (!sys_get_num(s, "start_epoch_s", &t0)) {
			t0 = t;
			cJSON_AddNumberToObject(s, "start_epoch_s", t0);
			if (ts)
				sys_set_str(s, "start", ts);
		}
		rel = round((t - t0) * 1000.0) / 1000.0;
		if (sys_get_num(s, "last_t", &last)) {
			double d = rel - last;
			if (d > 0) {
				if (!sys_get_num(s, "interval_s", &iv) || d < iv)
					sys_set_num(s, "interval_s", d);
				sys_get_num(s, "interval_s", &iv);
				if (d > 2.0 && d > 5 * iv) {
					double g = 0, mg = 0;
					sys_get_num(s, "gaps", &g);
					sys_set_num(s, "gaps", g + 1);
					if (!sys_get_num(s, "max_gap_s", &mg) || d > mg)
						sys_set_num(s, "max_gap_s", d);
				}
			}
		}
		sys_set_num(s, "last_t", rel);
	}
	if (n == 0) {
		sys_set_num(s, "baseline_mib", used);
		cJSON_AddItemToObject(s, "baseline_source", sys_source(path, line));
	}
	sys_set_num(s, "sample_count", n + 1);
	if (n < SYS_MEM_MAX_SAMPLES) {
		cJSON *o = cJSON_CreateObject();
		if (isnan(rel))
			cJSON_AddNullToObject(o, "t");
		else
			cJSON_AddNumberToObject(o, "t", rel);
		cJSON_AddNumberToObject(o, "used_mib", used);
		if (!isnan(total))
			cJSON_AddNumberToObject(o, "total_mib", total);
		cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(s, "samples"), o);
	} else {
		double d = 0;
		sys_get_num(s, "samples_dropped", &d);
		sys_set_num(s, "samples_dropped", d + 1);
	}
	if (!sys_get_num(s, "peak_mib", &peak) || used > peak) {
		sys_set_num(s, "peak_mib", used);
		if (isnan(rel))
			cJSON_DeleteItemFromObjectCaseSensitive(s, "peak_t");
		else
			sys_set_num(s, "peak_t", rel);
		if (ts)
			sys_set_str(s, "peak_ts", ts);
		cJSON_DeleteItemFromObjectCaseSensitive(s, "peak_source");
		cJSON_AddItemToObject(s, "peak_source", sys_source(path, line));
	}
	if (!isnan(total)) {
		double ot;
		if (!sys_get_num(s, "total_mib", &ot) || total > ot)
			sys_set_num(s, "total_mib", total);
	}
	double pk, tt;
	if (sys_get_num(s, "peak_mib", &pk) && sys_get_num(s, "total_mib", &tt)) {
		sys_set_num(s, "headroom_mib", tt - pk);
		sys_set_num(s, "peak_fraction", round(pk / tt * 10000.0) / 10000.0);
	}
}

/* ---------- CSV ---------- */

enum role { R_NONE, R_TS, R_INDEX, R_BUS, R_NAME, R_UUID, R_USED, R_TOTAL, R_FREE, R_RESERVED,
	    R_PID, R_PROC, R_APPMEM };

#define MAXF 64

static enum role role_of(const char *name)
{
	static const struct { const char *n; enum role r; } t[] = {
		{"timestamp", R_TS}, {"index", R_INDEX}, {"pci.bus_id", R_BUS}, {"gpu_bus_id", R_BUS},
		{"name", R_NAME}, {"gpu_name", R_NAME}, {"uuid", R_UUID}, {"gpu_uuid", R_UUID},
		{"memory.used", R_USED}, {"memory.total", R_TOTAL}, {"memory.free", R_FREE},
		{"memory.reserved", R_RESERVED}, {"pid", R_PID}, {"process_name", R_PROC},
		{"used_gpu_memory", R_APPMEM}, {"used_memory", R_APPMEM}, {NULL, R_NONE}};
	for (int i = 0; t[i].n; i++)
		if (!strcasecmp(name, t[i].n))
			return t[i].r;
	return R_NONE;
}

static size_t split_csv(char *s, char **f, size_t max)
{
	size_t n = 0;
	for (;;) {
		char *c = strchr(s, ',');
		if (c)
			*c = 0;
		if (n < max)
			f[n++] = sys_trim(s);
		if (!c)
			break;
		s = c + 1;
	}
	return n;
}

static double mem_value(const char *v, int unit_gib)
{
	if (!*v || v[0] == '[' || !strcmp(v, "N/A"))
		return NAN;
	double x = sys_parse_mib(v, NULL);
	if (!isnan(x))
		return x;
	char *e;
	x = strtod(v, &e);
	if (e == v || *e)
		return NAN;
	return unit_gib ? x * 1024 : x;
}

static int is_header(char **f, size_t n)
{
	int known = 0;
	for (size_t i = 0; i < n; i++) {
		char name[64];
		snprintf(name, sizeof name, "%s", f[i]);
		char *b = strchr(name, ' ');
		if (b)
			*b = 0;
		if (role_of(name) != R_NONE || !strncmp(name, "utilization.", 12) || !strncmp(name, "temperature.", 12) ||
		    !strncmp(name, "power.", 6) || !strncmp(name, "clocks.", 7))
			known++;
	}
	return known >= 2 || (n == 1 && known == 1);
}

int sys_parse_mem_csv(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m)
{
	struct sys_lines it;
	char *line;
	char *f[MAXF];
	enum role roles[MAXF];
	int gib[MAXF];
	size_t ncol = 0;
	int have_header = 0, guessed = 0, added = 0;
	uint64_t bad = 0, first_bad = 0;
	char *busmap[SYS_MAX_GPUS / 8];
	int nbus = 0;

	memset(roles, 0, sizeof roles);
	memset(gib, 0, sizeof gib);
	/* guess columns from the first rows when there is no header */
	{
		struct sys_lines g;
		sys_lines_init(&g, text, len);
		int rows = 0;
		int isTs[MAXF] = {0}, isBus[MAXF] = {0}, isMem[MAXF] = {0}, isInt[MAXF] = {0}, isConst[MAXF];
		double first[MAXF], maxv[MAXF];
		size_t gn = 0;
		for (int i = 0; i < MAXF; i++)
			isConst[i] = 1, first[i] = NAN, maxv[i] = 0;
		while ((line = sys_lines_next(&g, NULL)) && rows < 64) {
			size_t n = split_csv(line, f, MAXF);
			if (n < 2)
				continue;
			if (is_header(f, n)) {
				have_header = 1;
				break;
			}
			if (gn == 0)
				gn = n;
			if (n != gn)
				continue;
			rows++;
			for (size_t i = 0; i < n; i++) {
				char *nb = strchr(f[i], ':') ? sys_bus_norm(f[i]) : NULL;
				if (!isnan(sys_parse_time(f[i])))
					isTs[i]++;
				else if (nb)
					isBus[i]++;
				else if (strstr(f[i], "MiB"))
					isMem[i]++;
				else {
					char *e;
					strtol(f[i], &e, 10);
					if (e != f[i] && !*e)
						isInt[i]++;
				}
				free(nb);
				double v = mem_value(f[i], 0);
				if (!isnan(v)) {
					if (isnan(first[i]))
						first[i] = v;
					else if (v != first[i])
						isConst[i] = 0;
					if (v > maxv[i])
						maxv[i] = v;
				}
			}
		}
		sys_lines_free(&g);
		if (!have_header && rows > 0) {
			ncol = gn;
			int nmem = 0, memcols[MAXF];
			for (size_t i = 0; i < gn; i++) {
				if (isTs[i] == rows) roles[i] = R_TS;
				else if (isBus[i] == rows) roles[i] = R_BUS;
				else if (isMem[i] == rows) memcols[nmem++] = (int)i;
			}
			if (nmem == 0) {
				/* nounits: large integer columns are memory */
				for (size_t i = 0; i < gn; i++)
					if (isInt[i] == rows && roles[i] == R_NONE && maxv[i] >= 1024)
						memcols[nmem++] = (int)i;
			}
			for (size_t i = 0; i < gn; i++)
				if (isInt[i] == rows && roles[i] == R_NONE && maxv[i] < SYS_MAX_GPUS) {
					int ismem = 0;
					for (int k = 0; k < nmem; k++)
						if (memcols[k] == (int)i)
							ismem = 1;
					if (!ismem) {
						roles[i] = R_INDEX;
						break;
					}
				}
			if (nmem == 1) {
				roles[memcols[0]] = R_USED;
			} else if (nmem == 2) {
				int a = memcols[0], b = memcols[1];
				if (isConst[b] && maxv[b] >= maxv[a]) roles[a] = R_USED, roles[b] = R_TOTAL;
				else if (isConst[a] && maxv[a] >= maxv[b]) roles[b] = R_USED, roles[a] = R_TOTAL;
				else
					msgs_add(m, "%s: no header, and neither of two memory columns is constant: memory.total unknown", path);
			} else if (nmem > 2) {
				for (int k = 0; k < nmem; k++)
					if (isConst[memcols[k]])
						roles[memcols[k]] = R_TOTAL;
				msgs_add(m, "%s: no header and %d memory columns: memory.used cannot be told from memory.free; only memory.total kept",
				         path, nmem);
			}
			guessed = 1;
			msgs_add(m, "%s: CSV without a header: columns inferred from the values", path);
		}
	}

	sys_lines_init(&it, text, len);
	while ((line = sys_lines_next(&it, NULL))) {
		size_t n = split_csv(line, f, MAXF);
		if (n == 1 && !*f[0])
			continue;
		if (is_header(f, n)) {
			ncol = n;
			for (size_t i = 0; i < n; i++) {
				char name[64];
				snprintf(name, sizeof name, "%s", f[i]);
				gib[i] = strstr(f[i], "[GiB]") != NULL;
				char *b = strchr(name, ' ');
				if (b)
					*b = 0;
				roles[i] = role_of(name);
			}
			continue;
		}
		if (ncol == 0 || n != ncol) {
			if (!bad)
				first_bad = it.lineno;
			bad++;
			continue;
		}
		int gpu = -1;
		double t = NAN, used = NAN, total = NAN, freem = NAN;
		const char *ts = NULL, *bus = NULL;
		long pid = -1;
		const char *pname = NULL;
		double appmem = NAN;
		for (size_t i = 0; i < n; i++) {
			switch (roles[i]) {
			case R_TS: t = sys_parse_time(f[i]); ts = f[i]; break;
			case R_INDEX: if (isdigit((unsigned char)f[i][0])) gpu = atoi(f[i]); break;
			case R_BUS: bus = f[i]; break;
			case R_USED: used = mem_value(f[i], gib[i]); break;
			case R_TOTAL: total = mem_value(f[i], gib[i]); break;
			case R_FREE: freem = mem_value(f[i], gib[i]); break;
			case R_PID: if (isdigit((unsigned char)f[i][0])) pid = atol(f[i]); break;
			case R_PROC: pname = f[i]; break;
			case R_APPMEM: appmem = mem_value(f[i], gib[i]); break;
			default: break;
			}
		}
		if (pid >= 0) {
			cJSON *p = cJSON_CreateObject();
			cJSON_AddNumberToObject(p, "pid", (double)pid);
			if (gpu >= 0)
				cJSON_AddNumberToObject(p, "gpu", gpu);
			if (bus)
				sys_set_str(p, "bus_id", bus);
			if (pname)
				sys_set_str(p, "name", pname);
			if (!isnan(appmem))
				cJSON_AddNumberToObject(p, "used_mib", appmem);
			cJSON_AddItemToObject(p, "source", sys_source(path, it.lineno));
			cJSON *procs = sys_arr(sys_obj(facts, "memory"), "processes");
			if (cJSON_GetArraySize(procs) < 4096)
				cJSON_AddItemToArray(procs, p);
			else
				cJSON_Delete(p);
			added++;
			continue;
		}
		if (isnan(used) && !isnan(total) && !isnan(freem))
			used = total - freem; /* reserved memory counts as used here */
		if (gpu < 0 && bus) {
			char *nb = sys_bus_norm(bus);
			cJSON *g = nb ? sys_gpu_by_bus(facts, nb) : NULL;
			double gi;
			if (g && sys_get_num(g, "index", &gi))
				gpu = (int)gi;
			else if (nb) {
				for (int k = 0; k < nbus; k++)
					if (!strcmp(busmap[k], nb))
						gpu = k;
				if (gpu < 0 && nbus < (int)(sizeof busmap / sizeof *busmap)) {
					busmap[nbus] = xstrdup(nb);
					gpu = nbus++;
				}
			}
			free(nb);
		}
		if (gpu < 0 && ncol > 0) {
			int hasidx = 0;
			for (size_t i = 0; i < ncol; i++)
				if (roles[i] == R_INDEX || roles[i] == R_BUS)
					hasidx = 1;
			if (!hasidx)
				gpu = 0; /* a single-GPU query (-i N) without index column */
		}
		if (gpu < 0 || isnan(used)) {
			if (!bad)
				first_bad = it.lineno;
			bad++;
			continue;
		}
		sys_mem_sample(facts, path, it.lineno, gpu, ts, t, used, total);
		added++;
	}
	sys_lines_free(&it);
	for (int k = 0; k < nbus; k++)
		free(busmap[k]);
	if (bad)
		msgs_add(m, "%s: %llu lines of the memory trace skipped (first at line %llu)", path,
		         (unsigned long long)bad, (unsigned long long)first_bad);
	if (guessed && added) {
		cJSON *s;
		cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(sys_obj(facts, "memory"), "series")) {
			const char *p = sys_get_str(s, "path");
			if (p && !strcmp(p, path))
				sys_set_bool(s, "columns_guessed", 1);
		}
	}
	if (!added)
		msgs_add(m, "%s: no memory samples found", path);
	return added;
}

/* ---------- PyTorch OOM ---------- */

/* value in MiB of the size that ends right before p (e.g. "4.00 GiB" before
 * " is free"), searching backwards over at most 40 bytes */
static double size_before(const char *start, const char *p)
{
	const char *q = p;
	while (q > start && q[-1] == ' ')
		q--;
	const char *u = q;
	while (u > start && isalpha((unsigned char)u[-1]))
		u--;
	const char *num = u;
	while (num > start && num[-1] == ' ')
		num--;
	while (num > start && (isdigit((unsigned char)num[-1]) || num[-1] == '.'))
		num--;
	if (num == u || p - num > 40)
		return NAN;
	char tmp[64];
	size_t l = (size_t)(q - num);
	if (l >= sizeof tmp)
		return NAN;
	memcpy(tmp, num, l);
	tmp[l] = 0;
	return sys_parse_mib(tmp, NULL);
}

static const char *find(const char *s, size_t n, const char *needle)
{
	return memmem(s, n, needle, strlen(needle));
}

int sysreport_torch_oom(const char *line, size_t len, cJSON *facts, const char *path, uint64_t lineno)
{
	if (!line || !facts)
		return 0;
	const char *o = find(line, len, "CUDA out of memory");
	if (!o)
		return 0;
	const char *end = line + len;
	size_t rest = (size_t)(end - o);
	cJSON *ev = cJSON_CreateObject();
	int have = 0;
	double v;
	const char *p;
	if ((p = find(o, rest, "Tried to allocate "))) {
		v = sys_parse_mib_n(p + 18, end, NULL);
		if (!isnan(v)) {
			cJSON_AddNumberToObject(ev, "tried_mib", v);
			have++;
		}
	}
	/* new wording: "GPU 0 has a total capacity of 139.80 GiB of which 545.06 MiB is free." */
	int gpu = -1;
	long lv;
	const char *q;
	if ((p = find(o, rest, "GPU ")) && (q = p + 4, scan_long(&q, end, &lv)) && lv >= 0 && lv < 100000) {
		gpu = (int)lv;
		cJSON_AddNumberToObject(ev, "gpu", gpu);
	}
	if ((p = find(o, rest, "total capacity of "))) {
		v = sys_parse_mib_n(p + 18, end, NULL);
		if (!isnan(v)) {
			cJSON_AddNumberToObject(ev, "capacity_mib", v);
			have++;
		}
	} else if ((p = find(o, rest, " total capacity"))) { /* old: "23.69 GiB total capacity" */
		v = size_before(o, p);
		if (!isnan(v)) {
			cJSON_AddNumberToObject(ev, "capacity_mib", v);
			have++;
		}
	}
	if ((p = find(o, rest, " is free"))) {
		v = size_before(o, p);
		if (!isnan(v))
			cJSON_AddNumberToObject(ev, "free_mib", v), have++;
	} else if ((p = find(o, rest, " free;"))) {
		v = size_before(o, p);
		if (!isnan(v))
			cJSON_AddNumberToObject(ev, "free_mib", v), have++;
	}
	if ((p = find(o, rest, "this process has "))) {
		v = sys_parse_mib_n(p + 17, end, NULL);
		if (!isnan(v))
			cJSON_AddNumberToObject(ev, "process_in_use_mib", v), have++;
	}
	if ((p = find(o, rest, " is allocated by PyTorch"))) {
		v = size_before(o, p);
		if (!isnan(v))
			cJSON_AddNumberToObject(ev, "allocated_mib", v), have++;
	} else if ((p = find(o, rest, " already allocated"))) {
		v = size_before(o, p);
		if (!isnan(v))
			cJSON_AddNumberToObject(ev, "allocated_mib", v), have++;
	}
	if ((p = find(o, rest, " is reserved by PyTorch but unallocated"))) {
		v = size_before(o, p);
		if (!isnan(v))
			cJSON_AddNumberToObject(ev, "reserved_unallocated_mib", v), have++;
	}
	if ((p = find(o, rest, " reserved in total by PyTorch"))) {
		v = size_before(o, p);
		if (!isnan(v))
			cJSON_AddNumberToObject(ev, "reserved_mib", v), have++;
	}
	/* other processes: "Process 1234 has 10.00 GiB memory in use." */
	q = o;
	double others = 0;
	int nothers = 0;
	while ((p = find(q, (size_t)(end - q), "Process ")) && nothers < 64) {
		long pid;
		const char *k = p + 8;
		if (scan_long(&k, end, &pid) && pid >= 0 && scan_lit(&k, end, " has ", 5)) {
			v = sys_parse_mib_n(k, end, NULL);
			if (!isnan(v)) {
				cJSON *op = cJSON_CreateObject();
				cJSON_AddNumberToObject(op, "pid", (double)pid);
				cJSON_AddNumberToObject(op, "used_mib", v);
				cJSON_AddItemToArray(sys_arr(ev, "other_processes"), op);
				others += v;
				nothers++;
			}
		}
		q = p + 8;
	}
	/* "[rank3]:" prefix */
	int rank = -1;
	if ((p = find(line, len, "[rank")) && (q = p + 5, scan_long(&q, end, &lv)) && scan_lit(&q, end, "]", 1) &&
	    lv >= 0 && lv < 10000000) {
		rank = (int)lv;
		cJSON_AddNumberToObject(ev, "rank", rank);
	}
	double cap, fr, use;
	if (sys_get_num(ev, "capacity_mib", &cap) && sys_get_num(ev, "free_mib", &fr) &&
	    sys_get_num(ev, "process_in_use_mib", &use)) {
		double other = cap - fr - use;
		cJSON_AddNumberToObject(ev, "held_elsewhere_mib", round(other * 100) / 100);
	}
	if (nothers)
		cJSON_AddNumberToObject(ev, "other_processes_mib", others);
	if (have == 0) {
		cJSON_Delete(ev);
		return 0;
	}
	char *txt = str_sanitize(line, len > 400 ? 400 : len);
	cJSON_AddStringToObject(ev, "text", txt);
	free(txt);
	cJSON_AddItemToObject(ev, "source", sys_source(path, lineno));
	cJSON *arr = sys_arr(sys_obj(facts, "memory"), "oom_events");
	if (cJSON_GetArraySize(arr) >= 256) {
		cJSON_Delete(ev);
		return 0;
	}
	cJSON_AddItemToArray(arr, ev);
	return 1;
}

int sys_parse_oom_text(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m)
{
	(void)m;
	int n = 0;
	const char *p = text, *end = text + len;
	uint64_t lineno = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		lineno++;
		if (memmem(p, (size_t)(e - p), "CUDA out of memory", 18))
			n += sysreport_torch_oom(p, (size_t)(e - p), facts, path, lineno);
		p = nl ? nl + 1 : end;
	}
	return n;
}
