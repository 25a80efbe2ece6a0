#!/bin/bash
# Build the tree's rtla (tools/tracing/rtla) for the initramfs.  A script
# rather than a $(MAKE) line in the Makefile: "make -n" runs $(MAKE) lines,
# and the dry run of tests/host/make-order.sh must not build anything.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
make -s -C "$build/linux/tools/tracing/rtla" >/dev/null
