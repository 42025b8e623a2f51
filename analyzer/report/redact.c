/* redact.c - see redact.h.  A token scanner (no regex): at each token start
 * it tries, in order, a GPU/MIG UUID, a PCI bus id, a MAC address, an IPv6
 * address, an IPv4 address, a bus id in NCCL's short form after "busId" or
 * "CUDA device", and finally a word run [A-Za-z0-9._-]+ whose parts are
 * looked up among the learned host and user names (and FQDNs).  Every
 * original gets one pseudonym per kind, numbered in order of discovery. */
#include "report/redact.h"

#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/util.h"

enum kind { K_HOST, K_USER, K_IP4, K_IP6, K_MAC, K_UUID, K_BUS, K_SERIAL, K_HOSTS, K_N };
static const char *const PREFIX[K_N] = {"host-", "user-", "ip-", "ip6-", "mac-", "gpu-uuid-", "busid-", "serial-", "hosts-"};

/* Names are one name whatever their case (GPU-NODE-17 and gpu-node-17):
 * host, user and host-list keys are compared and hashed case-insensitively. */
static int fold_kind(enum kind k)
{
	return k == K_HOST || k == K_USER || k == K_HOSTS || k == K_MAC || k == K_UUID;
}

struct entry {
	enum kind kind;
	char *orig;     /* key as stored (bus ids: normalised hex) */
	char *pseudo;
	uint64_t hash;
};

struct redactor {
	pthread_mutex_t mu;
	struct entry *v;
	size_t n, cap;
	struct hindex ix; /* into v */
	unsigned next[K_N];
};

/* ---- table ---- */

static uint64_t hash_key(enum kind k, const char *s, size_t n)
{
	uint64_t h = HASH_SEED ^ (uint64_t)k;
	if (!fold_kind(k))
		return hash_bytes(h, s, n);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		h = hash_bytes(h, &c, 1);
	}
	return h;
}

static struct entry *lookup(const struct redactor *r, enum kind k, const char *s, size_t n)
{
	if (!r->ix.nslot)
		return NULL;
	uint64_t h = hash_key(k, s, n);
	for (size_t i = hindex_first(&r->ix, h); r->ix.slot[i]; i = hindex_next(&r->ix, i)) {
		struct entry *e = &r->v[r->ix.slot[i] - 1];
		if (e->hash == h && e->kind == k && strlen(e->orig) == n &&
		    (fold_kind(k) ? strncasecmp(e->orig, s, n) : memcmp(e->orig, s, n)) == 0)
			return e;
	}
	return NULL;
}

static int entry_hash(const void *ctx, size_t i, uint64_t *h)
{
	const struct redactor *r = ctx;
	*h = r->v[i].hash;
	return 1;
}

static void rehash(struct redactor *r)
{
	hindex_grow(&r->ix, r->n, entry_hash, r);
}
static const char *intern(struct redactor *r, enum kind k, const char *s, size_t n)
{
	struct entry *e = lookup(r, k, s, n);
	if (e)
		return e->pseudo;
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 32;
		r->v = xrealloc(r->v, r->cap * sizeof *r->v);
	}
	e = &r->v[r->n++];
	e->kind = k;
	e->orig = xstrndup(s, n);
	e->pseudo = xasprintf("%s%u", PREFIX[k], ++r->next[k]);
	e->hash = hash_key(k, s, n);
	if (hindex_crowded(&r->ix, r->n))
		rehash(r);
	else
		hindex_put(&r->ix, e->hash, r->n - 1);
	return e->pseudo;
}

struct redactor *redactor_new(void)
{
	struct redactor *r = xcalloc(1, sizeof *r);
	pthread_mutex_init(&r->mu, NULL);
	return r;
}

void redactor_free(struct redactor *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].orig);
		free(r->v[i].pseudo);
	}
	free(r->v);
	hindex_free(&r->ix);
	pthread_mutex_destroy(&r->mu);
	free(r);
}

/* ---- classification helpers ---- */

static int is_run(int c)
{
	return isalnum(c) || c == '.' || c == '-' || c == '_';
}

static int is_hex(int c)
{
	return isxdigit(c);
}

static size_t hex_run(const char *s)
{
	size_t n = 0;
	while (is_hex((unsigned char)s[n]))
		n++;
	return n;
}

static int all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return n > 0;
}

/* Names never treated as identifying. */
static int stop_name(const char *s, size_t n)
{
	static const char *stop[] = {"localhost", "localhost.localdomain", "ip6-localhost", "root", "nobody", "user",
	                             "users", "home", "shared", "share", "local", "lib", "bin", "opt", "tmp", "none",
	                             "null", "unknown", "N/A", "default", "master", "node", "host", "rank", "runner"};
	if (n < 2 || all_digits(s, n))
		return 1;
	for (size_t i = 0; i < sizeof stop / sizeof *stop; i++)
		if (strlen(stop[i]) == n && strncasecmp(stop[i], s, n) == 0)
			return 1;
	/* our own pseudonyms */
	for (int k = 0; k < K_N; k++) {
		size_t pl = strlen(PREFIX[k]);
		if (n > pl && strncmp(s, PREFIX[k], pl) == 0 && all_digits(s + pl, n - pl))
			return 1;
	}
	if (n >= 4 && strncmp(s, "rank", 4) == 0 && all_digits(s + 4, n - 4))
		return 1;
	return 0;
}

/* IPv4 at s: length, 0 when none.  Sets *keep for loopback/unspecified. */
static size_t match_ip4(const char *s, int *keep)
{
	size_t i = 0;
	int oct[4];
	for (int k = 0; k < 4; k++) {
		if (!isdigit((unsigned char)s[i]))
			return 0;
		int v = 0, d = 0;
		while (isdigit((unsigned char)s[i]) && d < 4) {
			v = v * 10 + (s[i] - '0');
			i++;
			d++;
		}
		if (d > 3 || v > 255)
			return 0;
		oct[k] = v;
		if (k < 3) {
			if (s[i] != '.')
				return 0;
			i++;
		}
	}
	/* not part of a longer dotted number or word */
	if (isalnum((unsigned char)s[i]) || s[i] == '_' || (s[i] == '.' && isdigit((unsigned char)s[i + 1])))
		return 0;
	*keep = oct[0] == 127 || (oct[0] == 0 && oct[1] == 0 && oct[2] == 0 && oct[3] == 0) ||
	        (oct[0] == 255 && oct[1] == 255 && oct[2] == 255 && oct[3] == 255);
	return i;
}

