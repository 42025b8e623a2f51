#!/bin/sh
# The coverage tables of PyTorch, the launchers, the kernel and the CUDA runtime
# (patterns/coverage-sources/*.tsv): every row has 8 columns and a known mapping
# (sig:ID, derived:CATEGORY of TAXONOMY, benign:REASON, not-yet); every sig: row
# names a signature that exists and matches the row's sample line when the
# sample is analysed as a log.
BIN=${1:-./nccl-triage}
TAB=$(printf '\t')
pass=0; fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CATS=" P2P_BROKEN IB_RDMA SOCKET_NETWORK SHM_EXHAUSTED GPU_OOM VERSION_MISMATCH COLLECTIVE_TIMEOUT RENDEZVOUS DEVICE_ASSIGNMENT FABRIC_MANAGER MEMLOCK_LIMITS NCCL_BUG_UPGRADE ENV_MISCONFIG RANK_FAILURE CUDA_ERROR_OTHER OTHER "
: >"$tmp/want"
k=0
for t in patterns/coverage-sources/*.tsv; do
	n=0
	while IFS= read -r line; do
		n=$((n + 1))
		case "$line" in '#'*|'') continue ;; file"$TAB"*) continue ;; esac
		cols=$(printf '%s\n' "$line" | awk -F'\t' '{print NF}')
		if [ "$cols" -ne 8 ]; then
			echo "FAIL $t:$n: $cols columns, want 8"; fail=$((fail + 1)); continue
		fi
		map=$(printf '%s\n' "$line" | cut -f6)
		sample=$(printf '%s\n' "$line" | cut -f8)
		case "$map" in
		not-yet) ;;
		benign:?*) ;;
		derived:*)
			case "$CATS" in *" ${map#derived:} "*) ;; *)
				echo "FAIL $t:$n: unknown category in $map"; fail=$((fail + 1)); continue ;;
			esac ;;
		sig:*)
			if [ -z "$sample" ]; then
				echo "FAIL $t:$n: sig row without a sample"; fail=$((fail + 1)); continue
			fi
			k=$((k + 1))
			mkdir "$tmp/b/r$k" 2>/dev/null || { mkdir -p "$tmp/b"; mkdir "$tmp/b/r$k"; }
			printf '%s\n' "$sample" >"$tmp/b/r$k/s.log"
			printf 'r%s\t%s\t%s:%s\n' "$k" "${map#sig:}" "$t" "$n" >>"$tmp/want"
			continue ;;
		*)
			echo "FAIL $t:$n: mapping \"$map\" is not sig:ID, derived:CATEGORY, benign:REASON or not-yet"
			fail=$((fail + 1)); continue ;;
		esac
		pass=$((pass + 1))
	done <"$t"
done
# every sig: sample analysed in one batch run; its bundle must carry evidence of that signature
if [ -s "$tmp/want" ]; then
	"$BIN" batch -q -j 2 --format jsonl "$tmp/b" >"$tmp/out.jsonl" 2>/dev/null
	while IFS="$TAB" read -r r id where; do
		if grep -F "\"name\":\"$tmp/b/$r\"" "$tmp/out.jsonl" | grep -q -F "\"signature\":\"$id\""; then
			pass=$((pass + 1))
		else
			echo "FAIL $where: signature $id does not match the row's sample (or does not exist)"; fail=$((fail + 1))
		fi
	done <"$tmp/want"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
