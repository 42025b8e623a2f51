/* rules_host.c - the fact-rule provider RULES_HOST: the host reports
 * (nccl-tests results, kernel messages, per-node NCCL facts, RDMA ports and
 * GIDs, lspci ACS and links, interfaces, /dev/shm, memlock, kernel modules,
 * libnccl listings) checked against each other and against the log side.
 * Every finding is evidence like a signature's, its statement citing the
 * facts it rests on ([path:line]) and saying what was derived from them;
 * the diagnoses are in patterns/hostreports.json.  Facts: docs/facts.md. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "match/patids.h"
#include "parse/ranks.h"
#include "rules/rules.h"
#include "parse/sysparse.h"

static const struct rule_def HOST_RULES[] = {
	{"host.nccl_tests_wrong_values", "an nccl-tests run reported wrong values (#wrong > 0 or 'Out of bounds values : N FAILED')"},
	{"host.nccl_tests_library_differs", "nccl-tests was compiled against one NCCL (nccl-headers) and ran with another (nccl-library)"},
	{"host.nodes_nccl_differs", "hosts of one job load different NCCL versions (their NCCL INFO banners)"},
	{"host.nodes_driver_differs", "hosts of one job report different CUDA driver versions (cudaDriverVersion)"},
	{"host.nodes_network_differs", "hosts of one job use different networks or net plugins (Using network / NET/Plugin)"},
	{"host.nodes_gdr_differs", "GPU Direct RDMA is enabled for an HCA on some hosts and disabled on others"},
	{"host.socket_ifname_absent", "NCCL_SOCKET_IFNAME selects no interface that exists and is up in the interface listing"},
	{"host.shm_small", "/dev/shm is smaller than 1 GiB (Docker's default is 64 MiB)"},
	{"host.memlock_small_with_ib", "the locked-memory limit (ulimit -l) is not unlimited on a job that uses InfiniBand/RoCE"},
	{"host.peermem_not_loaded", "a full lsmod shows neither nvidia_peermem nor nv_peer_mem on a job that uses InfiniBand/RoCE"},
	{"host.peermem_name_old_nccl", "only nvidia_peermem is loaded and the NCCL is <= 2.22.3, which looks for nv_peer_mem only"},
	{"host.acs_redirect_above_gpu", "ACS request/completion redirect is enabled on a PCIe bridge above a GPU"},
	{"host.acs_with_hang", "ACS redirect above the GPUs and a job that hung or timed out"},
	{"host.pci_link_narrow", "a GPU's or NIC's PCIe link trained narrower than its capability (LnkSta width < LnkCap width)"},
	{"host.ib_ports_down", "RDMA ports that are not Active (ibstat / ibv_devinfo / ibstatus)"},
	{"host.ib_hca_down_selected", "NCCL_IB_HCA selects an RDMA port that is not Active"},
	{"host.ib_hca_absent", "NCCL_IB_HCA selects none of the RDMA devices the port listing shows"},
	{"host.roce_gid_index", "the RoCE GID index NCCL uses is missing, link-local or RoCE v1"},
	{"host.oom_killed_rank", "a rank killed by SIGKILL whose pid the kernel's OOM killer killed"},
	{"host.xid_on_rank_gpu", "an NVIDIA Xid on the GPU a rank used (bus id from NCCL's init line)"},
	{"host.libnccl_several", "listings show libnccl.so files of more than one NCCL version"},
};

/* ---------- helpers ---------- */

static const char *src_path(const cJSON *src)
{
	const char *p = json_str(src, "path");
	return p ? p : "";
}

static uint64_t src_line(const cJSON *src)
{
	double l = 0;
	json_num(src, "line", &l);
	return l > 0 ? (uint64_t)l : 0;
}

static const char *where(const cJSON *src, char *buf, size_t n)
{
	snprintf(buf, n, "%s:%llu", src_path(src), (unsigned long long)src_line(src));
	return buf;
}

/* Record a finding at src; the statement is also the capture {statement}. */
static struct evidence *emit(struct rule_ctx *rc, const char *id, const cJSON *src, int rank, struct caplist *c,
                             const char *fmt, ...) NT_PRINTF(6, 7);
static struct evidence *emit(struct rule_ctx *rc, const char *id, const cJSON *src, int rank, struct caplist *c,
                             const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *st = xvasprintf(fmt, ap);
	va_end(ap);
	struct caplist none = {0};
	if (!c)
		c = &none;
	caplist_add(c, "statement", "%s", st);
	struct evidence *e = rule_emit(rc, id, src_path(src), src_line(src), st, c->v, c->n);
	if (e && rank >= 0)
		e->rank = rank;
	caplist_free(c);
	free(st);
	return e;
}

static const char *env_value(const cJSON *facts, const char *name, const cJSON **src)
{
	const cJSON *e = json_get(json_get(facts, "env"), name);
	const char *v = json_str(e, "value");
	if (src)
		*src = e;
	return v;
}

/* the highest NCCL version the bundle shows (banners, per-node facts, nccl-tests), as a code; 0 none */
static long bundle_nccl(const cJSON *facts, char *text, size_t tn)
{
	long best = 0;
	const cJSON *v;
	if (text && tn)
		text[0] = 0;
#define TAKE(s) do { long c_ = (s) ? version_code(s) : -1; \
	if (c_ > best) { best = c_; if (text) snprintf(text, tn, "%s", (s)); } } while (0)
	cJSON_ArrayForEach(v, json_get(facts, "nccl_versions"))
		if (cJSON_IsString(v))
			TAKE(v->valuestring);
	cJSON_ArrayForEach(v, json_get(facts, "nodes"))
		TAKE(json_str(json_get(v, "nccl_version"), "value"));
	cJSON_ArrayForEach(v, json_get(json_get(facts, "nccl_tests"), "runs"))
		TAKE(json_str(v, "nccl_library"));
	TAKE(json_str(json_get(json_get(facts, "versions"), "nccl_pip"), "value"));
#undef TAKE
	return best;
}

