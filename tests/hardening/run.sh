#!/bin/sh
# tests/hardening/run.sh BINARY - hostile and damaged input, resource caps and
# faults (docs/hardening.md).  Inputs are built here with the real tools (tar,
# gzip, head, truncate) around real NCCL lines from fixtures/captures.
#   - no silent loss: a bundle with a known number of recognisable NCCL WARN
#     lines hidden among truncated gzip members, corrupt tar headers, binary
#     junk, oversized lines, NUL bytes and CRLF; every line must be found
#     (evidence_total in the JSON) and every skipped part named in warnings
#   - caps: gzip bomb, tar member count, folder entries and depth, line
#     length, lines per document, a catastrophic user regex
#   - faults: a pipe that closes early, a file that shrinks while being
#     read, ENOSPC on the output, SIGPIPE into head
#   - safety: hostile member names never touch the filesystem; ANSI escapes
#     and <script> from log lines come out neutralised in text, md and json
#   - valgrind on representative runs when valgrind is installed
# Last line: "N passed, N failed".
BIN=${1:-./nccl-triage}
case "$BIN" in /*) ;; *) BIN="$(pwd)/$BIN" ;; esac
ROOT=$(pwd)
DB="--no-builtin -p $ROOT/tests/db-min"
CAP=$ROOT/fixtures/captures/h200-2gpu/scenarios
PASS=0
FAIL=0
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

ok() { PASS=$((PASS + 1)); echo "ok   $1"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && echo "$2" | head -n 15 | sed 's/^/     /'; }
check() { # check NAME COND-COMMAND...
	name=$1; shift
	if "$@"; then ok "$name"; else bad "$name"; fi
}
# evidence_total of the diagnosis t.socket (signature t.no_socket_if) in a JSON report
evtotal() {
	tr -d '\t\n ' <"$1" | sed -n 's/.*"id":"t\.socket"[^]]*\].*"evidence_total":\([0-9]*\).*/\1/p' | head -n 1
}
# warnings of the first bundle, one per line
warnings() {
	tr -d '\n' <"$1" | sed 's/.*"warnings":[[:space:]]*\[//; s/\][[:space:]]*,[[:space:]]*"facts".*//' | tr -s '\t' ' ' |
		sed 's/", *"/"\n"/g'
}

# The recognisable line: a real NCCL WARN from the bad_socket_ifname capture.
WARN=$(grep -m1 'NCCL WARN Bootstrap : no socket interface found' "$CAP/bad_socket_ifname/run.log")
[ -n "$WARN" ] || { echo "missing capture line"; echo "0 passed, 1 failed"; exit 1; }
# Filler: the real INFO lines of the healthy run.
grep 'NCCL INFO' "$CAP/ok/run.log" >"$T/info.txt"
filler() { cat "$T/info.txt"; }
nwarn() { grep -c -a 'NCCL WARN Bootstrap : no socket interface found' "$@" 2>/dev/null | awk -F: '{s += $NF} END {print s + 0}'; }

# ---------------------------------------------------------------------------
# 1. No silent loss
# ---------------------------------------------------------------------------
B=$T/bundle
mkdir -p "$B/logs" "$B/sys" "$B/junk"
# (a) CRLF line endings, 5 WARN lines
{ for i in 1 2 3 4 5; do filler; echo "$WARN"; done; } | sed 's/$/\r/' >"$B/logs/rank0-crlf.log"
# (b) NUL bytes inside lines and between them, 4 WARN lines
{ for i in 1 2 3 4; do filler | head -n 5; printf 'garbage\000\000with NULs\000\n'; echo "$WARN"; printf '\000\000\000\000'; done; } >"$B/logs/rank1-nul.log"
# (c) oversized lines (200 KB, above the 64 KiB --max-line) around 3 WARN lines,
#     one WARN line itself followed by 100 KB on the same line
{ head -c 200000 /dev/zero | tr '\0' 'x'; echo; echo "$WARN"; head -c 200000 /dev/zero | tr '\0' 'y'; echo;
  echo "$WARN"; printf '%s' "$WARN"; head -c 100000 /dev/zero | tr '\0' 'z'; echo; } >"$B/logs/rank2-long.log"
