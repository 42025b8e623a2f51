#!/bin/sh
# tests/layers/run.sh - the layers of analyzer/ (docs/architecture.md), lowest
# first:
#     base < input < parse < match < rules < engine < report < verify < collect < cli
# Every source file lives in analyzer/LAYER/; the folder is its layer.  A file
# may include headers of its own layer and of the layers below it, never of a
# layer above, and names them with their folder ("match/sigdb.h"), so that the
# include line itself shows the dependency.  Between modules (a module is
# LAYER/NAME: NAME.c with NAME.h) there is no circle, neither in the include
# graph nor in the link graph (module A uses a symbol that module B's object
# defines, read with nm from $NT_BUILD/obj), and no object calls into a
# higher layer.  The library (libnccltriage.a) is every layer but cli/
# (Makefile).  Last, the checks are run on planted trees (a circle of two
# files of one folder, in includes and in calls; a call from base/ into
# match/) and must fail there.  Ends with "N passed, N failed".
cd "$(dirname "$0")/../.." || exit 2
LAYERS="base input parse match rules engine report verify collect cli"
OBJ=${NT_BUILD:-${B:-build}}/obj

rank_of() { # layer name -> 1..10, 0 when not a layer
	i=0
	for l in $LAYERS; do
		i=$((i + 1))
		[ "$l" = "$1" ] && { echo $i; return; }
	done
	echo 0
}

