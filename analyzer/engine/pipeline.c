/* pipeline.c - see pipeline.h.  A fixed ring of NBATCH batches: the
 * producer fills one while the consumer works on the ones submitted
 * before it; both wait on a condition variable when the ring is full or
 * empty.  Batches are reused, so memory stays at NBATCH batches of at most
 * BATCH_LINES lines and BATCH_TEXT bytes (or one longer line). */
#include "engine/pipeline.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "base/util.h"
#include "match/match.h"

#define NBATCH 8
#define BATCH_TEXT (256u << 10)
#define BATCH_LINES PIPELINE_BATCH_LINES  /* records are ~190 bytes: empty lines must not grow a batch without end */

char *line_batch_room_any(struct line_batch *bt, size_t n)
{
	if (bt->n >= BATCH_LINES)
		return NULL;
	/* an empty batch grown for one long line (--max-line) goes back to the
	 * usual size, so the ring does not keep NBATCH long lines' worth */
	int oversized = bt->n == 0 && bt->cap > BATCH_TEXT && n <= BATCH_TEXT;
	if (bt->text && bt->len + n <= bt->cap && !oversized)
		return bt->text + bt->len;
	if (bt->n > 0)
		return NULL;
	free(bt->text);
	bt->cap = n > BATCH_TEXT ? n : BATCH_TEXT;
	/* zeroed, with room after it: PCRE2's JIT reads a few bytes past the end
	 * of a subject (the last line of a batch), which must be initialised */
	bt->text = xcalloc(bt->cap + 64, 1);
	bt->len = 0;
	return bt->text;
}

char *line_batch_chunk(struct line_batch *bt, size_t min, size_t *avail)
{
	if (bt->n >= BATCH_LINES)
		return NULL;
	if (bt->n == 0) {
		bt->len = 0;
		if (!bt->text || bt->cap != BATCH_TEXT) { /* none yet, or grown for a long line */
			free(bt->text);
			bt->cap = BATCH_TEXT;
			bt->text = xcalloc(bt->cap + 64, 1); /* + 64: see line_batch_room_any */
		}
	}
	if (bt->cap - bt->len < min)
		return NULL;
	*avail = bt->cap - bt->len;
	return bt->text + bt->len;
}

struct prepared_line *line_batch_add_grow(struct line_batch *bt)
{
	if (bt->n == bt->capv) {
		bt->capv = bt->capv ? bt->capv * 2 : 1024;
		bt->v = xrealloc(bt->v, bt->capv * sizeof *bt->v);
	}
	return &bt->v[bt->n++]; /* the caller sets every field */
}

void line_batch_add_cands_any(struct line_batch *bt, struct prepared_line *pl, const size_t *c, size_t n)
{
	if (bt->ncand + n > bt->capcand) {
		while (bt->ncand + n > bt->capcand)
			bt->capcand = bt->capcand ? bt->capcand * 2 : 1024;
		bt->cand = xrealloc(bt->cand, bt->capcand * sizeof *bt->cand);
		bt->trc = xrealloc(bt->trc, bt->capcand * sizeof *bt->trc);
		bt->tovo = xrealloc(bt->tovo, bt->capcand * sizeof *bt->tovo);
	}
	pl->cand = bt->ncand;
	pl->ncand = n;
	if (n)
		memcpy(bt->cand + bt->ncand, c, n * sizeof *c);
	for (size_t i = 0; i < n; i++)
		bt->trc[bt->ncand + i] = MATCHER_NOT_TRIED;
	bt->ncand += n;
}

void line_batch_set_tried(struct line_batch *bt, size_t k, int rc, const size_t *ov)
{
	bt->trc[k] = rc;
	if (rc <= 0)
		return;
	size_t nov = 2 * (size_t)rc;
	if (bt->ntov + nov > bt->captov) {
		while (bt->ntov + nov > bt->captov)
			bt->captov = bt->captov ? bt->captov * 2 : 1024;
		bt->tov = xrealloc(bt->tov, bt->captov * sizeof *bt->tov);
	}
	memcpy(bt->tov + bt->ntov, ov, nov * sizeof *ov);
	bt->tovo[k] = bt->ntov;
	bt->ntov += nov;
}

