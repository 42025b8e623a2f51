/* test_collect.c - the pieces of `collect` and `run` below the command line:
 * the ustar header writer, the raw-file redaction that keeps forms, the
 * environment dump, the manifest parser on good and broken input, the
 * detection of nccl-triage's own files and of kernel logs, the sink (its
 * pipe mode too), and run --redact's pieces: the streamed rewrite of a
 * file, its cut of long lines, the host folder's name. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/tarhdr.h"
#include "base/json.h"
#include "collect/citems.h"
#include "collect/credact.h"
#include "collect/collect.h"
#include "collect/sink.h"
#include "parse/detect.h"
#include "parse/sysreport.h"
#include "report/redact.h"
#include "testlib.h"

static void test_tar_header(void)
{
	unsigned char h[TAR_BLOCK];
	CHECK_INT(tar_header_make(h, "vm/sys/nvidia-smi.txt", '0', 0644, 1234, 1700000000), 0);
	CHECK(tar_checksum_ok(h));
	CHECK(tar_is_posix(h));
	CHECK(tar_header_valid(h));
	uint64_t v = 0;
	CHECK_INT(tar_oct_field(h + 124, 12, &v), 0);
	CHECK_INT(v, 1234);
	CHECK_STR((const char *)h, "vm/sys/nvidia-smi.txt");
	/* a name of more than 100 bytes: prefix and name */
	char longname[200];
	memset(longname, 'a', sizeof longname);
	memcpy(longname + 120, "/file.txt", 10); /* 120 a's, "/file.txt" */
	CHECK_INT(tar_header_make(h, longname, '0', 0644, 0, 0), 0);
	CHECK(tar_checksum_ok(h));
	CHECK_INT((int)strnlen((const char *)h + 345, 155), 120);
	CHECK_STR((const char *)h, "file.txt");
	/* cannot be stored: a last part longer than 100 bytes, a size of 8 GiB */
	char nolimit[160];
	memset(nolimit, 'b', 150);
	nolimit[150] = 0;
	CHECK_INT(tar_header_make(h, nolimit, '0', 0644, 0, 0), -1);
	CHECK_INT(tar_header_make(h, "x", '0', 0644, 1ULL << 33, 0), -1);
	CHECK_INT(tar_header_make(h, "", '0', 0644, 0, 0), -1);
}

static void test_redact_form(void)
{
	struct redactor *r = redactor_new();
	redact_learn_name(r, "gpunode17", 0);
	redact_learn_line(r, "HOSTNAME=trainbox3");
	char *a = redact_line(r, "eth0             UP             10.11.12.13/24 fe80::5054:ff:fe12:3456/64");
	CHECK(strstr(a, "192.0.2.1/24") != NULL);
	CHECK(strstr(a, "10.11.12.13") == NULL);
	CHECK(strstr(a, "2001:db8::") != NULL);
	char *b = redact_line(r, "| N/A   31C    P0   77W / 700W |  00000000:06:00.0 Off |");
	CHECK(strstr(b, "00000000:01:00.0") != NULL);
	char *c = redact_line(r, "    Bus Id                                         : 00000000:06:00.0");
	CHECK(strstr(c, "00000000:01:00.0") != NULL); /* the same bus id, the same pseudonym */
	char *d = redact_line(r, "GPU 0: NVIDIA H200 (UUID: GPU-a081a940-a2e9-560c-ac89-e477ccfe16d0)");
	CHECK_STR(d, "GPU 0: NVIDIA H200 (UUID: GPU-00000000-0000-0000-0000-000000000001)");
	char *e = redact_line(r, "    Serial Number                                      : 1654024084892");
	CHECK_STR(e, "    Serial Number                                      : serial-1");
	char *f = redact_line(r, "gpunode17 and trainbox3 at 10.11.12.13");
	CHECK_STR(f, "host-1 and host-2 at 192.0.2.1");
	char *g = redact_line(r, "    Serial Number                                      : N/A");
	CHECK_STR(g, "    Serial Number                                      : N/A");
	free(a), free(b), free(c), free(d), free(e), free(f), free(g);
	redactor_free(r);
	/* the bundle as a whole: every item, one table */
	struct citems it = {0};
	citems_add(&it, "env.txt", "HOSTNAME=box9\nMASTER_ADDR=10.0.0.9\n", 35);
	citems_add(&it, "sys/ip.txt", "eth0 UP 10.0.0.9/24\nbox9\n", 25);
	const char *hosts[] = {"box9", NULL}, *users[] = {"alice", NULL};
	char *pseudo = NULL;
	citems_redact(&it, hosts, users, &pseudo);
	CHECK_STR(pseudo, "host-1");
	CHECK_STR(it.v[0].data.data, "HOSTNAME=host-1\nMASTER_ADDR=192.0.2.1\n");
	CHECK_STR(it.v[1].data.data, "eth0 UP 192.0.2.1/24\nhost-1\n");
	free(pseudo);
	citems_free(&it);
}

