/* cmd_mem.c - `nccl-triage mem`: will this model fit, per GPU, before the
 * job runs?  Parses the options, runs memcalc, prints the arithmetic, the
 * verdict and the smallest change that fits (text or JSON) to stdout.
 * Exit status: 0 fits, 1 does not fit, 2 usage error (message on stderr). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cjson/cJSON.h>

#include "cli/cli.h"
#include "cli/clicommon.h"
#include "cli/commands.h"
#include "cli/formats.h"
#include "rules/memcalc.h"


/* After the options in --help: the presets (memcalc.c's tables). */
void cmd_mem_help(FILE *f)
{
	size_t n, ng;
	const struct mem_preset *p = mem_presets(&n);
	const struct gpu_preset *g = gpu_presets(&ng);
	fprintf(f, "\nmodel presets (--model):");
	for (size_t i = 0; i < n; i++)
		fprintf(f, " %s", p[i].name);
	fprintf(f, "\nGPU presets (--gpu):");
	for (size_t i = 0; i < ng; i++)
		fprintf(f, " %s", g[i].name);
	fprintf(f, "\n");
}

/* "24564MiB", "80GiB", "22.15GB", "1024" (MiB) -> MiB */
static double parse_mem(const char *s)
{
	char *e;
	double v = strtod(s, &e);
	if (e == s || v < 0 || !isfinite(v))
		return -1;
	while (*e == ' ')
		e++;
	if (!*e || !strcasecmp(e, "MiB") || !strcasecmp(e, "M"))
		return v;
	if (!strcasecmp(e, "GiB") || !strcasecmp(e, "G"))
		return v * 1024;
	if (!strcasecmp(e, "GB"))
		return v * 1e9 / 1048576.0;
	if (!strcasecmp(e, "MB"))
		return v * 1e6 / 1048576.0;
	if (!strcasecmp(e, "TiB"))
		return v * 1024 * 1024;
	return -1;
}

static double gib(double mib)
{
	return mib / 1024.0;
}

struct change {
	char what[200];
	struct mem_result r;
};

static int try_change(const struct mem_job *base, struct mem_job *j, struct change *c, const char *what)
{
	(void)base;
	mem_compute(j, &c->r);
	snprintf(c->what, sizeof c->what, "%s", what);
	return c->r.fits;
}

/* The options of mem, read into a job. */
struct mem_args {
	struct mem_job j;
	int shard_set, json;
	double usable;
	const char *model, *dtype, *gpuname;
};

