/* citems.h - the files of a collected bundle, held in memory until they are
 * written: to a folder (collect -d, run's bundle) or to a ustar archive
 * compressed with gzip (collect -o).  Nothing is written anywhere else: a
 * folder's files are created inside it only (never through a symbolic
 * link), an archive is written beside its final name and renamed over it
 * once complete.  --redact rewrites the files' text before they are
 * written (credact.h).  The items own their names and data. */
#ifndef NT_CITEMS_H
#define NT_CITEMS_H

#include <stddef.h>
#include <stdint.h>
#include "base/util.h"

struct citem {
	char *name;      /* relative path: "sys/nvidia-smi.txt" */
	struct buf data;
};

struct citems {
	struct citem *v;
	size_t n, cap;
};

/* Append a copy of data[0..len) under name.  Returns the item (borrowed). */
struct citem *citems_add(struct citems *c, const char *name, const char *data, size_t len);
struct citem *citems_find(struct citems *c, const char *name);
void citems_free(struct citems *c);

/* Write every item under dir (created when missing, 0755; sub-folders
 * too), each file created new (O_EXCL: an existing file is an error, not
 * overwritten).  0, or -1 with a message in *err (caller frees). */
int citems_write_dir(const struct citems *c, const char *dir, char **err);
/* Write a .tar.gz at path ("-": standard output) whose members are prefix/NAME (prefix "" or
 * "host-1"), mtime the member time; written to a temporary file beside path
 * and renamed over it.  0, or -1 with *err. */
int citems_write_tgz(const struct citems *c, const char *path, const char *prefix, uint64_t mtime, char **err);

/* --redact: collect/credact.h. */

#endif
