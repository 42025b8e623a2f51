/* input_internal.h - private to the input layer (input*.c): the pull-stream
 * abstraction and the walker context shared by the gzip, tar and folder
 * readers.  Nothing here is part of the public interface (see input.h).
 *
 * A stream hands out bytes on request: st_read() fills the caller's buffer
 * (no intermediate copies), st_sniff() reads the first bytes into the
 * stream's pushback area so they can be inspected and are then delivered
 * again by st_read().  Errors are sticky: once a stream has failed (and added
 * its message), every later read returns -1. */
#ifndef NT_INPUT_INTERNAL_H
#define NT_INPUT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "base/hash.h"
#include "input/input.h"

#define IN_BUFSZ (256u * 1024u) /* read(2), inflate input and document chunks */
#define IN_SNIFF 512u           /* bytes inspected to recognise the content */
#define IN_RATIO_AFTER (16ull << 20) /* the ratio check starts after this much output */
#define IN_NAME_MAX 4096u            /* bytes of a document name that are kept */
/* Once the names of a bundle's documents total IN_NAMES_MAX bytes, a name
 * keeps at most IN_NAME_SHORT (its head, "...", its tail): every name is
 * copied into evidence, timelines and the report, so their sum bounds a
 * share of the memory (a tar of 100000 members with 4000-byte names). */
#define IN_NAMES_MAX (1u << 20)
#define IN_NAME_SHORT 128u

struct walker;

struct stream {
	/* Raw read: >0 bytes, 0 at the end, -1 on error (message already added). */
	ssize_t (*read)(struct stream *s, void *buf, size_t n);
	/* Optional fast skip: bytes skipped (< n at the end) or -1. */
	int64_t (*skip)(struct stream *s, uint64_t n);
	unsigned char pb[IN_SNIFF]; /* pushback: first bytes, after st_sniff */
	size_t pb_off, pb_len;
	int err; /* sticky: a read failed */
	int eof; /* the raw read returned 0 */
	struct walker *w;
};

struct walker {
	/* The walk of one stream whose kind is found from its first bytes
	 * (input.c); readers call it for what an archive or folder holds.
	 *   leaf   - the document name if the stream turns out to be a document
	 *   prefix - what archive member names are joined to ("" at the top)
	 *   disp   - the name used in messages
	 *   nest   - archives already open around this stream
	 *   via_gz - the stream is the direct output of a gzip layer (a tar inside
	 *            it does not count as one more nesting level: .tar.gz is one) */
	void (*walk)(struct walker *w, struct stream *s, const char *leaf, const char *prefix,
	             const char *disp, int nest, int via_gz);
	const struct limits *lim;
	struct doc_sink *sink;
	struct msgs *m;
	struct input_stats *st;
	unsigned char *buf; /* IN_BUFSZ: document chunks, discard area for skips */
	size_t entries;     /* folder entries seen (max_entries) */
	int stop;           /* bundle cap reached: unwind everything */
	/* a gzip layer holding a single document: its name with ".gz", given
	 * to the document instead when the name without is taken */
	const char *gz_inner, *gz_outer;
	/* names taken already and the last " (N)" given to each (input.c):
	 * a tar of 100000 members of one name costs one lookup each */
	struct dupname { char *name; unsigned k; } *dup;
	size_t ndup, capdup;
	struct hindex dupix;
};

/* Appends one message and counts it in st->errors. */
void in_msg(struct walker *w, const char *fmt, ...) NT_PRINTF(2, 3);
/* The same for input that could not be read to its end (damage, a cap, a
 * read error): also counted in st->cut. */
void in_cut(struct walker *w, const char *fmt, ...) NT_PRINTF(2, 3);

void st_init(struct stream *s, struct walker *w);
ssize_t st_read(struct stream *s, void *buf, size_t n);
/* Reads until n bytes or the end; returns the count, *err set on error. */
size_t st_read_full(struct stream *s, void *buf, size_t n, int *err);
/* Skips n bytes; returns the number skipped (< n at the end) or -1. */
int64_t st_skip(struct stream *s, uint64_t n);
/* Fills the pushback area with up to IN_SNIFF bytes; returns their count.
 * *err is set when the stream failed (the bytes read so far stay). */
size_t st_sniff(struct stream *s, int *err);

/* A stream over a file descriptor (not closed by the stream). */
struct fd_stream {
	struct stream s;
	int fd;
	const char *disp;
	int seekable;
	int regular;     /* a regular file: read only up to the size it had when opened */
	uint64_t size;   /* that size */
	uint64_t pos;    /* bytes read or skipped so far */
};
void fd_stream_init(struct fd_stream *f, struct walker *w, int fd, const char *disp);
/* Why an open file must not be read: a FIFO, socket or device, or a file of a
 * kernel pseudo file system (/proc, /sys...) whose reads may block or never
 * end; NULL for a regular file on a real file system. */
const char *in_unreadable_kind(int fd);

/* gzip layer (input_gzip.c): walks the decompressed content of s. */
void in_walk_gzip(struct walker *w, struct stream *s, const char *leaf, const char *prefix,
                  const char *disp, int nest);

/* Which inflater decodes the deflate data of gzip members from now on
 * (process-wide, before any walk; for the test that compares them):
 * DEFAULT is ISA-L when the build has it (NT_HAVE_ISAL), zlib otherwise.
 * Returns 0 when ISAL was asked of a build without it (zlib is used). */
enum gz_inflater { GZ_INFLATE_DEFAULT, GZ_INFLATE_ZLIB, GZ_INFLATE_ISAL };
int in_gzip_set_inflater(enum gz_inflater which);
/* "isa-l" or "zlib": the one in use. */
const char *in_gzip_inflater(void);

/* tar archive (input_tar.c): s starts with a valid header. */
void in_walk_tar(struct walker *w, struct stream *s, const char *prefix, const char *disp,
                 int nest);

/* folder (input_dir.c): walks path recursively; returns -1 if the folder
 * itself cannot be opened. */
int in_walk_dir(struct walker *w, const char *path, const char *disp);

/* "a" + "/" + "b", or just "b" when a is empty.  Caller frees. */
char *in_join(const char *a, const char *b);

#endif
