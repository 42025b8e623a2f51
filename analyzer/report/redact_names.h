/* redact_names.h - --redact without --keep-names: the names people gave a
 * bundle and its documents often carry a host or a customer
 * (gpu-node-99-ticket/trainhost44-rank0.log), so they are replaced by
 * neutral ones: the bundle's name by "bundle-N", each document's path by
 * "doc-K.EXT" (K its place in the bundle's "inputs", EXT the extension of
 * its file name, ".log.gz" for a compressed one; its kind stays).  Where:
 * every "path" field and the bundle's "name", whole; in any other string
 * (sentences, warnings, fix steps) and object key, a name that holds a '.'
 * or a '/' wherever it stands whole (between characters that cannot be
 * part of a file name: "[memtrace.csv:104]", "run.log: line 3"), and the
 * bundle's name before a '/' ("NAME/member.bin").  A name without '.' or
 * '/' ("logs", "dmesg") is replaced only in those fields: as a word of a
 * sentence it is a word.  Runs on the bundle's object before redact_json,
 * which then hides what the rest of the document shows. */
#ifndef NT_REDACT_NAMES_H
#define NT_REDACT_NAMES_H

#include <cjson/cJSON.h>

/* Rename in place; n is the bundle's number in the report (1, 2, ...). */
void redact_names(cJSON *bundle, unsigned n);

#endif
