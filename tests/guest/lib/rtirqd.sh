# Helpers of the rtirqd benchmarks; source after /rtlab/lib.sh:
#   . /rtlab/lib/rtirqd.sh
# rtirqd's rules for the benchmarks: irq threads FIFO 50, the simulator's
# "rtirqd-sim" action FIFO 77 (bench/guest/rtirqd-latency.sh, rtirqd-breakdown.sh)
rtirqd_bench_rules() {
	mkdir -p /etc/rtgroups.d
	printf '%s\n' 'irqthreads:f:50:*:^\[irq/[0-9]+-' '#@irq sim:f:77:*:action=^rtirqd-sim$' >/etc/rtgroups
	chmod 644 /etc/rtgroups
	chmod 755 /etc/rtgroups.d
}
