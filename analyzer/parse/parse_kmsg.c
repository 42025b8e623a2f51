/* parse_kmsg.c - kernel messages (dmesg, dmesg -T, dmesg --time-format iso,
 * journalctl -k, /var/log/kern.log and syslog) to facts.kernel
 * (docs/facts.md): the NVIDIA driver's Xid reports per GPU with what the
 * code means, other NVRM lines, the OOM killer's victims (pid, process,
 * host) and segfaults.  The signatures of patterns/kernel.json and
 * patterns/rank.json still match these lines as evidence; the facts here
 * are what needs structure: the set of Xids per GPU, and the pids the OOM
 * killer took, so that a rank killed by SIGKILL can be tied to it
 * (rules_host.c).
 *
 * Kernel logs are logs: bundle.c hands every line that carries one of the
 * kernel keywords (linekw.h: KW_KMSG) to sysreport_kmsg_line(); whole texts go
 * through sys_parse_kmsg() (tests, fuzzing).  Each line is copied into a
 * bounded buffer before it is looked at. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse/sysparse.h"
#include "parse/sysreport.h"

#define KM_LINE 2048
#define KM_MAX_XIDS 512
#define KM_MAX_OOM 256
#define OOM_RECENT 4 /* oom_entry: the entries a line within 3 lines of its kill can match */
#define KM_MAX_SEGV 256
#define KM_MAX_NVRM 64

/* What an Xid means, from NVIDIA's Xid catalog (docs.nvidia.com/deploy/xid-errors);
 * the list of every code the driver defines is patterns/coverage/xid.tsv. */
static const struct {
	int xid;
	const char *meaning;
} XIDS[] = {
	{13, "graphics engine exception (an application fault: illegal instruction or address in a kernel)"},
	{31, "GPU memory page fault (MMU fault: an application accessed an invalid address)"},
	{32, "invalid or corrupted push buffer stream"},
	{38, "driver firmware error"},
	{43, "GPU stopped processing (a channel was reset after an application fault)"},
	{45, "preemptive cleanup, due to previous errors (the channel of a killed or faulted process)"},
	{48, "double-bit ECC error (uncorrectable GPU memory error)"},
	{61, "internal micro-controller breakpoint/warning"},
	{62, "internal micro-controller halt"},
	{63, "ECC page retirement or row remapping recorded (reset the GPU to activate)"},
	{64, "ECC page retirement or row remapping recording failure"},
	{69, "graphics engine class error"},
	{74, "NVLink error"},
	{79, "GPU has fallen off the bus (lost to the PCIe bus: power, thermal or hardware fault)"},
	{92, "high single-bit ECC error rate"},
	{94, "contained ECC error (the affected application was stopped)"},
	{95, "uncontained ECC error (every application on the GPU is affected; reset needed)"},
	{109, "context switch timeout"},
	{119, "GSP RPC timeout (the GPU System Processor did not answer)"},
	{120, "GSP error"},
	{154, "GPU recovery action changed (the driver asks for a reset or a reboot)"},
	/* codes of the newest drivers: the driver's own names (nverror.h, 595.45.04) */
	{121, "C2C (chip-to-chip) link error (C2C_ERROR)"},
	{136, "NVLink training failed (ALI_TRAINING_FAIL)"},
	{137, "NVLink privilege error (NVLINK_PRIV_ERR)"},
	{140, "uncorrectable ECC error escaped containment (UNRECOVERABLE_ECC_ERROR_ESCAPE)"},
	{143, "GPU initialisation error (GPU_INIT_ERROR)"},
	{155, "NVLink software-defined error (NVLINK_SW_DEFINED_ERROR)"},
	{156, "memory resource retirement event (RESOURCE_RETIREMENT_EVENT)"},
	{157, "memory resource retirement failure (RESOURCE_RETIREMENT_FAILURE)"},
	{158, "GPU fatal timeout (GPU_FATAL_TIMEOUT)"},
	{167, "PCIe fatal timeout (PCIE_FATAL_TIMEOUT)"},
	{171, "uncorrectable DRAM error (UNCORRECTABLE_DRAM_ERROR)"},
	{172, "uncorrectable SRAM error (UNCORRECTABLE_SRAM_ERROR)"},
	{173, "fatal C2C link failure (C2C_FATAL_LINK_FAILURE)"},
	{0, NULL}};

const char *sys_xid_meaning(int xid)
{
	for (int i = 0; XIDS[i].meaning; i++)
		if (XIDS[i].xid == xid)
			return XIDS[i].meaning;
	return NULL;
}

