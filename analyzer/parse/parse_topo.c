/* parse_topo.c - `nvidia-smi topo -m` / `topo -mp` matrices to
 * facts.topology: GPU and NIC columns (any number), link type per pair,
 * NIC legend, CPU/NUMA affinity and GPU NUMA ID, old and new legend wording,
 * ANSI escapes (removed by sys_lines), tab- or space-separated pastes.
 * A short row, a missing header or an asymmetric pair is reported in msgs
 * and in topology.skipped; only cells actually printed become facts. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/linkclass.h"
#include "parse/sysparse.h"

#define MAXCOL 512

static int is_dev_label(const char *t)
{
	if (!strncmp(t, "GPU", 3) && isdigit((unsigned char)t[3]))
		return 1;
	if (!strncmp(t, "NIC", 3) && isdigit((unsigned char)t[3]))
		return 2;
	if (!strncmp(t, "mlx", 3) || !strncmp(t, "ib", 2) || !strncmp(t, "bnxt", 4) ||
	    !strncmp(t, "irdma", 5) || !strncmp(t, "efa", 3) || !strncmp(t, "eth", 3) ||
	    !strncmp(t, "hfi", 3) || !strncmp(t, "qedr", 4) || !strncmp(t, "rdma", 4))
		return 3; /* old drivers named NIC columns by device */
	return 0;
}

static int gpu_num(const char *t)
{
	if (strncmp(t, "GPU", 3) || !isdigit((unsigned char)t[3]))
		return -1;
	char *e;
	long v = strtol(t + 3, &e, 10);
	if (*e || v < 0 || v >= SYS_MAX_GPUS)
		return -1;
	return (int)v;
}

struct col {
	char name[32];
	int kind; /* 1 GPU, 2/3 NIC */
	int gpu;  /* GPU number for kind 1 */
};

static void add_skip(cJSON *topo, struct msgs *m, const char *path, uint64_t line, const char *what)
{
	msgs_add(m, "%s: line %llu: %s", path, (unsigned long long)line, what);
	cJSON *s = cJSON_CreateObject();
	cJSON_AddNumberToObject(s, "line", (double)line);
	cJSON_AddStringToObject(s, "what", what);
	cJSON_AddItemToArray(sys_arr(topo, "skipped"), s);
}

/* The parse of one matrix, step by step. */
struct tp {
	const char *path;
	struct msgs *m;
	uint64_t lineno;           /* of the line being read */
	struct col *cols;
	size_t ncols;
	int aff_names[3];          /* order of cpu(0), numa(1), gpu numa id(2) */
	size_t naff;
	uint64_t header_line;
	int have_header, rows, legend_old, legend_new, done, added;
	cJSON *topo, *matrix, *links, *niclinks, *aff, *nics;
};

static void skip_at(struct tp *t, const char *fmt, ...) NT_PRINTF(2, 3);
static void skip_at(struct tp *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *w = xvasprintf(fmt, ap);
	va_end(ap);
	add_skip(t->topo, t->m, t->path, t->lineno, w);
	free(w);
}

/* A second matrix (another host, or -m and -mp together): the first one is
 * kept, the new one goes to topology.others (at most 16). */
static int parse_other(const char *text, size_t len, const char *path, cJSON *existing, struct msgs *m)
{
	cJSON *others = sys_arr(existing, "others");
	if (cJSON_GetArraySize(others) >= 16)
		return 0;
	cJSON *tmpfacts = cJSON_CreateObject();
	int n = sys_parse_topo(text, len, path, tmpfacts, m);
	cJSON *t = cJSON_DetachItemFromObjectCaseSensitive(tmpfacts, "topology");
	if (t && n > 0)
		cJSON_AddItemToArray(others, t);
	else
		cJSON_Delete(t);
	cJSON_Delete(tmpfacts);
	return n;
}

/* Legend lines: the wording (old or current) and "  NIC0: mlx5_0"; 1 when
 * the line was a NIC legend (nothing more to read in it). */
static int read_legend(struct tp *t, const char *line)
{
	if (strstr(line, "Connection traversing a single PCIe switch") ||
	    strstr(line, "multiple PCIe switches") || strstr(line, "SMP link between CPU sockets"))
		t->legend_old = 1;
	if (strstr(line, "at most a single PCIe bridge") || strstr(line, "multiple PCIe bridges"))
		t->legend_new = 1;
	char nm[32], dev[128];
	if (sscanf(line, " NIC%31[0-9]: %127s", nm, dev) != 2)
		return 0;
	cJSON *n = cJSON_CreateObject();
	char *label = xasprintf("NIC%s", nm);
	cJSON_AddStringToObject(n, "name", label);
	cJSON_AddStringToObject(n, "device", dev);
	cJSON_AddItemToObject(n, "source", sys_source(t->path, t->lineno));
	cJSON_AddItemToArray(t->nics, n);
	free(label);
	return 1;
}

