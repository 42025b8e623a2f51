/* input.c - operands to documents: content sniffing (the dispatch to the
 * gzip, tar and folder readers: input_gzip.c, input_tar.c, input_dir.c),
 * the delivery of documents to the sink under the caps, and the two public
 * entry points (see input.h).  The stream core is in input_stream.c; the
 * readers reach the dispatch again (an archive in an archive) through
 * walker.walk, never by name.  Nothing returned here needs freeing; names
 * passed to the sink are owned by the walk and valid until end() returns. */
#include "input/input_internal.h"
#include "base/tarhdr.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- memory stream ----------------------------------------------------------- */

struct mem_stream {
	struct stream s;
	const unsigned char *p;
	size_t len, off;
};

static ssize_t mem_read(struct stream *s, void *buf, size_t n)
{
	struct mem_stream *ms = (struct mem_stream *)s;
	size_t k = ms->len - ms->off;
	if (k > n)
		k = n;
	if (k)
		memcpy(buf, ms->p + ms->off, k);
	ms->off += k;
	s->w->st->bytes_in += k;
	return (ssize_t)k;
}

static int64_t mem_skip(struct stream *s, uint64_t n)
{
	struct mem_stream *ms = (struct mem_stream *)s;
	size_t k = ms->len - ms->off;
	if (k > n)
		k = (size_t)n;
	ms->off += k;
	return (int64_t)k;
}

/* ---- documents ----------------------------------------------------------------- */

/* leaf sanitised and cut: to IN_NAME_MAX bytes and "...", or, once the
 * bundle's names reached IN_NAMES_MAX, to IN_NAME_SHORT: its head, "...",
 * and its tail (the file name, which tells documents apart). */
static char *name_of(struct walker *w, const char *leaf)
{
	size_t ll = strlen(leaf);
	char *name;
	if (ll > IN_NAME_SHORT && w->st->name_bytes >= IN_NAMES_MAX) {
		size_t head = str_cut_at(leaf, ll, IN_NAME_SHORT / 4), tail = ll - (IN_NAME_SHORT - 3 - head);
		while (tail < ll && ((unsigned char)leaf[tail] & 0xc0) == 0x80)
			tail++; /* do not split a UTF-8 sequence */
		char *h = str_sanitize(leaf, head), *t = str_sanitize(leaf + tail, ll - tail);
		name = xasprintf("%s...%s", h, t);
		free(h);
		free(t);
		if (!w->st->names_cut++)
			in_msg(w, "%s: the document names of this bundle reached %u bytes: longer names of the documents "
			       "after it are cut to %u bytes (head...tail)", name, IN_NAMES_MAX, IN_NAME_SHORT);
	} else {
		name = str_sanitize(leaf, ll > IN_NAME_MAX ? IN_NAME_MAX : ll);
		if (ll > IN_NAME_MAX) {
			char *t = xasprintf("%s...", name);
			free(name);
			name = t;
		}
	}
	return name;
}

static int dup_hash_at(const void *ctx, size_t i, uint64_t *h)
{
	*h = hash_str(HASH_SEED, ((const struct walker *)ctx)->dup[i].name);
	return 1;
}

/* The entry of name among the taken names that got a " (N)", created. */
static struct dupname *dup_get(struct walker *w, const char *name)
{
	uint64_t h = hash_str(HASH_SEED, name);
	if (w->dupix.nslot)
		for (size_t s = hindex_first(&w->dupix, h); w->dupix.slot[s]; s = hindex_next(&w->dupix, s))
			if (strcmp(w->dup[w->dupix.slot[s] - 1].name, name) == 0)
				return &w->dup[w->dupix.slot[s] - 1];
	if (w->ndup == w->capdup) {
		w->capdup = w->capdup ? w->capdup * 2 : 16;
		w->dup = xrealloc(w->dup, w->capdup * sizeof *w->dup);
	}
	w->dup[w->ndup] = (struct dupname){xstrdup(name), 1};
	w->ndup++;
	if (hindex_crowded(&w->dupix, w->ndup))
		hindex_grow(&w->dupix, w->ndup, dup_hash_at, w);
	else
		hindex_put(&w->dupix, h, w->ndup - 1);
	return &w->dup[w->ndup - 1];
}

