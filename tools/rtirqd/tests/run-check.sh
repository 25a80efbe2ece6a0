#!/bin/sh
# Runs every host test suite of rtirqd and prints one TAP stream.
# Suites print "ok - ..." / "not ok - ..." lines; tap_suite
# (scripts/tap-suite.sh) numbers them.
cd "$(dirname "$0")/.." || exit 1
. ../../scripts/tap-suite.sh
tap_suites_begin
tap_suite unit ./build/test_rules
tap_suite functional sh tests/functional.sh
ev_dir=$(mktemp -d /tmp/rtirqd-ev.XXXXXX)
chmod 755 "$ev_dir"
tap_suite event-path ./build/event_bench-san "$ev_dir" 20 100 3 --check
rm -rf "$ev_dir"
tap_suite compat sh tests/compat.sh
# bounded libFuzzer run of the rules parser on a copy of the seed corpus
tap_suite fuzz tap_fuzz parser "${FUZZ_TIME:-30}" 4096 ./build/fuzz_rules tests/corpus/* rtgroups.default
tap_suites_end
