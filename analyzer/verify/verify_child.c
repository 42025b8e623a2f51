/* verify_child.c - what runs inside a verify child process.
 *
 * The probe child loads the CUDA driver and NCCL and lists GPUs; a rank
 * child initialises one communicator, checks all-reduce values and measures
 * bandwidth.  Both talk to the parent over a control socket with one text
 * line per event ("stage init", "check 262144 ok", "error init 5 ...").
 * CUDA and NCCL are only ever loaded here, after the mode's environment has
 * been applied, because NCCL reads its environment once, at first use.
 *
 * The CUDA and NCCL types and enum values below are declared here on purpose
 * (no headers are needed to build nccl-triage); they match cuda.h 13.0 and
 * nccl.h 2.28: ncclUniqueId is 128 bytes, ncclFloat32 = 7, ncclSum = 0. */
#include "verify/verify_int.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUstream;
typedef void *CUevent;
typedef unsigned long long CUdeviceptr;
#define CU_NOT_READY 600
#define CU_STREAM_NON_BLOCKING 1

typedef int ncclResult_t;
typedef void *ncclComm_t;
typedef struct { char internal[VERIFY_UID_BYTES]; } ncclUniqueId;
#define NCCL_FLOAT32 7
#define NCCL_SUM 0
#define NCCL_IN_PROGRESS 7

struct cuapi {
	void *h;
	CUresult (*Init)(unsigned);
	CUresult (*DriverGetVersion)(int *);
	CUresult (*DeviceGetCount)(int *);
	CUresult (*DeviceGet)(CUdevice *, int);
	CUresult (*DeviceGetName)(char *, int, CUdevice);
	CUresult (*DeviceGetPCIBusId)(char *, int, CUdevice);
	CUresult (*PrimaryCtxRetain)(CUcontext *, CUdevice);
	CUresult (*CtxSetCurrent)(CUcontext);
	CUresult (*MemAlloc)(CUdeviceptr *, size_t);
	CUresult (*MemFree)(CUdeviceptr);
	CUresult (*MemAllocHost)(void **, size_t);
	CUresult (*MemFreeHost)(void *);
	CUresult (*MemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
	CUresult (*MemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
	CUresult (*StreamCreate)(CUstream *, unsigned);
	CUresult (*StreamQuery)(CUstream);
	CUresult (*StreamSynchronize)(CUstream);
	CUresult (*EventCreate)(CUevent *, unsigned);
	CUresult (*EventRecord)(CUevent, CUstream);
	CUresult (*EventSynchronize)(CUevent);
	CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
	CUresult (*GetErrorName)(CUresult, const char **);
	CUresult (*GetErrorString)(CUresult, const char **);
};

struct ncclapi {
	void *h;
	ncclResult_t (*GetVersion)(int *);
	ncclResult_t (*GetUniqueId)(ncclUniqueId *);
	ncclResult_t (*CommInitRank)(ncclComm_t *, int, ncclUniqueId, int);
	ncclResult_t (*AllReduce)(const void *, void *, size_t, int, int, ncclComm_t, CUstream);
	ncclResult_t (*CommGetAsyncError)(ncclComm_t, ncclResult_t *);
	ncclResult_t (*CommAbort)(ncclComm_t);
	ncclResult_t (*CommDestroy)(ncclComm_t);
	const char *(*GetErrorString)(ncclResult_t);
	const char *(*GetLastError)(ncclComm_t); /* 2.13+, may be NULL */
};

static void say(int fd, const char *fmt, ...) NT_PRINTF(2, 3);
static void say(int fd, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof line - 2)
		n = sizeof line - 2;
	for (int i = 0; i < n; i++)
		if (line[i] == '\n' || line[i] == '\r')
			line[i] = ' ';
	line[n++] = '\n';
	const char *p = line;
	while (n > 0) {
		ssize_t w = send(fd, p, (size_t)n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (int)w;
	}
}

static const char *lib_path(void *h, const char *fallback)
{
	struct link_map *lm = NULL;
	if (h && dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0])
		return lm->l_name;
	return fallback;
}

#define SYM(api, field, name, required) do { \
	*(void **)&(api)->field = dlsym((api)->h, name); \
	if (!(api)->field && (required)) { missing = name; goto fail; } \
} while (0)

