/* parse_ib.c - RDMA device reports to facts.ib (docs/facts.md): `ibstat`,
 * `ibstatus`, `ibv_devinfo [-v]`, `ibdev2netdev [-v]` and `show_gids`:
 * each HCA port's state, physical state, link layer (InfiniBand or
 * Ethernet, i.e. RoCE), rate, the netdev it maps to, and its GIDs with their
 * RoCE version and IPv4 address.
 *
 * Formats (rdma-core's ibstat/ibstatus/ibv_devinfo, MLNX OFED's
 * ibdev2netdev and show_gids), as pasted in public threads (fixtures/sys/public):
 *   CA 'mlx5_0' / Port 1: / State: Active / Physical state: LinkUp / Rate: 200 / Link layer: InfiniBand
 *   Infiniband device 'mlx5_0' port 1 status: / state: 4: ACTIVE / link_layer: Ethernet
 *   hca_id: mlx5_0 / port: 1 / state: PORT_ACTIVE (4) / link_layer: InfiniBand / GID[  3]: ::ffff:200.0.209.6, RoCE v2
 *   mlx5_0 port 1 ==> ib0 (Up)     (-v: "0000:17:00.0 mlx5_0 (MT4129 - ConnectX-7) fw ... port 1 (ACTIVE) ==> ib0 (Up)")
 *   DEV PORT INDEX GID IPv4 VER DEV  (show_gids; tab- or space-separated)
 * One entry per HCA port and document in facts.ib.ports[] (two documents
 * may be two nodes with the same HCA names), GIDs in facts.ib.gids[].
 * Lines are read through sys_lines (bounded, one at a time). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/detect.h"
#include "parse/sysparse.h"

#define IB_MAX_PORTS 1024
#define IB_MAX_GIDS 4096

struct ibp {
	cJSON *facts;
	const char *path;
	char hca[64];        /* current HCA (ibstat, ibstatus, ibv_devinfo) */
	int port;            /* current port, 0 none */
	cJSON *cur;          /* current port entry */
	int in_gids;         /* show_gids rows follow */
};

static int valid_name(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n >= 64)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.')
			return 0;
	return 1;
}

/* the entry of (hca, port) of this document, created when missing */
static cJSON *port_entry(struct ibp *p, const char *hca, int port, uint64_t lineno)
{
	cJSON *arr = sys_arr(sys_obj(p->facts, "ib"), "ports");
	cJSON *e;
	cJSON_ArrayForEach(e, arr) {
		const char *h = json_str(e, "hca");
		double pn;
		const char *sp = json_str(cJSON_GetObjectItemCaseSensitive(e, "source"), "path");
		if (h && !strcmp(h, hca) && json_num(e, "port", &pn) && (int)pn == port && sp && !strcmp(sp, p->path))
			return e;
	}
	if (cJSON_GetArraySize(arr) >= IB_MAX_PORTS)
		return NULL;
	e = cJSON_CreateObject();
	sys_set_str(e, "hca", hca);
	cJSON_AddNumberToObject(e, "port", port);
	sys_put_source(e, p->path, lineno);
	cJSON_AddItemToArray(arr, e);
	return e;
}

/* "Active", "4: ACTIVE", "PORT_ACTIVE (4)", "ACTIVE" -> "Active"; likewise
 * Down, Init, Armed, ActiveDefer */
static const char *norm_state(const char *v)
{
	static const struct { const char *in, *out; } T[] = {
		{"ACTIVE_DEFER", "ActiveDefer"}, {"ACTIVE", "Active"}, {"DOWN", "Down"},
		{"INIT", "Init"}, {"ARMED", "Armed"}, {NULL, NULL}};
	char up[64];
	size_t i = 0;
	for (; v[i] && i + 1 < sizeof up; i++)
		up[i] = (char)toupper((unsigned char)v[i]);
	up[i] = 0;
	for (int k = 0; T[k].in; k++)
		if (strstr(up, T[k].in))
			return T[k].out;
	return NULL;
}

