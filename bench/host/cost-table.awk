#!/usr/bin/awk -f
# bench/host/cost.sh's table.  Input: "KERNEL BOOT FIGURE VALUE" lines, where
# FIGURE is NAME.rK (run K of a boot) or NAME (that boot's median).
# -v a=KERNEL_A [-v b=KERNEL_B]: without b one kernel's determinism table,
# with b the A/B table (-v fmt=json: its rows as JSON objects, one a line).
# Spreads are (max - min) / median in percent.
function med(arr, n,   i, j, t, x) {
	for (i = 1; i <= n; i++) x[i] = arr[i]
	for (i = 2; i <= n; i++) for (j = i; j > 1 && x[j - 1] > x[j]; j--) { t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }
	return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
}
function spread(arr, n,   i, lo, hi, m) {
	lo = hi = arr[1]
	for (i = 2; i <= n; i++) { if (arr[i] < lo) lo = arr[i]; if (arr[i] > hi) hi = arr[i] }
	m = med(arr, n)
	return m ? 100 * (hi - lo) / m : 0
}
{
	k = $1; boot = $2; f = $3; v = $4
	if (f ~ /\.r[0-9]+$/) {
		run = f; sub(/^.*\.r/, "", run); sub(/\.r[0-9]+$/, "", f)
		all[k, f, ++nall[k, f]] = v			# every run of the kernel
		inboot[k, f, boot, ++ninboot[k, f, boot]] = v
		byrun[k, f, run, ++nbyrun[k, f, run]] = v	# the same run in each boot
		if (run > nrun[k, f]) nrun[k, f] = run
		if (boot > nboot[k]) nboot[k] = boot
	} else {
		bmed[k, f, ++nbmed[k, f]] = v
		if (!(f in seen)) { seen[f] = 1; order[++nf] = f }
	}
}
# collect K F: the values of all[K, F, *] into tmp[1..n], returns n
function collect(src, cnt, key,   i, n) {
	delete tmp
	n = cnt[key]
	for (i = 1; i <= n; i++) tmp[i] = src[key, i]
	return n
}
END {
	if (b == "") {
		print "| figure | median | spread of the runs in one boot, worst boot % | spread across boots of the same run, worst run % | spread across boots of the boot medians % |"
		print "|---|---|---|---|---|"
		for (i = 1; i <= nf; i++) {
			f = order[i]
			n = collect(bmed, nbmed, a SUBSEP f); m = med(tmp, n); sm = spread(tmp, n)
			w = 0
			for (bt = 1; bt <= nboot[a]; bt++) { n = collect(inboot, ninboot, a SUBSEP f SUBSEP bt); if (n && (s = spread(tmp, n)) > w) w = s }
			r = 0
			for (run = 1; run <= nrun[a, f]; run++) { n = collect(byrun, nbyrun, a SUBSEP f SUBSEP run); if (n && (s = spread(tmp, n)) > r) r = s }
			printf "| %s | %s | %.2f | %.2f | %.2f |\n", f, m, w, r, sm
		}
		exit
	}
	if (fmt != "json") {
		print "| figure | A median | A spread % | B median | B spread % | B / A |"
		print "|---|---|---|---|---|---|"
	}
	for (i = 1; i <= nf; i++) {
		f = order[i]
		na = collect(all, nall, a SUBSEP f); ma = na ? med(tmp, na) : ""; sa = na ? spread(tmp, na) : 0
		nb = collect(all, nall, b SUBSEP f); mb = nb ? med(tmp, nb) : ""; sb = nb ? spread(tmp, nb) : 0
		if (fmt == "json")	# one object a line; a figure one kernel lacks has null there
			printf "{\"figure\":\"%s\",\"a\":%s,\"a_runs\":%d,\"a_spread_pct\":%.2f,\"b\":%s,\"b_runs\":%d,\"b_spread_pct\":%.2f,\"ratio\":%s}\n",
				f, na ? ma : "null", na, sa, nb ? mb : "null", nb, sb, (na && nb && ma) ? sprintf("%.4f", mb / ma) : "null"
		else
			printf "| %s | %s (n=%d) | %.2f | %s (n=%d) | %.2f | %s |\n", f, ma, na, sa, mb, nb, sb, (na && nb && ma) ? sprintf("%.3f", mb / ma) : "-"
	}
}
