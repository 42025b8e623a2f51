# The job of the device checks (fixtures/collect/README.md): one all-reduce.
#   ok    each rank on its own GPU (local_rank % GPUs)
#   dup   every rank on GPU 0 (two ranks on one GPU)
#   hang  rank 1 sleeps before the collective (needs 2 GPUs)
import datetime, os, sys, time
import torch
import torch.distributed as dist
mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
lr = int(os.environ.get("LOCAL_RANK", "0"))
ndev = torch.cuda.device_count()
dev = 0 if mode == "dup" else lr % max(ndev, 1)
torch.cuda.set_device(dev)
print(f"[rank{lr}] using cuda:{dev} of {ndev}, torch {torch.__version__} nccl {torch.cuda.nccl.version()}", flush=True)
dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=30))
if mode == "hang" and dist.get_rank() == 1:
    time.sleep(300)
x = torch.ones(1 << 20, device="cuda")
dist.all_reduce(x)
torch.cuda.synchronize()
print(f"[rank{dist.get_rank()}] all_reduce ok: {x[0].item()}", flush=True)
dist.destroy_process_group()
