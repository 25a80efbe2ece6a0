# gnuplot script for bench/guest/rtpi-wakeup.sh; run by bench/host/run.sh in the
# benchmark's output directory.  Distribution of the high-priority waiter's
# wake-up latency per implementation: latency (log x) against the fraction
# of wake-ups at or below it.
set terminal pngcairo size 900,500 noenhanced
set output 'rtpi-wakeup.png'
set title sprintf('condvar wake-up latency under a medium-priority hog (%s)', system('cat label 2>/dev/null'))
set xlabel 'wake-up latency (us, log scale)'
set ylabel 'fraction of wake-ups <= x'
set logscale x
set yrange [0:1.02]
set key bottom right
set grid
# the earlier library (mode rtpi-base) only when the image carried one
base = system('test -f cdf-rtpi-base.dat && echo 1 || echo 0') + 0
old = base ? "'cdf-rtpi-base.dat' using 1:2 with lines lw 2 dt 2 title 'rtpi, earlier librtpi.so', " : ""
eval "plot ".old."'cdf-rtpi.dat' using 1:2 with lines lw 2 title 'rtpi (native)', ".\
     "'cdf-preload.dat' using 1:2 with lines lw 2 title 'drop-in (LD_PRELOAD)', ".\
     "'cdf-glibc-pi.dat' using 1:2 with lines lw 2 title 'glibc condvar + PI mutex', ".\
     "'cdf-glibc-normal.dat' using 1:2 with lines lw 2 title 'glibc condvar + normal mutex'"
