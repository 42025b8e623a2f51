/* fuzz_sysreport.c - the system-report parsers (sysreport_parse): topology
 * matrix, topo -p2p, topology XML, nvidia-smi (dashboard, -q, -L), memory
 * CSV, package lists, collect_env, nvcc, driver version, env dumps.  The
 * first byte picks the kind; the rest is the document.  Also feeds every
 * line to sysreport_torch_oom.  The facts must print as JSON and every
 * message must be one clean line. */
#include <cjson/cJSON.h>

#include "detect.h"
#include "fuzz_common.h"
#include "sysreport.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const enum doc_kind KINDS[] = {
	DOC_TOPO_MATRIX, DOC_TOPO_P2P, DOC_TOPO_XML, DOC_NVSMI, DOC_NVSMI_Q, DOC_NVSMI_L,
	DOC_MEM_CSV, DOC_PIP_LIST, DOC_COLLECT_ENV, DOC_NVCC, DOC_DRIVER_VERSION, DOC_ENV_DUMP,
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
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		sysreport_torch_oom(p, len, facts, "fuzz/report.txt", lineno++);
		if (!nl)
			break;
		p = nl + 1;
	}
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
