/* detect.c - classify a document from its first bytes.  Order matters: the
 * most specific formats are tried first; logs win over reports when a file
 * holds both (a pasted ticket), since log lines are scanned line by line and
 * the report parsers want a clean document. */
#include "parse/detect.h"
#include "parse/flight.h"

#include <string.h>

static const char *const KIND_NAMES[DOC_KIND_COUNT] = {
	[DOC_EMPTY] = "empty",
	[DOC_BINARY] = "binary",
	[DOC_TEXT] = "text",
	[DOC_NCCL_LOG] = "nccl_log",
	[DOC_TORCH_LOG] = "torch_log",
	[DOC_FLIGHT_RECORDER] = "flight_recorder",
	/* system reports: their registry (sysreport.c) names them */
};

const char *doc_kind_name(enum doc_kind k)
{
	if (k >= 0 && k < DOC_KIND_COUNT && KIND_NAMES[k])
		return KIND_NAMES[k];
	const char *s = sysreport_kind_name(k);
	return s ? s : "unknown";
}

int doc_kind_is_log(enum doc_kind k)
{
	return k == DOC_NCCL_LOG || k == DOC_TORCH_LOG || k == DOC_TEXT;
}

static int has(const char *h, size_t n, const char *needle)
{
	return memmem(h, n, needle, strlen(needle)) != NULL;
}

/* Counts lines that look like NAME=value with an upper-case NAME; *commands:
 * how many of them are commands with the environment in front. */
static int env_like_lines(const char *h, size_t n, int *total, int *commands)
{
	int envl = 0, lines = 0, cmdl = 0;
	size_t i = 0;
	while (i < n && lines < 200) {
		const char *nl = memchr(h + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - h) : n;
		const char *s = h + i;
		size_t len = e - i;
		if (len > 7 && memcmp(s, "export ", 7) == 0) {
			s += 7;
			len -= 7;
		}
		size_t j = 0;
		while (j < len && ((s[j] >= 'A' && s[j] <= 'Z') || (s[j] >= '0' && s[j] <= '9') ||
		                   s[j] == '_' || (s[j] >= 'a' && s[j] <= 'z')))
			j++;
		if (len > 0)
			lines++;
		/* "exit=137 ms=100231", "exit=rank0:1 rank1:124": a wrapper's exit
		 * status record (ranks.c), not an environment variable */
		int exit_rec = j == 4 && memcmp(s, "exit", 4) == 0 && len > 5 &&
		               ((s[5] >= '0' && s[5] <= '9') || s[5] == '-' || s[5] == 'r');
		if (j > 0 && j < len && s[j] == '=' && !exit_rec) {
			envl++;
			cmdl += env_prefixed_command(s, len);
		}
		i = e + 1;
	}
	*total = lines;
	*commands = cmdl;
	return envl;
}

/* A kernel log (dmesg "[  12.345678] ...", journalctl -k / syslog "...
 * kernel: ..."): most of its first lines are such lines.  It is text, read
 * as a log (bundle.c feeds its lines to the kernel-message parser), never a
 * report: its messages quote anything ("nvidia-", "==>", "NVRM version:"). */
static int kernel_log(const char *h, size_t n)
{
	int lines = 0, kern = 0;
	size_t i = 0;
	while (i < n && lines < 50) {
		const char *nl = memchr(h + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - h) : n;
		const char *s = h + i;
		size_t len = e - i;
		if (len) {
			lines++;
			size_t k = 0;
			if (s[0] == '[') {
				k = 1;
				while (k < len && s[k] == ' ')
					k++;
				size_t d = k;
				while (k < len && ((s[k] >= '0' && s[k] <= '9') || s[k] == '.'))
					k++;
				kern += k > d && k < len && s[k] == ']';
			} else if (memmem(s, len < 80 ? len : 80, " kernel: ", 9)) {
				kern++;
			}
		}
		i = e + 1;
	}
	return lines >= 3 && kern * 10 >= lines * 8;
}

