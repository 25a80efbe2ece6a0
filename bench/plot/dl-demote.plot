# gnuplot script for bench/guest/dl-demote.sh; run by bench/host/run.sh in the
# benchmark's output directory (cdf-MODE.dat, cdf-MODE-overrun.dat,
# deadline.dat, label).  Distribution of the job completion times per mode
# (throttled, GRUB reclaiming, demoted): completion time (log x) against the
# fraction of jobs completed within it; left all jobs, right the overrun
# jobs only; the dotted line is the deadline.  Writes dl-demote.png.
set terminal pngcairo size 1200,560 noenhanced
set output 'dl-demote.png'
label = system('cat label 2>/dev/null')
set multiplot layout 1,2 title sprintf('SCHED_DEADLINE soft real-time jobs: throttled, reclaiming, demoted (%s)', label)
set xlabel 'completion time: finish - release (ms, log scale)'
set ylabel 'fraction of jobs <= x'
set logscale x
set yrange [0:1.02]
set key below horizontal samplen 2
set grid
dl = system('cat deadline.dat 2>/dev/null')
if (dl ne '') {
	set arrow 1 from dl + 0, graph 0 to dl + 0, graph 1 nohead dt 3 lw 2 lc rgb 'gray40'
	set label 1 'deadline' at dl + 0, graph 0.96 offset 0.5, 0 tc rgb 'gray40'
}
# a mode whose run failed has no file: plotted are the ones present
modes = 'throttle reclaim demote'
title(i) = i == 1 ? 'throttled (no flag)' : i == 2 ? 'reclaiming (GRUB)' : 'demoted'
has(f) = system(sprintf('test -s %s && echo 1 || echo 0', f)) + 0
all = ''
ovr = ''
do for [i = 1:words(modes)] {
	m = word(modes, i)
	t = title(i)
	f = sprintf('cdf-%s.dat', m)
	if (has(f)) {
		all = all.(all eq '' ? '' : ', ').sprintf("'%s' using 1:2 with steps lw 2 lc %d title '%s'", f, i, t)
	}
	f = sprintf('cdf-%s-overrun.dat', m)
	if (has(f)) {
		ovr = ovr.(ovr eq '' ? '' : ', ').sprintf("'%s' using 1:2 with steps lw 2 lc %d title '%s'", f, i, t)
	}
}
set title 'all jobs'
if (all ne '') { eval 'plot '.all }
set title 'overrun jobs'
if (ovr ne '') { eval 'plot '.ovr }
unset multiplot
