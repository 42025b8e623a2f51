/* input_dir.c - folders: walked recursively, entries sorted by name
 * (strcmp), symlinks followed unless they lead back to a folder on the
 * current path (compared by device and inode), FIFOs, sockets and devices
 * skipped with a message and never opened, unreadable entries reported and
 * passed over.  Document names are relative to the folder operand. */
#include "input_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct dirid {
	dev_t dev;
	ino_t ino;
};

struct dirwalk {
	struct walker *w;
	struct dirid *stack; /* folders on the current path */
	int depth, cap;
	int full; /* max_entries reached */
};

static const char *type_name(mode_t m)
{
	if (S_ISFIFO(m))
		return "fifo";
	if (S_ISSOCK(m))
		return "socket";
	if (S_ISCHR(m))
		return "character device";
	if (S_ISBLK(m))
		return "block device";
	return "special file";
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void walk_file(struct dirwalk *d, const char *path, const char *rel, const char *disp)
{
	struct walker *w = d->w;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		in_msg(w, "%s: cannot open: %s", disp, strerror(errno));
		return;
	}
	struct stat sb;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		/* it changed between stat and open */
		in_msg(w, "%s: not a regular file any more, skipped", disp);
		close(fd);
		return;
	}
	struct fd_stream f;
	fd_stream_init(&f, w, fd, disp);
	w->walk(w, &f.s, rel, rel, disp, 0, 0);
	close(fd);
}

/* Walks the folder at path (already known to be one, with identity id).
 * rel is its name relative to the operand ("" for the operand itself). */
static void walk_dir(struct dirwalk *d, const char *path, const char *rel, const char *disp,
                     struct dirid id)
{
	struct walker *w = d->w;
	DIR *dir = opendir(path);
	if (!dir) {
		in_msg(w, "%s: cannot open: %s", disp, strerror(errno));
		return;
	}
	struct strvec names = {0};
	struct dirent *de;
	errno = 0;
	while ((de = readdir(dir)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		strvec_push(&names, de->d_name);
		errno = 0;
		/* A folder with more entries than the cap allows for a whole
		 * bundle: keep enough names to reach the cap, not millions. */
		if (names.n > w->lim->max_entries)
			break;
	}
	if (errno)
		in_msg(w, "%s: cannot read folder: %s", disp, strerror(errno));
	closedir(dir);
	if (names.n > 1)
		qsort(names.v, names.n, sizeof *names.v, cmp_str);

	if (d->depth == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 16;
		d->stack = xrealloc(d->stack, (size_t)d->cap * sizeof *d->stack);
	}
	d->stack[d->depth++] = id;

	for (size_t i = 0; i < names.n && !w->stop && !d->full; i++) {
		const char *nm = names.v[i];
		char *cpath = xasprintf("%s/%s", path, nm);
		char *snm = str_sanitize(nm, strlen(nm));
		char *crel = in_join(rel, snm);
		char *cdisp = xasprintf("%s/%s", disp, snm);
		free(snm);
		if (++w->entries > w->lim->max_entries) {
			in_msg(w, "%s: more than %zu folder entries (--max-entries), the rest is skipped",
			       cdisp, w->lim->max_entries);
			d->full = 1;
			goto next;
		}
		struct stat lsb, sb;
		if (lstat(cpath, &lsb) < 0) {
			in_msg(w, "%s: cannot open: %s", cdisp, strerror(errno));
			goto next;
		}
		sb = lsb;
		if (S_ISLNK(lsb.st_mode) && stat(cpath, &sb) < 0) {
			in_msg(w, "%s: cannot open: %s", cdisp, strerror(errno));
			goto next;
		}
		if (S_ISDIR(sb.st_mode)) {
			int loop = 0;
			for (int k = 0; k < d->depth; k++)
				if (d->stack[k].dev == sb.st_dev && d->stack[k].ino == sb.st_ino)
					loop = 1;
			if (loop) {
				in_msg(w, "%s: %s back to a folder above it (a loop), skipped", cdisp,
				       S_ISLNK(lsb.st_mode) ? "symbolic link leads" : "folder leads");
			} else if (d->depth > w->lim->max_depth) {
				in_msg(w, "%s: folders nested deeper than %d (--max-depth), skipped",
				       cdisp, w->lim->max_depth);
			} else {
				struct dirid cid = {sb.st_dev, sb.st_ino};
				walk_dir(d, cpath, crel, cdisp, cid);
			}
		} else if (S_ISREG(sb.st_mode)) {
			walk_file(d, cpath, crel, cdisp);
		} else {
			in_msg(w, "%s: %s, skipped", cdisp, type_name(sb.st_mode));
		}
	next:
		free(cpath);
		free(crel);
		free(cdisp);
	}
	d->depth--;
	strvec_free(&names);
}

int in_walk_dir(struct walker *w, const char *path, const char *disp)
{
	struct stat sb;
	if (stat(path, &sb) < 0) {
		in_msg(w, "%s: cannot open: %s", disp, strerror(errno));
		return -1;
	}
	DIR *probe = opendir(path);
	if (!probe) {
		in_msg(w, "%s: cannot open: %s", disp, strerror(errno));
		return -1;
	}
	closedir(probe);
	struct dirwalk d = {.w = w};
	struct dirid id = {sb.st_dev, sb.st_ino};
	/* "dir/" and "dir" give the same names in messages */
	size_t n = strlen(disp);
	while (n > 1 && disp[n - 1] == '/')
		n--;
	char *root = xstrndup(disp, n);
	walk_dir(&d, path, "", root, id);
	free(root);
	free(d.stack);
	return 0;
}
