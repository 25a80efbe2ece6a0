#!/bin/sh
# rtlab: kernel=rt cpus=2 timeout=300 cmdline=tsc=unstable
#
# rtaudit (issue 21) on a boot with tsc=unstable: the kernel logs "Marking
# TSC unstable", drops the TSC and falls back to HPET or ACPI PM;
# rtaudit system must report each of these.
. /rtlab/lib.sh
. /rtlab/lib/rtaudit.sh
tap_plan 6
cs=/sys/devices/system/clocksource/clocksource0
cur=$(cat $cs/current_clocksource)
av=$(cat $cs/available_clocksource)
tap_diag "available: $av, current: $cur"
rtaudit system >/tmp/rta-sys.txt
rc=$?
cp /tmp/rta-sys.txt "$RTLAB_OUT/system.txt"
l=$(rta_line /tmp/rta-sys.txt problem cmdline.tsc)
tap_check "rtaudit system: tsc=unstable on the command line is a problem ($l)" [ "${l##*: }" = unstable ]
l=$(rta_line /tmp/rta-sys.txt problem kernel-log)
tap_check "rtaudit system: the log's \"Marking TSC unstable\" is a problem ($l)" \
	[ "${l##*: }" = "Marking TSC unstable" ]
grep -A3 'kernel-log: Marking TSC unstable' /tmp/rta-sys.txt | grep 'evidence' | sed 's/^/# /'
l=$(rta_line /tmp/rta-sys.txt problem clocksource)
tap_check "rtaudit system: the fallback clock source $cur is a problem ($l)" [ "${l##*: }" = "$cur" ]
l=$(rta_line /tmp/rta-sys.txt warning clocksource.available)
tap_check "rtaudit system: no fast clock source available ($l)" [ -n "$l" ]
tap_check "rtaudit system: exit status 2, got $rc" [ "$rc" = 2 ]
case " $av " in
*" tsc "*) tap_fail "the kernel still offers the TSC: $av" ;;
*) tap_ok "the kernel no longer offers the TSC ($av)" ;;
esac
tap_done