static void put_kv(struct ibp *p, const char *key, const char *val, uint64_t lineno)
{
	if (!p->cur)
		return;
	if (!strcmp(key, "state")) {
		const char *s = norm_state(val);
		if (s)
			sys_set_str(p->cur, "state", s);
	} else if (!strcmp(key, "physical state") || !strcmp(key, "phys state") || !strcmp(key, "phys_state")) {
		/* "LinkUp", "5: LinkUp", "LINK_UP (5)", "Polling", "Disabled" */
		const char *v = val;
		if (isdigit((unsigned char)*v)) {
			const char *c = strchr(v, ':');
			if (c)
				v = c + 1;
		}
		while (*v == ' ')
			v++;
		char t[64];
		if (sscanf(v, "%63[A-Za-z_]", t) == 1)
			sys_set_str(p->cur, "phys_state", t);
	} else if (!strcmp(key, "link layer") || !strcmp(key, "link_layer")) {
		char t[32];
		if (sscanf(val, "%31s", t) == 1)
			sys_set_str(p->cur, "link_layer", t);
	} else if (!strcmp(key, "rate")) {
		double r;
		if (sscanf(val, "%lf", &r) == 1)
			sys_set_num(p->cur, "rate_gbps", r);
	} else if (!strncmp(key, "gid[", 4)) {
		/* ibv_devinfo -v: "GID[  3]:  ::ffff:200.0.209.6, RoCE v2" */
		int idx = atoi(key + 4);
		char gid[64] = "", type[32] = "";
		const char *c = strchr(val, ',');
		size_t gl = c ? (size_t)(c - val) : strlen(val);
		if (gl == 0 || gl >= sizeof gid)
			return;
		memcpy(gid, val, gl);
		gid[gl] = 0;
		if (c) {
			const char *t = c + 1;
			while (*t == ' ')
				t++;
			snprintf(type, sizeof type, "%s", t);
		}
		cJSON *gids = sys_arr(sys_obj(p->facts, "ib"), "gids");
		if (cJSON_GetArraySize(gids) >= IB_MAX_GIDS)
			return;
		cJSON *g = cJSON_CreateObject();
		sys_set_str(g, "hca", p->hca);
		cJSON_AddNumberToObject(g, "port", p->port);
		cJSON_AddNumberToObject(g, "index", idx);
		sys_set_str(g, "gid", sys_trim(gid));
		if (*type)
			sys_set_str(g, "type", type);
		const char *v4 = strstr(gid, "::ffff:");
		if (v4 && strchr(v4 + 7, '.'))
			sys_set_str(g, "ipv4", v4 + 7);
		sys_put_source(g, p->path, lineno);
		cJSON_AddItemToArray(gids, g);
	}
}

/* "mlx5_0 port 1 ==> ib0 (Up)", "0000:17:00.0 mlx5_0 (MT4129 - ConnectX-7) fw 28.39.1002 port 1 (ACTIVE) ==> ib0 (Up)" */
static int ibdev2netdev_line(struct ibp *p, char *s, uint64_t lineno)
{
	char *arrow = strstr(s, "==>");
	if (!arrow)
		return 0;
	*arrow = 0;
	char *tok[32];
	size_t n = sys_split_ws(s, tok, 32);
	int port = -1;
	const char *hca = NULL, *pstate = NULL;
	for (size_t i = 0; i + 1 < n; i++)
		if (!strcmp(tok[i], "port")) {
			port = atoi(tok[i + 1]);
			if (i + 2 < n && tok[i + 2][0] == '(')
				pstate = tok[i + 2];
		}
	if (n >= 1 && valid_name(tok[0]) && !strchr(tok[0], ':'))
		hca = tok[0];
	else if (n >= 2 && valid_name(tok[1]))
		hca = tok[1];
	if (!hca || port <= 0 || port > 255)
		return 0;
	char *r = arrow + 3;
	char *rt[8];
	size_t rn = sys_split_ws(r, rt, 8);
	if (rn < 1 || !valid_name(rt[0]))
		return 0;
	cJSON *e = port_entry(p, hca, port, lineno);
	if (!e)
		return 1;
	sys_set_str(e, "netdev", rt[0]);
	if (rn >= 2) {
		char st[16];
		if (sscanf(rt[1], "(%15[A-Za-z])", st) == 1)
			sys_set_str(e, "netdev_state", st);
	}
	if (pstate) {
		const char *s2 = norm_state(pstate);
		if (s2 && !cJSON_GetObjectItemCaseSensitive(e, "state"))
			sys_set_str(e, "state", s2);
	}
	return 1;
}

