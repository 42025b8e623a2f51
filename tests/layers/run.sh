#!/bin/sh
# tests/layers/run.sh - the layers of analyzer/ (docs/architecture.md), lowest
# first:
#     base < input < parse < match < rules < engine < report < verify < cli
# A file may include headers of its own layer and of the layers below it,
# never of a layer above.  Every module must have a layer.
#
# Today the layout is flat and the layer of a module (a file's name without
# .c/.h) is in the table below; once the files live in analyzer/LAYER/, the
# folder is the layer and the table is not needed (a file in a folder that
# names a layer takes that layer).  Ends with "N passed, N failed".
cd "$(dirname "$0")/../.." || exit 2
LAYERS="base input parse match rules engine report verify cli"

# module -> layer; NAME_* (a trailing '*') covers every module named so
TABLE='
base     util nt_limits json version tstamp hash linkclass tarhdr acmatch scan
input    input input_internal input_stream input_*
parse    detect logline linekw sysreport sysparse parse_* ranks
match    sigdb match evidence patids derive
rules    rules rules_* sys_eval envvars memcalc
engine   bundle pipeline analysis correlate cascade diagnosis nextsteps verdict
report   report report_* ranktable redact summary coverage
verify   verify verify_*
cli      cli clicommon commands formats cmd_* dbpath progress main
'

rank_of() { # layer name -> 1..9, 0 when not a layer
	i=0
	for l in $LAYERS; do
		i=$((i + 1))
		[ "$l" = "$1" ] && { echo $i; return; }
	done
	echo 0
}

# layer_of PATH: the folder when it is a layer, else the table's
layer_of() {
	dir=$(basename "$(dirname "$1")")
	if [ "$(rank_of "$dir")" -gt 0 ]; then
		echo "$dir"
		return
	fi
	m=$(basename "$1"); m=${m%.[ch]}
	echo "$TABLE" | awk -v m="$m" '
		{ for (i = 2; i <= NF; i++) if ($i == m) { exact = $1 }
		  for (i = 2; i <= NF; i++) if ($i ~ /\*$/ && index(m, substr($i, 1, length($i) - 1)) == 1) { glob = $1 } }
		END { if (exact != "") print exact; else if (glob != "") print glob }'
}

pass=0
fail=0
T=$(mktemp)
trap 'rm -f "$T"' EXIT
find analyzer -name '*.[ch]' | sort >"$T"
while read -r f; do
	lf=$(layer_of "$f")
	if [ -z "$lf" ]; then
		echo "$f: no layer (add the module to the table in tests/layers/run.sh and docs/architecture.md)"
		fail=$((fail + 1))
		continue
	fi
	rf=$(rank_of "$lf")
	bad=0
	for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		h=$(find analyzer -name "$(basename "$inc")" | head -n 1)
		[ -n "$h" ] || continue # not ours (cJSON, PCRE2)
		li=$(layer_of "$h")
		ri=$(rank_of "${li:-none}")
		if [ "$ri" -gt "$rf" ]; then
			echo "$f ($lf) includes $inc ($li): a lower layer must not include a higher one"
			bad=1
		fi
	done
	if [ $bad -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done <"$T"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
