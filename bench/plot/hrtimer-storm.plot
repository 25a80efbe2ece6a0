# gnuplot script for bench/guest/hrtimer-storm.sh, run on the host in the
# benchmark's output directory (growth.dat, scenarios.dat, label).
# Writes hrtimer-storm.png.

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
	set terminal pngcairo size 1200,500 font ",10"
} else {
	set terminal png size 1200,500
}
set output "hrtimer-storm.png"

label = system("cat label 2>/dev/null")
set multiplot layout 1,2 title "hrtimer wake-up storm on one CPU (".label.")"

# Left: hard timer interrupt time per storm expiry against N.
set title "hard irq time per storm expiry (median)"
set xlabel "sleeping threads N"
set ylabel "us (emulator time under TCG)"
set logscale xy
set xrange [70:6000]
set key top left
set grid
plot "growth.dat" using 1:3 with linespoints lw 2 pt 7 title "SCHED\\_FIFO 1 sleepers (hard expiry)", \
     "growth.dat" using 1:2 with linespoints lw 2 pt 5 title "SCHED\\_OTHER sleepers (soft expiry)", \
     "growth.dat" using 1:6 with lines dt 2 lw 1 title "no storm (a)"

# Right: the three scenarios relative to a.
unset logscale
set title "scenarios relative to a (cyclictest alone), N = 1000"
set xlabel ""
set ylabel "ratio to a (log scale)"
set logscale y
set autoscale
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set key top left
set yrange [0.1:*]
a_avg = real(system("awk '$1 == \"a\" { print $2 }' scenarios.dat"))
a_p99 = real(system("awk '$1 == \"a\" { print $3 }' scenarios.dat"))
a_irq = real(system("awk '$1 == \"a\" { print $5 }' scenarios.dat"))
plot "scenarios.dat" using ($2 / a_avg):xtic(1) title "cyclictest avg", \
     "" using ($3 / a_p99) title "cyclictest p99", \
     "" using ($5 / a_irq) title "hard irq per expiry"
unset multiplot
