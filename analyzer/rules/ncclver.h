/* ncclver.h - every place a bundle shows its NCCL version, in one list, with
 * where each came from: the log (NCCL's banner, "NCCL version 2.x.y" in an
 * exception text), torch.cuda.nccl.version(), nccl-tests' header,
 * `ldd` / `ls -l` of libnccl.so.2.x.y, the nvidia-nccl-cuXX pip wheel, the
 * conda package, NCCL_VERSION in the environment (set by NVIDIA's container
 * images), free-form version files.  The one reader of those facts for the
 * NCCL version: the defect ranges (correlate.c) and versions.multiple_nccl
 * (sys_eval.c) both use it.  Nothing here is printed; all strings copied. */
#ifndef NT_NCCLVER_H
#define NT_NCCLVER_H

#include <stddef.h>
#include <cjson/cJSON.h>

/* in order of authority: what NCCL itself printed first, an environment
 * variable of the image last */
enum ncclver_kind { NV_LOG, NV_TORCH, NV_NCCLTESTS, NV_LDD, NV_PIP, NV_CONDA, NV_FILE, NV_ENV, NV_KINDS };

struct ncclver {
	char value[24];          /* three numbers: "2.19.3" */
	enum ncclver_kind kind;
	char where[240];         /* "pip package nvidia-nccl-cu12 2.19.3 [pip.txt:12]" */
};

#define NCCLVER_MAX 32

/* Every observation of facts, deduplicated per kind and value; returns the
 * number written to out (at most max). */
size_t ncclver_collect(const cJSON *facts, struct ncclver *out, size_t max);

/* The observations of the most authoritative kind present (the versions a
 * defect range is tested on): *first set to its index in v, the count
 * returned (0: the bundle shows no NCCL version). */
size_t ncclver_best(const struct ncclver *v, size_t n, size_t *first);

#endif
