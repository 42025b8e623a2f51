/* sysreport.c - the registry of system-report kinds and their dispatch:
 * which kinds exist and in which order they are tried (detect_sysreport),
 * whole documents parsed by kind (sysreport_parse), embedded reports in
 * free text (sysreport_scan_text).  Each kind is defined next to its parser
 * (parse_*.c: struct sysreport_kind); the helpers the parsers share are
 * below, in sysparse.c.  Facts are merged into the caller's cJSON object
 * (caller owns it); see docs/facts.md for the layout.
 *
 * A new kind: its DOC_* value in detect.h, its parser and struct
 * sysreport_kind in parse_NAME.c, and one line in KINDS below. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "parse/sysreport.h"
#include "parse/sysparse.h"

extern const struct sysreport_kind SYS_TOPO_XML, SYS_NVSMI_Q, SYS_COLLECT_ENV, SYS_TOPO_P2P, SYS_TOPO_MATRIX,
	SYS_NVSMI, SYS_NVCC, SYS_DRIVER_VERSION, SYS_LSPCI, SYS_IB_STATUS, SYS_INTERFACES, SYS_HOST_CONFIG, SYS_NVSMI_L,
	SYS_MEM_CSV, SYS_PIP_LIST, SYS_ENV_DUMP, SYS_P2P_BANDWIDTH, SYS_COLLECT_MANIFEST, SYS_TRIAGE_REPORT;

/* In detection order: the more specific first (topo -p2p before topo -m,
 * both have "GPU0" rows).  lspci, the RDMA port listings, the interface
 * listings and the host configuration listings are recognised by the
 * share of their lines each parser reads (70%), so that a log quoting a
 * few lines of one stays a log; their tests are markers, after the
 * banners of the others and before the memory CSV's column names. */
static const struct sysreport_kind *const KINDS[] = {
	&SYS_COLLECT_MANIFEST, &SYS_TRIAGE_REPORT, /* nccl-triage's own files: their first bytes */
	&SYS_TOPO_XML, &SYS_P2P_BANDWIDTH, &SYS_NVSMI_Q, &SYS_COLLECT_ENV, &SYS_TOPO_P2P, &SYS_TOPO_MATRIX, &SYS_NVSMI, &SYS_NVCC,
	&SYS_DRIVER_VERSION, &SYS_LSPCI, &SYS_IB_STATUS, &SYS_INTERFACES, &SYS_HOST_CONFIG, &SYS_NVSMI_L,
	&SYS_MEM_CSV, &SYS_PIP_LIST, &SYS_ENV_DUMP, NULL,
};

static const struct sysreport_kind *kind_of(enum doc_kind k)
{
	for (size_t i = 0; KINDS[i]; i++)
		if (KINDS[i]->kind == k)
			return KINDS[i];
	return NULL;
}

const char *sysreport_kind_name(enum doc_kind k)
{
	const struct sysreport_kind *s = kind_of(k);
	return s ? s->name : NULL;
}

int sysreport_kind_scanned(enum doc_kind k)
{
	const struct sysreport_kind *s = kind_of(k);
	return s && s->lines_scanned;
}

/* ---- detection ---- */

static int count(const char *h, size_t n, const char *needle)
{
	int c = 0;
	size_t k = strlen(needle);
	const char *p = h, *e = h + n;
	while (p < e && (p = memmem(p, (size_t)(e - p), needle, k))) {
		c++;
		p += k;
	}
	return c;
}

/* A row of a GPU matrix ("GPU0 ..."): p2p or topo row, or a header. */
static int count_gpu0_row(struct sys_head *h, const char *s)
{
	char *tok[8];
	char *c = strdup(s);
	if (!c)
		return -1;
	size_t nt = sys_split_ws(c, tok, 8);
	if (nt >= 2 && !strcmp(tok[1], "X")) {
		if (nt >= 3 && (!strcmp(tok[2], "OK") || !strcmp(tok[2], "NS") || !strcmp(tok[2], "CNS") ||
		                !strcmp(tok[2], "GNS") || !strcmp(tok[2], "TNS")))
			h->p2p_rows++;
		else
			h->topo_rows++;
	} else if (nt >= 2 && (!strcmp(tok[1], "GPU1") || !strcmp(tok[1], "CPU"))) {
		h->header_gpu0++;
	}
	free(c);
	return 0;
}