/* whether the job uses InfiniBand/RoCE, and why (for the statement) */
static int ib_in_use(const struct rule_ctx *rc, char *why, size_t wn)
{
	const cJSON *n;
	cJSON_ArrayForEach(n, json_get(rc->facts, "nodes")) {
		const char *net = json_str(json_get(n, "network"), "value");
		if (net && !strncmp(net, "IB", 2)) {
			char b[300];
			snprintf(why, wn, "NCCL on %s uses network %s [%s]", n->string, net,
			         where(json_get(json_get(n, "network"), "source"), b, sizeof b));
			return 1;
		}
		const char *dev = json_str(json_get(n, "ib_devices"), "value");
		if (dev) {
			char b[300];
			snprintf(why, wn, "NCCL on %s uses RDMA devices %s [%s]", n->string, dev,
			         where(json_get(json_get(n, "ib_devices"), "source"), b, sizeof b));
			return 1;
		}
	}
	if (evlist_has(rc->ev, SIG_IB_USING_DEVICES)) {
		snprintf(why, wn, "NCCL's log lists RDMA devices (NET/IB : Using ...)");
		return 1;
	}
	/* an IB/RoCE failure in the log (completion errors, async events) */
	for (size_t i = 0; i < rc->ev->n; i++) {
		const char *id = rc->ev->v[i].id;
		if (id && !strncmp(id, FAMILY_IB, strlen(FAMILY_IB)) && strcmp(id, SIG_IB_NO_DEVICE) &&
		    strcmp(id, SIG_IB_LIBIBVERBS_MISSING)) {
			snprintf(why, wn, "the log shows an InfiniBand/RoCE error (%s) [%s:%llu]", id, rc->ev->v[i].path,
			         (unsigned long long)rc->ev->v[i].line);
			return 1;
		}
	}
	const cJSON *src;
	const char *dis = env_value(rc->facts, "NCCL_IB_DISABLE", NULL);
	if (dis && atoi(dis) == 1)
		return 0;
	const char *hca = env_value(rc->facts, "NCCL_IB_HCA", &src);
	if (hca && *hca) {
		snprintf(why, wn, "NCCL_IB_HCA=%s is set", hca);
		return 1;
	}
	return 0;
}

/* NCCL's interface list matching (NCCL_SOCKET_IFNAME, NCCL_IB_HCA):
 * "^a,b" excludes, "=a" exact, else prefix; ":port" after a name for HCAs */
struct iflist {
	int exclude, exact;
	char names[16][64];
	int ports[16];
	int n;
};

static void iflist_parse(const char *v, struct iflist *l)
{
	memset(l, 0, sizeof *l);
	if (*v == '^') {
		l->exclude = 1;
		v++;
	}
	if (*v == '=') {
		l->exact = 1;
		v++;
	}
	while (*v && l->n < 16) {
		size_t k = strcspn(v, ",");
		size_t c = k < 63 ? k : 63;
		memcpy(l->names[l->n], v, c);
		l->names[l->n][c] = 0;
		char *colon = strchr(l->names[l->n], ':');
		l->ports[l->n] = -1;
		if (colon) {
			*colon = 0;
			l->ports[l->n] = atoi(colon + 1);
		}
		if (l->names[l->n][0])
			l->n++;
		v += k;
		if (*v == ',')
			v++;
	}
}

static int iflist_match(const struct iflist *l, const char *name, int port)
{
	int m = 0;
	for (int i = 0; i < l->n && !m; i++) {
		int nm = l->exact ? !strcmp(l->names[i], name) : !strncmp(l->names[i], name, strlen(l->names[i]));
		if (nm && (l->ports[i] < 0 || port < 0 || l->ports[i] == port))
			m = 1;
	}
	return l->exclude ? !m : m;
}

/* ---------- nccl-tests ---------- */

static void rule_nccl_tests(struct rule_ctx *rc)
{
	const cJSON *r;
	char b[300], b2[300];
	cJSON_ArrayForEach(r, json_get(json_get(rc->facts, "nccl_tests"), "runs")) {
		double wrong = 0, rows = 0, rw = 0, oobn = 0, size = 0;
		json_num(r, "wrong", &wrong);
		json_num(r, "rows", &rows);
		json_num(r, "rows_wrong", &rw);
		const cJSON *oob = json_get(r, "oob");
		json_num(oob, "count", &oobn);
		const char *ost = json_str(oob, "status");
		const char *prog = json_str(r, "program");
		const char *lib = json_str(r, "nccl_library");
		if (wrong > 0 || oobn > 0 || (ost && !strcmp(ost, "FAILED"))) {
			const cJSON *fw = json_get(r, "first_wrong");
			json_num(fw, "size", &size);
			const cJSON *at = fw ? json_get(fw, "source") : oob ? json_get(oob, "source") : json_get(r, "source");
			struct caplist c = {0};
			caplist_add(&c, "program", "%s", prog ? prog : "nccl-tests");
			caplist_add(&c, "wrong", "%.0f", wrong);
			if (rw > 0)
				caplist_add(&c, "wrong_size", "%.0f", size);
			if (lib)
				caplist_add(&c, "nccl_library", "%s", lib);
			struct buf hosts;
			buf_init(&hosts);
			const cJSON *d;
			int nh = 0;
			cJSON_ArrayForEach(d, json_get(r, "devices")) {
				const char *h = json_str(d, "host");
				if (h && nh < 8 && (!hosts.data || !strstr(hosts.data, h))) {
					buf_printf(&hosts, "%s%s", nh ? ", " : "", h);
					nh++;
				}
			}
			if (nh)
				caplist_add(&c, "hosts", "%s", hosts.data);
			struct buf w;
			buf_init(&w);
			if (rw > 0)
				buf_printf(&w, "%.0f wrong values in %.0f of %.0f message sizes (first at %.0f bytes [%s])", wrong, rw,
				           rows, size, where(at, b, sizeof b));
			if (oob)
				buf_printf(&w, "%s'Out of bounds values : %.0f %s' [%s]", w.len ? "; " : "", oobn, ost ? ost : "",
				           where(json_get(oob, "source"), b2, sizeof b2));
			emit(rc, "host.nccl_tests_wrong_values", at, -1, &c,
			     "%s returned corrupted data: %s%s%s%s%s; the collective completed but its results were wrong",
			     prog ? prog : "nccl-tests", w.data ? w.data : "", lib ? " (NCCL " : "", lib ? lib : "",
			     lib ? ")" : "", nh ? "" : "");
			buf_free(&w);
			buf_free(&hosts);
		}
		const char *hdr = json_str(r, "nccl_headers");
		if (hdr && lib && strcmp(hdr, lib)) {
			struct caplist c = {0};
			caplist_add(&c, "headers", "%s", hdr);
			caplist_add(&c, "library", "%s", lib);
			emit(rc, "host.nccl_tests_library_differs", json_get(r, "source"), -1, &c,
			     "%s was compiled against NCCL %s (nccl-headers) but ran with NCCL %s (nccl-library) [%s]: "
			     "LD_LIBRARY_PATH or the system picked another libnccl than the one it was built with",
			     prog ? prog : "nccl-tests", hdr, lib, where(json_get(r, "source"), b, sizeof b));
		}
	}
}

/* ---------- nodes ---------- */

/* The index of V among the *N distinct values kept in VALS (MAX rows of W
 * bytes): V is added when new and there is room; MAX when there is none. */
static int value_index(char *vals, size_t w, int max, int *n, const char *v)
{
	int k;
	for (k = 0; k < *n; k++)
		if (!strcmp(vals + (size_t)k * w, v))
			return k;
	if (*n < max)
		snprintf(vals + (size_t)(*n)++ * w, w, "%s", v);
	return k;
}

