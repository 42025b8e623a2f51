/* fake_nccl.c - a stand-in libnccl.so.2 for the CPU-only tests of
 * `nccl-triage verify` (tests/verify/run.sh).  Ranks are separate processes,
 * as with the real library; the all-reduce really sums the ranks' buffers,
 * exchanged through files in FAKE_NCCL_DIR (default /tmp).  Log lines copy
 * the format and the texts that NCCL 2.28.9 prints (see
 * shared/reference/nccl-reference.md), and only appear with NCCL_DEBUG=INFO,
 * like the real ones.
 *
 * Environment the real NCCL 2.28 rejects, rejected the same way here:
 *   NCCL_SOCKET_IFNAME=nonexist*  ncclGetUniqueId fails: "Bootstrap : no socket interface found" (5)
 *   NCCL_ALGO=simple               ncclCommInitRank fails: Unrecognized element token (5)
 * Transport lines follow NCCL_P2P_DISABLE / NCCL_SHM_DISABLE.
 * FAKE_NCCL_MODE (for rank FAKE_NCCL_RANK, default every rank):
 *   ok (default) | init_fail (ncclSystemError with a WARN) | init_hang |
 *   init_crash (SIGSEGV) | wrong_values (one element off by one) | coll_hang
 *
 * ncclAllReduce is asynchronous, as the real one is: it enqueues the work on
 * the caller's stream (cuLaunchHostFunc of the libcuda.so.1 already loaded,
 * i.e. fake_cuda.c) and returns; the work starts FAKE_NCCL_COLL_MS (default
 * 2) ms after the stream reaches it.  A failure while it runs (a peer's data
 * never comes) is reported by ncclCommGetAsyncError, and the stream then
 * never completes, like a kernel waiting for a peer. */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef int ncclResult_t;
typedef struct { char internal[128]; } ncclUniqueId;

struct fcomm {
	char uid[33];
	int rank, nranks, dev;
	unsigned long seq;
	int async_err; /* written by the stream's thread: __atomic */
};

static char last_err[512];

static int debug_info(void)
{
	const char *d = getenv("NCCL_DEBUG");
	return d && !strcasecmp(d, "INFO");
}

static int dev_of(void)
{
	const char *r = getenv("FAKE_NCCL_DEV");
	return r ? atoi(r) : 0;
}

static void info(int dev, const char *fmt, ...)
{
	if (!debug_info())
		return;
	char host[64] = "fakehost";
	va_list ap;
	printf("%s:%d:%d [%d] NCCL INFO ", host, (int)getpid(), (int)getpid(), dev);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static void warn(int dev, const char *where, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_err, sizeof last_err, fmt, ap);
	va_end(ap);
	const char *d = getenv("NCCL_DEBUG");
	if (!d || (strcasecmp(d, "INFO") && strcasecmp(d, "WARN")))
		return;
	char ts[64];
	time_t t = time(NULL);
	strftime(ts, sizeof ts, "%Y-%m-%d %H:%M:%S", localtime(&t));
	printf("\n[%s] fakehost:%d:%d [%d] %s NCCL WARN %s\n", ts, (int)getpid(), (int)getpid(), dev, where, last_err);
	fflush(stdout);
}

static int misbehaves(const char *m, int rank)
{
	const char *mode = getenv("FAKE_NCCL_MODE");
	const char *r = getenv("FAKE_NCCL_RANK");
	if (!mode || strcmp(mode, m))
		return 0;
	return !r || !*r || atoi(r) < 0 || atoi(r) == rank;
}

static void env_lines(int dev)
{
	const char *v;
	if ((v = getenv("NCCL_SOCKET_IFNAME")))
		info(dev, "NCCL_SOCKET_IFNAME set by environment to %s", v);
	if ((v = getenv("NCCL_ALGO")))
		info(dev, "NCCL_ALGO set by environment to %s", v);
	if ((v = getenv("NCCL_P2P_DISABLE")))
		info(dev, "NCCL_P2P_DISABLE set by environment to %s", v);
	if ((v = getenv("NCCL_SHM_DISABLE")))
		info(dev, "NCCL_SHM_DISABLE set by environment to %s", v);
}

ncclResult_t ncclGetVersion(int *v);
ncclResult_t ncclGetVersion(int *v) { *v = 22809; return 0; }

const char *ncclGetErrorString(ncclResult_t r);
const char *ncclGetErrorString(ncclResult_t r)
{
	switch (r) {
	case 0: return "no error";
	case 1: return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
	case 2: return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
	case 3: return "internal error - please report this issue to the NCCL developers";
	case 4: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
	case 5: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
	case 6: return "remote process exited or there was a network error";
	case 7: return "NCCL operation in progress";
	}
	return "unknown result code";
}

