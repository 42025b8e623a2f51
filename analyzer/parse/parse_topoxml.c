/* parse_topoxml.c - NCCL's topology dump (NCCL_TOPO_DUMP_FILE) to
 * facts.topology.xml: GPUs (dev, rank, sm, gdr, PCI bus id, NVLinks with
 * target and count), NICs (net name, dev, speed, gdr) and CPUs (NUMA id,
 * arch, vendor).  A small tag scanner, not a general XML parser: it reads the
 * attributes NCCL writes, ignores everything else and stops on a truncated
 * tag.  The compute capability ("sm") also goes to gpus[] entries whose bus
 * id matches. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/sysparse.h"

/* value of attribute name in the tag [s, e); caller frees; NULL if absent */
static char *attr(const char *s, const char *e, const char *name)
{
	size_t nl = strlen(name);
	for (const char *p = s; p + nl + 2 < e; p++) {
		if ((p == s || isspace((unsigned char)p[-1])) && !strncmp(p, name, nl) && p[nl] == '=' &&
		    (p[nl + 1] == '"' || p[nl + 1] == '\'')) {
			char q = p[nl + 1];
			const char *v = p + nl + 2;
			const char *ve = memchr(v, q, (size_t)(e - v));
			if (!ve)
				return NULL;
			return str_sanitize(v, (size_t)(ve - v));
		}
	}
	return NULL;
}

static void add_attr(cJSON *o, const char *key, char *v, int numeric)
{
	if (!v)
		return;
	char *end;
	double d = strtod(v, &end);
	if (numeric && end != v && !*end)
		cJSON_AddNumberToObject(o, key, d);
	else
		cJSON_AddStringToObject(o, key, v);
	free(v);
}

/* The parse of the XML, element by element. */
struct xparse {
	cJSON *facts;
	const char *path;
	uint64_t line;             /* of the element being read */
	char *pcibus[64];          /* busid of each open <pci> */
	int depth;
	int added;
	cJSON *gpus, *nets, *cpus;
	cJSON *curgpu;             /* the open <gpu>: its <nvlink>s go there */
};

/* <pci busid=...> opens a level, </pci> closes it */
static void x_pci(struct xparse *x, const char *s, const char *gt, int closing, int selfclose)
{
	if (closing) {
		if (x->depth > 0) {
			x->depth--;
			free(x->pcibus[x->depth]);
			x->pcibus[x->depth] = NULL;
		}
	} else if (!selfclose) {
		if (x->depth < 64)
			x->pcibus[x->depth] = attr(s, gt, "busid");
		x->depth++;
	}
}

/* <gpu dev rank sm gdr>: its bus id is the enclosing <pci>'s */
static void x_gpu(struct xparse *x, const char *s, const char *gt, int selfclose)
{
	cJSON *g = cJSON_CreateObject();
	add_attr(g, "dev", attr(s, gt, "dev"), 1);
	add_attr(g, "rank", attr(s, gt, "rank"), 1);
	add_attr(g, "sm", attr(s, gt, "sm"), 1);
	add_attr(g, "gdr", attr(s, gt, "gdr"), 1);
	const char *bus = x->depth > 0 && x->depth <= 64 ? x->pcibus[x->depth - 1] : NULL;
	char *nb = bus ? sys_bus_norm(bus) : NULL;
	if (nb) {
		cJSON_AddStringToObject(g, "bus_id", nb);
		cJSON *fg = sys_gpu_by_bus(x->facts, nb);
		double sm;
		if (fg && json_num(g, "sm", &sm) && !cJSON_GetObjectItemCaseSensitive(fg, "sm"))
			cJSON_AddNumberToObject(fg, "sm", sm);
	}
	free(nb);
	cJSON_AddItemToObject(g, "nvlinks", cJSON_CreateArray());
	cJSON_AddItemToObject(g, "source", sys_source(x->path, x->line));
	cJSON_AddItemToArray(x->gpus, g);
	x->curgpu = selfclose ? NULL : g;
	x->added++;
}

static void x_nvlink(struct xparse *x, const char *s, const char *gt)
{
	cJSON *l = cJSON_CreateObject();
	char *t = attr(s, gt, "target");
	char *nt = t ? sys_bus_norm(t) : NULL;
	if (nt) {
		add_attr(l, "target", nt, 0);
		free(t);
	} else {
		add_attr(l, "target", t, 0);
	}
	add_attr(l, "count", attr(s, gt, "count"), 1);
	add_attr(l, "tclass", attr(s, gt, "tclass"), 0);
	cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(x->curgpu, "nvlinks"), l);
}