# (d) binary junk: skipped, named in warnings
head -c 65536 /dev/urandom >"$B/junk/core.bin"
# (e) a gzip member cut short: what zlib can decode is analysed
{ for i in $(seq 1 40); do filler; echo "$WARN"; done; } | gzip -9 -n >"$T/full.gz"
head -c $(( $(wc -c <"$T/full.gz") / 2 )) "$T/full.gz" >"$B/logs/rank3-truncated.log.gz"
# (f) a good gzip with trailing garbage, 2 WARN lines
{ filler; echo "$WARN"; filler; echo "$WARN"; } | gzip -n >"$B/logs/rank4.log.gz"
printf 'trailing garbage, not gzip' >>"$B/logs/rank4.log.gz"
# (g) a tar inside the bundle whose 2nd of 3 members has a corrupt header
mkdir -p "$T/inner"
{ filler; echo "$WARN"; } >"$T/inner/m1.log"
{ filler; echo "$WARN"; echo "$WARN"; } >"$T/inner/m2.log"
{ filler; echo "$WARN"; } >"$T/inner/m3.log"
(cd "$T/inner" && tar --format=ustar -b1 -cf "$T/inner.tar" m1.log m2.log m3.log)
m1=$(wc -c <"$T/inner/m1.log")
off=$(( 512 + (m1 + 511) / 512 * 512 + 3 )) # inside the 2nd header's name
cp "$T/inner.tar" "$B/sys/inner-corrupt.tar"
printf 'X' | dd of="$B/sys/inner-corrupt.tar" bs=1 seek=$off conv=notrunc 2>/dev/null
# (h) two archives concatenated (cat a.tar b.tar): both read
(cd "$T/inner" && tar -cf "$T/a.tar" m1.log && tar -cf "$T/b.tar" m3.log)
cat "$T/a.tar" "$T/b.tar" >"$B/sys/concatenated.tar"
# (i) an empty file and a file of only NULs (copytruncate leftovers)
: >"$B/logs/empty.log"
head -c 4096 /dev/zero >"$B/logs/zeros.log"

# expected: every WARN line in what survives
EXP=$(( $(nwarn "$B/logs/rank0-crlf.log" "$B/logs/rank1-nul.log" "$B/logs/rank2-long.log") ))
EXP=$(( EXP + $(gzip -dc "$B/logs/rank3-truncated.log.gz" 2>/dev/null | nwarn) ))
EXP=$(( EXP + 2 + 1 + 1 + 2 )) # rank4 gzip; inner m1, m3; concatenated m1, m3
(cd "$T" && tar -czf "$T/ticket.tar.gz" bundle)

for form in folder tar.gz stdin; do
	case $form in
	folder) "$BIN" analyze $DB --format json "$B" >"$T/r.json" 2>"$T/r.err"; rc=$? ;;
	tar.gz) "$BIN" analyze $DB --format json "$T/ticket.tar.gz" >"$T/r.json" 2>"$T/r.err"; rc=$? ;;
	stdin) "$BIN" analyze $DB --format json - <"$T/ticket.tar.gz" >"$T/r.json" 2>"$T/r.err"; rc=$? ;;
	esac
	got=$(evtotal "$T/r.json")
	if [ "$rc" -eq 1 ] && [ "${got:-0}" -eq "$EXP" ]; then ok "no silent loss ($form): $got of $EXP WARN lines found"
	else bad "no silent loss ($form): $got of $EXP WARN lines found, exit $rc" "$(cat "$T/r.err")"; fi
	warnings "$T/r.json" >"$T/w.txt"
	missing=""
	for pat in 'core.bin: binary content' 'rank3-truncated.log.gz: unexpected end of gzip stream' \
		'rank4.log.gz: byte [0-9]*: trailing garbage' 'rank2-long.log: 3 line(s) longer than 65536' \
		'inner-corrupt.tar: byte [0-9]*: corrupt tar header'; do
		grep -q "$pat" "$T/w.txt" || missing="$missing [$pat]"
	done
	if [ -z "$missing" ]; then ok "every skipped part named in warnings ($form)"
	else bad "every skipped part named in warnings ($form): missing$missing" "$(cat "$T/w.txt")"; fi
done

