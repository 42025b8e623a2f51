#!/bin/sh
# tests/fuzz/seed.sh OUTDIR - build the seed inputs for every fuzz target from
# fixtures/ (real captures and the bad-input samples) with the real tools
# (gzip, tar).  `make fuzz` merges them into tests/fuzz/corpus/NAME with
# libFuzzer's -merge=1, which keeps only inputs that add coverage.
set -e
OUT=${1:?usage: seed.sh OUTDIR}
C=fixtures/captures/h200-2gpu
S=$C/scenarios
rm -rf "$OUT"
for t in gzip tar detect logline sysreport sigdb analyze scan pickle; do mkdir -p "$OUT/$t"; done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# logs and reports: the real captures (heads, to keep seeds small)
i=0
for f in $S/*/run.log $S/*/ranks/*.log $S/*/env.txt $S/*/memtrace.csv; do
	[ -f "$f" ] || continue
	i=$((i + 1))
	head -c 8192 "$f" > "$OUT/logline/log$i"
	head -c 8192 "$f" > "$OUT/detect/log$i"
	head -c 8192 "$f" > "$OUT/analyze/log$i"
done
for f in $C/sys/*; do
	b=$(basename "$f")
	head -c 16384 "$f" > "$OUT/detect/$b"
done
cp fixtures/bad-input/crlf-nul.log "$OUT/logline/crlf-nul"
cp fixtures/bad-input/crlf-nul.log "$OUT/analyze/crlf-nul"

# system reports: first byte = kind (order of KINDS in fuzz_sysreport.c)
sr() { # sr KINDBYTE FILE
	[ -f "$2" ] || return 0
	{ printf "\\$(printf %03o "$1")"; head -c 16384 "$2"; } > "$OUT/sysreport/$(basename "$2")"
}
sr 0 $C/sys/topo-m.txt
sr 1 $C/sys/topo-p2p-r.txt
sr 1 $C/sys/topo-p2p-n.txt
sr 2 $C/sys/nccl-topo.xml
sr 3 $C/sys/nvidia-smi.txt
sr 4 $C/sys/nvidia-smi-q.txt
sr 5 $C/sys/nvidia-smi-L.txt
sr 7 $C/sys/pip-list.txt
sr 7 $C/sys/pip-freeze.txt
sr 8 $C/sys/collect_env.txt
sr 9 $C/sys/nvcc-version.txt
sr 10 $C/sys/proc-driver-version.txt
# host reports (kinds 12-15 = ib_status, lspci, interfaces, host_config);
# every input also goes through the log-fed parsers (nccl-tests, kernel, nodes)
P=fixtures/sys/public
L=fixtures/sys/local
for f in $P/ibstat-* $P/ibstatus-* $P/ibv_devinfo-* $P/ibdev2netdev-* $P/show_gids-*; do sr 12 "$f"; done
for f in $P/lspci-*; do sr 13 "$f"; done
for f in $L/ip-* $L/ifconfig-* $P/ifconfig-*; do sr 14 "$f"; done
for f in $L/ulimit-* $L/df-* $L/mount.txt $L/ldd-* $L/ls-l-* $P/ulimit-* $P/lsmod-* $P/ls-l-* $P/ompi_info-*; do sr 15 "$f"; done
for f in $P/nccl-tests-* $P/dmesg-* fixtures/captures/h200-2gpu-more/sys/dmesg-grep-NVRM.txt; do sr 0 "$f"; done
for f in $S/*/memtrace.csv; do { printf '\006'; head -c 4096 "$f"; } > "$OUT/sysreport/mem-$(basename "$(dirname "$f")")"; done
for f in $S/*/env.txt; do { printf '\013'; head -c 4096 "$f"; } > "$OUT/sysreport/env-$(basename "$(dirname "$f")")"; done

# archives made with the real tools
mkdir -p "$TMP/t/logs" "$TMP/t/a-very-long-folder-name-that-needs-more-than-one-hundred-bytes-in-the-tar-header-so-pax-or-gnu-is-used"
head -c 3000 $S/bad_socket_ifname/run.log > "$TMP/t/logs/rank0.log"
head -c 2000 $S/duplicate_gpu/run.log > "$TMP/t/logs/rank1.log"
cp $C/sys/topo-m.txt "$TMP/t/"
echo "long name" > "$TMP/t/a-very-long-folder-name-that-needs-more-than-one-hundred-bytes-in-the-tar-header-so-pax-or-gnu-is-used/x.log"
(cd "$TMP/t" && tar --format=ustar -b1 -cf "$TMP/ustar.tar" logs topo-m.txt 2>/dev/null || true)
(cd "$TMP/t" && tar --format=pax -b1 -cf "$TMP/pax.tar" .)
(cd "$TMP/t" && tar --format=gnu -b1 -cf "$TMP/gnu.tar" .)
gzip -9 -n -c "$TMP/t/logs/rank0.log" > "$TMP/rank0.log.gz"
cp "$TMP/rank0.log.gz" "$TMP/t/logs/"
(cd "$TMP/t" && tar --format=gnu -b1 -cf "$TMP/nested.tar" logs)
gzip -9 -n -c "$TMP/nested.tar" > "$TMP/nested.tar.gz"
for f in ustar.tar pax.tar gnu.tar nested.tar; do
	cp "$TMP/$f" "$OUT/tar/$f"
	cp "$TMP/$f" "$OUT/analyze/$f"
	{ cat "$TMP/$f"; printf '\001'; } > "$OUT/tar/$f.fixsum"
done
cp fixtures/bad-input/*.tar "$OUT/tar/"
for f in rank0.log.gz nested.tar.gz; do cp "$TMP/$f" "$OUT/gzip/$f"; cp "$TMP/$f" "$OUT/analyze/$f"; done
cp fixtures/bad-input/*.gz "$OUT/gzip/"
cp fixtures/bad-input/*.gz fixtures/bad-input/*.tar "$OUT/analyze/"
cp fixtures/demo/ticket-oom.tar.gz "$OUT/gzip/"
cp fixtures/demo/ticket-oom.tar.gz "$OUT/analyze/"
for f in "$OUT"/tar/* "$OUT"/gzip/*; do head -c 512 "$f" > "$OUT/detect/head-$(basename "$f")"; done

# spans, secrets and names to redact (fuzz_scan): real lines and what --redact and
# the secret masking look for
for f in $S/bad_socket_ifname/run.log $S/duplicate_gpu/run.log; do
	[ -f "$f" ] && head -c 2048 "$f" > "$OUT/scan/$(basename "$(dirname "$f")")"
done
for f in $S/*/env.txt; do [ -f "$f" ] && head -c 2048 "$f" > "$OUT/scan/env-$(basename "$(dirname "$f")")"; break; done
printf 'vm:1:1 [0] NCCL INFO cudaDriverVersion 12040' > "$OUT/scan/cuda-driver"
printf 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 79.14 GiB of which 3.19 MiB is free. Process 1224 has 79.13 GiB memory in use.' > "$OUT/scan/oom"
printf 'SLURM_NODELIST=trainhost[52-53,060] hostname ip-10-1-2-3.ec2.internal master==10.9.8.7 eth0-10.1.2.3' > "$OUT/scan/hosts"
printf 'export HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCDEF123 "WANDB_API_KEY": "0123456789abcdef" AKIAABCDEFGHIJKLMNOP' > "$OUT/scan/secrets"

# flight-recorder dumps (fuzz_pickle): the real ones of torch 2.11, the synthetic
# ones of other format versions, the hostile and damaged ones
for f in fixtures/flight/real/timeout/nccl_trace_rank_0 fixtures/flight/real/ondemand/*/rank_0* \
         fixtures/flight/synthetic/*/*rank_1* fixtures/flight/bad/*; do
	[ -f "$f" ] && cp "$f" "$OUT/pickle/$(echo "$f" | tr / _)"
done

# signature databases
cp tests/db-min/core.json "$OUT/sigdb/"
for f in patterns/*.json; do [ -f "$f" ] && cp "$f" "$OUT/sigdb/"; done
exit 0
