#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 mem=448 accel=tcg1 timeout=240
# A cgroup move of a deadline task racing a rebuild of the root domains
# (issue 39 item 2.3, patch 0036), and a rebuild with such a task asleep
# since (patch 0037).  cpuset_can_attach() reserves the task's
# bandwidth in the destination root domain and drops cpuset_mutex until
# cpuset_attach() (or cpuset_cancel_attach(), if the cpu controller refuses
# the move); a rebuild in between computes every total_bw again, dropping
# the reservation.  kernel/modules/rtlab_attachdelay holds one migration
# for 500 ms in cpu_cgroup_can_attach(), the next controller's check,
# while a shell inside the partition (the only CPU the held one does not
# spin on) writes sched_rt_runtime_us, which rebuilds the root domains.
# Single-threaded TCG: registering a kprobe patches kernel text live, and
# multi-threaded TCG can leave a stale int3 behind (docs/HACKING.md).
# The writer uses shell builtins only once the hold began: the held move
# holds cgroup_threadgroup_rwsem for writing, and a fork waits for it.
# Setup: a cgroup v2 partition P on CPU 1 with the cpu controller.  T = the
# bandwidth of 10 ms / 100 ms, 104857.  Points:
#   1  attach: P gets 10 ms / 100 ms; a 10 ms / 100 ms deadline sleeper D,
#      in the root cgroup (CPU 0), moves in: CPU 0's total_bw T lower, CPU
#      1's T higher (before 0036, CPU 1's did not grow)
#   2  a rebuild with D asleep in P, its last CPU still 0: the same books
#      (0037 counts a task in the root domain of its affinity; before, D
#      was counted in CPU 0's, where it cannot run, and not in CPU 1's)
#   3  cancel: D gone, P without a budget again; a process with a 10 ms /
#      100 ms deadline thread and a FIFO thread (tests/progs/dlpair) in the
#      root cgroup is moved into P: the cpu controller refuses the FIFO
#      thread (EINVAL) after the hold; every CPU's total_bw is what it was
#      (0036 gives the reservation back only if no rebuild dropped it:
#      before, CPU 1's was T short, below 0)
#   4  both gone: every CPU's total_bw is what it was before them
#   5  no splat
. /rtlab/lib.sh
. /rtlab/lib/proc.sh

KO=/rtlab/modules/rtlab_attachdelay.ko	# kernel/modules/rtlab_attachdelay
PAR=/sys/module/rtlab_attachdelay/parameters
RT=/proc/sys/kernel/sched_rt_runtime_us
T=$(((10000000 << 20) / 100000000))
base=$(dmesg | wc -l)
online=$(cat /sys/devices/system/cpu/online)
last=${online##*[-,]}
X=${DLPAIR:-/usr/local/libexec/rtlab/dlpair}
out=${RTLAB_OUT:-/tmp}
R="" P="" mounted="" cpuset_on="" cpu_on="" dl="" pair="" writer=""
cleanup() {
	[ -z "$writer" ] || kill "$writer" 2>/dev/null
	[ -z "$dl" ] || kill "$dl" 2>/dev/null
	[ -z "$pair" ] || kill "$pair" 2>/dev/null
	sleep 0.3
	[ -z "$P" ] || echo "0 1000000" >"$P/cpu.rt.max" 2>/dev/null
	[ -z "$cpu_on" ] || echo -cpu >"$R/cgroup.subtree_control" 2>/dev/null
	cg2_cell_cleanup
	rmmod rtlab_attachdelay 2>/dev/null
}
trap cleanup EXIT
tap_plan 5

if [ "$last" != 1 ] || ! insmod $KO delay_ms=500; then
	tap_fail "setup: two CPUs and $KO"
	tap_done
fi
if ! cg2_cell dl-attach 1 || ! wr "$P/cpuset.cpus.partition" root ||
   [ "$(cat "$P/cpuset.cpus.partition")" != root ]; then
	tap_fail "setup: a cgroup v2 partition on CPU 1 under ${R:-?} ($werr)"
	tap_done
fi
case " $(cat "$R/cgroup.subtree_control") " in
*" cpu "*) ;;
*) wr "$R/cgroup.subtree_control" +cpu && cpu_on=1 ;;
esac
if [ ! -f "$P/cpu.rt.max" ]; then
	tap_fail "setup: the cgroup v2 cpu controller with cpu.rt.max in $P ($werr)"
	tap_done
fi

