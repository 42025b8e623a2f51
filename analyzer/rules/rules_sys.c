/* rules_sys.c - the fact-rule provider RULES_SYS: system-report facts
 * (topology, P2P, versions, memory, ECC, env) to evidence.  The rules
 * themselves are in sys_eval.c; this file summarises the log side of the
 * bundle (ranks' last lines, CUDA memory failures) and records what the
 * rules find with rule_emit(). */
#include <stdlib.h>
#include <string.h>

#include "match/patids.h"
#include "parse/ranks.h"
#include "rules/rules.h"
#include "rules/sys_eval.h"
#include "parse/sysparse.h"

static const struct rule_def SYS_RULES[] = {
	{"topo.p2p_through_cpu", "GPU pairs whose link crosses a PCIe host bridge or the CPU (PHB/NODE/SYS)"},
	{"topo.p2p_matrix_not_supported", "nvidia-smi topo -p2p shows pairs that are not OK (NS/CNS/GNS/TNS/U/DR)"},
	{"topo.consumer_gpu_p2p", "two or more GeForce RTX 40xx/50xx GPUs and P2P not disabled"},
	{"topo.hang_after_p2p_setup", "a rank's last line is a P2P channel setup, on GPUs whose P2P path is unusable"},
	{"versions.driver_too_old_for_cuda", "the driver supports an older CUDA than the runtime in use"},
	{"versions.minor_version_compat", "runtime newer than the driver's CUDA, same major: minor-version compatibility"},
	{"versions.nvcc_differs_from_torch", "nvcc and PyTorch's CUDA differ (matters for building extensions only)"},
	{"versions.arch_not_in_build", "the GPU architecture needs a newer (or older) CUDA than PyTorch was built with"},
	{"versions.nccl_2_25_on_sm120", "an NCCL 2.25.x and a consumer Blackwell GPU (sm_120, RTX 50xx) in one bundle"},
	{"versions.multiple_nccl", "more than one NCCL version or NCCL wheel in the job"},
	{"versions.mixed_cuda_wheels", "wheels for several CUDA majors (cu11/cu12/cu13) installed together"},
	{"versions.differ_between_reports", "driver/torch/NCCL versions differ between reports of one bundle"},
	{"memory.oom_event", "a PyTorch CUDA OOM message, with its arithmetic"},
	{"memory.oom_at_capacity", "a memory trace at capacity and a CUDA memory failure in the log"},
	{"memory.near_capacity", "a memory trace within 3% of the GPU's capacity"},
	{"memory.other_process_holds_memory", "GPU memory held by other or stale processes"},
	{"ecc.uncorrectable", "uncorrectable ECC errors, pending remaps or remap failures"},
	{"ecc.history", "uncorrectable ECC errors or retired pages in the GPU's lifetime counters"},
	{"fabric.gpu_not_registered", "nvidia-smi -q Fabric: a GPU not registered with the NVLink fabric (Not Started, In Progress) or registered with an error"},
	{"nvlink.links_inactive", "nvidia-smi nvlink -s: NVLinks of a GPU shown <inactive>"},
};

static void to_rules(void *ctx, const char *rule_id, const char *path, uint64_t line,
                      const char *statement, const struct capture *caps, size_t ncaps)
{
	/* the statement is also a capture, so that diagnoses can print it */
	struct capture all[16];
	size_t n = 0;
	for (size_t i = 0; i < ncaps && n < 15; i++)
		all[n++] = caps[i];
	all[n].name = (char *)"statement";
	all[n].value = (char *)statement;
	n++;
	rule_emit(ctx, rule_id, path, line, statement, all, n);
}

static int contains(const char *s, const char *needle)
{
	return s && strstr(s, needle) != NULL;
}

static void run(struct rule_ctx *rc)
{
	struct sys_logctx lc;
	memset(&lc, 0, sizeof lc);
	if (rc->ranks) {
		int maxrank = -1, nr = 0;
		for (size_t i = 0; i < rc->ranks->n; i++) {
			const struct rank_proc *r = &rc->ranks->v[i];
			if (r->nranks > nr)
				nr = r->nranks;
			if (r->rank > maxrank)
				maxrank = r->rank;
			if (r->last_text && contains(r->last_text, " via P2P/") && !r->saw_abort) {
				if (!lc.p2p_last_text) {
					lc.p2p_last_text = r->last_text;
					lc.p2p_path = r->last_path;
					lc.p2p_line = r->last_line;
				}
				lc.p2p_ranks++;
			}
		}
		lc.nranks = nr;
	}
	/* what each id says, once per id (evidence of one id shares the id
	 * string of its count slot): 0 not yet known, else an ID_* */
	enum { ID_UNKNOWN, ID_SKIP, ID_OOM, ID_TEXT };
	const struct evlist *el = rc->ev;
	unsigned char *idk = el->ncounts ? xcalloc(el->ncounts, 1) : NULL;
	/* the first SYS_OOM_LINES are all it keeps: once it has them, the rest
	 * of the evidence changes nothing */
	for (size_t i = 0; i < el->n && lc.nooms < SYS_OOM_LINES; i++) {
		const struct evidence *e = &el->v[i];
		if (!e->id)
			continue;
		int slot = e->id_slot < el->ncounts && el->counts[e->id_slot].id == e->id;
		int k = slot ? idk[e->id_slot] : ID_UNKNOWN;
		if (k == ID_UNKNOWN) {
			k = !strncmp(e->id, FAMILY_MEMORY, strlen(FAMILY_MEMORY)) ? ID_SKIP
			    : !strncmp(e->id, FAMILY_OOM, strlen(FAMILY_OOM)) || !strcmp(e->id, SIG_CUDA_NCCL_UNHANDLED_CUDA) ? ID_OOM
			    : ID_TEXT;
			if (slot)
				idk[e->id_slot] = (unsigned char)k;
		}
		if (k == ID_SKIP)
			continue;
		if (k == ID_OOM || contains(e->text, "out of memory") ||
		    /* both hold "nhandled": one search rules both out on nearly every line */
		    (contains(e->text, "nhandled") &&
		     (contains(e->text, "unhandled cuda error") || contains(e->text, "ncclUnhandledCudaError")))) {
			if (!lc.oom_in_log) {
				lc.oom_in_log = 1;
				lc.oom_text = e->text;
				lc.oom_path = e->path;
				lc.oom_line = e->line;
			}
			if (lc.nooms < SYS_OOM_LINES)
				lc.ooms[lc.nooms++] = (struct sys_oom_line){e->text, e->path, e->line};
		}
	}
	free(idk);
	if (!lc.oom_in_log) {
		const cJSON *ev = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(rc->facts, "memory"), "oom_events"), 0);
		if (ev) {
			const cJSON *src = cJSON_GetObjectItemCaseSensitive(ev, "source");
			double l = 0;
			json_num(src, "line", &l);
			lc.oom_in_log = 1;
			lc.oom_text = json_str(ev, "text");
			lc.oom_path = json_str(src, "path");
			lc.oom_line = (uint64_t)l;
		}
	}
	sys_rules_eval(rc->facts, &lc, to_rules, rc);
}

const struct rule_provider RULES_SYS = {
	"system reports",
	SYS_RULES,
	sizeof SYS_RULES / sizeof SYS_RULES[0],
	run,
};