/* key differs across hosts: list host=value; returns 1 when emitted */
static int nodes_differ(struct rule_ctx *rc, const char *key, const char *id, const char *what)
{
	const cJSON *nodes = json_get(rc->facts, "nodes");
	const cJSON *n, *first = NULL, *odd = NULL;
	const char *fv = NULL;
	int hosts = 0, distinct = 0;
	char vals[8][64];
	int counts[8] = {0};
	cJSON_ArrayForEach(n, nodes) {
		const char *v = json_str(json_get(n, key), "value");
		if (!v)
			continue;
		hosts++;
		int k = value_index(&vals[0][0], sizeof vals[0], 8, &distinct, v);
		if (k < 8)
			counts[k]++;
		if (!first) {
			first = n;
			fv = v;
		} else if (!odd && strcmp(v, fv)) {
			odd = n;
		}
	}
	if (distinct < 2 || hosts < 2)
		return 0;
	struct buf l;
	buf_init(&l);
	int shown = 0;
	char b[300];
	cJSON_ArrayForEach(n, nodes) {
		const char *v = json_str(json_get(n, key), "value");
		if (!v)
			continue;
		if (shown < 12)
			buf_printf(&l, "%s%s %s [%s]", shown ? "; " : "", n->string, v, where(json_get(json_get(n, key), "source"), b, sizeof b));
		shown++;
	}
	if (shown > 12)
		buf_printf(&l, " and %d more hosts", shown - 12);
	/* the odd one out: the value fewest hosts have */
	int mink = 0;
	for (int k = 1; k < distinct; k++)
		if (counts[k] < counts[mink])
			mink = k;
	struct caplist c = {0};
	caplist_add(&c, "hosts", "%s", l.data);
	caplist_add(&c, "values", "%d", distinct);
	caplist_add(&c, "minority", "%s", vals[mink]);
	const cJSON *at = NULL;
	cJSON_ArrayForEach(n, nodes) {
		const char *v = json_str(json_get(n, key), "value");
		if (v && !strcmp(v, vals[mink]) && !at)
			at = json_get(json_get(n, key), "source");
	}
	emit(rc, id, at ? at : json_get(json_get(odd ? odd : first, key), "source"), -1, &c,
	     "%s differs between the hosts of this job (%d values over %d hosts, from their NCCL INFO lines): %s", what,
	     distinct, hosts, l.data);
	buf_free(&l);
	return 1;
}

static void rule_nodes(struct rule_ctx *rc)
{
	nodes_differ(rc, "nccl_version", "host.nodes_nccl_differs", "the NCCL version");
	nodes_differ(rc, "cuda_driver", "host.nodes_driver_differs", "the CUDA driver version (cudaDriverVersion)");
	if (!nodes_differ(rc, "network", "host.nodes_network_differs", "the network NCCL uses (Using network)"))
		nodes_differ(rc, "net_plugin", "host.nodes_network_differs", "the NCCL net plugin");
	/* GDR per HCA name across hosts */
	const cJSON *nodes = json_get(rc->facts, "nodes");
	const cJSON *n;
	struct buf on, off;
	buf_init(&on);
	buf_init(&off);
	int non = 0, noff = 0;
	const cJSON *offsrc = NULL;
	cJSON_ArrayForEach(n, nodes) {
		const cJSON *g;
		int hon = 0, hoff = 0;
		const cJSON *hs = NULL;
		cJSON_ArrayForEach(g, json_get(n, "gdr")) {
			if (cJSON_IsTrue(json_get(g, "enabled")))
				hon++;
			else {
				hoff++;
				if (!hs)
					hs = json_get(g, "source");
			}
		}
		if (hon && non < 12)
			buf_printf(&on, "%s%s", non ? ", " : "", n->string);
		non += hon > 0;
		if (hoff && !hon) {
			char b[300];
			if (noff < 12)
				buf_printf(&off, "%s%s [%s]", noff ? ", " : "", n->string, where(hs, b, sizeof b));
			noff++;
			if (!offsrc)
				offsrc = hs;
		}
	}
	if (non && noff) {
		struct caplist c = {0};
		caplist_add(&c, "enabled_on", "%s", on.data);
		caplist_add(&c, "disabled_on", "%s", off.data);
		emit(rc, "host.nodes_gdr_differs", offsrc, -1, &c,
		     "GPU Direct RDMA is disabled for every HCA on %d host(s) (%s) and enabled on %d other(s) (%s), from "
		     "their 'NET/IB : GPU Direct RDMA ...' lines: those hosts stage RDMA through host memory",
		     noff, off.data, non, on.data);
	}
	buf_free(&on);
	buf_free(&off);
}

/* ---------- interfaces vs NCCL_SOCKET_IFNAME ---------- */

