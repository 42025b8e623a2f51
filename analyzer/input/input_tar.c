/* input_tar.c - tar archives read as a stream: ustar, pax ('x' path/size,
 * 'g' ignored), GNU long names ('L', 'K') and base-256 sizes, v7.  Each
 * regular member is walked again (it may be gzip or tar itself) through a
 * member stream bounded by its size.  Corrupt headers are reported with
 * their byte offset and the reader resynchronises on the next valid header;
 * a member cut short by the end of the archive is delivered as far as it
 * goes.  Member names are only ever used as names, never as paths. */
#include "input/input_internal.h"
#include "base/tarhdr.h"

#include <stdlib.h>
#include <string.h>

#define TAR_META_MAX (1u << 20) /* pax / GNU long name data read into memory */

/* Tidy a member name: no leading "/" or "./", no empty components, no
 * trailing "/"; control characters become '?'.  Caller frees. */
static char *tidy_name(const char *raw, size_t n)
{
	struct buf b;
	buf_init(&b);
	size_t i = 0;
	while (i < n) {
		while (i < n && raw[i] == '/')
			i++;
		size_t j = i;
		while (j < n && raw[j] != '/')
			j++;
		if (j > i && !(j - i == 1 && raw[i] == '.')) {
			if (b.len)
				buf_addc(&b, '/');
			buf_add(&b, raw + i, j - i);
		}
		i = j;
	}
	char *s = str_sanitize(b.data ? b.data : "", b.len);
	buf_free(&b);
	return s;
}

/* ---- member stream ---------------------------------------------------------- */

struct member_stream {
	struct stream s;
	struct stream *parent;
	uint64_t left, size;
	const char *arch_disp, *name;
	uint64_t hdr_off;
	int truncated; /* the archive ended inside this member */
};

static void member_truncated(struct member_stream *ms)
{
	ms->truncated = 1;
	in_cut(ms->s.w, "%s: byte %llu: truncated: member %s declares %llu bytes, archive ends after %llu",
	       ms->arch_disp, (unsigned long long)ms->hdr_off, ms->name,
	       (unsigned long long)ms->size, (unsigned long long)(ms->size - ms->left));
}

static ssize_t member_read(struct stream *s, void *buf, size_t n)
{
	struct member_stream *ms = (struct member_stream *)s;
	if (ms->left == 0)
		return 0;
	if (n > ms->left)
		n = (size_t)ms->left;
	ssize_t r = st_read(ms->parent, buf, n);
	if (r < 0) {
		ms->truncated = 1;
		return -1;
	}
	if (r == 0) {
		member_truncated(ms);
		return -1;
	}
	ms->left -= (uint64_t)r;
	return r;
}

static int64_t member_skip(struct stream *s, uint64_t n)
{
	struct member_stream *ms = (struct member_stream *)s;
	if (n > ms->left)
		n = ms->left;
	int64_t r = st_skip(ms->parent, n);
	if (r < 0) {
		ms->truncated = 1;
		return -1;
	}
	ms->left -= (uint64_t)r;
	if ((uint64_t)r < n) {
		member_truncated(ms);
		return -1;
	}
	return r;
}

/* ---- the archive -------------------------------------------------------------- */

struct tar {
	struct walker *w;
	struct stream *s;
	const char *prefix, *disp;
	int nest;
	uint64_t off; /* bytes of the archive consumed */
	int ended;    /* end of input or a read error */
	/* pending metadata for the next header */
	char *longname;
	char *paxpath;
	int paxsize_set, paxsparse;
	uint64_t paxsize;
};

/* Reads one 512-byte block.  1: got it, 0: end of the archive (clean, or a
 * partial block reported), -1: read error. */
static int read_block(struct tar *t, unsigned char *h)
{
	int err;
	size_t n = st_read_full(t->s, h, 512, &err);
	if (err) {
		t->ended = 1;
		return -1;
	}
	if (n == 0) {
		t->ended = 1;
		return 0;
	}
	if (n < 512) {
		in_cut(t->w, "%s: byte %llu: archive ends inside a tar header (%zu of 512 bytes)",
		       t->disp, (unsigned long long)t->off, n);
		t->off += n;
		t->ended = 1;
		return 0;
	}
	t->off += 512;
	return 1;
}

/* Skips n bytes of member data plus the padding to the next block.
 * Returns 0, or -1 when the archive ended (reported) or failed. */