static const char *const MONTHS[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec", NULL};

/* The host of a syslog / journalctl line: "Mar 10 01:33:03 cpu-6-2 kernel: ..."
 * or "2024-03-05T11:02:41+0000 host kernel: ...".  Writes it to host. */
static int syslog_host(const char *s, const char *kernel, char *host, size_t hn)
{
	int month = 0;
	for (int i = 0; MONTHS[i]; i++)
		if (!strncmp(s, MONTHS[i], 3) && s[3] == ' ')
			month = 1;
	int iso = isdigit((unsigned char)s[0]) && isdigit((unsigned char)s[1]) && isdigit((unsigned char)s[2]) &&
	          isdigit((unsigned char)s[3]) && s[4] == '-' && strchr(s, 'T') && strchr(s, 'T') < kernel;
	if (!month && !iso)
		return 0;
	/* the token right before "kernel:" */
	const char *e = kernel;
	while (e > s && e[-1] == ' ')
		e--;
	const char *b = e;
	while (b > s && b[-1] != ' ')
		b--;
	if (e <= b || (size_t)(e - b) >= hn)
		return 0;
	/* a time is not a host */
	if (strchr(b, ':') && strchr(b, ':') < e)
		return 0;
	memcpy(host, b, (size_t)(e - b));
	host[e - b] = 0;
	return 1;
}

/* "[  108.577117] ", "[Sun Mar 30 08:24:00 2025] ", "2024-04-29T14:55:41,679700+02:00 " */
static void line_time(const char *s, char *ts, size_t tn)
{
	ts[0] = 0;
	if (s[0] == '[') {
		const char *e = strchr(s, ']');
		if (e && (size_t)(e - s - 1) < tn) {
			const char *b = s + 1;
			while (*b == ' ')
				b++;
			memcpy(ts, b, (size_t)(e - b));
			ts[e - b] = 0;
		}
	} else if (strlen(s) > 5 && isdigit((unsigned char)s[0]) && s[4] == '-') {
		size_t k = strcspn(s, " ");
		if (k < tn) {
			memcpy(ts, s, k);
			ts[k] = 0;
		}
	} else {
		for (int i = 0; MONTHS[i]; i++)
			if (!strncmp(s, MONTHS[i], 3) && s[3] == ' ' && strlen(s) > 15 && 15 < tn) {
				memcpy(ts, s, 15);
				ts[15] = 0;
			}
	}
}

/* The array of key, and whether it holds cap entries.  Once full, a line
 * was dropped and counted under kernel.dropped.key (count_dropped; these
 * arrays only grow): that one lookup says so, not a walk of cap entries at
 * every further line (a replicated dmesg paste) */
static cJSON *entry(cJSON *facts, const char *key, int cap, int *full)
{
	cJSON *kn = sys_obj(facts, "kernel");
	cJSON *arr = sys_arr(kn, key);
	*full = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(kn, "dropped"), key) != NULL ||
	        cJSON_GetArraySize(arr) >= cap;
	return arr;
}

static void count_dropped(cJSON *facts, const char *key)
{
	cJSON *d = sys_obj(sys_obj(facts, "kernel"), "dropped");
	double v = 0;
	json_num(d, key, &v);
	sys_set_num(d, key, v + 1);
}

static void common(cJSON *o, const char *host, const char *ts, const char *path, uint64_t lineno)
{
	if (host && *host)
		sys_set_str(o, "host", host);
	if (ts && *ts)
		sys_set_str(o, "time", ts);
	sys_put_source(o, path, lineno);
}

/* "NVRM: Xid (PCI:0000:00:07): 31, pid=2168, name=python, channel ..."
 * (older drivers: "NVRM: Xid (0000:01:00): 79, GPU has fallen off the bus.") */