static void rule_ifname(struct rule_ctx *rc)
{
	const cJSON *esrc;
	const char *v = env_value(rc->facts, "NCCL_SOCKET_IFNAME", &esrc);
	const cJSON *ifs = json_get(rc->facts, "interfaces");
	if (!v || !*v || !cJSON_GetArraySize(ifs))
		return;
	struct iflist l;
	iflist_parse(v, &l);
	if (!l.n)
		return;
	/* per listing document */
	const cJSON *i, *j;
	char done[16][256];
	int ndone = 0;
	cJSON_ArrayForEach(i, ifs) {
		const char *doc = src_path(json_get(i, "source"));
		int seen = 0;
		for (int k = 0; k < ndone; k++)
			if (!strcmp(done[k], doc))
				seen = 1;
		if (seen || ndone >= 16)
			continue;
		snprintf(done[ndone++], 256, "%s", doc);
		int match_up = 0, match_down = 0, nonlo_up = 0;
		struct buf all, down;
		buf_init(&all);
		buf_init(&down);
		const cJSON *first = NULL;
		cJSON_ArrayForEach(j, ifs) {
			if (strcmp(src_path(json_get(j, "source")), doc))
				continue;
			const char *name = json_str(j, "name");
			if (!name)
				continue;
			if (!first)
				first = json_get(j, "source");
			const cJSON *upo = json_get(j, "up");
			int known = cJSON_IsBool(upo);
			int up = !known || cJSON_IsTrue(upo);
			buf_printf(&all, "%s%s%s", all.len ? ", " : "", name, !known ? "" : up ? " (up)" : " (down)");
			if (up && strcmp(name, "lo"))
				nonlo_up++;
			if (iflist_match(&l, name, -1)) {
				if (up)
					match_up++;
				else {
					match_down++;
					buf_printf(&down, "%s%s", down.len ? ", " : "", name);
				}
			}
		}
		char b[300];
		const char *es = json_str(esrc, "path");
		double el = 0;
		json_num(esrc, "line", &el);
		char ew[300];
		snprintf(ew, sizeof ew, "%s:%.0f", es ? es : "environment", el);
		struct caplist c = {0};
		caplist_add(&c, "socket_ifname", "%s", v);
		caplist_add(&c, "interfaces", "%s", all.data ? all.data : "");
		if (!match_up && !match_down && !l.exclude) {
			caplist_add(&c, "host_fix", "set NCCL_SOCKET_IFNAME to an interface the hosts share and that is up here");
			emit(rc, "host.socket_ifname_absent", esrc ? esrc : first, -1, &c,
			     "NCCL_SOCKET_IFNAME=%s [%s] matches none of the interfaces listed in %s (%s) [%s] (derived: NCCL's "
			     "prefix matching applied to the listing): NCCL finds no socket interface (\"Bootstrap : no socket "
			     "interface found\") on a host that looks like this one",
			     v, ew, doc, all.data ? all.data : "", where(first, b, sizeof b));
		} else if (!match_up && match_down) {
			caplist_add(&c, "host_fix", "bring the interface up or point NCCL_SOCKET_IFNAME at one that is up");
			emit(rc, "host.socket_ifname_absent", esrc ? esrc : first, -1, &c,
			     "NCCL_SOCKET_IFNAME=%s [%s] matches only interfaces that are down in %s (%s) [%s] (derived: NCCL's "
			     "prefix matching applied to the listing)", v, ew, doc,
			     down.data, where(first, b, sizeof b));
		} else if (l.exclude && !match_up) {
			caplist_add(&c, "host_fix", "exclude less (NCCL_SOCKET_IFNAME=^docker,lo) or name the interface to use");
			emit(rc, "host.socket_ifname_absent", esrc ? esrc : first, -1, &c,
			     "NCCL_SOCKET_IFNAME=%s [%s] excludes every interface that is up in %s (%s) [%s] (derived: NCCL's "
			     "prefix matching applied to the listing)", v, ew, doc,
			     all.data ? all.data : "", where(first, b, sizeof b));
		} else if (l.exclude && match_up && nonlo_up && match_up == 1) {
			/* only lo survives the exclusion: fine on one host, wrong across hosts */
			int only_lo = 1;
			cJSON_ArrayForEach(j, ifs) {
				if (strcmp(src_path(json_get(j, "source")), doc))
					continue;
				const char *name = json_str(j, "name");
				const cJSON *upo = json_get(j, "up");
				int up = !cJSON_IsBool(upo) || cJSON_IsTrue(upo);
				if (name && up && strcmp(name, "lo") && iflist_match(&l, name, -1))
					only_lo = 0;
			}
			if (only_lo) {
				caplist_add(&c, "host_fix", "name the interface the hosts share (NCCL_SOCKET_IFNAME=eth0) instead of excluding");
				emit(rc, "host.socket_ifname_absent", esrc ? esrc : first, -1, &c,
				     "NCCL_SOCKET_IFNAME=%s [%s] leaves only the loopback interface lo of %s (%s) [%s] (derived: "
				     "NCCL's prefix matching applied to the listing): NCCL bootstraps over 127.0.0.1, which works "
				     "on one host only",
				     v, ew, doc, all.data ? all.data : "", where(first, b, sizeof b));
			}
		}
		for (size_t k = 0; k < c.n; k++) {
			free(c.v[k].name);
			free(c.v[k].value);
		}
		buf_free(&all);
		buf_free(&down);
	}
}

/* ---------- /dev/shm, memlock, modules ---------- */

static void rule_limits(struct rule_ctx *rc)
{
	char b[300], why[600];
	const cJSON *shm = json_get(rc->facts, "shm");
	double sz;
	if (shm && json_num(shm, "size_bytes", &sz) && sz < 1024.0 * 1024 * 1024) {
		const char *opts = json_str(shm, "mount_options");
		const char *fs = json_str(shm, "filesystem");
		int docker = (fs && !strcmp(fs, "shm")) || (opts && strstr(opts, "size=65536k"));
		struct caplist c = {0};
		caplist_add(&c, "shm_size", "%s", json_str(shm, "size_text") ? json_str(shm, "size_text") : "?");
		caplist_add(&c, "host_fix", "docker run --shm-size=1g (or --ipc=host); in Kubernetes mount an emptyDir with "
		    "medium: Memory at /dev/shm");
		emit(rc, "host.shm_small", json_get(shm, "source"), -1, &c,
		     "/dev/shm is %s (%.0f MiB) [%s]%s: NCCL creates its shared-memory segments there (tens of MB each) "
		     "whenever it does not use cuMem host memory, and a full /dev/shm fails with 'No space left on "
		     "device' or a bus error",
		     json_str(shm, "size_text") ? json_str(shm, "size_text") : "?", sz / (1024.0 * 1024), where(json_get(shm, "source"), b, sizeof b),
		     docker ? ", the size a Docker container gets without --shm-size or --ipc=host" : "");
	}
	const cJSON *ml = json_get(json_get(rc->facts, "limits"), "memlock");
	if (ml && cJSON_IsFalse(json_get(ml, "unlimited")) && ib_in_use(rc, why, sizeof why)) {
		struct caplist c = {0};
		caplist_add(&c, "memlock_limit", "%s", json_str(ml, "text") ? json_str(ml, "text") : "?");
		caplist_add(&c, "why_ib", "%s", why);
		caplist_add(&c, "host_fix", "ulimit -l unlimited (limits.conf memlock, systemd LimitMEMLOCK=infinity, docker "
		    "--ulimit memlock=-1, Slurm PropagateResourceLimits)");
		emit(rc, "host.memlock_small_with_ib", json_get(ml, "source"), -1, &c,
		     "the locked-memory limit is %s [%s], not unlimited, and %s (derived: the two reports together): RDMA "
		     "registers (pins) NCCL's buffers, and ibv_reg_mr / ibv_create_cq fail once the limit is reached",
		     json_str(ml, "text") ? json_str(ml, "text") : "?", where(json_get(ml, "source"), b, sizeof b), why);
	}
	const cJSON *km = json_get(rc->facts, "kernel_modules");
	const cJSON *loaded = json_get(km, "loaded");
	int new_pm = json_get(loaded, "nvidia_peermem") != NULL, old_pm = json_get(loaded, "nv_peer_mem") != NULL;
	const char *listing = json_str(km, "listing");
	if (listing && !strcmp(listing, "full") && !new_pm && !old_pm && ib_in_use(rc, why, sizeof why)) {
		struct caplist c = {0};
		caplist_add(&c, "why_ib", "%s", why);
		caplist_add(&c, "host_fix", "modprobe nvidia-peermem (from the NVIDIA driver), or use the DMA-BUF path "
		    "(recent kernel, driver and NCCL)");
		emit(rc, "host.peermem_not_loaded", json_get(km, "source"), -1, &c,
		     "the module listing [%s] has neither nvidia_peermem nor nv_peer_mem, and %s (derived: the two reports "
		     "together): without one of them "
		     "(or DMA-BUF) NCCL reports 'GPU Direct RDMA Disabled' and stages every transfer through host memory",
		     where(json_get(km, "source"), b, sizeof b), why);
	}
	char ver[64];
	long code = bundle_nccl(rc->facts, ver, sizeof ver);
	/* GPU Direct RDMA reported disabled for an HCA on some host */
	const cJSON *gdr_off = NULL, *nd, *g;
	cJSON_ArrayForEach(nd, json_get(rc->facts, "nodes"))
		cJSON_ArrayForEach(g, json_get(nd, "gdr"))
			if (!gdr_off && cJSON_IsFalse(json_get(g, "enabled")))
				gdr_off = json_get(g, "source");
	if (new_pm && !old_pm && code > 0 && code <= 22203 && gdr_off) {
		struct caplist c = {0};
		caplist_add(&c, "nccl_seen", "%s", ver);
		caplist_add(&c, "host_fix", "upgrade NCCL to 2.23.4 or later (which also looks for nvidia_peermem)");
		char b2[300];
		emit(rc, "host.peermem_name_old_nccl", json_get(json_get(loaded, "nvidia_peermem"), "source"), -1, &c,
		     "nvidia_peermem is loaded [%s] but not nv_peer_mem, NCCL %s reports GPU Direct RDMA disabled [%s] "
		     "(derived: the module listing, the bundle's NCCL version and its GDR line together): NCCL up to "
		     "2.22.3 detects GPUDirect RDMA only through /sys/kernel/mm/memory_peers/nv_mem[_nc]/version, which "
		     "recent nvidia_peermem builds do not create; 2.23.4 also checks /sys/module/nvidia_peermem/version",
		     where(json_get(json_get(loaded, "nvidia_peermem"), "source"), b, sizeof b), ver, where(gdr_off, b2, sizeof b2));
	}
}

