#!/bin/sh
# tests/deps.sh - install the tools the test suite uses, when missing and we
# are root (CI is): jq (batch tests), GNU time (peak memory in tests/threads
# and tests/untrusted), valgrind (tests/hardening, tests/untrusted: reads past
# a line, leaks), and what the report tests need (see
# tests/reports/deps.sh: chromium, fonts, python3-jsonschema, xmllint).
# As another user it only says what is missing; those tests then skip with a
# message.
need=""
command -v jq >/dev/null 2>&1 || need="$need jq"
command -v gzip >/dev/null 2>&1 || need="$need gzip"
command -v python3 >/dev/null 2>&1 || need="$need python3"
[ -x /usr/bin/time ] || need="$need time"
command -v valgrind >/dev/null 2>&1 || need="$need valgrind"
if [ -n "$need" ]; then
	if [ "$(id -u)" = 0 ]; then
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null ||
			echo "tests/deps.sh: could not install:$need" >&2
	else
		echo "tests/deps.sh: missing (tests that need them will skip):$need" >&2
	fi
fi
if [ "$(id -u)" = 0 ]; then
	sh "$(dirname "$0")/reports/deps.sh" || echo "tests/deps.sh: report test tools could not be installed" >&2
fi
exit 0