/* IPv6 (with an optional embedded IPv4 tail and %zone).  Needs "::" or
 * seven colons, at least two non-empty groups, and no letters glued on
 * either side (so "c10d::ProcessGroupNCCL" is not an address). */
static size_t match_ip6(const char *s, int *keep)
{
	size_t i = 0;
	int groups = 0, colons = 0, dbl = 0, nonzero = 0;
	while (1) {
		size_t h = hex_run(s + i);
		if (h > 4)
			return 0;
		if (h) {
			/* an IPv4 tail */
			if (s[i + h] == '.' && colons >= 2) {
				int k;
				size_t l = match_ip4(s + i, &k);
				if (!l)
					return 0;
				i += l;
				groups += 2;
				nonzero = 1;
				break;
			}
			for (size_t j = 0; j < h; j++)
				if (s[i + j] != '0')
					nonzero = 1;
			groups++;
			i += h;
		}
		if (s[i] == ':') {
			if (s[i + 1] == ':') {
				if (dbl)
					return 0;
				dbl = 1;
				colons += 2;
				i += 2;
				continue;
			}
			if (!h)
				return 0;
			colons++;
			i++;
			continue;
		}
		break;
	}
	if (groups > 8 || (!dbl && colons != 7) || colons < 2)
		return 0;
	if (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '.')
		return 0;
	if (groups < 2 && !(dbl && groups <= 1 && i <= 3)) /* "::", "::1" */
		return 0;
	size_t len = i;
	if (s[len] == '%') { /* zone */
		size_t z = 1;
		while (isalnum((unsigned char)s[len + z]) || s[len + z] == '_' || s[len + z] == '.' || s[len + z] == '-')
			z++;
		if (z > 1)
			len += z;
	}
	*keep = !nonzero || (dbl && groups == 1 && i <= 3 && s[i - 1] == '1' && s[0] == ':');
	if (dbl && groups < 2)
		*keep = 1;
	return len;
}

static size_t match_mac(const char *s)
{
	for (int k = 0; k < 6; k++) {
		const char *p = s + k * 3;
		if (!is_hex((unsigned char)p[0]) || !is_hex((unsigned char)p[1]))
			return 0;
		if (k < 5 && p[2] != ':')
			return 0;
	}
	char c = s[17];
	if (isalnum((unsigned char)c) || c == ':' || c == '_')
		return 0;
	return 17;
}

/* GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, MIG-..., or a bare UUID after
 * "UUID" (callers decide). */
static size_t match_uuid_body(const char *s)
{
	static const int seg[] = {8, 4, 4, 4, 12};
	size_t i = 0;
	for (int k = 0; k < 5; k++) {
		for (int j = 0; j < seg[k]; j++)
			if (!is_hex((unsigned char)s[i++]))
				return 0;
		if (k < 4 && s[i++] != '-')
			return 0;
	}
	return i;
}

static size_t match_gpu_uuid(const char *s)
{
	if (strncmp(s, "GPU-", 4) && strncmp(s, "MIG-", 4))
		return 0;
	size_t n = match_uuid_body(s + 4);
	if (!n) {
		/* MIG-GPU-<uuid>/gi/ci */
		if (!strncmp(s, "MIG-GPU-", 8) && (n = match_uuid_body(s + 8)))
			n += 4;
		else
			return 0;
	}
	n += 4;
	while (s[n] == '/' && isdigit((unsigned char)s[n + 1])) {
		n++;
		while (isdigit((unsigned char)s[n]))
			n++;
	}
	if (isalnum((unsigned char)s[n]))
		return 0;
	return n;
}

/* PCI address DDDD[DDDD]:BB:dd.f -> NCCL's int64 form as hex ("60"). */
static size_t match_pci(const char *s, char *key, size_t keysz)
{
	size_t d = hex_run(s);
	if ((d != 4 && d != 8) || s[d] != ':')
		return 0;
	const char *p = s + d + 1;
	if (hex_run(p) != 2 || p[2] != ':' || hex_run(p + 3) != 2 || p[5] != '.' || !is_hex((unsigned char)p[6]))
		return 0;
	if (isalnum((unsigned char)p[7]))
		return 0;
	char digits[24];
	size_t k = 0;
	for (const char *q = s; q < p + 7; q++)
		if (is_hex((unsigned char)*q))
			digits[k++] = *q;
	digits[k] = 0;
	unsigned long long v = strtoull(digits, NULL, 16);
	snprintf(key, keysz, "%llx", v);
	return (size_t)(p + 7 - s);
}

/* A bus id in short form ("60", "0x60", "1b000") as the table key. */
static void bus_key(const char *s, size_t n, char *key, size_t keysz)
{
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		n -= 2;
	}
	char tmp[32];
	if (n >= sizeof tmp)
		n = sizeof tmp - 1;
	memcpy(tmp, s, n);
	tmp[n] = 0;
	snprintf(key, keysz, "%llx", strtoull(tmp, NULL, 16));
}

static const char *TLDS[] = {"com", "net", "org", "io", "local", "internal", "lan", "corp", "cluster", "intra",
                             "edu", "gov", "cloud", "ai", "dev", "de", "uk", "cn", "jp", "fr", "localdomain", "svc",
                             "home", "priv", "private", "site", "tech", "co", "us", "eu", "ca", "in", "kr"};

static int is_tld(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof TLDS / sizeof *TLDS; i++)
		if (strlen(TLDS[i]) == n && strncasecmp(TLDS[i], s, n) == 0)
			return 1;
	return 0;
}

