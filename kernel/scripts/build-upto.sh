#!/bin/bash
# Kept for the commands written in bench/host/rtgroup-ab.sh and the patch notes:
# build-upto.sh NNNN BASE is kernel/scripts/build-variant.sh --upto NNNN BASE.
exec "$(dirname "$0")/build-variant.sh" --upto "$@"