/* header: ... GPU0 [GPU1 ...] [NIC0 ...] [CPU Affinity] [NUMA Affinity] [GPU NUMA ID] */
static void read_header(struct tp *t, char **tok, size_t nt, size_t g0)
{
	if (t->have_header) {
		if (t->rows > 0) {
			t->done = 1; /* a second matrix in the same document */
			add_skip(t->topo, t->m, t->path, t->lineno, "second matrix in this document ignored");
		}
		return;
	}
	t->have_header = 1;
	t->header_line = t->lineno;
	size_t i = g0;
	for (; i < nt && t->ncols < MAXCOL; i++) {
		int k = is_dev_label(tok[i]);
		if (!k)
			break;
		struct col *c = &t->cols[t->ncols++];
		snprintf(c->name, sizeof c->name, "%s", tok[i]);
		c->kind = k;
		c->gpu = k == 1 ? gpu_num(tok[i]) : -1;
	}
	for (; i < nt; i++) {
		if (!strcmp(tok[i], "CPU") && t->naff < 3)
			t->aff_names[t->naff++] = 0;
		else if (!strcmp(tok[i], "NUMA") && (i == 0 || strcmp(tok[i - 1], "GPU")) && t->naff < 3)
			t->aff_names[t->naff++] = 1;
		else if (!strcmp(tok[i], "GPU") && i + 1 < nt && !strcmp(tok[i + 1], "NUMA") && t->naff < 3)
			t->aff_names[t->naff++] = 2;
	}
}

/* No header: columns GPU0..GPUn in order, as many as the row has cells. 0
 * when the row has none. */
static int assume_header(struct tp *t, char **tok, size_t nt)
{
	size_t nlink = 0;
	for (size_t i = 1; i < nt && topo_is_link_token(tok[i]); i++)
		nlink++;
	if (nlink == 0)
		return 0;
	t->have_header = 1;
	t->header_line = t->lineno;
	for (size_t i = 0; i < nlink && t->ncols < MAXCOL; i++) {
		struct col *c = &t->cols[t->ncols++];
		snprintf(c->name, sizeof c->name, "GPU%zu", i);
		c->kind = 1;
		c->gpu = (int)i;
	}
	add_skip(t->topo, t->m, t->path, t->lineno, "no header line: columns assumed to be GPU0..GPUn in order");
	return 1;
}

static void add_link(struct tp *t, int a, int b, const char *cell)
{
	cJSON *l = cJSON_CreateObject();
	cJSON_AddNumberToObject(l, "a", a);
	cJSON_AddNumberToObject(l, "b", b);
	cJSON_AddStringToObject(l, "type", cell);
	cJSON_AddStringToObject(l, "class", topo_link_class(cell));
	cJSON_AddBoolToObject(l, "direct", topo_link_direct(cell));
	cJSON_AddItemToObject(l, "source", sys_source(t->path, t->lineno));
	cJSON_AddItemToArray(t->links, l);
	t->added++;
}

/* The cell of row GPU r towards the earlier row GPU g: it must agree with
 * it; when that row was missing or short, the link is taken from here. */
static void check_symmetry(struct tp *t, int r, int g, const char *cell)
{
	cJSON *l;
	int found = 0;
	cJSON_ArrayForEach(l, t->links) {
		double a, b;
		if (!json_num(l, "a", &a) || !json_num(l, "b", &b) || (int)a != g || (int)b != r)
			continue;
		found = 1;
		const char *type = json_str(l, "type");
		if (type && strcmp(type, cell))
			skip_at(t, "GPU%d-GPU%d is %s here but %s in row GPU%d", r, g, cell, type, g);
	}
	if (!found)
		add_link(t, g, r, cell);
}

static void read_cell(struct tp *t, const char *rowname, int r, size_t c, size_t self, const char *cell)
{
	const struct col *col = &t->cols[c];
	if (c == self && strcmp(cell, "X"))
		skip_at(t, "row %s: self cell is '%s', not X", rowname, cell);
	if (!strcmp(cell, "X") && c != self)
		skip_at(t, "row %s: X in column %s", rowname, col->name);
	if (col->kind == 1 && col->gpu > r) {
		add_link(t, r, col->gpu, cell);
	} else if (col->kind == 1 && col->gpu < r) {
		check_symmetry(t, r, col->gpu, cell);
	} else if (col->kind >= 2) {
		cJSON *l = cJSON_CreateObject();
		cJSON_AddNumberToObject(l, "gpu", r);
		cJSON_AddStringToObject(l, "nic", col->name);
		cJSON_AddStringToObject(l, "type", cell);
		cJSON_AddStringToObject(l, "class", topo_link_class(cell));
		cJSON_AddItemToObject(l, "source", sys_source(t->path, t->lineno));
		cJSON_AddItemToArray(t->niclinks, l);
	}
}