/* The document's name: leaf sanitised, and different from every document
 * delivered before in the bundle (when the sink can tell): "x.log" and
 * "x.log.gz" side by side are "x.log" and "x.log.gz", two tar members of
 * one name are "x.log" and "x.log (2)". */
static char *doc_name(struct walker *w, const char *leaf)
{
	char *name = name_of(w, leaf);
	if (!w->sink->taken || !w->sink->taken(w->sink->ctx, name))
		return name;
	if (w->gz_inner && strcmp(leaf, w->gz_inner) == 0) {
		char *alt = name_of(w, w->gz_outer);
		if (!w->sink->taken(w->sink->ctx, alt)) {
			free(name);
			return alt;
		}
		free(alt);
	}
	/* from the number given last to this name: not from 2 each time */
	struct dupname *d = dup_get(w, name);
	for (unsigned k = d->k + 1;; k++) {
		char *alt = xasprintf("%s (%u)", name, k);
		if (!w->sink->taken(w->sink->ctx, alt) || k > 1000000) {
			d->k = k;
			free(name);
			return alt;
		}
		free(alt);
	}
}

/* Sends the rest of s to the sink as one document, within the caps. */
static void deliver(struct walker *w, struct stream *s, const char *leaf, const char *disp)
{
	const struct limits *lim = w->lim;
	struct input_stats *st = w->st;
	/* Each document costs a record in the bundle: a tar of empty members
	 * nested in tars would otherwise cost ~100 bytes of memory per 0.5
	 * byte of compressed input. */
	if (st->documents >= lim->max_entries) {
		in_cut(w, "%s: more than %zu documents in the bundle (--max-entries), the rest of the "
		       "input is skipped", disp, lim->max_entries);
		w->stop = 1;
		return;
	}
	/* Names are only names: one longer than IN_NAME_MAX (a 1 MiB pax
	 * path) is kept as its first bytes and "..." */
	char *name = doc_name(w, leaf);
	st->name_bytes += strlen(name);
	w->sink->begin(w->sink->ctx, name);
	st->documents++;
	uint64_t got = 0;
	int complete = 1;
	for (;;) {
		uint64_t want = IN_BUFSZ;
		uint64_t room = lim->max_member_bytes > got ? lim->max_member_bytes - got : 0;
		uint64_t broom = lim->max_bundle_bytes > st->bytes_out
		                 ? lim->max_bundle_bytes - st->bytes_out : 0;
		int which = 0; /* which cap limits this read: 1 member, 2 bundle */
		if (room < want) {
			want = room;
			which = 1;
		}
		if (broom < want) {
			want = broom;
			which = 2;
		}
		if (want == 0) {
			/* At a cap: is there more? */
			unsigned char probe;
			ssize_t r = st_read(s, &probe, 1);
			if (r < 0) {
				complete = 0;
			} else if (r > 0) {
				complete = 0;
				if (which == 1) {
					in_cut(w, "%s: cut at %llu bytes (--max-member-bytes)", disp,
					       (unsigned long long)got);
				} else {
					in_cut(w, "%s: cut at %llu bytes: the bundle reached %llu bytes "
					       "(--max-bundle-bytes), the rest of the input is skipped",
					       disp, (unsigned long long)got,
					       (unsigned long long)st->bytes_out);
					w->stop = 1;
				}
			}
			break;
		}
		unsigned char *dst = w->buf; /* the sink's room, or the walker's buffer */
		if (w->sink->room) {
			size_t rn = (size_t)want;
			unsigned char *sr = w->sink->room(w->sink->ctx, &rn);
			if (sr && rn > 0 && rn <= want) {
				dst = sr;
				want = rn;
			}
		}
		ssize_t r = st_read(s, dst, (size_t)want);
		if (r < 0) {
			complete = 0;
			break;
		}
		if (r == 0)
			break;
		w->sink->data(w->sink->ctx, dst, (size_t)r);
		got += (uint64_t)r;
		st->bytes_out += (uint64_t)r;
	}
	w->sink->end(w->sink->ctx, complete);
	free(name);
}

