/* detect_sys.c - content detection of system reports, for detect.c:
 * detect_sysreport(head, len) returns a DOC_* kind of a system report or -1
 * when the head is none of them (or is a log that merely quotes one: NCCL
 * log lines win, the lead's detector decides those).  Pure, no allocation
 * beyond a line buffer. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "detect.h"
#include "sysparse.h"

static int has(const char *h, size_t n, const char *needle)
{
	return memmem(h, n, needle, strlen(needle)) != NULL;
}

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

int detect_sysreport(const char *head, size_t len)
{
	if (!head || len == 0)
		return -1;
	/* An NCCL log that happens to quote a report stays a log. */
	int nccl_lines = count(head, len, " NCCL INFO ") + count(head, len, " NCCL WARN ");
	if (nccl_lines >= 3)
		return -1;
	if (has(head, len, "<system version=") && (has(head, len, "<gpu ") || has(head, len, "<cpu ")))
		return DOC_TOPO_XML;
	if (has(head, len, "==============NVSMI LOG=============="))
		return DOC_NVSMI_Q;
	if (has(head, len, "PyTorch version:") || has(head, len, "Collecting environment information") ||
	    (has(head, len, "PyTorch version") && has(head, len, "CUDA used to build PyTorch")))
		return DOC_COLLECT_ENV;
	if (has(head, len, "DeepSpeed general environment info") || has(head, len, "torch cuda version ....") ||
	    (has(head, len, "- PyTorch version:") && has(head, len, "version:")))
		return DOC_COLLECT_ENV;
	/* topo -p2p before -m: both have "GPU0\t" rows */
	if (has(head, len, "CNS  = Chipset not supported") || has(head, len, "TNS  = Topology not supported"))
		return DOC_TOPO_P2P;
	if (has(head, len, "NV#  = Connection traversing") || has(head, len, "PHB  = Connection traversing") ||
	    has(head, len, "PIX  = Connection traversing"))
		return DOC_TOPO_MATRIX;
	if (has(head, len, "| NVIDIA-SMI ") && has(head, len, "Driver Version"))
		return DOC_NVSMI;
	if (has(head, len, "Cuda compilation tools, release"))
		return DOC_NVCC;
	if (has(head, len, "NVRM version: NVIDIA"))
		return DOC_DRIVER_VERSION;
	/* reports that are recognised by the share of their lines each parser
	 * reads (70%), so that a log quoting a few lines of one stays a log */
	if (sys_detect_lspci(head, len))
		return DOC_LSPCI;
	if (sys_detect_ib(head, len))
		return DOC_IB_STATUS;
	if (sys_detect_netif(head, len))
		return DOC_INTERFACES;
	if (sys_detect_host(head, len))
		return DOC_HOST_CONFIG;
	/* --query-gpu / --query-compute-apps CSV */
	if ((has(head, len, "memory.used") || has(head, len, "memory.total") || has(head, len, "used_gpu_memory")) &&
	    has(head, len, ", "))
		return DOC_MEM_CSV;

	/* line-based: topo matrices without legend, -L, csv without header,
	 * pip lists, env dumps */
	struct sys_lines it;
	char *line;
	int lines = 0, gpu_l = 0, topo_rows = 0, p2p_rows = 0, header_gpu0 = 0, pip_eq = 0, pip_hdr = 0,
	    conda_hdr = 0, env_kv = 0, exports = 0, csv_mem = 0, other = 0;
	sys_lines_init(&it, head, len);
	while ((line = sys_lines_next(&it, NULL)) && lines < 400) {
		char *s = sys_trim(line);
		if (!*s)
			continue;
		lines++;
		size_t sl = strlen(s);
		if (!strncmp(s, "GPU ", 4) && strstr(s, " (UUID: GPU-"))
			gpu_l++;
		else if (!strncmp(s, "GPU0", 4) && (s[4] == ' ' || s[4] == '\t')) {
			char *tok[8];
			char *c = strdup(s);
			if (!c) {
				sys_lines_free(&it);
				return -1;
			}
			size_t nt = sys_split_ws(c, tok, 8);
			if (nt >= 2 && !strcmp(tok[1], "X")) {
				if (nt >= 3 && (!strcmp(tok[2], "OK") || !strcmp(tok[2], "NS") || !strcmp(tok[2], "CNS") ||
				                !strcmp(tok[2], "GNS") || !strcmp(tok[2], "TNS")))
					p2p_rows++;
				else
					topo_rows++;
			} else if (nt >= 2 && (!strcmp(tok[1], "GPU1") || !strcmp(tok[1], "CPU")))
				header_gpu0++;
			free(c);
		} else if (!strncmp(s, "Package", 7) && strstr(s, "Version"))
			pip_hdr++;
		else if (!strncmp(s, "# packages in environment", 25) || !strncmp(s, "# Name", 6))
			conda_hdr++;
		else if (!strncmp(s, "export ", 7) || !strncmp(s, "declare -x ", 11))
			exports++;
		else if (strstr(s, "==") && !strchr(s, ' ') && isalnum((unsigned char)s[0]))
			pip_eq++;
		else if (strstr(s, " MiB, ") && isdigit((unsigned char)s[0]))
			csv_mem++;
		else {
			size_t k = 0;
			while (k < sl && (isalnum((unsigned char)s[k]) || s[k] == '_'))
				k++;
			if (k > 0 && k < sl && s[k] == '=' && (isupper((unsigned char)s[0]) || s[0] == '_'))
				env_kv++;
			else if (strstr(s, "GPU0") && (strstr(s, "GPU1") || strstr(s, "CPU Affinity")))
				header_gpu0++;
			else
				other++;
		}
	}
	sys_lines_free(&it);
	if (lines == 0)
		return -1;
	/* python -c "import torch; print(torch.__version__, torch.version.cuda, ...)" */
	if (lines <= 3 && isdigit((unsigned char)head[0])) {
		/* torch's "+cu130", not NCCL's "+cuda13.0" */
		const char *cu = memmem(head, len, "+cu", 3);
		while (cu && (size_t)(cu - head) + 3 < len && !isdigit((unsigned char)cu[3]))
			cu = memmem(cu + 3, len - (size_t)(cu + 3 - head), "+cu", 3);
		if (cu && (size_t)(cu - head) + 3 < len)
			return DOC_COLLECT_ENV;
	}
	if (p2p_rows >= 1)
		return DOC_TOPO_P2P;
	if (topo_rows >= 1 && (header_gpu0 || topo_rows >= 2))
		return DOC_TOPO_MATRIX;
	if (gpu_l >= 1 && gpu_l * 2 >= lines)
		return DOC_NVSMI_L;
	if (csv_mem >= 2 && csv_mem * 2 >= lines)
		return DOC_MEM_CSV;
	if (pip_hdr || conda_hdr || (pip_eq >= 5 && pip_eq * 2 >= lines))
		return DOC_PIP_LIST;
	if ((env_kv + exports) >= 3 && (env_kv + exports) * 2 >= lines)
		return DOC_ENV_DUMP;
	if (env_kv + exports >= 1 && env_kv + exports == lines)
		return DOC_ENV_DUMP; /* a short env.txt: every line is NAME=value */
	return -1;
}
