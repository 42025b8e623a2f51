/* sysreport.c - dispatch of system reports to their parsers (parse_*.c),
 * whole documents by kind and embedded reports in free text.  The helpers
 * the parsers share are below, in sysparse.c.  Facts are merged into the
 * caller's cJSON object (caller owns it); see docs/facts.md for the layout. */
#include "sysreport.h"
#include "sysparse.h"

int sysreport_parse(enum doc_kind kind, const char *text, size_t len,
                    const char *path, cJSON *facts, struct msgs *m)
{
	if (!text || !facts)
		return 0;
	switch (kind) {
	case DOC_TOPO_MATRIX: return sys_parse_topo(text, len, path, facts, m);
	case DOC_TOPO_P2P: return sys_parse_p2p(text, len, path, facts, m);
	case DOC_TOPO_XML: return sys_parse_topoxml(text, len, path, facts, m);
	case DOC_NVSMI: return sys_parse_nvsmi(text, len, path, facts, m);
	case DOC_NVSMI_Q: return sys_parse_nvsmi_q(text, len, path, facts, m);
	case DOC_NVSMI_L: return sys_parse_nvsmi_l(text, len, path, facts, m);
	case DOC_MEM_CSV: return sys_parse_mem_csv(text, len, path, facts, m);
	case DOC_PIP_LIST:
	case DOC_COLLECT_ENV:
	case DOC_NVCC:
	case DOC_DRIVER_VERSION: return sys_parse_versions(text, len, path, facts, m);
	case DOC_ENV_DUMP: return sys_parse_env(text, len, path, facts, m);
	case DOC_IB_STATUS: return sys_parse_ib(text, len, path, facts, m);
	case DOC_LSPCI: return sys_parse_lspci(text, len, path, facts, m);
	case DOC_INTERFACES: return sys_parse_netif(text, len, path, facts, m);
	case DOC_HOST_CONFIG: return sys_parse_host(text, len, path, facts, m);
	default: return 0;
	}
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
