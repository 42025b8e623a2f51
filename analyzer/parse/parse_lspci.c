/* parse_lspci.c - `lspci -vvv` (also -vv, -nn, -D, and `lspci -vvv | grep
 * ACSCtl` excerpts) to facts.pci (docs/facts.md): every device's address,
 * class and name, the bus range behind each bridge (its "Bus: primary=,
 * secondary=, subordinate=" line), PCI Express link capability and status
 * (speed and width: a link trained below what both ends can do), and the
 * Access Control Services control register of bridges (ACSCtl).  ACS with
 * request or completion redirect (ReqRedir+, CmpltRedir+) or egress control
 * on a bridge above a GPU sends GPU-to-GPU P2P traffic up to the root
 * complex (IOMMU), where it is slow or, with the IOMMU translating, fails
 * or hangs: NCCL's troubleshooting guide says to disable it.
 *
 * Format (pciutils ls-caps.c), e.g.
 *   0000:03:00.0 PCI bridge: PLX Technology, Inc. PEX 8747 ... (rev ca)
 *   	Bus: primary=03, secondary=04, subordinate=08, sec-latency=0
 *   		LnkCap:	Port #0, Speed 8GT/s, Width x16, ASPM L1, ...
 *   		LnkSta:	Speed 8GT/s (ok), Width x16 (ok)        (older: "Speed 8GT/s, Width x16, TrErr- ...")
 *   		ACSCtl:	SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-
 * Lines come through sys_lines (bounded). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/detect.h"
#include "parse/sysparse.h"

#define PCI_MAX_DEVICES 4096

struct pcp {
	cJSON *facts;
	const char *path;
	cJSON *cur;
};

/* "03:00.0" / "0000:03:00.0" -> "0000:03:00.0" */
static int bdf_of(const char *t, char *out, size_t on)
{
	unsigned dom = 0, b, d, f;
	int k = 0;
	if (sscanf(t, "%x:%x:%x.%x%n", &dom, &b, &d, &f, &k) == 4 && (size_t)k == strlen(t)) {
	} else if (dom = 0, k = 0, sscanf(t, "%x:%x.%x%n", &b, &d, &f, &k) == 3 && (size_t)k == strlen(t)) {
	} else {
		return 0;
	}
	if (dom > 0xffff || b > 0xff || d > 0x1f || f > 7)
		return 0;
	snprintf(out, on, "%04x:%02x:%02x.%x", dom, b, d, f);
	return 1;
}

/* "Speed 16GT/s (ok), Width x16 (ok)" -> 16, 16, downgraded flags */
static void link_fields(const char *v, double *speed, int *width, int *sdown, int *wdown)
{
	const char *s = strstr(v, "Speed ");
	const char *w = strstr(v, "Width x");
	*speed = -1;
	*width = -1;
	*sdown = *wdown = 0;
	if (s) {
		sscanf(s + 6, "%lf", speed);
		const char *c = strchr(s, ',');
		const char *dg = strstr(s, "(downgraded)");
		*sdown = dg && (!c || dg < c);
	}
	if (w) {
		sscanf(w + 7, "%d", width);
		*wdown = strstr(w, "(downgraded)") != NULL;
	}
}

static void header_line(struct pcp *p, const char *bdf, const char *rest, uint64_t lineno)
{
	cJSON *arr = sys_arr(sys_obj(p->facts, "pci"), "devices");
	if (cJSON_GetArraySize(arr) >= PCI_MAX_DEVICES) {
		p->cur = NULL;
		return;
	}
	cJSON *d = cJSON_CreateObject();
	sys_set_str(d, "bdf", bdf);
	/* "PCI bridge [0604]: PLX Technology ... (rev ca)" */
	const char *colon = strstr(rest, ": ");
	char cls[64] = "";
	if (colon && colon - rest < 60) {
		size_t l = (size_t)(colon - rest);
		memcpy(cls, rest, l);
		cls[l] = 0;
		char *br = strstr(cls, " [");
		if (br)
			*br = 0;
		sys_set_str(d, "class", cls);
		sys_set_str(d, "name", colon + 2);
	} else {
		sys_set_str(d, "name", rest);
	}
	const char *name = colon ? colon + 2 : rest;
	int nvidia = strstr(name, "NVIDIA") != NULL;
	int gpu = nvidia && (strstr(cls, "3D controller") || strstr(cls, "VGA compatible controller") ||
	                     strstr(cls, "Display controller"));
	int bridge = strstr(cls, "bridge") && !strstr(cls, "Host bridge") && !strstr(cls, "ISA bridge");
	int nic = strstr(cls, "Infiniband controller") || strstr(cls, "Ethernet controller") ||
	          strstr(cls, "Network controller");
	sys_set_bool(d, "gpu", gpu != 0);
	sys_set_bool(d, "bridge", bridge != 0);
	sys_set_bool(d, "nic", nic != 0);
	if (strstr(name, "NVSwitch") || (nvidia && strstr(cls, "Bridge") && !bridge))
		sys_set_bool(d, "nvswitch", 1);
	sys_put_source(d, p->path, lineno);
	cJSON_AddItemToArray(arr, d);
	p->cur = d;
}

