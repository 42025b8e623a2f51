#!/bin/sh
# Install the build dependencies (Debian/Ubuntu -dev packages) when missing.
# Used by `make deps`, `make demo` and `make check`; needs root for apt-get.
set -e
PKGS="libpcre2-8 libcjson zlib"
if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists $PKGS 2>/dev/null; then
	exit 0
fi
DEBS="pkg-config libpcre2-dev libcjson-dev zlib1g-dev"
echo "nccl-triage: installing build dependencies: $DEBS" >&2
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
		echo "nccl-triage: need root to install $DEBS (or install them yourself)" >&2; exit 1
	fi
fi
${SUDO:-} apt-get update -qq
DEBIAN_FRONTEND=noninteractive ${SUDO:-} apt-get install -y -qq $DEBS >/dev/null
