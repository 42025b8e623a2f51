/* input_stream.c - the pull streams every reader of the input layer uses
 * (see input_internal.h): messages, name joining, the stream core with its
 * pushback area, and streams over file descriptors.  Below the dispatcher
 * (input.c) and the readers (input_gzip.c, input_tar.c, input_dir.c): none
 * of them calls back into another except through walker.walk. */
#include "input_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void in_msg(struct walker *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	msgs_add(w->m, "%s", s);
	free(s);
	w->st->errors++;
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
	for (;;) {
		ssize_t r = read(f->fd, buf, n);
		if (r == 0 && f->expect > 0) {
			/* a regular file that ends before the size it had when it
			 * was opened was cut while being read (log rotation with
			 * copytruncate, an upload still being replaced) */
			off_t pos = lseek(f->fd, 0, SEEK_CUR);
			if (pos >= 0 && (uint64_t)pos < f->expect)
				in_msg(s->w, "%s: the file shrank while being read: it had %llu bytes when "
				       "opened, the end came after %llu", f->disp,
				       (unsigned long long)f->expect, (unsigned long long)pos);
			f->expect = 0;
		}
		if (r >= 0) {
			s->w->st->bytes_in += (uint64_t)r;
			return r;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			struct pollfd p = {.fd = f->fd, .events = POLLIN};
			poll(&p, 1, -1);
			continue;
		}
		in_msg(s->w, "%s: read: %s", f->disp, strerror(errno));
		return -1;
	}
}

static int64_t fd_skip(struct stream *s, uint64_t n)
{
	struct fd_stream *f = (struct fd_stream *)s;
	struct stat sb;
	off_t pos = lseek(f->fd, 0, SEEK_CUR);
	if (pos < 0 || fstat(f->fd, &sb) < 0) {
		in_msg(s->w, "%s: seek: %s", f->disp, strerror(errno));
		return -1;
	}
	uint64_t left = sb.st_size > pos ? (uint64_t)(sb.st_size - pos) : 0;
	if (n > left)
		n = left;
	if (lseek(f->fd, (off_t)n, SEEK_CUR) < 0) {
		in_msg(s->w, "%s: seek: %s", f->disp, strerror(errno));
		return -1;
	}
	return (int64_t)n;
}

void fd_stream_init(struct fd_stream *f, struct walker *w, int fd, const char *disp)
{
	st_init(&f->s, w);
	f->s.read = fd_read;
	f->fd = fd;
	f->disp = disp;
	f->expect = 0;
	struct stat sb;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && lseek(fd, 0, SEEK_CUR) >= 0) {
		f->s.skip = fd_skip;
		f->expect = sb.st_size > 0 ? (uint64_t)sb.st_size : 0;
	}
}

