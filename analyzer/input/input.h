/* input.h - operands to documents.
 *
 * An operand (a file, a folder, '-' for stdin, or a buffer in memory) is read
 * as a stream of bytes.  Its kind is found from the content, never the name:
 * gzip (including concatenated members) is decompressed on the fly, a tar
 * archive (ustar, pax, GNU long names) is walked member by member, folders
 * are walked recursively in sorted order without following symlink loops.
 * Archives may nest (a .gz inside a .tar) up to limits.max_nesting.
 * Nothing is ever written to disk and no name from an archive is used as a
 * path.  Every leaf is a *document*, delivered to a sink in chunks so that
 * memory stays bounded whatever the size of the input.
 *
 * Problems (truncated gzip, bad tar header, unreadable file, caps reached)
 * are appended to msgs as one line naming the document and the place; the
 * walk goes on with whatever can still be read. */
#ifndef NT_INPUT_H
#define NT_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include "base/nt_limits.h"
#include "base/util.h"

struct doc_sink {
	void *ctx;
	/* A new document.  name is the path inside the bundle, '/'-separated:
	 * the operand ticket.tar.gz gives "logs/rank0.log"; rank0.log.gz gives
	 * "rank0.log"; an archive inside a folder or another archive keeps its
	 * name as a prefix: "sub/x.tar/rank0.log".
	 * The string is only valid until end() returns. */
	void (*begin)(void *ctx, const char *name);
	/* Next chunk of the document's bytes (decompressed). */
	void (*data)(void *ctx, const void *p, size_t n);
	/* End of the document.  complete is 0 when the document was cut short
	 * (truncated stream, cap reached); the reason is already in msgs. */
	void (*end)(void *ctx, int complete);
	/* Optional (NULL: not asked): 1 when a document of this name was
	 * delivered already (in this walk or an earlier operand of the same
	 * bundle); the input layer then picks another name (docs/inputs.md). */
	int (*taken)(void *ctx, const char *name);
	/* Optional (NULL: not asked): where to read the current document's
	 * next chunk.  *n holds the most bytes the input would read; the sink
	 * lowers it to the room it has there (> 0) and returns the place, or
	 * returns NULL for the input's own buffer.  The data() call that
	 * follows, if the read gets any bytes, is given that place: a sink that
	 * keeps the bytes (the bundle's line batches) takes them without a
	 * copy.  Every reader (plain file, gzip, tar, folder, stdin, memory)
	 * delivers through the same loop (input.c, deliver). */
	void *(*room)(void *ctx, size_t *n);
};

struct input_stats {
	uint64_t bytes_in;   /* bytes read from disk/stdin */
	uint64_t bytes_out;  /* bytes delivered to the sink */
	size_t documents;
	size_t errors;       /* messages added */
	size_t cut;          /* places where input could not be read to its end: a damaged
	                        or cut archive or file, a read error, a cap reached (each
	                        also a message); 0 means every byte was read */
	uint64_t name_bytes; /* bytes of the document names given so far (the names budget,
	                        docs/hardening.md) */
	size_t names_cut;    /* names cut short because the budget was spent */
};

/* Statistics are added to *st (it is not cleared), so a caller that passes
 * the same input_stats for every operand of a bundle gets bundle totals, and
 * max_bundle_bytes applies to st->bytes_out over all of them.  st may be
 * NULL.  Names: see docs/inputs.md (a plain file gives its base name, a
 * folder paths relative to it, a top-level archive its member names, a
 * nested archive "outer/inner"; a gzip holding one document drops ".gz").
 *
 * Walk one operand.  display_root is the name used for the operand in
 * messages and as the root of document names ("ticket.tar.gz"); for a folder
 * the document names are relative to it.  Returns 0 when at least one
 * document was delivered or the operand was legitimately empty, -1 when the
 * operand could not be read at all (message added). */
int input_walk_path(const char *path, const struct limits *lim,
                    struct doc_sink *sink, struct msgs *m, struct input_stats *st);

/* Same for bytes already in memory (tests, fuzzers, verify's captured logs). */
int input_walk_memory(const char *name, const void *data, size_t len,
                      const struct limits *lim, struct doc_sink *sink,
                      struct msgs *m, struct input_stats *st);

#endif