static int xid_line(cJSON *facts, const char *x, const char *host, const char *ts, const char *path, uint64_t lineno)
{
	const char *p = x + 9; /* after "NVRM: Xid" */
	while (*p == ' ')
		p++;
	if (*p != '(')
		return 0;
	p++;
	if (!strncmp(p, "PCI:", 4))
		p += 4;
	unsigned dom = 0, bus, dev, inst = 0;
	int k = 0, xid, has_gi = 0;
	/* a MIG GPU instance follows the address: "(PCI:0000:01:00 GPU-I:05)" */
	unsigned f[3];
	/* sscanf(p, "%x:%x:%x)%n") == 3 without sscanf, where the fields are
	 * hex digits only: then the MIG form below cannot match (')' is no
	 * blank and no 'G') */
	if ((k = sys_hex3(p, ')', f)) != 0) {
		dom = f[0], bus = f[1], dev = f[2];
	} else if (sscanf(p, "%x:%x:%x GPU-I:%x)%n", &dom, &bus, &dev, &inst, &k) == 4 && k) {
		has_gi = 1;
	} else if (k = 0, sscanf(p, "%x:%x:%x)%n", &dom, &bus, &dev, &k) != 3 || k == 0) {
		dom = 0;
		if (sscanf(p, "%x:%x)%n", &bus, &dev, &k) != 2 || k == 0)
			return 0;
	}
	if (dom > 0xffff || bus > 0xff || dev > 0x1f)
		return 0;
	const char *q = p + k;
	while (*q == ':' || *q == ' ')
		q++;
	char *xe; /* sscanf's "%d": what strtol reads, stored as an int */
	long xl = strtol(q, &xe, 10);
	if (xe == q)
		return 0;
	xid = (int)xl;
	if (xid < 0 || xid > 100000)
		return 0;
	char bdf[24];
	sys_bdf(bdf, dom, bus, dev); /* in range: checked above */
	int full;
	cJSON *arr = entry(facts, "xids", KM_MAX_XIDS, &full);
	/* the set of Xids per GPU, always complete */
	cJSON *by = sys_obj(sys_obj(facts, "kernel"), "xid_by_gpu");
	cJSON *set = sys_arr(by, bdf);
	int seen = 0;
	const cJSON *e;
	cJSON_ArrayForEach(e, set)
		if (cJSON_IsNumber(e) && (int)e->valuedouble == xid)
			seen = 1;
	if (!seen && cJSON_GetArraySize(set) < 64)
		cJSON_AddItemToArray(set, cJSON_CreateNumber(xid));
	if (full) {
		count_dropped(facts, "xids");
		return 1;
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "xid", xid);
	const char *mean = sys_xid_meaning(xid);
	if (mean)
		sys_set_str(o, "meaning", mean);
	sys_set_str(o, "bus_id", bdf);
	if (has_gi)
		cJSON_AddNumberToObject(o, "gpu_instance", inst);
	cJSON *g = sys_gpu_by_bus(facts, bdf);
	double gi;
	if (g && json_num(g, "index", &gi))
		cJSON_AddNumberToObject(o, "gpu", gi);
	long pid;
	char *pe;
	const char *pp = strstr(q, "pid=");
	if (pp && (pid = strtol(pp + 4, &pe, 10), pe != pp + 4)) /* sscanf's "%ld" */
		cJSON_AddNumberToObject(o, "pid", (double)pid);
	const char *np = strstr(q, "name=");
	if (np) {
		char name[128]; /* sscanf's "%127[^, ]" */
		if (sys_scan_until(np + 5, ", ", name, sizeof name))
			sys_set_str(o, "process", name);
	}
	sys_set_str(o, "text", x);
	common(o, host, ts, path, lineno);
	cJSON_AddItemToArray(arr, o);
	return 1;
}

/* "Out of memory: Killed process 7899 (python) total-vm:..., anon-rss:...kB, ..."
 * "Memory cgroup out of memory: Killed process 4182 (worker) ..."
 * "Out of memory: Kill process 1234 (python) score 900 or sacrifice child" (old kernels)
 * "oom-kill:constraint=CONSTRAINT_NONE,...,task=python,pid=7899,uid=0" */
static cJSON *oom_entry(cJSON *facts, long pid, const char *path, uint64_t lineno, int *isnew)
{
	cJSON *arr = sys_arr(sys_obj(facts, "kernel"), "oom_kills");
	cJSON *o;
	*isnew = 0;
	/* the same kill reported by two lines (constraint, then Killed process)
	 * within 3 lines: only the last OOM_RECENT entries can be it.  Each line
	 * adds at most one entry, so an entry touched within the last 3 lines
	 * has at most 3 entries after it: walking back from the end over
	 * OOM_RECENT finds what a walk of the whole array found, without a walk
	 * of up to KM_MAX_OOM cold entries per line (a replicated dmesg paste).
	 * The pid first ("pid" is an entry's first key): most entries stop there. */
	o = arr->child ? arr->child->prev : NULL; /* cJSON: the first child's prev is the last */
	for (int k = 0; o && k < OOM_RECENT; k++, o = o == arr->child ? NULL : o->prev) {
		double p, l;
		const cJSON *pk = o->child; /* the key that json_num(o, "pid") finds, without a call */
		const char *kn = pk ? pk->string : NULL;
		if (kn && kn[0] == 'p' && kn[1] == 'i' && kn[2] == 'd' && !kn[3]) {
			if (!cJSON_IsNumber(pk) || (long)pk->valuedouble != pid)
				continue;
		} else if (!json_num(o, "pid", &p) || (long)p != pid) {
			continue;
		}
		/* "source" is an entry's last key (common() adds it last and then
		 * replaces it in place): one comparison, not a walk of the keys */
		const cJSON *last = o->child ? o->child->prev : NULL;
		const cJSON *src = last && last->string && !strcmp(last->string, "source")
		                   ? last : cJSON_GetObjectItemCaseSensitive(o, "source");
		if (!json_num(src, "line", &l) || lineno < (uint64_t)l || lineno - (uint64_t)l > 3)
			continue;
		const char *sp = json_str(src, "path");
		if (sp && !strcmp(sp, path))
			return o;
	}
	int full;
	entry(facts, "oom_kills", KM_MAX_OOM, &full);
	if (full) {
		count_dropped(facts, "oom_kills");
		return NULL;
	}
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "pid", (double)pid);
	cJSON_AddItemToArray(arr, o);
	*isnew = 1;
	return o;
}