/* affinity columns: the tokens after the cells, in header order */
static void read_affinity(struct tp *t, char **tok, size_t nt, size_t ncell, int r)
{
	size_t rest = nt - 1 - ncell;
	cJSON *a = cJSON_CreateObject();
	cJSON_AddNumberToObject(a, "gpu", r);
	static const char *names[] = {"cpu", "numa", "gpu_numa_id"};
	for (size_t k = 0; k < t->naff && k < rest; k++)
		cJSON_AddStringToObject(a, names[t->aff_names[k]], tok[1 + ncell + k]);
	if (rest != t->naff)
		skip_at(t, "row %s: %zu affinity values for %zu columns; assigned in order", tok[0], rest, t->naff);
	cJSON_AddItemToObject(a, "source", sys_source(t->path, t->lineno));
	cJSON_AddItemToArray(t->aff, a);
}

/* row: GPUn cells... [affinity] */
static void read_row(struct tp *t, char **tok, size_t nt, int has_x)
{
	int r = gpu_num(tok[0]);
	if (r < 0) {
		if (is_dev_label(tok[0]) && has_x)
			t->rows++; /* NIC row: NIC<->NIC links are not used */
		return;
	}
	if (!has_x) {
		if (t->have_header)
			skip_at(t, "row %s has no self cell (X): cut or malformed; row ignored", tok[0]);
		return;
	}
	if (!t->have_header && !assume_header(t, tok, nt))
		return;
	/* which column index is this GPU's own? */
	size_t self = t->ncols;
	for (size_t c = 0; c < t->ncols; c++)
		if (t->cols[c].kind == 1 && t->cols[c].gpu == r)
			self = c;
	if (self == t->ncols) {
		skip_at(t, "row %s has no column in the header; row ignored", tok[0]);
		return;
	}
	t->rows++;
	size_t ncell = 0;
	while (ncell < t->ncols && 1 + ncell < nt && topo_is_link_token(tok[1 + ncell]))
		ncell++;
	if (ncell < t->ncols)
		skip_at(t, "row %s: %zu of %zu cells readable; the rest skipped", tok[0], ncell, t->ncols);
	cJSON *row = cJSON_CreateObject();
	for (size_t c = 0; c < ncell; c++) {
		cJSON_AddStringToObject(row, t->cols[c].name, tok[1 + c]);
		read_cell(t, tok[0], r, c, self, tok[1 + c]);
	}
	cJSON_AddItemToObject(t->matrix, tok[0], row);
	if (ncell == t->ncols && t->naff > 0)
		read_affinity(t, tok, nt, ncell, r);
}

static void read_line(struct tp *t, char *line, char **tok)
{
	if (read_legend(t, line) || t->done)
		return;
	size_t nt = sys_split_ws(line, tok, MAXCOL + 8);
	if (nt == 0)
		return;
	size_t g0 = nt;
	for (size_t i = 0; i < nt; i++)
		if (!strcmp(tok[i], "GPU0")) {
			g0 = i;
			break;
		}
	int has_x = 0;
	for (size_t i = 0; i < nt; i++)
		if (!strcmp(tok[i], "X"))
			has_x = 1;
	if (g0 < nt && !has_x && (g0 + 1 == nt || is_dev_label(tok[g0 + 1]) || !strcmp(tok[g0 + 1], "CPU")))
		read_header(t, tok, nt, g0);
	else
		read_row(t, tok, nt, has_x);
}

static void free_parts(struct tp *t)
{
	cJSON_Delete(t->topo);
	cJSON_Delete(t->matrix);
	cJSON_Delete(t->links);
	cJSON_Delete(t->niclinks);
	cJSON_Delete(t->aff);
	cJSON_Delete(t->nics);
}

/* NIC names: links to NIC columns get the legend's device; NIC columns
 * named by device (old drivers) become nics entries too. */