/* Public project domains that identify no customer. */
static int public_domain(const char *s, size_t n)
{
	static const char *pub[] = {"nvidia.com", "pytorch.org", "github.com", "python.org", "huggingface.co",
	                            "githubusercontent.com", "docs.nvidia.com", "download.pytorch.org", "pypi.org"};
	for (size_t i = 0; i < sizeof pub / sizeof *pub; i++) {
		size_t l = strlen(pub[i]);
		if (n >= l && strncasecmp(s + n - l, pub[i], l) == 0 && (n == l || s[n - l - 1] == '.'))
			return 1;
	}
	return 0;
}

/* s[0..n) as a fully qualified host name: labels of [A-Za-z0-9-], the first
 * starting with a letter, a known top-level domain, three labels or more
 * (two for the private ones like .local / .internal / .cluster). */
static int looks_fqdn(const char *s, size_t n)
{
	if (n < 4 || !isalpha((unsigned char)s[0]) || public_domain(s, n))
		return 0;
	int labels = 1;
	size_t last = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '.') {
			if (i == last || i + 1 == n)
				return 0;
			labels++;
			last = i + 1;
		} else if (!isalnum((unsigned char)s[i]) && s[i] != '-') {
			return 0;
		}
	}
	const char *tld = s + last;
	size_t tl = n - last;
	if (!is_tld(tld, tl))
		return 0;
	int private_tld = tl >= 5 && (!strncasecmp(tld, "local", tl) || !strncasecmp(tld, "internal", tl) ||
	                              !strncasecmp(tld, "cluster", tl) || !strncasecmp(tld, "localdomain", tl));
	return labels >= 3 || (labels == 2 && private_tld);
}

/* ---- learning ---- */

static void learn_host(struct redactor *r, const char *s, size_t n)
{
	while (n && (s[n - 1] == '.' || s[n - 1] == '-'))
		n--;
	if (stop_name(s, n))
		return;
	int keep;
	if (match_ip4(s, &keep) == n || match_ip6(s, &keep) == n)
		return; /* addresses are found by their pattern */
	for (size_t i = 0; i < n; i++)
		if (!is_run((unsigned char)s[i]))
			return;
	const char *p = intern(r, K_HOST, s, n);
	/* an FQDN's first label is the same host */
	const char *dot = memchr(s, '.', n);
	if (dot && dot > s && !stop_name(s, (size_t)(dot - s)) && !lookup(r, K_HOST, s, (size_t)(dot - s))) {
		if (r->n == r->cap) {
			r->cap *= 2;
			r->v = xrealloc(r->v, r->cap * sizeof *r->v);
		}
		struct entry *e = &r->v[r->n++];
		e->kind = K_HOST;
		e->orig = xstrndup(s, (size_t)(dot - s));
		e->pseudo = xstrdup(p);
		e->hash = hash_key(K_HOST, e->orig, strlen(e->orig));
		rehash(r);
	}
}

static void learn_user(struct redactor *r, const char *s, size_t n)
{
	if (stop_name(s, n))
		return;
	for (size_t i = 0; i < n; i++)
		if (!is_run((unsigned char)s[i]))
			return;
	intern(r, K_USER, s, n);
}

static size_t run_back(const char *start, const char *end)
{
	const char *p = end;
	while (p > start && is_run((unsigned char)p[-1]))
		p--;
	return (size_t)(end - p);
}

/* A SLURM host list item at s: "prefix[52-53,60]" (zero padding kept:
 * node[001-003]).  Returns its length (0: not one) and, when learn, learns
 * every host it names (at most 4096) and the item itself as a host list. */
static size_t nodelist_item(struct redactor *r, const char *s, int learn)
{
	size_t p = 0;
	while (is_run((unsigned char)s[p]) && s[p] != '.')
		p++;
	if (p == 0 || s[p] != '[' || !isalpha((unsigned char)s[0]))
		return 0;
	size_t i = p + 1;
	while (isdigit((unsigned char)s[i]) || s[i] == '-' || s[i] == ',')
		i++;
	if (s[i] != ']' || i == p + 1 || !isdigit((unsigned char)s[p + 1]))
		return 0;
	size_t len = i + 1;
	if (!learn)
		return len;
	unsigned budget = 4096;
	const char *q = s + p + 1;
	while (q < s + i && budget) {
		const char *a = q;
		while (isdigit((unsigned char)*q))
			q++;
		size_t width = (size_t)(q - a);
		if (!width || width > 9)
			return len;
		unsigned long lo = strtoul(a, NULL, 10), hi = lo;
		if (*q == '-') {
			const char *b = ++q;
			while (isdigit((unsigned char)*q))
				q++;
			if (q == b || q - b > 9)
				return len;
			hi = strtoul(b, NULL, 10);
		}
		for (unsigned long v = lo; v <= hi && budget; v++, budget--) {
			char name[160];
			int l = snprintf(name, sizeof name, "%.*s%0*lu", (int)(p < 100 ? p : 100), s, (int)width, v);
			if (l > 0 && (size_t)l < sizeof name)
				learn_host(r, name, (size_t)l);
		}
		if (*q == ',')
			q++;
		else if (q < s + i)
			return len;
	}
	intern(r, K_HOSTS, s, len);
	return len;
}

/* A host list value ("trainhost[52-53],login1"): every host it names. */
static void learn_nodelist(struct redactor *r, const char *v)
{
	const char *p = v;
	while (*p) {
		while (*p == ',' || *p == ' ' || *p == '"' || *p == '\'')
			p++;
		size_t l = nodelist_item(r, p, 1);
		if (!l) {
			const char *e = p;
			while (is_run((unsigned char)*e))
				e++;
			if (e > p)
				learn_host(r, p, (size_t)(e - p));
			l = (size_t)(e - p);
			if (!l)
				l = 1; /* a byte that is no part of a name */
		}
		p += l;
		while (*p && *p != ',' && !isspace((unsigned char)*p))
			p++;
		if (isspace((unsigned char)*p))
			break;
	}
}

static int nodelist_key(const char *k, size_t n)
{
	static const char *const keys[] = {"NODELIST", "NODE_LIST", "HOSTLIST", "HOST_LIST", "NODENAMES"};
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		size_t l = strlen(keys[i]);
		if (n >= l && strncasecmp(k + n - l, keys[i], l) == 0)
			return 1;
	}
	return 0;
}

/* Cloud host names that spell an address (ip-10-1-2-3, ip-10-1-2-3.ec2.internal): hosts, learned
 * on sight. */