static int lspci_line(struct pcp *p, const char *raw, const char *s, uint64_t lineno)
{
	/* a device header starts in column 0 with an address */
	if (raw[0] != ' ' && raw[0] != '\t') {
		char first[32], bdf[24];
		if (sscanf(s, "%31s", first) == 1 && bdf_of(first, bdf, sizeof bdf)) {
			header_line(p, bdf, s + strlen(first) + (s[strlen(first)] ? 1 : 0), lineno);
			return 1;
		}
	}
	const char *v;
	if ((v = strstr(s, "ACSCtl:"))) {
		v += 7;
		while (*v == ' ' || *v == '\t')
			v++;
		int redirect = strstr(v, "ReqRedir+") || strstr(v, "CmpltRedir+") || strstr(v, "EgressCtrl+");
		int enabled = strchr(v, '+') != NULL;
		cJSON *pci = sys_obj(p->facts, "pci");
		cJSON *c = sys_obj(pci, "acs_lines");
		double n = 0, r = 0, e = 0;
		json_num(c, "count", &n);
		json_num(c, "redirect", &r);
		json_num(c, "enabled", &e);
		sys_set_num(c, "count", n + 1);
		sys_set_num(c, "redirect", r + (redirect != 0));
		sys_set_num(c, "enabled", e + (enabled != 0));
		if ((redirect || enabled) && !cJSON_GetObjectItemCaseSensitive(c, "first_enabled"))
			cJSON_AddItemToObject(c, "first_enabled", sys_source(p->path, lineno));
		if (p->cur) {
			cJSON *a = sys_obj(p->cur, "acs");
			sys_set_str(a, "ctl", v);
			sys_set_bool(a, "enabled", enabled);
			sys_set_bool(a, "redirect", redirect);
			sys_put_source(a, p->path, lineno);
		}
		return 1;
	}
	if (!p->cur)
		return 0;
	if ((v = strstr(s, "Bus: primary="))) {
		unsigned pr, se, su;
		if (sscanf(v, "Bus: primary=%x, secondary=%x, subordinate=%x", &pr, &se, &su) == 3 && se <= 0xff &&
		    su <= 0xff) {
			sys_set_num(p->cur, "secondary", se);
			sys_set_num(p->cur, "subordinate", su);
		}
		return 1;
	}
	if ((v = strstr(s, "LnkCap:")) || (v = strstr(s, "LnkSta:"))) {
		int cap = v[3] == 'C';
		double speed;
		int width, sd, wd;
		link_fields(v + 7, &speed, &width, &sd, &wd);
		cJSON *l = sys_obj(p->cur, "link");
		if (speed > 0)
			sys_set_num(l, cap ? "cap_speed_gts" : "speed_gts", speed);
		if (width > 0)
			sys_set_num(l, cap ? "cap_width" : "width", width);
		if (!cap) {
			double cs, cw;
			int slower = sd || (speed > 0 && json_num(l, "cap_speed_gts", &cs) && speed < cs);
			int narrower = wd || (width > 0 && json_num(l, "cap_width", &cw) && width < cw);
			sys_set_bool(l, "speed_below_cap", slower);
			sys_set_bool(l, "width_below_cap", narrower);
			sys_put_source(l, p->path, lineno);
		}
		return 1;
	}
	/* every other indented line of a device block belongs to lspci too */
	return raw[0] == ' ' || raw[0] == '\t';
}

static int lspci_feed(void *ctx, const char *raw, char *s, uint64_t lineno)
{
	return lspci_line(ctx, raw, s, lineno);
}

static int lspci_parse(const char *text, size_t len, const char *path, cJSON *facts, int *nonblank)
{
	struct pcp p;
	memset(&p, 0, sizeof p);
	p.facts = facts;
	p.path = path ? path : "";
	int used = sys_lines_feed(text, len, lspci_feed, &p, nonblank);
	/* the bridges above each GPU: same domain, GPU bus within [secondary, subordinate] */
	cJSON *devs = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(facts, "pci"), "devices");
	cJSON *g;
	cJSON_ArrayForEach(g, devs) {
		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g, "gpu")) && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g, "nic")))
			continue;
		const char *gb = json_str(g, "bdf");
		const char *gp = json_str(cJSON_GetObjectItemCaseSensitive(g, "source"), "path");
		unsigned gd, gbus;
		if (!gb || sscanf(gb, "%x:%x", &gd, &gbus) != 2)
			continue;
		cJSON *above = cJSON_CreateArray();
		const cJSON *b;
		cJSON_ArrayForEach(b, devs) {
			double se, su;
			const char *bb = json_str(b, "bdf");
			unsigned bd;
			const char *bp = json_str(cJSON_GetObjectItemCaseSensitive(b, "source"), "path");
			if (!bb || !gp || !bp || strcmp(gp, bp) || sscanf(bb, "%x:", &bd) != 1 || bd != gd ||
			    !json_num(b, "secondary", &se) ||
			    !json_num(b, "subordinate", &su))
				continue;
			if (gbus >= (unsigned)se && gbus <= (unsigned)su)
				cJSON_AddItemToArray(above, cJSON_CreateString(bb));
		}
		cJSON_DeleteItemFromObjectCaseSensitive(g, "bridges_above");
		if (cJSON_GetArraySize(above))
			cJSON_AddItemToObject(g, "bridges_above", above);
		else
			cJSON_Delete(above);
	}
	return used;
}

int sys_parse_lspci(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m)
{
	return sys_lines_report(lspci_parse, text, len, path, facts, m, "no lspci output found");
}

static int lspci_marker(const char *h, size_t n)
{
	return sys_has(h, n, "ACSCtl:") || sys_has(h, n, "LnkSta:") ||
	       (sys_has(h, n, " PCI bridge") && sys_has(h, n, "Capabilities: ["));
}

int sys_detect_lspci(const char *head, size_t len)
{
	if (!lspci_marker(head, len))
		return 0;
	return sys_lines_mostly(lspci_parse, head, len);
}

int sys_scan_lspci(const char *text, size_t len, const char *path, cJSON *facts)
{
	if (!text || !lspci_marker(text, len))
		return 0;
	return lspci_parse(text, len, path, facts, NULL) > 0;
}

const struct sysreport_kind SYS_LSPCI = {DOC_LSPCI, "lspci", sys_detect_lspci, NULL, sys_parse_lspci, 0};