/* dlopen + resolve.  Returns NULL on success, else a static/dlerror message
 * written into err. */
static int load_cuda(struct cuapi *c, const char *path, char *err, size_t errsz)
{
	const char *missing = NULL;
	memset(c, 0, sizeof *c);
	c->h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!c->h) {
		const char *e = dlerror();
		snprintf(err, errsz, "%s", e ? e : path);
		return -1;
	}
	SYM(c, Init, "cuInit", 1);
	SYM(c, DriverGetVersion, "cuDriverGetVersion", 1);
	SYM(c, DeviceGetCount, "cuDeviceGetCount", 1);
	SYM(c, DeviceGet, "cuDeviceGet", 1);
	SYM(c, DeviceGetName, "cuDeviceGetName", 1);
	SYM(c, DeviceGetPCIBusId, "cuDeviceGetPCIBusId", 0);
	SYM(c, PrimaryCtxRetain, "cuDevicePrimaryCtxRetain", 1);
	SYM(c, CtxSetCurrent, "cuCtxSetCurrent", 1);
	SYM(c, MemAlloc, "cuMemAlloc_v2", 1);
	SYM(c, MemFree, "cuMemFree_v2", 1);
	SYM(c, MemAllocHost, "cuMemAllocHost_v2", 1);
	SYM(c, MemFreeHost, "cuMemFreeHost", 1);
	SYM(c, MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", 1);
	SYM(c, MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", 1);
	SYM(c, StreamCreate, "cuStreamCreate", 1);
	SYM(c, StreamQuery, "cuStreamQuery", 1);
	SYM(c, StreamSynchronize, "cuStreamSynchronize", 1);
	SYM(c, EventCreate, "cuEventCreate", 0);
	SYM(c, EventRecord, "cuEventRecord", 0);
	SYM(c, EventSynchronize, "cuEventSynchronize", 0);
	SYM(c, EventElapsedTime, "cuEventElapsedTime_v2", 0);
	if (!c->EventElapsedTime)
		SYM(c, EventElapsedTime, "cuEventElapsedTime", 0);
	SYM(c, GetErrorName, "cuGetErrorName", 0);
	SYM(c, GetErrorString, "cuGetErrorString", 0);
	return 0;
fail:
	snprintf(err, errsz, "%s: symbol %s not found", lib_path(c->h, path), missing);
	dlclose(c->h);
	c->h = NULL;
	return -1;
}

static int load_nccl(struct ncclapi *n, const char *path, char *err, size_t errsz)
{
	const char *missing = NULL;
	memset(n, 0, sizeof *n);
	n->h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!n->h) {
		const char *e = dlerror();
		snprintf(err, errsz, "%s", e ? e : path);
		return -1;
	}
	SYM(n, GetVersion, "ncclGetVersion", 1);
	SYM(n, GetUniqueId, "ncclGetUniqueId", 1);
	SYM(n, CommInitRank, "ncclCommInitRank", 1);
	SYM(n, AllReduce, "ncclAllReduce", 1);
	SYM(n, CommGetAsyncError, "ncclCommGetAsyncError", 0);
	SYM(n, CommAbort, "ncclCommAbort", 0);
	SYM(n, CommDestroy, "ncclCommDestroy", 1);
	SYM(n, GetErrorString, "ncclGetErrorString", 1);
	SYM(n, GetLastError, "ncclGetLastError", 0);
	return 0;
fail:
	snprintf(err, errsz, "%s: symbol %s not found", lib_path(n->h, path), missing);
	dlclose(n->h);
	n->h = NULL;
	return -1;
}