const char *ncclGetLastError(void *comm);
const char *ncclGetLastError(void *comm) { (void)comm; return last_err; }

ncclResult_t ncclGetUniqueId(ncclUniqueId *id);
ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
	int dev = dev_of();
	info(dev, "NCCL version 2.28.9+cuda13.0");
	env_lines(dev);
	const char *ifn = getenv("NCCL_SOCKET_IFNAME");
	if (ifn && !strncmp(ifn, "nonexist", 8)) {
		warn(dev, "bootstrap.cc:114", "Bootstrap : no socket interface found");
		info(dev, "init.cc:126 -> 5");
		info(dev, "init.cc:160 -> 5");
		return 5;
	}
	info(dev, "Bootstrap: Using eth0:192.0.2.2<0>");
	memset(id, 0, sizeof *id);
	snprintf(id->internal, sizeof id->internal, "%08x%08x%08lx", (unsigned)getpid(),
	         (unsigned)rand(), (unsigned long)time(NULL));
	return 0;
}

ncclResult_t ncclCommInitRank(struct fcomm **comm, int nranks, ncclUniqueId id, int rank);
ncclResult_t ncclCommInitRank(struct fcomm **comm, int nranks, ncclUniqueId id, int rank)
{
	int dev = rank; /* verify hands rank r GPU r in the tests */
	if (rank != 0) {
		info(dev, "cudaDriverVersion 13000");
		env_lines(dev);
	}
	if (misbehaves("init_hang", rank)) {
		info(dev, "ncclCommInitRank comm 0x1 rank %d nranks %d cudaDev %d nvmlDev %d busId %x commId 0x1 - Init START",
		     rank, nranks, dev, dev, 0x60 + dev);
		for (;;)
			pause();
	}
	if (misbehaves("init_crash", rank))
		raise(SIGSEGV);
	const char *algo = getenv("NCCL_ALGO");
	if (algo && !strcasecmp(algo, "simple")) {
		warn(dev, "graph/tuning.cc:104", "Unrecognized element token \"%s\" when parsing \"%s\"", algo, algo);
		info(dev, "graph/tuning.cc:427 -> 5");
		info(dev, "init.cc:1356 -> 5");
		return 5;
	}
	if (misbehaves("init_fail", rank)) {
		warn(dev, "misc/shmutils.cc:87", "Error: failed to extend /dev/shm/nccl-fake to 9637892 bytes, error: No space left on device (28)");
		info(dev, "init.cc:1582 -> 2");
		return 2;
	}
	struct fcomm *c = calloc(1, sizeof *c);
	if (!c)
		return 2;
	memcpy(c->uid, id.internal, 32);
	c->rank = rank;
	c->nranks = nranks;
	c->dev = dev;
	info(dev, "ncclCommInitRank comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %x commId 0x1 - Init START",
	     (void *)c, rank, nranks, dev, dev, 0x60 + dev);
	const char *p2p = getenv("NCCL_P2P_DISABLE"), *shm = getenv("NCCL_SHM_DISABLE");
	int nop2p = p2p && atoi(p2p), noshm = shm && atoi(shm);
	for (int ch = 0; nranks > 1 && ch < 2; ch++) {
		int peer = (rank + 1) % nranks;
		if (!nop2p)
			info(dev, "Channel %02d/0 : %d[%d] -> %d[%d] via P2P/CUMEM/read", ch, rank, dev, peer, peer);
		else if (!noshm)
			info(dev, "Channel %02d : %d[%d] -> %d[%d] via SHM/direct/direct", ch, rank, dev, peer, peer);
		else
			info(dev, "Channel %02d/0 : %d[%d] -> %d[%d] [send] via NET/Socket/0", ch, rank, dev, peer, peer);
	}
	info(dev, "ncclCommInitRank comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %x commId 0x1 - Init COMPLETE",
	     (void *)c, rank, nranks, dev, dev, 0x60 + dev);
	*comm = c;
	return 0;
}

static char *slot(const struct fcomm *c, unsigned long seq, int rank)
{
	const char *dir = getenv("FAKE_NCCL_DIR");
	char *p = malloc(4096);
	if (p)
		snprintf(p, 4096, "%s/fake-%s-%lu-%d", dir && *dir ? dir : "/tmp", c->uid, seq, rank);
	return p;
}

struct coll {
	struct fcomm *c;
	const void *s;
	void *r;
	size_t count;
	unsigned long seq;
};

/* A failed collective: the error is for ncclCommGetAsyncError, the stream
 * stays busy (verify aborts the communicator and exits). */