/* show_gids rows: "mlx5_0 1 3 0000:...:0b00:0048 11.0.0.72 v2 ens3np0" (the IPv4 column may be empty) */
static int gid_row(struct ibp *p, char *s, uint64_t lineno)
{
	char *tok[16];
	size_t n = sys_split_ws(s, tok, 16);
	if (n < 5 || !valid_name(tok[0]) || !isdigit((unsigned char)tok[1][0]) || !isdigit((unsigned char)tok[2][0]) ||
	    !strchr(tok[3], ':'))
		return 0;
	const char *ipv4 = NULL, *ver = NULL, *dev = NULL;
	size_t i = 4;
	if (i < n && strchr(tok[i], '.') && isdigit((unsigned char)tok[i][0]))
		ipv4 = tok[i++];
	if (i < n && tok[i][0] == 'v' && isdigit((unsigned char)tok[i][1]))
		ver = tok[i++];
	if (i < n)
		dev = tok[i];
	if (!ver)
		return 0;
	cJSON *gids = sys_arr(sys_obj(p->facts, "ib"), "gids");
	if (cJSON_GetArraySize(gids) >= IB_MAX_GIDS)
		return 1;
	cJSON *g = cJSON_CreateObject();
	sys_set_str(g, "hca", tok[0]);
	cJSON_AddNumberToObject(g, "port", atoi(tok[1]));
	cJSON_AddNumberToObject(g, "index", atoi(tok[2]));
	sys_set_str(g, "gid", tok[3]);
	if (ipv4)
		sys_set_str(g, "ipv4", ipv4);
	sys_set_str(g, "type", !strcmp(ver, "v2") ? "RoCE v2" : !strcmp(ver, "v1") ? "RoCE v1" : ver);
	if (dev && valid_name(dev))
		sys_set_str(g, "netdev", dev);
	sys_put_source(g, p->path, lineno);
	cJSON_AddItemToArray(gids, g);
	return 1;
}

static void lower_key(char *k)
{
	for (char *c = k; *c; c++)
		*c = (char)tolower((unsigned char)*c);
}

