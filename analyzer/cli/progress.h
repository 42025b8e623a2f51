/* progress.h - a one-line progress bar for long batch runs: bundles done of
 * total, input MB/s and ETA, redrawn in place (carriage return) at most ten
 * times a second.  The caller decides whether there is one (a terminal, not
 * --quiet); this module only draws on the FILE it is given.  Not
 * thread-safe: one thread updates it. */
#ifndef NT_PROGRESS_H
#define NT_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct progress;

/* total_bytes: input bytes of all items (0 when unknown: ETA by items). */
struct progress *progress_new(FILE *out, size_t total_items, uint64_t total_bytes);
/* Items and input bytes finished so far; redraws when due (or when force). */
void progress_update(struct progress *p, size_t done, uint64_t bytes_done, int force);
/* Erase the bar and free; p may be NULL. */
void progress_free(struct progress *p);

#endif