static void coll_fail(struct fcomm *c, int err) __attribute__((noreturn));
static void coll_fail(struct fcomm *c, int err)
{
	__atomic_store_n(&c->async_err, err, __ATOMIC_SEQ_CST);
	for (;;)
		sleep(1);
}

/* Runs on the stream's thread of fake_cuda.c. */
static void coll_run(void *p)
{
	struct coll *op = p;
	struct fcomm *c = op->c;
	size_t count = op->count, bytes = count * sizeof(float);
	unsigned long seq = op->seq;
	float *out = op->r;
	const char *ms = getenv("FAKE_NCCL_COLL_MS");
	int delay = ms && *ms ? atoi(ms) : 2;
	if (delay > 0)
		usleep((useconds_t)delay * 1000);
	if (misbehaves("coll_hang", c->rank))
		for (;;)
			pause();
	if (c->nranks == 1) {
		memmove(out, op->s, bytes);
	} else {
		char *mine = slot(c, seq, c->rank), tmp[4200];
		snprintf(tmp, sizeof tmp, "%s.tmp", mine);
		FILE *f = fopen(tmp, "wb");
		if (!f || fwrite(op->s, 1, bytes, f) != bytes || fclose(f) != 0 || rename(tmp, mine) != 0) {
			warn(c->dev, "fake_nccl.c", "cannot write %s: %s", tmp, strerror(errno));
			free(mine);
			coll_fail(c, 2);
		}
		free(mine);
		float *acc = calloc(count ? count : 1, sizeof(float)), *in = malloc(bytes ? bytes : 1);
		for (int k = 0; k < c->nranks; k++) {
			char *path = slot(c, seq, k);
			FILE *g = NULL;
			for (int tries = 0; tries < 30000 && !(g = fopen(path, "rb")); tries++)
				usleep(1000);
			if (!g || fread(in, 1, bytes, g) != bytes) {
				warn(c->dev, "fake_nccl.c", "no data from rank %d", k);
				if (g)
					fclose(g);
				free(path); free(acc); free(in);
				coll_fail(c, 6);
			}
			fclose(g);
			free(path);
			for (size_t i = 0; i < count; i++)
				acc[i] += in[i];
		}
		memcpy(out, acc, bytes);
		free(acc);
		free(in);
		if (seq > 2) { /* every peer has read it: they all wrote seq-1 */
			char *old = slot(c, seq - 2, c->rank);
			unlink(old);
			free(old);
		}
	}
	if (misbehaves("wrong_values", c->rank) && count > 0)
		out[count / 2] += 1.0f;
	free(op);
}

typedef int (*launch_fn)(void *stream, void (*fn)(void *), void *arg);

ncclResult_t ncclAllReduce(const void *s, void *r, size_t count, int type, int op, struct fcomm *c, void *stream);
ncclResult_t ncclAllReduce(const void *s, void *r, size_t count, int type, int op, struct fcomm *c, void *stream)
{
	static launch_fn launch;
	if (type != 7 || op != 0)
		return 4;
	if (!launch) {
		/* The libcuda.so.1 verify loaded (found by its soname), as the
		 * real NCCL finds the driver. */
		void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
		if (h)
			*(void **)&launch = dlsym(h, "cuLaunchHostFunc");
		if (!launch) {
			warn(c->dev, "fake_nccl.c", "cuLaunchHostFunc not found in the loaded libcuda.so.1");
			return 1;
		}
	}
	struct coll *k = malloc(sizeof *k);
	if (!k)
		return 2;
	k->c = c;
	k->s = s;
	k->r = r;
	k->count = count;
	k->seq = ++c->seq;
	if (launch(stream, coll_run, k) != 0) {
		free(k);
		return 1;
	}
	return 0;
}

ncclResult_t ncclCommGetAsyncError(struct fcomm *c, ncclResult_t *e);
ncclResult_t ncclCommGetAsyncError(struct fcomm *c, ncclResult_t *e) { *e = __atomic_load_n(&c->async_err, __ATOMIC_SEQ_CST); return 0; }
ncclResult_t ncclCommAbort(struct fcomm *c);
/* Not freed: a collective may still be running on the stream's thread. */
ncclResult_t ncclCommAbort(struct fcomm *c) { (void)c; return 0; }
ncclResult_t ncclCommDestroy(struct fcomm *c);
ncclResult_t ncclCommDestroy(struct fcomm *c)
{
	info(c->dev, "comm %p rank %d nranks %d cudaDev %d busId %x - Destroy COMPLETE", (void *)c, c->rank, c->nranks, c->dev, 0x60 + c->dev);
	free(c);
	return 0;
}
