/* nextsteps.h - what to collect next, derived from what a finished bundle
 * lacks: NCCL_DEBUG output, the logs of every rank, topology, versions, the
 * launcher's summary, timestamps, a flight-recorder dump for hangs, the
 * kernel log for SIGKILLs.  Part of every report.  Reads the bundle only
 * (after analysis_finish). */
#ifndef NT_NEXTSTEPS_H
#define NT_NEXTSTEPS_H

#include <stdio.h>
#include <cjson/cJSON.h>
#include "base/util.h"

struct bundle;

/* The steps as plain sentences (Markdown-style `code` allowed). */
void next_steps(const struct bundle *b, struct strvec *out);
/* JSON array of strings.  Caller owns. */
cJSON *next_steps_json(const struct bundle *b);
/* A "Next steps" section from the report's "next_steps" array: numbered
 * lines (text) or a Markdown list. */
void next_steps_text(FILE *out, const cJSON *steps, int markdown);

#endif
