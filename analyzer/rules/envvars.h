/* envvars.h - the table of environment variables NCCL and PyTorch read
 * (NCCL_*, TORCH_NCCL_*, the TORCH_* / CUDA_* ones that matter for
 * distributed jobs) and a checker for one name=value pair.
 *
 * Sources: NCCL env.rst and source 2.10-2.30, PyTorch ProcessGroupNCCL.hpp
 * (see /work/shared/reference/nccl-reference.md sections 7 and 8.8).
 *
 * The table is static and read-only.  envvar_check() fills a finding whose
 * strings are owned by the caller (free with envvar_finding_free). */
#ifndef NT_ENVVARS_H
#define NT_ENVVARS_H

#include <stddef.h>
#include <stdint.h>

enum env_type {
	ENV_INT,        /* integer parsed with strtoll(…, 0); range in min/max */
	ENV_ENUM,       /* one token of values ('|' separated) */
	ENV_LIST,       /* comma list of tokens of values, optional leading '^' */
	ENV_LEVEL,      /* NCCL topology level: exact upper-case name or 0-5 */
	ENV_STRING,     /* free text (paths, interface lists, plugin names) */
	ENV_IFLIST      /* NCCL_SOCKET_IFNAME / NCCL_IB_HCA syntax */
};

#define ENVF_NOCASE  0x1   /* values compared case-insensitively */
#define ENVF_TORCH   0x2   /* read by PyTorch, not by NCCL */
#define ENVF_CUDA    0x4   /* read by the CUDA runtime / driver */
#define ENVF_IMAGE   0x8   /* set by container images for information only */

struct env_var {
	const char *name;
	enum env_type type;
	const char *values;     /* ENUM/LIST tokens, '|' separated; NULL otherwise */
	long long min, max;     /* ENV_INT range (min > max: unchecked) */
	const char *deflt;      /* default as documented */
	const char *since;      /* first NCCL/PyTorch version that reads it, NULL unknown/old */
	const char *until;      /* last version that reads it; NULL = still read */
	const char *renamed_to; /* the current name when this one is deprecated/renamed */
	unsigned flags;
	const char *note;       /* what it does, one line */
};

size_t envvar_count(void);
const struct env_var *envvar_at(size_t i);
/* Exact, case-sensitive lookup (variable names are case-sensitive). */
const struct env_var *envvar_find(const char *name);

enum env_verdict {
	ENVCHK_OK = 0,
	ENVCHK_IGNORED,          /* not ours to judge (other prefixes, image info) */
	ENVCHK_UNKNOWN,          /* env.unknown_variable */
	ENVCHK_INVALID,          /* env.invalid_value */
	ENVCHK_RENAMED,          /* env.renamed_variable */
	ENVCHK_REMOVED           /* env.removed_variable */
};

struct env_finding {
	enum env_verdict verdict;
	const char *rule;        /* rule id, NULL for OK/IGNORED (static string) */
	char *meant;             /* what the user probably meant, one sentence */
	char *note;              /* why, one or two sentences */
	uint64_t work;           /* table cells compared for the closest known name (tests bound it) */
};

/* Judge one variable.  nccl_code is the NCCL version the bundle shows
 * (version_code in version.h) or 0 when unknown.  Returns f->verdict. */
enum env_verdict envvar_check(const char *name, const char *value, int nccl_code,
                              struct env_finding *f);
void envvar_finding_free(struct env_finding *f);

/* Does the name belong to the families this table covers (NCCL_*,
 * TORCH_NCCL_*, TORCH_DISTRIBUTED_*, TORCH_CPP_LOG_LEVEL, TORCH_FR_*)? */
int envvar_in_scope(const char *name);

#endif
