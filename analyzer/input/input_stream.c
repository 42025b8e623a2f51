/* input_stream.c - the pull streams every reader of the input layer uses
 * (see input_internal.h): messages, name joining, the stream core with its
 * pushback area, and streams over file descriptors.  Below the dispatcher
 * (input.c) and the readers (input_gzip.c, input_tar.c, input_dir.c): none
 * of them calls back into another except through walker.walk. */
#include "input/input_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/vfs.h>
#endif
#include <unistd.h>

/* One input error into the walker's messages and counts. */
static void in_vmsg(struct walker *w, const char *fmt, va_list ap)
{
	char *s = xvasprintf(fmt, ap);
	msgs_add(w->m, "%s", s);
	free(s);
	w->st->errors++;
}

void in_msg(struct walker *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	in_vmsg(w, fmt, ap);
	va_end(ap);
}

void in_cut(struct walker *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	in_vmsg(w, fmt, ap);
	va_end(ap);
	w->st->cut++;
}

char *in_join(const char *a, const char *b)
{
	if (!a || !*a)
		return xstrdup(b);
	return xasprintf("%s/%s", a, b);
}

/* ---- stream core ---------------------------------------------------------- */

void st_init(struct stream *s, struct walker *w)
{
	memset(s, 0, sizeof *s);
	s->w = w;
}

ssize_t st_read(struct stream *s, void *buf, size_t n)
{
	if (n == 0)
		return 0;
	if (s->pb_off < s->pb_len) {
		size_t k = s->pb_len - s->pb_off;
		if (k > n)
			k = n;
		memcpy(buf, s->pb + s->pb_off, k);
		s->pb_off += k;
		return (ssize_t)k;
	}
	if (s->err)
		return -1;
	if (s->eof)
		return 0;
	ssize_t r = s->read(s, buf, n);
	if (r < 0)
		s->err = 1;
	else if (r == 0)
		s->eof = 1;
	return r;
}

