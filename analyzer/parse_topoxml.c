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

#include "sysparse.h"

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

int sys_parse_topoxml(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m)
{
	const char *p = text, *end = text + len;
	uint64_t line = 1;
	const char *lp = text; /* line counting up to p */
	char *pcibus[64];
	int depth = 0;
	int added = 0, truncated = 0;
	cJSON *xml = cJSON_CreateObject();
	cJSON *gpus = cJSON_CreateArray(), *nets = cJSON_CreateArray(), *cpus = cJSON_CreateArray();
	cJSON *curgpu = NULL;
	memset(pcibus, 0, sizeof pcibus);

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
				line++;
		const char *s = lt + 1;
		int closing = *s == '/';
		if (closing)
			s++;
		int selfclose = gt > lt && gt[-1] == '/';
		size_t nl = 0;
		while (s + nl < gt && (isalnum((unsigned char)s[nl]) || s[nl] == '_'))
			nl++;
		if (nl == 0) { /* <?xml ...?>, comments */
			p = gt + 1;
			continue;
		}
		if (!strncmp(s, "pci", 3) && nl == 3) {
			if (closing) {
				if (depth > 0) {
					depth--;
					free(pcibus[depth]);
					pcibus[depth] = NULL;
				}
			} else if (!selfclose) {
				if (depth < 64)
					pcibus[depth] = attr(s, gt, "busid");
				depth++;
			}
		} else if (!strncmp(s, "gpu", 3) && nl == 3) {
			if (closing) {
				curgpu = NULL;
			} else {
				cJSON *g = cJSON_CreateObject();
				add_attr(g, "dev", attr(s, gt, "dev"), 1);
				add_attr(g, "rank", attr(s, gt, "rank"), 1);
				add_attr(g, "sm", attr(s, gt, "sm"), 1);
				add_attr(g, "gdr", attr(s, gt, "gdr"), 1);
				const char *bus = depth > 0 && depth <= 64 ? pcibus[depth - 1] : NULL;
				char *nb = bus ? sys_bus_norm(bus) : NULL;
				if (nb) {
					cJSON_AddStringToObject(g, "bus_id", nb);
					cJSON *fg = sys_gpu_by_bus(facts, nb);
					double sm;
					if (fg && json_num(g, "sm", &sm) && !cJSON_GetObjectItemCaseSensitive(fg, "sm"))
						cJSON_AddNumberToObject(fg, "sm", sm);
				}
				free(nb);
				cJSON_AddItemToObject(g, "nvlinks", cJSON_CreateArray());
				cJSON_AddItemToObject(g, "source", sys_source(path, line));
				cJSON_AddItemToArray(gpus, g);
				curgpu = selfclose ? NULL : g;
				added++;
			}
		} else if (!strncmp(s, "nvlink", 6) && nl == 6 && !closing && curgpu) {
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
			cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(curgpu, "nvlinks"), l);
		} else if (!strncmp(s, "net", 3) && nl == 3 && !closing) {
			cJSON *n = cJSON_CreateObject();
			add_attr(n, "name", attr(s, gt, "name"), 0);
			add_attr(n, "dev", attr(s, gt, "dev"), 1);
			add_attr(n, "speed", attr(s, gt, "speed"), 1);
			add_attr(n, "gdr", attr(s, gt, "gdr"), 1);
			add_attr(n, "port", attr(s, gt, "port"), 1);
			cJSON_AddItemToObject(n, "source", sys_source(path, line));
			cJSON_AddItemToArray(nets, n);
			added++;
		} else if (!strncmp(s, "cpu", 3) && nl == 3 && !closing) {
			cJSON *c = cJSON_CreateObject();
			add_attr(c, "numaid", attr(s, gt, "numaid"), 1);
			add_attr(c, "arch", attr(s, gt, "arch"), 0);
			add_attr(c, "vendor", attr(s, gt, "vendor"), 0);
			cJSON_AddItemToObject(c, "source", sys_source(path, line));
			cJSON_AddItemToArray(cpus, c);
		}
		p = gt + 1;
	}
	for (int i = 0; i < 64; i++)
		free(pcibus[i]);
	if (truncated)
		msgs_add(m, "%s: line %llu: XML cut inside a tag; the rest ignored", path, (unsigned long long)line);
	if (!added) {
		msgs_add(m, "%s: no <gpu> or <net> element found in the NCCL topology dump", path);
		cJSON_Delete(xml);
		cJSON_Delete(gpus);
		cJSON_Delete(nets);
		cJSON_Delete(cpus);
		return 0;
	}
	cJSON_AddItemToObject(xml, "source", sys_source(path, 1));
	cJSON_AddItemToObject(xml, "gpus", gpus);
	cJSON_AddItemToObject(xml, "nets", nets);
	cJSON_AddItemToObject(xml, "cpus", cpus);
	cJSON *topo = sys_obj(facts, "topology");
	cJSON_DeleteItemFromObjectCaseSensitive(topo, "xml");
	cJSON_AddItemToObject(topo, "xml", xml);
	return added;
}

/* ---- recognising it ---- */

static int topoxml_marker(const char *h, size_t n)
{
	return sys_has(h, n, "<system version=") && (sys_has(h, n, "<gpu ") || sys_has(h, n, "<cpu "));
}

const struct sysreport_kind SYS_TOPO_XML = {DOC_TOPO_XML, "topo_xml", topoxml_marker, NULL, sys_parse_topoxml};
