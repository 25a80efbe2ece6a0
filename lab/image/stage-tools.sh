#!/bin/bash
# Build every user-space component and install it into the initramfs staging
# directory ($BUILD/initramfs/stage), in a fresh directory that replaces the
# old one only when everything built.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
stage=$build/initramfs/stage
mkdir -p "$build/initramfs"
# The top make's command-line variables (make shell CMD='...', KERNEL=, T=)
# reach every sub-make through MAKEFLAGS and would override the components'
# own variables of the same name: keep the flags (-j, the jobserver), drop
# the variables.
export MAKEFLAGS="${MAKEFLAGS%% -- *}"
unset MAKEOVERRIDES
rm -rf "$stage.new"
mkdir -p "$stage.new"
for c in "$@"; do
	make -s -C "$top/$c" || { echo "stage-tools: building $c failed" >&2; exit 1; }
	make -s -C "$top/$c" install DESTDIR="$stage.new" PREFIX=/usr/local >/dev/null ||
		{ echo "stage-tools: installing $c failed" >&2; exit 1; }
done
# RTPI_BASE=<git ref>: also the librtpi.so of that commit, for the guest's
# side-by-side wake-up benchmark (make bench B=rtpi-wakeup RTPI_BASE=...)
if [ -n "${RTPI_BASE:-}" ]; then
	make -s -C "$top/lib/rtpi" install-base BASE="$RTPI_BASE" DESTDIR="$stage.new" PREFIX=/usr/local >/dev/null ||
		{ echo "stage-tools: the rtpi base library of $RTPI_BASE failed" >&2; exit 1; }
fi
rm -rf "$stage"
mv "$stage.new" "$stage"