static size_t ip_host_name(const char *s)
{
	if (strncasecmp(s, "ip-", 3) != 0)
		return 0;
	size_t i = 3;
	for (int k = 0; k < 4; k++) {
		size_t d = 0;
		while (isdigit((unsigned char)s[i + d]) && d < 4)
			d++;
		if (d == 0 || d > 3)
			return 0;
		i += d;
		if (k < 3) {
			if (s[i] != '-')
				return 0;
			i++;
		}
	}
	return isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '-' ? 0 : i;
}

/* Names in free text: NCCL prefixes "host:pid:tid [", "[host]:port",
 * "(host, port)", torchrun's "host : name", paths /home/USER/. */
static void learn_text(struct redactor *r, const char *s)
{
	if (!s)
		return;
	for (const char *p = s; *p; p++) {
		if ((*p == '=' || *p == ':') && p > s) {
			/* SLURM_NODELIST=trainhost[52-53] */
			size_t kl = 0;
			while (p - kl > s && (isalnum((unsigned char)p[-(long)kl - 1]) || p[-(long)kl - 1] == '_'))
				kl++;
			if (kl && nodelist_key(p - kl, kl)) {
				const char *v = p + 1;
				while (*v == ' ' || *v == '"' || *v == '\'')
					v++;
				learn_nodelist(r, v);
			}
		}
		if ((p == s || !is_run((unsigned char)p[-1])) && (*p == 'i' || *p == 'I')) {
			size_t l = ip_host_name(p);
			if (l)
				learn_host(r, p, l);
		}
		if (*p == ':' && isdigit((unsigned char)p[1])) {
			/* host:pid:tid [ */
			const char *q = p + 1;
			while (isdigit((unsigned char)*q))
				q++;
			if (*q == ':' && isdigit((unsigned char)q[1])) {
				q++;
				while (isdigit((unsigned char)*q))
					q++;
				if (q[0] == ' ' && q[1] == '[') {
					size_t n = run_back(s, p);
					const char *h = p - n;
					if (n && (h == s || h[-1] == ' ' || h[-1] == ']' || h[-1] == '['))
						learn_host(r, h, n);
				}
			}
			/* [host]:port */
			if (p > s + 1 && p[-1] == ']') {
				const char *e = p - 1;
				size_t n = run_back(s, e);
				if (n && e - n > s && e[-(long)n - 1] == '[' && strncmp(e - n, "rank", 4) != 0)
					learn_host(r, e - n, n);
			}
		}
		if (*p == '(' && isalpha((unsigned char)p[1])) {
			const char *q = p + 1;
			while (is_run((unsigned char)*q))
				q++;
			if (q[0] == ',' && q[1] == ' ' && isdigit((unsigned char)q[2])) {
				const char *z = q + 2;
				while (isdigit((unsigned char)*z))
					z++;
				if (*z == ')')
					learn_host(r, p + 1, (size_t)(q - p - 1));
			}
		}
		if (*p == '/') {
			static const char *homes[] = {"/home/", "/Users/", "/usr/home/", "/export/home/", "/mnt/home/", "/u/"};
			for (size_t i = 0; i < sizeof homes / sizeof *homes; i++) {
				size_t hl = strlen(homes[i]);
				if (strncmp(p, homes[i], hl) == 0 && (p == s || !isalnum((unsigned char)p[-1]))) {
					const char *u = p + hl, *e = u;
					while (is_run((unsigned char)*e))
						e++;
					if (e > u && (*e == '/' || *e == 0 || isspace((unsigned char)*e) || *e == ':' || *e == '\'' || *e == '"'))
						learn_user(r, u, (size_t)(e - u));
					break;
				}
			}
		}
		if (*p == '~' && isalpha((unsigned char)p[1]) && (p == s || isspace((unsigned char)p[-1]))) {
			const char *e = p + 1;
			while (is_run((unsigned char)*e))
				e++;
			if (*e == '/')
				learn_user(r, p + 1, (size_t)(e - p - 1));
		}
	}
	/* torchrun's failure summary: "  host      : node7" */
	const char *t = s;
	while (*t == ' ' || *t == '\t')
		t++;
	if (!strncmp(t, "host", 4) || !strncmp(t, "hostname", 8)) {
		t += strncmp(t, "hostname", 8) ? 4 : 8;
		while (*t == ' ')
			t++;
		if (*t == ':') {
			t++;
			while (*t == ' ')
				t++;
			const char *e = t;
			while (is_run((unsigned char)*e))
				e++;
			if (e > t && (*e == 0 || isspace((unsigned char)*e)))
				learn_host(r, t, (size_t)(e - t));
		}
	}
}

static int key_is(const char *k, const char *const *names)
{
	if (!k)
		return 0;
	for (size_t i = 0; names[i]; i++)
		if (!strcasecmp(k, names[i]))
			return 1;
	return 0;
}

static const char *const HOST_KEYS[] = {"host", "hostname", "host_name", "node", "nodename", "node_name", "HOSTNAME",
                                        "HOST", "SLURMD_NODENAME", "NODE_NAME", "K8S_NODE_NAME", "MASTER_ADDR",
                                        "MY_NODE_NAME", NULL};
static const char *const USER_KEYS[] = {"user", "username", "USER", "LOGNAME", "SUDO_USER", "USERNAME", NULL};

/* Facts: names under host-ish keys, env values of HOSTNAME/USER..., text. */
static void learn_json(struct redactor *r, const cJSON *it, const char *key)
{
	if (!it)
		return;
	if (cJSON_IsString(it)) {
		if (key && nodelist_key(key, strlen(key)))
			learn_nodelist(r, it->valuestring);
		else if (key_is(key, HOST_KEYS))
			learn_host(r, it->valuestring, strlen(it->valuestring));
		else if (key_is(key, USER_KEYS))
			learn_user(r, it->valuestring, strlen(it->valuestring));
		else
			learn_text(r, it->valuestring);
		return;
	}
	const cJSON *c;
	cJSON_ArrayForEach(c, it) {
		/* env facts: {"HOSTNAME": {"value": "node7", ...}} */
		const char *k = c->string ? c->string : key;
		if (cJSON_IsObject(c) && c->string &&
		    (key_is(c->string, HOST_KEYS) || key_is(c->string, USER_KEYS) || nodelist_key(c->string, strlen(c->string)))) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, "value");
			if (cJSON_IsString(v)) {
				learn_json(r, v, c->string);
				continue;
			}
		}
		learn_json(r, c, k);
	}
}

