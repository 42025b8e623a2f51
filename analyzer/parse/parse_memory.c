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

#include "base/scan.h"
#include "parse/sysparse.h"
#include "parse/sysreport.h"

/* ---------- series ---------- */

static cJSON *find_series(cJSON *facts, const char *path, int gpu)
{
	cJSON *ser = sys_arr(sys_obj(facts, "memory"), "series");
	cJSON *s;
	cJSON_ArrayForEach(s, ser) {
		double g;
		const char *p = json_str(s, "path");
		if (p && !strcmp(p, path) && json_num(s, "gpu", &g) && (int)g == gpu)
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
	json_num(s, "sample_count", &n);
	double rel = NAN;
	if (!isnan(t)) {
		if (!json_num(s, "start_epoch_s", &t0)) {
			t0 = t;
			cJSON_AddNumberToObject(s, "start_epoch_s", t0);
			if (ts)
				sys_set_str(s, "start", ts);
		}
		rel = round((t - t0) * 1000.0) / 1000.0;
		if (json_num(s, "last_t", &last)) {
			double d = rel - last;
			if (d > 0) {
				if (!json_num(s, "interval_s", &iv) || d < iv)
					sys_set_num(s, "interval_s", d);
				json_num(s, "interval_s", &iv);
				if (d > 2.0 && d > 5 * iv) {
					double g = 0, mg = 0;
					json_num(s, "gaps", &g);
					sys_set_num(s, "gaps", g + 1);
					if (!json_num(s, "max_gap_s", &mg) || d > mg)
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
		json_num(s, "samples_dropped", &d);
		sys_set_num(s, "samples_dropped", d + 1);
	}
	if (!json_num(s, "peak_mib", &peak) || used > peak) {
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
		if (!json_num(s, "total_mib", &ot) || total > ot)
			sys_set_num(s, "total_mib", total);
	}
	double pk, tt;
	if (json_num(s, "peak_mib", &pk) && json_num(s, "total_mib", &tt)) {
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

/* The columns of a memory CSV: their roles, and whether a value is in GiB. */
struct csvcols {
	enum role roles[MAXF];
	int gib[MAXF];
	size_t ncol;
	int have_header, guessed;
};

/* What the first rows of a CSV without a header say of each column. */
struct colstats {
	int rows;
	size_t gn;
	int isTs[MAXF], isBus[MAXF], isMem[MAXF], isInt[MAXF], isConst[MAXF];
	double first[MAXF], maxv[MAXF];
};

static void col_stats_row(struct colstats *cs, char **f, size_t n)
{
	cs->rows++;
	for (size_t i = 0; i < n; i++) {
		char *nb = strchr(f[i], ':') ? sys_bus_norm(f[i]) : NULL;
		if (!isnan(tstamp_epoch_of(f[i])))
			cs->isTs[i]++;
		else if (nb)
			cs->isBus[i]++;
		else if (strstr(f[i], "MiB"))
			cs->isMem[i]++;
		else {
			char *e;
			strtol(f[i], &e, 10);
			if (e != f[i] && !*e)
				cs->isInt[i]++;
		}
		free(nb);
		double v = mem_value(f[i], 0);
		if (!isnan(v)) {
			if (isnan(cs->first[i]))
				cs->first[i] = v;
			else if (v != cs->first[i])
				cs->isConst[i] = 0;
			if (v > cs->maxv[i])
				cs->maxv[i] = v;
		}
	}
}

/* Roles from the statistics: time stamps, bus ids, the memory columns
 * (used, total), a GPU index. */
static void guess_roles(struct csvcols *c, const struct colstats *cs, const char *path, struct msgs *m)
{
	int rows = cs->rows;
	size_t gn = cs->gn;
	enum role *roles = c->roles;
	c->ncol = gn;
	int nmem = 0, memcols[MAXF];
	for (size_t i = 0; i < gn; i++) {
		if (cs->isTs[i] == rows) roles[i] = R_TS;
		else if (cs->isBus[i] == rows) roles[i] = R_BUS;
		else if (cs->isMem[i] == rows) memcols[nmem++] = (int)i;
	}
	if (nmem == 0) {
		/* nounits: large integer columns are memory */
		for (size_t i = 0; i < gn; i++)
			if (cs->isInt[i] == rows && roles[i] == R_NONE && cs->maxv[i] >= 1024)
				memcols[nmem++] = (int)i;
	}
	for (size_t i = 0; i < gn; i++)
		if (cs->isInt[i] == rows && roles[i] == R_NONE && cs->maxv[i] < SYS_MAX_GPUS) {
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
		if (cs->isConst[b] && cs->maxv[b] >= cs->maxv[a]) roles[a] = R_USED, roles[b] = R_TOTAL;
		else if (cs->isConst[a] && cs->maxv[a] >= cs->maxv[b]) roles[b] = R_USED, roles[a] = R_TOTAL;
		else
			msgs_add(m, "%s: no header, and neither of two memory columns is constant: memory.total unknown", path);
	} else if (nmem > 2) {
		for (int k = 0; k < nmem; k++)
			if (cs->isConst[memcols[k]])
				roles[memcols[k]] = R_TOTAL;
		msgs_add(m, "%s: no header and %d memory columns: memory.used cannot be told from memory.free; only memory.total kept",
		         path, nmem);
	}
	c->guessed = 1;
	msgs_add(m, "%s: CSV without a header: columns inferred from the values", path);
}

/* guess columns from the first rows when there is no header */
static void guess_columns(struct csvcols *c, const char *text, size_t len, const char *path, struct msgs *m)
{
	struct colstats *cs = xcalloc(1, sizeof *cs);
	for (int i = 0; i < MAXF; i++)
		cs->isConst[i] = 1, cs->first[i] = NAN, cs->maxv[i] = 0;
	char *f[MAXF];
	char *line;
	struct sys_lines g;
	sys_lines_init(&g, text, len);
	while ((line = sys_lines_next(&g, NULL)) && cs->rows < 64) {
		size_t n = split_csv(line, f, MAXF);
		if (n < 2)
			continue;
		if (is_header(f, n)) {
			c->have_header = 1;
			break;
		}
		if (cs->gn == 0)
			cs->gn = n;
		if (n != cs->gn)
			continue;
		col_stats_row(cs, f, n);
	}
	sys_lines_free(&g);
	if (!c->have_header && cs->rows > 0)
		guess_roles(c, cs, path, m);
	free(cs);
}

static void read_header(struct csvcols *c, char **f, size_t n)
{
	c->ncol = n;
	for (size_t i = 0; i < n; i++) {
		char name[64];
		snprintf(name, sizeof name, "%s", f[i]);
		c->gib[i] = strstr(f[i], "[GiB]") != NULL;
		char *b = strchr(name, ' ');
		if (b)
			*b = 0;
		c->roles[i] = role_of(name);
	}
}

/* One row's values by role. */
struct csvrow {
	int gpu;
	double t, used, total, freem, appmem;
	const char *ts, *bus, *pname;
	long pid;
};

static void read_row(const struct csvcols *c, char **f, size_t n, struct csvrow *r)
{
	*r = (struct csvrow){-1, NAN, NAN, NAN, NAN, NAN, NULL, NULL, NULL, -1};
	for (size_t i = 0; i < n; i++) {
		switch (c->roles[i]) {
		case R_TS: r->t = tstamp_epoch_of(f[i]); r->ts = f[i]; break;
		case R_INDEX: if (isdigit((unsigned char)f[i][0])) r->gpu = atoi(f[i]); break;
		case R_BUS: r->bus = f[i]; break;
		case R_USED: r->used = mem_value(f[i], c->gib[i]); break;
		case R_TOTAL: r->total = mem_value(f[i], c->gib[i]); break;
		case R_FREE: r->freem = mem_value(f[i], c->gib[i]); break;
		case R_PID: if (isdigit((unsigned char)f[i][0])) r->pid = atol(f[i]); break;
		case R_PROC: r->pname = f[i]; break;
		case R_APPMEM: r->appmem = mem_value(f[i], c->gib[i]); break;
		default: break;
		}
	}
}

/* a --query-compute-apps row: memory.processes[] */
static void add_app(cJSON *facts, const struct csvrow *r, const char *path, uint64_t lineno)
{
	cJSON *p = cJSON_CreateObject();
	cJSON_AddNumberToObject(p, "pid", (double)r->pid);
	if (r->gpu >= 0)
		cJSON_AddNumberToObject(p, "gpu", r->gpu);
	if (r->bus)
		sys_set_str(p, "bus_id", r->bus);
	if (r->pname)
		sys_set_str(p, "name", r->pname);
	if (!isnan(r->appmem))
		cJSON_AddNumberToObject(p, "used_mib", r->appmem);
	cJSON_AddItemToObject(p, "source", sys_source(path, lineno));
	cJSON *procs = sys_arr(sys_obj(facts, "memory"), "processes");
	if (cJSON_GetArraySize(procs) < 4096)
		cJSON_AddItemToArray(procs, p);
	else
		cJSON_Delete(p);
}

/* The GPU of a row by bus id: the facts' index, else the order in which
 * this trace names the buses. */
static int gpu_of_bus(cJSON *facts, const char *bus, char **busmap, int *nbus, int maxbus)
{
	int gpu = -1;
	char *nb = sys_bus_norm(bus);
	cJSON *g = nb ? sys_gpu_by_bus(facts, nb) : NULL;
	double gi;
	if (g && json_num(g, "index", &gi))
		gpu = (int)gi;
	else if (nb) {
		for (int k = 0; k < *nbus; k++)
			if (!strcmp(busmap[k], nb))
				gpu = k;
		if (gpu < 0 && *nbus < maxbus) {
			busmap[*nbus] = xstrdup(nb);
			gpu = (*nbus)++;
		}
	}
	free(nb);
	return gpu;
}

int sys_parse_mem_csv(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m)
{
	struct sys_lines it;
	char *line;
	char *f[MAXF];
	struct csvcols c;
	memset(&c, 0, sizeof c);
	int added = 0;
	uint64_t bad = 0, first_bad = 0;
	char *busmap[SYS_MAX_GPUS / 8];
	int nbus = 0;
	guess_columns(&c, text, len, path, m);
	sys_lines_init(&it, text, len);
	while ((line = sys_lines_next(&it, NULL))) {
		size_t n = split_csv(line, f, MAXF);
		if (n == 1 && !*f[0])
			continue;
		if (is_header(f, n)) {
			read_header(&c, f, n);
			continue;
		}
		struct csvrow r;
		if (c.ncol != 0 && n == c.ncol)
			read_row(&c, f, n, &r);
		if (c.ncol == 0 || n != c.ncol) {
			r.gpu = -1;
			r.used = NAN;
		} else if (r.pid >= 0) {
			add_app(facts, &r, path, it.lineno);
			added++;
			continue;
		} else {
			if (isnan(r.used) && !isnan(r.total) && !isnan(r.freem))
				r.used = r.total - r.freem; /* reserved memory counts as used here */
			if (r.gpu < 0 && r.bus)
				r.gpu = gpu_of_bus(facts, r.bus, busmap, &nbus, (int)(sizeof busmap / sizeof *busmap));
			if (r.gpu < 0) {
				int hasidx = 0;
				for (size_t i = 0; i < c.ncol; i++)
					if (c.roles[i] == R_INDEX || c.roles[i] == R_BUS)
						hasidx = 1;
				if (!hasidx)
					r.gpu = 0; /* a single-GPU query (-i N) without index column */
			}
		}
		if (r.gpu < 0 || isnan(r.used)) {
			if (!bad)
				first_bad = it.lineno;
			bad++;
			continue;
		}
		sys_mem_sample(facts, path, it.lineno, r.gpu, r.ts, r.t, r.used, r.total);
		added++;
	}
	sys_lines_free(&it);
	for (int k = 0; k < nbus; k++)
		free(busmap[k]);
	if (bad)
		msgs_add(m, "%s: %llu lines of the memory trace skipped (first at line %llu)", path,
		         (unsigned long long)bad, (unsigned long long)first_bad);
	if (c.guessed && added) {
		cJSON *s;
		cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(sys_obj(facts, "memory"), "series")) {
			const char *p = json_str(s, "path");
			if (p && !strcmp(p, path))
				sys_set_bool(s, "columns_guessed", 1);
		}
	}
	if (!added)
		msgs_add(m, "%s: no memory samples found", path);
	return added;
}

/* ---------- PyTorch OOM ---------- */

#define OOM_EVENTS_MAX SYS_OOM_EVENTS_MAX /* memory.oom_events kept per bundle (sysreport.h) */

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
	/* the 256 events kept already: nothing more is taken (below), so
	 * nothing is parsed (a replicated paste: every further OOM line) */
	const cJSON *kept = json_get(json_get(facts, "memory"), "oom_events");
	if (cJSON_IsObject(json_get(facts, "memory")) && cJSON_IsArray(kept) && cJSON_GetArraySize(kept) >= OOM_EVENTS_MAX)
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
	if (json_num(ev, "capacity_mib", &cap) && json_num(ev, "free_mib", &fr) &&
	    json_num(ev, "process_in_use_mib", &use)) {
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
	if (cJSON_GetArraySize(arr) >= OOM_EVENTS_MAX) {
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

/* ---- recognising it ---- */

/* --query-gpu / --query-compute-apps CSV */
static int mem_csv_marker(const char *h, size_t n)
{
	return (sys_has(h, n, "memory.used") || sys_has(h, n, "memory.total") || sys_has(h, n, "used_gpu_memory")) &&
	       sys_has(h, n, ", ");
}

/* without a header */
static int mem_csv_lines(const struct sys_head *h)
{
	return h->csv_mem >= 2 && h->csv_mem * 2 >= h->lines;
}

const struct sysreport_kind SYS_MEM_CSV = {DOC_MEM_CSV, "memory_csv", mem_csv_marker, mem_csv_lines, sys_parse_mem_csv, 0};
