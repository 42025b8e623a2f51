/* parse_netif.c - network interface listings to facts.interfaces[]
 * (docs/facts.md): `ip addr` / `ip link`, `ip -br addr` / `ip -br link`,
 * `ifconfig` (net-tools 2.x "flags=" and the older "Link encap:" layout),
 * /proc/net/dev (names only: no state):
 * each interface with its state, whether it is up, its addresses and its
 * kind (loopback, container bridge, veth, IPoIB, other), so that the rules
 * can check NCCL_SOCKET_IFNAME against what exists and notice container
 * bridges.  One entry per interface and document (two documents may be two
 * hosts).  Lines come through sys_lines (bounded). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/detect.h"
#include "parse/sysparse.h"

#define NI_MAX_IFS 1024
#define NI_MAX_ADDRS 16

struct nip {
	cJSON *facts;
	const char *path;
	cJSON *cur;          /* interface whose detail lines follow */
	int procnet;         /* a /proc/net/dev header was seen */
};

static int ifname_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 32)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_-.:@", s[i]))
			return 0;
	return 1;
}

static const char *if_kind(const char *n)
{
	if (!strcmp(n, "lo"))
		return "loopback";
	if (!strncmp(n, "docker", 6) || !strncmp(n, "br-", 3) || !strncmp(n, "virbr", 5) || !strncmp(n, "cni", 3) ||
	    !strncmp(n, "flannel", 7) || !strncmp(n, "cali", 4) || !strncmp(n, "weave", 5) || !strncmp(n, "podman", 6))
		return "container_bridge";
	if (!strncmp(n, "veth", 4))
		return "veth";
	if (!strncmp(n, "ib", 2))
		return "ipoib";
	return "other";
}

static cJSON *iface(struct nip *p, const char *name, uint64_t lineno)
{
	char n[40];
	snprintf(n, sizeof n, "%s", name);
	char *at = strchr(n, '@'); /* "veth1a2b@if4" */
	if (at && at != n)
		*at = 0;
	size_t l = strlen(n);
	if (l && n[l - 1] == ':')
		n[--l] = 0;
	if (!l)
		return NULL;
	cJSON *arr = sys_arr(p->facts, "interfaces");
	cJSON *e;
	cJSON_ArrayForEach(e, arr) {
		const char *en = json_str(e, "name");
		const char *sp = json_str(cJSON_GetObjectItemCaseSensitive(e, "source"), "path");
		if (en && !strcmp(en, n) && sp && !strcmp(sp, p->path))
			return e;
	}
	if (cJSON_GetArraySize(arr) >= NI_MAX_IFS)
		return NULL;
	e = cJSON_CreateObject();
	sys_set_str(e, "name", n);
	sys_set_str(e, "kind", if_kind(n));
	sys_put_source(e, p->path, lineno);
	cJSON_AddItemToArray(arr, e);
	return e;
}

static void add_addr(cJSON *e, const char *key, const char *a)
{
	cJSON *arr = sys_arr(e, key);
	if (cJSON_GetArraySize(arr) >= NI_MAX_ADDRS)
		return;
	const cJSON *x;
	cJSON_ArrayForEach(x, arr)
		if (cJSON_IsString(x) && !strcmp(x->valuestring, a))
			return;
	char *s = str_sanitize(a, strlen(a));
	cJSON_AddItemToArray(arr, cJSON_CreateString(s));
	free(s);
}

static int flag_in(const char *flags, const char *f)
{
	size_t n = strlen(f);
	for (const char *p = flags; (p = strstr(p, f)); p += n)
		if ((p == flags || p[-1] == ',' || p[-1] == '<') && (p[n] == ',' || p[n] == '>' || p[n] == 0))
			return 1;
	return 0;
}

static const char *const STATES[] = {"UP", "DOWN", "UNKNOWN", "DORMANT", "LOWERLAYERDOWN", "NOTPRESENT", NULL};