static void test_piece(void)
{
	int nl;
	CHECK_INT(credact_piece("ab\ncd", 5, 8, &nl), 3);
	CHECK_INT(nl, 1);
	CHECK_INT(credact_piece("abcd", 4, 8, &nl), 4); /* the end of the file */
	CHECK_INT(nl, 0);
	/* no newline within max: cut after the last blank of the second half */
	CHECK_INT(credact_piece("aaaa bbbbbbbbbb", 15, 8, &nl), 5);
	CHECK_INT(nl, 0);
	CHECK_INT(credact_piece("a bbbbbbbbbbbbbb", 16, 8, &nl), 8); /* a blank too early: max */
	CHECK_INT(credact_piece("abcdefg\nxyz", 11, 8, &nl), 8);  /* the newline is the max-th byte */
	CHECK_INT(nl, 1);
}

/* A file through credact_copy_fd: every line rewritten, as many lines, the
 * NUL a '?', a line longer than a piece cut at a blank (names whole). */
static void test_copy_fd(void)
{
	char in[] = "/tmp/nt-credact-in-XXXXXX", out[] = "/tmp/nt-credact-out-XXXXXX";
	int a = mkstemp(in), b = mkstemp(out);
	CHECK(a >= 0 && b >= 0);
	unlink(in);
	unlink(out);
	struct buf t;
	buf_init(&t);
	buf_adds(&t, "box9:12:34 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.9<0>\n");
	buf_add(&t, "a\0b box9\n", 9);
	size_t fill = CREDACT_PIECE + 1000;
	for (size_t i = 0; i < fill / 10; i++)
		buf_adds(&t, "xxxx box9 ");
	buf_adds(&t, "\nlast line 10.0.0.9 no newline");
	CHECK_INT(fd_write_all(a, t.data, t.len, 0), 0);
	const char *hosts[] = {"box9", NULL};
	struct redactor *r = credact_new(hosts, NULL);
	CHECK_INT(credact_learn_fd(r, a), 0);
	CHECK_INT(credact_copy_fd(r, a, b), 0);
	redactor_free(r);
	off_t n = lseek(b, 0, SEEK_END);
	char *got = xmalloc((size_t)n + 1);
	CHECK_INT(pread(b, got, (size_t)n, 0), n);
	got[n] = 0;
	const char *want0 = "host-1:12:34 [0] NCCL INFO Bootstrap : Using eth0:192.0.2.1<0>\na?b host-1\nxxxx host-1 ";
	CHECK(strncmp(got, want0, strlen(want0)) == 0);
	CHECK(strstr(got, "box9") == NULL && strstr(got, "10.0.0.9") == NULL);
	size_t lines = 0;
	for (off_t i = 0; i < n; i++)
		lines += got[i] == '\n';
	CHECK_INT(lines, 3);
	const char *tail = "\nlast line 192.0.2.1 no newline";
	CHECK(strcmp(got + n - strlen(tail), tail) == 0);
	/* the same bytes as a buffer (collect's items): the same pieces, the
	 * same rewrite, byte for byte */
	struct redactor *r2 = credact_new(hosts, NULL);
	credact_learn_buf(r2, &t);
	credact_rewrite_buf(r2, &t);
	redactor_free(r2);
	CHECK_INT(t.len, n);
	CHECK(t.len == (size_t)n && memcmp(t.data, got, t.len) == 0);
	free(got);
	buf_free(&t);
	close(a);
	close(b);
}

