/* parse_nodes.c - what each host's NCCL says about itself, from NCCL INFO
 * lines (host from their "host:pid:tid" prefix), into facts.nodes
 * (docs/facts.md): the NCCL version, the CUDA driver API version, the
 * network NCCL chose and the net plugin it loaded, GPU Direct RDMA per HCA,
 * the IB devices and the bootstrap interface.  rules_host.c compares them
 * across hosts: one node with another NCCL, another plugin, or GDR disabled
 * where the others have it is a finding.
 *
 * Message forms, from NCCL's source (2.18 to 2.30):
 *   NCCL version 2.21.5+cuda12.4
 *   cudaDriverVersion 12040
 *   Using network IB | Socket | IBext | AWS Libfabric ...       (init.cc)
 *   NET/Plugin: Loaded net plugin %s (v8)  |  NET/Plugin: Using internal network plugin.
 *   NET/Plugin : No plugin found, using internal implementation   (<= 2.18)
 *   NET/%s : GPU Direct RDMA Enabled|Disabled for HCA %d '%s'       (net.cc)
 *   NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.1<0>
 *   Bootstrap : Using [0]eth0:10.0.0.1<0>   (2.28: "Bootstrap: Using")
 * bundle.c calls sysreport_node_info() for INFO messages that start with
 * NET/, "NCCL ver", "cudaDriv", "Using ne" or "Bootstra"; the message is
 * copied into a bounded buffer first. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/sysparse.h"
#include "parse/sysreport.h"

#define ND_LINE 1024
#define ND_MAX_HOSTS 1024
#define ND_MAX_HCAS 64

static cJSON *node(cJSON *facts, const char *host, size_t hn)
{
	cJSON *nodes = sys_obj(facts, "nodes");
	if (hn > 255)
		hn = 255;
	/* a plain host name is looked up as it is; anything else is sanitised */
	char plain[256];
	size_t i = 0;
	for (; i < hn; i++) {
		unsigned char c = (unsigned char)host[i];
		if (!(isalnum(c) || c == '.' || c == '-' || c == '_'))
			break;
		plain[i] = (char)c;
	}
	plain[i] = 0;
	char *h = i == hn ? plain : str_sanitize(host, hn);
	cJSON *n = cJSON_GetObjectItemCaseSensitive(nodes, h);
	if (!n && cJSON_GetArraySize(nodes) < ND_MAX_HOSTS) {
		n = cJSON_CreateObject();
		cJSON_AddItemToObject(nodes, h, n);
	}
	if (h != plain)
		free(h);
	return n;
}

/* node.key = {value, source}; the first value wins; a different one later
 * from the same host is kept in node.key.others[] (two NCCLs on one host) */
static void set_first(cJSON *n, const char *key, const char *value, const char *path, uint64_t lineno)
{
	cJSON *o = cJSON_GetObjectItemCaseSensitive(n, key);
	if (o) {
		const char *old = json_str(o, "value");
		if (old && strcmp(old, value)) {
			cJSON *others = sys_arr(o, "others");
			const cJSON *e;
			cJSON_ArrayForEach(e, others) {
				const char *v = json_str(e, "value");
				if (v && !strcmp(v, value))
					return;
			}
			if (cJSON_GetArraySize(others) < 8) {
				cJSON *x = cJSON_CreateObject();
				sys_set_str(x, "value", value);
				sys_put_source(x, path, lineno);
				cJSON_AddItemToArray(others, x);
			}
		}
		return;
	}
	o = cJSON_CreateObject();
	sys_set_str(o, "value", value);
	sys_put_source(o, path, lineno);
	cJSON_AddItemToObject(n, key, o);
}

/* s starts with p (not empty): the first byte rules out the other kinds without a call */
static int starts(const char *s, const char *p, size_t n)
{
	return s[0] == p[0] && strncmp(s, p, n) == 0;
}

/* the decimal digits of 0 <= x < 10^9 at out, and the byte after them */
static char *put_dec(char *out, long x)
{
	char d[10];
	int n = 0;
	do
		d[n++] = (char)('0' + x % 10);
	while ((x /= 10) != 0);
	while (n)
		*out++ = d[--n];
	return out;
}

/* the text after a prefix, up to the end of the message, trimmed */
static void rest(const char *p, char *out, size_t on)
{
	while (*p == ' ')
		p++;
	size_t k = strlen(p);
	while (k && (p[k - 1] == ' ' || p[k - 1] == '.'))
		k--;
	if (k >= on)
		k = on - 1;
	memcpy(out, p, k);
	out[k] = 0;
}

