#!/bin/bash
# Kept for the commands written in bench/host/rtgroup-ab.sh and the patch notes:
# build-without.sh NNNN BASE is kernel/scripts/build-variant.sh --without NNNN BASE.
exec "$(dirname "$0")/build-variant.sh" --without "$@"