/* ---------- PCIe: ACS above GPUs, narrow links ---------- */

static const cJSON *pci_dev(const cJSON *devs, const char *bdf, const char *doc)
{
	const cJSON *d;
	cJSON_ArrayForEach(d, devs) {
		const char *b = json_str(d, "bdf");
		if (b && !strcmp(b, bdf) && !strcmp(src_path(json_get(d, "source")), doc))
			return d;
	}
	return NULL;
}

static int hang_seen(const struct rule_ctx *rc, const char **what)
{
	static const char *const IDS[] = {RULE_TOPO_HANG_AFTER_P2P_SETUP, SIG_COLL_WATCHDOG_TIMEOUT,
	                                  SIG_C10D_BLOCKING_WAIT_TIMEOUT, RULE_RANKS_STUCK_IN_INIT,
	                                  RULE_RANKS_HANG_STOPPED_OUTSIDE, RULE_RANKS_LOG_ENDS_MIDWAY,
	                                  SIG_COLL_HEARTBEAT_STUCK, NULL};
	for (int i = 0; IDS[i]; i++)
		if (evlist_has(rc->ev, IDS[i])) {
			*what = IDS[i];
			return 1;
		}
	return 0;
}

static void rule_pci(struct rule_ctx *rc)
{
	const cJSON *pci = json_get(rc->facts, "pci");
	const cJSON *devs = json_get(pci, "devices");
	const cJSON *d;
	struct buf l;
	buf_init(&l);
	int n = 0;
	const cJSON *first = NULL;
	char b[300];
	cJSON_ArrayForEach(d, devs) {
		if (!cJSON_IsTrue(json_get(d, "gpu")))
			continue;
		const char *doc = src_path(json_get(d, "source"));
		const cJSON *br;
		cJSON_ArrayForEach(br, json_get(d, "bridges_above")) {
			if (!cJSON_IsString(br))
				continue;
			const cJSON *bd = pci_dev(devs, br->valuestring, doc);
			const cJSON *acs = json_get(bd, "acs");
			if (!cJSON_IsTrue(json_get(acs, "redirect")))
				continue;
			if (n < 8)
				buf_printf(&l, "%sGPU %s below %s (ACSCtl: %s) [%s]", n ? "; " : "", json_str(d, "bdf"), br->valuestring,
				           json_str(acs, "ctl") ? json_str(acs, "ctl") : "", where(json_get(acs, "source"), b, sizeof b));
			if (!first)
				first = json_get(acs, "source");
			n++;
			break;
		}
	}
	const char *stmt_tail = "P2P reads and writes between these GPUs are redirected up to the root complex (and the "
	                        "IOMMU), where they are slow or never complete";
	const char *hang = NULL;
	int hung = hang_seen(rc, &hang);
	if (n) {
		struct caplist c = {0};
		caplist_add(&c, "gpus", "%s", l.data);
		caplist_add(&c, "host_fix", "disable ACS on the PCIe switches/root ports (BIOS, or setpci -s BDF ECAP_ACS+6.w=0000 "
		    "at boot), or NCCL_P2P_DISABLE=1 as a workaround");
		emit(rc, "host.acs_redirect_above_gpu", first, -1, &c, "%d GPU(s) sit below a bridge with ACS redirect enabled "
		     "(derived from the bus ranges of the bridges in lspci -vvv): %s; %s", n, l.data, stmt_tail);
		if (hung) {
			struct caplist c2 = {0};
			caplist_add(&c2, "gpus", "%s", l.data);
			caplist_add(&c2, "hang", "%s", hang);
			emit(rc, "host.acs_with_hang", first, -1, &c2, "the job hung or timed out (%s) on a host whose GPUs sit "
			     "below bridges with ACS redirect enabled: %s (derived: the hang and the lspci report together)", hang, l.data);
		}
	} else {
		/* only "lspci -vvv | grep ACSCtl" lines: which bridges is unknown */
		const cJSON *al = json_get(pci, "acs_lines");
		double red = 0, cnt = 0;
		json_num(al, "redirect", &red);
		json_num(al, "count", &cnt);
		if (red > 0 && !cJSON_GetArraySize(devs)) {
			struct caplist c = {0};
			caplist_add(&c, "gpus", "%.0f of %.0f ACSCtl lines", red, cnt);
			emit(rc, "host.acs_redirect_above_gpu", json_get(al, "first_enabled"), -1, &c,
			     "%.0f of %.0f ACSCtl lines have request/completion redirect enabled [%s] (a filtered listing: "
			     "which devices they sit above is not shown); if they are above GPUs, %s",
			     red, cnt, where(json_get(al, "first_enabled"), b, sizeof b), stmt_tail);
			if (hung) {
				struct caplist c2 = {0};
				caplist_add(&c2, "gpus", "%.0f ACSCtl lines with redirect", red);
				caplist_add(&c2, "hang", "%s", hang);
				emit(rc, "host.acs_with_hang", json_get(al, "first_enabled"), -1, &c2,
				     "the job hung or timed out (%s) on a host where %.0f bridges have ACS redirect enabled", hang, red);
			}
		}
	}
	buf_free(&l);
	/* links narrower than their capability */
	int nn = 0;
	struct buf w;
	buf_init(&w);
	const cJSON *wfirst = NULL;
	cJSON_ArrayForEach(d, devs) {
		if (!cJSON_IsTrue(json_get(d, "gpu")) && !cJSON_IsTrue(json_get(d, "nic")))
			continue;
		const cJSON *lk = json_get(d, "link");
		double cw, sw;
		if (!cJSON_IsTrue(json_get(lk, "width_below_cap")) || !json_num(lk, "cap_width", &cw) || !json_num(lk, "width", &sw))
			continue;
		if (nn < 8)
			buf_printf(&w, "%s%s %s x%.0f of x%.0f [%s]", nn ? "; " : "", cJSON_IsTrue(json_get(d, "gpu")) ? "GPU" : "NIC",
			           json_str(d, "bdf"), sw, cw, where(json_get(lk, "source"), b, sizeof b));
		if (!wfirst)
			wfirst = json_get(lk, "source");
		nn++;
	}
	if (nn) {
		struct caplist c = {0};
		caplist_add(&c, "links", "%s", w.data);
		emit(rc, "host.pci_link_narrow", wfirst, -1, &c,
		     "%d PCIe link(s) trained narrower than the device supports (LnkSta width < LnkCap width): %s; bandwidth "
		     "through them is cut accordingly (a speed below the capability alone is normal for an idle GPU)",
		     nn, w.data);
	}
	buf_free(&w);
}

