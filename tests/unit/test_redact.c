/* Unit tests for redact.c: an address is replaced wherever it stands in a
 * line (start, end, after '=', '==', ':', '@', in brackets, parentheses,
 * quotes, URLs, with a port, a prefix length, glued to a word), IPv4 and
 * IPv6 alike; loopback, unspecified addresses and pip versions are kept.
 * redact_names.c: bundle and document names become bundle-N and doc-K.EXT
 * wherever they stand whole, and words stay words. */
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "report/redact.h"
#include "report/redact_names.h"
#include "testlib.h"

/* in redacted by a fresh redactor is want */
static void one(const char *in, const char *want)
{
	struct redactor *r = redactor_new();
	char *got = redact_string(r, in);
	if (got && strcmp(got, want) == 0) {
		t_passed++;
	} else {
		t_failed++;
		fprintf(stderr, "FAIL redact \"%s\": want \"%s\", got \"%s\"\n", in, want, got ? got : "(null)");
	}
	free(got);
	redactor_free(r);
}

int main(void)
{
	/* IPv4: every place in a line */
	one("10.20.30.40 is unreachable", "ip-1 is unreachable");
	one("connect to 10.20.30.40", "connect to ip-1");
	one("MASTER_ADDR=10.20.30.40", "MASTER_ADDR=ip-1");
	one("RuntimeError: Connection refused by host; MASTER_ADDR==10.20.30.40",
	    "RuntimeError: Connection refused by host; MASTER_ADDR==ip-1");
	one("master==10.9.8.7", "master==ip-1");
	one("check master_addr==10.9.8.7 first", "check master_addr==ip-1 first");
	one("addr:10.20.30.40", "addr:ip-1");
	one("ssh root@10.20.30.40", "ssh root@ip-1");
	one("peer [10.20.30.40] closed", "peer [ip-1] closed");
	one("[10.20.30.40]:29500", "[ip-1]:29500");
	one("(10.20.30.40, 29500)", "(ip-1, 29500)");
	one("host '10.20.30.40'", "host 'ip-1'");
	one("host \"10.20.30.40\"", "host \"ip-1\"");
	one("http://10.20.30.40:8080/v1/models", "http://ip-1:8080/v1/models");
	one("--rdzv-endpoint=tcp://10.20.30.40:29500", "--rdzv-endpoint=tcp://ip-1:29500");
	one("10.20.30.40:29500 refused", "ip-1:29500 refused");
	one("NCCL INFO NET/Socket : Using [0]eth0:10.20.30.40<0>", "NCCL INFO NET/Socket : Using [0]eth0:ip-1<0>");
	one("bound to <10.20.30.40>.", "bound to <ip-1>.");
	one("route 10.20.30.0/24 via 10.20.30.1", "route ip-1/24 via ip-2");
	one("addresses 10.20.30.40,10.20.30.41;", "addresses ip-1,ip-2;");
	one("eth0-10.1.2.3 up", "eth0-ip-1 up");
	one("ib_10.1.2.3", "ib_ip-1");
	one("{\"addr\": \"10.20.30.40\"}", "{\"addr\": \"ip-1\"}");
	/* IPv6 */
	one("fe80::1%eth0 scope link", "ip6-1 scope link");
	one("[2001:db8::1]:29500", "[ip6-1]:29500");
	one("http://[2001:db8::1]:8080/", "http://[ip6-1]:8080/");
	one("addr=2001:db8:0:0:0:0:0:1", "addr=ip6-1");
	one("MASTER_ADDR==2001:db8::7", "MASTER_ADDR==ip6-1");
	one("peer (2001:db8::7)", "peer (ip6-1)");
	one("::ffff:10.1.2.3 connected", "ip6-1 connected");
	/* kept: loopback, unspecified, versions */
	one("listen on 127.0.0.1:29500 and 0.0.0.0", "listen on 127.0.0.1:29500 and 0.0.0.0");
	one("[::1]:29500", "[::1]:29500");
	one("nvidia-cublas-cu12==12.4.5.8", "nvidia-cublas-cu12==12.4.5.8");
	one("  nvidia-cudnn-cu12==9.1.0.70", "  nvidia-cudnn-cu12==9.1.0.70");
	one("'nvidia-cublas-cu12==12.4.5.8'", "'nvidia-cublas-cu12==12.4.5.8'");
	one("requirement nvidia-cublas-cu12==12.4.5.8 not found", "requirement nvidia-cublas-cu12==12.4.5.8 not found");
	/* a MAC is not an IPv6 address */
	one("link/ether 0c:42:a1:2b:3c:4d", "link/ether mac-1");

	/* neutral names */
	const char *doc =
	    "{\"name\": \"gpu-node-99-ticket\", \"inputs\": ["
	    "{\"path\": \"trainhost44-rank0.log\", \"kind\": \"nccl_log\"}, {\"path\": \"sys/nvidia-smi.txt\", \"kind\": \"nvidia_smi\"},"
	    "{\"path\": \"dmesg\", \"kind\": \"kmsg\"}, {\"path\": \"old.log.gz\", \"kind\": \"text\"},"
	    "{\"path\": \"trainhost44-rank0.log (2)\", \"kind\": \"nccl_log\"}, {\"path\": \"README\", \"kind\": \"text\"}],"
	    "\"evidence\": [{\"path\": \"dmesg\", \"line\": 3, \"text\": \"see dmesg and the README; mytrainhost44-rank0.log stays\"},"
	    "{\"path\": \"sys/nvidia-smi.txt\", \"text\": \"GPU 1 [sys/nvidia-smi.txt:14], the log trainhost44-rank0.log:12. And trainhost44-rank0.log (2):5, old.log.gz.\"}],"
	    "\"warnings\": [\"gpu-node-99-ticket/blob.bin: binary content skipped\", \"gpu-node-99-ticket/sys/nvidia-smi.txt: cut\"]}";
	cJSON *b = cJSON_Parse(doc);
	redact_names(b, 3);
	CHECK_STR(cJSON_GetObjectItem(b, "name")->valuestring, "bundle-3");
	const char *want_paths[] = {"doc-1.log", "doc-2.txt", "doc-3", "doc-4.log.gz", "doc-5.log", "doc-6"};
	for (int i = 0; i < 6; i++)
		CHECK_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(b, "inputs"), i), "path")->valuestring,
		          want_paths[i]);
	const cJSON *ev = cJSON_GetObjectItem(b, "evidence");
	CHECK_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(ev, 0), "path")->valuestring, "doc-3");
	/* names without '.' or '/' are words in a sentence; a longer word keeps its name-like part */
	CHECK_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(ev, 0), "text")->valuestring,
	          "see dmesg and the README; mytrainhost44-rank0.log stays");
	CHECK_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(ev, 1), "text")->valuestring,
	          "GPU 1 [doc-2.txt:14], the log doc-1.log:12. And doc-5.log:5, doc-4.log.gz.");
	const cJSON *w = cJSON_GetObjectItem(b, "warnings");
	CHECK_STR(cJSON_GetArrayItem(w, 0)->valuestring, "bundle-3/blob.bin: binary content skipped");
	CHECK_STR(cJSON_GetArrayItem(w, 1)->valuestring, "bundle-3/doc-2.txt: cut");
	cJSON_Delete(b);
	TEST_MAIN_END();
}
