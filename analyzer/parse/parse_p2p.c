/* parse_p2p.c - `nvidia-smi topo -p2p r|w|n|a|p` matrices to
 * facts.topology.p2p.<cap>: the status of every GPU pair (OK, NS, CNS, GNS,
 * TNS, U, DR).  The matrix itself does not say which capability it shows:
 * the cap comes from a command line just above it (`topo -p2p r`), else from
 * the document name (`topo-p2p-r.txt`, only when it holds one matrix), else
 * it is recorded as "unknown".  Several matrices in one document are kept
 * apart. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/sysparse.h"

#define MAXCOL 512

static int is_status(const char *t)
{
	static const char *k[] = {"X", "OK", "NS", "CNS", "GNS", "TNS", "U", "DR", NULL};
	for (int i = 0; k[i]; i++)
		if (!strcmp(t, k[i]))
			return 1;
	return 0;
}

static const char *cap_name(char c)
{
	switch (c) {
	case 'r': return "read";
	case 'w': return "write";
	case 'n': return "nvlink";
	case 'a': return "atomics";
	case 'p': return "pcie";
	case 'c': return "prop";
	default: return NULL;
	}
}

/* "-p2p r" / "--p2p=r" / "-p2p=w" in a line */
static const char *cap_from_command(const char *line)
{
	const char *p = strstr(line, "p2p");
	while (p) {
		const char *q = p + 3;
		if (*q == '=' || *q == ' ') {
			while (*q == '=' || *q == ' ')
				q++;
			if (*q && (q[1] == 0 || q[1] == ' ' || q[1] == '\t' || q[1] == '`' || q[1] == '\r'))
				return cap_name(*q);
		}
		p = strstr(p + 3, "p2p");
	}
	return NULL;
}

static const char *cap_from_path(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *p = strstr(base, "p2p");
	if (!p)
		return NULL;
	p += 3;
	while (*p == '-' || *p == '_' || *p == '.')
		p++;
	if (!strncmp(p, "read", 4)) return "read";
	if (!strncmp(p, "write", 5)) return "write";
	if (!strncmp(p, "nvlink", 6)) return "nvlink";
	if (!strncmp(p, "atomic", 6)) return "atomics";
	if (!strncmp(p, "pcie", 4)) return "pcie";
	if (*p && (p[1] == 0 || p[1] == '.' || p[1] == '-' || p[1] == '_'))
		return cap_name(*p);
	return NULL;
}

struct mat {
	cJSON *obj;
	const char *cap;
	int from_command;
	uint64_t line;
};

/* The parse of the matrices of one document, line by line. */
struct pparse {
	const char *path;
	struct msgs *m;
	uint64_t lineno;
	int colgpu[MAXCOL];
	size_t ncols;
	const char *pending_cap;   /* the capability a command line named */
	uint64_t pending_line;
	cJSON *cur, *pairs, *matrix;
	int nmat, added;
	cJSON *found;              /* matrices in this document */
};

/* "GPU0 GPU1 ...": the header of a new matrix */
static void p_header(struct pparse *p, char **tok, size_t nt)
{
	p->ncols = 0;
	for (size_t i = 0; i < nt && p->ncols < MAXCOL; i++)
		p->colgpu[p->ncols++] = atoi(tok[i] + 3);
	p->cur = cJSON_CreateObject();
	p->pairs = cJSON_CreateArray();
	p->matrix = cJSON_CreateObject();
	cJSON_AddItemToObject(p->cur, "matrix", p->matrix);
	cJSON_AddItemToObject(p->cur, "pairs", p->pairs);
	cJSON_AddItemToObject(p->cur, "source", sys_source(p->path, p->lineno));
	if (p->pending_cap && p->lineno - p->pending_line <= 3) {
		cJSON_AddStringToObject(p->cur, "cap", p->pending_cap);
		cJSON_AddStringToObject(p->cur, "cap_from", "command");
	}
	p->pending_cap = NULL;
	cJSON_AddItemToArray(p->found, p->cur);
	p->nmat++;
}

