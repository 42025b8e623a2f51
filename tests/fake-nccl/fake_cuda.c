/* fake_cuda.c - a stand-in libcuda.so.1 for the CPU-only tests of
 * `nccl-triage verify` (tests/verify/run.sh).  "Device" memory is host
 * memory.  FAKE_CUDA_MODE selects the behaviour:
 *   ok (default)  FAKE_CUDA_NDEV devices (default 2) named "Fake GPU"
 *   nodev         cuInit returns CUDA_ERROR_NO_DEVICE (100)
 *   hang          cuInit never returns
 *   crash         cuInit dies of SIGSEGV
 * Not a CUDA implementation: only what verify (and fake_nccl.c) call.
 *
 * Streams are asynchronous, as on a GPU, so that a copy or a collective
 * that is not ordered with the work that needs it gives wrong values here
 * too (issue 15).  Every stream is a FIFO run by its own thread; what the
 * CUDA driver API documents ("API synchronization behavior") is modelled:
 *   - the legacy default stream (NULL or CU_STREAM_LEGACY) waits for every
 *     blocking stream and they wait for it; a CU_STREAM_NON_BLOCKING stream
 *     waits for neither;
 *   - cuMemcpyHtoD from pageable memory waits for the legacy stream, stages
 *     the data and returns; the "DMA" into device memory lands on the legacy
 *     stream FAKE_CUDA_DMA_MS (default 100) ms later.  From pinned memory
 *     (cuMemAllocHost / cuMemHostAlloc) it returns once the copy is done;
 *   - cuMemcpyDtoH returns once the copy (on the legacy stream) is done;
 *   - cuMemcpyHtoDAsync / cuMemcpyDtoHAsync run on the given stream, each
 *     FAKE_CUDA_ASYNC_MS (default 2) ms after it reaches them; pageable
 *     sources are staged at once, pageable destinations make the call
 *     synchronous;
 *   - cuLaunchHostFunc (what fake_nccl.c launches its collectives with) and
 *     cuEventRecord run in stream order; cuStreamQuery says
 *     CUDA_ERROR_NOT_READY (600) while a stream has work. */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
#define CU_NOT_READY 600
#define CU_STREAM_NON_BLOCKING 1

static const char *mode(void)
{
	const char *m = getenv("FAKE_CUDA_MODE");
	return m && *m ? m : "ok";
}

static int ndev(void)
{
	const char *n = getenv("FAKE_CUDA_NDEV");
	return n && *n ? atoi(n) : 2;
}

static int env_ms(const char *name, int dflt)
{
	const char *v = getenv(name);
	return v && *v ? atoi(v) : dflt;
}

static void sleep_ms(int ms)
{
	if (ms <= 0)
		return;
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0)
		;
}

/* ---- streams ---------------------------------------------------------- */

enum { T_COPY, T_HOSTFN, T_WAIT, T_EVENT };

struct fevent {
	double ms;
	int pending; /* records enqueued but not yet reached */
	int recorded;
};

struct fstream;
struct task {
	struct task *next;
	int kind, delay_ms;
	void *dst;
	const void *src;
	void *owned; /* staging buffer, freed after the copy */
	size_t n;
	void (*fn)(void *);
	void *arg;
	struct fstream *on; /* T_WAIT: until on->done >= upto */
	unsigned long upto;
	struct fevent *ev;
};