static int skip_data(struct tar *t, uint64_t n, uint64_t hdr_off, const char *name)
{
	uint64_t pad = (512 - (n & 511)) & 511;
	int64_t r = st_skip(t->s, n + pad);
	if (r < 0) {
		t->ended = 1;
		return -1;
	}
	t->off += (uint64_t)r;
	if ((uint64_t)r < n) {
		in_cut(t->w, "%s: byte %llu: truncated: member %s declares %llu bytes, archive ends after %llu",
		       t->disp, (unsigned long long)hdr_off, name, (unsigned long long)n,
		       (unsigned long long)r);
		t->ended = 1;
		return -1;
	}
	if ((uint64_t)r < n + pad) {
		t->ended = 1; /* ends inside the padding: nothing lost */
		return -1;
	}
	return 0;
}

/* Reads metadata (pax records, GNU long name) of n bytes into memory.
 * Returns a NUL-terminated copy or NULL (reported / skipped). */
static char *read_meta(struct tar *t, uint64_t n, uint64_t hdr_off, const char *what)
{
	if (n > TAR_META_MAX) {
		in_msg(t->w, "%s: byte %llu: %s of %llu bytes is too large, ignored", t->disp,
		       (unsigned long long)hdr_off, what, (unsigned long long)n);
		skip_data(t, n, hdr_off, what);
		return NULL;
	}
	char *p = xmalloc((size_t)n + 1);
	int err;
	size_t got = st_read_full(t->s, p, (size_t)n, &err);
	t->off += got;
	p[got] = 0;
	if (err || got < n) {
		if (!err)
			in_cut(t->w, "%s: byte %llu: truncated: %s declares %llu bytes, archive ends after %zu",
			       t->disp, (unsigned long long)hdr_off, what, (unsigned long long)n, got);
		t->ended = 1;
		free(p);
		return NULL;
	}
	uint64_t pad = (512 - (n & 511)) & 511;
	if (pad) {
		int64_t r = st_skip(t->s, pad);
		if (r < 0 || (uint64_t)r < pad)
			t->ended = 1;
		if (r > 0)
			t->off += (uint64_t)r;
	}
	return p;
}

/* pax records "LEN key=value\n". */
static void parse_pax(struct tar *t, const char *p, size_t n, uint64_t hdr_off)
{
	size_t i = 0;
	while (i < n) {
		size_t len = 0, j = i;
		while (j < n && p[j] >= '0' && p[j] <= '9' && len < n + 1)
			len = len * 10 + (size_t)(p[j++] - '0');
		if (j == i || j >= n || p[j] != ' ' || len <= j - i + 1 || len > n - i ||
		    p[i + len - 1] != '\n') {
			in_msg(t->w, "%s: byte %llu: malformed pax header record, rest of it ignored",
			       t->disp, (unsigned long long)hdr_off);
			return;
		}
		const char *kv = p + j + 1, *end = p + i + len - 1;
		const char *eq = memchr(kv, '=', (size_t)(end - kv));
		if (eq) {
			size_t kl = (size_t)(eq - kv);
			const char *v = eq + 1;
			size_t vl = (size_t)(end - v);
			if (kl == 4 && memcmp(kv, "path", 4) == 0) {
				free(t->paxpath);
				t->paxpath = xstrndup(v, vl);
			} else if (kl == 4 && memcmp(kv, "size", 4) == 0) {
				uint64_t x = 0;
				size_t q = 0;
				for (; q < vl && v[q] >= '0' && v[q] <= '9' && x < (UINT64_MAX / 10 - 9); q++)
					x = x * 10 + (uint64_t)(v[q] - '0');
				if (q == vl && vl > 0) {
					t->paxsize = x;
					t->paxsize_set = 1;
				}
			} else if (kl > 11 && memcmp(kv, "GNU.sparse.", 11) == 0) {
				t->paxsparse = 1;
			}
		}
		i += len;
	}
}

static void clear_pending(struct tar *t)
{
	free(t->longname);
	free(t->paxpath);
	t->longname = t->paxpath = NULL;
	t->paxsize_set = t->paxsparse = 0;
}

/* Finds the next valid header after a corrupt one at bad_off.  Returns 1
 * with it in h, or 0 when the archive ends first. */
static int resync(struct tar *t, unsigned char *h, uint64_t bad_off)
{
	for (;;) {
		int r = read_block(t, h);
		if (r <= 0) {
			if (r == 0)
				in_cut(t->w, "%s: byte %llu: corrupt tar header (bad checksum); no valid "
				       "header after it", t->disp, (unsigned long long)bad_off);
			return 0;
		}
		if (!tar_zero_block(h) && tar_header_valid(h)) {
			in_cut(t->w, "%s: byte %llu: corrupt tar header (bad checksum), skipped to the "
			       "next valid header at byte %llu", t->disp, (unsigned long long)bad_off,
			       (unsigned long long)(t->off - 512));
			return 1;
		}
	}
}

/* After the end-of-archive marker (two zero blocks): zero padding is the
 * normal end.  Another archive appended (cat a.tar b.tar) is read on, like
 * tar --ignore-zeros; anything else is reported with its offset and
 * skipped up to the next valid header, if any.  Returns 1 with that header
 * in h, 0 at the end. */