static void x_net(struct xparse *x, const char *s, const char *gt)
{
	cJSON *n = cJSON_CreateObject();
	add_attr(n, "name", attr(s, gt, "name"), 0);
	add_attr(n, "dev", attr(s, gt, "dev"), 1);
	add_attr(n, "speed", attr(s, gt, "speed"), 1);
	add_attr(n, "gdr", attr(s, gt, "gdr"), 1);
	add_attr(n, "port", attr(s, gt, "port"), 1);
	cJSON_AddItemToObject(n, "source", sys_source(x->path, x->line));
	cJSON_AddItemToArray(x->nets, n);
	x->added++;
}

static void x_cpu(struct xparse *x, const char *s, const char *gt)
{
	cJSON *c = cJSON_CreateObject();
	add_attr(c, "numaid", attr(s, gt, "numaid"), 1);
	add_attr(c, "arch", attr(s, gt, "arch"), 0);
	add_attr(c, "vendor", attr(s, gt, "vendor"), 0);
	cJSON_AddItemToObject(c, "source", sys_source(x->path, x->line));
	cJSON_AddItemToArray(x->cpus, c);
}

/* One tag, from '<' at lt to '>' at gt. */
static void x_element(struct xparse *x, const char *lt, const char *gt)
{
	const char *s = lt + 1;
	int closing = *s == '/';
	if (closing)
		s++;
	int selfclose = gt > lt && gt[-1] == '/';
	size_t nl = 0;
	while (s + nl < gt && (isalnum((unsigned char)s[nl]) || s[nl] == '_'))
		nl++;
	if (nl == 0) /* <?xml ...?>, comments */
		return;
	if (!strncmp(s, "pci", 3) && nl == 3)
		x_pci(x, s, gt, closing, selfclose);
	else if (!strncmp(s, "gpu", 3) && nl == 3) {
		if (closing)
			x->curgpu = NULL;
		else
			x_gpu(x, s, gt, selfclose);
	} else if (!strncmp(s, "nvlink", 6) && nl == 6 && !closing && x->curgpu)
		x_nvlink(x, s, gt);
	else if (!strncmp(s, "net", 3) && nl == 3 && !closing)
		x_net(x, s, gt);
	else if (!strncmp(s, "cpu", 3) && nl == 3 && !closing)
		x_cpu(x, s, gt);
}

int sys_parse_topoxml(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m)
{
	const char *p = text, *end = text + len;
	const char *lp = text; /* line counting up to p */
	int truncated = 0;
	struct xparse x;
	memset(&x, 0, sizeof x);
	x.facts = facts;
	x.path = path;
	x.line = 1;
	x.gpus = cJSON_CreateArray();
	x.nets = cJSON_CreateArray();
	x.cpus = cJSON_CreateArray();
	while (p < end) {
		const char *lt = memchr(p, '<', (size_t)(end - p));
		if (!lt)
			break;
		const char *gt = memchr(lt, '>', (size_t)(end - lt));
		if (!gt) {
			truncated = 1;
			break;
		}
		for (; lp < lt; lp++)
			if (*lp == '\n')
				x.line++;
		x_element(&x, lt, gt);
		p = gt + 1;
	}
	for (int i = 0; i < 64; i++)
		free(x.pcibus[i]);
	if (truncated)
		msgs_add(m, "%s: line %llu: XML cut inside a tag; the rest ignored", path, (unsigned long long)x.line);
	if (!x.added) {
		msgs_add(m, "%s: no <gpu> or <net> element found in the NCCL topology dump", path);
		cJSON_Delete(x.gpus);
		cJSON_Delete(x.nets);
		cJSON_Delete(x.cpus);
		return 0;
	}
	cJSON *xml = cJSON_CreateObject();
	cJSON_AddItemToObject(xml, "source", sys_source(path, 1));
	cJSON_AddItemToObject(xml, "gpus", x.gpus);
	cJSON_AddItemToObject(xml, "nets", x.nets);
	cJSON_AddItemToObject(xml, "cpus", x.cpus);
	cJSON *topo = sys_obj(facts, "topology");
	cJSON_DeleteItemFromObjectCaseSensitive(topo, "xml");
	cJSON_AddItemToObject(topo, "xml", xml);
	return x.added;
}

/* ---- recognising it ---- */

static int topoxml_marker(const char *h, size_t n)
{
	return sys_has(h, n, "<system version=") && (sys_has(h, n, "<gpu ") || sys_has(h, n, "<cpu "));
}

const struct sysreport_kind SYS_TOPO_XML = {DOC_TOPO_XML, "topo_xml", topoxml_marker, NULL, sys_parse_topoxml, 0};