/* ---- rewriting ---- */

static void replace_tokens(char **p, const struct strvec *from, const struct strvec *to);

enum { F_NO_IP4 = 1, F_FORM = 2 };

/* F_FORM (redact_line: files that parsers read again): a pseudonym in the
 * form of what it replaces, so that a redacted nvidia-smi or ip listing is
 * still one: addresses of the documentation ranges (192.0.2.N,
 * 198.51.100.N, 203.0.113.N; 2001:db8::N), a locally administered MAC
 * 02:00:00:00:NN:NN, a bus id DDDD:NN:00.0 of the original's domain width,
 * a UUID GPU-00000000-0000-0000-0000-00000000000N.  N is the pseudonym's
 * number, so the two forms name the same thing. */
static void put_pseudo(struct buf *out, enum kind k, const char *pseudo, const char *orig, size_t n, int flags)
{
	unsigned long v = strtoul(pseudo + strlen(PREFIX[k]), NULL, 10);
	if (!(flags & F_FORM) || v == 0) {
		buf_adds(out, pseudo);
		return;
	}
	if (k == K_IP4 && v <= 3 * 254) {
		static const char *const nets[] = {"192.0.2.", "198.51.100.", "203.0.113."};
		buf_printf(out, "%s%lu", nets[(v - 1) / 254], (v - 1) % 254 + 1);
	} else if (k == K_IP6) {
		buf_printf(out, "2001:db8::%lx", v);
	} else if (k == K_MAC && v <= 0xffff) {
		buf_printf(out, "02:00:00:00:%02lx:%02lx", v >> 8, v & 0xff);
	} else if (k == K_BUS && v <= 0xff) {
		const char *colon = memchr(orig, ':', n);
		int dom = colon ? (int)(colon - orig) : 4;
		buf_printf(out, "%0*d:%02lx:00.0", dom > 0 && dom <= 8 ? dom : 4, 0, v);
	} else if (k == K_UUID) {
		if (n > 4 && orig[3] == '-')
			buf_add(out, orig, 4); /* GPU- / MIG- */
		buf_printf(out, "00000000-0000-0000-0000-%012lx", v);
	} else {
		buf_adds(out, pseudo);
	}
}

/* A word run: replace the longest learned names among its parts (split
 * at '.', '-', '_'), extending a host match over a trailing domain. */
static void rewrite_run(struct redactor *r, const char *s, size_t n, struct buf *out, int flags)
{
	if (n == 0)
		return;
	/* an IPv4 address glued to a word by '-' or '_' (eth0-10.1.2.3, ib_10.1.2.3) */
	for (size_t i = 1; i < n && !(flags & F_NO_IP4); i++) {
		if ((s[i - 1] != '-' && s[i - 1] != '_') || !isdigit((unsigned char)s[i]))
			continue;
		int keep;
		size_t l = match_ip4(s + i, &keep);
		if (!l || i + l > n)
			continue;
		rewrite_run(r, s, i, out, flags);
		if (keep)
			buf_add(out, s + i, l);
		else
			put_pseudo(out, K_IP4, intern(r, K_IP4, s + i, l), s + i, l, flags);
		rewrite_run(r, s + i + l, n - i - l, out, flags);
		return;
	}
	/* cloud host names that spell an address: hosts whether learned or not */
	for (size_t i = 0; i + 10 <= n; i++) {
		if ((i == 0 || s[i - 1] == '.' || s[i - 1] == '-' || s[i - 1] == '_') && (s[i] == 'i' || s[i] == 'I')) {
			size_t l = ip_host_name(s + i);
			if (l && i + l <= n)
				learn_host(r, s + i, l);
		}
	}
	if (looks_fqdn(s, n) || (n > 1 && s[n - 1] == '.' && looks_fqdn(s, n - 1)))
		learn_host(r, s, s[n - 1] == '.' ? n - 1 : n);
	size_t cuts[34];
	size_t nc = 0;
	cuts[nc++] = 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '.' || s[i] == '-' || s[i] == '_') {
			if (nc == 32) {
				/* a run of more parts: the rest on its own (a name across
				 * this cut is not seen whole) */
				rewrite_run(r, s, i, out, flags);
				rewrite_run(r, s + i, n - i, out, flags);
				return;
			}
			cuts[nc++] = i + 1;
		}
	cuts[nc] = n + 1; /* sentinel: end boundary is n */
	size_t done = 0;
	for (size_t a = 0; a < nc; a++) {
		size_t st = cuts[a];
		if (st < done)
			continue;
		const struct entry *hit = NULL;
		size_t en = 0;
		for (size_t z = nc; z > a && !hit; z--) {
			size_t e = z == nc ? n : cuts[z] - 1;
			if (e <= st)
				continue;
			hit = lookup(r, K_HOST, s + st, e - st);
			if (!hit)
				hit = lookup(r, K_USER, s + st, e - st);
			if (hit)
				en = e;
		}
		if (!hit)
			continue;
		/* host.domain.tld: the domain goes too */
		if (hit->kind == K_HOST && en < n && s[en] == '.' && looks_fqdn(s + st, n - st))
			en = n;
		buf_add(out, s + done, st - done);
		buf_adds(out, hit->pseudo);
		done = en;
	}
	buf_add(out, s + done, n - done);
}

/* Ends the text before position i with one of the markers that introduce
 * a short bus id? */
static int after_bus_marker(const char *s, size_t i)
{
	static const char *marks[] = {"busId ", "busid ", "busId=", "busid=", "CUDA device ", "bus id ", "Bus Id ",
	                              "busId: ", "pciBusId ", "bus ", "Bus "};
	for (size_t k = 0; k < sizeof marks / sizeof *marks; k++) {
		size_t l = strlen(marks[k]);
		if (i >= l && strncmp(s + i - l, marks[k], l) == 0)
			return 1;
	}
	return 0;
}