/* ---------- RDMA ports and GIDs ---------- */

/* Ports not Active: where the job uses RDMA (unused ports are normal on
 * many servers), and those NCCL_IB_HCA selects (HL: its parsed list). */
static void ib_ports_down(struct rule_ctx *rc, const cJSON *ib, const char *hca, const struct iflist *hl)
{
	const cJSON *p;
	char b[300];
	struct buf down, sel;
	buf_init(&down);
	buf_init(&sel);
	int ndown = 0, nactive = 0, nsel = 0;
	const cJSON *first = NULL, *selfirst = NULL;
	cJSON_ArrayForEach(p, json_get(ib, "ports")) {
		const char *st = json_str(p, "state");
		const char *name = json_str(p, "hca");
		double port = 0;
		json_num(p, "port", &port);
		if (!st || !name)
			continue;
		if (!strcmp(st, "Active")) {
			nactive++;
			continue;
		}
		const char *ph = json_str(p, "phys_state");
		if (ndown < 12)
			buf_printf(&down, "%s%s:%.0f %s%s%s [%s]", ndown ? ", " : "", name, port, st, ph ? "/" : "", ph ? ph : "",
			           where(json_get(p, "source"), b, sizeof b));
		ndown++;
		if (!first)
			first = json_get(p, "source");
		if (hca && *hca && !hl->exclude && iflist_match(hl, name, (int)port)) {
			if (nsel < 8)
				buf_printf(&sel, "%s%s:%.0f %s", nsel ? ", " : "", name, port, st);
			nsel++;
			if (!selfirst)
				selfirst = json_get(p, "source");
		}
	}
	char inuse[600];
	if (ndown && ib_in_use(rc, inuse, sizeof inuse)) {
		/* only where the job uses RDMA: unused ports are normal on many servers */
		struct caplist c = {0};
		caplist_add(&c, "ports", "%s", down.data);
		caplist_add(&c, "active", "%d", nactive);
		emit(rc, "host.ib_ports_down", first, -1, &c, "%d RDMA port(s) are not Active: %s (%d Active), and %s",
		     ndown, down.data, nactive, inuse);
	}
	if (nsel) {
		struct caplist c = {0};
		caplist_add(&c, "ib_hca", "%s", hca);
		caplist_add(&c, "ports", "%s", sel.data);
		caplist_add(&c, "host_fix", "select only Active ports in NCCL_IB_HCA (=mlx5_0:1 for an exact name), or fix the link");
		emit(rc, "host.ib_hca_down_selected", selfirst, -1, &c,
		     "NCCL_IB_HCA=%s selects port(s) that are not Active: %s (derived: NCCL's prefix matching applied to "
		     "the port listing)", hca, sel.data);
	}
	buf_free(&down);
	buf_free(&sel);
}

/* NCCL_IB_HCA (not an exclusion list) naming none of the ports listed;
 * HSRC: where the variable was set. */
static void ib_hca_absent(struct rule_ctx *rc, const cJSON *ib, const char *hca, const cJSON *hsrc,
                          const struct iflist *hl)
{
	const cJSON *p;
	char b[300];
	int any = 0;
	struct buf names;
	buf_init(&names);
	const cJSON *lfirst = NULL;
	cJSON_ArrayForEach(p, json_get(ib, "ports")) {
		const char *name = json_str(p, "hca");
		double port = 0;
		json_num(p, "port", &port);
		if (!name)
			continue;
		if (!lfirst)
			lfirst = json_get(p, "source");
		if (iflist_match(hl, name, (int)port))
			any = 1;
		if (names.len < 400)
			buf_printf(&names, "%s%s:%.0f", names.len ? ", " : "", name, port);
	}
	if (!any && lfirst) {
		struct caplist c = {0};
		caplist_add(&c, "ib_hca", "%s", hca);
		caplist_add(&c, "host_fix", "set NCCL_IB_HCA to devices of this listing (%s), or unset it", names.data);
		emit(rc, "host.ib_hca_absent", hsrc ? hsrc : lfirst, -1, &c,
		     "NCCL_IB_HCA=%s selects none of the RDMA ports listed (%s) [%s] (derived: NCCL's prefix "
		     "matching applied to the listing): NCCL finds no IB device and falls back to sockets, or fails "
		     "where NCCL_NET=IB is forced", hca, names.data, where(lfirst, b, sizeof b));
	}
	buf_free(&names);
}

/* The RoCE GID index NCCL uses: NCCL_IB_GID_INDEX, else 0 before NCCL
 * 2.21 (*WHY says which); -1 when not known. */
static int gid_index_used(long code, const char *gi, const char **why)
{
	if (gi && *gi && (isdigit((unsigned char)*gi) || *gi == '-')) {
		*why = "NCCL_IB_GID_INDEX";
		return atoi(gi);
	}
	if (code > 0 && code < 22100) {
		*why = "the default of NCCL before 2.21";
		return 0; /* NCCL before 2.21 uses GID index 0 unless told otherwise */
	}
	return -1;
}

/* One HCA port NAME:PORT of the GID listing DOC (G: its first row): the
 * GID at index WANT missing, link-local or RoCE v1 is reported with the
 * RoCE v2 GID to use instead. */