/* Options in order (a later --params overrides --model); 0 or exit status 2. */
static int read_options(const struct common *c, const struct strvec *ops, struct mem_args *a)
{
	const struct format *fmt = format_pick(c->format, CMD_MEM, "mem");
	if (!fmt)
		return 2;
	a->json = !strcmp(fmt->name, "json");
	if (ops->n) {
		fprintf(stderr, "nccl-triage mem: unexpected operand '%s' (see --help)\n", ops->v[0]);
		return 2;
	}

	for (size_t i = 0; i < c->nargs; i++) {
		enum opt_id id = c->args[i].id;
		const char *v = c->args[i].arg;
		if (id == OPT_MODEL) {
			const struct mem_preset *preset = mem_preset_find(v);
			if (!preset) {
				fprintf(stderr, "nccl-triage mem: unknown model '%s'; try --params N or --help for the presets\n", v);
				return 2;
			}
			a->model = preset->name;
			a->j.params = preset->params;
			if (a->j.unit_params == 0)
				a->j.unit_params = preset->unit_params;
		} else if (id == OPT_PARAMS) {
			a->j.params = mem_parse_params(v);
			if (a->j.params <= 0) {
				fprintf(stderr, "nccl-triage mem: bad parameter count '%s' (e.g. 8B, 70e9)\n", v);
				return 2;
			}
			a->model = "custom";
		} else if (id == OPT_UNIT_PARAMS) {
			a->j.unit_params = mem_parse_params(v);
			if (a->j.unit_params <= 0) {
				fprintf(stderr, "nccl-triage mem: bad unit size '%s'\n", v);
				return 2;
			}
		} else if (id == OPT_DTYPE) {
			a->j.dtype_bytes = mem_dtype_bytes(v);
			a->dtype = v;
			if (a->j.dtype_bytes <= 0) {
				fprintf(stderr, "nccl-triage mem: unknown dtype '%s' (bf16, fp16, fp32, fp8, int8, int4)\n", v);
				return 2;
			}
		} else if (id == OPT_MODE) {
			if (!strcmp(v, "infer") || !strcmp(v, "inference"))
				a->j.mode = MODE_INFER;
			else if (!strcmp(v, "train") || !strcmp(v, "training"))
				a->j.mode = MODE_TRAIN;
			else {
				fprintf(stderr, "nccl-triage mem: --mode is infer or train, not '%s'\n", v);
				return 2;
			}
		} else if (id == OPT_MEM_GPUS) {
			a->j.gpus = atoi(v);
			if (a->j.gpus < 1 || a->j.gpus > 100000) {
				fprintf(stderr, "nccl-triage mem: bad GPU count '%s'\n", v);
				return 2;
			}
		} else if (id == OPT_SHARD) {
			if (mem_shard_parse(v, &a->j.shard)) {
				fprintf(stderr, "nccl-triage mem: unknown sharding '%s'\n", v);
				return 2;
			}
			a->shard_set = 1;
		} else if (id == OPT_PREFETCH) {
			a->j.prefetch = atoi(v);
			if (a->j.prefetch < 1 || a->j.prefetch > 64) {
				fprintf(stderr, "nccl-triage mem: bad prefetch '%s'\n", v);
				return 2;
			}
		} else if (id == OPT_EXTRA || id == OPT_GPU_MEM || id == OPT_RESERVE || id == OPT_USABLE) {
			double m = parse_mem(v);
			if (m < 0) {
				fprintf(stderr, "nccl-triage mem: bad size '%s' for --%s (e.g. 24564MiB, 80GiB)\n", v, cli_opt_name(id));
				return 2;
			}
			if (id == OPT_EXTRA) a->j.extra_mib = m;
			else if (id == OPT_GPU_MEM) a->j.gpu_total_mib = m, a->gpuname = "custom";
			else if (id == OPT_RESERVE) a->j.reserve_mib = m;
			else a->usable = m;
		} else if (id == OPT_GPU) {
			const struct gpu_preset *gp = gpu_preset_find(v);
			if (!gp) {
				fprintf(stderr, "nccl-triage mem: unknown GPU '%s'; use --gpu-mem or --help for the presets\n", v);
				return 2;
			}
			a->j.gpu_total_mib = gp->total_mib;
			a->gpuname = gp->desc;
		}
	}
	return 0;
}

/* What the options leave open: the checks and the defaults; 0 or 2. */
static int complete_job(struct mem_args *a)
{
	if (a->j.params <= 0) {
		fprintf(stderr, "nccl-triage mem: say which model: --model NAME or --params N (see --help)\n");
		return 2;
	}
	if (a->usable >= 0) {
		a->j.gpu_total_mib = a->usable;
		a->j.reserve_mib = 0;
		if (!a->gpuname)
			a->gpuname = "custom";
	}
	if (a->j.gpu_total_mib <= 0) {
		fprintf(stderr, "nccl-triage mem: say which GPU: --gpu NAME, --gpu-mem X or --usable X (see --help)\n");
		return 2;
	}
	if (!a->shard_set)
		a->j.shard = a->j.gpus > 1 ? SHARD_FULL : SHARD_NONE;
	if (a->j.prefetch < 0)
		a->j.prefetch = a->j.mode == MODE_TRAIN ? 2 : 1;
	return 0;
}