/* A package version of a pip requirement at s[i] ("nvidia-cublas-cu12==12.4.5.8",
 * at the start of a line or after a blank or a quote): four numbers that
 * are not an address.  The name is a distribution's as pip prints it, in
 * lower case (the NVIDIA wheels with four-number versions are), and not a
 * word that names an address: MASTER_ADDR==10.1.2.3, master==10.1.2.3 are
 * addresses wherever they stand. */
static int pip_version_at(const char *s, size_t i)
{
	static const char *const ADDR_WORDS[] = {"addr", "address", "host", "hostname", "ip", "master", "server",
	                                         "endpoint", "node", "peer"};
	if (i < 3 || s[i - 1] != '=' || s[i - 2] != '=')
		return 0;
	size_t j = i - 2;
	int letter = 0, upper = 0;
	while (j > 0 && is_run((unsigned char)s[j - 1])) {
		letter |= isalpha((unsigned char)s[j - 1]);
		upper |= isupper((unsigned char)s[j - 1]);
		j--;
	}
	if (!letter || upper || j == i - 2 ||
	    !(j == 0 || s[j - 1] == ' ' || s[j - 1] == '\t' || s[j - 1] == '\n' || s[j - 1] == '"' || s[j - 1] == '\''))
		return 0;
	size_t n = i - 2 - j;
	for (size_t k = 0; k < sizeof ADDR_WORDS / sizeof *ADDR_WORDS; k++) {
		size_t l = strlen(ADDR_WORDS[k]);
		if (n >= l && strncmp(s + i - 2 - l, ADDR_WORDS[k], l) == 0 &&
		    (n == l || !isalnum((unsigned char)s[i - 3 - l])))
			return 0;
	}
	return 1;
}

/* An address or id of KIND found at P (N bytes): as it is where KEEP,
 * else its pseudonym.  Returns N. */
static size_t put_found(struct redactor *r, struct buf *out, enum kind kind, const char *p, size_t n, int keep, int flags)
{
	if (keep)
		buf_add(out, p, n);
	else
		put_pseudo(out, kind, intern(r, kind, p, n), p, n, flags);
	return n;
}

/* A bus number after a bus marker at P (hex digits after SKIP bytes of
 * "0x"): its pseudonym, and its length; 0 (nothing written) when the hex
 * digits run on into a word.  F_FORM: NCCL's short form of busid-N's
 * 0000:NN:00.0, hex N000 (a NCCL log stays one: its bus ids still parse). */
static size_t put_bus_number(struct redactor *r, struct buf *out, const char *p, size_t skip, int flags)
{
	char key[40];
	size_t h = hex_run(p + skip);
	if (!h || is_run((unsigned char)p[skip + h]))
		return 0;
	bus_key(p, h + skip, key, sizeof key);
	const char *pseudo = intern(r, K_BUS, key, strlen(key));
	unsigned long v = strtoul(pseudo + strlen(PREFIX[K_BUS]), NULL, 10);
	if ((flags & F_FORM) && v && v <= 0xff)
		buf_printf(out, "%.*s%lx000", (int)skip, p, v);
	else
		buf_adds(out, pseudo);
	return h + skip;
}

static void rewrite(struct redactor *r, const char *s, struct buf *out, int flags)
{
	size_t i = 0;
	while (s[i]) {
		unsigned char c = (unsigned char)s[i];
		int start = i == 0 || !(is_run((unsigned char)s[i - 1]));
		if (start && (isalnum(c) || (c == ':' && s[i + 1] == ':' && (i == 0 || s[i - 1] != ':')))) {
			size_t n;
			int keep = 0;
			char key[40];
			if ((n = match_gpu_uuid(s + i))) {
				i += put_found(r, out, K_UUID, s + i, n, 0, flags);
				continue;
			}
			if ((n = match_pci(s + i, key, sizeof key))) {
				put_pseudo(out, K_BUS, intern(r, K_BUS, key, strlen(key)), s + i, n, flags);
				i += n;
				continue;
			}
			if ((n = match_mac(s + i))) {
				i += put_found(r, out, K_MAC, s + i, n, 0, flags);
				continue;
			}
			if ((is_hex(c) || c == ':') && (n = match_ip6(s + i, &keep))) {
				i += put_found(r, out, K_IP6, s + i, n, keep, flags);
				continue;
			}
			if (!(flags & F_NO_IP4) && isdigit(c) && !pip_version_at(s, i) && (n = match_ip4(s + i, &keep))) {
				i += put_found(r, out, K_IP4, s + i, n, keep, flags);
				continue;
			}
			if (is_hex(c) && after_bus_marker(s, i) && (n = put_bus_number(r, out, s + i, 0, flags))) {
				i += n;
				continue;
			}
			if (c == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X') && after_bus_marker(s, i) &&
			    (n = put_bus_number(r, out, s + i, 2, flags))) {
				i += n;
				continue;
			}
		}
		if (start && isalpha(c)) {
			/* a host list (trainhost[52-53]) whose hosts are known */
			size_t l = nodelist_item(r, s + i, 0);
			if (l) {
				const struct entry *e = lookup(r, K_HOSTS, s + i, l);
				if (!e) {
					/* prefix and first number: a learned host? */
					size_t p = 0, q;
					while (s[i + p] != '[')
						p++;
					q = p + 1;
					while (isdigit((unsigned char)s[i + q]))
						q++;
					char probe[160];
					if (p + (q - p - 1) < sizeof probe) {
						memcpy(probe, s + i, p);
						memcpy(probe + p, s + i + p + 1, q - p - 1);
						if (lookup(r, K_HOST, probe, p + (q - p - 1))) {
							nodelist_item(r, s + i, 1);
							e = lookup(r, K_HOSTS, s + i, l);
						}
					}
				}
				if (e) {
					buf_adds(out, e->pseudo);
					i += l;
					continue;
				}
			}
		}
		if (start && (isalnum(c) || c == '_' || c == '.' || c == '-')) {
			size_t j = i;
			while (is_run((unsigned char)s[j]))
				j++;
			rewrite_run(r, s + i, j - i, out, flags);
			i = j;
			continue;
		}
		buf_addc(out, (char)c);
		i++;
	}
}