static void gid_check_port(struct rule_ctx *rc, const cJSON *gids, const cJSON *g, const char *name, double port,
                           const char *doc, int want, const char *why, long code, const char *ver)
{
	const cJSON *h;
	char b[300];
	const cJSON *at = NULL, *best = NULL;
	int count = 0;
	cJSON_ArrayForEach(h, gids) {
		double hp = 0, idx = -1;
		const char *hn = json_str(h, "hca");
		json_num(h, "port", &hp);
		json_num(h, "index", &idx);
		if (!hn || strcmp(hn, name) || hp != port || strcmp(src_path(json_get(h, "source")), doc))
			continue;
		count++;
		if ((int)idx == want)
			at = h;
		const char *t = json_str(h, "type");
		if (!best && t && strstr(t, "v2") && json_str(h, "ipv4"))
			best = h;
	}
	double bi = -1;
	json_num(best, "index", &bi);
	char rec[160];
	if (best)
		snprintf(rec, sizeof rec, "NCCL_IB_GID_INDEX=%.0f (the RoCE v2 GID with IPv4 %s on %s)", bi,
		         json_str(best, "ipv4"), name);
	else
		snprintf(rec, sizeof rec, "the index of a RoCE v2 GID with a routable address (show_gids)");
	const char *gid = json_str(at, "gid");
	const char *type = json_str(at, "type");
	int linklocal = gid && (!strncmp(gid, "fe80", 4));
	int v1 = type && strstr(type, "v1");
	if (at && !linklocal && !v1)
		return;
	struct caplist c = {0};
	caplist_add(&c, "gid_hca", "%s:%.0f", name, port);
	caplist_add(&c, "gid_index", "%d", want);
	caplist_add(&c, "host_fix", "%s", rec);
	char gw[300];
	if (at)
		snprintf(gw, sizeof gw, "is %s%s%s [%s]", gid ? gid : "?", type ? ", " : "", type ? type : "",
		         where(json_get(at, "source"), b, sizeof b));
	else
		snprintf(gw, sizeof gw, "does not exist (%d GIDs listed)", count);
	emit(rc, "host.roce_gid_index", at ? json_get(at, "source") : json_get(g, "source"), -1, &c,
	     "NCCL uses GID index %d on %s:%.0f (%s%s%s), and that GID %s%s%s (derived: the index looked up in "
	     "the GID table); set %s",
	     want, name, port, why, code > 0 ? ", NCCL " : "", code > 0 ? ver : "", gw,
	     linklocal ? ": a link-local address that is not routed between hosts" : "",
	     v1 && !linklocal ? ": RoCE v1, which does not cross IP subnets" : "", rec);
}

/* The RoCE GID index against the GID listing, once per HCA port and
 * listing document (up to 32), on the ports NCCL_IB_HCA selects. */
static void roce_gid_index(struct rule_ctx *rc, const cJSON *ib, const char *hca, const struct iflist *hl)
{
	const cJSON *gids = json_get(ib, "gids");
	if (!cJSON_GetArraySize(gids))
		return;
	const cJSON *gsrc;
	const char *gi = env_value(rc->facts, "NCCL_IB_GID_INDEX", &gsrc);
	char ver[64];
	long code = bundle_nccl(rc->facts, ver, sizeof ver);
	const char *why = NULL;
	int want = gid_index_used(code, gi, &why);
	if (want < 0)
		return;
	/* per HCA port of the listing */
	const cJSON *g;
	char seen[32][80];
	int nseen = 0;
	cJSON_ArrayForEach(g, gids) {
		const char *name = json_str(g, "hca");
		double port = 0;
		json_num(g, "port", &port);
		const char *doc = src_path(json_get(g, "source"));
		char key[80];
		snprintf(key, sizeof key, "%s:%.0f@%.40s", name ? name : "?", port, doc);
		int dup = 0;
		for (int k = 0; k < nseen; k++)
			if (!strcmp(seen[k], key))
				dup = 1;
		if (dup || nseen >= 32 || !name)
			continue;
		snprintf(seen[nseen++], 80, "%s", key);
		if (hca && *hca && !iflist_match(hl, name, (int)port))
			continue;
		gid_check_port(rc, gids, g, name, port, doc, want, why, code, ver);
	}
}

static void rule_ib(struct rule_ctx *rc)
{
	const cJSON *ib = json_get(rc->facts, "ib");
	const cJSON *hsrc;
	const char *hca = env_value(rc->facts, "NCCL_IB_HCA", &hsrc);
	struct iflist hl;
	if (hca && *hca)
		iflist_parse(hca, &hl);
	ib_ports_down(rc, ib, hca, &hl);
	if (hca && *hca && !hl.exclude && cJSON_GetArraySize(json_get(ib, "ports")))
		ib_hca_absent(rc, ib, hca, hsrc, &hl);
	roce_gid_index(rc, ib, hca, &hl);
}

/* ---------- kernel facts x rank timelines ---------- */

