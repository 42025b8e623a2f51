/* parse_topo.c - `nvidia-smi topo -m` / `topo -mp` matrices to
 * facts.topology: GPU and NIC columns (any number), link type per pair,
 * NIC legend, CPU/NUMA affinity and GPU NUMA ID, old and new legend wording,
 * ANSI escapes (removed by sys_lines), tab- or space-separated pastes.
 * A short row, a missing header or an asymmetric pair is reported in msgs
 * and in topology.skipped; only cells actually printed become facts. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linkclass.h"
#include "sysparse.h"

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

int sys_parse_topo(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m)
{
	struct sys_lines it;
	char *line;
	char *tok[MAXCOL + 8];
	struct col *cols = xcalloc(MAXCOL, sizeof *cols);
	size_t ncols = 0;
	int aff_names[3] = {-1, -1, -1}; /* order of cpu(0), numa(1), gpu numa id(2) */
	size_t naff = 0;
	uint64_t header_line = 0;
	int have_header = 0, rows = 0, legend_old = 0, legend_new = 0, done = 0;
	int added = 0;

	cJSON *existing = cJSON_GetObjectItemCaseSensitive(facts, "topology");
	if (existing && cJSON_GetObjectItemCaseSensitive(existing, "matrix")) {
		/* A second matrix (another host, or -m and -mp together): keep the
		 * first and say so; parse the new one into topology.others. */
		cJSON *others = sys_arr(existing, "others");
		if (cJSON_GetArraySize(others) >= 16) {
			free(cols);
			return 0;
		}
		cJSON *tmpfacts = cJSON_CreateObject();
		int n = sys_parse_topo(text, len, path, tmpfacts, m);
		cJSON *t = cJSON_DetachItemFromObjectCaseSensitive(tmpfacts, "topology");
		if (t && n > 0)
			cJSON_AddItemToArray(others, t);
		else
			cJSON_Delete(t);
		cJSON_Delete(tmpfacts);
		free(cols);
		return n;
	}

	cJSON *topo = cJSON_CreateObject();
	cJSON *matrix = cJSON_CreateObject();
	cJSON *links = cJSON_CreateArray();
	cJSON *niclinks = cJSON_CreateArray();
	cJSON *aff = cJSON_CreateArray();
	cJSON *nics = cJSON_CreateArray();

	sys_lines_init(&it, text, len);
	while ((line = sys_lines_next(&it, NULL))) {
		if (strstr(line, "Connection traversing a single PCIe switch") ||
		    strstr(line, "multiple PCIe switches") || strstr(line, "SMP link between CPU sockets"))
			legend_old = 1;
		if (strstr(line, "at most a single PCIe bridge") || strstr(line, "multiple PCIe bridges"))
			legend_new = 1;
		/* NIC legend: "  NIC0: mlx5_0" */
		{
			char nm[32], dev[128];
			if (sscanf(line, " NIC%31[0-9]: %127s", nm, dev) == 2) {
				cJSON *n = cJSON_CreateObject();
				char *label = xasprintf("NIC%s", nm);
				cJSON_AddStringToObject(n, "name", label);
				cJSON_AddStringToObject(n, "device", dev);
				cJSON_AddItemToObject(n, "source", sys_source(path, it.lineno));
				cJSON_AddItemToArray(nics, n);
				free(label);
				continue;
			}
		}
		if (done)
			continue;
		size_t nt = sys_split_ws(line, tok, MAXCOL + 8);
		if (nt == 0)
			continue;
		/* header: ... GPU0 [GPU1 ...] [NIC0 ...] [CPU Affinity] [NUMA Affinity] [GPU NUMA ID] */
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
		if (g0 < nt && !has_x && (g0 + 1 == nt || is_dev_label(tok[g0 + 1]) || !strcmp(tok[g0 + 1], "CPU"))) {
			if (have_header) {
				if (rows > 0) {
					done = 1; /* a second matrix in the same document */
					add_skip(topo, m, path, it.lineno, "second matrix in this document ignored");
				}
				continue;
			}
			have_header = 1;
			header_line = it.lineno;
			size_t i = g0;
			for (; i < nt && ncols < MAXCOL; i++) {
				int k = is_dev_label(tok[i]);
				if (!k)
					break;
				snprintf(cols[ncols].name, sizeof cols[ncols].name, "%s", tok[i]);
				cols[ncols].kind = k;
				cols[ncols].gpu = k == 1 ? gpu_num(tok[i]) : -1;
				ncols++;
			}
			for (; i < nt; i++) {
				if (!strcmp(tok[i], "CPU") && naff < 3)
					aff_names[naff++] = 0;
				else if (!strcmp(tok[i], "NUMA") && (i == 0 || strcmp(tok[i - 1], "GPU")) && naff < 3)
					aff_names[naff++] = 1;
				else if (!strcmp(tok[i], "GPU") && i + 1 < nt && !strcmp(tok[i + 1], "NUMA") && naff < 3)
					aff_names[naff++] = 2;
			}
			continue;
		}
		/* row: GPUn cells... */
		int r = gpu_num(tok[0]);
		if (r < 0) {
			if (is_dev_label(tok[0]) && has_x)
				rows++; /* NIC row: NIC<->NIC links are not used */
			continue;
		}
		if (!has_x) {
			if (have_header) {
				char *w = xasprintf("row %s has no self cell (X): cut or malformed; row ignored", tok[0]);
				add_skip(topo, m, path, it.lineno, w);
				free(w);
			}
			continue;
		}
		if (!have_header) {
			/* no header: assume GPU0..GPUn columns in order (cells up to the X and beyond) */
			size_t nlink = 0;
			for (size_t i = 1; i < nt && topo_is_link_token(tok[i]); i++)
				nlink++;
			if (nlink == 0)
				continue;
			have_header = 1;
			header_line = it.lineno;
			for (size_t i = 0; i < nlink && ncols < MAXCOL; i++) {
				snprintf(cols[ncols].name, sizeof cols[ncols].name, "GPU%zu", i);
				cols[ncols].kind = 1;
				cols[ncols].gpu = (int)i;
				ncols++;
			}
			add_skip(topo, m, path, it.lineno, "no header line: columns assumed to be GPU0..GPUn in order");
		}
		/* which column index is this GPU's own? */
		size_t self = ncols;
		for (size_t c = 0; c < ncols; c++)
			if (cols[c].kind == 1 && cols[c].gpu == r)
				self = c;
		if (self == ncols) {
			char *w = xasprintf("row %s has no column in the header; row ignored", tok[0]);
			add_skip(topo, m, path, it.lineno, w);
			free(w);
			continue;
		}
		rows++;
		size_t ncell = 0;
		while (ncell < ncols && 1 + ncell < nt && topo_is_link_token(tok[1 + ncell]))
			ncell++;
		if (ncell < ncols) {
			char *w = xasprintf("row %s: %zu of %zu cells readable; the rest skipped", tok[0], ncell, ncols);
			add_skip(topo, m, path, it.lineno, w);
			free(w);
		}
		cJSON *row = cJSON_CreateObject();
		for (size_t c = 0; c < ncell; c++) {
			const char *cell = tok[1 + c];
			cJSON_AddStringToObject(row, cols[c].name, cell);
			if (c == self && strcmp(cell, "X")) {
				char *w = xasprintf("row %s: self cell is '%s', not X", tok[0], cell);
				add_skip(topo, m, path, it.lineno, w);
				free(w);
			}
			if (!strcmp(cell, "X") && c != self) {
				char *w = xasprintf("row %s: X in column %s", tok[0], cols[c].name);
				add_skip(topo, m, path, it.lineno, w);
				free(w);
			}
			if (cols[c].kind == 1 && cols[c].gpu > r) {
				cJSON *l = cJSON_CreateObject();
				cJSON_AddNumberToObject(l, "a", r);
				cJSON_AddNumberToObject(l, "b", cols[c].gpu);
				cJSON_AddStringToObject(l, "type", cell);
				cJSON_AddStringToObject(l, "class", topo_link_class(cell));
				cJSON_AddBoolToObject(l, "direct", topo_link_direct(cell));
				cJSON_AddItemToObject(l, "source", sys_source(path, it.lineno));
				cJSON_AddItemToArray(links, l);
				added++;
			} else if (cols[c].kind == 1 && cols[c].gpu < r) {
				/* check symmetry against the earlier row */
				cJSON *l;
				int found = 0;
				cJSON_ArrayForEach(l, links) {
					double a, b;
					if (json_num(l, "a", &a) && json_num(l, "b", &b) &&
					    (int)a == cols[c].gpu && (int)b == r) {
						found = 1;
						const char *t = json_str(l, "type");
						if (t && strcmp(t, cell)) {
							char *w = xasprintf("GPU%d-GPU%d is %s here but %s in row GPU%d",
							                    r, cols[c].gpu, cell, t, cols[c].gpu);
							add_skip(topo, m, path, it.lineno, w);
							free(w);
						}
					}
				}
				if (!found) {
					/* the earlier row was missing or short: take it from here */
					cJSON *nl = cJSON_CreateObject();
					cJSON_AddNumberToObject(nl, "a", cols[c].gpu);
					cJSON_AddNumberToObject(nl, "b", r);
					cJSON_AddStringToObject(nl, "type", cell);
					cJSON_AddStringToObject(nl, "class", topo_link_class(cell));
					cJSON_AddBoolToObject(nl, "direct", topo_link_direct(cell));
					cJSON_AddItemToObject(nl, "source", sys_source(path, it.lineno));
					cJSON_AddItemToArray(links, nl);
					added++;
				}
			} else if (cols[c].kind >= 2) {
				cJSON *l = cJSON_CreateObject();
				cJSON_AddNumberToObject(l, "gpu", r);
				cJSON_AddStringToObject(l, "nic", cols[c].name);
				cJSON_AddStringToObject(l, "type", cell);
				cJSON_AddStringToObject(l, "class", topo_link_class(cell));
				cJSON_AddItemToObject(l, "source", sys_source(path, it.lineno));
				cJSON_AddItemToArray(niclinks, l);
			}
		}
		cJSON_AddItemToObject(matrix, tok[0], row);
		/* affinity columns: the tokens after the cells, in header order */
		if (ncell == ncols && naff > 0) {
			size_t rest = nt - 1 - ncell;
			cJSON *a = cJSON_CreateObject();
			cJSON_AddNumberToObject(a, "gpu", r);
			static const char *names[] = {"cpu", "numa", "gpu_numa_id"};
			for (size_t k = 0; k < naff && k < rest; k++)
				cJSON_AddStringToObject(a, names[aff_names[k]], tok[1 + ncell + k]);
			if (rest != naff) {
				char *w = xasprintf("row %s: %zu affinity values for %zu columns; assigned in order",
				                    tok[0], rest, naff);
				add_skip(topo, m, path, it.lineno, w);
				free(w);
			}
			cJSON_AddItemToObject(a, "source", sys_source(path, it.lineno));
			cJSON_AddItemToArray(aff, a);
		}
	}
	sys_lines_free(&it);

	int ngpu = 0;
	for (size_t c = 0; c < ncols; c++)
		if (cols[c].kind == 1)
			ngpu++;
	if (!have_header || rows == 0) {
		if (have_header)
			msgs_add(m, "%s: line %llu: topology header without rows", path, (unsigned long long)header_line);
		else
			msgs_add(m, "%s: no nvidia-smi topo matrix found", path);
		cJSON_Delete(topo);
		cJSON_Delete(matrix);
		cJSON_Delete(links);
		cJSON_Delete(niclinks);
		cJSON_Delete(aff);
		cJSON_Delete(nics);
		free(cols);
		return 0;
	}
	/* name the NIC columns from the legend */
	cJSON *l;
	cJSON_ArrayForEach(l, niclinks) {
		const char *nm = json_str(l, "nic");
		cJSON *n;
		cJSON_ArrayForEach(n, nics) {
			const char *x = json_str(n, "name");
			if (nm && x && !strcmp(nm, x))
				cJSON_AddStringToObject(l, "device", json_str(n, "device"));
		}
	}
	/* NIC columns named by device (old drivers) become nics entries too */
	for (size_t c = 0; c < ncols; c++)
		if (cols[c].kind == 3) {
			cJSON *n = cJSON_CreateObject();
			cJSON_AddStringToObject(n, "name", cols[c].name);
			cJSON_AddStringToObject(n, "device", cols[c].name);
			cJSON_AddItemToObject(n, "source", sys_source(path, header_line));
			cJSON_AddItemToArray(nics, n);
		}
	cJSON_AddItemToObject(topo, "source", sys_source(path, header_line));
	cJSON_AddNumberToObject(topo, "gpu_count", ngpu);
	int nnic = 0;
	for (size_t c = 0; c < ncols; c++)
		if (cols[c].kind >= 2)
			nnic++;
	cJSON_AddNumberToObject(topo, "nic_count", nnic);
	cJSON_AddStringToObject(topo, "legend", legend_old ? "old" : legend_new ? "current" : "absent");
	cJSON_AddItemToObject(topo, "matrix", matrix);
	cJSON_AddItemToObject(topo, "links", links);
	cJSON_AddItemToObject(topo, "nics", nics);
	cJSON_AddItemToObject(topo, "nic_links", niclinks);
	cJSON_AddItemToObject(topo, "affinity", aff);
	if (existing) {
		/* keep p2p matrices parsed before the topology */
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
	/* GPUs the matrix names become gpus[] entries (index only) */
	for (size_t c = 0; c < ncols; c++)
		if (cols[c].kind == 1 && cols[c].gpu >= 0) {
			cJSON *g = sys_gpu(facts, cols[c].gpu, 1);
			if (!cJSON_GetObjectItemCaseSensitive(g, "source"))
				sys_put_source(g, path, header_line);
		}
	free(cols);
	return added + 1;
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

const struct sysreport_kind SYS_TOPO_MATRIX = {DOC_TOPO_MATRIX, "topo_matrix", topo_marker, topo_lines, sys_parse_topo};