static void name_nics(struct tp *t)
{
	cJSON *l;
	cJSON_ArrayForEach(l, t->niclinks) {
		const char *nm = json_str(l, "nic");
		cJSON *n;
		cJSON_ArrayForEach(n, t->nics) {
			const char *x = json_str(n, "name");
			if (nm && x && !strcmp(nm, x))
				cJSON_AddStringToObject(l, "device", json_str(n, "device"));
		}
	}
	for (size_t c = 0; c < t->ncols; c++)
		if (t->cols[c].kind == 3) {
			cJSON *n = cJSON_CreateObject();
			cJSON_AddStringToObject(n, "name", t->cols[c].name);
			cJSON_AddStringToObject(n, "device", t->cols[c].name);
			cJSON_AddItemToObject(n, "source", sys_source(t->path, t->header_line));
			cJSON_AddItemToArray(t->nics, n);
		}
}

/* facts.topology from the parts; p2p matrices parsed before it are kept;
 * the GPUs the matrix names become gpus[] entries (index only). */
static void store(struct tp *t, cJSON *facts, cJSON *existing)
{
	int ngpu = 0, nnic = 0;
	for (size_t c = 0; c < t->ncols; c++) {
		ngpu += t->cols[c].kind == 1;
		nnic += t->cols[c].kind >= 2;
	}
	name_nics(t);
	cJSON *topo = t->topo;
	cJSON_AddItemToObject(topo, "source", sys_source(t->path, t->header_line));
	cJSON_AddNumberToObject(topo, "gpu_count", ngpu);
	cJSON_AddNumberToObject(topo, "nic_count", nnic);
	cJSON_AddStringToObject(topo, "legend", t->legend_old ? "old" : t->legend_new ? "current" : "absent");
	cJSON_AddItemToObject(topo, "matrix", t->matrix);
	cJSON_AddItemToObject(topo, "links", t->links);
	cJSON_AddItemToObject(topo, "nics", t->nics);
	cJSON_AddItemToObject(topo, "nic_links", t->niclinks);
	cJSON_AddItemToObject(topo, "affinity", t->aff);
	if (existing) {
		cJSON *c;
		while ((c = existing->child)) {
			cJSON *d = cJSON_DetachItemViaPointer(existing, c);
			if (!cJSON_GetObjectItemCaseSensitive(topo, d->string))
				cJSON_AddItemToObject(topo, d->string, d);
			else
				cJSON_Delete(d);
		}
		cJSON_DeleteItemFromObjectCaseSensitive(facts, "topology");
	}
	cJSON_AddItemToObject(facts, "topology", topo);
	for (size_t c = 0; c < t->ncols; c++)
		if (t->cols[c].kind == 1 && t->cols[c].gpu >= 0) {
			cJSON *g = sys_gpu(facts, t->cols[c].gpu, 1);
			if (!cJSON_GetObjectItemCaseSensitive(g, "source"))
				sys_put_source(g, t->path, t->header_line);
		}
}

int sys_parse_topo(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m)
{
	cJSON *existing = cJSON_GetObjectItemCaseSensitive(facts, "topology");
	if (existing && cJSON_GetObjectItemCaseSensitive(existing, "matrix"))
		return parse_other(text, len, path, existing, m);
	struct tp t = {path, m, 0, xcalloc(MAXCOL, sizeof(struct col)), 0, {-1, -1, -1}, 0, 0, 0, 0, 0, 0, 0, 0,
	               cJSON_CreateObject(), cJSON_CreateObject(), cJSON_CreateArray(), cJSON_CreateArray(),
	               cJSON_CreateArray(), cJSON_CreateArray()};
	char **tok = xmalloc((MAXCOL + 8) * sizeof *tok);
	struct sys_lines it;
	char *line;
	sys_lines_init(&it, text, len);
	while ((line = sys_lines_next(&it, NULL))) {
		t.lineno = it.lineno;
		read_line(&t, line, tok);
	}
	sys_lines_free(&it);
	free(tok);
	int n = 0;
	if (!t.have_header || t.rows == 0) {
		if (t.have_header)
			msgs_add(m, "%s: line %llu: topology header without rows", path, (unsigned long long)t.header_line);
		else
			msgs_add(m, "%s: no nvidia-smi topo matrix found", path);
		free_parts(&t);
	} else {
		store(&t, facts, existing);
		n = t.added + 1;
	}
	free(t.cols);
	return n;
}

/* ---- recognising it ---- */

static int topo_marker(const char *h, size_t n)
{
	return sys_has(h, n, "NV#  = Connection traversing") || sys_has(h, n, "PHB  = Connection traversing") ||
	       sys_has(h, n, "PIX  = Connection traversing");
}

/* without a legend: rows, with a header or more than one */
static int topo_lines(const struct sys_head *h)
{
	return h->topo_rows >= 1 && (h->header_gpu0 || h->topo_rows >= 2);
}

const struct sysreport_kind SYS_TOPO_MATRIX = {DOC_TOPO_MATRIX, "topo_matrix", topo_marker, topo_lines, sys_parse_topo, 0};