static int after_end(struct tar *t, unsigned char *h)
{
	uint64_t junk = 0, junk_off = 0;
	for (;;) {
		int err;
		uint64_t at = t->off;
		size_t n = st_read_full(t->s, h, 512, &err);
		t->off += n;
		if (err || n == 0)
			break;
		size_t k = 0;
		while (k < n && h[k] == 0)
			k++;
		if (k == n) {
			if (n < 512)
				break;
			continue;
		}
		if (n == 512 && tar_header_valid(h)) {
			if (junk)
				in_cut(t->w, "%s: byte %llu: %llu bytes of data after the end-of-archive "
				       "marker skipped up to a tar header at byte %llu", t->disp,
				       (unsigned long long)junk_off, (unsigned long long)junk,
				       (unsigned long long)at);
			return 1;
		}
		size_t last = n;
		while (last > k && h[last - 1] == 0)
			last--;
		if (!junk)
			junk_off = at + k;
		junk = at + last - junk_off; /* first to last non-zero byte */
	}
	if (junk)
		in_cut(t->w, "%s: byte %llu: %llu bytes of data after the end-of-archive marker ignored",
		       t->disp, (unsigned long long)junk_off, (unsigned long long)junk);
	t->ended = 1;
	return 0;
}

/* A corrupt header at HOFF: 0 with the next valid one in H (*HAVE set, the
 * pending metadata dropped), -1 when the archive ends first. */
static int skip_corrupt(struct tar *t, unsigned char *h, uint64_t hoff, int *have)
{
	if (!resync(t, h, hoff))
		return -1;
	clear_pending(t);
	*have = 1;
	return 0;
}

/* The next header into H (unless *HAVE: it is there already) with its
 * offset and size.  1: a header to act on; 0: H holds the next one to look
 * at (after the end-of-archive marker or a corrupt header); -1: the
 * archive ends. */
static int read_header(struct tar *t, unsigned char *h, int *have, uint64_t *hoff, uint64_t *size)
{
	if (!*have) {
		int r = read_block(t, h);
		if (r <= 0)
			return -1;
	}
	*have = 0;
	*hoff = t->off - 512;
	if (tar_zero_block(h)) {
		int r = read_block(t, h);
		if (r <= 0)
			return -1;
		/* two zero blocks: the end of the archive; what follows must be padding */
		if (tar_zero_block(h) && !after_end(t, h))
			return -1;
		*have = 1;
		return 0;
	}
	if (!tar_header_valid(h))
		return skip_corrupt(t, h, *hoff, have);
	if (tar_num_field(h + 124, 12, size) < 0) {
		in_cut(t->w, "%s: byte %llu: tar header with an unreadable size field; resynchronising",
		       t->disp, (unsigned long long)*hoff);
		return skip_corrupt(t, h, *hoff, have);
	}
	return 1;
}

static int is_meta_type(char type)
{
	return type == 'x' || type == 'X' || type == 'g' || type == 'L' || type == 'K';
}

/* A metadata header (pax, GNU long names): kept for the next header, a pax
 * global header skipped.  -1 when the archive ends. */
static int take_meta(struct tar *t, char type, uint64_t size, uint64_t hoff)
{
	if (type == 'g')
		return skip_data(t, size, hoff, "pax global header") < 0 ? -1 : 0;
	const char *what = type == 'L' ? "GNU long name" : type == 'K' ? "GNU long link name"
	                   : "pax header";
	char *p = read_meta(t, size, hoff, what);
	if (!p)
		return 0;
	if (type == 'L') {
		free(t->longname);
		t->longname = p;
	} else {
		if (type != 'K')
			parse_pax(t, p, (size_t)size, hoff);
		free(p);
	}
	return 0;
}

/* The member's name: a pax path, a GNU long name, or the header's (with
 * the ustar prefix); tidied, never empty.  Caller frees. */
static char *member_name(const struct tar *t, const unsigned char *h, uint64_t hoff)
{
	char *name;
	if (t->paxpath)
		name = tidy_name(t->paxpath, strlen(t->paxpath));
	else if (t->longname)
		name = tidy_name(t->longname, strlen(t->longname));
	else {
		size_t nl = strnlen((const char *)h, 100);
		if (tar_is_posix(h) && h[345]) {
			size_t pl = strnlen((const char *)h + 345, 155);
			char *full = xasprintf("%.*s/%.*s", (int)pl, (const char *)h + 345,
			                       (int)nl, (const char *)h);
			name = tidy_name(full, strlen(full));
			free(full);
		} else {
			name = tidy_name((const char *)h, nl);
		}
	}
	if (!*name) {
		free(name);
		name = xasprintf("unnamed-member-at-byte-%llu", (unsigned long long)hoff);
	}
	return name;
}