/* The smallest changes that fit (at most 8) into ch; their number. */
static int find_changes(const struct mem_args *a, struct change ch[8])
{
	int nch = 0;
	struct mem_job t;
	if (a->j.shard == SHARD_FULL && a->j.prefetch > 1) {
		t = a->j;
		t.prefetch = 1;
		if (try_change(&a->j, &t, &ch[nch], "gather one unit at a time (no prefetch: FSDP forward_prefetch=False, "
		               "backward_prefetch=None; limit_all_gathers=True)"))
			nch++;
	}
	if (a->j.shard != SHARD_FULL && a->j.shard != SHARD_TP && a->j.gpus > 1) {
		t = a->j;
		t.shard = SHARD_FULL;
		if (try_change(&a->j, &t, &ch[nch], "shard everything: FSDP FULL_SHARD / ZeRO-3"))
			nch++;
	}
	if (a->j.dtype_bytes > 2) {
		t = a->j;
		t.dtype_bytes = 2;
		if (try_change(&a->j, &t, &ch[nch], "use bf16 instead of fp32"))
			nch++;
	}
	if (a->j.shard != SHARD_NONE || a->j.gpus == 1) {
		t = a->j;
		if (t.shard == SHARD_NONE)
			t.shard = SHARD_FULL;
		for (int n = a->j.gpus + 1; n <= 4096; n++) {
			t.gpus = n;
			struct change tried;
			if (try_change(&a->j, &t, &tried, "")) {
				snprintf(ch[nch].what, sizeof ch[nch].what, "spread the model over %d GPUs%s (%s)", n,
				         a->j.shard == SHARD_NONE ? " with FSDP/ZeRO-3" : "", mem_shard_name(t.shard));
				ch[nch].r = tried.r;
				nch++;
				break;
			}
		}
	}
	size_t ng;
	const struct gpu_preset *gs = gpu_presets(&ng);
	const struct gpu_preset *best = NULL;
	for (size_t k = 0; k < ng; k++) {
		if (gs[k].total_mib <= a->j.gpu_total_mib)
			continue;
		t = a->j;
		t.gpu_total_mib = gs[k].total_mib;
		t.reserve_mib = a->usable >= 0 ? 1024 : a->j.reserve_mib;
		struct mem_result rr;
		mem_compute(&t, &rr);
		if (rr.fits && (!best || gs[k].total_mib < best->total_mib))
			best = &gs[k];
	}
	if (best && nch < 8) {
		t = a->j;
		t.gpu_total_mib = best->total_mib;
		t.reserve_mib = a->usable >= 0 ? 1024 : a->j.reserve_mib;
		char w[200];
		snprintf(w, sizeof w, "use %d x %s (%.0f MiB) instead", a->j.gpus, best->desc, best->total_mib);
		try_change(&a->j, &t, &ch[nch], w);
		nch++;
	}
	return nch;
}

static void print_json(const struct mem_args *a, const struct mem_result *rp, const struct change *ch, int nch)
{
	const struct mem_result r = *rp;
	double P = a->j.params;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "model", a->model ? a->model : "custom");
	cJSON_AddNumberToObject(o, "params", P);
	cJSON_AddNumberToObject(o, "unit_params", a->j.unit_params);
	cJSON_AddStringToObject(o, "dtype", a->dtype);
	cJSON_AddStringToObject(o, "mode", a->j.mode == MODE_TRAIN ? "train" : "infer");
	cJSON_AddNumberToObject(o, "gpus", a->j.gpus);
	cJSON_AddStringToObject(o, "shard", mem_shard_name(a->j.shard));
	cJSON_AddNumberToObject(o, "prefetch", a->j.prefetch);
	cJSON_AddStringToObject(o, "gpu", a->gpuname ? a->gpuname : "custom");
	cJSON *pg = cJSON_AddObjectToObject(o, "per_gpu_mib");
	cJSON_AddNumberToObject(pg, "weights", round(r.weights_mib * 100) / 100);
	cJSON_AddNumberToObject(pg, "gradients", round(r.grads_mib * 100) / 100);
	cJSON_AddNumberToObject(pg, "optimizer", round(r.optim_mib * 100) / 100);
	cJSON_AddNumberToObject(pg, "unshard", round(r.unshard_mib * 100) / 100);
	cJSON_AddNumberToObject(pg, "extra", round(r.extra_mib * 100) / 100);
	cJSON_AddNumberToObject(pg, "total", round(r.total_mib * 100) / 100);
	cJSON_AddNumberToObject(o, "usable_mib", round(r.usable_mib * 100) / 100);
	cJSON_AddNumberToObject(o, "reserve_mib", a->j.reserve_mib);
	cJSON_AddBoolToObject(o, "fits", r.fits);
	cJSON_AddNumberToObject(o, "margin_mib", round((r.usable_mib - r.total_mib) * 100) / 100);
	cJSON *arr = cJSON_AddArrayToObject(o, "changes_that_fit");
	for (int k = 0; k < nch; k++) {
		cJSON *co = cJSON_CreateObject();
		cJSON_AddStringToObject(co, "change", ch[k].what);
		cJSON_AddNumberToObject(co, "total_mib", round(ch[k].r.total_mib * 100) / 100);
		cJSON_AddNumberToObject(co, "usable_mib", round(ch[k].r.usable_mib * 100) / 100);
		cJSON_AddItemToArray(arr, co);
	}
	char *s = cJSON_Print(o);
	puts(s);
	free(s);
	cJSON_Delete(o);
}