static int netif_line(struct nip *p, char *s, uint64_t lineno)
{
	char name[64], flags[256];
	int idx;
	/* ip addr / ip link: "4: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1400 ... state UP ..." */
	if (sscanf(s, "%d: %63[^:]: <%255[^>]>", &idx, name, flags) == 3 && ifname_ok(name)) {
		cJSON *e = iface(p, name, lineno);
		p->cur = e;
		if (!e)
			return 1;
		const char *st = strstr(s, " state ");
		char state[24];
		if (st && sscanf(st + 7, "%23s", state) == 1)
			sys_set_str(e, "state", state);
		sys_set_bool(e, "up", flag_in(flags, "UP"));
		sys_set_bool(e, "lower_up", flag_in(flags, "LOWER_UP"));
		return 1;
	}
	/* ifconfig (net-tools 2): "eth0: flags=4163<UP,BROADCAST,RUNNING,MULTICAST>  mtu 1400" */
	if (sscanf(s, "%63[^:]: flags=%*d<%255[^>]>", name, flags) == 2 && ifname_ok(name)) {
		cJSON *e = iface(p, name, lineno);
		p->cur = e;
		if (e) {
			sys_set_bool(e, "up", flag_in(flags, "UP"));
			sys_set_bool(e, "running", flag_in(flags, "RUNNING"));
		}
		return 1;
	}
	/* ifconfig (old): "eth0      Link encap:Ethernet  HWaddr 00:..." */
	if (sscanf(s, "%63s Link encap:", name) == 1 && strstr(s, "Link encap:") && ifname_ok(name)) {
		cJSON *e = iface(p, name, lineno);
		p->cur = e;
		if (e)
			sys_set_bool(e, "up", 0); /* until its "UP BROADCAST RUNNING" line says otherwise */
		return 1;
	}
	/* detail lines of the interface above */
	if (p->cur) {
		char a[64];
		if ((!strncmp(s, "inet ", 5) && sscanf(s + 5, "%63s", a) == 1) ||
		    (!strncmp(s, "inet addr:", 10) && sscanf(s + 10, "%63s", a) == 1)) {
			add_addr(p->cur, "ipv4", a);
			return 1;
		}
		if ((!strncmp(s, "inet6 addr: ", 12) && sscanf(s + 12, "%63s", a) == 1) ||
		    (!strncmp(s, "inet6 ", 6) && sscanf(s + 6, "%63s", a) == 1)) {
			add_addr(p->cur, "ipv6", a);
			return 1;
		}
		if (!strncmp(s, "link/", 5) || !strncmp(s, "valid_lft", 9) || !strncmp(s, "ether ", 6) ||
		    !strncmp(s, "RX ", 3) || !strncmp(s, "TX ", 3) || !strncmp(s, "loop ", 5) ||
		    !strncmp(s, "collisions:", 11) || !strncmp(s, "altname ", 8) || !strncmp(s, "unspec ", 7) ||
		    !strncmp(s, "infiniband ", 11) || !strncmp(s, "Interrupt:", 10) || !strncmp(s, "device ", 7))
			return 1;
		if (strstr(s, " MTU:") || strstr(s, "Metric:")) {
			/* old ifconfig: "UP BROADCAST RUNNING MULTICAST  MTU:1500  Metric:1" */
			char *c = xstrdup(s);
			char *tok[16];
			size_t n = sys_split_ws(c, tok, 16);
			int up = 0, run = 0;
			for (size_t i = 0; i < n; i++) {
				up |= !strcmp(tok[i], "UP");
				run |= !strcmp(tok[i], "RUNNING");
			}
			free(c);
			sys_set_bool(p->cur, "up", up);
			sys_set_bool(p->cur, "running", run);
			return 1;
		}
	}
	/* /proc/net/dev: "Inter-|   Receive ..." header, then "  eth0:     625      10    0 ..." (names only) */
	if (!strncmp(s, "Inter-|", 7) || (!strncmp(s, "face |", 6) && strstr(s, "bytes"))) {
		p->procnet = 1;
		p->cur = NULL;
		return 1;
	}
	if (p->procnet && sscanf(s, "%63[^: ]:", name) == 1 && ifname_ok(name) && strchr(s, ':')) {
		const char *c = strchr(s, ':') + 1;
		while (*c == ' ')
			c++;
		if (isdigit((unsigned char)*c)) {
			iface(p, name, lineno);
			p->cur = NULL;
			return 1;
		}
	}
	/* ip -br addr / link: "eth0             UP             192.0.2.2/24 fd00::2/64" */
	char *c = xstrdup(s);
	char *tok[24];
	size_t n = sys_split_ws(c, tok, 24);
	int ok = 0;
	if (n >= 2 && ifname_ok(tok[0]) && !strchr(tok[0], ':')) {
		int st = -1;
		for (int i = 0; STATES[i]; i++)
			if (!strcmp(tok[1], STATES[i]))
				st = i;
		if (st >= 0) {
			int addrs = 1;
			for (size_t i = 2; i < n; i++)
				if (!strchr(tok[i], '/') && !(tok[i][0] == '<') && !(strlen(tok[i]) == 17 && tok[i][2] == ':'))
					addrs = 0;
			if (addrs) {
				cJSON *e = iface(p, tok[0], lineno);
				p->cur = NULL;
				if (e) {
					sys_set_str(e, "state", tok[1]);
					sys_set_bool(e, "up", st == 0 || (st == 2 && !strcmp(tok[0], "lo")));
					for (size_t i = 2; i < n; i++)
						if (strchr(tok[i], '/'))
							add_addr(e, strchr(tok[i], ':') ? "ipv6" : "ipv4", tok[i]);
				}
				ok = 1;
			}
		}
	}
	free(c);
	if (!ok)
		p->cur = NULL;
	return ok;
}