/* A sparse member is not supported: reported and skipped with the old GNU
 * format's extension blocks.  -1 when the archive ends. */
static int skip_sparse(struct tar *t, const unsigned char *h, char type, uint64_t size, uint64_t hoff,
                       const char *name, const char *mdisp)
{
	in_cut(t->w, "%s: sparse file in the archive, not supported: skipped", mdisp);
	if (type == 'S' && h[482]) {
		/* old GNU sparse: extension blocks follow the header */
		unsigned char e[512];
		int r;
		do
			r = read_block(t, e);
		while (r == 1 && e[504]);
		if (r <= 0)
			return -1;
	}
	return skip_data(t, size, hoff, name) < 0 ? -1 : 0;
}

/* A regular member walked again as a document (it may be gzip or tar)
 * through a stream bounded by its size; then the rest of it and the
 * padding are skipped.  A member cut short ends the archive. */
static void walk_member(struct tar *t, uint64_t size, uint64_t hoff, const char *name, const char *mdisp)
{
	struct walker *w = t->w;
	struct member_stream ms;
	st_init(&ms.s, w);
	ms.s.read = member_read;
	ms.s.skip = member_skip;
	ms.parent = t->s;
	ms.left = ms.size = size;
	ms.arch_disp = t->disp;
	ms.name = name;
	ms.hdr_off = hoff;
	ms.truncated = 0;
	char *leaf = in_join(t->prefix, name);
	w->walk(w, &ms.s, leaf, leaf, mdisp, t->nest, 0);
	free(leaf);
	/* the rest of the member (unread, cut or skipped), then padding */
	if (!w->stop && !ms.truncated && ms.left)
		st_skip(&ms.s, (ms.s.pb_len - ms.s.pb_off) + ms.left);
	t->off += size - ms.left;
	if (ms.truncated || ms.s.err || ms.left) {
		t->ended = 1;
	} else if (!w->stop) {
		uint64_t pad = (512 - (size & 511)) & 511;
		int64_t r = pad ? st_skip(t->s, pad) : 0;
		if (r > 0)
			t->off += (uint64_t)r;
		if (r < 0 || (uint64_t)r < pad)
			t->ended = 1;
	}
}

/* Links, folders, devices, fifos, volume labels...: not documents; a
 * device or fifo is named.  -1 when the archive ends. */
static int skip_special(struct tar *t, char type, uint64_t size, uint64_t hoff, const char *name,
                        const char *mdisp)
{
	if (type == '3' || type == '4' || type == '6')
		in_msg(t->w, "%s: %s in the archive, skipped", mdisp,
		       type == '3' ? "character device" : type == '4' ? "block device" : "fifo");
	return skip_data(t, size, hoff, name) < 0 ? -1 : 0;
}

void in_walk_tar(struct walker *w, struct stream *s, const char *prefix, const char *disp, int nest)
{
	struct tar t;
	memset(&t, 0, sizeof t);
	t.w = w;
	t.s = s;
	t.prefix = prefix;
	t.disp = disp;
	t.nest = nest;
	unsigned char h[512];
	size_t members = 0;
	int have = 0; /* h already holds the next header (after a resync) */

	while (!w->stop && !t.ended) {
		uint64_t hoff, size;
		int r = read_header(&t, h, &have, &hoff, &size);
		if (r < 0)
			break;
		if (r == 0)
			continue;
		char type = (char)h[156];
		/* metadata headers apply to the next one */
		if (is_meta_type(type)) {
			if (take_meta(&t, type, size, hoff) < 0)
				break;
			continue;
		}

		if (t.paxsize_set)
			size = t.paxsize;
		int sparse = t.paxsparse || type == 'S';
		char *name = member_name(&t, h, hoff);
		clear_pending(&t);

		if (++members > w->lim->max_members) {
			in_cut(w, "%s: more than %zu members (--max-members), the rest is skipped",
			       disp, w->lim->max_members);
			free(name);
			break;
		}
		char *mdisp = in_join(disp, name);
		/* POSIX: an unknown type is read as a regular file.  Links,
		 * folders, GNU dump directories, volume labels, multi-volume
		 * continuations and old GNU long names are not documents. */
		int regular = !strchr("123456DVMNS", type) || type == 0;
		r = 0;
		if (sparse)
			r = skip_sparse(&t, h, type, size, hoff, name, mdisp);
		else if (regular)
			walk_member(&t, size, hoff, name, mdisp);
		else
			r = skip_special(&t, type, size, hoff, name, mdisp);
		free(mdisp);
		free(name);
		if (r < 0)
			break;
	}
	clear_pending(&t);
}