/* One non-blank line, counted as the first kind that fits. */
static int count_line(struct sys_head *h, const char *s)
{
	size_t sl = strlen(s);
	if (!strncmp(s, "GPU ", 4) && strstr(s, " (UUID: GPU-"))
		h->gpu_l++;
	else if (!strncmp(s, "Link ", 5) && isdigit((unsigned char)s[5]) && strstr(s, ": "))
		h->nvlink_l++;
	else if (!strncmp(s, "GPU0", 4) && (s[4] == ' ' || s[4] == '\t'))
		return count_gpu0_row(h, s);
	else if (!strncmp(s, "Package", 7) && strstr(s, "Version"))
		h->pip_hdr++;
	else if (!strncmp(s, "# packages in environment", 25) || !strncmp(s, "# Name", 6))
		h->conda_hdr++;
	else if (!strncmp(s, "export ", 7) || !strncmp(s, "declare -x ", 11))
		h->exports++;
	else if (strstr(s, "==") && !strchr(s, ' ') && isalnum((unsigned char)s[0]))
		h->pip_eq++;
	else if (strstr(s, " MiB, ") && isdigit((unsigned char)s[0]))
		h->csv_mem++;
	else {
		size_t k = 0;
		while (k < sl && (isalnum((unsigned char)s[k]) || s[k] == '_'))
			k++;
		if (k > 0 && k < sl && s[k] == '=' && (isupper((unsigned char)s[0]) || s[0] == '_')) {
			h->env_kv++;
			h->env_cmd += env_prefixed_command(s, sl);
		}
		else if (strstr(s, "GPU0") && (strstr(s, "GPU1") || strstr(s, "CPU Affinity")))
			h->header_gpu0++;
		else
			h->other++;
	}
	return 0;
}

/* The line counts of the first 400 non-blank lines; -1 out of memory. */
static int count_lines(struct sys_head *h, const char *head, size_t len)
{
	memset(h, 0, sizeof *h);
	h->p = head;
	h->n = len;
	struct sys_lines it;
	char *line;
	int rc = 0;
	sys_lines_init(&it, head, len);
	while (rc == 0 && (line = sys_lines_next(&it, NULL)) && h->lines < 400) {
		char *s = sys_trim(line);
		if (!*s)
			continue;
		h->lines++;
		rc = count_line(h, s);
	}
	sys_lines_free(&it);
	return rc;
}

/* "NCCL_DEBUG=INFO NCCL_IB_DISABLE=1 /usr/bin/mpirun -H a,b ...": a command
 * line with the environment in front of a launcher, pasted as the command a
 * job ran - not a line of an environment dump. */
int env_prefixed_command(const char *s, size_t len)
{
	static const char *const LAUNCHERS[] = {"mpirun", "mpiexec", "orterun", "torchrun", "srun", "deepspeed",
	                                        "accelerate", "python", "python3", NULL};
	size_t i = 0, assigns = 0;
	for (;;) {
		size_t j = i;
		while (j < len && (isalnum((unsigned char)s[j]) || s[j] == '_'))
			j++;
		if (j == i || j >= len || s[j] != '=')
			break;
		while (j < len && s[j] != ' ' && s[j] != '\t')
			j++;
		assigns++;
		while (j < len && (s[j] == ' ' || s[j] == '\t'))
			j++;
		i = j;
	}
	if (assigns == 0 || i >= len)
		return 0;
	size_t e = i, base = i;
	while (e < len && s[e] != ' ' && s[e] != '\t') {
		if (s[e] == '/')
			base = e + 1;
		e++;
	}
	for (size_t k = 0; LAUNCHERS[k]; k++)
		if (e - base == strlen(LAUNCHERS[k]) && memcmp(s + base, LAUNCHERS[k], e - base) == 0)
			return 1;
	return 0;
}

int detect_sysreport(const char *head, size_t len)
{
	if (!head || len == 0)
		return -1;
	/* An NCCL log that happens to quote a report stays a log. */
	int nccl_lines = count(head, len, " NCCL INFO ") + count(head, len, " NCCL WARN ");
	if (nccl_lines >= 3)
		return -1;
	for (size_t i = 0; KINDS[i]; i++)
		if (KINDS[i]->marker && KINDS[i]->marker(head, len))
			return KINDS[i]->kind;
	/* line-based: topo matrices without legend, -L, csv without header,
	 * pip lists, env dumps */
	struct sys_head h;
	if (count_lines(&h, head, len) < 0 || h.lines == 0)
		return -1;
	for (size_t i = 0; KINDS[i]; i++)
		if (KINDS[i]->lines && KINDS[i]->lines(&h))
			return KINDS[i]->kind;
	return -1;
}

/* ---- parsing ---- */

int sysreport_parse(enum doc_kind kind, const char *text, size_t len,
                    const char *path, cJSON *facts, struct msgs *m)
{
	if (!text || !facts)
		return 0;
	const struct sysreport_kind *s = kind_of(kind);
	return s ? s->parse(text, len, path, facts, m) : 0;
}

int sysreport_scan_text(const char *text, size_t len, const char *path,
                        cJSON *facts, struct msgs *m)
{
	if (!text || !facts)
		return 0;
	struct msgs quiet = {0};
	int n = 0;
	/* Embedded reports in free text (an issue body, a pasted ticket): each
	 * parser looks for its own block and ignores the rest.  Their
	 * complaints about missing blocks are not shown: absence is normal. */
	n += sys_parse_topo(text, len, path, facts, &quiet);
	n += sys_parse_p2p(text, len, path, facts, &quiet);
	n += sys_parse_nvsmi(text, len, path, facts, &quiet);
	n += sys_parse_versions(text, len, path, facts, &quiet);
	n += sys_parse_oom_text(text, len, path, facts, &quiet);
	n += sys_scan_ib(text, len, path, facts);
	n += sys_scan_lspci(text, len, path, facts);
	n += sys_scan_netif(text, len, path, facts);
	n += sys_scan_host(text, len, path, facts);
	msgs_free(&quiet);
	(void)m;
	return n;
}