void line_batch_add_hit(struct line_batch *bt, struct prepared_line *pl, uint32_t sig, const size_t *ov, int rc)
{
	size_t nov = 2 * (size_t)(rc > 0 ? rc : 0);
	if (bt->nhit == bt->caphit) {
		bt->caphit = bt->caphit ? bt->caphit * 2 : 256;
		bt->hit = xrealloc(bt->hit, bt->caphit * sizeof *bt->hit);
	}
	if (bt->nov + nov > bt->capov) {
		while (bt->nov + nov > bt->capov)
			bt->capov = bt->capov ? bt->capov * 2 : 1024;
		bt->ov = xrealloc(bt->ov, bt->capov * sizeof *bt->ov);
	}
	if (pl->nhit == 0)
		pl->hit = bt->nhit;
	struct line_hit *h = &bt->hit[bt->nhit++];
	h->sig = sig;
	h->rc = rc;
	h->ov = bt->nov;
	if (nov)
		memcpy(bt->ov + bt->nov, ov, nov * sizeof *ov);
	bt->nov += nov;
	pl->nhit++;
}

void line_batch_add_msg(struct line_batch *bt, struct prepared_line *pl, char *msg)
{
	if (bt->nmsg == bt->capmsg) {
		bt->capmsg = bt->capmsg ? bt->capmsg * 2 : 16;
		bt->msg = xrealloc(bt->msg, bt->capmsg * sizeof *bt->msg);
	}
	if (pl->nmsg == 0)
		pl->msg = bt->nmsg;
	bt->msg[bt->nmsg++] = msg;
	pl->nmsg++;
}

void line_batch_reset(struct line_batch *bt)
{
	for (size_t i = 0; i < bt->nmsg; i++)
		free(bt->msg[i]);
	bt->len = bt->n = bt->ncand = bt->ntov = bt->nhit = bt->nov = bt->nmsg = 0;
}

void line_batch_free(struct line_batch *bt)
{
	line_batch_reset(bt);
	free(bt->text);
	free(bt->v);
	free(bt->cand);
	free(bt->trc);
	free(bt->tovo);
	free(bt->tov);
	free(bt->hit);
	free(bt->ov);
	free(bt->msg);
	memset(bt, 0, sizeof *bt);
}

struct pipeline {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t changed;      /* a batch was submitted, consumed, or stop was asked */
	struct line_batch ring[NBATCH];
	/* ring[head % NBATCH] .. ring[(tail - 1) % NBATCH] are submitted;
	 * ring[tail % NBATCH] is the one being filled (when tail - head < NBATCH) */
	uint64_t head, tail;
	int stop;
	int try_ahead;               /* NT_TRY_AHEAD: 1 every batch, 0 none, -1 when the consumer is behind */
	batch_consumer consume;
	void *ctx;
};

static void *consumer_main(void *arg)
{
	struct pipeline *p = arg;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (p->head == p->tail && !p->stop)
			pthread_cond_wait(&p->changed, &p->mu);
		if (p->head == p->tail)
			break; /* stopped and drained */
		struct line_batch *bt = &p->ring[p->head % NBATCH];
		pthread_mutex_unlock(&p->mu);
		p->consume(p->ctx, bt);
		line_batch_reset(bt);
		pthread_mutex_lock(&p->mu);
		p->head++;
		pthread_cond_broadcast(&p->changed);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct pipeline *pipeline_start(batch_consumer consume, void *ctx)
{
	struct pipeline *p = xcalloc(1, sizeof *p);
	p->consume = consume;
	p->ctx = ctx;
	/* for tests (tests/threads): the reading thread tries every batch, or
	 * none, so that both paths are compared with -j1 whatever the timing */
	const char *t = getenv("NT_TRY_AHEAD");
	p->try_ahead = t && !strcmp(t, "all") ? 1 : t && !strcmp(t, "none") ? 0 : -1;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->changed, NULL);
	if (pthread_create(&p->thread, NULL, consumer_main, p) != 0) {
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->changed);
		free(p);
		return NULL;
	}
	return p;
}

struct line_batch *pipeline_batch(struct pipeline *p)
{
	pthread_mutex_lock(&p->mu);
	while (p->tail - p->head >= NBATCH)
		pthread_cond_wait(&p->changed, &p->mu);
	struct line_batch *bt = &p->ring[p->tail % NBATCH];
	/* the consumer is behind: all but one batch wait for it (a level the
	 * feedback holds near; lower ones left the reading thread the larger
	 * share on both bench corpora) */
	bt->try_ahead = p->try_ahead >= 0 ? p->try_ahead : p->tail - p->head >= NBATCH - 1;
	pthread_mutex_unlock(&p->mu);
	return bt;
}

void pipeline_submit(struct pipeline *p, struct line_batch *bt)
{
	if (bt->n == 0)
		return; /* stays the one being filled */
	pthread_mutex_lock(&p->mu);
	p->tail++;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->mu);
}

void pipeline_drain(struct pipeline *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	while (p->head != p->tail)
		pthread_cond_wait(&p->changed, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

void pipeline_stop(struct pipeline *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	for (int i = 0; i < NBATCH; i++)
		line_batch_free(&p->ring[i]);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->changed);
	free(p);
}