static void test_host_folder(void)
{
	char x[18], y[18], z[18];
	credact_host_folder("36cbc7e3-e2e1-47f4-b0c9-ce6c75878819", "node7", x);
	credact_host_folder("36cbc7e3-e2e1-47f4-b0c9-ce6c75878819", "node8", y);
	credact_host_folder("36cbc7e3-e2e1-47f4-b0c9-ce6c75878818", "node7", z);
	CHECK_INT(strlen(x), 17);
	CHECK(strncmp(x, "host-", 5) == 0 && strspn(x + 5, "0123456789abcdef") == 12);
	CHECK(strcmp(x, y) != 0 && strcmp(x, z) != 0);
	char again[18];
	credact_host_folder("36cbc7e3-e2e1-47f4-b0c9-ce6c75878819", "node7", again);
	CHECK_STR(again, x);
}

/* run --redact's report: the forms the files were rewritten with name the
 * same pseudonyms as the originals */
static void test_alias_forms(void)
{
	struct redactor *r = redactor_new();
	char *a = redact_line(r, "eth0 10.11.12.13 GPU-a081a940-a2e9-560c-ac89-e477ccfe16d0 busId 1b000");
	char *b = redact_line(r, "    Serial Number                         : 1654024084892");
	CHECK_STR(a, "eth0 192.0.2.1 GPU-00000000-0000-0000-0000-000000000001 busId 1000");
	CHECK_STR(b, "    Serial Number                         : serial-1");
	redact_alias_forms(r);
	char *c = redact_string(r, "peer 192.0.2.1 GPU-00000000-0000-0000-0000-000000000001 0000:01:00.0 10.11.12.13 busId 1000");
	CHECK_STR(c, "peer ip-1 gpu-uuid-1 busid-1 ip-1 busId busid-1");
	char *d = redact_string(r, "a new one: 10.9.9.9");
	CHECK_STR(d, "a new one: ip-2");
	cJSON *j = cJSON_Parse("{\"serial\": \"serial-1\", \"uuid\": \"00000000-0000-0000-0000-000000000001\"}");
	redact_json(r, j);
	CHECK_STR(cJSON_GetObjectItem(j, "serial")->valuestring, "serial-1");
	CHECK_STR(cJSON_GetObjectItem(j, "uuid")->valuestring, "gpu-uuid-1");
	cJSON_Delete(j);
	free(a), free(b), free(c), free(d);
	redactor_free(r);
	/* this host as its folder's name, its FQDN's first label too, kept by a report's redaction */
	r = redactor_new();
	redact_learn_host_as(r, "gpunode17.corp.example.com", "host-0123456789ab");
	redact_learn_name(r, "othernode", 0);
	char *e = redact_line(r, "gpunode17:1:2 [0] to othernode and gpunode17.corp.example.com");
	CHECK_STR(e, "host-0123456789ab:1:2 [0] to host-1 and host-0123456789ab");
	char *g = redact_string(r, "host: host-0123456789ab");
	CHECK_STR(g, "host: host-0123456789ab");
	free(e), free(g);
	redactor_free(r);
}

static void test_env_dump(void)
{
	char *env[] = {"PATH=/usr/bin", "NCCL_IB_HCA=mlx5_0", "CUDA_VISIBLE_DEVICES=0,1", "WANDB_API_KEY=secret",
	               "TORCH_SECRET_TOKEN=abcdef", "RANK=3", "RANKING=x", "NCCL_X=a\nb", "HOSTNAME=n1", NULL};
	size_t n = 0;
	char *d = collect_env_dump(env, &n);
	CHECK_INT(n, 6);
	CHECK_STR(d, "CUDA_VISIBLE_DEVICES=0,1\nHOSTNAME=n1\nNCCL_IB_HCA=mlx5_0\nNCCL_X=a\\nb\nRANK=3\nTORCH_SECRET_TOKEN=***\n");
	free(d);
}

