/* analysis.c - see analysis.h. */
#include "analysis.h"

#include <string.h>

#include "bundle.h"
#include "cascade.h"
#include "correlate.h"
#include "rules.h"

void analysis_rule_ctx(struct bundle *b, struct rule_ctx *c)
{
	memset(c, 0, sizeof *c);
	c->name = b->name;
	c->facts = b->facts;
	c->ev = &b->ev;
	c->db = b->db;
	c->ranks = b->ranks;
	c->failures = b->failures;
	c->nfailures = b->nfailures;
	c->failure_count = b->failure_count;
	c->saw_nccl = b->saw_nccl;
}

void analysis_finish(struct bundle *b)
{
	bundle_end_input(b);
	struct rule_ctx rc;
	analysis_rule_ctx(b, &rc);
	rules_run_all(&rc);
	correlate(b);
	cascade_link(b); /* ranks: echoes across ranks (cascade.h) */
}
