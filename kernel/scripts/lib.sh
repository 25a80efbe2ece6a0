# Sourced by every script of kernel/scripts (and by lab scripts that need
# the series): where things are, the series, the kernel lock.
#   rtlab_top, rtlab_build, rtlab_patches, rtlab_tree
#   series                  the patch file names of kernel/patches/series, in order
#   series_patch NNNN       the path of the patch numbered NNNN (fails if none)
#   tree_stamp TARBALL      the hash that says whether a prepared tree is current
#   kernel_lock             take the machine-wide kernel lock (once per process tree)
#   die MESSAGE             "<script>: MESSAGE" on stderr, exit 1
rtlab_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
rtlab_build=${BUILD:-$rtlab_top/build}
rtlab_patches=$rtlab_top/kernel/patches
rtlab_tree=$rtlab_build/linux

die() { echo "$(basename "$0" .sh): $*" >&2; exit 1; }

# The series file: one patch name a line, "#" starts a comment.
series() {
	[ -f "$rtlab_patches/series" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e 's/^[[:space:]]*//' "$rtlab_patches/series" | grep -v '^$' || true
}

series_patch() {
	local p
	p=$(series | grep -m1 "^$1-") || die "no patch $1 in kernel/patches/series"
	echo "$rtlab_patches/$p"
}

# The stamp hashes the tarball's name, size and mtime and the contents of
# the series and its patches, never an absolute path: a second clone of the
# project (or a moved one) with the same series reuses a prepared tree.
tree_stamp() {
	{
		stat -c '%s %Y' "$1"
		basename "$1"
		[ -f "$rtlab_patches/series" ] && cat "$rtlab_patches/series"
		series | while read -r p; do
			[ -f "$rtlab_patches/$p" ] || die "series names $p, which is not in kernel/patches"
			echo "$p $(sha256sum <"$rtlab_patches/$p")"
		done
	} | sha256sum | cut -d' ' -f1
}

# One lock for the whole machine, not per build directory: two clones (or
# a developer's and a helper's make) must never rebuild a tree under a
# running build nor run two kernel builds on two cores.  The lock is taken
# once; the scripts a locked script runs see RTLAB_KERNEL_LOCK_HELD and go on.
kernel_lock() {
	[ -n "${RTLAB_KERNEL_LOCK_HELD:-}" ] && return 0
	local f=${RTLAB_KERNEL_LOCK:-/tmp/rtlab-kernel.lock}
	exec 9>>"$f" || die "cannot open the kernel lock $f (set RTLAB_KERNEL_LOCK)"
	flock 9
	export RTLAB_KERNEL_LOCK_HELD=$$
}
