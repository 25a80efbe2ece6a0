#!/bin/bash
# The host half of bench/guest/mmio-rewrite.sh: QEMU's trace of the boot
# (memory_region_ops_read/_write, every MMIO access of every device) cut at
# the guest's markers (writes of 0x52DDSSRR and 0x45DDSSRR to edu's register
# 0x04, tests/progs/qmark), the NIC's accesses counted in each window, and
# the guest's times (rewrite.txt) beside them.
#   bench/host/post/mmio-rewrite.sh OUTDIR [TRACE]
# OUTDIR is the test's output directory (build/run/<suite>/<machine>/out/
# mmio-rewrite.sh), TRACE the boot's trace (default OUTDIR/../qemu-trace.log).
# Writes OUTDIR/table.md and OUTDIR/summary.json, prints the table and one
# "ok"/"not ok" line per check; exit 1 if a check failed.
# Per window, for the driver's register block ('e1000e-mmio' or
# 'e1000-mmio'): writes, reads, multicast table (MTA, 0x5200-0x53ff) writes,
# receive address (RA, 0x5400-0x57ff) writes, STATUS (0x0008) reads, and the
# longest run of writes with no read of the NIC between them (register
# offsets are taken within the 128 KiB BAR).  Per row the
# median over the runs of count / rewrites, and the spread of the runs.
set -uo pipefail
d=${1:?usage: mmio-rewrite.sh OUTDIR [TRACE]}
trace=${2:-$d/../qemu-trace.log}
res=$d/rewrite.txt
[ -s "$res" ] || { echo "mmio-rewrite: $res: missing or empty (the guest measured nothing)" >&2; exit 1; }
[ -s "$trace" ] || { echo "mmio-rewrite: $trace: missing or empty (no QEMU trace)" >&2; exit 1; }

awk -v table="$d/table.md" -v json="$d/summary.json" '
function hex(s,    i, c, v) {
	s = tolower(s); sub(/^0x/, "", s); v = 0
	for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)); if (!c) return -1; v = v * 16 + c - 1 }
	return v
}
function median(k, f,    c, a, b, t, x) {
	c = runs[k]; for (a = 1; a <= c; a++) x[a] = val[k, f, a]
	for (a = 1; a <= c; a++) for (b = a + 1; b <= c; b++) if (x[b] < x[a]) { t = x[a]; x[a] = x[b]; x[b] = t }
	lo = x[1]; hi = x[c]
	return c % 2 ? x[(c + 1) / 2] : (x[c / 2] + x[c / 2 + 1]) / 2
}
function spread(k, f,    m) { m = median(k, f); return m ? 100 * (hi - lo) / m : (hi - lo ? 100 : 0) }
function check(ok, what) { printf "%s - %s\n", ok ? "ok" : "not ok", what; if (!ok) bad++ }
BEGIN { dn[1] = "e1000e"; dn[2] = "e1000"; rn[1] = "e1000e-mmio"; rn[2] = "e1000-mmio"
	sn[0] = "down"; sn[1] = "none"; sn[2] = "delay"; sn[3] = "flush" }
