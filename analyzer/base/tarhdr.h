/* tarhdr.h - the 512-byte tar header: fields, checksum, the test whether a
 * block is a header.  Used by the tar reader (input_tar.c) and by batch,
 * which checks that a .tar operand is one before it queues it. */
#ifndef NT_TARHDR_H
#define NT_TARHDR_H

#include <stddef.h>
#include <stdint.h>

#define TAR_BLOCK 512

/* Octal field: leading spaces, digits, then only NULs and spaces (all blank
 * is 0); 0 and *v, or -1. */
int tar_oct_field(const unsigned char *p, size_t n, uint64_t *v);
/* Numeric field: octal, or GNU base-256 (high bit of the first byte). */
int tar_num_field(const unsigned char *p, size_t n, uint64_t *v);
/* The checksum field matches the header (unsigned or signed sum). */
int tar_checksum_ok(const unsigned char h[TAR_BLOCK]);
int tar_is_ustar(const unsigned char h[TAR_BLOCK]);  /* ustar, GNU or POSIX magic */
int tar_is_posix(const unsigned char h[TAR_BLOCK]);  /* POSIX "ustar\0" */
int tar_zero_block(const unsigned char h[TAR_BLOCK]);
/* The ustar magic where a first header has it (n bytes at h, n >= 263):
 * a tar archive even when that header's checksum fails or it is cut. */
int tar_has_magic(const unsigned char *h, size_t n);
/* A header: checksum right, and ustar magic or (v7) sane fields. */
int tar_header_valid(const unsigned char h[TAR_BLOCK]);
/* Build a POSIX ustar header (the writer of `collect`): type '0' (file)
 * or '5' (folder), mode, size (< 8 GiB), mtime, owner 0/0 without names;
 * a name of more than 100 bytes is split at a '/' into prefix (155) and
 * name (100).  0, or -1 when the name cannot be stored that way. */
int tar_header_make(unsigned char h[TAR_BLOCK], const char *name, char type, unsigned mode, uint64_t size,
                    uint64_t mtime);

#endif
