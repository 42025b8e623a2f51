/* progress.c - see progress.h. */
#include "cli/progress.h"

#include <stdlib.h>
#include <time.h>
#include "base/util.h"

struct progress {
	FILE *out;
	size_t total;
	uint64_t total_bytes;
	double start, last;
	int drawn;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct progress *progress_new(FILE *out, size_t total_items, uint64_t total_bytes)
{
	struct progress *p = xcalloc(1, sizeof *p);
	p->out = out;
	p->total = total_items;
	p->total_bytes = total_bytes;
	p->start = now();
	p->last = -1;
	return p;
}

static void fmt_dur(double s, char *buf, size_t n)
{
	if (s < 0 || s > 360000) {
		snprintf(buf, n, "--:--");
		return;
	}
	unsigned long t = (unsigned long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, n, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, n, "%lu:%02lu", t / 60, t % 60);
}

void progress_update(struct progress *p, size_t done, uint64_t bytes_done, int force)
{
	if (!p)
		return;
	double t = now();
	if (!force && p->last >= 0 && t - p->last < 0.1)
		return;
	p->last = t;
	double el = t - p->start;
	double frac;
	if (p->total_bytes)
		frac = (double)bytes_done / (double)p->total_bytes;
	else
		frac = p->total ? (double)done / (double)p->total : 1.0;
	if (frac > 1)
		frac = 1;
	char bar[21];
	int fill = (int)(frac * 20 + 0.5);
	for (int i = 0; i < 20; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[20] = 0;
	double rate = el > 0 ? (double)bytes_done / el / 1e6 : 0;
	char eta[48];
	if (frac > 0 && done < p->total)
		fmt_dur(el * (1 - frac) / frac, eta, sizeof eta);
	else if (done >= p->total)
		fmt_dur(0, eta, sizeof eta);
	else
		fmt_dur(-1, eta, sizeof eta);
	fprintf(p->out, "\r[%s] %zu/%zu bundles  %.1f MB/s  ETA %s\033[K", bar, done, p->total, rate, eta);
	fflush(p->out);
	p->drawn = 1;
}

void progress_free(struct progress *p)
{
	if (!p)
		return;
	if (p->drawn) {
		fputs("\r\033[K", p->out);
		fflush(p->out);
	}
	free(p);
}