/* ---- content sniffing ---------------------------------------------------------- */

static const char *compressed_kind(const unsigned char *p, size_t n)
{
	if (n >= 6 && memcmp(p, "\xfd" "7zXZ\0", 6) == 0)
		return "xz";
	if (n >= 4 && memcmp(p, "\x28\xb5\x2f\xfd", 4) == 0)
		return "zstd";
	if (n >= 10 && memcmp(p, "BZh", 3) == 0 && p[3] >= '1' && p[3] <= '9' &&
	    (memcmp(p + 4, "\x31\x41\x59\x26\x53\x59", 6) == 0 ||
	     memcmp(p + 4, "\x17\x72\x45\x38\x50\x90", 6) == 0))
		return "bzip2";
	if (n >= 4 && p[0] == 'P' && p[1] == 'K' &&
	    ((p[2] == 3 && p[3] == 4) || (p[2] == 5 && p[3] == 6) || (p[2] == 7 && p[3] == 8)))
		return "zip";
	if (n >= 6 && memcmp(p, "7z\xbc\xaf\x27\x1c", 6) == 0)
		return "7z";
	if (n >= 4 && memcmp(p, "\x04\x22\x4d\x18", 4) == 0)
		return "lz4";
	if (n >= 5 && memcmp(p, "LZIP", 4) == 0 && p[4] == 1)
		return "lzip";
	if (n >= 3 && p[0] == 0x1f && p[1] == 0x9d && (p[2] & 0x60) == 0)
		return "compress";
	return NULL;
}

static void in_walk(struct walker *w, struct stream *s, const char *leaf, const char *prefix,
                    const char *disp, int nest, int via_gz)
{
	if (w->stop)
		return;
	int err;
	size_t n = st_sniff(s, &err);
	if (err && n == 0)
		return; /* nothing readable; the stream said why */
	const unsigned char *p = s->pb;
	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b) {
		if (nest >= w->lim->max_nesting) {
			in_cut(w, "%s: archives nested more than %d deep (--max-nesting), skipped",
			       disp, w->lim->max_nesting);
			return;
		}
		in_walk_gzip(w, s, leaf, prefix, disp, nest + 1);
		return;
	}
	/* a tar, or what is left of one: a header with the ustar magic whose
	 * checksum fails or that the input cuts is read as a damaged archive
	 * (messages name the byte), never delivered as text */
	if ((n == IN_SNIFF && tar_header_valid(p)) || tar_has_magic(p, n)) {
		if (!via_gz) {
			if (nest >= w->lim->max_nesting) {
				in_cut(w, "%s: archives nested more than %d deep (--max-nesting), skipped",
				       disp, w->lim->max_nesting);
				return;
			}
			nest++;
		}
		in_walk_tar(w, s, prefix, disp, nest);
		return;
	}
	const char *kind = compressed_kind(p, n);
	if (kind) {
		in_cut(w, "%s: unsupported compressed format (%s): decompress it first", disp, kind);
		return;
	}
	deliver(w, s, leaf, disp);
}

/* ---- public entry points ------------------------------------------------------ */

static void walker_init(struct walker *w, const struct limits *lim, struct doc_sink *sink,
                        struct msgs *m, struct input_stats *st)
{
	memset(w, 0, sizeof *w);
	w->lim = lim;
	w->sink = sink;
	w->m = m;
	w->st = st;
	w->walk = in_walk;
	w->buf = xmalloc(IN_BUFSZ);
}

static void walker_done(struct walker *w)
{
	free(w->buf);
	for (size_t i = 0; i < w->ndup; i++)
		free(w->dup[i].name);
	free(w->dup);
	hindex_free(&w->dupix);
}

