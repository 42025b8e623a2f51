/* memcalc.h - per-GPU memory budget of a model before the job runs:
 * weights (and, for training, gradients, fp32 master weights and Adam
 * states) split by the sharding strategy, plus the unshard buffer FSDP /
 * ZeRO-3 gathers for one unit, plus activations / KV cache the user
 * estimates, against the GPU's usable memory.  Pure arithmetic; the model
 * and assumptions are documented in docs/mem.md. */
#ifndef NT_MEMCALC_H
#define NT_MEMCALC_H

#include <stddef.h>

enum mem_shard { SHARD_NONE, SHARD_ZERO1, SHARD_ZERO2, SHARD_FULL, SHARD_TP };
enum mem_mode { MODE_INFER, MODE_TRAIN };

struct mem_preset {
	const char *name;
	const char *desc;
	double params;       /* parameters */
	double unit_params;  /* one decoder layer: FSDP's usual wrap unit */
	int layers;
};

struct gpu_preset {
	const char *name;
	const char *desc;
	double total_mib;    /* memory.total as nvidia-smi prints it */
};

struct mem_job {
	double params;
	double unit_params;      /* unshard unit; 0 = none */
	double dtype_bytes;      /* 2 bf16/fp16, 4 fp32, 1 fp8/int8 */
	int gpus;
	enum mem_shard shard;
	enum mem_mode mode;
	int prefetch;            /* unshard units resident at once (>= 1) */
	double extra_mib;        /* activations / KV cache per GPU (user estimate) */
	double gpu_total_mib;
	double reserve_mib;      /* CUDA context, NCCL buffers, allocator slack */
};

struct mem_result {
	double weights_mib, grads_mib, optim_mib, unshard_mib, extra_mib;
	double total_mib, usable_mib;
	int fits;
};

const struct mem_preset *mem_preset_find(const char *name);
const struct mem_preset *mem_presets(size_t *n);
const struct gpu_preset *gpu_preset_find(const char *name);
const struct gpu_preset *gpu_presets(size_t *n);
/* "8B", "70e9", "405000000000", "1.5T" -> parameters; < 0 on error */
double mem_parse_params(const char *s);
/* "bf16" -> 2 ...; < 0 on error */
double mem_dtype_bytes(const char *s);
const char *mem_shard_name(enum mem_shard s);
int mem_shard_parse(const char *s, enum mem_shard *out);

void mem_compute(const struct mem_job *j, struct mem_result *r);

#endif
