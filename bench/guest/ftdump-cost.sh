#!/bin/sh
# rtlab: kernel=rt cpus=2 mem=512 timeout=1800 accel=icount
# What a lossless ftrace dump costs against the text one (kernel patch 0014,
# ftrace_dump_raw; issue 19 item 4), per dumped record: the bytes it puts
# on the console (a serial console at 115200 baud writes a byte in 87 us:
# that is how long the dump keeps the line) and the time ftrace_dump()
# runs on the dumping CPU with interrupts off, formatting the records and
# storing them in the printk buffer.
#
# Method, one boot under icount (times are instruction counts: the same on
# a quiet or loaded host, identical between boots of one build): for each
# of FTDUMP_RUNS (5) runs and each format in turn, the same recording as
# tests/guest/91-ftdump.sh (tests/guest/lib/ftdump.sh: sched, irq,
# softirq, timer, hrtimer and workqueue events and the function tracer on
# two functions, hackbench + cyclictest + wakestorm) into an 8 KB per CPU
# top buffer, then ftrace_dump(DUMP_ALL) from rtlab_ftdump.ko, which prints
# how long it ran. The dump's lines are read back from the printk buffer
# (dmesg, cleared before each dump), with the "[ seconds.micro] " prefix
# the console adds; the records of a dump are its text records or its
# first raw lines. Figures per run: bytes / records and time / records;
# the table gives the median of the runs and the ratio raw / text.
. /rtlab/lib.sh
. /rtlab/lib/ftdump.sh
RUNS=${FTDUMP_RUNS:-5}
KB=8
out=${RTLAB_OUT:-/tmp}
res=$out/ftdump-cost.txt
: >"$res"

tap_plan $((RUNS * 2 + 1))
func=
grep -qw function "$T/available_tracers" && func=1
mkdir -p "$R"
echo 0 >"$T/options/hash-ptr"
echo 1 >"$T/options/sym-offset"
r=1
while [ $r -le $RUNS ]; do
	for mode in text raw; do
		ftd_mode $mode
		ftd_record $KB
		dmesg -c >/dev/null
		rmmod rtlab_ftdump 2>/dev/null
		insmod /rtlab/modules/rtlab_ftdump.ko
		took=$(dmesg | sed -n 's/.*rtlab_ftdump: ftrace_dump() took \([0-9]*\) us/\1/p' | tail -1)
		# shellcheck disable=SC2046
		dmesg >/tmp/ftdump-dmesg
		set -- $(ftd_dump_stats /tmp/ftdump-dmesg)
		echo "$mode $r $1 $2 ${took:-0}" >>"$res"
		tap_check "$mode run $r: $1 records, $2 bytes, ftrace_dump() ${took:-?} us" \
			test "${1:-0}" -ge 100 -a "${took:-0}" -gt 0
	done
	r=$((r + 1))
done
tap_check "the kernel has ftrace_dump_raw (patch 0014)" test -w /proc/sys/kernel/ftrace_dump_raw
awk '
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	$3 > 0 { k = $1; n[k]++; rec[k] += $3; B[k, n[k]] = $4 / $3; U[k, n[k]] = $5 / $3 }
	END {
		print "| format | runs | records a dump (mean) | console bytes a record (median) | ftrace_dump() us a record (median) | serial line at 115200 baud, ms a record |"
		print "|---|---|---|---|---|---|"
		for (f = 1; f <= 2; f++) {
			k = f == 1 ? "text" : "raw"
			if (!n[k]) continue
			for (i = 1; i <= n[k]; i++) { b[i] = B[k, i]; u[i] = U[k, i] }
			mb[k] = median(b, n[k]); mu[k] = median(u, n[k])
			printf "| %s | %d | %.0f | %.1f | %.2f | %.2f |\n", k, n[k], rec[k] / n[k], mb[k], mu[k], mb[k] * 10 / 115.2
		}
		if (mb["text"] && mu["text"])
			printf "| raw / text | | | %.3fx | %.3fx | %.3fx |\n", mb["raw"] / mb["text"], mu["raw"] / mu["text"], mb["raw"] / mb["text"]
	}' "$res" >"$out/table.md"
cat "$out/table.md"
tap_tcg_caveat "ftrace_dump() times"
tap_done
