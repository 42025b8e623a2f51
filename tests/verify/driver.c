/* driver.c - a stand-alone `verify` for tests/verify/run.sh when no
 * nccl-triage binary is given: `driver verify OPTIONS...`. */
#include <string.h>
#include "cmd_verify.h"

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "verify") == 0)
		return cmd_verify(argc - 1, argv + 1);
	return 2;
}
