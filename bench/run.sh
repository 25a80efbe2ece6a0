#!/bin/bash
# Transitional: bench/rtgroup-ab.sh (another worker's file this round) calls
# bench/run.sh; the benchmark driver is bench/host/run.sh.
exec "$(dirname "$0")/host/run.sh" "$@"
