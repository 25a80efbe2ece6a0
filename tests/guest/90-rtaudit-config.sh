#!/bin/sh
# rtlab: kernel=rt-debug cpus=2 timeout=300
#
# rtaudit (issue 21): the running rt-debug kernel (/proc/config.gz) against
# the lab's rt config as baseline ranks lockdep first, both through
# "rtaudit config" and through "rtaudit system" with a saved baseline.
. /rtlab/lib.sh
RT=/usr/local/libexec/rtlab/rtaudit-lab-rt.config
tap_plan 6
rtaudit config "$RT" >/tmp/rta-cfg.txt
rc=$?
cp /tmp/rta-cfg.txt "$RTLAB_OUT/config-rt-to-running.txt"
sed -n '1,2p' /tmp/rta-cfg.txt | sed 's/^/# /'
# the ranked item 1 (the no-effect families are counted below it in lines
# that also start with a number)
first=$(grep -E '^ *1 [a-z]+ CONFIG_' /tmp/rta-cfg.txt | head -n 1)
tap_check "rtaudit config rt -> running rt-debug: lockdep first ($first)" \
	[ "$first" = "   1 problem CONFIG_LOCKDEP: n -> y" ]
tap_check "rtaudit config: exit status 2, got $rc" [ "$rc" = 2 ]
rtaudit baseline save --baseline /tmp/rta/baseline.config "$RT" | sed 's/^/# /'
tap_check "rtaudit baseline save: the baseline exists" [ -s /tmp/rta/baseline.config ]
rtaudit system --baseline /tmp/rta/baseline.config >/tmp/rta-sys.txt
rc=$?
cp /tmp/rta-sys.txt "$RTLAB_OUT/system.txt"
first=$(grep -E '^ *[0-9]+ [a-z]+ +config CONFIG_' /tmp/rta-sys.txt | head -n 1)
tap_check "rtaudit system against the baseline: lockdep is the first config finding ($first)" \
	sh -c 'case "$1" in *"problem config CONFIG_LOCKDEP: n -> y") ;; *) exit 1 ;; esac' - "$first"
tap_check "rtaudit system: exit status 2, got $rc" [ "$rc" = 2 ]
# mainline PREEMPT_RT has no /sys/kernel/realtime: rtaudit must still know
# it runs on PREEMPT_RT and not ask for threadirqs
tap_check "rtaudit system: PREEMPT_RT recognised (no threadirqs warning)" \
	sh -c '! grep -q "cmdline.threadirqs: absent" /tmp/rta-sys.txt'
tap_done
