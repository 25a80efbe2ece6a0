# gnuplot script for bench/guest/cyclictest.sh; run by bench/host/run.sh in the
# benchmark's output directory.  OSADL-style: latency on x, log count on y.
set terminal pngcairo size 900,500 noenhanced
set output 'cyclictest.png'
set title sprintf('cyclictest latency histogram (%s)', system('cat label 2>/dev/null'))
set xlabel 'latency (us)'
set ylabel 'samples'
set logscale y
set yrange [0.8:*]
set grid
plot 'hist-idle.dat' using 1:2 with steps lw 2 title 'idle', \
     'hist-load.dat' using 1:2 with steps lw 2 title 'hackbench load'