static char *redact_locked(struct redactor *r, const char *s, int flags)
{
	struct buf out;
	buf_init(&out);
	rewrite(r, s, &out, flags);
	return buf_steal(&out);
}

char *redact_string(struct redactor *r, const char *s)
{
	if (!s)
		return NULL;
	pthread_mutex_lock(&r->mu);
	learn_text(r, s);
	char *x = redact_locked(r, s, 0);
	pthread_mutex_unlock(&r->mu);
	return x;
}

static void redo(struct redactor *r, char **p, int flags)
{
	if (!*p)
		return;
	char *x = redact_locked(r, *p, flags);
	free(*p);
	*p = x;
}

/* A field known to hold a bus id, in whatever form. */
static void redo_bus(struct redactor *r, char **p)
{
	if (!*p || !**p)
		return;
	char key[40];
	size_t n = strlen(*p);
	const char *s = *p;
	if (match_pci(s, key, sizeof key) == n ||
	    ((hex_run(s) == n || (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && hex_run(s + 2) == n - 2)) &&
	     (bus_key(s, n, key, sizeof key), 1))) {
		char *x = xstrdup(intern(r, K_BUS, key, strlen(key)));
		free(*p);
		*p = x;
		return;
	}
	redo(r, p, 0);
}

static int bus_field(const char *k)
{
	return k && (!strcasecmp(k, "busid") || !strcasecmp(k, "bus_id") || !strcasecmp(k, "pci_bus_id") ||
	             !strcasecmp(k, "bus") || !strcasecmp(k, "busId") || !strcasecmp(k, "pci.bus_id"));
}

static int serial_field(const char *k)
{
	return k && (strcasestr(k, "serial") != NULL);
}

static int uuid_field(const char *k)
{
	return k && strcasestr(k, "uuid") != NULL;
}

/* keys of objects too (a facts object keyed by host name, say) */
static void json_walk(struct redactor *r, cJSON *it, const char *key, int flags)
{
	cJSON *c;
	if (cJSON_IsString(it) && it->valuestring) {
		char *v = it->valuestring;
		char *x;
		if (bus_field(key)) {
			x = xstrdup(v);
			redo_bus(r, &x);
		} else if (serial_field(key) && *v && strcmp(v, "N/A")) {
			x = xstrdup(intern(r, K_SERIAL, v, strlen(v)));
		} else if (uuid_field(key) && match_uuid_body(v) == strlen(v) && strspn(v, "0-") != strlen(v)) {
			x = xstrdup(intern(r, K_UUID, v, strlen(v)));
		} else {
			x = redact_locked(r, v, flags);
		}
		if (strcmp(x, v) != 0 && !(it->type & cJSON_IsReference)) {
			free(it->valuestring);
			it->valuestring = x;
		} else {
			free(x);
		}
		return;
	}
	cJSON_ArrayForEach(c, it) {
		int fl = flags;
		if (c->string && (!strcmp(c->string, "versions") || !strcmp(c->string, "packages")))
			fl |= F_NO_IP4; /* "12.4.5.8" is a version there, not an address */
		/* env facts carry {"value": ...}: judge the value by the variable */
		const char *k = c->string ? c->string : key;
		if (c->string && !strcmp(c->string, "value") && key)
			k = key;
		json_walk(r, c, k, fl);
		if (c->string && !(c->type & cJSON_StringIsConst)) {
			char *nk = redact_locked(r, c->string, 0);
			if (strcmp(nk, c->string) != 0) {
				free(c->string);
				c->string = nk;
			} else {
				free(nk);
			}
		}
	}
}

/* Diagnosis objects of a report: their title, explanation and fixes were
 * filled from the evidence captures; replace the captured values there. */
static void json_diag_caps(struct redactor *r, cJSON *it)
{
	cJSON *c;
	cJSON *diags = cJSON_IsObject(it) ? cJSON_GetObjectItemCaseSensitive(it, "diagnoses") : NULL;
	cJSON *d;
	cJSON_ArrayForEach(d, diags) {
		struct strvec from = {0}, to = {0};
		cJSON *e;
		cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(d, "evidence")) {
			cJSON *cap;
			cJSON_ArrayForEach(cap, cJSON_GetObjectItemCaseSensitive(e, "captures")) {
				if (!cJSON_IsString(cap) || !*cap->valuestring || strvec_contains(&from, cap->valuestring))
					continue;
				char *v = xstrdup(cap->valuestring);
				if (bus_field(cap->string))
					redo_bus(r, &v);
				else
					redo(r, &v, 0);
				if (strcmp(v, cap->valuestring)) {
					strvec_push(&from, cap->valuestring);
					strvec_push(&to, v);
				}
				free(v);
			}
		}
		static const char *keys[] = {"title", "explanation"};
		for (size_t k = 0; k < 2; k++) {
			cJSON *t = cJSON_GetObjectItemCaseSensitive(d, keys[k]);
			if (cJSON_IsString(t) && !(t->type & cJSON_IsReference))
				replace_tokens(&t->valuestring, &from, &to);
		}
		cJSON *fx;
		cJSON_ArrayForEach(fx, cJSON_GetObjectItemCaseSensitive(d, "fix"))
			if (cJSON_IsString(fx) && !(fx->type & cJSON_IsReference))
				replace_tokens(&fx->valuestring, &from, &to);
		strvec_free(&from);
		strvec_free(&to);
	}
	cJSON_ArrayForEach(c, it)
		if (cJSON_IsObject(c) || cJSON_IsArray(c))
			json_diag_caps(r, c);
}

void redact_json(struct redactor *r, cJSON *item)
{
	if (!item)
		return;
	pthread_mutex_lock(&r->mu);
	learn_json(r, item, NULL);
	json_diag_caps(r, item);
	json_walk(r, item, NULL, 0);
	pthread_mutex_unlock(&r->mu);
}

void redact_learn_name(struct redactor *r, const char *s, int user)
{
	if (!s || !*s)
		return;
	pthread_mutex_lock(&r->mu);
	if (user)
		learn_user(r, s, strlen(s));
	else
		learn_host(r, s, strlen(s));
	pthread_mutex_unlock(&r->mu);
}