/* "GPU1 OK X NS ...": a row of the current matrix */
static void p_row(struct pparse *p, char **tok, size_t nt)
{
	int r = atoi(tok[0] + 3);
	size_t ncell = 0;
	while (ncell < p->ncols && 1 + ncell < nt && is_status(tok[1 + ncell]))
		ncell++;
	if (ncell == 0)
		return;
	if (ncell < p->ncols)
		msgs_add(p->m, "%s: line %llu: row %s: %zu of %zu cells readable; the rest skipped",
		         p->path, (unsigned long long)p->lineno, tok[0], ncell, p->ncols);
	cJSON *row = cJSON_CreateObject();
	for (size_t k = 0; k < ncell; k++) {
		char key[16];
		snprintf(key, sizeof key, "GPU%d", p->colgpu[k]);
		cJSON_AddStringToObject(row, key, tok[1 + k]);
		if (p->colgpu[k] == r || !strcmp(tok[1 + k], "X"))
			continue;
		cJSON *pr = cJSON_CreateObject();
		cJSON_AddNumberToObject(pr, "a", r);
		cJSON_AddNumberToObject(pr, "b", p->colgpu[k]);
		cJSON_AddStringToObject(pr, "status", tok[1 + k]);
		cJSON_AddItemToObject(pr, "source", sys_source(p->path, p->lineno));
		cJSON_AddItemToArray(p->pairs, pr);
		p->added++;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(p->matrix, tok[0]);
	cJSON_AddItemToObject(p->matrix, tok[0], row);
}

static void p_line(struct pparse *p, char *line, char **tok)
{
	const char *c = cap_from_command(line);
	if (c && strstr(line, "topo")) {
		p->pending_cap = c;
		p->pending_line = p->lineno;
		return;
	}
	size_t nt = sys_split_ws(line, tok, MAXCOL + 4);
	if (nt == 0)
		return;
	int allgpu = 1;
	for (size_t i = 0; i < nt; i++)
		if (strncmp(tok[i], "GPU", 3) || !isdigit((unsigned char)tok[i][3]))
			allgpu = 0;
	if (allgpu && !strcmp(tok[0], "GPU0"))
		p_header(p, tok, nt);
	else if (p->cur && !strncmp(tok[0], "GPU", 3) && isdigit((unsigned char)tok[0][3]))
		p_row(p, tok, nt);
}

/* One matrix into topology.p2p under its capability ("read", "write",
 * "nvlink", ...; "_2" and so on when two share one). */
static void p_store(cJSON *p2p, cJSON *mt, int nmat, const char *path)
{
	const char *cap = json_str(mt, "cap");
	if (!cap && nmat == 1) {
		cap = cap_from_path(path);
		if (cap) {
			cJSON_AddStringToObject(mt, "cap", cap);
			cJSON_AddStringToObject(mt, "cap_from", "document name");
		}
	}
	if (!cap) {
		cJSON_AddStringToObject(mt, "cap", "unknown");
		cJSON_AddStringToObject(mt, "cap_from", "unknown");
		cap = "unknown";
	}
	/* count the pairs that are not OK */
	int bad = 0;
	cJSON *pr;
	cJSON_ArrayForEach(pr, cJSON_GetObjectItemCaseSensitive(mt, "pairs")) {
		const char *s = json_str(pr, "status");
		if (s && strcmp(s, "OK"))
			bad++;
	}
	cJSON_AddNumberToObject(mt, "not_ok", bad);
	char key[64];
	snprintf(key, sizeof key, "%s", cap);
	for (int k = 2; cJSON_GetObjectItemCaseSensitive(p2p, key) && k < 100; k++)
		snprintf(key, sizeof key, "%s_%d", cap, k);
	cJSON_AddItemToObject(p2p, key, mt);
}

int sys_parse_p2p(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m)
{
	struct pparse p;
	memset(&p, 0, sizeof p);
	p.path = path;
	p.m = m;
	p.found = cJSON_CreateArray();
	char **tok = xmalloc((MAXCOL + 4) * sizeof *tok);
	struct sys_lines it;
	char *line;
	sys_lines_init(&it, text, len);
	while ((line = sys_lines_next(&it, NULL))) {
		p.lineno = it.lineno;
		p_line(&p, line, tok);
	}
	sys_lines_free(&it);
	free(tok);
	if (p.nmat == 0) {
		msgs_add(m, "%s: no nvidia-smi topo -p2p matrix found", path);
		cJSON_Delete(p.found);
		return 0;
	}
	cJSON *p2p = sys_obj(sys_obj(facts, "topology"), "p2p");
	cJSON *mt;
	while ((mt = cJSON_DetachItemFromArray(p.found, 0))) {
		if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(mt, "pairs")) == 0)
			cJSON_Delete(mt);
		else
			p_store(p2p, mt, p.nmat, path);
	}
	cJSON_Delete(p.found);
	return p.added;
}

/* ---- recognising it ---- */

/* before topo -m's: both have "GPU0\t" rows */
static int p2p_marker(const char *h, size_t n)
{
	return sys_has(h, n, "CNS  = Chipset not supported") || sys_has(h, n, "TNS  = Topology not supported");
}

static int p2p_lines(const struct sys_head *h)
{
	return h->p2p_rows >= 1;
}

const struct sysreport_kind SYS_TOPO_P2P = {DOC_TOPO_P2P, "topo_p2p", p2p_marker, p2p_lines, sys_parse_p2p, 0};