static int netif_feed(void *ctx, const char *raw, char *s, uint64_t lineno)
{
	(void)raw;
	return netif_line(ctx, s, lineno);
}

static int netif_parse(const char *text, size_t len, const char *path, cJSON *facts, int *nonblank)
{
	struct nip p;
	memset(&p, 0, sizeof p);
	p.facts = facts;
	p.path = path ? path : "";
	return sys_lines_feed(text, len, netif_feed, &p, nonblank);
}

int sys_parse_netif(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m)
{
	return sys_lines_report(netif_parse, text, len, path, facts, m, "no network interface listing found");
}

static int netif_marker(const char *h, size_t n)
{
	return (sys_has(h, n, ": <") && sys_has(h, n, " mtu ")) || (sys_has(h, n, ": flags=") && sys_has(h, n, "mtu")) ||
	       sys_has(h, n, "Link encap:") || sys_has(h, n, "Inter-|") || sys_has(h, n, " UP ") || sys_has(h, n, " DOWN ") ||
	       sys_has(h, n, " UNKNOWN ");
}

int sys_detect_netif(const char *head, size_t len)
{
	if (!netif_marker(head, len))
		return 0;
	return sys_lines_mostly(netif_parse, head, len);
}

/* embedded listings in free text: only the unmistakable layouts (ip addr,
 * ifconfig); a bare "name UP" pair is not enough there */
int sys_scan_netif(const char *text, size_t len, const char *path, cJSON *facts)
{
	if (!text || !((sys_has(text, len, ": <") && sys_has(text, len, " mtu ")) ||
	               (sys_has(text, len, ": flags=") && sys_has(text, len, "mtu")) || sys_has(text, len, "Link encap:") ||
	               sys_has(text, len, "Inter-|")))
		return 0;
	return netif_parse(text, len, path, facts, NULL) > 0;
}

const struct sysreport_kind SYS_INTERFACES = {DOC_INTERFACES, "interfaces", sys_detect_netif, NULL, sys_parse_netif, 0};
