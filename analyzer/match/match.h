/* match.h - run the signature database over log lines.  A matcher is the
 * per-thread scratch (PCRE2 match data, JIT stack, prefilter state); the
 * database itself is shared read-only. */
#ifndef NT_MATCH_H
#define NT_MATCH_H

#include "parse/logline.h"
#include "match/sigdb.h"

struct matcher;

typedef void (*match_cb)(void *ctx, const struct signature *s, const struct logline *ll,
                         const PCRE2_SIZE *ovector, int ngroups);

struct matcher *matcher_new(const struct sigdb *db);
void matcher_free(struct matcher *mt);
/* Try every applicable signature on the line; cb for each match.  Returns
 * the number of matches.  A signature whose regex hits the PCRE2 match or
 * depth limit on a line skips that line only; the lines are counted and
 * matcher_report_limits reports them, once per signature, naming where the
 * first was. */
size_t matcher_run(struct matcher *mt, struct logline *ll, const char *where,
                   match_cb cb, void *ctx, struct msgs *m);
/* matcher_run in two steps, for callers that use the keywords in between
 * or scan on another thread: matcher_scan runs the prefilter over the
 * message (sets ll->kw, ll->kw_known) and returns the number of candidate
 * signatures, matcher_candidates() lists them (valid until the next scan);
 * matcher_match_list runs PCRE2 for the candidates given. */
size_t matcher_scan(struct matcher *mt, struct logline *ll);
/* Slow matches (over 1% of the match limit) a signature may have before it
 * is reported and skipped for the rest of the bundle (--match-budget;
 * default LIMITS_DEFAULT_MATCH_BUDGET). */
void matcher_set_budget(struct matcher *mt, uint32_t slow_max);
const size_t *matcher_candidates(const struct matcher *mt);
/* One message per signature that reached the match limit on some lines
 * (named by the document of the first, or by bundle when not known). */
void matcher_report_limits(const struct matcher *mt, const char *bundle, struct msgs *m);
/* Move src's counts of lines skipped at the match limit into dst (two
 * matchers of one bundle that ran different signatures: the reading
 * thread's benign entries, the pipeline's candidates), so that one
 * matcher_report_limits reports both in database order. */
void matcher_take_limits(struct matcher *dst, struct matcher *src);
/* Lines signature si skipped at the match limit so far. */
uint64_t matcher_limited(const struct matcher *mt, size_t si);
size_t matcher_match_list(struct matcher *mt, const struct logline *ll, const size_t *cand, size_t ncand,
                          const char *where, match_cb cb, void *ctx, struct msgs *m);
/* The fast first match of candidate si on the line (1% of the match
 * limit), done ahead on another thread than the one that applies the
 * line: it reads the line and the database only, and changes nothing in
 * mt but its match data.  Returns PCRE2's code, with *ov set to the
 * ovector (mt's, valid until its next match) when it matched; or
 * MATCHER_NOT_TRIED (a benign entry, a regex that does not compile:
 * matcher_match_tried decides those in order). */
#define MATCHER_NOT_TRIED (-100000)
int matcher_try(struct matcher *mt, const struct logline *ll, size_t si, const PCRE2_SIZE **ov);
struct match_tried {
	int rc;                /* matcher_try's return */
	const PCRE2_SIZE *ov;  /* a copy of its ovector when rc > 0 */
};
/* matcher_match_list, given tried[i] (or NULL: none) for cand[i]: the
 * slow matches, the budgets, the limits and the callbacks, in order, with
 * exactly the result of matcher_match_list. */
size_t matcher_match_tried(struct matcher *mt, const struct logline *ll, const size_t *cand, size_t ncand,
                           const struct match_tried *tried, const char *where, match_cb cb, void *ctx, struct msgs *m);
/* The first benign entry (signature with "benign") among the candidates
 * whose regex matches the line, or NULL.  matcher_match_list and
 * matcher_run never report benign entries. */
const struct signature *matcher_benign(struct matcher *mt, const struct logline *ll, const size_t *cand,
                                       size_t ncand);

#endif
