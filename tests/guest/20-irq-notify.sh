#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 timeout=1800 nics=e1000e,e1000e
# Issue 3: user space follows irq threads as they come and go.
#  - poll() on /proc/interrupts and on /sys/kernel/irq/generation wakes every
#    poller (1 and 100, poll and epoll) for every request and free, and only then
#  - /sys/kernel/irq/<irq>/threads matches the real threads, with pids as
#    the reader's pid namespace numbers them (none seen from a child one)
#  - a priority set on the notification is never overwritten by the kernel
#  - a real device: e1000e requests its MSI-X vectors on link up and frees
#    them on link down; the generation moves and the thread lists follow
#  - 500 request/free cycles with pollers attached (make stress: 100,000): no splat (the harness
#    checks the console), the module unloads
#  - anyone can read and poll, nobody can write
. /rtlab/lib.sh
T=/usr/local/libexec/rtlab/irqwatch_test
STRESS_CYCLES=${IRQ_STRESS_CYCLES:-500}

if ! insmod /rtlab/modules/rtlab_irqsim.ko; then
	tap_fail "rtlab_irqsim loads"
	tap_done
fi
tap_ok "rtlab_irqsim loads"
tap_check "/proc/interrupts and /sys/kernel/irq/generation exist" test -r /proc/interrupts -a -r /sys/kernel/irq/generation

tap_check "1 poller, poll(), /proc/interrupts: woken for every change, only then" $T pollers -s proc -n 1 -c 100
tap_check "1 poller, epoll, /proc/interrupts" $T pollers -s proc -e -n 1 -c 100
tap_check "100 pollers, poll(), /proc/interrupts" $T pollers -s proc -n 100 -c 20
tap_check "100 pollers, epoll, /proc/interrupts" $T pollers -s proc -e -n 100 -c 20
tap_check "1 poller, poll(), /sys/kernel/irq/generation" $T pollers -s sysfs -n 1 -c 100
tap_check "100 pollers, epoll, /sys/kernel/irq/generation" $T pollers -s sysfs -e -n 100 -c 20
tap_check "pollers with open/read/poll/close churn meanwhile" $T churn -s proc -n 10 -c 100
tap_check "a change during a read of /proc/interrupts is reported by the next poll" $T midread -s proc -c 20
tap_check "/sys/kernel/irq/<irq>/threads matches the real threads (100 cycles)" $T threads -c 100
tap_check "priority set on notification never overwritten (1000 cycles)" $T race -s sysfs -c 1000 -p 77
tap_check "threads file seen from a child pid namespace lists no pid of the initial one" $T pidns
tap_check "read and poll for root and nobody, no writes" $T perms

# The real device: e1000e requests its vectors on "ip link set up".
e1000e_threads() {	# the pids of threads whose action names the interface
	cat /sys/kernel/irq/*/threads 2>/dev/null | awk -v dev="$1" '$2 ~ "^" dev "(-|$)" { print $1 }'
}
gen() { cat /sys/kernel/irq/generation; }
nic=$(for d in /sys/class/net/*; do [ "$(basename "$(readlink "$d/device/driver" 2>/dev/null)")" = e1000e ] && basename "$d"; done | head -n 1)
if [ -n "$nic" ]; then
	ok=1
	for i in 1 2 3 4 5; do
		g0=$(gen)
		ip link set "$nic" up || ok=0
		pids=$(e1000e_threads "$nic")
		nup=$(echo $pids | wc -w)
		[ -n "$pids" ] && [ "$(gen)" -gt "$g0" ] || { tap_diag "up $i: no threads listed for $nic or no change"; ok=0; }
		for p in $pids; do
			case "$(cat /proc/$p/comm 2>/dev/null)" in irq/*) ;; *) tap_diag "pid $p listed for $nic is not an irq thread"; ok=0 ;; esac
		done
		g1=$(gen)
		ip link set "$nic" down || ok=0
		[ -z "$(e1000e_threads "$nic")" ] && [ "$(gen)" -gt "$g1" ] || { tap_diag "down $i: threads still listed or no change"; ok=0; }
	done
	tap_diag "$nic up: $nup irq threads listed for it ($(cat /sys/kernel/irq/*/actions 2>/dev/null | grep -c "$nic") now that it is down)"
	if [ "$ok" = 1 ]; then tap_ok "e1000e $nic link up/down x5: thread list and generation follow"; else tap_fail "e1000e $nic link up/down x5"; fi
else
	tap_fail "e1000e link up/down (no e1000e interface found)"
fi

t0=$(cut -d' ' -f1 /proc/uptime)
tap_check "$STRESS_CYCLES request/free cycles with 10 pollers attached" $T churn -s proc -e -n 10 -c "$STRESS_CYCLES"
tap_diag "stress took $(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { print b - a }') s"
tap_check "rtlab_irqsim unloads after the stress" rmmod rtlab_irqsim
tap_check "no simulator irq left in /proc/interrupts" sh -c '! grep -q rtlab-sim /proc/interrupts'
tap_done
