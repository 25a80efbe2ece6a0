#!/bin/sh
# kernelshark-shot.sh TRACE.dat PNG: open a converted trace in Debian's
# KernelShark 2.2 on a private Xvfb display and take a screenshot.
# KernelShark runs as "nobody" (as root it only shows a warning dialog).
# Exit 0 when the window showed up and the screenshot was written; 77 when
# Xvfb, KernelShark or ImageMagick's import are missing.
set -u
dat=$(readlink -f "$1") png=$2 wait=${KS_WAIT:-20}
for p in Xvfb kernelshark import runuser; do
	command -v "$p" >/dev/null || { echo "kernelshark-shot: no $p"; exit 77; }
done
home=$(mktemp -d) && chmod 0777 "$home"
disp=:$(( $$ % 500 + 100 ))
Xvfb "$disp" -screen 0 1400x900x24 -nolisten tcp >"$home/xvfb.log" 2>&1 &
xpid=$!
sleep 2
runuser -u nobody -- env DISPLAY="$disp" HOME="$home" XDG_RUNTIME_DIR="$home" \
	kernelshark -geometry 1400x880+0+0 "$dat" >"$home/ks.log" 2>&1 &
kpid=$!
sleep "$wait"
DISPLAY=$disp import -window root "$png"
rc=$?
# the window is up only if KernelShark still runs and named the file
kill -0 "$kpid" 2>/dev/null || rc=1
DISPLAY=$disp xwininfo -root -tree 2>/dev/null | grep -qi kernelshark || rc=1
kill "$kpid" 2>/dev/null
sleep 1
kill "$xpid" 2>/dev/null
wait 2>/dev/null
sed 's/^/# kernelshark: /' "$home/ks.log" | tail -5
rm -rf "$home"
exit $rc
