/* nt_limits.h - the caps that keep hostile input bounded.  Defaults are documented
 * in docs/nccl-triage.1 (LIMITS) and adjustable with --max-* options. */
#ifndef NT_LIMITS_H
#define NT_LIMITS_H

#include <stddef.h>
#include <stdint.h>

struct limits {
	uint64_t max_member_bytes;  /* decompressed bytes of one document (gzip member / tar entry / file) */
	double max_ratio;           /* decompressed / compressed, per gzip stream */
	uint64_t max_bundle_bytes;  /* all documents of one bundle together */
	size_t max_members;         /* tar entries per archive */
	int max_nesting;            /* archive inside archive */
	int max_depth;              /* directory depth */
	size_t max_entries;         /* directory entries per bundle */
	size_t max_line;            /* bytes of one line that are analysed; the rest is skipped */
	uint64_t max_lines;         /* lines per document */
	uint32_t match_limit;       /* PCRE2 match limit per line */
	uint32_t depth_limit;       /* PCRE2 depth limit */
	uint32_t match_budget;      /* slow matches per signature per bundle (match.c) */
	int follow_symlinks;        /* folders: follow links that leave the operand's tree */
};

#define LIMITS_DEFAULT_MEMBER_BYTES (8ULL << 30) /* 8 GiB, streamed: memory stays bounded */
#define LIMITS_DEFAULT_RATIO 1000.0
#define LIMITS_DEFAULT_BUNDLE_BYTES (64ULL << 30)
#define LIMITS_DEFAULT_MEMBERS 100000
#define LIMITS_DEFAULT_NESTING 4
#define LIMITS_DEFAULT_DEPTH 32
#define LIMITS_DEFAULT_ENTRIES 100000
#define LIMITS_DEFAULT_LINE 65536
#define LIMITS_DEFAULT_LINES 100000000ULL
#define LIMITS_DEFAULT_MATCH 1000000
#define LIMITS_DEFAULT_DEPTHLIM 10000
#define LIMITS_DEFAULT_MATCH_BUDGET 1000

void limits_default(struct limits *l);

#endif
