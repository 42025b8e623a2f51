#!/bin/sh
# tests/layers/run.sh - the layers of analyzer/ (docs/architecture.md), lowest
# first:
#     base < input < parse < match < rules < engine < report < verify < collect < cli
# Every source file lives in analyzer/LAYER/; the folder is its layer.  A file
# may include headers of its own layer and of the layers below it, never of a
# layer above, and names them with their folder ("match/sigdb.h"), so that the
# include line itself shows the dependency.  The library (libnccltriage.a) is
# every layer but cli/ (Makefile).  Ends with "N passed, N failed".
cd "$(dirname "$0")/../.." || exit 2
LAYERS="base input parse match rules engine report verify collect cli"

rank_of() { # layer name -> 1..9, 0 when not a layer
	i=0
	for l in $LAYERS; do
		i=$((i + 1))
		[ "$l" = "$1" ] && { echo $i; return; }
	done
	echo 0
}

pass=0
fail=0
T=$(mktemp)
trap 'rm -f "$T"' EXIT
find analyzer -name '*.[ch]' | sort >"$T"
while read -r f; do
	lf=$(basename "$(dirname "$f")")
	rf=$(rank_of "$lf")
	if [ "$(dirname "$(dirname "$f")")" != analyzer ] || [ "$rf" -eq 0 ]; then
		echo "$f: not in a layer folder (analyzer/LAYER/, LAYER one of: $LAYERS)"
		fail=$((fail + 1))
		continue
	fi
	bad=0
	for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		li=${inc%%/*}
		if [ "$li" = "$inc" ]; then
			if [ -n "$(find analyzer -name "$inc" | head -n 1)" ]; then
				echo "$f includes \"$inc\" without its folder (write \"LAYER/$inc\")"
				bad=1
			fi
			continue # not ours (cJSON, PCRE2)
		fi
		if [ ! -f "analyzer/$inc" ]; then
			echo "$f includes \"$inc\": no such file analyzer/$inc"
			bad=1
			continue
		fi
		ri=$(rank_of "$li")
		if [ "$ri" -gt "$rf" ]; then
			echo "$f ($lf) includes $inc ($li): a lower layer must not include a higher one"
			bad=1
		fi
	done
	if [ $bad -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done <"$T"
# the library archive holds no cli/ object
if [ -f "${B:-build}/libnccltriage.a" ]; then
	if ar t "${B:-build}/libnccltriage.a" | grep -qx 'main.o\|cmd_analyze.o\|cli.o'; then
		echo "libnccltriage.a holds cli/ objects"
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