void redact_learn_line(struct redactor *r, const char *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&r->mu);
	learn_text(r, s);
	/* NAME=value of a host or user variable (env dumps) */
	const char *eq = strchr(s, '=');
	if (eq && eq > s && eq - s < 64) {
		char key[64];
		memcpy(key, s, (size_t)(eq - s));
		key[eq - s] = 0;
		const char *v = eq + 1;
		size_t n = strcspn(v, " \t\r\n\"'");
		if (key_is(key, HOST_KEYS))
			learn_host(r, v, n);
		else if (key_is(key, USER_KEYS))
			learn_user(r, v, n);
	}
	pthread_mutex_unlock(&r->mu);
}

char *redact_line(struct redactor *r, const char *s)
{
	if (!s)
		return NULL;
	pthread_mutex_lock(&r->mu);
	char *x = NULL;
	/* "    Serial Number                         : 1654922009876" */
	const char *colon = strstr(s, " : ");
	if (colon) {
		const char *k = s;
		while (*k == ' ' || *k == '\t')
			k++;
		char key[64];
		size_t kl = (size_t)(colon - k);
		while (kl && k[kl - 1] == ' ')
			kl--;
		const char *v = colon + 3;
		size_t vl = strcspn(v, "\r\n");
		while (vl && v[vl - 1] == ' ')
			vl--;
		if (kl && kl < sizeof key && vl) {
			memcpy(key, k, kl);
			key[kl] = 0;
			char *val = xstrndup(v, vl);
			const char *rep = NULL;
			if (serial_field(key) && strcmp(val, "N/A"))
				rep = intern(r, K_SERIAL, val, vl);
			if (rep)
				x = xasprintf("%.*s%s%s", (int)(v - s), s, rep, v + vl);
			free(val);
		}
	}
	if (!x)
		x = redact_locked(r, s, F_FORM);
	pthread_mutex_unlock(&r->mu);
	return x;
}

/* Another key s[0..n) for an existing pseudonym. */
static void add_alias(struct redactor *r, enum kind k, const char *s, size_t n, const char *pseudo)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 32;
		r->v = xrealloc(r->v, r->cap * sizeof *r->v);
	}
	struct entry *e = &r->v[r->n++];
	e->kind = k;
	e->orig = xstrndup(s, n);
	e->pseudo = xstrdup(pseudo);
	e->hash = hash_key(k, s, n);
	if (hindex_crowded(&r->ix, r->n))
		rehash(r);
	else
		hindex_put(&r->ix, e->hash, r->n - 1);
}

void redact_learn_host_as(struct redactor *r, const char *s, const char *pseudo)
{
	if (!s || !pseudo)
		return;
	size_t n = strlen(s), pn = strlen(pseudo);
	while (n && (s[n - 1] == '.' || s[n - 1] == '-'))
		n--;
	pthread_mutex_lock(&r->mu);
	int ok = !stop_name(s, n);
	for (size_t i = 0; ok && i < n; i++)
		ok = is_run((unsigned char)s[i]);
	if (ok && !lookup(r, K_HOST, s, n))
		add_alias(r, K_HOST, s, n, pseudo);
	/* an FQDN's first label is the same host */
	const char *dot = ok ? memchr(s, '.', n) : NULL;
	if (dot && dot > s && !stop_name(s, (size_t)(dot - s)) && !lookup(r, K_HOST, s, (size_t)(dot - s)))
		add_alias(r, K_HOST, s, (size_t)(dot - s), pseudo);
	/* the pseudonym, learned from a report later, is itself */
	if (ok && !lookup(r, K_HOST, pseudo, pn))
		add_alias(r, K_HOST, pseudo, pn, pseudo);
	pthread_mutex_unlock(&r->mu);
}

void redact_alias_forms(struct redactor *r)
{
	pthread_mutex_lock(&r->mu);
	size_t n0 = r->n;
	for (size_t i = 0; i < n0; i++) {
		enum kind k = r->v[i].kind;
		if (k == K_HOST || k == K_USER || k == K_HOSTS)
			continue; /* their pseudonyms are never learned (stop_name) */
		char *pseudo = xstrdup(r->v[i].pseudo); /* add_alias may move v */
		struct buf f;
		buf_init(&f);
		put_pseudo(&f, k, pseudo, r->v[i].orig, strlen(r->v[i].orig), F_FORM);
		char key[40];
		const char *kp = f.data ? f.data : "";
		/* a bus id's key is its NCCL form, as match_pci makes it */
		if (k == K_BUS && match_pci(kp, key, sizeof key) == f.len)
			kp = key;
		if (*kp && !lookup(r, k, kp, strlen(kp)))
			add_alias(r, k, kp, strlen(kp), pseudo);
		/* a UUID field holds the bare form, without GPU- */
		if (k == K_UUID && f.len > 4 && f.data[3] == '-' && !lookup(r, k, f.data + 4, f.len - 4))
			add_alias(r, k, f.data + 4, f.len - 4, pseudo);
		buf_free(&f);
		free(pseudo);
	}
	pthread_mutex_unlock(&r->mu);
}

/* Replace whole-token occurrences of from[i] by to[i] in *p. */
static void replace_tokens(char **p, const struct strvec *from, const struct strvec *to)
{
	if (!*p || !from->n)
		return;
	struct buf out;
	buf_init(&out);
	const char *s = *p;
	size_t i = 0;
	while (s[i]) {
		int at_start = i == 0 || !isalnum((unsigned char)s[i - 1]);
		size_t hit = 0, best = 0;
		if (at_start)
			for (size_t k = 0; k < from->n; k++) {
				size_t l = strlen(from->v[k]);
				if (l > best && strncmp(s + i, from->v[k], l) == 0 && !isalnum((unsigned char)s[i + l])) {
					best = l;
					hit = k + 1;
				}
			}
		if (hit) {
			buf_adds(&out, to->v[hit - 1]);
			i += best;
		} else {
			buf_addc(&out, s[i++]);
		}
	}
	free(*p);
	*p = buf_steal(&out);
}