/* "0000:1c:00.0" -> NCCL's busId text "1c000" */
static void nccl_busid(const char *bdf, char *out, size_t on)
{
	unsigned dom, bus, dev, fn, f[3];
	out[0] = 0;
	/* sscanf's "%x:%x:%x.%x" without sscanf on the form of facts' bus ids
	 * (hex digits only, the last field up to the end): sys_hex3 reads the
	 * first three, strtoul the fourth, as sscanf does */
	int k = sys_hex3(bdf, '.', f);
	const char *q = k ? bdf + k : NULL, *e = q;
	while (e && isxdigit((unsigned char)*e))
		e++;
	if (q && e > q && !*e) {
		dom = f[0], bus = f[1], dev = f[2];
		fn = (unsigned)strtoul(q, NULL, 16);
	} else if (sscanf(bdf, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4) {
		return;
	}
	/* busIdToInt64 drops the separators: dom(4) bus(2) dev(2) fn(1) hex digits */
	unsigned long long v = ((unsigned long long)dom << 20) | ((unsigned long long)bus << 12) |
	                       ((unsigned long long)dev << 4) | fn;
	snprintf(out, on, "%llx", v);
}

static int same_host(const char *a, const char *b)
{
	if (!a || !b)
		return 1; /* unknown: do not rule out */
	size_t la = strcspn(a, "."), lb = strcspn(b, ".");
	return la == lb && !strncasecmp(a, b, la);
}

static void rule_kernel(struct rule_ctx *rc)
{
	const cJSON *k = json_get(rc->facts, "kernel");
	if (!k || !rc->ranks)
		return;
	char b[300], b2[300];
	/* OOM killer victims vs ranks killed by SIGKILL */
	const cJSON *o;
	cJSON_ArrayForEach(o, json_get(k, "oom_kills")) {
		double pid;
		if (!json_num(o, "pid", &pid))
			continue;
		const char *oh = json_str(o, "host");
		for (size_t i = 0; i < rc->ranks->n; i++) {
			const struct rank_proc *p = &rc->ranks->v[i];
			if (p->pid <= 0 || p->pid != (long)pid)
				continue;
			const char *ph = p->launcher_host ? p->launcher_host : p->host;
			if (!same_host(oh, ph))
				continue;
			int killed = p->has_exit && p->exitcode == -9;
			struct caplist c = {0};
			caplist_add(&c, "pid", "%.0f", pid);
			caplist_add(&c, "process", "%s", json_str(o, "process") ? json_str(o, "process") : "?");
			if (p->rank >= 0)
				caplist_add(&c, "victim_rank", "%d", p->rank);
			if (oh)
				caplist_add(&c, "host", "%s", oh);
			double rss;
			char rs[64] = "";
			if (json_num(o, "anon_rss_kb", &rss))
				snprintf(rs, sizeof rs, ", %.1f GiB resident", rss / (1024.0 * 1024));
			const char *ew = p->exit_where.path ? p->exit_where.path : p->last.path;
			uint64_t el = p->exit_where.path ? p->exit_where.line : p->last.line;
			snprintf(b2, sizeof b2, "%s:%llu", ew ? ew : "?", (unsigned long long)el);
			emit(rc, "host.oom_killed_rank", json_get(o, "source"), p->rank, &c,
			     "the kernel's OOM killer killed pid %.0f (%s%s)%s%s [%s], and that pid is rank %d%s [%s] "
			     "(derived: the pids match%s): host memory, not the GPU, ran out",
			     pid, json_str(o, "process") ? json_str(o, "process") : "?", rs, oh ? " on " : "", oh ? oh : "",
			     where(json_get(o, "source"), b, sizeof b), p->rank, killed ? ", which the launcher reports killed by SIGKILL" : "",
			     b2, oh && ph ? " and so do the hosts" : !oh ? "; the kernel log names no host" : "");
		}
	}
	/* Xids on the GPU a rank used */
	const cJSON *x;
	int nx = 0;
	/* hosts among the ranks: a bus id repeats across hosts (the same for
	 * every Xid: counted once, when there is one) */
	int hosts = -1;
	cJSON_ArrayForEach(x, json_get(k, "xids")) {
		const char *bdf = json_str(x, "bus_id");
		double xid;
		if (!bdf || !json_num(x, "xid", &xid) || nx >= 16)
			continue;
		char bid[32];
		int bid_known = 0; /* nccl_busid(bdf) on the first rank with a bus id that gets that far */
		const char *xh = json_str(x, "host");
		double xpid = -1;
		json_num(x, "pid", &xpid);
		if (hosts < 0) {
			const char *h0 = NULL;
			hosts = 0;
			for (size_t j = 0; j < rc->ranks->n; j++)
				if (rc->ranks->v[j].host && (!h0 || strcmp(h0, rc->ranks->v[j].host))) {
					if (!h0)
						h0 = rc->ranks->v[j].host;
					hosts++;
				}
		}
		for (size_t i = 0; i < rc->ranks->n; i++) {
			const struct rank_proc *p = &rc->ranks->v[i];
			int pid = xpid > 0 && p->pid > 0 && (long)xpid == p->pid;
			/* the test below needs the pids to match, or an Xid without a
			 * pid and a rank with a bus id: the rest of the ranks go before
			 * the host and bus id comparisons (an Xid x every rank) */
			if (!pid && !(xpid <= 0 && p->bus_id))
				continue;
			if (!same_host(xh, p->host))
				continue;
			if (p->bus_id && !bid_known) {
				nccl_busid(bdf, bid, sizeof bid);
				bid_known = 1;
			}
			int bus = p->bus_id && !strcasecmp(p->bus_id, bid) && (xh || hosts <= 1);
			/* the GPU of the rank, and not another process's Xid on it */
			if (!(bus && (xpid <= 0 || pid)) && !pid)
				continue;
			const char *mean = json_str(x, "meaning");
			struct caplist c = {0};
			caplist_add(&c, "xid_code", "%.0f", xid);
			caplist_add(&c, "bus_id", "%s", bdf);
			if (mean)
				caplist_add(&c, "meaning", "%s", mean);
			if (p->rank >= 0)
				caplist_add(&c, "xid_rank", "%d", p->rank);
			char how[96];
			snprintf(how, sizeof how, "%s%s%s", bus ? "the bus ids" : "", bus && pid ? " and " : "",
			         pid ? "the pids" : "");
			emit(rc, "host.xid_on_rank_gpu", json_get(x, "source"), p->rank, &c,
			     "NVIDIA Xid %.0f%s%s%s on GPU %s [%s] belongs to rank %d (pid %ld, NCCL busId %s%s%s) (derived: %s "
			     "match)", xid, mean ? " (" : "", mean ? mean : "", mean ? ")" : "", bdf,
			     where(json_get(x, "source"), b, sizeof b), p->rank, p->pid, p->bus_id ? p->bus_id : "?",
			     p->host ? " on " : "", p->host ? p->host : "", how);
			nx++;
			break;
		}
	}
}

/* ---------- libnccl listings ---------- */

static void rule_libs(struct rule_ctx *rc)
{
	const cJSON *l;
	char vers[8][32];
	int nv = 0, shown = 0;
	struct buf w;
	buf_init(&w);
	const cJSON *first = NULL, *resolved = NULL;
	char b[300];
	cJSON_ArrayForEach(l, json_get(rc->facts, "libnccl")) {
		const char *v = json_str(l, "version");
		if (cJSON_IsTrue(json_get(l, "resolved")) && !resolved)
			resolved = l;
		if (!v)
			continue;
		value_index(&vers[0][0], sizeof vers[0], 8, &nv, v);
		if (!first)
			first = json_get(l, "source");
		if (shown < 8)
			buf_printf(&w, "%s%s (%s) [%s]", shown ? "; " : "", json_str(l, "path"), v, where(json_get(l, "source"), b, sizeof b));
		shown++;
	}
	if (nv >= 2) {
		struct caplist c = {0};
		caplist_add(&c, "libs", "%s", w.data);
		char r[400] = "";
		if (resolved)
			snprintf(r, sizeof r, "; ldd resolves libnccl.so.2 to %s [%s]", json_str(resolved, "path"),
			         where(json_get(resolved, "source"), b, sizeof b));
		caplist_add(&c, "host_fix", "make the job load the NCCL you mean: check LD_LIBRARY_PATH / LD_PRELOAD and the "
		    "NCCL_DEBUG=INFO banner of every rank, and remove or rename the other libnccl.so.2");
		emit(rc, "host.libnccl_several", first, -1, &c,
		     "libnccl.so files of %d NCCL versions are installed: %s%s; which one a process loads depends on "
		     "LD_LIBRARY_PATH and the loader's search order", nv, w.data, r);
	}
	buf_free(&w);
}

static void run(struct rule_ctx *rc)
{
	if (!rc->facts)
		return;
	rule_nccl_tests(rc);
	rule_nodes(rc);
	rule_ifname(rc);
	rule_limits(rc);
	rule_pci(rc);
	rule_ib(rc);
	rule_kernel(rc);
	rule_libs(rc);
}

const struct rule_provider RULES_HOST = {
	"host reports",
	HOST_RULES,
	sizeof HOST_RULES / sizeof HOST_RULES[0],
	run,
};
