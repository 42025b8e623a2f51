/* linekind.h - what kind of line a log line is, decided once per line and
 * recorded in its struct logline for every consumer (bundle.c's facts and
 * failure lines, ranks.c's timelines, the system-report parsers fed by log
 * lines), so that each runs only on the lines of its kind and none of them
 * scans the message again for the same thing:
 *   LK_NCCL       an NCCL line (INFO, WARN, TRACE, CALL: logline.h's prefix)
 *   LK_TRACEBACK  a Python traceback's header, frame ('  File "..."') or
 *                 exception line ("module.NameError: text")
 *   LK_TORCH      PyTorch's own logging ("[W Utils.hpp:108] ...", "[E1130
 *                 14:17:06 ProcessGroupNCCL.cpp:...]": its header peeled,
 *                 ll->logger_kind) and the watchdog's
 *                 ProcessGroupNCCL lines (keywords of linekw.h)
 *   LK_TABLE      a line that starts, after blanks, with '#' or a digit: the
 *                 header and rows of a result table (nccl-tests), also
 *                 numbered output; the nccl-tests parser reads only these and
 *                 the lines with one of its keywords
 *   LK_OTHER      the rest (launcher output, program output, ...)
 * The classification reads the level and the keyword mask of the prefilter
 * pass (matcher_scan), so it runs after it: in bundle.c, first thing on
 * the thread that applies the line (the reading thread has the larger
 * share).  linekind_get() classifies a line that was not. */
#ifndef NT_LINEKIND_H
#define NT_LINEKIND_H

#include "parse/logline.h"

/* enum line_kind and struct linekind are in logline.h (a field of every
 * struct logline).  Beside the kind, the facts more than one consumer
 * tested on its own:
 *   exception     a Python exception line: an identifier run ([A-Za-z0-9_.])
 *                 that ends in "Error" or "Exception" followed by ':', by a
 *                 wrapped type and ':' ("RayTaskError(OutOfMemoryError): "),
 *                 or by nothing (then it holds a '.'), at the start of the
 *                 message or after up to 16 blanks before a letter (a paste
 *                 indented as a whole; indent says how many)
 *   table_row     the first byte after blanks (' ', tab, CR, NUL, in the
 *                 first 1023 bytes) is '#' or a digit, whatever the kind
 *   torch_record  PyTorch's c10 logger header ("[W ...", "[I1130 ...]"),
 *                 which peel.c takes off the message (ll->logger_kind PL_C10)
 * The three are set for plain lines and NCCL lines without a pid (ranks.c
 * reads those as plain ones); 0 for the other NCCL lines. */

/* Classify ll (after logline_parse and matcher_scan): sets ll->lk. */
void linekind_classify(struct logline *ll);
/* The classification of a line that was not classified, into *tmp. */
const struct linekind *linekind_compute(const struct logline *ll, struct linekind *tmp);
/* ll's classification: ll->lk, or computed now into *tmp. */
static inline const struct linekind *linekind_get(const struct logline *ll, struct linekind *tmp)
{
	return ll->lk_known ? &ll->lk : linekind_compute(ll, tmp);
}
const char *line_kind_name(enum line_kind k);

#endif