/* sscanf(a, "%ld (%127[^)])", pid, comm) == 2 without sscanf: strtol
 * reads the number as "%ld" does, the blanks (isspace) before '(' are the
 * format's blank, then 1 to 127 bytes up to ')' (sys_scan_until). */
static int pid_comm(const char *a, long *pid, char comm[128])
{
	char *e;
	long v = strtol(a, &e, 10);
	if (e == a)
		return 0;
	*pid = v;
	while (isspace((unsigned char)*e))
		e++;
	return *e == '(' && sys_scan_until(e + 1, ")", comm, 128) != 0;
}

static int oom_line(cJSON *facts, const char *s, const char *host, const char *ts, const char *path, uint64_t lineno)
{
	const char *p;
	long pid;
	char comm[128];
	if ((p = strstr(s, "Killed process ")) || (p = strstr(s, "Kill process "))) {
		const char *a = strchr(p, ' ');
		a = a ? strchr(a + 1, ' ') : NULL;
		if (!a || !pid_comm(a + 1, &pid, comm) || pid <= 0)
			return 0;
		int isnew;
		cJSON *o = oom_entry(facts, pid, path, lineno, &isnew);
		if (!o)
			return 1;
		sys_set_str(o, "process", comm);
		sys_set_str(o, "kind", strstr(s, "Memory cgroup out of memory") ? "cgroup" : "global");
		const char *r = strstr(p, "anon-rss:");
		if (r) {
			/* "anon-rss:60356340kB" ("153,700,88kB" on some kernels: digits only) */
			double v = 0;
			int digits = 0;
			for (const char *c = r + 9; *c && *c != 'k' && *c != ' '; c++)
				if (isdigit((unsigned char)*c)) {
					v = v * 10 + (*c - '0');
					digits++;
				}
			if (digits && digits < 16)
				sys_set_num(o, "anon_rss_kb", v);
		}
		sys_set_str(o, "text", s);
		common(o, host, ts, path, lineno);
		return 1;
	}
	if ((p = strstr(s, "oom-kill:constraint="))) {
		const char *t = strstr(p, ",task=");
		const char *q = strstr(p, ",pid=");
		char *pe; /* sscanf's "%ld": what strtol reads */
		if (!q || (pid = strtol(q + 5, &pe, 10), pe == q + 5) || pid <= 0)
			return 0;
		int isnew;
		cJSON *o = oom_entry(facts, pid, path, lineno, &isnew);
		if (!o)
			return 1;
		char c[64];
		if (sys_scan_until(p + 20, ",", c, sizeof c)) /* sscanf's "%63[^,]" */
			sys_set_str(o, "constraint", c);
		if (t && sys_scan_until(t + 6, ",", comm, sizeof comm) && !cJSON_GetObjectItemCaseSensitive(o, "process"))
			sys_set_str(o, "process", comm);
		const char *mc = strstr(p, "task_memcg=");
		if (mc && sys_scan_until(mc + 11, ",", comm, sizeof comm))
			sys_set_str(o, "memcg", comm);
		if (isnew) {
			sys_set_str(o, "text", s);
			common(o, host, ts, path, lineno);
		}
		return 1;
	}
	return 0;
}

/* "python[31742]: segfault at 0 ip 00007f3a2c4b1e2d sp 00007ffd1c2a9f80 error 4 in libnccl.so.2[7f3a...]"
 * "traps: python[31742] general protection fault ip:7f3a2c4b1e2d sp:... error:0 in libcuda.so.1[...]" */