# A copytruncate hole: 100 KB of NULs, then the log goes on (no newline between)
{ head -c 100000 /dev/zero; echo "$WARN"; filler | head -n 3; } >"$T/hole.log"
"$BIN" analyze $DB --format json "$T/hole.log" >"$T/r.json" 2>"$T/r.err"
got=$(evtotal "$T/r.json")
check "NUL hole at the start of a log (copytruncate): the line after it is found" sh -c "[ '$got' = 1 ] && ! [ -s '$T/r.err' ]"
# UTF-16 text is not analysed, and says so
printf 'h\000e\000l\000l\000o\000\n\000' >"$T/u16.log"
"$BIN" analyze $DB --format json "$T/u16.log" >"$T/r.json" 2>"$T/r.err"
check "UTF-16 (isolated NULs) is named as binary" grep -q 'u16.log: binary content (12 bytes) skipped' "$T/r.err"

# Lines without a final newline, a lone CR, a line that is exactly --max-line long
{ filler | head -n 3; printf '%s\r' "$WARN"; } >"$T/nonl.log"
"$BIN" analyze $DB --format json "$T/nonl.log" >"$T/r.json" 2>/dev/null
check "last line without newline (CR only) is analysed" [ "$(evtotal "$T/r.json")" = 1 ]

# ---------------------------------------------------------------------------
# 2. Caps: each reached with a clear message, the run stays quick and bounded
# ---------------------------------------------------------------------------
head -c 300000000 /dev/zero | gzip -9 >"$T/bomb.gz"
start=$(date +%s)
"$BIN" analyze $DB --format json "$T/bomb.gz" >"$T/r.json" 2>"$T/r.err"; rc=$?
el=$(( $(date +%s) - start ))
check "gzip bomb: stopped by --max-ratio (exit $rc, ${el}s)" sh -c "grep -q 'above the limit of 1000:1 (--max-ratio); stopped' '$T/r.err' && [ $rc -le 1 ] && [ $el -lt 60 ]"
"$BIN" analyze $DB --max-member-bytes 1M --format json "$T/bomb.gz" >"$T/r.json" 2>"$T/r.err"
check "member cap: --max-member-bytes 1M" grep -q 'cut at 1048576 bytes (--max-member-bytes)' "$T/r.err"
mkdir -p "$T/many"
for i in $(seq 1 30); do echo "$WARN" >"$T/many/f$i.log"; done
(cd "$T/many" && tar -cf "$T/many.tar" .)
"$BIN" analyze $DB --max-members 10 --format json "$T/many.tar" >"$T/r.json" 2>"$T/r.err"
check "tar member cap: --max-members 10 (message, 10 read)" sh -c "grep -q 'more than 10 members (--max-members), the rest is skipped' '$T/r.err' && [ \"\$(tr -d '\t\n ' <'$T/r.json' | grep -o '\"path\":\"[^\"]*\",\"kind\"' | wc -l)\" -le 10 ]"
"$BIN" analyze $DB --max-entries 10 --format json "$T/many" >"$T/r.json" 2>"$T/r.err"
check "folder entry cap: --max-entries 10" grep -q 'more than 10 folder entries (--max-entries)' "$T/r.err"
d="$T/deep"; p="$d"; for i in $(seq 1 40); do p="$p/d$i"; done; mkdir -p "$p"; echo "$WARN" >"$p/x.log"
"$BIN" analyze $DB --format json "$d" >"$T/r.json" 2>"$T/r.err"
check "folder depth cap: default 32" grep -q 'folders nested deeper than 32 (--max-depth), skipped' "$T/r.err"
# nesting: gz(tar(gz(tar(gz(...))))) deeper than --max-nesting
cp "$T/inner/m1.log" "$T/n0"; prev="$T/n0"
for i in 1 2 3 4 5 6; do gzip -n -c "$prev" >"$T/n$i.gz"; prev="$T/n$i.gz"; done
"$BIN" analyze $DB --format json "$prev" >"$T/r.json" 2>"$T/r.err"
check "nesting cap: 6 gzip layers, default 4" grep -q 'archives nested more than 4 deep (--max-nesting), skipped' "$T/r.err"
{ filler; filler; filler; echo "$WARN"; } >"$T/lines.log"
"$BIN" analyze $DB --max-lines 20 --format json "$T/lines.log" >"$T/r.json" 2>"$T/r.err"
check "lines cap: --max-lines 20" grep -q 'more than 20 lines; the rest of the document was not analysed (--max-lines)' "$T/r.err"
"$BIN" analyze $DB --max-bundle-bytes 4k --format json "$B" >"$T/r.json" 2>"$T/r.err"
check "bundle cap: --max-bundle-bytes 4k" grep -q '(--max-bundle-bytes), the rest of the input is skipped' "$T/r.err"

