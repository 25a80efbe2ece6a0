#!/bin/sh
# rtlab: kernel=rt cpus=2 timeout=300 cmdline=clocksource=acpi_pm
#
# rtaudit (issue 21) on a boot forced to the ACPI PM timer: rtaudit system
# flags the clock source, rtaudit clock measures it slower than the TSC.
. /rtlab/lib.sh
. /rtlab/lib/rtaudit.sh
tap_plan 7
rta_slow_clock acpi_pm
tap_done
