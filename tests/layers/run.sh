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

TABLE='
base     util nt_limits json version tstamp hash linkclass tarhdr acmatch scan
input    input input_internal input_stream input_dir input_gzip input_tar
parse    detect logline linekw sysreport sysparse parse_env parse_memory parse_nvsmi
parse    parse_p2p parse_topo parse_topoxml parse_versions ranks
match    sigdb match evidence patids
rules    rules rules_env rules_sys rules_ranks sys_eval envvars memcalc
engine   bundle pipeline analysis correlate cascade diagnosis nextsteps
report   report report_formats report_json report_text report_md report_html report_junit
report   report_sarif report_github ranktable redact summary
verify   verify verify_int verify_load verify_child verify_run verify_report verify_analyze
cli      cli clicommon commands formats cmd_analyze cmd_batch cmd_merge cmd_mem cmd_verify cmd_db
cli      dbpath progress main
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
	echo "$TABLE" | awk -v m="$m" '{ for (i = 2; i <= NF; i++) if ($i == m) { print $1; exit } }'
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
