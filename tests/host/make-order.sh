#!/bin/bash
# The package step comes first: on a fresh machine "make demo", "make check"
# or any other first command must install the packages (scripts/deps.sh)
# before anything runs a compiler.  Proved on the dry run ("make -n", in an
# empty build directory) of each entry target: the first command is the
# package step, and it runs once.  Prints TAP.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
host_test make-order
targets=(demo check all shell bench host-test initramfs "guest-test T=00-smoke" reboot-test checkpatch)
first_cmd_is_deps() { head -n 1 "$1" | grep -qx 'scripts/deps.sh'; }
deps_once() { [ "$(grep -cx 'scripts/deps.sh' "$1")" = 1 ]; }
for tg in "${targets[@]}"; do
	f=$tmp/${tg%% *}.n
	# shellcheck disable=SC2086 # "guest-test T=..." is two words on purpose
	make -n --no-print-directory -C "$top" BUILD="$tmp/build" $tg >"$f" 2>&1
	t "make -n $tg: the package step is the first command" first_cmd_is_deps "$f"
	t "make -n $tg: the package step runs once" deps_once "$f"
done
# the dry run does list the compiler: the order above is not vacuous
t "make -n demo lists a compiler call after the package step" \
	sh -c "sed 1d '$tmp/demo.n' | grep -qE '(^|[ /])(cc|gcc)( |$)'"
host_done
