/* sink.h - one destination of `run`'s copy of a job's output (the
 * terminal's stdout or stderr, the bundle's log), written by a thread of
 * its own from a bounded ring, so that a slow terminal or disk never
 * blocks the loop that reads the job's pipes, and so never the job.
 *
 * sink_push copies into the ring and returns at once.  When the ring is
 * full the bytes are dropped and counted, and a one-line note saying how
 * many were lost there is put in their place as soon as there is room (the
 * order of what is written is always the order of the output).  A write
 * error (a closed terminal: EPIPE, EIO; a full disk: ENOSPC, EFBIG) ends
 * the sink: what follows is counted as lost, so a log file is always a
 * prefix of the output, plus notes.  The ring is memory reserved once (the
 * bound of run's memory), never grown.
 *
 * Pipe mode, the copy without copying: a sink may also take bytes through a
 * pipe of its own (pin), into which the reader tee(2)s or splice(2)s the
 * job's bytes while the ring holds none, and which its thread splices to
 * fd: the pages pass by reference, not through run's memory (three copies
 * of every byte fewer for a pipe to a pipe: bench/overhead.sh).  Order is
 * kept because the reader puts bytes into the pipe only when the ring is
 * empty and its thread empties the pipe before the ring.  A destination
 * that cannot take a splice (a file opened O_APPEND, an old tty driver)
 * gets the pipe's bytes read and written, and pipe mode ends there. */
#ifndef NT_SINK_H
#define NT_SINK_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

struct sink {
	int fd;
	const char *slow;       /* how a drop is explained: "the terminal was too slow" */
	char *ring;
	size_t cap, head, len;
	uint64_t pushed;        /* bytes of output handed in */
	uint64_t written;       /* bytes of output written (notes not counted) */
	uint64_t lost;          /* bytes of output never written */
	uint64_t gap;           /* dropped since the last note */
	uint64_t gaps;          /* notes written */
	int err;                /* errno of the write that ended the sink, 0 */
	int dead, closing, done, started;
	int pin[2];             /* pipe mode's pipe (read end for the thread), -1 without */
	int pipe_ok;            /* pipe mode may be used (cleared for a destination that cannot splice) */
	size_t inpipe;          /* bytes in pin not yet written */
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv, drained;
};

/* Start a sink writing to fd through a ring of cap bytes, and in pipe mode
 * through a pipe of pipe_size bytes (0: the ring only).  0, or -1 when the
 * thread cannot start (the sink then writes nothing and counts all as
 * lost). */
int sink_start(struct sink *s, int fd, size_t cap, size_t pipe_size, const char *slow);
void sink_push(struct sink *s, const char *p, size_t n);
/* The reader's way to save a copy: the free room at the ring's tail, one
 * piece, when it is at least min bytes and no note is due (else NULL: read
 * elsewhere and sink_push).  Only the pushing thread writes there; the sink's
 * thread never reads it before sink_commit(s, n) hands in the n bytes read
 * into it (n may be 0).  Nothing else may be pushed in between. */
char *sink_reserve(struct sink *s, size_t min, size_t *room);
void sink_commit(struct sink *s, size_t n);
/* Pipe mode (above): 1 when the reader may put bytes into s->pin[1] now
 * (the ring empty, no note due, the sink alive); then sink_pipe_commit(s, n)
 * hands in the n bytes it put there.  sink_pipe_off: the pipe refused a
 * splice; the ring only from now on. */
int sink_pipe_ready(struct sink *s);
void sink_pipe_commit(struct sink *s, size_t n);
void sink_pipe_off(struct sink *s);
/* Let the sink write what it holds, waiting at most wait_s seconds (a
 * terminal stopped with ^S must not keep run from ending); what is left
 * then counts as lost.  The sink is finished either way; sink_free frees
 * it unless its thread is still stuck in a write (then it is left). */
void sink_finish(struct sink *s, double wait_s);
void sink_free(struct sink *s);

#endif