static int segv_line(cJSON *facts, const char *s, const char *at, const char *kind, const char *host,
                     const char *ts, const char *path, uint64_t lineno)
{
	/* the "comm[pid]" right before at */
	const char *e = at;
	while (e > s && e[-1] == ':')
		e--;
	if (e <= s || e[-1] != ']')
		return 0;
	const char *lb = e - 1;
	while (lb > s && *lb != '[')
		lb--;
	if (*lb != '[' || lb == s)
		return 0;
	long pid;
	if (sscanf(lb + 1, "%ld]", &pid) != 1 || pid <= 0)
		return 0;
	const char *cb = lb;
	while (cb > s && cb[-1] != ' ')
		cb--;
	if (lb - cb <= 0 || lb - cb >= 128)
		return 0;
	char comm[128];
	memcpy(comm, cb, (size_t)(lb - cb));
	comm[lb - cb] = 0;
	int full;
	cJSON *arr = entry(facts, "segfaults", KM_MAX_SEGV, &full);
	if (full) {
		count_dropped(facts, "segfaults");
		return 1;
	}
	cJSON *o = cJSON_CreateObject();
	sys_set_str(o, "kind", kind);
	sys_set_str(o, "process", comm);
	cJSON_AddNumberToObject(o, "pid", (double)pid);
	const char *in = strstr(at, " in ");
	if (in) {
		char lib[256];
		if (sscanf(in + 4, "%255[^[ ]", lib) == 1)
			sys_set_str(o, "object", lib);
	}
	sys_set_str(o, "text", s);
	common(o, host, ts, path, lineno);
	cJSON_AddItemToArray(arr, o);
	return 1;
}

/* "NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ..." */
static void nvrm_line(cJSON *facts, const char *x, const char *host, const char *ts, const char *path, uint64_t lineno)
{
	const char *k = strstr(x, "Kernel Module");
	if (!strncmp(x, "NVRM: loading NVIDIA", 20) && k) {
		char tok[64];
		const char *p = k + 13;
		while (sscanf(p, "%63s", tok) == 1) {
			struct version dv;
			if (version_parse(tok, &dv) && dv.n >= 2 && dv.part[0] >= 100 && dv.part[0] < 10000) {
				sys_version_set(facts, "driver", tok, path, lineno);
				break;
			}
			p = strstr(p, tok) + strlen(tok);
		}
	}
	cJSON *kn = sys_obj(facts, "kernel");
	double n = 0;
	json_num(kn, "nvrm_lines", &n);
	sys_set_num(kn, "nvrm_lines", n + 1);
	int full;
	cJSON *arr = entry(facts, "nvrm", KM_MAX_NVRM, &full);
	if (full)
		return;
	cJSON *o = cJSON_CreateObject();
	sys_set_str(o, "text", x);
	common(o, host, ts, path, lineno);
	cJSON_AddItemToArray(arr, o);
}

int sysreport_kmsg_line(cJSON *facts, const char *line, size_t len, const char *path, uint64_t lineno)
{
	if (!facts || !line)
		return 0;
	char buf[KM_LINE];
	str_line_copy(buf, sizeof buf, line, len, 1);
	char *s = buf;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!path)
		path = "";
	char host[128] = "", ts[64] = "";
	const char *kern = strstr(s, " kernel: ");
	if (kern)
		syslog_host(s, kern, host, sizeof host);
	line_time(s, ts, sizeof ts);
	const char *x, *at;
	if ((x = strstr(s, "NVRM: Xid")))
		return xid_line(facts, x, host, ts, path, lineno);
	if (strstr(s, "Killed process ") || strstr(s, "Kill process ") || strstr(s, "oom-kill:constraint="))
		return oom_line(facts, s, host, ts, path, lineno);
	if ((at = strstr(s, ": segfault at ")))
		return segv_line(facts, s, at, "segfault", host, ts, path, lineno);
	if ((at = strstr(s, " general protection fault ")) && strstr(s, "traps: ")) {
		/* "traps: python[31742] general protection fault ip:..." */
		return segv_line(facts, s, at, "general_protection", host, ts, path, lineno);
	}
	if ((x = strstr(s, "NVRM: "))) {
		nvrm_line(facts, x, host, ts, path, lineno);
		return 1;
	}
	return 0;
}

int sys_parse_kmsg(const char *text, size_t len, const char *path, cJSON *facts, struct msgs *m)
{
	if (!text || !facts)
		return 0;
	int n = 0;
	const char *p = text, *end = text + len;
	uint64_t lineno = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		lineno++;
		n += sysreport_kmsg_line(facts, p, l, path, lineno);
		if (!nl)
			break;
		p = nl + 1;
	}
	if (!n && m)
		msgs_add(m, "%s: no kernel messages found", path ? path : "");
	return n;
}
