#!/bin/sh
# All host tests of rtaudit as one TAP stream: each suite prints
# "ok - ..." / "not ok - ..." lines, numbered by tap_suite
# (scripts/tap-suite.sh); a suite that exits non-zero (a crash) is a
# failure of its own.
cd "$(dirname "$0")/.." || exit 1
. ../../scripts/tap-suite.sh
tap_suites_begin
tap_suite config sh tests/config.sh
tap_suite system sh tests/system.sh
tap_suite cli sh tests/cli.sh
tap_suite families sh tests/families.sh
# bounded libFuzzer run of the config parser on a copy of the seed corpus
tap_suite fuzz tap_fuzz "config parser" "${FUZZ_TIME:-20}" 8192 ./build/fuzz_config tests/corpus/*
tap_suites_end