# A catastrophic regex in a user pattern file: reported, skipped, quick.
mkdir -p "$T/userdb"
cat >"$T/userdb/user.json" <<'EOF'
{"family": "user", "description": "a user pattern file with a catastrophic regex",
 "signatures": [{"id": "u.catastrophic", "on": "any", "regex": "(a+)+$",
   "samples": [{"line": "aaaa"}], "negative_samples": ["aaab"]}],
 "diagnoses": [{"id": "u.diag", "category": "OTHER", "severity": "warning", "role": "root",
   "confidence": 0.1, "title": "user", "explanation": "user", "fix": ["none"],
   "when": {"any": ["u.catastrophic"]}}]}
EOF
{ for i in 1 2 3 4 5 6 7 8; do head -c 5000 /dev/zero | tr '\0' 'a'; echo b; done; echo "$WARN"; } >"$T/redos.log"
start=$(date +%s)
"$BIN" analyze $DB -p "$T/userdb" --format json "$T/redos.log" >"$T/r.json" 2>"$T/r.err"; rc=$?
el=$(( $(date +%s) - start ))
if grep -q 'signature "u.catastrophic" .* exceeded the regex match limit on 8 line(s) (the first in this document); each was skipped for it' "$T/r.err" && [ "$(evtotal "$T/r.json")" = 1 ] && [ $el -lt 20 ]; then
	ok "catastrophic regex (a+)+\$: each of the 8 lines skipped and counted in ${el}s, other signatures still match"
else bad "catastrophic regex: exit $rc, ${el}s" "$(head -c 2000 "$T/r.err")"; fi
if [ "$(grep -c 'u.catastrophic' "$T/r.err")" = 1 ]; then ok "catastrophic regex reported once per bundle"
else bad "catastrophic regex reported once per bundle" "$(grep -c 'u.catastrophic' "$T/r.err")"; fi

