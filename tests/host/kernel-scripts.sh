#!/bin/bash
# Host tests of kernel/scripts/lib.sh: the series parser, the tree stamp (the
# same for two clones at different paths, different when a patch changes)
# and the kernel lock (held once per process tree, overridable).  Prints TAP.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
host_test kernel-scripts
# clone DIR: a minimal copy of the project's kernel/ with a made-up series
clone() {
	mkdir -p "$1/kernel/scripts" "$1/kernel/patches"
	cp "$top/kernel/scripts/lib.sh" "$1/kernel/scripts/"
	printf '# comment\n0001-a.patch\n\n  0002-b.patch  # trailing comment\n0003-c.patch\n' >"$1/kernel/patches/series"
	for p in 0001-a 0002-b 0003-c; do echo "patch $p" >"$1/kernel/patches/$p.patch"; done
}
# in_clone DIR CODE: run bash CODE with DIR's lib.sh sourced
in_clone() { (cd /; BUILD=$1/build bash -c ". '$1/kernel/scripts/lib.sh'; $2"); }
clone "$tmp/one"
clone "$tmp/two"
: >"$tmp/tarball"
touch -d '2026-01-01' "$tmp/tarball"

t "series: names in order, comments and blank lines dropped" \
	test "$(in_clone "$tmp/one" series | tr '\n' ' ')" = "0001-a.patch 0002-b.patch 0003-c.patch "
t "series_patch 0002 is the file of patch 0002" \
	test "$(in_clone "$tmp/one" 'series_patch 0002')" = "$tmp/one/kernel/patches/0002-b.patch"
t "series_patch of a number not in the series fails" \
	sh -c "! (cd /; bash -c \". '$tmp/one/kernel/scripts/lib.sh'; series_patch 0009\")"
s1=$(in_clone "$tmp/one" "tree_stamp '$tmp/tarball'")
s2=$(in_clone "$tmp/two" "tree_stamp '$tmp/tarball'")
t "the tree stamp is the same for two clones at different paths" test -n "$s1" -a "$s1" = "$s2"
echo "patch 0002-b changed" >"$tmp/two/kernel/patches/0002-b.patch"
t "the tree stamp changes when a patch changes" \
	test "$s1" != "$(in_clone "$tmp/two" "tree_stamp '$tmp/tarball'")"
# the lock: a second taker waits; a child of the holder does not
lock=$tmp/kernel.lock
t "kernel_lock: a second process tree cannot take a held lock" \
	bash -c "RTLAB_KERNEL_LOCK='$lock' bash -c '. \"$tmp/one/kernel/scripts/lib.sh\"; kernel_lock; ! flock -n \"$lock\" true'"
t "kernel_lock: a script run under the lock takes it again without waiting" \
	timeout 10 bash -c "RTLAB_KERNEL_LOCK='$lock' bash -c '. \"$tmp/one/kernel/scripts/lib.sh\"; kernel_lock; bash -c \". \\\"$tmp/one/kernel/scripts/lib.sh\\\"; kernel_lock\"'"
host_done
