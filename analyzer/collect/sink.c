/* sink.c - see sink.h. */
#include "collect/sink.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"

/* Copy n bytes into the ring at its tail (the caller checked the room). */
static void ring_put(struct sink *s, const char *p, size_t n)
{
	size_t tail = (s->head + s->len) % s->cap;
	size_t first = s->cap - tail < n ? s->cap - tail : n;
	memcpy(s->ring + tail, p, first);
	memcpy(s->ring, p + first, n - first);
	s->len += n;
}

/* The note that stands where output was dropped; its length, 0 when it
 * does not fit in out. */
static size_t gap_note(const struct sink *s, char *out, size_t n)
{
	int k = snprintf(out, n, "\n[nccl-triage run: %llu bytes of the job's output lost here: %s]\n",
	                 (unsigned long long)s->gap, s->slow);
	return k > 0 && (size_t)k < n ? (size_t)k : 0;
}

void sink_push(struct sink *s, const char *p, size_t n)
{
	if (!n)
		return;
	pthread_mutex_lock(&s->mu);
	s->pushed += n;
	if (s->dead || !s->started) {
		s->lost += n;
		pthread_mutex_unlock(&s->mu);
		return;
	}
	char note[160];
	size_t nl = s->gap ? gap_note(s, note, sizeof note) : 0;
	if (s->cap - s->len < n + nl) {
		s->gap += n;
		s->lost += n;
	} else {
		if (nl) {
			ring_put(s, note, nl);
			s->gaps++;
			s->gap = 0;
		}
		ring_put(s, p, n);
		pthread_cond_signal(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
}

char *sink_reserve(struct sink *s, size_t min, size_t *room)
{
	char *p = NULL;
	pthread_mutex_lock(&s->mu);
	if (s->started && !s->dead && !s->gap) {
		size_t tail = (s->head + s->len) % s->cap;
		/* the free room from the tail on: to the ring's end, or to the head */
		size_t n = s->len == s->cap ? 0 : tail >= s->head ? s->cap - tail : s->head - tail;
		if (n >= min) {
			p = s->ring + tail;
			*room = n;
		}
	}
	pthread_mutex_unlock(&s->mu);
	return p;
}

/* n bytes the reader put in the ring's lent room (held: &s->len) or in
 * the sink's pipe (&s->inpipe), handed in. */
static void hand_in(struct sink *s, size_t n, size_t *held)
{
	if (!n)
		return;
	pthread_mutex_lock(&s->mu);
	s->pushed += n;
	if (s->dead) {
		s->lost += n; /* it ended meanwhile */
	} else {
		*held += n;
		pthread_cond_signal(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
}

void sink_commit(struct sink *s, size_t n)
{
	hand_in(s, n, &s->len);
}

int sink_pipe_ready(struct sink *s)
{
	pthread_mutex_lock(&s->mu);
	int r = s->pipe_ok && s->started && !s->dead && !s->len && !s->gap;
	pthread_mutex_unlock(&s->mu);
	return r;
}

void sink_pipe_commit(struct sink *s, size_t n)
{
	hand_in(s, n, &s->inpipe);
}

void sink_pipe_off(struct sink *s)
{
	pthread_mutex_lock(&s->mu);
	s->pipe_ok = 0;
	pthread_mutex_unlock(&s->mu);
}

/* The pipe's next bytes (at most n) read and written, for a destination
 * that cannot take a splice.  Bytes written, or -1 (errno) on an error,
 * *partial then saying how many of them were written before it. */
static ssize_t pipe_copy_out(struct sink *s, size_t n, char *buf, size_t bufn, size_t *partial)
{
	ssize_t r;
	*partial = 0;
	do
		r = read(s->pin[0], buf, n < bufn ? n : bufn);
	while (r < 0 && errno == EINTR);
	if (r <= 0) {
		errno = r < 0 ? errno : EIO;
		return -1;
	}
	while (*partial < (size_t)r) {
		ssize_t w = write(s->fd, buf + *partial, (size_t)r - *partial);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			errno = w < 0 ? errno : EIO;
			return -1;
		}
		*partial += (size_t)w;
	}
	return r;
}

/* Write the pipe's bytes (all that were handed in: they are older than
 * any in the ring).  Called and returns with mu held; -1 when the sink
 * died. */
/* The end of a sink (a failed write, or a thread left stuck in one):
 * everything it still holds, in the ring and in its pipe, is lost.  Called
 * with s->mu held. */
static void sink_die(struct sink *s, int err)
{
	s->err = err;
	s->dead = 1;
	s->lost += s->len + s->inpipe; /* notes included: a small overcount, said so in docs */
	s->len = s->inpipe = 0;
}

static int drain_pipe(struct sink *s, int *nosplice, char **buf)
{
	while (s->inpipe) {
		size_t n = s->inpipe;
		pthread_mutex_unlock(&s->mu);
		ssize_t w;
		size_t partial = 0;
		if (!*nosplice) {
			do
				w = splice(s->pin[0], NULL, s->fd, NULL, n, SPLICE_F_MOVE);
			while (w < 0 && errno == EINTR);
			if (w < 0 && errno == EINVAL) {
				/* O_APPEND, or a driver without splice: read and write instead */
				*nosplice = 1;
				sink_pipe_off(s);
				pthread_mutex_lock(&s->mu);
				continue;
			}
		} else {
			if (!*buf)
				*buf = xmalloc(64u << 10);
			w = pipe_copy_out(s, n, *buf, 64u << 10, &partial);
		}
		pthread_mutex_lock(&s->mu);
		if (w <= 0) {
			s->written += partial;
			s->inpipe -= partial;
			sink_die(s, w < 0 ? errno : EIO);
			return -1;
		}
		s->written += (uint64_t)w;
		s->inpipe -= (size_t)w;
	}
	return 0;
}

static void *sink_main(void *arg)
{
	struct sink *s = arg;
	int nosplice = 0;
	char *copybuf = NULL; /* pipe_copy_out's, once needed */
	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (!s->len && !s->inpipe && !s->closing)
			pthread_cond_wait(&s->cv, &s->mu);
		if (s->inpipe) {
			if (drain_pipe(s, &nosplice, &copybuf) < 0)
				break;
			continue;
		}
		if (!s->len && s->gap) {
			/* output dropped at the very end: the note closes the copy */
			char note[160];
			size_t nl = gap_note(s, note, sizeof note);
			s->gap = 0;
			s->gaps++;
			pthread_mutex_unlock(&s->mu);
			ssize_t w = nl ? write(s->fd, note, nl) : 0;
			(void)w;
			pthread_mutex_lock(&s->mu);
			continue;
		}
		if (!s->len)
			break; /* closing and drained */
		size_t n = s->cap - s->head < s->len ? s->cap - s->head : s->len;
		const char *p = s->ring + s->head;
		pthread_mutex_unlock(&s->mu);
		ssize_t w;
		do
			w = write(s->fd, p, n);
		while (w < 0 && errno == EINTR);
		pthread_mutex_lock(&s->mu);
		if (w <= 0) {
			sink_die(s, w < 0 ? errno : EIO);
			break;
		}
		s->written += (uint64_t)w;
		s->head = (s->head + (size_t)w) % s->cap;
		s->len -= (size_t)w;
	}
	s->done = 1;
	pthread_cond_broadcast(&s->drained);
	pthread_mutex_unlock(&s->mu);
	free(copybuf);
	return NULL;
}

/* Pipe mode's pipe, as large as the job's (pipe_size): a smaller one
 * would take a fraction of each wake's bytes and send the rest through the
 * ring.  Without it (the user's pipe quota, fs.pipe-user-pages-soft, spent)
 * the sink works from its ring only. */
static void pipe_mode_open(struct sink *s, size_t pipe_size)
{
	s->pin[0] = s->pin[1] = -1;
	/* the write end non-blocking (the reader's tee and splice never wait),
	 * the read end blocking: a splice between two pipes does not wait when
	 * either end is O_NONBLOCK, and the thread's must wait for a slow
	 * terminal */
	if (!pipe_size || pipe2(s->pin, O_CLOEXEC) < 0)
		return;
	fcntl(s->pin[1], F_SETFL, O_NONBLOCK);
	if (fcntl(s->pin[0], F_SETPIPE_SZ, (int)pipe_size) < (int)pipe_size) {
		close(s->pin[0]);
		close(s->pin[1]);
		s->pin[0] = s->pin[1] = -1;
		return;
	}
	s->pipe_ok = 1;
}

int sink_start(struct sink *s, int fd, size_t cap, size_t pipe_size, const char *slow)
{
	memset(s, 0, sizeof *s);
	s->fd = fd;
	s->slow = slow;
	s->cap = cap;
	pipe_mode_open(s, pipe_size);
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	pthread_cond_init(&s->drained, NULL);
	s->ring = xmalloc(cap);
	if (pthread_create(&s->th, NULL, sink_main, s) != 0)
		return -1;
	s->started = 1;
	return 0;
}

void sink_finish(struct sink *s, double wait_s)
{
	pthread_mutex_lock(&s->mu);
	if (!s->started) {
		pthread_mutex_unlock(&s->mu);
		return;
	}
	s->closing = 1;
	pthread_cond_signal(&s->cv);
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)wait_s;
	until.tv_nsec += (long)((wait_s - (double)(long)wait_s) * 1e9);
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	while (!s->done)
		if (pthread_cond_timedwait(&s->drained, &s->mu, &until) == ETIMEDOUT)
			break;
	int done = s->done;
	if (!done) {
		/* stuck in a write: the rest is lost; the thread is left to itself */
		sink_die(s, ETIMEDOUT);
	}
	pthread_mutex_unlock(&s->mu);
	if (done)
		pthread_join(s->th, NULL);
	else
		pthread_detach(s->th);
	s->started = done ? 0 : 2;
}

void sink_free(struct sink *s)
{
	if (s->started == 2)
		return; /* its thread may still touch it */
	if (s->pin[0] >= 0) {
		close(s->pin[0]);
		close(s->pin[1]);
		s->pin[0] = s->pin[1] = -1;
	}
	free(s->ring);
	s->ring = NULL;
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	pthread_cond_destroy(&s->drained);
}
