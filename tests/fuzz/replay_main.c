/* replay_main.c - runs a libFuzzer target as a plain program: every file in
 * the directories (or the files) given as arguments is passed once to
 * LLVMFuzzerTestOneInput.  Missing directories are fine (no crashes found
 * yet).  A target that crashes kills the program (as under libFuzzer); one
 * input that takes longer than REPLAY_TIMEOUT seconds (default 60) counts as
 * a hang: its name is printed and the program exits 1.  The last line is
 * "N passed, 0 failed" with N the number of inputs replayed.
 * Used by tests/run.sh:  fuzz_NAME tests/fuzz/corpus/NAME tests/fuzz/crashes */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static const char *current = "";

static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "replay: hang (REPLAY_TIMEOUT exceeded) on input ";
	if (write(2, msg, sizeof msg - 1) < 0 || write(2, current, strlen(current)) < 0 ||
	    write(2, "\n0 passed, 1 failed\n", 20) < 0)
		_exit(1);
	_exit(1);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Returns 0 when the file was replayed, -1 when it could not be read. */
static int replay_file(const char *path, unsigned timeout)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t cap = 1 << 16, len = 0;
	uint8_t *data = malloc(cap);
	size_t r;
	while (data && (r = fread(data + len, 1, cap - len, f)) > 0) {
		len += r;
		if (len == cap) {
			uint8_t *nd = realloc(data, cap *= 2);
			if (!nd) {
				free(data);
				data = NULL;
			} else {
				data = nd;
			}
		}
	}
	int bad = ferror(f) || !data;
	fclose(f);
	if (bad) {
		fprintf(stderr, "replay: %s: cannot read\n", path);
		free(data);
		return -1;
	}
	/* an exact-size copy so that ASan sees reads past the end */
	uint8_t *exact = malloc(len ? len : 1);
	if (len)
		memcpy(exact, data, len);
	free(data);
	current = path;
	alarm(timeout);
	LLVMFuzzerTestOneInput(exact, len);
	alarm(0);
	free(exact);
	return 0;
}

int main(int argc, char **argv)
{
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	const char *t = getenv("REPLAY_TIMEOUT");
	unsigned timeout = t && atoi(t) > 0 ? (unsigned)atoi(t) : 60;
	signal(SIGALRM, on_alarm);
	size_t passed = 0, failed = 0;
	for (int i = 1; i < argc; i++) {
		struct stat sb;
		if (stat(argv[i], &sb) < 0)
			continue; /* a missing corpus or crash folder: nothing to replay */
		if (!S_ISDIR(sb.st_mode)) {
			if (replay_file(argv[i], timeout) == 0)
				passed++;
			else
				failed++;
			continue;
		}
		DIR *d = opendir(argv[i]);
		if (!d) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			failed++;
			continue;
		}
		char **names = NULL;
		size_t n = 0, cap = 0;
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.')
				continue; /* ., .., .gitkeep */
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				names = realloc(names, cap * sizeof *names);
				if (!names)
					abort();
			}
			size_t l = strlen(argv[i]) + strlen(e->d_name) + 2;
			names[n] = malloc(l);
			if (!names[n])
				abort();
			snprintf(names[n++], l, "%s/%s", argv[i], e->d_name);
		}
		closedir(d);
		if (n > 1)
			qsort(names, n, sizeof *names, cmp_str);
		for (size_t k = 0; k < n; k++) {
			if (stat(names[k], &sb) == 0 && S_ISREG(sb.st_mode)) {
				if (replay_file(names[k], timeout) == 0)
					passed++;
				else
					failed++;
			}
			free(names[k]);
		}
		free(names);
	}
	printf("%zu passed, %zu failed\n", passed, failed);
	return failed ? 1 : 0;
}
