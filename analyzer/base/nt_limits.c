/* nt_limits.c - default caps (documented in the man page, LIMITS). */
#include "base/nt_limits.h"

void limits_default(struct limits *l)
{
	l->max_member_bytes = LIMITS_DEFAULT_MEMBER_BYTES;
	l->max_ratio = LIMITS_DEFAULT_RATIO;
	l->max_bundle_bytes = LIMITS_DEFAULT_BUNDLE_BYTES;
	l->max_members = LIMITS_DEFAULT_MEMBERS;
	l->max_nesting = LIMITS_DEFAULT_NESTING;
	l->max_depth = LIMITS_DEFAULT_DEPTH;
	l->max_entries = LIMITS_DEFAULT_ENTRIES;
	l->max_line = LIMITS_DEFAULT_LINE;
	l->max_lines = LIMITS_DEFAULT_LINES;
	l->match_limit = LIMITS_DEFAULT_MATCH;
	l->depth_limit = LIMITS_DEFAULT_DEPTHLIM;
	l->match_budget = LIMITS_DEFAULT_MATCH_BUDGET;
	l->follow_symlinks = 0;
}
