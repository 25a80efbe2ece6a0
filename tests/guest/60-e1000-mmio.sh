#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 mem=512 timeout=1200 nics=e1000e,e1000e,e1000
#
# Issue 5, e1000/e1000e part (kernel patches 0004, 0005): the module
# parameter mmio_burst=none|delay|flush of both drivers, switched at run time
# through /sys/module/<driver>/parameters/mmio_burst (the drivers are built
# in, the parameter is writable).  For every strategy, on two e1000e NICs and
# one e1000 on one QEMU hub, each NIC in its own network namespace:
#  - link down/up (MAC reset, MTA clearing, RSS key and RETA on e1000e)
#  - 200 link-layer multicast addresses joined and left (MTA rewrites)
#  - 10 and then 20 macvlans (RAR filled, then overflowing into unicast
#    promiscuous mode) and removed (RAR cleared); a macvlan that lives in a
#    fourth namespace answers pings only if its address passed the NIC's filter
#  - promiscuous mode on/off
#  - ping between all three NICs, 2 MiB bulk transfers e1000e -> e1000e and
#    e1000 -> e1000e with byte count and FNV-1a checksum compared
#  - proof that the strategy is active: kprobes on the drivers' out-of-line
#    pause functions (e1000e_burst_flush/_spin/_sleep, e1000_mmio_burst_flush/
#    _spin) count every pause; none must give 0, delay only spins and sleeps,
#    flush only flushes (and sleeps after the e1000e MAC reset)
#  - in delay mode, the kprobe events' migrate-disable column shows that the
#    spinning pauses of ndo_set_rx_mode run under the address list lock (rt
#    spinlock: migration disabled) and the sleeping ones (reset, init_hw,
#    RSS setup at link up) outside any such section
# The rt-debug kernel (lockdep, DEBUG_ATOMIC_SLEEP; e1000e_burst_sleep() has
# might_sleep()) must stay clean: the harness fails the test on any splat.
. /rtlab/lib.sh
NETLAB=/usr/local/libexec/rtlab/netlab
TR=/sys/kernel/tracing
BULK=${E1000_BULK_BYTES:-2097152}
NMC=200
PIDS=

cleanup() { for p in $PIDS; do kill "$p" 2>/dev/null; done; }
trap cleanup EXIT

