/* fake_cuda.c - a stand-in libcuda.so.1 for the CPU-only tests of
 * `nccl-triage verify` (tests/verify/run.sh).  "Device" memory is host
 * memory; streams complete at once.  FAKE_CUDA_MODE selects the behaviour:
 *   ok (default)  FAKE_CUDA_NDEV devices (default 2) named "Fake GPU"
 *   nodev         cuInit returns CUDA_ERROR_NO_DEVICE (100)
 *   hang          cuInit never returns
 *   crash         cuInit dies of SIGSEGV
 * Not a CUDA implementation: only what verify calls. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

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
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n);
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n) { memcpy((void *)(unsigned long)d, s, n); return 0; }
CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n);
CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n) { memcpy(d, (void *)(unsigned long)s, n); return 0; }
CUresult cuStreamCreate(void **s, unsigned f);
CUresult cuStreamCreate(void **s, unsigned f) { (void)f; *s = (void *)1; return 0; }
CUresult cuStreamQuery(void *s);
CUresult cuStreamQuery(void *s) { (void)s; return 0; }
CUresult cuStreamSynchronize(void *s);
CUresult cuStreamSynchronize(void *s) { (void)s; return 0; }
CUresult cuEventCreate(void **e, unsigned f);
CUresult cuEventCreate(void **e, unsigned f) { (void)f; *e = calloc(1, sizeof(double)); return *e ? 0 : 2; }
CUresult cuEventRecord(void *e, void *s);
CUresult cuEventRecord(void *e, void *s)
{
	struct timespec ts;
	(void)s;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	*(double *)e = ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
	return 0;
}
CUresult cuEventSynchronize(void *e);
CUresult cuEventSynchronize(void *e) { (void)e; return 0; }
CUresult cuEventElapsedTime_v2(float *ms, void *a, void *b);
CUresult cuEventElapsedTime_v2(float *ms, void *a, void *b) { *ms = (float)(*(double *)b - *(double *)a); return 0; }
CUresult cuGetErrorName(CUresult r, const char **s);
CUresult cuGetErrorName(CUresult r, const char **s)
{
	*s = r == 100 ? "CUDA_ERROR_NO_DEVICE" : r == 101 ? "CUDA_ERROR_INVALID_DEVICE" : r == 2 ? "CUDA_ERROR_OUT_OF_MEMORY" : "CUDA_ERROR_UNKNOWN";
	return 0;
}
CUresult cuGetErrorString(CUresult r, const char **s);
CUresult cuGetErrorString(CUresult r, const char **s)
{
	/* Wording modelled on the CUDA runtime messages for these codes; the
	 * tests only check that verify passes the text through. */
	*s = r == 100 ? "no CUDA-capable device is detected" : r == 101 ? "invalid device ordinal" : r == 2 ? "out of memory" : "unknown error";
	return 0;
}
