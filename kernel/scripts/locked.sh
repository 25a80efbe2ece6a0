#!/bin/bash
# locked.sh COMMAND [ARG]...: run COMMAND under the machine-wide kernel lock
# (kernel/scripts/lib.sh); the Makefile runs every step that writes the
# kernel tree or a kernel build through it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
[ $# -gt 0 ] || die "usage: locked.sh COMMAND [ARG]..."
kernel_lock
exec "$@"