# interfaces by driver, in PCI order
nics_of() {
	for d in /sys/class/net/*; do
		[ "$(basename "$(readlink "$d/device/driver" 2>/dev/null)")" = "$1" ] && basename "$d"
	done
}
set -- $(nics_of e1000e)
E1=${1:-} E2=${2:-}
G=$(nics_of e1000 | head -n 1)
if [ -z "$E1" ] || [ -z "$E2" ] || [ -z "$G" ]; then
	tap_fail "two e1000e and one e1000 NIC present (e1000e: '$E1' '$E2', e1000: '$G')"
	tap_done
fi
tap_ok "two e1000e ($E1, $E2) and one e1000 ($G) NIC present"

P1=/sys/module/e1000e/parameters/mmio_burst
P2=/sys/module/e1000/parameters/mmio_burst
want=none
case "$(uname -v)" in *PREEMPT_RT*) want=flush ;; esac
if [ "$(cat $P1)" = $want ] && [ "$(cat $P2)" = $want ]; then
	tap_ok "default mmio_burst is $want on this kernel ($(uname -v))"
else
	tap_fail "default mmio_burst: e1000e '$(cat $P1)' e1000 '$(cat $P2)', want $want"
fi
if ! echo bogus >$P1 2>/dev/null && [ "$(cat $P1)" = $want ]; then
	tap_ok "an unknown mode is refused and leaves the mode as it was"
else
	tap_fail "mmio_burst accepted 'bogus' or changed ($(cat $P1))"
fi

# one network namespace per NIC, and D for the macvlans that prove RAR
newns() { unshare -n sleep 100000 & PIDS="$PIDS $!"; eval "NS_$1=$!"; }
inns() { _p=$(eval echo "\$NS_$1"); shift; nsenter -t "$_p" -n "$@"; }
newns A; newns B; newns C; newns D
sleep 1
ok=1
$NETLAB netns "$E1" "$NS_A" && $NETLAB netns "$E2" "$NS_B" && $NETLAB netns "$G" "$NS_C" || ok=0
inns A ip addr add 10.0.0.1/24 dev "$E1" || ok=0
inns B ip addr add 10.0.0.2/24 dev "$E2" || ok=0
inns B ip addr add 10.0.1.2/24 dev "$E2" || ok=0
inns B ip addr add 10.0.2.2/24 dev "$E2" || ok=0
inns C ip addr add 10.0.0.3/24 dev "$G" || ok=0
for n in A B C D; do inns $n ip link set lo up || ok=0; done
if [ $ok = 1 ]; then tap_ok "NICs moved into namespaces A ($E1), B ($E2), C ($G) and addressed"
else tap_fail "namespace setup"; tap_done; fi

# kprobes on the pauses; hit counts from kprobe_profile
KP="e1000e_burst_flush e1000e_burst_spin e1000e_burst_sleep e1000_mmio_burst_flush e1000_mmio_burst_spin"
ok=1
echo 8192 >$TR/buffer_size_kb
for f in $KP; do
	grep -q " $f\$" /proc/kallsyms || { tap_diag "$f not in kallsyms"; ok=0; }
	echo "p:e1k/$f $f" >>$TR/kprobe_events || ok=0
done
echo 1 >$TR/events/e1k/enable || ok=0
tap_check "kprobes on the drivers' pause functions" [ $ok = 1 ]
hits() { awk -v f="$1" '$1 == f || $1 == "e1k/" f { print $2 }' $TR/kprobe_profile; }
snap() { for f in $KP; do eval "S_$f=$(hits $f)"; done; }
delta() { echo $(( $(hits $1) - $(eval echo "\$S_$1") )); }

has_carrier() { inns $1 ip link show dev $2 | grep -q LOWER_UP; }
wait_up() {
	_i=0
	while [ $_i -lt 300 ]; do
		has_carrier A "$E1" && has_carrier B "$E2" && has_carrier C "$G" && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}
pingq() { inns $1 ping -c 2 -w 20 "$2" >/dev/null 2>&1; }
ping_all() {
	pingq A 10.0.0.2 && pingq B 10.0.0.3 && pingq C 10.0.0.1
}
mcount() {	# joined test addresses (01:00:5e:40:..) of interface $2 in ns $1
	inns $1 cat /proc/net/dev_mcast | awk -v d="$2" '$2 == d && $5 ~ /^01005e40/' | wc -l
}
# migrate-disable is the fifth latency flag of a trace line
flags() { grep " $1: (" $TR/trace | sed -n 's/.*\] \([^ ]*\) .*/\1/p' | cut -c5 | sort | uniq -c | tr '\n' ' '; }
now() { awk '{ print $1 }' /proc/uptime; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

for m in none delay flush; do
	echo $m >$P1 && echo $m >$P2
	tap_check "$m: mode set on both drivers" [ "$(cat $P1)" = $m -a "$(cat $P2)" = $m ]
	snap

	ok=1
	for x in "A $E1" "B $E2" "C $G"; do
		set -- $x
		inns $1 ip link set dev $2 down || ok=0
	done
	for x in "A $E1" "B $E2" "C $G"; do
		set -- $x
		inns $1 ip link set dev $2 up || ok=0
	done
	wait_up || ok=0
	tap_check "$m: link down/up on all three NICs, carrier back" [ $ok = 1 ]
	if [ $m = delay ]; then
		# link up: reset, init_hw and RSS setup sleep; e1000_configure()
		# calls the rx mode update directly, outside the address list
		# lock, where it spins all the same (it cannot tell)
		fl=$(flags e1000e_burst_sleep) fsu=$(flags e1000e_burst_spin) fgu=$(flags e1000_mmio_burst_spin)
		tap_diag "delay: link up: migrate-disable column: e1000e sleep [$fl] e1000e spin [$fsu] e1000 spin [$fgu]"
		echo >$TR/trace
	fi
	tap_check "$m: ping $E1->$E2, $E2->$G, $G->$E1" ping_all

	# cost of the strategy: join and leave once with the kprobes off
	# (a kprobe hit under TCG costs more than the pause it counts)
	echo 0 >$TR/events/e1k/enable
	t0=$(now)
	inns A $NETLAB mcast add "$E1" $NMC && inns C $NETLAB mcast add "$G" $NMC
	tj=$(elapsed $t0)
	t0=$(now)
	inns A $NETLAB mcast del "$E1" $NMC && inns C $NETLAB mcast del "$G" $NMC
	tl=$(elapsed $t0)
	tap_diag "$m: join $NMC on two NICs ${tj} s, leave ${tl} s (TCG time, kprobes off)"
	echo "$m join_s=$tj leave_s=$tl" >>"${RTLAB_OUT:-/tmp}/e1000-mmio-times.txt"
	echo 1 >$TR/events/e1k/enable

	inns A $NETLAB mcast add "$E1" $NMC && inns C $NETLAB mcast add "$G" $NMC
	ca=$(mcount A "$E1") cc=$(mcount C "$G")
	tap_check "$m: $NMC multicast addresses joined on $E1 and $G ($ca, $cc listed)" [ "$ca" = $NMC -a "$cc" = $NMC ]
	tap_check "$m: ping with $NMC multicast addresses joined" ping_all
	inns A $NETLAB mcast del "$E1" $NMC && inns C $NETLAB mcast del "$G" $NMC
	ca=$(mcount A "$E1") cc=$(mcount C "$G")
	tap_check "$m: $NMC multicast addresses left ($ca, $cc listed)" [ "$ca" = 0 -a "$cc" = 0 ]

	# macvlans: mvA0/mvC0 move to namespace D and carry the addresses
	# that B pings; the rest only occupy RAR entries
	ok=1
	for k in 1 2; do
		lim=$((k * 10))
		i=$(( (k - 1) * 10 ))
		while [ $i -lt $lim ]; do
			h=$(printf %02x $i)
			inns A $NETLAB macvlan "$E1" mvA$i 02:00:00:00:0a:$h || ok=0
			inns C $NETLAB macvlan "$G" mvC$i 02:00:00:00:0c:$h || ok=0
			if [ $i = 0 ]; then
				inns A $NETLAB netns mvA0 "$NS_D" || ok=0
				inns C $NETLAB netns mvC0 "$NS_D" || ok=0
				inns D ip addr add 10.0.1.1/24 dev mvA0 || ok=0
				inns D ip addr add 10.0.2.1/24 dev mvC0 || ok=0
				inns D ip link set mvA0 up || ok=0
				inns D ip link set mvC0 up || ok=0
			else
				inns A ip link set mvA$i up || ok=0
				inns C ip link set mvC$i up || ok=0
			fi
			i=$((i + 1))
		done
		if [ $ok = 1 ] && pingq B 10.0.1.1 && pingq B 10.0.2.1; then
			tap_ok "$m: $lim macvlans on $E1 and on $G$([ $k = 2 ] && echo " (RAR overflow: unicast promiscuous)"), their addresses reach namespace D"
		else
			tap_fail "$m: $lim macvlans on $E1 and $G (setup ok=$ok)"
		fi
	done
	i=1
	while [ $i -lt 20 ]; do
		inns A $NETLAB del mvA$i || ok=0
		inns C $NETLAB del mvC$i || ok=0
		i=$((i + 1))
	done
	inns D $NETLAB del mvA0 || ok=0
	inns D $NETLAB del mvC0 || ok=0
	left=$(inns A ip link show | grep -c mvA; inns C ip link show | grep -c mvC)
	tap_check "$m: macvlans removed (RAR cleared), ping still works" [ $ok = 1 -a "$(echo $left)" = "0 0" ]
	ping_all || tap_diag "$m: ping after macvlan removal failed"

	ok=1
	for x in "A $E1" "C $G"; do
		set -- $x
		inns $1 ip link set dev $2 promisc on || ok=0
	done
	ping_all || ok=0
	for x in "A $E1" "C $G"; do
		set -- $x
		inns $1 ip link set dev $2 promisc off || ok=0
	done
	ping_all || ok=0
	tap_check "$m: promiscuous on, ping, off, ping" [ $ok = 1 ]

	for x in "A B 10.0.0.2 $E1 $E2" "C A 10.0.0.1 $G $E1"; do
		set -- $x
		inns $2 $NETLAB recv 5001 >/tmp/recv.out 2>&1 &
		rp=$!
		t0=$(now)
		snd=$(inns $1 $NETLAB send $3 5001 $BULK 2>&1)
		wait $rp
		tb=$(elapsed $t0)
		rcv=$(cat /tmp/recv.out)
		if [ -n "$snd" ] && [ "$snd" = "$rcv" ] && [ "${snd#bytes $BULK }" != "$snd" ]; then
			tap_ok "$m: bulk $4 -> $5: $rcv (${tb} s)"
		else
			tap_fail "$m: bulk $4 -> $5: sent '$snd', received '$rcv'"
		fi
	done

	ef=$(delta e1000e_burst_flush) es=$(delta e1000e_burst_spin) el=$(delta e1000e_burst_sleep)
	gf=$(delta e1000_mmio_burst_flush) gs=$(delta e1000_mmio_burst_spin)
	tap_diag "$m: pauses counted: e1000e flush $ef spin $es sleep $el; e1000 flush $gf spin $gs"
	echo "$m e1000e_flush=$ef e1000e_spin=$es e1000e_sleep=$el e1000_flush=$gf e1000_spin=$gs" >>"${RTLAB_OUT:-/tmp}/e1000-mmio-counts.txt"
	# each MTA rewrite of 128 registers pauses 16 times; 2 x 200 rewrites
	# per NIC at least
	min=$((2 * NMC * 128 / 8))
	case $m in
	none)  good=$([ "$ef$es$el$gf$gs" = 00000 ] && echo 1) ;;
	delay) good=$([ "$ef" = 0 -a "$gf" = 0 -a "$es" -ge $min -a "$gs" -ge $min -a "$el" -gt 0 ] && echo 1) ;;
	flush) good=$([ "$es" = 0 -a "$gs" = 0 -a "$ef" -ge $min -a "$gf" -ge $min -a "$el" -gt 0 ] && echo 1) ;;
	esac
	tap_check "$m: strategy active (pause counts as expected)" [ "$good" = 1 ]

	if [ $m = delay ]; then
		fs=$(flags e1000e_burst_spin) fg=$(flags e1000_mmio_burst_spin)
		tap_diag "delay: ndo_set_rx_mode: migrate-disable column: e1000e spin [$fs] e1000 spin [$fg]"
		if [ "$want" = flush ]; then
			# RT: the spins of ndo_set_rx_mode run with migration
			# disabled (rt spinlock held), the sleeps never
			if [ -n "$fs" ] && [ -n "$fg" ] && [ -n "$fl" ] &&
			   ! echo "$fs $fg" | grep -q ' \. ' &&
			   [ "$(echo $fl | awk '{ print $2 }')" = . ] && [ "$(echo $fl | wc -w)" = 2 ]; then
				tap_ok "delay: spinning pauses run under the address list lock, sleeping pauses outside it"
			else
				tap_fail "delay: pause contexts not as expected"
			fi
		else
			tap_skip "delay: pause contexts" "not a PREEMPT_RT kernel"
		fi
	fi
	echo >$TR/trace
done

echo $want >$P1 && echo $want >$P2
echo 0 >$TR/events/e1k/enable
echo >$TR/kprobe_events

# Tear the namespaces down here and wait until the NICs are back in the
# initial namespace: the dismantling runs in a worker under rtnl, and a
# poweroff racing with it (e1000e's shutdown takes rtnl) hung the guest once.
cleanup
PIDS=
i=0
while [ $i -lt 600 ]; do
	[ -e /sys/class/net/$E1 ] && [ -e /sys/class/net/$E2 ] && [ -e /sys/class/net/$G ] && break
	sleep 0.1
	i=$((i + 1))
done
tap_check "namespaces torn down, $E1 $E2 $G back in the initial namespace ($((i / 10)) s)" \
	[ -e /sys/class/net/$E1 -a -e /sys/class/net/$E2 -a -e /sys/class/net/$G ]
tap_done
