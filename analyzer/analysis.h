/* analysis.h - the analysis of one bundle after its input: the rank
 * timelines are finished, the fact rules run (rules.h), the evidence is
 * correlated into ranked diagnoses and a verdict (correlate.h), and echoes
 * across ranks are linked (cascade.h).  The top of the engine: bundle.c
 * streams the input and knows none of these steps. */
#ifndef NT_ANALYSIS_H
#define NT_ANALYSIS_H

struct bundle;
struct rule_ctx;

/* After the last input: fills b->diags, b->ndiags and b->verdict. */
void analysis_finish(struct bundle *b);
/* What the fact rules see of a bundle (the rule context borrows from b). */
void analysis_rule_ctx(struct bundle *b, struct rule_ctx *c);

#endif
