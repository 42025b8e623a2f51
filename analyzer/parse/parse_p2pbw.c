/* parse_p2pbw.c - the output of cuda-samples' p2pBandwidthLatencyTest to
 * facts.p2p_bandwidth (docs/facts.md): its bandwidth matrices, GB/s between
 * every GPU pair with peer-to-peer off (copies staged through the host) and
 * on (P2P writes), unidirectional and bidirectional.
 *
 *   [P2P (Peer-to-Peer) GPU Bandwidth Latency Test]
 *   Device: 0, NVIDIA RTX A6000, pciBusID: 3, pciDeviceID: 0, pciDomainID:0
 *   Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)
 *      D\D     0      1      2
 *        0 673.20  13.15  13.15
 *   Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)
 *   Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)
 *   Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)
 *
 * (cuda-samples Samples/5_Domain_Specific/p2pBandwidthLatencyTest; the real
 * output of tests/learn/p2p-mlengineering-1-a6000.log.)  The latency
 * matrices are not read.  rules_infer.c compares the two bandwidths of
 * each pair: P2P slower than the copy through the host is a broken peer
 * path. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/sysparse.h"

#define P2PBW_MAX 64 /* GPUs per matrix */

struct bwparse {
	const char *path;
	cJSON *out;           /* facts.p2p_bandwidth */
	cJSON *mat;           /* the matrix being read (rows array), or NULL */
	int ncols;
	int added;
};

/* "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)": the
 * key ("unidirectional_enabled"), or NULL for any other line. */
static const char *matrix_key(const char *s)
{
	int uni = strncmp(s, "Unidirectional P2P=", 19) == 0, bi = strncmp(s, "Bidirectional P2P=", 18) == 0;
	if ((!uni && !bi) || !strstr(s, "Bandwidth") || !strstr(s, "Matrix"))
		return NULL;
	const char *v = s + (uni ? 19 : 18);
	int on = strncmp(v, "Enabled", 7) == 0, off = strncmp(v, "Disabled", 8) == 0;
	if (!on && !off)
		return NULL;
	return uni ? (on ? "unidirectional_enabled" : "unidirectional_disabled")
	           : (on ? "bidirectional_enabled" : "bidirectional_disabled");
}

/* "     0 673.20  13.15  13.15": a row of the matrix being read */
static int matrix_row(struct bwparse *p, const char *s, uint64_t lineno)
{
	char *end;
	long r = strtol(s, &end, 10);
	if (end == s || r < 0 || r >= P2PBW_MAX || r != cJSON_GetArraySize(p->mat))
		return 0;
	cJSON *row = cJSON_CreateArray();
	const char *q = end;
	int n = 0;
	while (n < P2PBW_MAX) {
		while (*q == ' ' || *q == '\t')
			q++;
		if (!*q)
			break;
		double v = strtod(q, &end);
		if (end == q || !(v >= 0 && v < 1e7))
			break;
		cJSON_AddItemToArray(row, cJSON_CreateNumber(v));
		n++;
		q = end;
	}
	if (n != p->ncols || *q) {
		cJSON_Delete(row);
		return 0;
	}
	cJSON_AddItemToArray(p->mat, row);
	(void)lineno;
	return 1;
}

int sys_parse_p2pbw(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m)
{
	struct bwparse p;
	memset(&p, 0, sizeof p);
	p.path = path;
	struct sys_lines it;
	char *line;
	sys_lines_init(&it, text, len);
	while ((line = sys_lines_next(&it, NULL))) {
		char *s = sys_trim(line);
		const char *key = matrix_key(s);
		if (key) {
			if (!p.out)
				p.out = sys_obj(facts, "p2p_bandwidth");
			cJSON *o = sys_obj(p.out, key);
			cJSON_DeleteItemFromObjectCaseSensitive(o, "rows"); /* a later matrix of the same kind replaces it */
			p.mat = sys_arr(o, "rows");
			p.ncols = 0;
			sys_put_source(o, path, it.lineno);
			continue;
		}
		if (!p.mat)
			continue;
		if (strncmp(s, "D\\D", 3) == 0) {
			/* the column header: 0 1 2 ... */
			p.ncols = 0;
			for (const char *q = s + 3; *q;) {
				while (*q == ' ' || *q == '\t')
					q++;
				if (!isdigit((unsigned char)*q))
					break;
				while (isdigit((unsigned char)*q))
					q++;
				p.ncols++;
			}
			if (p.ncols > P2PBW_MAX)
				p.mat = NULL;
			continue;
		}
		if (p.ncols && matrix_row(&p, s, it.lineno)) {
			p.added++;
			continue;
		}
		if (*s)
			p.mat = NULL; /* the matrix ended */
	}
	sys_lines_free(&it);
	if (!p.added)
		msgs_add(m, "%s: no p2pBandwidthLatencyTest bandwidth matrix found", path);
	return p.added;
}

static int p2pbw_marker(const char *h, size_t n)
{
	return sys_has(h, n, "P2P=Enabled Bandwidth") || sys_has(h, n, "P2P=Disabled Bandwidth");
}

const struct sysreport_kind SYS_P2P_BANDWIDTH = {DOC_P2P_BANDWIDTH, "p2p_bandwidth", p2pbw_marker, NULL, sys_parse_p2pbw,
                                                 1};
