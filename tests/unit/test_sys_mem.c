/* test_sys_mem.c - memcalc arithmetic and the `nccl-triage mem` command:
 * Llama 3 preset sizes, sharding, unshard buffers, verdicts, the smallest
 * change that fits, and usage errors. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rules/memcalc.h"
#include "testlib.h"

#include "cli/commands.h"

static int run(const char *a0, ...)
{
	char *argv[32];
	int argc = 0;
	argv[argc++] = (char *)"nccl-triage";
	va_list ap;
	va_start(ap, a0);
	for (const char *a = a0; a && argc < 31; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	fflush(stdout);
	FILE *save = stdout;
	stdout = fopen("/dev/null", "w");
	int rc = commands_main(argc, argv);
	fclose(stdout);
	stdout = save;
	return rc;
}

int main(void)
{
	const struct mem_preset *p8 = mem_preset_find("llama3-8b");
	const struct mem_preset *p70 = mem_preset_find("70b");
	const struct mem_preset *p405 = mem_preset_find("llama3-405b");
	CHECK(p8 && p70 && p405);
	/* the published parameter counts */
	CHECK_INT((long long)p8->params, 8030261248LL);
	CHECK_INT((long long)p70->params, 70553706496LL);
	CHECK_INT((long long)p405->params, 405853388800LL);
	CHECK(fabs(mem_parse_params("70e9") - 70e9) < 1);
	CHECK(fabs(mem_parse_params("1.5T") - 1.5e12) < 1);
	CHECK(mem_parse_params("x") < 0);
	CHECK(mem_dtype_bytes("bf16") == 2 && mem_dtype_bytes("fp32") == 4 && mem_dtype_bytes("q") < 0);

	/* 8B bf16 inference on one RTX 4090: 14.96 GiB of weights */
	struct mem_job j = {0};
	j.params = p8->params;
	j.dtype_bytes = 2;
	j.gpus = 1;
	j.gpu_total_mib = 24564;
	j.reserve_mib = 1024;
	struct mem_result r;
	mem_compute(&j, &r);
	CHECK(fabs(r.weights_mib / 1024 - 14.957) < 0.01);
	CHECK(r.fits);

	/* FSDP on 2 GPUs: half the weights plus one gathered layer */
	j.gpus = 2;
	j.shard = SHARD_FULL;
	j.unit_params = p8->unit_params;
	j.prefetch = 1;
	mem_compute(&j, &r);
	CHECK(fabs(r.weights_mib * 2 - p8->params * 2 / 1048576.0) < 1);
	CHECK(fabs(r.unshard_mib - p8->unit_params * 2 / 1048576.0) < 0.01);

	/* 70B mixed-precision AdamW training on 8 x H100 80GB: 16 bytes/param / 8 does not fit */
	struct mem_job t = {0};
	t.params = p70->params;
	t.dtype_bytes = 2;
	t.gpus = 8;
	t.shard = SHARD_FULL;
	t.mode = MODE_TRAIN;
	t.unit_params = p70->unit_params;
	t.prefetch = 2;
	t.gpu_total_mib = 81559;
	t.reserve_mib = 1024;
	mem_compute(&t, &r);
	CHECK(!r.fits);
	CHECK(fabs((r.weights_mib + r.grads_mib + r.optim_mib) * 1048576.0 * 8 - p70->params * 16) < 1e6);

	CHECK_INT(run("mem", "--model", "llama3-8b", "--gpus", "2", "--gpu", "rtx4090", NULL), 0);
	CHECK_INT(run("mem", "--model", "llama3-70b", "--gpus", "8", "--mode", "train", "--gpu", "h100", NULL), 1);
	CHECK_INT(run("mem", "--model", "llama3-405b", "--gpus", "8", "--gpu", "h200", "--format", "json", NULL), 0);
	CHECK_INT(run("mem", "--model", "llama3-405b", "--gpus", "4", "--gpu", "h200", NULL), 1);
	CHECK_INT(run("mem", "--params", "14B", "--gpu-mem", "24564MiB", NULL), 1);
	CHECK_INT(run("mem", "--help", NULL), 0);
	CHECK_INT(run("mem", "--model", "nosuch", "--gpu", "h100", NULL), 2);
	CHECK_INT(run("mem", "--model", "llama3-8b", NULL), 2);
	CHECK_INT(run("mem", "--model", "llama3-8b", "--gpu", "h100", "--gpus", NULL), 2);
	CHECK_INT(run("mem", "--model", "llama3-8b", "--gpu", "h100", "--format", "xml", NULL), 2);
	TEST_MAIN_END();
}
