#!/bin/bash
# device checks of nccl-triage collect / run (fixtures/collect/README.md)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
D=$(pwd)/.dev/collect
export LD_LIBRARY_PATH=$D/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
NT=$D/nccl-triage
W=$(mktemp -d); cd "$W" || exit 1
{ nvidia-smi -L; python3 -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.nccl.version())'; uname -a; which torchrun; } >versions.txt 2>&1
T0=$(date +%s)
# 1. collect on the GPU host: a folder and a redacted archive
timeout 150 $NT collect -d collect-dir >collect-dir.stderr 2>&1; echo "collect -d rc=$?" >>rc.txt
timeout 150 $NT collect --redact -o collect-redacted.tar.gz >collect-tgz.stderr 2>&1; echo "collect -o rc=$?" >>rc.txt
tar -tzvf collect-redacted.tar.gz >collect-tgz.list 2>&1; echo "tar -t rc=$?" >>rc.txt
echo "collect done $(( $(date +%s) - T0 ))s" >>rc.txt
TR="torchrun --nproc-per-node 2 --master-port"
# 2. a bad NCCL_SOCKET_IFNAME, plain then wrapped
NCCL_SOCKET_IFNAME=nonexist0 timeout 120 $TR 29501 $D/train.py ok >plain-ifname.out 2>&1; echo "plain ifname rc=$?" >>rc.txt
NCCL_SOCKET_IFNAME=nonexist0 timeout 200 $NT run --bundle run-ifname -- $TR 29502 $D/train.py ok >run-ifname.stdout 2>run-ifname.stderr; echo "run ifname rc=$?" >>rc.txt
echo "ifname done $(( $(date +%s) - T0 ))s" >>rc.txt
# 3. two ranks on one GPU, plain then wrapped (stdout and stderr to one file: one pipe)
timeout 120 $TR 29503 $D/train.py dup >plain-dup.out 2>&1; echo "plain dup rc=$?" >>rc.txt
timeout 200 $NT run --bundle run-dup -- $TR 29504 $D/train.py dup >run-dup.out 2>&1; echo "run dup rc=$?" >>rc.txt
echo "dup done $(( $(date +%s) - T0 ))s" >>rc.txt
# 4. a healthy job: one line
timeout 120 $NT run --bundle run-ok -- torchrun --nproc-per-node 1 --master-port 29505 $D/train.py ok >run-ok.stdout 2>run-ok.stderr; echo "run ok rc=$?" >>rc.txt
echo "all done $(( $(date +%s) - T0 ))s" >>rc.txt
# the analyses of what came back, by the same binary
for b in collect-dir run-ifname run-dup run-ok; do $NT analyze --format json $b >$b.analyze.json 2>$b.analyze.err; done
$NT analyze --format json collect-redacted.tar.gz >collect-tgz.analyze.json 2>collect-tgz.analyze.err
chmod -R a+rX . 2>/dev/null
ls -laR >tree.txt
tar czf "$OUT/all.tgz" . && cp rc.txt "$OUT/rc.txt"