static int ib_line(void *ctx, const char *raw, char *s, uint64_t lineno)
{
	struct ibp *p = ctx;
	(void)raw;
	char name[64];
	int port;
	/* ibstat: "CA 'mlx5_0'" */
	if (sscanf(s, "CA '%63[^']'", name) == 1 && valid_name(name)) {
		snprintf(p->hca, sizeof p->hca, "%s", name);
		p->port = 0;
		p->cur = NULL;
		return 1;
	}
	/* ibstatus: "Infiniband device 'mlx5_0' port 1 status:" */
	if (sscanf(s, "Infiniband device '%63[^']' port %d status:", name, &port) == 2 && valid_name(name)) {
		snprintf(p->hca, sizeof p->hca, "%s", name);
		p->port = port;
		p->cur = port > 0 && port < 256 ? port_entry(p, name, port, lineno) : NULL;
		return 1;
	}
	/* ibv_devinfo: "hca_id:	mlx5_0" */
	if (sscanf(s, "hca_id: %63s", name) == 1 && valid_name(name)) {
		snprintf(p->hca, sizeof p->hca, "%s", name);
		p->port = 0;
		p->cur = NULL;
		return 1;
	}
	/* ibstat "Port 1:", ibv_devinfo "port:	1" */
	if (p->hca[0] && (sscanf(s, "Port %d:", &port) == 1 || sscanf(s, "port: %d", &port) == 1) && port > 0 &&
	    port < 256) {
		p->port = port;
		p->cur = port_entry(p, p->hca, port, lineno);
		return 1;
	}
	if (strstr(s, "==>") && strstr(s, " port ")) {
		char *c = xstrdup(s);
		int ok = ibdev2netdev_line(p, c, lineno);
		free(c);
		return ok;
	}
	if (!strncmp(s, "DEV", 3) && strstr(s, "PORT") && strstr(s, "INDEX") && strstr(s, "GID")) {
		p->in_gids = 1;
		return 1;
	}
	if (p->in_gids && (!strncmp(s, "---", 3)))
		return 1;
	if (p->in_gids) {
		char *c = xstrdup(s);
		int ok = gid_row(p, c, lineno);
		free(c);
		if (ok || !strncmp(s, "n_gids_found", 12))
			return 1;
		p->in_gids = 0;
	}
	/* "Key: value" inside an HCA block */
	if (p->hca[0]) {
		const char *colon = strchr(s, ':');
		if (colon && colon > s && colon - s < 40) {
			char key[48];
			size_t kl = (size_t)(colon - s);
			memcpy(key, s, kl);
			key[kl] = 0;
			sys_trim(key);
			lower_key(key);
			const char *val = colon + 1;
			while (*val == ' ' || *val == '\t')
				val++;
			put_kv(p, key, val, lineno);
			return 1;
		}
	}
	/* a line of none of the formats ends the block it was in */
	p->hca[0] = 0;
	p->port = 0;
	p->cur = NULL;
	return 0;
}

static int ib_parse(const char *text, size_t len, const char *path, cJSON *facts, int *nonblank)
{
	struct ibp p;
	memset(&p, 0, sizeof p);
	p.facts = facts;
	p.path = path ? path : "";
	return sys_lines_feed(text, len, ib_line, &p, nonblank);
}

int sys_parse_ib(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m)
{
	return sys_lines_report(ib_parse, text, len, path, facts, m, "no RDMA device report found");
}

/* show_gids' header "DEV PORT INDEX GID IPv4 VER DEV", tabs or spaces (not
 * NCCL's "NCCL_IB_GID_INDEX") */
static int gids_header(const char *h, size_t n)
{
	return sys_has(h, n, "INDEX\tGID") || sys_has(h, n, "INDEX   GID") || sys_has(h, n, "INDEX GID");
}

/* A document that is mostly one of these reports (70% of its non-blank lines). */
int sys_detect_ib(const char *head, size_t len)
{
	if (!sys_has(head, len, "CA type:") && !sys_has(head, len, "Infiniband device '") &&
	    !sys_has(head, len, "hca_id:") && !sys_has(head, len, "==>") && !gids_header(head, len))
		return 0;
	return sys_lines_mostly(ib_parse, head, len);
}

int sys_scan_ib(const char *text, size_t len, const char *path, cJSON *facts)
{
	if (!text || !(sys_has(text, len, "CA type:") || sys_has(text, len, "Infiniband device '") ||
	               sys_has(text, len, "hca_id:") || (sys_has(text, len, " ==> ") && sys_has(text, len, " port ")) ||
	               gids_header(text, len)))
		return 0;
	return ib_parse(text, len, path, facts, NULL) > 0;
}

const struct sysreport_kind SYS_IB_STATUS = {DOC_IB_STATUS, "ib_status", sys_detect_ib, NULL, sys_parse_ib, 0};
