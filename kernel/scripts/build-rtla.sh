#!/bin/bash
# Build the tree's rtla (tools/tracing/rtla) for the initramfs.  A script
# rather than a $(MAKE) line in the Makefile: "make -n" runs $(MAKE) lines,
# and the dry run of tests/host/make-order.sh must not build anything.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
make -s -C "$rtlab_tree/tools/tracing/rtla" >/dev/null
