#!/bin/sh
# tests/reports/deps.sh - install what the report tests need, from Debian:
#   chromium            the browser test (headless: loads each HTML report)
#   fonts-dejavu-core   a font for it to render text with
#   python3-jsonschema  SARIF validation against tests/schemas/sarif-schema-2.1.0.json
#   libxml2-utils       xmllint, JUnit validation against tests/schemas/junit-10.xsd
# Installs only what is missing; needs root for that (CI runs as root).
set -e
need=""
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || need="$need chromium"
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need="$need fonts-dejavu-core"
python3 -c 'import jsonschema' 2>/dev/null || /usr/bin/python3 -c 'import jsonschema' 2>/dev/null || need="$need python3-jsonschema"
command -v xmllint >/dev/null 2>&1 || need="$need libxml2-utils"
[ -z "$need" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "tests/reports/deps.sh: root is needed to install:$need" >&2
	exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null
