/* memcalc.c - the per-GPU memory arithmetic of memcalc.h.  Model sizes are
 * the Llama 3 configurations (hidden size, layers, FFN size, 8 KV heads,
 * vocabulary 128256, untied embeddings); GPU sizes are memory.total as
 * nvidia-smi prints it on real hosts (docs/mem.md cites them). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rules/memcalc.h"

/* per layer: q,o = h*h each; k,v = h*1024 each (8 KV heads x 128); MLP 3*h*ffn; 2 norms of h */
#define LAYER(h, ffn) (2.0 * (h) * (h) + 2.0 * (h) * 1024 + 3.0 * (h) * (ffn) + 2.0 * (h))
#define EMBED(h) (2.0 * 128256 * (h) + (h))

static const struct mem_preset PRESETS[] = {
	{"llama3-8b", "Llama 3 / 3.1 8B (32 layers, hidden 4096)", 32 * LAYER(4096, 14336) + EMBED(4096),
	 LAYER(4096, 14336), 32},
	{"llama3-70b", "Llama 3 / 3.1 / 3.3 70B (80 layers, hidden 8192)", 80 * LAYER(8192, 28672) + EMBED(8192),
	 LAYER(8192, 28672), 80},
	{"llama3-405b", "Llama 3.1 405B (126 layers, hidden 16384)", 126 * LAYER(16384, 53248) + EMBED(16384),
	 LAYER(16384, 53248), 126},
};

static const struct gpu_preset GPUS[] = {
	{"h200", "NVIDIA H200 141GB", 143771},
	{"h100", "NVIDIA H100 80GB HBM3", 81559},
	{"a100-80g", "NVIDIA A100-SXM4-80GB", 81920},
	{"l40s", "NVIDIA L40S / A40 48GB", 46068},
	{"rtx5090", "NVIDIA GeForce RTX 5090 32GB", 32607},
	{"rtx4090", "NVIDIA GeForce RTX 4090 24GB", 24564},
};

const struct mem_preset *mem_presets(size_t *n)
{
	*n = sizeof PRESETS / sizeof PRESETS[0];
	return PRESETS;
}

const struct gpu_preset *gpu_presets(size_t *n)
{
	*n = sizeof GPUS / sizeof GPUS[0];
	return GPUS;
}

const struct mem_preset *mem_preset_find(const char *name)
{
	for (size_t i = 0; i < sizeof PRESETS / sizeof PRESETS[0]; i++)
		if (!strcasecmp(name, PRESETS[i].name))
			return &PRESETS[i];
	/* "8b", "70B", "llama-3-70b" */
	if (!strcasecmp(name, "8b") || !strcasecmp(name, "llama-3-8b"))
		return &PRESETS[0];
	if (!strcasecmp(name, "70b") || !strcasecmp(name, "llama-3-70b"))
		return &PRESETS[1];
	if (!strcasecmp(name, "405b") || !strcasecmp(name, "llama-3-405b"))
		return &PRESETS[2];
	return NULL;
}

const struct gpu_preset *gpu_preset_find(const char *name)
{
	for (size_t i = 0; i < sizeof GPUS / sizeof GPUS[0]; i++)
		if (!strcasecmp(name, GPUS[i].name))
			return &GPUS[i];
	return NULL;
}

double mem_parse_params(const char *s)
{
	char *e;
	double v = strtod(s, &e);
	if (e == s || v <= 0)
		return -1;
	if (!*e)
		return v;
	if (e[1])
		return -1;
	switch (toupper((unsigned char)*e)) {
	case 'K': return v * 1e3;
	case 'M': return v * 1e6;
	case 'B': case 'G': return v * 1e9;
	case 'T': return v * 1e12;
	default: return -1;
	}
}

double mem_dtype_bytes(const char *s)
{
	if (!strcasecmp(s, "bf16") || !strcasecmp(s, "fp16") || !strcasecmp(s, "half"))
		return 2;
	if (!strcasecmp(s, "fp32") || !strcasecmp(s, "float32"))
		return 4;
	if (!strcasecmp(s, "fp8") || !strcasecmp(s, "int8"))
		return 1;
	if (!strcasecmp(s, "int4") || !strcasecmp(s, "fp4"))
		return 0.5;
	return -1;
}

const char *mem_shard_name(enum mem_shard s)
{
	switch (s) {
	case SHARD_NONE: return "none (every GPU holds the whole model: DDP / replicas)";
	case SHARD_ZERO1: return "ZeRO-1 (optimizer states sharded)";
	case SHARD_ZERO2: return "ZeRO-2 (gradients and optimizer states sharded)";
	case SHARD_FULL: return "FSDP FULL_SHARD / ZeRO-3 (everything sharded, one unit gathered at a time)";
	case SHARD_TP: return "tensor parallel (weights split, nothing gathered)";
	}
	return "?";
}

int mem_shard_parse(const char *s, enum mem_shard *out)
{
	static const struct { const char *n; enum mem_shard s; } t[] = {
		{"none", SHARD_NONE}, {"ddp", SHARD_NONE}, {"zero1", SHARD_ZERO1}, {"zero2", SHARD_ZERO2},
		{"shard_grad_op", SHARD_ZERO2}, {"zero3", SHARD_FULL}, {"fsdp", SHARD_FULL}, {"full", SHARD_FULL},
		{"full_shard", SHARD_FULL}, {"tp", SHARD_TP}, {"tensor", SHARD_TP}, {NULL, SHARD_NONE}};
	for (int i = 0; t[i].n; i++)
		if (!strcasecmp(s, t[i].n)) {
			*out = t[i].s;
			return 0;
		}
	return -1;
}

void mem_compute(const struct mem_job *j, struct mem_result *r)
{
	const double MiB = 1024.0 * 1024.0;
	double n = j->gpus > 0 ? j->gpus : 1;
	double P = j->params, b = j->dtype_bytes;
	memset(r, 0, sizeof *r);
	double w = P * b, g = 0, o = 0;
	if (j->mode == MODE_TRAIN) {
		g = P * b;                         /* gradients in the training dtype */
		o = P * ((b < 4 ? 4 : 0) + 8);     /* fp32 master copy (mixed precision) + Adam m and v */
	}
	switch (j->shard) {
	case SHARD_NONE: break;
	case SHARD_ZERO1: o /= n; break;
	case SHARD_ZERO2: o /= n; g /= n; break;
	case SHARD_FULL: w /= n; g /= n; o /= n; break;
	case SHARD_TP: w /= n; g /= n; o /= n; break;
	}
	double un = 0;
	if (j->shard == SHARD_FULL && j->gpus > 1 && j->unit_params > 0) {
		int pf = j->prefetch > 0 ? j->prefetch : 1;
		un = pf * j->unit_params * b;
		if (j->mode == MODE_TRAIN)
			un += j->unit_params * b;      /* the unit's full gradient before reduce-scatter */
	}
	r->weights_mib = w / MiB;
	r->grads_mib = g / MiB;
	r->optim_mib = o / MiB;
	r->unshard_mib = un / MiB;
	r->extra_mib = j->extra_mib;
	r->total_mib = r->weights_mib + r->grads_mib + r->optim_mib + r->unshard_mib + r->extra_mib;
	r->usable_mib = j->gpu_total_mib - j->reserve_mib;
	r->fits = r->total_mib <= r->usable_mib;
}
