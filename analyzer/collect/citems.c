/* citems.c - see citems.h. */
#include "collect/citems.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/tarhdr.h"

struct citem *citems_add(struct citems *c, const char *name, const char *data, size_t len)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 32;
		c->v = xrealloc(c->v, c->cap * sizeof *c->v);
	}
	struct citem *it = &c->v[c->n++];
	it->name = xstrdup(name);
	buf_init(&it->data);
	buf_add(&it->data, data ? data : "", len);
	return it;
}

struct citem *citems_find(struct citems *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].name, name))
			return &c->v[i];
	return NULL;
}

void citems_free(struct citems *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].name);
		buf_free(&c->v[i].data);
	}
	free(c->v);
	memset(c, 0, sizeof *c);
}

/* ---- a folder ---- */

/* Open (creating) the folder name below dfd without following a link. */
static int sub_dir(int dfd, const char *name)
{
	if (mkdirat(dfd, name, 0755) < 0 && errno != EEXIST)
		return -1;
	return openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* One item: its folders, then the file, created new. */
static int write_item(int root, const struct citem *it, char **err, const char *dir)
{
	char *path = xstrdup(it->name);
	int dfd = dup(root), rc = -1;
	char *p = path, *slash;
	while (dfd >= 0 && (slash = strchr(p, '/'))) {
		*slash = 0;
		int nd = (*p && strcmp(p, ".") && strcmp(p, "..")) ? sub_dir(dfd, p) : -1;
		close(dfd);
		dfd = nd;
		p = slash + 1;
	}
	if (dfd < 0) {
		*err = xasprintf("%s/%s: cannot create its folder: %s", dir, it->name, strerror(errno));
		free(path);
		return -1;
	}
	int fd = openat(dfd, p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		*err = xasprintf("%s/%s: cannot create: %s", dir, it->name, strerror(errno));
	} else if (fd_write_all(fd, it->data.data ? it->data.data : "", it->data.len, -1) < 0) {
		*err = xasprintf("%s/%s: write: %s", dir, it->name, strerror(errno ? errno : EIO));
		close(fd);
	} else if (close(fd) < 0) {
		*err = xasprintf("%s/%s: close: %s", dir, it->name, strerror(errno));
	} else {
		rc = 0;
	}
	close(dfd);
	free(path);
	return rc;
}

int citems_write_dir(const struct citems *c, const char *dir, char **err)
{
	*err = NULL;
	struct stat st;
	if (lstat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
		*err = xasprintf("%s: exists and is not a folder", dir);
		return -1;
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		*err = xasprintf("%s: cannot create the folder: %s", dir, strerror(errno));
		return -1;
	}
	int root = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (root < 0) {
		*err = xasprintf("%s: cannot open the folder: %s", dir, strerror(errno));
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; i < c->n; i++) {
		char *e = NULL;
		if (write_item(root, &c->v[i], &e, dir) < 0) {
			if (!*err)
				*err = e; /* the first; the other items are still written */
			else
				free(e);
			rc = -1;
		}
	}
	close(root);
	return rc;
}

/* ---- a .tar.gz ---- */

static int gz_put(gzFile gz, const void *p, size_t n)
{
	while (n) {
		unsigned k = n > (1u << 30) ? (1u << 30) : (unsigned)n;
		if (gzwrite(gz, p, k) != (int)k)
			return -1;
		p = (const char *)p + k;
		n -= k;
	}
	return 0;
}

static int tar_put(gzFile gz, const char *name, char type, unsigned mode, const char *data, size_t len,
                   uint64_t mtime)
{
	unsigned char h[TAR_BLOCK];
	if (tar_header_make(h, name, type, mode, len, mtime) < 0 || gz_put(gz, h, TAR_BLOCK) < 0)
		return -1;
	if (len && gz_put(gz, data, len) < 0)
		return -1;
	static const unsigned char zero[TAR_BLOCK];
	size_t pad = (TAR_BLOCK - len % TAR_BLOCK) % TAR_BLOCK;
	return pad ? gz_put(gz, zero, pad) : 0;
}

/* Folder entries for every folder of name not listed yet (seen). */
static int tar_dirs(gzFile gz, const char *name, struct strvec *seen, uint64_t mtime)
{
	for (const char *s = strchr(name, '/'); s; s = strchr(s + 1, '/')) {
		char *d = xasprintf("%.*s/", (int)(s - name), name);
		int rc = 0;
		if (!strvec_contains(seen, d)) {
			strvec_push(seen, d);
			rc = tar_put(gz, d, '5', 0755, NULL, 0, mtime);
		}
		free(d);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int citems_write_tgz(const struct citems *c, const char *path, const char *prefix, uint64_t mtime, char **err)
{
	*err = NULL;
	int to_stdout = !strcmp(path, "-");
	char *tmp = xasprintf("%s.tmp.XXXXXX", path);
	int fd = to_stdout ? dup(1) : mkstemp(tmp);
	if (fd < 0) {
		*err = xasprintf("%s: cannot create: %s", path, strerror(errno));
		free(tmp);
		return -1;
	}
	if (!to_stdout)
		fchmod(fd, 0644);
	gzFile gz = gzdopen(fd, "wb6");
	int rc = gz ? 0 : -1;
	struct strvec seen = {0};
	for (size_t i = 0; rc == 0 && i < c->n; i++) {
		char *name = *prefix ? xasprintf("%s/%s", prefix, c->v[i].name) : xstrdup(c->v[i].name);
		if (tar_dirs(gz, name, &seen, mtime) < 0 ||
		    tar_put(gz, name, '0', 0644, c->v[i].data.data, c->v[i].data.len, mtime) < 0)
			rc = -1;
		free(name);
	}
	static const unsigned char zero[2 * TAR_BLOCK];
	if (rc == 0 && gz_put(gz, zero, sizeof zero) < 0)
		rc = -1;
	int e = errno;
	if (gz && gzclose(gz) != Z_OK && rc == 0) {
		rc = -1;
		e = errno ? errno : EIO;
	} else if (!gz) {
		close(fd);
	}
	if (rc == 0 && !to_stdout && rename(tmp, path) < 0) {
		rc = -1;
		e = errno;
	}
	if (rc < 0) {
		*err = xasprintf("%s: write: %s", to_stdout ? "standard output" : path, strerror(e ? e : EIO));
		if (!to_stdout)
			unlink(tmp);
	}
	strvec_free(&seen);
	free(tmp);
	return rc;
}
