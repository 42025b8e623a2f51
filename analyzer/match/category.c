/* category.c - see category.h. */
#include "match/category.h"

#include <stddef.h>
#include <string.h>

const char *const CATEGORIES[] = {
	"P2P_BROKEN", "IB_RDMA", "SOCKET_NETWORK", "SHM_EXHAUSTED", "GPU_OOM",
	"VERSION_MISMATCH", "COLLECTIVE_TIMEOUT", "RENDEZVOUS", "DEVICE_ASSIGNMENT",
	"FABRIC_MANAGER", "MEMLOCK_LIMITS", "NCCL_BUG_UPGRADE", "ENV_MISCONFIG",
	"RANK_FAILURE", "CUDA_ERROR_OTHER", "OTHER", NULL,
};

int category_valid(const char *c)
{
	/* the first byte first: every diagnosis of the database at start-up */
	for (size_t i = 0; CATEGORIES[i]; i++)
		if (CATEGORIES[i][0] == c[0] && strcmp(CATEGORIES[i], c) == 0)
			return 1;
	return 0;
}