printf '%s' '{"family": "user", "description": "catastrophic regex with a long negative sample",
 "signatures": [{"id": "u.c", "on": "any", "regex": "(a+)+$", "samples": [{"line": "aaaa"}],
   "negative_samples": ["' >"$T/userdb2.json"
head -c 5000 /dev/zero | tr '\0' 'a' >>"$T/userdb2.json"
printf '%s' 'b"]}],
 "diagnoses": [{"id": "u.d", "category": "OTHER", "severity": "warning", "role": "root", "confidence": 0.1,
   "title": "t", "explanation": "e", "fix": ["f"], "when": {"any": ["u.c"]}}]}' >>"$T/userdb2.json"
mkdir -p "$T/userdb2" && mv "$T/userdb2.json" "$T/userdb2/u.json"
"$BIN" check-db "$T/userdb2" >/dev/null 2>"$T/r.err"; rc=$?
check "check-db names a catastrophic regex (exit $rc)" sh -c "[ $rc -eq 2 ] && grep -q 'exceeded the regex match limit' '$T/r.err'"

# ---------------------------------------------------------------------------
# 3. Faults
# ---------------------------------------------------------------------------
# a pipe that closes early: the stream ends inside the gzip member
n=$(( $(wc -c <"$T/ticket.tar.gz") / 2 ))
head -c $n "$T/ticket.tar.gz" | "$BIN" analyze $DB --format json - >"$T/r.json" 2>"$T/r.err"; rc=$?
check "pipe closed early: message, exit $rc (0 or 1)" sh -c "grep -q 'stdin: unexpected end of gzip stream' '$T/r.err' && [ $rc -le 1 ] && tr -d '\t\n ' <'$T/r.json' | grep -q '\"complete\":false'"
printf '' | "$BIN" analyze $DB --format json - >"$T/r.json" 2>"$T/r.err"; rc=$?
check "empty stdin: no_evidence, exit 0" sh -c "[ $rc -eq 0 ] && grep -q 'no_evidence' '$T/r.json'"
# a file that shrinks while being read
yes "$(head -n 1 "$T/info.txt")" | head -c 150000000 >"$T/shrink.log"
"$BIN" analyze $DB --format json "$T/shrink.log" >"$T/r.json" 2>"$T/r.err" &
pid=$!
sleep 0.3
truncate -s 100000 "$T/shrink.log"
wait $pid; rc=$?
if grep -q 'shrank while being read: it had 150000000 bytes when opened' "$T/r.err" && [ $rc -le 1 ]; then
	ok "file shrinking while read: message, exit $rc"
elif [ $rc -le 1 ] && ! [ -s "$T/r.err" ]; then
	ok "file shrinking while read: (read completely before the truncate; exit $rc)"
else bad "file shrinking while read: exit $rc" "$(cat "$T/r.err")"; fi
rm -f "$T/shrink.log"
# ENOSPC on the output
"$BIN" analyze $DB --format json -o /dev/full "$B" >/dev/null 2>"$T/r.err"; rc=$?
check "ENOSPC on -o /dev/full: message, exit 2" sh -c "[ $rc -eq 2 ] && grep -q \"error writing '/dev/full': No space left on device\" '$T/r.err'"
"$BIN" analyze $DB --format md "$B" >/dev/full 2>"$T/r.err"; rc=$?
check "ENOSPC on standard output: message, exit 2" sh -c "[ $rc -eq 2 ] && grep -q \"error writing 'standard output': No space left on device\" '$T/r.err'"
"$BIN" explain $DB t.dup >/dev/full 2>"$T/r.err"; rc=$?
check "ENOSPC on explain's output: exit 2" [ $rc -eq 2 ]
# SIGPIPE: the report (> 64 KiB, more than a pipe holds) into head -1
mkdir -p "$T/wide"
for i in $(seq 1 1500); do echo "$WARN" >"$T/wide/rank$i.log"; done
{ "$BIN" analyze $DB --format json "$T/wide" 2>"$T/r.err"; echo $? >"$T/rc"; } | head -n 1 >/dev/null
rc=$(cat "$T/rc")
check "SIGPIPE into head -1: quiet, exit 141 (got $rc)" sh -c "[ '$rc' = 141 ] && ! [ -s '$T/r.err' ]"

# ---------------------------------------------------------------------------
# 4. Safety
# ---------------------------------------------------------------------------
# hostile member names: parent paths, absolute paths, control characters
H=$T/hostile
mkdir -p "$H/src" "$H/run"
echo "$WARN" >"$H/src/a.log"
(cd "$H/src" && tar --transform 's|^a.log$|../../etc/passwd|' -cf "$H/dotdot.tar" a.log 2>/dev/null)
(cd "$H/src" && tar -P --transform 's|^a.log$|/tmp/nccl-triage-hostile-abs.log|' -cf "$H/abs.tar" a.log 2>/dev/null)
esc=$(printf 'evil\033[2J\033]0;pwned\007name\r.log')
cp "$H/src/a.log" "$H/src/$esc"
(cd "$H/src" && tar -cf "$H/ctrl.tar" "$esc")
rm -f "$H/src/$esc"
tar -cf "$H/all.tar" -C "$H" dotdot.tar abs.tar ctrl.tar
for f in all; do
	(cd "$H/run" && "$BIN" analyze $DB --format json "$H/$f.tar" >"$T/h.json" 2>"$T/h.err"
	 "$BIN" analyze $DB --format text "$H/$f.tar" >"$T/h.txt" 2>>"$T/h.err"
	 "$BIN" analyze $DB --format md "$H/$f.tar" >"$T/h.md" 2>>"$T/h.err")
done
check "hostile names: nothing written in the working folder" [ -z "$(ls -A "$H/run")" ]
check "hostile names: no absolute path created" [ ! -e /tmp/nccl-triage-hostile-abs.log ]
check "hostile names: nothing created next to the archive" [ "$(ls -A "$H" | tr '\n' ' ')" = "abs.tar all.tar ctrl.tar dotdot.tar run src " ]
check "hostile names: all 3 members analysed" [ "$(evtotal "$T/h.json")" = 3 ]
check "hostile names: no control bytes in text, md, json" sh -c "! cat '$T/h.txt' '$T/h.md' '$T/h.json' '$T/h.err' | tr -d '\n\t' | LC_ALL=C grep -q '[[:cntrl:]]'"
if command -v strace >/dev/null 2>&1; then
	(cd "$H/run" && strace -f -e trace=openat,open,creat,mkdir,mkdirat,rename,renameat,unlink,unlinkat,symlink,link -o "$T/strace.txt" \
		"$BIN" analyze $DB --format json -o "$T/strace.json" "$H/all.tar" >/dev/null 2>&1)
	writes=$(grep -E 'O_WRONLY|O_RDWR|O_CREAT|creat\(|mkdir|rename|unlink|symlink|link\(' "$T/strace.txt" | grep -v "$T/strace.json" | grep -v ENOENT)
	if [ -z "$writes" ]; then ok "strace: the only file opened for writing is the -o output"
	else bad "strace: unexpected writes" "$writes"; fi
fi

# ANSI escapes, C1 CSI and <script> inside log lines
{ filler | head -n 3
  printf '%s <script>alert(1)</script> \033[31mred\033[0m \302\233' "$WARN"; printf '2J \342\200\256evil\n'
  printf '%s ```\n<img src=x onerror=alert(1)>\n' "$WARN"; } >"$T/inject.log"
for fmt in text md json; do
	"$BIN" analyze $DB --format $fmt --color always "$T/inject.log" >"$T/i.$fmt" 2>/dev/null
done
"$BIN" analyze $DB --format text "$T/inject.log" >"$T/i.plain" 2>/dev/null
check "log text on a terminal: no ESC, C1 or bidi bytes from the log (colour off)" sh -c "! LC_ALL=C grep -q \"\$(printf '\033')\" '$T/i.plain' && ! grep -q \"\$(printf '\302\233')\" '$T/i.plain' && ! grep -q \"\$(printf '\342\200\256')\" '$T/i.plain' && grep -q '?\[31mred' '$T/i.plain'"
check "log text with --color always: only the report's own colour codes" sh -c "! grep -q \"\$(printf '\033')\[31mred\" '$T/i.text' && ! grep -q \"\$(printf '\033')\[2J\" '$T/i.text'"
check "json: control bytes escaped, text kept" sh -c "! tr -d '\n\t' <'$T/i.json' | LC_ALL=C grep -q '[[:cntrl:]]' && grep -q '<script>alert(1)</script>' '$T/i.json'"
# Markdown: raw tags from log text only inside code fences (a backslash-escaped
# \< outside them is literal text in CommonMark)
awk '
	/^```/ { f = $0; sub(/[^`].*/, "", f); if (!infence) { infence = length(f); next } else if (length(f) >= infence) { infence = 0; next } }
	!infence && (/(^|[^\\])<script/ || /(^|[^\\])<img/) { bad = 1; print "outside a fence: " $0 }
	END { exit bad }' "$T/i.md" >"$T/md.err"
