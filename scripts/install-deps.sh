#!/bin/sh
# Install the build dependencies (Debian/Ubuntu -dev packages) when missing.
# Used by `make deps`, `make demo` and `make check`; needs root for apt-get.
# Intel ISA-L (libisal-dev: the fast inflater for .gz and .tar.gz) is
# optional: installed when the distribution has it, zlib is used otherwise.
set -e
PKGS="libpcre2-8 libcjson zlib"
have() { command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$@" 2>/dev/null; }
if have $PKGS && { have libisal || [ "$(id -u)" != 0 ]; }; then
	exit 0 # ISA-L alone is not worth a sudo prompt
fi
DEBS="pkg-config libpcre2-dev libcjson-dev zlib1g-dev"
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
		echo "nccl-triage: need root to install $DEBS (or install them yourself)" >&2; exit 1
	fi
fi
if ! have $PKGS; then
	echo "nccl-triage: installing build dependencies: $DEBS" >&2
	${SUDO:-} apt-get update -qq
	DEBIAN_FRONTEND=noninteractive ${SUDO:-} apt-get install -y -qq $DEBS >/dev/null
fi
if ! have libisal; then
	# optional: a distribution without the package builds with zlib alone
	echo "nccl-triage: installing libisal-dev (Intel ISA-L, the fast gzip inflater; optional)" >&2
	DEBIAN_FRONTEND=noninteractive ${SUDO:-} apt-get install -y -qq libisal-dev >/dev/null 2>&1 ||
		echo "nccl-triage: libisal-dev not available: .gz is inflated with zlib" >&2
fi
exit 0