static const char *cu_err(const struct cuapi *c, CUresult r, char *out, size_t outsz)
{
	const char *name = NULL, *str = NULL;
	if (c->GetErrorName)
		c->GetErrorName(r, &name);
	if (c->GetErrorString)
		c->GetErrorString(r, &str);
	snprintf(out, outsz, "%s (%d)%s%s", name ? name : "CUDA error", r, str ? ": " : "", str ? str : "");
	return out;
}

/* ---- probe ---------------------------------------------------------- */

int verify_child_probe(int fd, const struct vchild_arg *a)
{
	struct strvec cands = {0};
	struct cuapi cu;
	struct ncclapi nc;
	char err[600], e2[300];
	int have_cuda = 0, have_nccl = 0;

	verify_cuda_candidates(a->cfg->cuda_lib, &cands);
	for (size_t i = 0; i < cands.n && !have_cuda; i++) {
		say(fd, "tried cuda %s", cands.v[i]);
		if (load_cuda(&cu, cands.v[i], err, sizeof err) == 0)
			have_cuda = 1;
		else
			say(fd, "loaderr cuda %s", err);
	}
	strvec_free(&cands);
	if (!have_cuda) {
		say(fd, "missing driver");
	} else {
		say(fd, "cuda_path %s", lib_path(cu.h, "libcuda.so.1"));
		int v = 0;
		if (cu.DriverGetVersion(&v) == 0)
			say(fd, "driver %d", v);
		CUresult r = cu.Init(0);
		if (r != 0) {
			say(fd, "missing gpu cuInit failed: %s", cu_err(&cu, r, e2, sizeof e2));
		} else {
			int n = 0;
			r = cu.DeviceGetCount(&n);
			if (r != 0)
				say(fd, "missing gpu cuDeviceGetCount failed: %s", cu_err(&cu, r, e2, sizeof e2));
			else if (n <= 0)
				say(fd, "missing gpu cuDeviceGetCount reports no device");
			say(fd, "ndev %d", r == 0 ? n : 0);
			for (int i = 0; r == 0 && i < n; i++) {
				CUdevice d;
				char name[256] = "?", bus[64] = "?";
				if (cu.DeviceGet(&d, i) != 0)
					continue;
				cu.DeviceGetName(name, sizeof name, d);
				if (cu.DeviceGetPCIBusId)
					cu.DeviceGetPCIBusId(bus, sizeof bus, d);
				say(fd, "dev %d %s %s", i, bus, name);
			}
		}
	}

	verify_nccl_candidates(a->cfg->nccl_lib, &cands);
	for (size_t i = 0; i < cands.n && !have_nccl; i++) {
		say(fd, "tried nccl %s", cands.v[i]);
		if (load_nccl(&nc, cands.v[i], err, sizeof err) == 0)
			have_nccl = 1;
		else
			say(fd, "loaderr nccl %s", err);
	}
	strvec_free(&cands);
	if (!have_nccl) {
		say(fd, "missing nccl");
	} else {
		int v = 0;
		say(fd, "nccl_path %s", lib_path(nc.h, "libnccl.so.2"));
		if (nc.GetVersion(&v) == 0)
			say(fd, "nccl_version %d", v);
	}
	say(fd, "done");
	return 0;
}

/* ---- rank ------------------------------------------------------------ */

struct rank_state {
	int fd;
	struct cuapi cu;
	struct ncclapi nc;
	ncclComm_t comm;
	CUstream stream;
};

static int nccl_fail(struct rank_state *s, const char *stage, const char *call, ncclResult_t r)
{
	say(s->fd, "error %s %d %s: %s", stage, r, call, s->nc.GetErrorString ? s->nc.GetErrorString(r) : "?");
	if (s->nc.GetLastError) {
		const char *le = s->nc.GetLastError(s->comm);
		if (le && *le)
			say(s->fd, "lasterr %s", le);
	}
	if (s->comm && s->nc.CommAbort)
		s->nc.CommAbort(s->comm);
	fflush(stdout);
	fflush(stderr);
	return 1;
}