if [ $? -eq 0 ] && grep -q '<script>' "$T/i.md"; then ok "markdown: <script> and <img> only inside code fences"
else bad "markdown: raw HTML outside a code fence" "$(cat "$T/md.err")"; fi

# ---------------------------------------------------------------------------
# 5. valgrind on representative runs
# ---------------------------------------------------------------------------
if command -v valgrind >/dev/null 2>&1 && ! nm "$BIN" 2>/dev/null | grep -q __asan_init; then
	for args in "--format json $T/ticket.tar.gz" "--format md $B" "--format text $T/many.tar $T/bomb.gz" \
		"-p $T/userdb --format json $T/redos.log" "--format json $H/all.tar"; do
		# shellcheck disable=SC2086
		valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite,indirect \
			"$BIN" analyze $DB $args >/dev/null 2>"$T/vg.err"
		rc=$?
		if [ $rc -ne 9 ] && ! grep -q '==[0-9]*==' "$T/vg.err"; then ok "valgrind clean: analyze $(echo "$args" | sed "s|$T/||g")"
		else bad "valgrind: analyze $args (exit $rc)" "$(grep '==' "$T/vg.err" | head -n 20)"; fi
	done
	printf '' | valgrind -q --error-exitcode=9 --leak-check=full "$BIN" analyze $DB - >/dev/null 2>"$T/vg.err"
	check "valgrind clean: empty stdin" sh -c "! grep -q '==[0-9]*==' '$T/vg.err'"
else
	echo "skip valgrind (not installed, or an ASan build)"
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