enum doc_kind detect_kind(const char *h, size_t n, int complete)
{
	(void)complete;
	if (n == 0)
		return DOC_EMPTY;
	/* a flight-recorder dump: a pickle is binary, the JSON form text */
	if (flight_sniff(h, n))
		return DOC_FLIGHT_RECORDER;
	/* text or binary: count bytes that never occur in text and bytes that
	 * are not valid UTF-8 (Latin-1 logs have a few; random data mostly) */
	size_t bad = 0, look = n < 65536 ? n : 65536, nulruns = 0;
	const unsigned char *u = (const unsigned char *)h;
	for (size_t i = 0; i < look;) {
		unsigned c = u[i];
		if (c == 0) {
			/* A run of NULs (the hole a copytruncate rotation leaves at
			 * the start of a log, a preallocated file) is neither text
			 * nor binary; isolated NULs (UTF-16, binary data) are bad. */
			size_t r = 1;
			while (i + r < look && u[i + r] == 0)
				r++;
			if (r >= 16)
				nulruns += r;
			else
				bad += r;
			i += r;
			continue;
		}
		if (c < 0x80) {
			if (c == 0 || (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != 0x1b && c != '\f') || c == 0x7f)
				bad++;
			i++;
			continue;
		}
		size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
		size_t k = 1;
		while (len && k < len && i + k < look && (u[i + k] & 0xc0) == 0x80)
			k++;
		if (len == 0 || (k < len && i + k < look) || c > 0xf4) {
			bad++;
			i++;
		} else {
			i += k;
		}
	}
	if (bad * 10 > look - nulruns)
		return DOC_BINARY;

	int own = detect_collected(h, n);
	if (own >= 0)
		return (enum doc_kind)own;
	if (has(h, n, " NCCL INFO ") || has(h, n, " NCCL WARN ") || has(h, n, " NCCL WARN\n") ||
	    has(h, n, "NCCL CALL "))
		return DOC_NCCL_LOG;
	if (kernel_log(h, n))
		return DOC_TEXT;
	int sys = detect_sysreport(h, n);
	if (sys >= 0)
		return (enum doc_kind)sys;
	if (has(h, n, "<system version=") && has(h, n, "<cpu "))
		return DOC_TOPO_XML;
	if (has(h, n, "Collecting environment information") ||
	    (has(h, n, "PyTorch version:") && has(h, n, "Is debug build:")))
		return DOC_COLLECT_ENV;
	if (has(h, n, "==============NVSMI LOG=============="))
		return DOC_NVSMI_Q;
	if (has(h, n, "NVIDIA-SMI ") && has(h, n, "Driver Version:"))
		return DOC_NVSMI;
	/* topo -p2p legend has "OK   = Status Ok"; topo -m has link legends */
	if (has(h, n, "GPU0") && (has(h, n, "X    = Self") || has(h, n, "\tGPU1") ||
	                          has(h, n, " X \t") || has(h, n, "\tX\t"))) {
		if (has(h, n, "CNS  =") || has(h, n, "OK   = Status Ok") ||
		    (!has(h, n, "NV") && !has(h, n, "PIX") && !has(h, n, "PHB") && !has(h, n, "SYS") &&
		     !has(h, n, "NODE") && !has(h, n, "PXB") && has(h, n, "\tOK")))
			return DOC_TOPO_P2P;
		return DOC_TOPO_MATRIX;
	}
	if (has(h, n, "nvcc: NVIDIA (R) Cuda compiler driver"))
		return DOC_NVCC;
	if (has(h, n, "NVRM version:"))
		return DOC_DRIVER_VERSION;
	if (has(h, n, "Traceback (most recent call last)") || has(h, n, "torch.distributed") ||
	    has(h, n, "ProcessGroupNCCL") || has(h, n, "[rank") || has(h, n, "torchrun") ||
	    has(h, n, "NCCL version ") || has(h, n, "ChildFailedError") ||
	    has(h, n, "CUDA out of memory") || has(h, n, "NCCL error"))
		return DOC_TORCH_LOG;
	if (has(h, n, "memory.used") && has(h, n, ", ") &&
	    (has(h, n, "index") || has(h, n, "timestamp")))
		return DOC_MEM_CSV;
	if (memcmp(h, "GPU 0: ", n < 7 ? n : 7) == 0 && has(h, n, "(UUID: GPU-"))
		return DOC_NVSMI_L;
	if ((has(h, n, "Package") && has(h, n, "Version") && has(h, n, "-------")) ||
	    has(h, n, "# packages in environment at") ||
	    (has(h, n, "==") && (has(h, n, "\ntorch==") || has(h, n, "\nnumpy==") || has(h, n, "nvidia-"))))
		return DOC_PIP_LIST;
	/* commands with the environment in front of a launcher alone are the
	 * job's command line, not a dump (env_prefixed_command) */
	int total = 0, cmds = 0, envl = env_like_lines(h, n, &total, &cmds);
	if (total > 0 && envl * 2 >= total && envl >= 1 && cmds < envl)
		return DOC_ENV_DUMP;
	return DOC_TEXT;
}
