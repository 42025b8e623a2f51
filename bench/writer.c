/* writer.c - a job for bench/overhead.sh: writes RATE bytes a second of
 * log-like lines for SECONDS, one write() per line (the worst case for a
 * copier: python's print with PYTHONUNBUFFERED, NCCL's INFO lines), to
 * stdout, or alternately to stdout and stderr with "both".
 *   writer RATE SECONDS LINE_BYTES [both] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	double rate = atof(argv[1]), secs = atof(argv[2]);
	size_t len = (size_t)atol(argv[3]);
	int both = argc > 4 && !strcmp(argv[4], "both");
	char *line = malloc(len);
	memset(line, 'x', len);
	memcpy(line, "vm:1234:1234 [0] NCCL INFO ", 27 < len ? 27 : len);
	line[len - 1] = '\n';
	double t0 = now(), sent = 0;
	unsigned long n = 0;
	while (now() - t0 < secs) {
		/* 1 ms worth of lines, then catch up with the clock */
		double due = (now() - t0 + 0.001) * rate;
		while (sent < due) {
			if (write(both && (n & 1) ? 2 : 1, line, len) != (ssize_t)len)
				return 1;
			sent += len;
			n++;
		}
		struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL);
	}
	return 0;
}
