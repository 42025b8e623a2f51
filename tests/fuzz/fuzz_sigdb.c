/* fuzz_sigdb.c - the signature-database loader: one pattern file's text
 * through sigdb_load_text, sigdb_finalize (prefilter, cross-checks) and
 * sigdb_selftest (every sample and negative sample), then a matcher built
 * on whatever loaded runs over a few real NCCL lines and the input itself.
 * Catastrophic regexes must stay within the match limit. */
#include "fuzz_common.h"
#include "parse/logline.h"
#include "match/match.h"
#include "rules/rules.h"
#include "match/sigdb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const LINES[] = {
	"[2026-11-30 14:16:13] vm:1159:1159 [0] bootstrap.cc:114 NCCL WARN Bootstrap : no socket interface found",
	"vm:1159:1159 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to nonexist0",
	"[rank0]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3135, invalid usage",
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab",
};

static void on_match(void *ctx, const struct signature *s, const struct logline *ll,
                     const PCRE2_SIZE *ov, int ngroups)
{
	(void)ctx;
	FUZZ_ASSERT(s != NULL && ngroups > 0);
	for (int g = 0; g < ngroups; g++) {
		if (ov[2 * g] == PCRE2_UNSET)
			continue;
		/* \K and lookbehind can make start > end; never beyond the line */
		FUZZ_ASSERT(ov[2 * g] <= ll->msg.n && ov[2 * g + 1] <= ll->msg.n);
	}
}

static void run_line(struct matcher *mt, const char *line, size_t len, struct msgs *m)
{
	struct logline ll;
	logline_parse(line, len, &ll);
	matcher_run(mt, &ll, "fuzz.log", on_match, NULL, m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sigdb db;
	sigdb_init(&db);
	rules_register(&db);
	db.match_limit = 100000;
	db.depth_limit = 1000;
	struct msgs m = {0};
	char *text = malloc(size ? size : 1);
	memcpy(text, data, size);
	int errors = sigdb_load_text(&db, "fuzz.json", text, size, &m);
	errors += sigdb_finalize(&db, &m);
	FUZZ_ASSERT(errors >= 0);
	size_t ok = 0;
	sigdb_selftest(&db, &m, &ok);
	if (db.nsigs) {
		struct matcher *mt = matcher_new(&db);
		for (size_t i = 0; i < sizeof LINES / sizeof *LINES; i++)
			run_line(mt, LINES[i], strlen(LINES[i]), &m);
		run_line(mt, text, size > 4096 ? 4096 : size, &m);
		matcher_free(mt);
	}
	for (size_t i = 0; i < m.list.n; i++)
		FUZZ_ASSERT(strchr(m.list.v[i], '\n') == NULL);
	msgs_free(&m);
	sigdb_free(&db);
	free(text);
	return 0;
}
