#!/bin/bash
# Export the commits of $BUILD/kdev (branch "series", over tag "pristine") as
# kernel/patches/*.patch and rewrite kernel/patches/series to match.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
kdev=$rtlab_build/kdev
dest=$rtlab_patches
rm -f "$dest"/[0-9][0-9][0-9][0-9]-*.patch
# --signoff: every patch carries the project's Signed-off-by (checked by
# make checkpatch); git adds none twice
git -C "$kdev" -c user.name="rtlab developers" -c user.email=rtlab@example.org \
	format-patch -q --signoff --no-signature --zero-commit -o "$dest" pristine..series
{
	echo "# rtlab kernel series, applied in order to Debian's linux-source-6.12."
	echo "# See README.md in this directory for each seed's status."
	(cd "$dest" && ls [0-9][0-9][0-9][0-9]-*.patch)
} >"$dest/series"
echo "export-patches: $(grep -c '\.patch$' "$dest/series") patches in kernel/patches"
