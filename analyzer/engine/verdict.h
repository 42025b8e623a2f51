/* verdict.h - the bundle's verdict and the sentence that says why.
 *
 * The rules (docs/json.md, "Verdicts"), in order:
 *   1. an error diagnosis that is not derived, in a bundle that shows a run
 *      -> diagnosed;
 *   2. failure evidence no specific signature explains (a derived diagnosis,
 *      an unexplained failure line) -> unknown_failure;
 *   3. a document or archive that was cut -> unknown_failure ("say what is
 *      missing": a CI gate must not pass a job whose log upload was cut);
 *   4. no run at all (system reports only, or nothing recognisable) ->
 *      no_evidence, findings still listed;
 *   5. positive evidence that the run worked as far as the bundle reaches
 *      (every NCCL process that appears reached Init COMPLETE; an
 *      nccl-tests table with its bus bandwidth and no wrong values; a
 *      clean destroy; an exit status 0 record; every rank's own output
 *      with no error) -> healthy;
 *   6. anything else (an excerpt showing neither completion nor failure, a
 *      run that stops before Init COMPLETE without an error or an end)
 *      -> no_evidence, with what it lacks.
 * Runs after correlate() and cascade_link(); sets b->verdict and
 * b->verdict_reason (owned by the bundle). */
#ifndef NT_VERDICT_H
#define NT_VERDICT_H

struct bundle;

void verdict_decide(struct bundle *b);

#endif
