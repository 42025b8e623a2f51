/* fuzz_sysreport.c - the system-report parsers (sysreport_parse): topology
 * matrix, topo -p2p, topology XML, nvidia-smi (dashboard, -q, -L), memory
 * CSV, package lists, collect_env, nvcc, driver version, env dumps, RDMA
 * port reports, lspci, interface listings, host configuration listings.
 * The first byte picks the kind; the rest is the document.  Every input also
 * goes through the parsers fed by log lines (nccl-tests output, kernel
 * messages, per-node NCCL INFO lines, PyTorch OOM lines: each line handed
 * over without a NUL, as bundle.c does) and the embedded-report scan.  The
 * facts must print as JSON and every message must be one clean line. */
#include <cjson/cJSON.h>

#include "parse/detect.h"
#include "fuzz_common.h"
#include "parse/sysreport.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const enum doc_kind KINDS[] = {
	DOC_TOPO_MATRIX, DOC_TOPO_P2P, DOC_TOPO_XML, DOC_NVSMI, DOC_NVSMI_Q, DOC_NVSMI_L,
	DOC_MEM_CSV, DOC_PIP_LIST, DOC_COLLECT_ENV, DOC_NVCC, DOC_DRIVER_VERSION, DOC_ENV_DUMP,
	DOC_IB_STATUS, DOC_LSPCI, DOC_INTERFACES, DOC_HOST_CONFIG, /* new kinds at the end: seeds keep their byte */
};
#define NKINDS (sizeof KINDS / sizeof *KINDS)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	enum doc_kind kind = KINDS[data[0] % NKINDS];
	size_t n = size - 1;
	char *text = malloc(n ? n : 1); /* exact size: no NUL terminator to lean on */
	memcpy(text, data + 1, n);
	cJSON *facts = cJSON_CreateObject();
	struct msgs m = {0};
	int nf = sysreport_parse(kind, text, n, "fuzz/report.txt", facts, &m);
	FUZZ_ASSERT(nf >= 0);
	const char *p = text, *end = text + n;
	uint64_t lineno = 1;
	struct nccltests *nt = sysreport_nccltests_new(facts, "fuzz/report.txt");
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		sysreport_torch_oom(p, len, facts, "fuzz/report.txt", lineno);
		sysreport_nccltests_line(nt, p, len, lineno);
		sysreport_kmsg_line(facts, p, len, "fuzz/report.txt", lineno);
		sysreport_node_info(facts, "fuzzhost", 8, p, len, "fuzz/report.txt", lineno);
		lineno++;
		if (!nl)
			break;
		p = nl + 1;
	}
	sysreport_nccltests_end(nt);
	sysreport_scan_text(text, n, "fuzz/report.txt", facts, &m);
	char *s = cJSON_PrintUnformatted(facts);
	FUZZ_ASSERT(s != NULL);
	cJSON *back = cJSON_Parse(s);
	FUZZ_ASSERT(back != NULL);
	cJSON_Delete(back);
	free(s);
	for (size_t i = 0; i < m.list.n; i++)
		FUZZ_ASSERT(strchr(m.list.v[i], '\n') == NULL);
	msgs_free(&m);
	cJSON_Delete(facts);
	free(text);
	return 0;
}
