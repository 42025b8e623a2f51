#!/bin/sh
# Accuracy on the real captures in fixtures/ (the development set): the top
# diagnosis (the first of severity error or warning; info is context) must
# name the expected category (and rank, where one is at fault); healthy runs
# must have verdict healthy (no error diagnosis; warnings allowed).  Rows marked xfail are
# known limitations: reported, not counted as failures.  Also usable on any
# other TSV of the same shape: tests/accuracy/run.sh BIN [FILE.tsv].
# The last two lines count, over every row (xfail rows included), the two
# errors issue 13 wants at 0: a failure whose verdict is healthy, and a
# healthy run whose verdict is diagnosed or unknown_failure.
BIN=${1:-./nccl-triage}
TSV=${2:-tests/accuracy/expected.tsv}
pass=0; fail=0; xfail=0; xpass=0
fail_healthy=0; healthy_alarmed=0
TAB=$(printf '\t')
while IFS="$TAB" read -r path want rank mode; do
	case "$path" in ''|'#'*) continue ;; esac
	[ -e "$path" ] || { echo "missing: $path"; fail=$((fail + 1)); continue; }
	got=$("$BIN" analyze -q --format json "$path" | "${NT_BUILD:-build}/tools/jsonproj" | awk '
		/^bundle/ { verdict = $NF }
		/^diag/ && ($4 == "error" || $4 == "warning") && top == "" { top = $3; r = $0; sub(/.* ranks ?/, "", r); if (r ~ /^diag/) r = "" ; ranks = r }
		END { print verdict, (top == "" ? verdict : top), (ranks == "" ? "-" : ranks) }')
	gverdict=${got%% *}
	rest=${got#* }
	gcat=${rest% *}
	granks=${rest#* }
	if [ "$want" = healthy ]; then
		case "$gverdict" in diagnosed|unknown_failure) healthy_alarmed=$((healthy_alarmed + 1)) ;; esac
	elif [ "$gverdict" = healthy ]; then
		fail_healthy=$((fail_healthy + 1))
	fi
	ok=1
	if [ "$want" = healthy ]; then
		[ "$gverdict" = healthy ] || ok=0
		gcat=$gverdict
	else
		[ "$gcat" = "$want" ] || ok=0
		if [ "$rank" != "-" ] && [ $ok = 1 ]; then
			case ",$granks," in *",$rank,"*) ;; *) ok=0 ;; esac
		fi
	fi
	if [ $ok = 1 ]; then
		if [ "$mode" = xfail ]; then xpass=$((xpass + 1)); echo "XPASS $path"; fi
		pass=$((pass + 1))
	elif [ "$mode" = xfail ]; then
		xfail=$((xfail + 1)); echo "xfail $path: want $want${rank:+ rank $rank}, got $gcat ranks $granks"
	else
		fail=$((fail + 1)); echo "FAIL  $path: want $want (rank $rank), got $gcat (ranks $granks)"
	fi
done <"$TSV"
echo "accuracy: $pass right, $fail wrong, $xfail known limitations"
echo "$pass passed, $fail failed"
echo "failures called healthy: $fail_healthy"
echo "healthy runs called failures: $healthy_alarmed"
[ "$fail" -eq 0 ]