static const char *base_name(const char *path)
{
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	size_t i = n;
	while (i > 0 && path[i - 1] != '/')
		i--;
	(void)n;
	return path + i;
}

/* One call of an entry point: its walker and the counts before it, to tell
 * an input that delivered nothing because of errors from an empty one. */
struct walk_run {
	struct walker w;
	struct input_stats local; /* the counts when the caller keeps none */
	size_t docs0, errs0;
};

static void run_begin(struct walk_run *r, const struct limits *lim, struct doc_sink *sink,
                      struct msgs *m, struct input_stats *st)
{
	memset(&r->local, 0, sizeof r->local);
	if (!st)
		st = &r->local;
	walker_init(&r->w, lim, sink, m, st);
	r->docs0 = st->documents;
	r->errs0 = st->errors;
}

/* RET, or -1 when nothing was delivered, and not because the input was
 * empty; the walker is freed. */
static int run_end(struct walk_run *r, int ret)
{
	const struct input_stats *st = r->w.st;
	if (ret == 0 && st->documents == r->docs0 && st->errors > r->errs0)
		ret = -1;
	walker_done(&r->w);
	return ret;
}

int input_walk_path(const char *path, const struct limits *lim, struct doc_sink *sink,
                    struct msgs *m, struct input_stats *st)
{
	struct walk_run r;
	run_begin(&r, lim, sink, m, st);
	int ret = 0;

	if (strcmp(path, "-") == 0) {
		struct fd_stream f;
		fd_stream_init(&f, &r.w, 0, "stdin");
		in_walk(&r.w, &f.s, "stdin", "", "stdin", 0, 0);
	} else {
		char *disp = str_sanitize(path, strlen(path));
		struct stat sb;
		if (stat(path, &sb) < 0) {
			in_msg(&r.w, "%s: cannot open: %s", disp, strerror(errno));
			ret = -1;
		} else if (S_ISDIR(sb.st_mode)) {
			ret = in_walk_dir(&r.w, path, disp);
		} else {
			/* Only regular files are read (standard input, '-', is the
			 * exception the user asks for): a FIFO, a device or a /proc
			 * file may block for ever or hold this machine's secrets.
			 * O_NONBLOCK: opening a FIFO must not wait for a writer. */
			int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
			const char *why = fd >= 0 ? in_unreadable_kind(fd) : NULL;
			if (fd < 0) {
				in_msg(&r.w, "%s: cannot open: %s", disp, strerror(errno));
				ret = -1;
			} else if (why) {
				in_msg(&r.w, "%s: %s%s: not read (only regular files and folders are; "
				       "pipe anything else to standard input: ... | nccl-triage analyze -)", disp,
				       S_ISREG(sb.st_mode) ? "a file of the kernel's pseudo file system " : "", why);
				close(fd);
				ret = -1;
			} else {
				/* the base name, with the trailing slashes of the path removed */
				const char *b = base_name(path);
				size_t bl = strlen(b);
				while (bl > 1 && b[bl - 1] == '/')
					bl--;
				char *leaf = xstrndup(b, bl);
				struct fd_stream f;
				fd_stream_init(&f, &r.w, fd, disp);
				in_walk(&r.w, &f.s, leaf, "", disp, 0, 0);
				free(leaf);
				close(fd);
			}
		}
		free(disp);
	}
	return run_end(&r, ret);
}

int input_walk_memory(const char *name, const void *data, size_t len,
                      const struct limits *lim, struct doc_sink *sink,
                      struct msgs *m, struct input_stats *st)
{
	struct walk_run r;
	run_begin(&r, lim, sink, m, st);
	char *disp = str_sanitize(name, strlen(name));
	struct mem_stream ms;
	st_init(&ms.s, &r.w);
	ms.s.read = mem_read;
	ms.s.skip = mem_skip;
	ms.p = data;
	ms.len = data ? len : 0;
	ms.off = 0;
	in_walk(&r.w, &ms.s, name, "", disp, 0, 0);
	free(disp);
	return run_end(&r, 0);
}