struct fstream {
	struct fstream *next_all;
	struct task *head, *tail;
	unsigned long enq, done;
	int blocking, legacy, started;
	pthread_t th;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static struct fstream legacy_stream = {.blocking = 1, .legacy = 1};
static struct fstream *all_streams = &legacy_stream;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *worker(void *p)
{
	struct fstream *s = p;
	pthread_mutex_lock(&mu);
	for (;;) {
		while (!s->head)
			pthread_cond_wait(&cv, &mu);
		struct task *t = s->head;
		pthread_mutex_unlock(&mu);
		sleep_ms(t->delay_ms);
		switch (t->kind) {
		case T_COPY:
			memcpy(t->dst, t->src, t->n);
			free(t->owned);
			break;
		case T_HOSTFN:
			t->fn(t->arg);
			break;
		case T_WAIT:
			pthread_mutex_lock(&mu);
			while (t->on->done < t->upto)
				pthread_cond_wait(&cv, &mu);
			pthread_mutex_unlock(&mu);
			break;
		case T_EVENT:
			pthread_mutex_lock(&mu);
			t->ev->ms = now_ms();
			t->ev->pending--;
			t->ev->recorded = 1;
			pthread_mutex_unlock(&mu);
			break;
		}
		pthread_mutex_lock(&mu);
		s->head = t->next;
		if (!s->head)
			s->tail = NULL;
		s->done++;
		free(t);
		pthread_cond_broadcast(&cv);
	}
	return NULL;
}

static struct fstream *stream_of(void *h)
{
	/* NULL and CU_STREAM_LEGACY (0x1): the legacy default stream;
	 * CU_STREAM_PER_THREAD (0x2) is treated as the same here. */
	if ((uintptr_t)h <= 2)
		return &legacy_stream;
	return h;
}

/* With mu held.  Returns the stream's ticket: done >= ticket means the task
 * has run. */
static unsigned long push_locked(struct fstream *s, struct task *t)
{
	if (!s->started) {
		pthread_create(&s->th, NULL, worker, s);
		s->started = 1;
	}
	t->next = NULL;
	if (s->tail)
		s->tail->next = t;
	else
		s->head = t;
	s->tail = t;
	pthread_cond_broadcast(&cv);
	return ++s->enq;
}

static void push_wait_locked(struct fstream *s, struct fstream *on)
{
	if (on == s || on->done >= on->enq)
		return;
	struct task *w = calloc(1, sizeof *w);
	if (!w)
		abort();
	w->kind = T_WAIT;
	w->on = on;
	w->upto = on->enq;
	push_locked(s, w);
}

static unsigned long enqueue(void *h, struct task *t)
{
	struct fstream *s = stream_of(h);
	pthread_mutex_lock(&mu);
	/* The legacy stream's implicit synchronisation with blocking streams. */
	if (s->legacy) {
		for (struct fstream *b = all_streams; b; b = b->next_all)
			if (b->blocking && b != s)
				push_wait_locked(s, b);
	} else if (s->blocking) {
		push_wait_locked(s, &legacy_stream);
	}
	unsigned long ticket = push_locked(s, t);
	pthread_mutex_unlock(&mu);
	return ticket;
}

static void wait_ticket(void *h, unsigned long ticket)
{
	struct fstream *s = stream_of(h);
	pthread_mutex_lock(&mu);
	while (s->done < ticket)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
}

static struct task *new_task(int kind)
{
	struct task *t = calloc(1, sizeof *t);
	if (!t)
		abort();
	t->kind = kind;
	return t;
}

static unsigned long enqueue_copy(void *h, void *dst, const void *src, size_t n, int stage, int delay_ms)
{
	struct task *t = new_task(T_COPY);
	t->dst = dst;
	t->n = n;
	t->delay_ms = delay_ms;
	if (stage) {
		t->owned = malloc(n ? n : 1);
		if (!t->owned)
			abort();
		memcpy(t->owned, src, n);
		t->src = t->owned;
	} else {
		t->src = src;
	}
	return enqueue(h, t);
}

/* ---- pinned host memory ---------------------------------------------- */

struct pinned {
	struct pinned *next;
	char *p;
	size_t n;
};
static struct pinned *pinned_list;

static int is_pinned(const void *p, size_t n)
{
	int yes = 0;
	pthread_mutex_lock(&mu);
	for (struct pinned *q = pinned_list; q && !yes; q = q->next)
		yes = (const char *)p >= q->p && (const char *)p + n <= q->p + q->n;
	pthread_mutex_unlock(&mu);
	return yes;
}

CUresult cuInit(unsigned flags);
CUresult cuInit(unsigned flags)
{
	(void)flags;
	if (!strcmp(mode(), "nodev"))
		return 100;
	if (!strcmp(mode(), "hang"))
		for (;;)
			pause();
	if (!strcmp(mode(), "crash"))
		raise(SIGSEGV);
	return 0;
}

CUresult cuDriverGetVersion(int *v);
CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
CUresult cuDeviceGetCount(int *n);
CUresult cuDeviceGetCount(int *n) { *n = ndev(); return 0; }
CUresult cuDeviceGet(int *d, int ordinal);
CUresult cuDeviceGet(int *d, int ordinal)
{
	if (ordinal < 0 || ordinal >= ndev())
		return 101; /* CUDA_ERROR_INVALID_DEVICE */
	*d = ordinal;
	return 0;
}
CUresult cuDeviceGetName(char *name, int len, int d);
CUresult cuDeviceGetName(char *name, int len, int d) { (void)d; snprintf(name, (size_t)len, "Fake GPU"); return 0; }
CUresult cuDeviceGetPCIBusId(char *bus, int len, int d);
CUresult cuDeviceGetPCIBusId(char *bus, int len, int d) { snprintf(bus, (size_t)len, "0000:00:%02x.0", 6 + d); return 0; }
CUresult cuDevicePrimaryCtxRetain(void **ctx, int d);
CUresult cuDevicePrimaryCtxRetain(void **ctx, int d) { *ctx = (void *)(long)(d + 1); return 0; }
CUresult cuCtxSetCurrent(void *ctx);
CUresult cuCtxSetCurrent(void *ctx) { (void)ctx; return 0; }
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n);
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
	void *q = malloc(n);
	if (!q)
		return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
	*p = (CUdeviceptr)(unsigned long)q;
	return 0;
}
CUresult cuMemFree_v2(CUdeviceptr p);
CUresult cuMemFree_v2(CUdeviceptr p) { free((void *)(unsigned long)p); return 0; }
CUresult cuMemAllocHost_v2(void **p, size_t n);
CUresult cuMemAllocHost_v2(void **p, size_t n)
{
	struct pinned *q = malloc(sizeof *q);
	void *m = malloc(n ? n : 1);
	if (!q || !m) {
		free(q);
		free(m);
		return 2;
	}
	q->p = m;
	q->n = n;
	pthread_mutex_lock(&mu);
	q->next = pinned_list;
	pinned_list = q;
	pthread_mutex_unlock(&mu);
	*p = m;
	return 0;
}
CUresult cuMemHostAlloc(void **p, size_t n, unsigned flags);
CUresult cuMemHostAlloc(void **p, size_t n, unsigned flags) { (void)flags; return cuMemAllocHost_v2(p, n); }
CUresult cuMemFreeHost(void *p);
CUresult cuMemFreeHost(void *p)
{
	pthread_mutex_lock(&mu);
	for (struct pinned **q = &pinned_list; *q; q = &(*q)->next) {
		if ((*q)->p == p) {
			struct pinned *d = *q;
			*q = d->next;
			free(d);
			break;
		}
	}
	pthread_mutex_unlock(&mu);
	free(p);
	return 0;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n);
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n)
{
	void *dst = (void *)(unsigned long)d;
	if (is_pinned(s, n)) { /* synchronous with respect to the host */
		wait_ticket(NULL, enqueue_copy(NULL, dst, s, n, 0, 0));
		return 0;
	}
	/* Pageable: "a stream sync is performed before the copy is initiated";
	 * returns once the data is staged; the DMA lands later. */
	pthread_mutex_lock(&mu);
	unsigned long upto = legacy_stream.enq;
	pthread_mutex_unlock(&mu);
	wait_ticket(NULL, upto);
	enqueue_copy(NULL, dst, s, n, 1, env_ms("FAKE_CUDA_DMA_MS", 100));
	return 0;
}
CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n);
CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n)
{
	wait_ticket(NULL, enqueue_copy(NULL, d, (const void *)(unsigned long)s, n, 0, 0));
	return 0;
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, void *stream);
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, void *stream)
{
	enqueue_copy(stream, (void *)(unsigned long)d, s, n, !is_pinned(s, n), env_ms("FAKE_CUDA_ASYNC_MS", 2));
	return 0;
}
CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, void *stream);
CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, void *stream)
{
	unsigned long t = enqueue_copy(stream, d, (const void *)(unsigned long)s, n, 0, env_ms("FAKE_CUDA_ASYNC_MS", 2));
	if (!is_pinned(d, n)) /* pageable destination: synchronous */
		wait_ticket(stream, t);
	return 0;
}
CUresult cuLaunchHostFunc(void *stream, void (*fn)(void *), void *arg);
CUresult cuLaunchHostFunc(void *stream, void (*fn)(void *), void *arg)
{
	struct task *t = new_task(T_HOSTFN);
	t->fn = fn;
	t->arg = arg;
	enqueue(stream, t);
	return 0;
}
CUresult cuStreamCreate(void **s, unsigned f);
CUresult cuStreamCreate(void **s, unsigned f)
{
	struct fstream *n = calloc(1, sizeof *n);
	if (!n)
		return 2;
	n->blocking = !(f & CU_STREAM_NON_BLOCKING);
	pthread_mutex_lock(&mu);
	n->next_all = all_streams;
	all_streams = n;
	pthread_mutex_unlock(&mu);
	*s = n;
	return 0;
}
CUresult cuStreamQuery(void *h);
CUresult cuStreamQuery(void *h)
{
	struct fstream *s = stream_of(h);
	pthread_mutex_lock(&mu);
	int idle = s->done >= s->enq;
	pthread_mutex_unlock(&mu);
	return idle ? 0 : CU_NOT_READY;
}
CUresult cuStreamSynchronize(void *h);
CUresult cuStreamSynchronize(void *h)
{
	struct fstream *s = stream_of(h);
	pthread_mutex_lock(&mu);
	unsigned long upto = s->enq;
	pthread_mutex_unlock(&mu);
	wait_ticket(h, upto);
	return 0;
}
CUresult cuCtxSynchronize(void);
CUresult cuCtxSynchronize(void)
{
	pthread_mutex_lock(&mu);
	for (struct fstream *s = all_streams; s; s = s->next_all)
		while (s->done < s->enq)
			pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return 0;
}
CUresult cuEventCreate(void **e, unsigned f);
CUresult cuEventCreate(void **e, unsigned f) { (void)f; *e = calloc(1, sizeof(struct fevent)); return *e ? 0 : 2; }
CUresult cuEventRecord(void *e, void *s);
CUresult cuEventRecord(void *e, void *s)
{
	struct fevent *ev = e;
	struct task *t = new_task(T_EVENT);
	t->ev = ev;
	pthread_mutex_lock(&mu);
	ev->pending++;
	pthread_mutex_unlock(&mu);
	enqueue(s, t);
	return 0;
}
CUresult cuEventSynchronize(void *e);
CUresult cuEventSynchronize(void *e)
{
	struct fevent *ev = e;
	pthread_mutex_lock(&mu);
	while (ev->pending > 0)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return 0;
}
CUresult cuEventElapsedTime_v2(float *ms, void *a, void *b);
CUresult cuEventElapsedTime_v2(float *ms, void *a, void *b)
{
	struct fevent *x = a, *y = b;
	pthread_mutex_lock(&mu);
	int ready = !x->pending && !y->pending && x->recorded && y->recorded;
	double d = y->ms - x->ms;
	pthread_mutex_unlock(&mu);
	if (!ready)
		return CU_NOT_READY;
	*ms = (float)d;
	return 0;
}
CUresult cuGetErrorName(CUresult r, const char **s);
CUresult cuGetErrorName(CUresult r, const char **s)
{
	*s = r == 600 ? "CUDA_ERROR_NOT_READY" : r == 100 ? "CUDA_ERROR_NO_DEVICE" : r == 101 ? "CUDA_ERROR_INVALID_DEVICE" : r == 2 ? "CUDA_ERROR_OUT_OF_MEMORY" : "CUDA_ERROR_UNKNOWN";
	return 0;
}
CUresult cuGetErrorString(CUresult r, const char **s);
CUresult cuGetErrorString(CUresult r, const char **s)
{
	/* Wording modelled on the CUDA runtime messages for these codes; the
	 * tests only check that verify passes the text through. */
	*s = r == 600 ? "device not ready" : r == 100 ? "no CUDA-capable device is detected" : r == 101 ? "invalid device ordinal" : r == 2 ? "out of memory" : "unknown error";
	return 0;
}