int sysreport_node_info(cJSON *facts, const char *host, size_t hn, const char *msg, size_t mn,
                  const char *path, uint64_t lineno)
{
	if (!facts || !host || hn == 0 || !msg)
		return 0;
	/* the cheap test first, on the span itself: most NET/ lines are none of these */
	if (mn >= 4 && !memcmp(msg, "NET/", 4)) {
		size_t i = 4;
		while (i < mn && (isalnum((unsigned char)msg[i]) || msg[i] == '_'))
			i++;
		int ib = mn >= 6 && !memcmp(msg + 4, "IB", 2);
		int plugin = mn >= 10 && !memcmp(msg + 4, "Plugin", 6);
		const char *r = msg + i;
		size_t rn = mn - i;
		if (!(ib && ((rn >= 19 && !memcmp(r, " : GPU Direct RDMA ", 19)) || (rn >= 8 && !memcmp(r, " : Using", 8)) ||
		             (rn >= 7 && !memcmp(r, ": Using", 7)))) &&
		    !(plugin && (mem_find(msg, mn, "net plugin", 10, 0) || mem_find(msg, mn, "internal", 8, 0))))
			return 0;
	}
	char buf[ND_LINE];
	str_line_copy(buf, sizeof buf, msg, mn, 0);
	char *s = buf;
	while (*s == ' ')
		s++;
	if (!path)
		path = "";
	char v[256];
	const char *p;
	if (starts(s, "NCCL version ", 13)) {
		size_t i = 0;
		p = s + 13;
		while (i + 1 < sizeof v && (isalnum((unsigned char)p[i]) || p[i] == '.' || p[i] == '+'))
			i++;
		if (i == 0 || !isdigit((unsigned char)p[0]))
			return 0;
		memcpy(v, p, i);
		v[i] = 0;
		char *plus = strchr(v, '+'); /* "2.21.5+cuda12.4": the version; the build is kept apart */
		cJSON *n = node(facts, host, hn);
		if (!n)
			return 0;
		if (plus) {
			set_first(n, "nccl_build", plus + 1, path, lineno);
			*plus = 0;
		}
		set_first(n, "nccl_version", v, path, lineno);
		return 1;
	}
	if (starts(s, "cudaDriverVersion ", 18)) {
		long c = strtol(s + 18, NULL, 10);
		if (c <= 0 || c > 100000)
			return 0;
		/* snprintf's "%ld.%ld" of c / 1000 and (c % 1000) / 10 (both below 1000 here) */
		char *e = put_dec(v, c / 1000);
		*e++ = '.';
		*put_dec(e, (c % 1000) / 10) = 0;
		cJSON *n = node(facts, host, hn);
		if (n)
			set_first(n, "cuda_driver", v, path, lineno);
		return n != NULL;
	}
	if (starts(s, "Using network ", 14)) {
		rest(s + 14, v, sizeof v);
		if (!*v)
			return 0;
		cJSON *n = node(facts, host, hn);
		if (n)
			set_first(n, "network", v, path, lineno);
		return n != NULL;
	}
	if ((p = strstr(s, "Loaded net plugin "))) {
		rest(p + 18, v, sizeof v);
		cJSON *n = node(facts, host, hn);
		if (n && *v)
			set_first(n, "net_plugin", v, path, lineno);
		return n != NULL;
	}
	if (starts(s, "NET/Plugin", 10) &&
	    (strstr(s, "Using internal network plugin") || strstr(s, "using internal implementation"))) {
		cJSON *n = node(facts, host, hn);
		if (n)
			set_first(n, "net_plugin", "internal", path, lineno);
		return n != NULL;
	}
	if (starts(s, "NET/IB", 6) && (p = strstr(s, " : GPU Direct RDMA "))) {
		/* "NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'"; NET/Socket prints
		 * "Disabled" for every interface on healthy runs: not a GDR fact */
		const char *st = p + 19;
		int en = !strncmp(st, "Enabled", 7) || !strncmp(st, "enabled", 7);
		int dis = !strncmp(st, "Disabled", 8) || !strncmp(st, "disabled", 8);
		const char *q = strchr(st, '\'');
		if ((!en && !dis) || !q)
			return 0;
		const char *qe = strchr(q + 1, '\'');
		size_t l = qe ? (size_t)(qe - q - 1) : strcspn(q + 1, " ");
		if (l == 0 || l >= 64)
			return 0;
		char hca[64];
		memcpy(hca, q + 1, l);
		hca[l] = 0;
		cJSON *n = node(facts, host, hn);
		if (!n)
			return 0;
		cJSON *gdr = sys_obj(n, "gdr");
		char *key = str_sanitize(hca, strlen(hca));
		if (!cJSON_GetObjectItemCaseSensitive(gdr, key) && cJSON_GetArraySize(gdr) < ND_MAX_HCAS) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddBoolToObject(o, "enabled", en);
			sys_put_source(o, path, lineno);
			cJSON_AddItemToObject(gdr, key, o);
		}
		free(key);
		return 1;
	}
	if (starts(s, "NET/IB : Using ", 15) || starts(s, "NET/IB: Using ", 14)) {
		/* "[0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.1<0>" */
		p = strstr(s, "Using ") + 6;
		const char *semi = strchr(p, ';');
		size_t l = semi ? (size_t)(semi - p) : strlen(p);
		if (l >= sizeof v)
			l = sizeof v - 1;
		memcpy(v, p, l);
		v[l] = 0;
		char *t = sys_trim(v);
		if (!strstr(t, "[0]"))
			return 0; /* "Using [RO]; OOB ...": no RDMA device at all */
		cJSON *n = node(facts, host, hn);
		if (n && *t)
			set_first(n, "ib_devices", t, path, lineno);
		return n != NULL;
	}
	if (starts(s, "Bootstrap : Using", 17) || starts(s, "Bootstrap: Using", 16)) {
		p = strstr(s, "Using") + 5;
		rest(p, v, sizeof v);
		cJSON *n = node(facts, host, hn);
		if (n && *v)
			set_first(n, "bootstrap", v, path, lineno);
		return n != NULL;
	}
	return 0;
}