size_t st_read_full(struct stream *s, void *buf, size_t n, int *err)
{
	size_t got = 0;
	*err = 0;
	while (got < n) {
		ssize_t r = st_read(s, (char *)buf + got, n - got);
		if (r < 0) {
			*err = 1;
			break;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return got;
}

int64_t st_skip(struct stream *s, uint64_t n)
{
	uint64_t done = 0;
	if (s->pb_off < s->pb_len) {
		size_t k = s->pb_len - s->pb_off;
		if (k > n)
			k = (size_t)n;
		s->pb_off += k;
		done += k;
	}
	if (done == n)
		return (int64_t)done;
	if (s->err)
		return -1;
	if (s->eof)
		return (int64_t)done;
	if (s->skip) {
		int64_t r = s->skip(s, n - done);
		if (r < 0) {
			s->err = 1;
			return -1;
		}
		if ((uint64_t)r < n - done)
			s->eof = 1;
		return (int64_t)(done + (uint64_t)r);
	}
	while (done < n) {
		uint64_t want = n - done;
		if (want > IN_BUFSZ)
			want = IN_BUFSZ;
		ssize_t r = st_read(s, s->w->buf, (size_t)want);
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		done += (uint64_t)r;
	}
	return (int64_t)done;
}

size_t st_sniff(struct stream *s, int *err)
{
	/* Only called on a fresh stream: the pushback area is empty. */
	size_t got = 0;
	*err = 0;
	while (got < IN_SNIFF && !s->eof && !s->err) {
		ssize_t r = s->read(s, s->pb + got, IN_SNIFF - got);
		if (r < 0) {
			s->err = 1;
			*err = 1;
		} else if (r == 0) {
			s->eof = 1;
		} else {
			got += (size_t)r;
		}
	}
	s->pb_off = 0;
	s->pb_len = got;
	return got;
}

/* ---- file descriptor stream ------------------------------------------------ */

static ssize_t fd_read(struct stream *s, void *buf, size_t n)
{
	struct fd_stream *f = (struct fd_stream *)s;
	if (f->regular) {
		/* a file that grows while it is read (a live log, /proc-like
		 * content) is read up to the size it had when it was opened: the
		 * read ends, and the rest is named */
		if (f->pos >= f->size) {
			char c;
			if (f->size > 0 && pread(f->fd, &c, 1, (off_t)f->size) == 1)
				in_cut(s->w, "%s: the file grew while being read: only the %llu bytes it had when "
				       "opened were read", f->disp, (unsigned long long)f->size);
			return 0;
		}
		if (n > f->size - f->pos)
			n = (size_t)(f->size - f->pos);
	}
	for (;;) {
		ssize_t r = read(f->fd, buf, n);
		if (r == 0 && f->regular && f->pos < f->size) {
			/* a regular file that ends before the size it had when it
			 * was opened was cut while being read (log rotation with
			 * copytruncate, an upload still being replaced) */
			in_cut(s->w, "%s: the file shrank while being read: it had %llu bytes when "
			       "opened, the end came after %llu", f->disp,
			       (unsigned long long)f->size, (unsigned long long)f->pos);
			f->size = f->pos;
		}
		if (r >= 0) {
			s->w->st->bytes_in += (uint64_t)r;
			f->pos += (uint64_t)r;
			return r;
		}
		if (errno == EINTR)
			continue;
		if ((errno == EAGAIN || errno == EWOULDBLOCK) && !f->regular) {
			/* standard input in non-blocking mode: wait for it (the
			 * user asked for it) */
			struct pollfd p = {.fd = f->fd, .events = POLLIN};
			poll(&p, 1, -1);
			continue;
		}
		in_cut(s->w, "%s: read: %s", f->disp, strerror(errno));
		return -1;
	}
}

static int64_t fd_skip(struct stream *s, uint64_t n)
{
	struct fd_stream *f = (struct fd_stream *)s;
	uint64_t left = f->size > f->pos ? f->size - f->pos : 0;
	if (n > left)
		n = left;
	if (lseek(f->fd, (off_t)n, SEEK_CUR) < 0) {
		in_cut(s->w, "%s: seek: %s", f->disp, strerror(errno));
		return -1;
	}
	f->pos += n;
	return (int64_t)n;
}

void fd_stream_init(struct fd_stream *f, struct walker *w, int fd, const char *disp)
{
	st_init(&f->s, w);
	f->s.read = fd_read;
	f->fd = fd;
	f->disp = disp;
	f->regular = 0;
	f->size = f->pos = 0;
	struct stat sb;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
		off_t at = lseek(fd, 0, SEEK_CUR);
		f->regular = 1;
		f->pos = at > 0 ? (uint64_t)at : 0; /* stdin may be a file read partly already */
		f->size = sb.st_size > 0 ? (uint64_t)sb.st_size : 0;
		if (f->size < f->pos)
			f->size = f->pos;
		if (at >= 0)
			f->s.skip = fd_skip;
	}
}

const char *in_unreadable_kind(int fd)
{
	struct stat sb;
	if (fstat(fd, &sb) != 0)
		return NULL; /* the read will say why */
	if (S_ISFIFO(sb.st_mode))
		return "fifo";
	if (S_ISSOCK(sb.st_mode))
		return "socket";
	if (S_ISCHR(sb.st_mode))
		return "character device";
	if (S_ISBLK(sb.st_mode))
		return "block device";
	if (S_ISDIR(sb.st_mode))
		return "folder";
	if (!S_ISREG(sb.st_mode))
		return "special file";
#ifdef __linux__
	/* files whose content the kernel makes up when they are read: their
	 * size says nothing, a read may block (/proc/kmsg) or hold secrets of
	 * this machine (/proc/self/environ) */
	struct statfs fs;
	if (fstatfs(fd, &fs) == 0) {
		static const struct {
			unsigned long magic;
			const char *name;
		} pseudo[] = {
			{0x9fa0, "proc"}, {0x62656572, "sysfs"}, {0x64626720, "debugfs"}, {0x73636673, "securityfs"},
			{0x74726163, "tracefs"}, {0x27e0eb, "cgroup"}, {0x63677270, "cgroup2"}, {0x62656570, "configfs"},
			{0x1cd1, "devpts"}, {0xcafe4a11, "bpf"}, {0x6165676c, "pstore"}, {0xde5e81e4, "efivarfs"},
			{0x65735543, "fusectl"}, {0xf97cff8c, "selinuxfs"}, {0x42494e4d, "binfmt_misc"},
		};
		for (size_t i = 0; i < sizeof pseudo / sizeof *pseudo; i++)
			if ((unsigned long)fs.f_type == pseudo[i].magic)
				return pseudo[i].name;
	}
#endif
	return NULL;
}