static void test_detect(void)
{
	const char *man = "{\"nccl_triage_collect\":1,\"host\":\"vm\"}\n{\"file\":\"sys/x.txt\",\"status\":\"ok\"}\n";
	CHECK_INT(detect_kind(man, strlen(man), 1), DOC_COLLECT_MANIFEST);
	const char *rep = "# nccl-triage 0.1.0 report of this bundle (nccl-triage run, x)\n"
	                  "vm:1:1 [0] NCCL INFO a\nvm:1:1 [0] NCCL INFO b\nvm:1:1 [0] NCCL WARN c\n";
	CHECK_INT(detect_kind(rep, strlen(rep), 1), DOC_TRIAGE_REPORT);
	const char *notrep = "# nccl-triage notes\nvm:1:1 [0] NCCL INFO a\n";
	CHECK_INT(detect_kind(notrep, strlen(notrep), 1), DOC_NCCL_LOG);
	/* a kernel log that quotes "nvidia-" and "==>" is no package list */
	const char *km = "[    0.000000] Linux version 6.18\n"
	                 "[    0.000021] e820: update [mem 0x00000000-0x00000fff] usable ==> reserved\n"
	                 "[    5.100000] nvidia-nvlink: Nvlink Core is being initialized\n"
	                 "[    5.200000] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  580.159.04\n";
	CHECK_INT(detect_kind(km, strlen(km), 1), DOC_TEXT);
	const char *jk = "Dec 02 08:49:28 vm kernel: a\nDec 02 08:49:28 vm kernel: b\nDec 02 08:49:29 vm kernel: nvidia-modeset: ==\n";
	CHECK_INT(detect_kind(jk, strlen(jk), 1), DOC_TEXT);
}

static void test_manifest_parse(void)
{
	const char *m = "{\"nccl_triage_collect\":1,\"tool\":\"nccl-triage 0.1.0\",\"by\":\"collect\",\"host\":\"vm\",\"time\":\"t\"}\n"
	                "{\"file\":\"sys/ibstat.txt\",\"kind\":\"ib_status\",\"command\":\"ibstat\",\"status\":\"missing\",\"exit\":null,\"ms\":1,\"bytes\":0,\"kept\":0,\"cut\":false,\"error\":\"ibstat: not installed\"}\n"
	                "not json at all {\n"
	                "{\"file\":\"sys/dmesg.txt\",\"kind\":\"text\",\"command\":\"dmesg\",\"status\":\"denied\",\"exit\":1}\n"
	                "{\"file\":\"sys/journalctl-k.txt\",\"kind\":\"text\",\"command\":\"journalctl -k\",\"status\":\"ok\",\"exit\":0}\n"
	                "{\"file\":\"sys/nvcc.txt\",\"status\":\"missing\"}\n"
	                "{\"file\":\"sys/nvcc.txt\",\"status\":\"ok\"}\n"
	                "[1,2,3]\n"
	                "{\"run\":{\"status\":137,\"signal\":9,\"log_lost\":5,\"set\":{\"NCCL_DEBUG\":\"INFO\",\"bad\":3}}}\n";
	cJSON *facts = cJSON_CreateObject();
	struct msgs msg = {0};
	int n = sysreport_parse(DOC_COLLECT_MANIFEST, m, strlen(m), "b/manifest.jsonl", facts, &msg);
	CHECK(n >= 6);
	CHECK_INT(msg.list.n, 2); /* the two lines that are not objects */
	const cJSON *c = cJSON_GetArrayItem(json_get(facts, "collected"), 0);
	CHECK_STR(json_str(c, "host"), "vm");
	CHECK_INT(json_size(json_get(c, "commands")), 5);
	const cJSON *miss = json_get(c, "files_missing");
	CHECK_INT(json_size(miss), 2); /* ibstat, dmesg: nvcc came from a second command */
	CHECK_STR(cJSON_GetArrayItem(miss, 0)->valuestring, "sys/ibstat.txt");
	double v = 0;
	CHECK(json_num(json_get(c, "run"), "status", &v) && v == 137);
	CHECK_STR(json_str(json_get(json_get(c, "run"), "set"), "NCCL_DEBUG"), "INFO");
	CHECK(json_get(json_get(json_get(c, "run"), "set"), "bad") == NULL);
	const cJSON *src = json_get(cJSON_GetArrayItem(json_get(c, "commands"), 1), "source");
	CHECK(json_num(src, "line", &v) && v == 4);
	msgs_free(&msg);
	cJSON_Delete(facts);
	/* truncated, empty, binary: no crash, nothing invented */
	const char *cut = "{\"nccl_triage_collect\":1,\"host\":\"v";
	facts = cJSON_CreateObject();
	sysreport_parse(DOC_COLLECT_MANIFEST, cut, strlen(cut), "m", facts, &msg);
	CHECK_INT(json_size(json_get(cJSON_GetArrayItem(json_get(facts, "collected"), 0), "commands")), 0);
	sysreport_parse(DOC_COLLECT_MANIFEST, "", 0, "m", facts, &msg);
	char bin[64];
	for (int i = 0; i < 64; i++)
		bin[i] = (char)(i * 37);
	sysreport_parse(DOC_COLLECT_MANIFEST, bin, sizeof bin, "m", facts, &msg);
	CHECK_INT(json_size(json_get(facts, "collected")), 3);
	msgs_free(&msg);
	cJSON_Delete(facts);
}