static void print_text(const struct mem_args *a, const struct mem_result *rp, const struct change *ch, int nch)
{
	const struct mem_result r = *rp;
	double P = a->j.params;
	printf("model      %s: %.2f B parameters, %s (%.1f bytes each), %s\n", a->model ? a->model : "custom", P / 1e9, a->dtype,
	       a->j.dtype_bytes, a->j.mode == MODE_TRAIN ? "training (mixed-precision AdamW)" : "inference");
	printf("layout     %d GPU(s), %s\n", a->j.gpus, mem_shard_name(a->j.shard));
	printf("per GPU\n");
	double div = (a->j.shard == SHARD_FULL || a->j.shard == SHARD_TP) ? a->j.gpus : 1;
	printf("  weights     %9.2f GiB   %.2fe9 params x %.1f B%s\n", gib(r.weights_mib), P / 1e9, a->j.dtype_bytes,
	       div > 1 ? " / GPUs" : "");
	if (a->j.mode == MODE_TRAIN) {
		printf("  gradients   %9.2f GiB\n", gib(r.grads_mib));
		printf("  optimizer   %9.2f GiB   fp32 master + Adam m, v%s\n", gib(r.optim_mib),
		       a->j.shard != SHARD_NONE ? " / GPUs" : "");
	}
	if (r.unshard_mib > 0)
		printf("  unshard     %9.2f GiB   %d unit(s) of %.1fM params x %.1f B gathered%s\n", gib(r.unshard_mib),
		       a->j.prefetch, a->j.unit_params / 1e6, a->j.dtype_bytes, a->j.mode == MODE_TRAIN ? " + the unit's gradient" : "");
	if (r.extra_mib > 0)
		printf("  extra       %9.2f GiB   activations / KV cache (given)\n", gib(r.extra_mib));
	printf("  total       %9.2f GiB\n", gib(r.total_mib));
	printf("usable     %.2f GiB per GPU (%s: %.0f MiB - %.0f MiB reserve)\n", gib(r.usable_mib),
	       a->gpuname ? a->gpuname : "custom", a->j.gpu_total_mib, a->j.reserve_mib);
	/* the arithmetic a human would write */
	printf("arithmetic %.2f GiB%s", gib(r.weights_mib + r.grads_mib + r.optim_mib),
	       r.unshard_mib > 0 ? "" : "");
	if (r.unshard_mib > 0)
		printf(" + %.2f GiB unshard", gib(r.unshard_mib));
	if (r.extra_mib > 0)
		printf(" + %.2f GiB extra", gib(r.extra_mib));
	printf(" = %.2f GiB %s %.2f GiB usable\n", gib(r.total_mib), r.fits ? "<=" : ">", gib(r.usable_mib));
	if (r.fits)
		printf("verdict    fits, with %.2f GiB to spare per GPU\n", gib(r.usable_mib - r.total_mib));
	else {
		printf("verdict    does NOT fit: short by %.2f GiB per GPU\n", gib(r.total_mib - r.usable_mib));
		if (nch == 0)
			printf("change     none of the changes tried fits (more GPUs, full sharding, bf16, a larger GPU preset)\n");
		for (int k = 0; k < nch; k++)
			printf("%s %s -> %.2f GiB of %.2f GiB\n", k == 0 ? "smallest   " : "or         ", ch[k].what,
			       gib(ch[k].r.total_mib), gib(ch[k].r.usable_mib));
	}
}

int cmd_mem(struct common *c, struct strvec *ops)
{
	struct mem_args a;
	memset(&a, 0, sizeof a);
	a.j.dtype_bytes = 2;
	a.j.gpus = 1;
	a.j.mode = MODE_INFER;
	a.j.reserve_mib = 1024;
	a.j.prefetch = -1;
	a.usable = -1;
	a.dtype = "bf16";
	int rc = read_options(c, ops, &a);
	if (!rc)
		rc = complete_job(&a);
	if (rc)
		return rc;
	struct mem_result r;
	mem_compute(&a.j, &r);
	struct change ch[8];
	int nch = r.fits ? 0 : find_changes(&a, ch);
	if (a.json)
		print_json(&a, &r, ch, nch);
	else
		print_text(&a, &r, ch, nch);
	return r.fits ? 0 : 1;
}