static int cuda_fail(struct rank_state *s, const char *stage, const char *call, CUresult r)
{
	char e[300];
	say(s->fd, "error %s %d %s: %s", stage, r, call, cu_err(&s->cu, r, e, sizeof e));
	if (s->comm && s->nc.CommAbort)
		s->nc.CommAbort(s->comm);
	return 1;
}

/* Wait for the stream while watching NCCL's asynchronous error, as PyTorch's
 * watchdog does. */
static int wait_stream(struct rank_state *s, const char *stage)
{
	for (;;) {
		CUresult r = s->cu.StreamQuery(s->stream);
		if (r == 0)
			return 0;
		if (r != CU_NOT_READY)
			return cuda_fail(s, stage, "cuStreamQuery", r);
		if (s->nc.CommGetAsyncError) {
			ncclResult_t ar = 0;
			ncclResult_t q = s->nc.CommGetAsyncError(s->comm, &ar);
			if (q != 0)
				return nccl_fail(s, stage, "ncclCommGetAsyncError", q);
			if (ar != 0 && ar != NCCL_IN_PROGRESS)
				return nccl_fail(s, stage, "ncclCommGetAsyncError", ar);
		}
		struct timespec ts = {0, 50000};
		nanosleep(&ts, NULL);
	}
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int recv_all(int fd, void *p, size_t n)
{
	char *q = p;
	while (n) {
		ssize_t r = recv(fd, q, n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		q += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Values each rank contributes: small integers, so every sum is exact in
 * float and a single flipped or stale element is caught. */
static float pattern(int rank, size_t i)
{
	return (float)(rank + 1) + (float)(i % 13);
}

static float expected(int nranks, size_t i)
{
	return (float)(nranks * (nranks + 1) / 2) + (float)nranks * (float)(i % 13);
}

/* The device buffers of the run, and pinned host buffers for the check. */
struct rank_bufs {
	CUdeviceptr dsend, drecv;
	float *host, *back;
	size_t count, bytes;
};

/* stage cuda: the context, a non-blocking stream, the buffers; 0 or the exit code */
static int stage_cuda(struct rank_state *s, const struct verify_cfg *cfg, int rank, struct rank_bufs *b)
{
	CUdevice dev;
	CUcontext ctx;
	CUresult r;
	b->count = cfg->bytes / sizeof(float);
	if (b->count == 0)
		b->count = 1;
	b->bytes = b->count * sizeof(float);
	if ((r = s->cu.Init(0)) != 0)
		return cuda_fail(s, "cuda", "cuInit", r) + 9;
	if ((r = s->cu.DeviceGet(&dev, cfg->gpus[rank])) != 0)
		return cuda_fail(s, "cuda", "cuDeviceGet", r) + 9;
	if ((r = s->cu.PrimaryCtxRetain(&ctx, dev)) != 0)
		return cuda_fail(s, "cuda", "cuDevicePrimaryCtxRetain", r) + 9;
	if ((r = s->cu.CtxSetCurrent(ctx)) != 0)
		return cuda_fail(s, "cuda", "cuCtxSetCurrent", r) + 9;
	if ((r = s->cu.StreamCreate(&s->stream, CU_STREAM_NON_BLOCKING)) != 0)
		return cuda_fail(s, "cuda", "cuStreamCreate", r) + 9;
	if ((r = s->cu.MemAlloc(&b->dsend, b->bytes)) != 0 || (r = s->cu.MemAlloc(&b->drecv, b->bytes)) != 0)
		return cuda_fail(s, "cuda", "cuMemAlloc", r) + 9;
	/* Pinned host buffers: the copies below are then truly asynchronous and
	 * ordered on s->stream with the collective (see the check stage). */
	void *hp = NULL, *bp = NULL;
	if ((r = s->cu.MemAllocHost(&hp, b->bytes)) != 0 || (r = s->cu.MemAllocHost(&bp, b->bytes)) != 0)
		return cuda_fail(s, "cuda", "cuMemAllocHost", r) + 9;
	b->host = hp;
	b->back = bp;
	return 0;
}

/* stage uid: rank 0 creates the unique id and says it, the others receive it */
static int stage_uid(struct rank_state *s, int rank, ncclUniqueId *id)
{
	ncclResult_t nr;
	if (rank == 0) {
		if ((nr = s->nc.GetUniqueId(id)) != 0)
			return nccl_fail(s, "uid", "ncclGetUniqueId", nr);
		char hex[2 * VERIFY_UID_BYTES + 1];
		verify_hex((const unsigned char *)id->internal, VERIFY_UID_BYTES, hex);
		say(s->fd, "uid %s", hex);
	} else if (recv_all(s->fd, id->internal, VERIFY_UID_BYTES) != 0) {
		say(s->fd, "error uid 0 no unique id received: rank 0 did not create one");
		return 1;
	}
	return 0;
}

/* One all-reduce of cn elements whose values are checked; 0 or the exit code. */
static int check_one(struct rank_state *s, const struct rank_bufs *b, int rank, int n, size_t cn, int *bad)
{
	CUresult r;
	ncclResult_t nr;
	int fd = s->fd;
	CUdeviceptr dsend = b->dsend, drecv = b->drecv;
	float *host = b->host, *back = b->back;
	for (size_t i = 0; i < cn; i++)
		host[i] = pattern(rank, i);
	memset(back, 0xff, cn * sizeof(float));
	/* Every copy goes on the run's stream, in order with the collective:
	 * fill send, poison receive, all-reduce, copy the result back, then
	 * wait for the stream.  A plain cuMemcpyHtoD runs on the legacy
	 * stream, which a CU_STREAM_NON_BLOCKING stream does not wait for,
	 * and from pageable memory it may return before its DMA lands: the
	 * poison could then overwrite NCCL's result (issue 15).  back is
	 * both the poison source and the result destination; the stream
	 * orders the two. */
	if ((r = s->cu.MemcpyHtoDAsync(dsend, host, cn * sizeof(float), s->stream)) != 0 ||
	    (r = s->cu.MemcpyHtoDAsync(drecv, back, cn * sizeof(float), s->stream)) != 0)
		return cuda_fail(s, "check", "cuMemcpyHtoDAsync", r);
	nr = s->nc.AllReduce((void *)(uintptr_t)dsend, (void *)(uintptr_t)drecv, cn,
	                    NCCL_FLOAT32, NCCL_SUM, s->comm, s->stream);
	if (nr != 0)
		return nccl_fail(s, "check", "ncclAllReduce", nr);
	if ((r = s->cu.MemcpyDtoHAsync(back, drecv, cn * sizeof(float), s->stream)) != 0)
		return cuda_fail(s, "check", "cuMemcpyDtoHAsync", r);
	if (wait_stream(s, "check"))
		return 1;
	size_t nbad = 0, first = 0;
	for (size_t i = 0; i < cn; i++) {
		if (back[i] != expected(n, i)) {
			if (nbad++ == 0)
				first = i;
		}
	}
	if (nbad) {
		*bad = 1;
		say(fd, "check %zu bad element %zu expected %g got %g, %zu of %zu elements wrong",
		    cn, first, (double)expected(n, first), (double)back[first], nbad, cn);
	} else {
		say(fd, "check %zu ok", cn);
	}
	return 0;
}

/* stage check: three sizes, each checked; 0 or the exit code */
static int stage_check(struct rank_state *s, const struct rank_bufs *b, int rank, int n, int *bad)
{
	size_t count = b->count;
	size_t counts[3] = {256, 262144, count};
	for (int c = 0; c < 3; c++) {
		size_t cn = counts[c] < count ? counts[c] : count;
		if (c > 0 && cn <= (counts[c - 1] < count ? counts[c - 1] : count))
			continue;
		int rc = check_one(s, b, rank, n, cn, bad);
		if (rc)
			return rc;
	}
	return 0;
}

/* stage bw: warm-up, then timed all-reduces (events when the driver has them) */
static int stage_bw(struct rank_state *s, const struct verify_cfg *cfg, const struct rank_bufs *b)
{
	ncclResult_t nr;
	for (int i = 0; i < cfg->warmup; i++) {
		nr = s->nc.AllReduce((void *)(uintptr_t)b->dsend, (void *)(uintptr_t)b->drecv, b->count,
		                    NCCL_FLOAT32, NCCL_SUM, s->comm, s->stream);
		if (nr != 0)
			return nccl_fail(s, "bw", "ncclAllReduce", nr);
	}
	if (wait_stream(s, "bw"))
		return 1;
	CUevent e0 = NULL, e1 = NULL;
	int events = s->cu.EventCreate && s->cu.EventRecord && s->cu.EventElapsedTime &&
	             s->cu.EventSynchronize && s->cu.EventCreate(&e0, 0) == 0 && s->cu.EventCreate(&e1, 0) == 0;
	double w0 = now_ms();
	if (events)
		s->cu.EventRecord(e0, s->stream);
	for (int i = 0; i < cfg->iters; i++) {
		nr = s->nc.AllReduce((void *)(uintptr_t)b->dsend, (void *)(uintptr_t)b->drecv, b->count,
		                    NCCL_FLOAT32, NCCL_SUM, s->comm, s->stream);
		if (nr != 0)
			return nccl_fail(s, "bw", "ncclAllReduce", nr);
	}
	if (events)
		s->cu.EventRecord(e1, s->stream);
	if (wait_stream(s, "bw"))
		return 1;
	double ms = now_ms() - w0;
	float ems = 0;
	if (events && s->cu.EventSynchronize(e1) == 0 && s->cu.EventElapsedTime(&ems, e0, e1) == 0 && ems > 0)
		ms = ems;
	say(s->fd, "bw %zu %d %.4f %s", b->bytes, cfg->iters, ms, events ? "events" : "wallclock");
	return 0;
}

int verify_child_rank(int fd, const struct vchild_arg *a)
{
	const struct verify_cfg *cfg = a->cfg;
	struct rank_state s;
	char err[600];
	int rank = a->rank, n = cfg->nranks, rc;
	ncclResult_t nr;

	memset(&s, 0, sizeof s);
	s.fd = fd;
	say(fd, "stage load");
	if (load_cuda(&s.cu, cfg->resolved_cuda, err, sizeof err) != 0) {
		say(fd, "error load 0 dlopen libcuda: %s", err);
		return 10;
	}
	if (load_nccl(&s.nc, cfg->resolved_nccl, err, sizeof err) != 0) {
		say(fd, "error load 0 dlopen libnccl: %s", err);
		return 10;
	}
	say(fd, "stage cuda");
	struct rank_bufs b;
	memset(&b, 0, sizeof b);
	if ((rc = stage_cuda(&s, cfg, rank, &b)))
		return rc;
	say(fd, "stage uid");
	ncclUniqueId id;
	if ((rc = stage_uid(&s, rank, &id)))
		return rc;
	say(fd, "stage init");
	double t0 = now_ms();
	nr = s.nc.CommInitRank(&s.comm, n, id, rank);
	if (nr != 0)
		return nccl_fail(&s, "init", "ncclCommInitRank", nr);
	say(fd, "init_ms %.1f", now_ms() - t0);
	say(fd, "stage check");
	int bad = 0;
	if ((rc = stage_check(&s, &b, rank, n, &bad)))
		return rc;
	s.cu.MemFreeHost(b.host);
	s.cu.MemFreeHost(b.back);
	say(fd, "stage bw");
	if ((rc = stage_bw(&s, cfg, &b)))
		return rc;
	say(fd, "stage destroy");
	nr = s.nc.CommDestroy(s.comm);
	s.comm = NULL;
	if (nr != 0)
		return nccl_fail(&s, "destroy", "ncclCommDestroy", nr);
	s.cu.MemFree(b.dsend);
	s.cu.MemFree(b.drecv);
	fflush(stdout);
	fflush(stderr);
	say(fd, "done");
	return bad ? 2 : 0;
}