# book: "total_bw of CPU 0" "total_bw of CPU 1"
book() { rd_bw | tr ' ' '\n' | awk -F: 'NF == 2 { printf "%s ", $2 }'; }
# held_move PID: move PID into P while rtlab_attachdelay holds the move in
# cpu_cgroup_can_attach() and a shell in P rebuilds the root domains; $mrc
# the move's result (0 or the errno's name), $wrote "yes" if the rebuild
# was started inside the hold
held_move() {
	_h0=$(cat $PAR/hits)
	# the writer (a child of timeout) moves itself into P, says "in", then
	# waits for the hold to begin; builtins only from there (no fork: see
	# the top), so the value written is read before (a sysctl file reads
	# nothing past offset 0, and the read builtin reads a byte at a time)
	: >"$out/attach-writer.txt"
	timeout 30 sh -c '
		echo $$ >"$1/cgroup.procs" && echo in || exit 1
		while read h <"$2/hits" && [ "$h" = "$3" ]; do :; done
		echo "$5" >"$4" && echo rebuilt' sh "$P" "$PAR" "$_h0" "$RT" "$(cat $RT)" >"$out/attach-writer.txt" 2>&1 &
	writer=$!
	_i=0
	until grep -q in "$out/attach-writer.txt" 2>/dev/null || [ $_i -ge 100 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
	echo 1 >$PAR/armed
	if wr "$P/cgroup.procs" "$1"; then mrc=0; else mrc=$werr; fi
	wait "$writer"
	writer=""
	wrote=no
	[ "$(cat $PAR/hits)" = $((_h0 + 1)) ] && grep -q rebuilt "$out/attach-writer.txt" && wrote=yes
	[ $wrote = yes ] || tap_diag "held move: hits $_h0 -> $(cat $PAR/hits), writer: $(cat "$out/attach-writer.txt")"
}
cpu_of() { awk '{ print $39 }' "/proc/$1/stat"; }

sleep 0.3
set -- $(book)
z0=$1 z1=$2

chrt -d -T 10000000 -D 100000000 -P 100000000 0 sleep 100 &
dl=$!
sleep 0.3
set -- $(book)
tap_diag "T = $T; books: without D $z0 $z1, with D in the root cgroup $1 $2"

# --- 1: attach -----------------------------------------------------------
if wr "$P/cpu.rt.max" "10000 100000"; then
	sleep 0.2
	set -- $(book)
	d0=$1 d1=$2
	held_move "$dl"
	set -- $(book)
	in=no
	grep -q dl-attach "/proc/$dl/cgroup" && in=yes
	ok=0
	[ "$mrc" = 0 ] && [ "$in" = yes ] && [ "$wrote" = yes ] && [ "$1" = $((d0 - T)) ] && [ "$2" = $((d1 + T)) ] && ok=1
	tap_check "attach: D moved into P (rc $mrc, in P: $in, on CPU $(cpu_of "$dl")) after a rebuild inside the held move (rebuild: $wrote): total_bw $1 $2, due $((d0 - T)) $((d1 + T)) (before the move $d0 $d1)" \
		[ $ok = 1 ]
	# D asleep in P since, its last CPU still 0: a rebuild counts it in
	# the root domain of its affinity (0037; before, in CPU 0's)
	wr $RT "$(cat $RT)"
	sleep 0.2
	c=$(cpu_of "$dl")
	set -- $(book)
	ok=0
	[ "$c" = 0 ] && [ "$1" = $((d0 - T)) ] && [ "$2" = $((d1 + T)) ] && ok=1
	tap_check "rebuild with D asleep in P, last on CPU $c: total_bw $1 $2, due $((d0 - T)) $((d1 + T))" [ $ok = 1 ]
else
	tap_fail "attach: P's cpu.rt.max 10000 100000 ($werr)"
	tap_fail "rebuild with D asleep in P: not measured"
fi

# --- D gone, P without a budget again ---------------------------------------
kill "$dl"
wait "$dl" 2>/dev/null
dl=""
sleep 0.5	# D's bandwidth leaves at its 0-lag time
wr "$P/cpu.rt.max" "0 1000000"
sleep 0.2

# --- 2: cancel -----------------------------------------------------------
if dlpair_start "$X" "$out/dlpair.txt"; then
	# a rebuild first: the books from scratch, whatever point 1 left
	wr $RT "$(cat $RT)"
	sleep 0.2
	set -- $(book)
	c0=$1 c1=$2
	held_move "$pair"
	set -- $(book)
	ok=0
	[ "$mrc" = EINVAL ] && [ "$wrote" = yes ] && [ "$c0" = $((z0 + T)) ] && [ "$c1" = "$z1" ] &&
		[ "$1" = "$c0" ] && [ "$2" = "$c1" ] && ok=1
	tap_check "cancel: the cpu controller refused dlpair's FIFO thread ($mrc) after a rebuild inside the held move (rebuild: $wrote): total_bw $1 $2, before $c0 $c1 (due $((z0 + T)) $z1)" \
		[ $ok = 1 ]
else
	tap_fail "cancel: dlpair did not start: $(cat "$out/dlpair.txt")"
fi
[ -z "$pair" ] || kill "$pair"
wait "$pair" 2>/dev/null
pair=""
sleep 0.5	# its deadline thread's bandwidth leaves at its 0-lag time

# --- 3: the books after both -------------------------------------------------
set -- $(book)
ok=0
[ "$1" = "$z0" ] && [ "$2" = "$z1" ] && ok=1
tap_check "D and dlpair gone, P's budget 0: total_bw $1 $2, as before them ($z0 $z1)" [ $ok = 1 ]

no_splats "$base" "no splat in the kernel log" "a splat in the kernel log"
tap_done