static size_t sink_len(struct sink *s)
{
	pthread_mutex_lock(&s->mu);
	size_t n = s->len;
	pthread_mutex_unlock(&s->mu);
	return n;
}

static void test_sink(void)
{
	int p[2];
	CHECK_INT(pipe(p), 0);
	/* a pipe nobody reads: its writer blocks, as on a stopped terminal */
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	char fill[4096];
	memset(fill, 'f', sizeof fill);
	size_t prefill = 0;
	ssize_t w;
	while ((w = write(p[1], fill, sizeof fill)) > 0)
		prefill += (size_t)w;
	fcntl(p[1], F_SETFL, 0);
	struct sink s;
	sink_start(&s, p[1], 256, 0, "the test was too slow");
	char a[200], b[100];
	memset(a, 'a', sizeof a);
	memset(b, 'b', sizeof b);
	sink_push(&s, a, sizeof a); /* in the ring, its write blocked */
	sink_push(&s, b, sizeof b); /* no room: lost, never blocks */
	CHECK_INT(s.lost, 100);
	/* the reader comes back: the ring drains */
	char *got = malloc(prefill + 4096);
	size_t n = 0;
	while (n < prefill + sizeof a) {
		ssize_t r = read(p[0], got + n, prefill + 4096 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	for (int i = 0; i < 500 && sink_len(&s); i++)
		usleep(10000);
	sink_push(&s, "cc", 2); /* the note first, then the new bytes */
	sink_finish(&s, 5);
	CHECK_INT(s.pushed, 302);
	CHECK_INT(s.lost, 100);
	CHECK_INT(s.gaps, 1);
	sink_free(&s);
	close(p[1]);
	ssize_t r;
	while ((r = read(p[0], got + n, prefill + 4096 - n)) > 0)
		n += (size_t)r;
	close(p[0]);
	got[n] = 0;
	const char *rest = got + prefill;
	CHECK(n > prefill + sizeof a && memcmp(rest, a, sizeof a) == 0);
	CHECK_STR(rest + sizeof a, "\n[nccl-triage run: 100 bytes of the job's output lost here: the test was too slow]\ncc");
	free(got);
	/* a closed reader: the sink ends, everything after counts as lost */
	CHECK_INT(pipe(p), 0);
	close(p[0]);
	sink_start(&s, p[1], 1 << 16, 0, "slow");
	sink_push(&s, a, 40);
	sink_finish(&s, 5);
	CHECK(s.dead);
	CHECK_INT(s.lost, 40);
	sink_push(&s, a, 10);
	CHECK_INT(s.lost, 50);
	sink_free(&s);
	close(p[1]);
}

/* A pipe whose reader is away: filled until a write would block. */
static size_t fill_pipe(int p[2])
{
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	char fill[4096];
	memset(fill, 'f', sizeof fill);
	size_t n = 0;
	ssize_t w;
	while ((w = write(p[1], fill, sizeof fill)) > 0)
		n += (size_t)w;
	fcntl(p[1], F_SETFL, 0);
	return n;
}

/* sink_reserve/sink_commit: bytes read straight into the ring keep their
 * place in the order; no room to lend while a note is due or too little. */
static void test_sink_reserve(void)
{
	int p[2];
	CHECK_INT(pipe(p), 0);
	size_t prefill = fill_pipe(p);
	struct sink s;
	sink_start(&s, p[1], 256, 0, "T");
	char a[200], b[100];
	memset(a, 'a', sizeof a);
	memset(b, 'b', sizeof b);
	sink_push(&s, a, sizeof a);
	size_t room = 0;
	CHECK(sink_reserve(&s, 100, &room) == NULL); /* 56 bytes free */
	char *q = sink_reserve(&s, 50, &room);
	CHECK(q != NULL && room == 56);
	if (q) {
		memset(q, 'd', 50);
		sink_commit(&s, 50);
	}
	sink_push(&s, b, sizeof b); /* no room: lost, a note is due */
	CHECK(sink_reserve(&s, 1, &room) == NULL);
	char *got = malloc(prefill + 4096);
	size_t n = 0;
	ssize_t r;
	while (n < prefill + 250 && (r = read(p[0], got + n, prefill + 4096 - n)) > 0)
		n += (size_t)r;
	sink_finish(&s, 5);
	CHECK_INT(s.pushed, 350);
	CHECK_INT(s.lost, 100);
	sink_free(&s);
	close(p[1]);
	while ((r = read(p[0], got + n, prefill + 4096 - n)) > 0)
		n += (size_t)r;
	close(p[0]);
	got[n] = 0;
	CHECK(n > prefill + 250 && memcmp(got + prefill, a, sizeof a) == 0 &&
	      strspn(got + prefill + sizeof a, "d") == 50);
	CHECK_STR(got + prefill + 250, "\n[nccl-triage run: 100 bytes of the job's output lost here: T]\n");
	free(got);
}

/* Pipe mode: bytes through the sink's pipe and through its ring keep
 * their order, to a file that takes splices and to one opened O_APPEND
 * (which does not: read and write instead, pipe mode off); a dead
 * destination counts what the pipe held as lost. */
static void sink_wait_empty(struct sink *s)
{
	for (int i = 0; i < 500; i++) {
		pthread_mutex_lock(&s->mu);
		int busy = s->len || s->inpipe;
		pthread_mutex_unlock(&s->mu);
		if (!busy)
			return;
		usleep(10000);
	}
}

static void pipe_put(struct sink *s, const char *text)
{
	size_t n = strlen(text);
	CHECK(sink_pipe_ready(s));
	CHECK_INT(write(s->pin[1], text, n), (long long)n);
	sink_pipe_commit(s, n);
}

static void test_sink_pipe_mode(void)
{
	for (int append = 0; append < 2; append++) {
		char path[] = "/tmp/nt-sink-XXXXXX";
		int fd = mkstemp(path);
		CHECK(fd >= 0);
		if (append) {
			close(fd);
			fd = open(path, O_WRONLY | O_APPEND);
		}
		struct sink s;
		CHECK_INT(sink_start(&s, fd, 1 << 16, 1 << 20, "T"), 0);
		CHECK(s.pipe_ok);
		pipe_put(&s, "one ");
		sink_push(&s, "two ", 4);  /* after the pipe's bytes, whichever the thread sees first */
		sink_wait_empty(&s);
		CHECK_INT(s.pipe_ok, !append); /* O_APPEND refused the splice */
		if (s.pipe_ok)
			pipe_put(&s, "three ");
		else
			sink_push(&s, "three ", 6);
		sink_push(&s, "four", 4);
		sink_finish(&s, 5);
		CHECK_INT(s.pushed, 18);
		CHECK_INT(s.written, 18);
		CHECK_INT(s.lost, 0);
		sink_free(&s);
		close(fd);
		char got[64] = {0};
		fd = open(path, O_RDONLY);
		CHECK(read(fd, got, sizeof got - 1) == 18);
		close(fd);
		unlink(path);
		CHECK_STR(got, "one two three four");
	}
	/* a closed reader: what the pipe held is lost, and what follows */
	int p[2];
	CHECK_INT(pipe(p), 0);
	close(p[0]);
	struct sink s;
	sink_start(&s, p[1], 1 << 16, 1 << 20, "T");
	pipe_put(&s, "lost bytes");
	sink_finish(&s, 5);
	CHECK(s.dead);
	CHECK_INT(s.err, EPIPE);
	CHECK_INT(s.lost, 10);
	CHECK(!sink_pipe_ready(&s));
	sink_free(&s);
	close(p[1]);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_tar_header();
	test_redact_form();
	test_piece();
	test_copy_fd();
	test_host_folder();
	test_alias_forms();
	test_env_dump();
	test_detect();
	test_manifest_parse();
	test_sink();
	test_sink_reserve();
	test_sink_pipe_mode();
	TEST_MAIN_END();
}
