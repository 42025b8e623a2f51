/* test_verify_env.c - how a proposed environment is written as arguments of
 * `nccl-triage verify` (verify_env_arg), and that `verify` reads its own
 * proposal back as the same change (venv_parse).  One rule for every format
 * (issue 15): an empty or missing value is "unset", never "set to empty". */
#include "testlib.h"
#include "report/report.h"
#include "verify/verify.h"

#include <stdlib.h>

static void check_arg(const char *key, const char *value, const char *want)
{
	char *got = verify_env_arg(key, value);
	CHECK_STR(got, want);
	free(got);
}

/* The argument after "--env"/"--unset" in arg, parsed as verify parses it,
 * gives back (key, value). */
static void check_round_trip(const char *key, const char *value)
{
	struct venv_list l = {0};
	char *arg = verify_env_arg(key, value);
	int ok;
	if (!strncmp(arg, " --unset ", 9)) {
		ok = venv_parse(&l, arg + 9) == 0;
	} else if (!strncmp(arg, " --env ", 7) && !strchr(arg, '\'')) {
		ok = venv_parse(&l, arg + 7) == 0;
	} else {
		free(arg);
		return; /* quoted for the shell: the shell removes the quotes */
	}
	CHECK(ok);
	CHECK_INT(l.n, 1);
	if (ok && l.n == 1) {
		CHECK_STR(l.v[0].key, key);
		if (value && *value)
			CHECK_STR(l.v[0].value, value);
		else
			CHECK(l.v[0].value == NULL);
	}
	venv_free(&l);
	free(arg);
}

int main(void)
{
	check_arg("NCCL_SOCKET_IFNAME", "", " --unset NCCL_SOCKET_IFNAME");
	check_arg("NCCL_SOCKET_IFNAME", NULL, " --unset NCCL_SOCKET_IFNAME");
	check_arg("NCCL_SOCKET_IFNAME", "eth0", " --env NCCL_SOCKET_IFNAME=eth0");
	check_arg("NCCL_SOCKET_IFNAME", "^lo,docker", " --env NCCL_SOCKET_IFNAME=^lo,docker");
	check_arg("NCCL_SOCKET_IFNAME", "=eth0", " --env NCCL_SOCKET_IFNAME==eth0");
	check_arg("NCCL_SHM_DISABLE", "1", " --env NCCL_SHM_DISABLE=1");
	check_arg("NCCL_IB_HCA", "mlx5_0:1,mlx5_1:1", " --env NCCL_IB_HCA=mlx5_0:1,mlx5_1:1");
	/* what a shell would split or expand is quoted */
	check_arg("K", "a b", " --env 'K=a b'");
	check_arg("K", "it's", " --env 'K=it'\\''s'");
	check_arg("K", "$HOME", " --env 'K=$HOME'");
	check_arg("K", "x*", " --env 'K=x*'");

	check_round_trip("NCCL_SOCKET_IFNAME", "");
	check_round_trip("NCCL_SOCKET_IFNAME", NULL);
	check_round_trip("NCCL_SOCKET_IFNAME", "^lo,docker");
	check_round_trip("NCCL_ALGO", "Ring");

	/* --env K= (an explicit empty value) stays "set to empty" for verify:
	 * only proposals never mean it. */
	struct venv_list l = {0};
	CHECK(venv_parse(&l, "NCCL_SOCKET_IFNAME=") == 0);
	CHECK(l.n == 1 && l.v[0].value && !*l.v[0].value);
	venv_free(&l);
	TEST_MAIN_END();
}
