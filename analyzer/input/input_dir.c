/* input_dir.c - folders: walked recursively, entries sorted by name
 * (strcmp).  Only regular files and folders are read.  Symbolic links are
 * followed when they lead to a place inside the operand's own tree (and
 * not back to a folder on the current path: a loop); a link that leaves the
 * tree (`ln -s /proc/self/environ env.txt`, `ln -s ~/.aws creds`) is skipped
 * with a message unless limits.follow_symlinks.  FIFOs, sockets, devices and
 * files of kernel pseudo file systems (/proc, /sys) are skipped with a
 * message and never read, so the walk cannot block on them or read this
 * machine's secrets.  Unreadable entries are reported and passed over.
 * Document names are relative to the folder operand. */
#include "input/input_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include <sys/stat.h>
#include <unistd.h>

struct dirid {
	dev_t dev;
	ino_t ino;
};

/* A regular file already read in this walk: a hard link or a link inside
 * the folder to it is not read again, and its names are listed. */
#define SAME_NAMES 8
struct fileid {
	dev_t dev;
	ino_t ino;
	char *name;          /* display name of the one read; NULL until another name shows up
	                        for a file with one link reached without a link (then: realpath) */
	size_t nother;       /* other names seen */
	char *other[SAME_NAMES];
};

struct dirwalk {
	struct walker *w;
	struct dirid *stack; /* folders on the current path */
	int depth, cap;
	int full;            /* max_entries reached */
	char *root;          /* the operand's real path ("/" included), NULL if unknown */
	size_t rootlen;
	const char *rootdisp; /* the operand's display name */
	struct fileid *files; /* regular files read */
	size_t nfiles, capfiles;
	struct hindex fix;
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

/* 1 when the link at path resolves to the operand's tree (the root itself
 * or below it). */
static int inside_tree(const struct dirwalk *d, const char *path)
{
	if (!d->root)
		return 0;
	char *real = realpath(path, NULL);
	if (!real)
		return 0;
	int in = strncmp(real, d->root, d->rootlen) == 0 &&
	         (real[d->rootlen] == 0 || real[d->rootlen] == '/' || (d->rootlen == 1 && d->root[0] == '/'));
	free(real);
	return in;
}

static uint64_t fileid_hash(dev_t dev, ino_t ino)
{
	uint64_t k[2] = {(uint64_t)dev, (uint64_t)ino};
	uint64_t h = hash_bytes(HASH_SEED, k, sizeof k);
	return h ^ (h >> 29);
}

static int fileid_hash_at(const void *ctx, size_t i, uint64_t *h)
{
	const struct dirwalk *d = ctx;
	*h = fileid_hash(d->files[i].dev, d->files[i].ino);
	return 1;
}

/* A display name kept for a message: cut like a document name's head. */
static char *short_name(const char *disp)
{
	size_t n = strlen(disp);
	return n > 256 ? xasprintf("%.*s...", (int)str_cut_at(disp, n, 256), disp) : xstrdup(disp);
}

/* 1 when the regular file sb was read already in this walk (its name
 * cdisp is then listed with it); else it is remembered, and 0. */
static int seen_file(struct dirwalk *d, const struct stat *sb, const char *cpath, const char *cdisp, int link)
{
	uint64_t h = fileid_hash(sb->st_dev, sb->st_ino);
	if (d->fix.nslot)
		for (size_t s = hindex_first(&d->fix, h); d->fix.slot[s]; s = hindex_next(&d->fix, s)) {
			struct fileid *f = &d->files[d->fix.slot[s] - 1];
			if (f->dev != sb->st_dev || f->ino != sb->st_ino)
				continue;
			if (!f->name) {
				/* read under its own path: its place in the tree */
				char *real = realpath(cpath, NULL);
				f->name = real && d->root && strncmp(real, d->root, d->rootlen) == 0 && real[d->rootlen] == '/'
				          ? xasprintf("%s%s", d->rootdisp, real + d->rootlen) : xstrdup("an earlier document");
				free(real);
			}
			if (f->nother < SAME_NAMES)
				f->other[f->nother] = short_name(cdisp);
			f->nother++;
			return 1;
		}
	if (d->nfiles == d->capfiles) {
		d->capfiles = d->capfiles ? d->capfiles * 2 : 64;
		d->files = xrealloc(d->files, d->capfiles * sizeof *d->files);
	}
	struct fileid *f = &d->files[d->nfiles++];
	memset(f, 0, sizeof *f);
	f->dev = sb->st_dev;
	f->ino = sb->st_ino;
	if (sb->st_nlink > 1 || link)
		f->name = short_name(cdisp); /* another name of it may come */
	if (hindex_crowded(&d->fix, d->nfiles))
		hindex_grow(&d->fix, d->nfiles, fileid_hash_at, d);
	else
		hindex_put(&d->fix, h, d->nfiles - 1);
	return 0;
}

/* One message per file read under several names, then the set freed. */
static void same_files_done(struct dirwalk *d)
{
	for (size_t i = 0; i < d->nfiles; i++) {
		struct fileid *f = &d->files[i];
		if (f->nother) {
			struct buf b;
			buf_init(&b);
			for (size_t k = 0; k < f->nother && k < SAME_NAMES; k++)
				buf_printf(&b, "%s%s", k ? ", " : "", f->other[k]);
			if (f->nother > SAME_NAMES)
				buf_printf(&b, ", ... (%zu other names)", f->nother);
			in_msg(d->w, "%s: the same file (a hard link or a link inside the folder) is also %s: read once, under this name", f->name,
			       b.data);
			buf_free(&b);
		}
		free(f->name);
		for (size_t k = 0; k < f->nother && k < SAME_NAMES; k++)
			free(f->other[k]);
	}
	free(d->files);
	hindex_free(&d->fix);
}

/* want: the identity found by stat before the open; the open file must be
 * it (a link swapped in between is not followed). */
static void walk_file(struct dirwalk *d, const char *path, const char *rel, const char *disp,
                      int is_link, const struct stat *want)
{
	struct walker *w = d->w;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (is_link ? 0 : O_NOFOLLOW));
	if (fd < 0) {
		in_cut(w, "%s: cannot open: %s", disp, strerror(errno));
		return;
	}
	struct stat sb;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_dev != want->st_dev || sb.st_ino != want->st_ino) {
		/* it changed between stat and open */
		in_msg(w, "%s: not the regular file it was a moment ago, skipped", disp);
		close(fd);
		return;
	}
	const char *why = in_unreadable_kind(fd);
	if (why) {
		in_msg(w, "%s: a file of the kernel's pseudo file system %s, skipped", disp, why);
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
                     struct dirid id, int is_link)
{
	struct walker *w = d->w;
	int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK | (is_link ? 0 : O_NOFOLLOW));
	struct stat sb;
	DIR *dir = NULL;
	if (dfd >= 0 && fstat(dfd, &sb) == 0 && sb.st_dev == id.dev && sb.st_ino == id.ino)
		dir = fdopendir(dfd);
	else if (dfd >= 0)
		errno = ESTALE; /* not the folder stat saw: swapped in between */
	if (!dir) {
		in_cut(w, "%s: cannot open: %s", disp, strerror(errno));
		if (dfd >= 0)
			close(dfd);
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
		in_cut(w, "%s: cannot read folder: %s", disp, strerror(errno));
	closedir(dir);
	if (names.n > 1)
		xqsort(names.v, names.n, sizeof *names.v, cmp_str);

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
			in_cut(w, "%s: more than %zu folder entries (--max-entries), the rest is skipped",
			       cdisp, w->lim->max_entries);
			d->full = 1;
			goto next;
		}
		struct stat lsb, esb;
		if (lstat(cpath, &lsb) < 0) {
			in_cut(w, "%s: cannot open: %s", cdisp, strerror(errno));
			goto next;
		}
		esb = lsb;
		int link = S_ISLNK(lsb.st_mode);
		if (link && !w->lim->follow_symlinks && !inside_tree(d, cpath)) {
			if (stat(cpath, &esb) < 0)
				in_msg(w, "%s: cannot open: %s", cdisp, strerror(errno));
			else
				in_msg(w, "%s: symbolic link that leads outside the folder, not followed "
				       "(--follow-symlinks follows it)", cdisp);
			goto next;
		}
		if (link && stat(cpath, &esb) < 0) {
			in_msg(w, "%s: cannot open: %s", cdisp, strerror(errno));
			goto next;
		}
		if (S_ISDIR(esb.st_mode)) {
			int loop = 0;
			for (int k = 0; k < d->depth; k++)
				if (d->stack[k].dev == esb.st_dev && d->stack[k].ino == esb.st_ino)
					loop = 1;
			if (loop) {
				in_msg(w, "%s: %s back to a folder above it (a loop), skipped", cdisp,
				       link ? "symbolic link leads" : "folder leads");
			} else if (d->depth > w->lim->max_depth) {
				in_cut(w, "%s: folders nested deeper than %d (--max-depth), skipped",
				       cdisp, w->lim->max_depth);
			} else {
				struct dirid cid = {esb.st_dev, esb.st_ino};
				walk_dir(d, cpath, crel, cdisp, cid, link);
			}
		} else if (S_ISREG(esb.st_mode)) {
			if (!seen_file(d, &esb, cpath, cdisp, link))
				walk_file(d, cpath, crel, cdisp, link, &esb);
		} else {
			in_msg(w, "%s: %s, skipped", cdisp, type_name(esb.st_mode));
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
	/* the operand itself may be a link (the user named it): its target
	 * is the tree that links may lead into */
	d.root = realpath(path, NULL);
	d.rootlen = d.root ? strlen(d.root) : 0;
	struct dirid id = {sb.st_dev, sb.st_ino};
	/* "dir/" and "dir" give the same names in messages */
	size_t n = strlen(disp);
	while (n > 1 && disp[n - 1] == '/')
		n--;
	char *root = xstrndup(disp, n);
	d.rootdisp = root;
	walk_dir(&d, path, "", root, id, 1);
	same_files_done(&d);
	free(root);
	free(d.root);
	free(d.stack);
	return 0;
}
