/* credact.c - see credact.h. */
#include "collect/credact.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hash.h"
#include "report/redact.h"

struct redactor *credact_new(const char *const *hosts, const char *const *users)
{
	struct redactor *r = redactor_new();
	for (size_t i = 0; hosts && hosts[i]; i++)
		redact_learn_name(r, hosts[i], 0);
	for (size_t i = 0; users && users[i]; i++)
		redact_learn_name(r, users[i], 1);
	return r;
}

/* One line (a C string, no '\n'): learned (out NULL) or rewritten onto out. */
static void one_line(struct redactor *r, const char *s, struct buf *out)
{
	if (!out) {
		redact_learn_line(r, s);
		return;
	}
	char *x = redact_line(r, s);
	buf_adds(out, x);
	free(x);
}

size_t credact_piece(const char *p, size_t n, size_t max, int *nl)
{
	const char *e = memchr(p, '\n', n < max ? n : max);
	*nl = e != NULL;
	if (e)
		return (size_t)(e - p) + 1;
	if (n < max)
		return n;
	/* a name cut in two is not seen whole: cut where none can be */
	for (size_t i = max; i > max / 2; i--)
		if (p[i - 1] == ' ' || p[i - 1] == '\t')
			return i;
	return max;
}

/* The piece at p (credact_piece: a line, or a cut of one longer than
 * CREDACT_PIECE) as a C string, NUL bytes made '?': learned (out NULL) or
 * rewritten onto out.  p[avail] must be writable (a buf's terminator, the
 * stream buffer's spare byte).  Returns the bytes the piece took. */
static size_t one_piece(struct redactor *r, char *p, size_t avail, struct buf *out)
{
	int nl;
	size_t n = credact_piece(p, avail, CREDACT_PIECE, &nl), l = n - (size_t)nl;
	for (size_t i = 0; i < l; i++)
		if (p[i] == 0)
			p[i] = '?';
	char save = p[l];
	p[l] = 0;
	one_line(r, p, out);
	p[l] = save;
	if (out && nl)
		buf_addc(out, '\n');
	return n;
}

/* Each piece of b: the same cuts as a streamed file's */
static void each_line(struct buf *b, struct redactor *r, struct buf *out)
{
	for (size_t pos = 0; pos < b->len;)
		pos += one_piece(r, b->data + pos, b->len - pos, out);
}

void credact_learn_buf(struct redactor *r, struct buf *b)
{
	if (b->len)
		each_line(b, r, NULL);
}

void credact_rewrite_buf(struct redactor *r, struct buf *b)
{
	if (!b->len)
		return;
	struct buf out;
	buf_init(&out);
	each_line(b, r, &out);
	buf_free(b);
	*b = out;
}

void credact_learn_items(struct redactor *r, struct citems *c)
{
	for (size_t i = 0; i < c->n; i++)
		credact_learn_buf(r, &c->v[i].data);
}

void credact_rewrite_items(struct redactor *r, struct citems *c)
{
	for (size_t i = 0; i < c->n; i++)
		credact_rewrite_buf(r, &c->v[i].data);
}

/* Stream the file behind in (from offset 0) piece by piece: learned when
 * out < 0, else rewritten onto out.  The buffer holds two pieces, so a
 * whole piece is always in it when one is taken. */
static int stream(struct redactor *r, int in, int out)
{
	size_t cap = 2 * (size_t)CREDACT_PIECE;
	char *buf = xmalloc(cap + 1);
	size_t len = 0, pos = 0;
	off_t off = 0;
	int eof = 0, rc = 0;
	struct buf o;
	buf_init(&o);
	for (;;) {
		if (!eof && len - pos <= CREDACT_PIECE) {
			memmove(buf, buf + pos, len - pos);
			len -= pos;
			pos = 0;
			while (!eof && len < cap) {
				ssize_t k = pread(in, buf + len, cap - len, off);
				if (k < 0 && errno == EINTR)
					continue;
				if (k < 0) {
					rc = -1;
					break;
				}
				if (k == 0)
					eof = 1;
				len += (size_t)k;
				off += k;
			}
			if (rc < 0)
				break;
		}
		if (pos == len)
			break;
		/* buf has one byte more than cap: the piece's end is writable */
		pos += one_piece(r, buf + pos, len - pos, out >= 0 ? &o : NULL);
		if (out >= 0 && o.len >= CREDACT_PIECE) {
			if (fd_write_all(out, o.data, o.len, -1) < 0) {
				rc = -1;
				break;
			}
			buf_reset(&o);
		}
	}
	if (rc == 0 && out >= 0 && o.len && fd_write_all(out, o.data, o.len, -1) < 0)
		rc = -1;
	int e = errno;
	buf_free(&o);
	free(buf);
	errno = e;
	return rc;
}

int credact_learn_fd(struct redactor *r, int fd)
{
	return stream(r, fd, -1);
}

int credact_copy_fd(struct redactor *r, int in, int out)
{
	return stream(r, in, out);
}

void citems_redact(struct citems *c, const char *const *hosts, const char *const *users, char **host_pseudo)
{
	struct redactor *r = credact_new(hosts, users);
	credact_learn_items(r, c);
	credact_rewrite_items(r, c);
	if (host_pseudo)
		*host_pseudo = hosts && hosts[0] ? redact_line(r, hosts[0]) : NULL;
	redactor_free(r);
}

/* FNV-1a (base/hash.h) then a finaliser (MurmurHash3's fmix64), so that
 * every bit of the boot id moves every bit of the name. */
void credact_host_folder(const char *boot_id, const char *host, char out[18])
{
	uint64_t h = hash_bytes(HASH_SEED, boot_id, strlen(boot_id) + 1);
	h = hash_bytes(h, host, strlen(host));
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	snprintf(out, 18, "host-%012llx", (unsigned long long)(h >> 16));
}