# loops: read "A B" edges on standard input; print one line per circle
# ("circle: A -> B -> A") and fail when there is one.  tsort names the
# members of each loop it breaks.
loops() {
	c=$(tsort 2>&1 >/dev/null | awk '
		/input contains a loop/ { if (n) print "circle: " s " -> " first; n = 0; s = ""; next }
		/^tsort: / { sub(/^tsort: /, ""); if (!n) first = $0; s = n ? s " -> " $0 : $0; n++ }
		END { if (n) print "circle: " s " -> " first }')
	[ -z "$c" ] && return 0
	echo "$c"
	return 1
}

# modules: read "FILE INCLUDED" lines (paths under analyzer/) and the list of
# files in $1; print "A B" for module A (NAME.c with its NAME.h) using module
# B.  A header without a source of its own (verify_int.h, diagnosis.h) is
# no module: what it includes counts for each module that includes it.
modules() {
	awk -v files="$1" '
		function mod(f) { sub(/\.[ch]$/, "", f); return f }
		BEGIN { while ((getline f < files) > 0) { sub(/^analyzer\//, "", f); if (f ~ /\.c$/) has_c[mod(f)] = 1; all[f] = 1 } }
		{ n[$1]++; inc[$1, n[$1]] = $2 }
		function walk(m, f,   i, h, hm) {
			if (seen[m, f]++) return
			for (i = 1; i <= n[f]; i++) {
				h = inc[f, i]; hm = mod(h)
				if (hm != m && hm in has_c) { if (!(m SUBSEP hm in out)) { out[m, hm] = 1; print m, hm } }
				else walk(m, h)
			}
		}
		END { for (f in all) if (mod(f) in has_c) walk(mod(f), f) }'
}

# check_includes ROOT: folders, layer order and circles of ROOT/analyzer's
# includes.  Prints problems; sets pass and fail.
check_includes() {
	root=$1
	T=$(mktemp)
	E=$(mktemp)
	(cd "$root" && find analyzer -name '*.[ch]' | sort) >"$T"
	while read -r f; do
		lf=$(basename "$(dirname "$f")")
		rf=$(rank_of "$lf")
		if [ "$(dirname "$(dirname "$f")")" != analyzer ] || [ "$rf" -eq 0 ]; then
			echo "$f: not in a layer folder (analyzer/LAYER/, LAYER one of: $LAYERS)"
			fail=$((fail + 1))
			continue
		fi
		bad=0
		for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$root/$f"); do
			li=${inc%%/*}
			if [ "$li" = "$inc" ]; then
				if [ -n "$(find "$root/analyzer" -name "$inc" | head -n 1)" ]; then
					echo "$f includes \"$inc\" without its folder (write \"LAYER/$inc\")"
					bad=1
				fi
				continue # not ours (cJSON, PCRE2)
			fi
			if [ ! -f "$root/analyzer/$inc" ]; then
				echo "$f includes \"$inc\": no such file analyzer/$inc"
				bad=1
				continue
			fi
			ri=$(rank_of "$li")
			if [ "$ri" -gt "$rf" ]; then
				echo "$f ($lf) includes $inc ($li): a lower layer must not include a higher one"
				bad=1
			fi
			echo "${f#analyzer/} $inc" >>"$E"
		done
		if [ $bad -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
	done <"$T"
	if out=$(modules "$T" <"$E" | loops); then
		pass=$((pass + 1))
	else
		echo "$out" | sed 's/^/include /'
		fail=$((fail + 1))
	fi
	rm -f "$T" "$E"
}

# check_links OBJDIR: OBJDIR/LAYER/NAME.o; a symbol one object leaves
# undefined and another defines is an edge between their modules.
check_links() {
	obj=$1
	D=$(mktemp)
	U=$(mktemp)
	E=$(mktemp)
	for o in "$obj"/*/*.o; do
		[ -f "$o" ] || continue
		m=${o#"$obj"/}
		m=${m%.o}
		nm -g --defined-only "$o" | awk -v m="$m" 'NF == 3 && $2 ~ /[BCDGRSTVW]/ { print $3, m }' >>"$D"
		nm -u "$o" | awk -v m="$m" '{ print $NF, m }' >>"$U"
	done
	if [ ! -s "$D" ]; then
		echo "no objects under $obj: the link graph was not checked (build first)"
		fail=$((fail + 1))
		rm -f "$D" "$U" "$E"
		return
	fi
	sort -k1,1 -o "$D" "$D"
	sort -k1,1 -o "$U" "$U"
	# "symbol user definer" -> "user definer symbol"
	join "$U" "$D" | awk '$2 != $3 { print $2, $3, $1 }' | sort -u >"$E"
	bad=0
	while read -r a b s; do
		if [ "$(rank_of "${b%%/*}")" -gt "$(rank_of "${a%%/*}")" ]; then
			echo "$a calls $s of $b: a lower layer must not call a higher one"
			bad=1
		fi
	done <"$E"
	if [ $bad -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
	if out=$(awk '{ print $1, $2 }' "$E" | sort -u | loops); then
		pass=$((pass + 1))
	else
		echo "$out" | sed 's/^/call /'
		# what ties the modules of the circles, so that they can be opened
		echo "$out" | sed 's/^circle: //; s/ -> /\n/g' | sort -u >"$U"
		awk 'NR == FNR { in_c[$1] = 1; next } ($1 in in_c) && ($2 in in_c) { print "  " $1 " uses " $3 " of " $2 }' \
			"$U" "$E" | awk 'NR <= 20'
		fail=$((fail + 1))
	fi
	rm -f "$D" "$U" "$E"
}

pass=0
fail=0
check_includes .
check_links "$OBJ"
# the library archive holds no cli/ object
if [ -f "${NT_BUILD:-${B:-build}}/libnccltriage.a" ]; then
	if ar t "${NT_BUILD:-${B:-build}}/libnccltriage.a" | grep -qx 'main.o\|cmd_analyze.o\|cli.o'; then
		echo "libnccltriage.a holds cli/ objects"
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
fi
# one order of the layers: this list, the Makefile's (cli/ is the program,
# not in it) and the table of docs/architecture.md
mk=$(sed -n 's/^LAYERS := //p' Makefile)
doc=$(awk -F'`' '/^\| layer \| modules/ { t = 1; next } t && /^\|---/ { next } t && /^\| `/ { printf "%s%s", s, $2; s = " "; next } t { exit }' \
	docs/architecture.md)
if [ "$mk cli" = "$LAYERS" ] && [ "$doc" = "$LAYERS" ]; then
	pass=$((pass + 1))
else
	echo "layer order differs: tests/layers: $LAYERS; Makefile: $mk (+ cli); docs/architecture.md: $doc"
	fail=$((fail + 1))
fi

# The checks must be able to fail: planted trees, each with one fault.
P=$(mktemp -d)
trap 'rm -rf "$P"' EXIT
plant() { # FILE TEXT
	mkdir -p "$(dirname "$P/$1")"
	printf '%s\n' "$2" >"$P/$1"
}
expect_fail() { # WHAT COMMAND...: the check must fail and say "circle" or "must not"
	what=$1
	shift
	out=$(pass=0 fail=0; "$@"; echo "fail=$fail")
	if echo "$out" | grep -q 'fail=[1-9]' && echo "$out" | grep -q 'circle\|must not'; then
		pass=$((pass + 1))
	else
		echo "the layer check passed a tree with $what:"
		echo "$out" | sed 's/^/    /'
		fail=$((fail + 1))
	fi
}
CC=${CC:-cc}
plant inc/analyzer/match/a.c '#include "match/b.h"'
plant inc/analyzer/match/a.h ''
plant inc/analyzer/match/b.c '#include "match/a.h"'
plant inc/analyzer/match/b.h ''
expect_fail "an include circle of two files of one folder" check_includes "$P/inc"
plant call/a.c 'void b_f(void); void a_f(void); void a_f(void) { b_f(); }'
plant call/b.c 'void a_f(void); void b_f(void); void b_f(void) { a_f(); }'
plant up/u.c 'void m_f(void); void u_f(void); void u_f(void) { m_f(); }'
plant up/m.c 'void m_f(void); void m_f(void) {}'
mkdir -p "$P/o1/match" "$P/o2/base" "$P/o2/match"
if $CC -c -o "$P/o1/match/a.o" "$P/call/a.c" && $CC -c -o "$P/o1/match/b.o" "$P/call/b.c" &&
	$CC -c -o "$P/o2/base/u.o" "$P/up/u.c" && $CC -c -o "$P/o2/match/m.o" "$P/up/m.c"; then
	expect_fail "a call circle of two files of one folder" check_links "$P/o1"
	expect_fail "a call from base/ into match/" check_links "$P/o2"
else
	echo "could not compile the planted objects with $CC"
	fail=$((fail + 1))
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