# the guest figures: "DRIVER STRATEGY RUN REWRITES NS"
FILENAME ~ /rewrite\.txt$/ { gk[$1, $2, $3] = $4; gns[$1, $2, $3] = $5; nguest++; next }
/memory_region_ops_(read|write) / {
	isw = /memory_region_ops_write /
	addr = val_ = name = ""
	for (i = 1; i < NF; i++) {
		if ($i == "addr") addr = $(i + 1)
		else if ($i == "value") val_ = $(i + 1)
		else if ($i == "name") name = $(i + 1)
	}
	gsub(/\047/, "", name)
	# QEMU 7.2 logs the bus address; a BAR is aligned to its size (edu
	# 1 MiB, each NIC 128 KiB), so the register is the address modulo it
	if (name == "edu-mmio" && isw && hex(addr) % 1048576 == 4) {
		v = hex(val_); tag = int(v / 16777216); code = v % 16777216
		dd = int(code / 65536); ss = int(code / 256) % 256; rr = code % 256
		if (tag == 82) {		# "R": a window opens
			if (open != "") unclosed++
			open = dd SUBSEP ss SUBSEP rr; want = rn[dd]; run = 0
			W[open] = R[open] = MTA[open] = RA[open] = ST[open] = LONG[open] = 0
		} else if (tag == 69) {		# "E": it closes
			if (open != dd SUBSEP ss SUBSEP rr) mismatched++
			else closed[open] = 1
			open = ""
		}
		next
	}
	if (open == "" || name != want) next
	a = hex(addr) % 131072
	if (isw) {
		W[open]++; run++; if (run > LONG[open]) LONG[open] = run
		if (a >= 20992 && a < 21504) MTA[open]++		# 0x5200-0x53ff
		else if (a >= 21504 && a < 22528) RA[open]++	# 0x5400-0x57ff
	} else {
		R[open]++; run = 0
		if (a == 8) ST[open]++
	}
}
END {
	nf = split("ns writes reads mta_writes ra_writes status_reads longest_write_run", F, " ")
	for (dd = 1; dd <= 2; dd++) for (ss = 0; ss <= 3; ss++) {
		k = dn[dd] " " sn[ss]; c = 0
		for (rr = 1; (dn[dd], sn[ss], rr) in gk; rr++) {
			key = dd SUBSEP ss SUBSEP rr
			if (!(key in closed)) { missing++; continue }
			K = gk[dn[dd], sn[ss], rr]; c++
			val[k, "ns", c] = gns[dn[dd], sn[ss], rr] / K
			val[k, "writes", c] = W[key] / K; val[k, "reads", c] = R[key] / K
			val[k, "mta_writes", c] = MTA[key] / K; val[k, "ra_writes", c] = RA[key] / K
			val[k, "status_reads", c] = ST[key] / K; val[k, "longest_write_run", c] = LONG[key]
		}
		if (c) { runs[k] = c; rows[++nr] = k }
	}
	print "| driver strategy | runs | ns per rewrite | writes | reads | MTA writes | RA writes | STATUS reads | longest write run |" > table
	print "|---|---|---|---|---|---|---|---|---|" > table
	printf "{\"benchmark\":\"mmio-rewrite\",\"figures\":{" > json
	for (i = 1; i <= nr; i++) {
		k = rows[i]; line = "| " k " | " runs[k]
		for (j = 1; j <= nf; j++) {
			m = median(k, F[j]); sp = spread(k, F[j])
			line = line sprintf(" | %.6g (%.2g%%)", m, sp)
			fig[k, F[j]] = m
			name = k; sub(/ /, ".", name)
			printf "%s\"%s.%s\":%.6g,\"%s.%s.spread_pct\":%.3g", (nj++ ? "," : ""), name, F[j], m, name, F[j], sp > json
		}
		print line " |" > table
	}
	print "}}" > json
	print "" > table
	print "Per rewrite (one SIOCADDMULTI or SIOCDELMULTI), median of the runs and in brackets their spread, (max - min) / median. ns: guest time under icount shift 0, 1 ns = 1 instruction. Register accesses of the NIC counted exactly in QEMU'"'"'s trace; longest write run: writes with no read of the NIC between them, the most a read could wait for on real PCIe." > table
	close(table); close(json)
	check(nguest > 0 && missing == 0 && unclosed + mismatched == 0, "every guest run has its window in the trace (" nguest " runs, " missing + 0 " missing, " unclosed + mismatched + 0 " bad markers)")
	for (dd = 1; dd <= 2; dd++) {
		n = dn[dd]
		if (!((n " none") in runs)) { check(0, n ": rows present"); continue }
		check(fig[n " down", "writes"] == 0 && fig[n " down", "reads"] == 0, n " down: the NIC sees no access (the windows hold only what the rewrites do): " fig[n " down", "writes"] + 0 " writes, " fig[n " down", "reads"] + 0 " reads")
		check(fig[n " none", "mta_writes"] >= 32, n " none: the whole multicast table is written per rewrite (" fig[n " none", "mta_writes"] " MTA writes)")
		check(fig[n " delay", "reads"] == fig[n " none", "reads"], n " delay: no read added (" fig[n " delay", "reads"] " reads per rewrite, none " fig[n " none", "reads"] ")")
		check(fig[n " flush", "longest_write_run"] <= 8, n " flush: at most 8 writes without a read (longest run " fig[n " flush", "longest_write_run"] ", none " fig[n " none", "longest_write_run"] ")")
		check(fig[n " flush", "writes"] == fig[n " none", "writes"], n " flush: the same writes as none (" fig[n " flush", "writes"] " and " fig[n " none", "writes"] ")")
	}
	exit bad > 0
}' "$res" "$trace"
rc=$?
sed 's/^/  /' "$d/table.md"
exit $rc
