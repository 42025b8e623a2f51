/* sys_eval.h - fact rules over system-report facts, as a pure function
 * (sys_eval.c); rules_sys.c adapts it to a bundle.  The log side is
 * summarised in struct sys_logctx so that the rules can be tested without a
 * bundle.  All strings in sys_logctx are borrowed. */
#ifndef NT_SYS_EVAL_H
#define NT_SYS_EVAL_H

#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include "match/evidence.h"

struct sys_logctx {
	int nranks;                 /* ranks of the job (0 unknown) */
	/* a rank whose last line set up a P2P channel ("... via P2P/...") */
	const char *p2p_last_text;
	const char *p2p_path;
	uint64_t p2p_line;
	int p2p_ranks;
	/* a CUDA memory failure in the log (OOM, unhandled cuda error): the
	 * first, and the first SYS_OOM_LINES of them (each GPU's own line is
	 * found among them by the place facts.memory.oom_events give) */
	int oom_in_log;
	const char *oom_text, *oom_path;
	uint64_t oom_line;
#define SYS_OOM_LINES 16
	struct sys_oom_line {
		const char *text, *path;
		uint64_t line;
	} ooms[SYS_OOM_LINES];
	size_t nooms;
	/* where the log showed NCCL's version / cudaDriverVersion */
	const char *nccl_path, *driver_path;
	uint64_t nccl_line, driver_line;
};

typedef void (*sys_emit_fn)(void *ctx, const char *rule_id, const char *path, uint64_t line,
                            const char *statement, const struct capture *caps, size_t ncaps);

/* Derive facts (sys_derive) and run every rule; findings go to fn. */
void sys_rules_eval(cJSON *facts, const struct sys_logctx *lc, sys_emit_fn fn, void *ctx);

/* Model-name knowledge: SM number (0 unknown); GeForce RTX 40xx/50xx. */
int sys_gpu_sm(const char *name);
int sys_gpu_consumer_nop2p(const char *name);

#endif
