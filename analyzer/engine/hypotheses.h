/* hypotheses.h - the top three explanations of a finished bundle, each
 * with what would tell it apart (docs/json.md "hypotheses").
 *
 * The first is the top diagnosis (the first of severity error or warning).
 * When it is not certain (confidence below HYP_CERTAIN), up to two more
 * follow, of other categories: the other diagnoses of the bundle, and the
 * alternatives that the top diagnosis's own evidence leaves open (a remote
 * error: the peer died, or the link broke; an unhandled CUDA error: a fault,
 * memory, or the driver; a hang in init on one PCIe host: P2P).  Each says
 * what to collect or which `nccl-triage verify` run decides it.  Reads the
 * bundle only (after analysis_finish). */
#ifndef NT_HYPOTHESES_H
#define NT_HYPOTHESES_H

#include <stdio.h>
#include <cjson/cJSON.h>

struct bundle;

/* A diagnosis at this confidence or more needs no alternatives. */
#define HYP_CERTAIN 0.9

/* JSON array of {"category", "confidence", "diagnosis" (id or null),
 * "tell_apart"}: up to 3, empty when no diagnosis of severity error or
 * warning exists.  Caller owns. */
cJSON *hypotheses_json(const struct bundle *b);
/* The categories of the hypotheses, the top first, into cats (up to 3);
 * returns their number.  *certain: the top is a specific (not derived)
 * diagnosis at HYP_CERTAIN or more: nothing needs telling apart. */
size_t hypotheses_categories(const struct bundle *b, const char *cats[3], int *certain);
/* The word for a confidence, as the calibration table measures it
 * (docs/calibration.md): "near certain", "likely", "possible", "weak",
 * "a guess". */
const char *confidence_word(double c);
/* A "Hypotheses" section from the report's "hypotheses" array (text or
 * Markdown); nothing when there is one hypothesis or none. */
void hypotheses_text(FILE *out, const cJSON *hyps, int markdown);

#endif
