#!/bin/bash
# cocci/tests/run.sh: test rtlab's PREEMPT_RT semantic patches; prints TAP.
#  - the corpus (tests/corpus/*.c) through cocci/run.sh: exactly the findings
#    marked "expect: RULE LOCK" in the sources, nothing else;
#  - report, context, org and patch modes on the corpus;
#  - runner usage errors;
#  - one real subsystem (kernel/irq and drivers/pinctrl of Debian's 6.12
#    source) within a time limit, with a well-formed report.
# Environment: COCCI_TREE=<kernel tree> to use an unpacked tree for the
# subsystem test instead of extracting /usr/src/linux-source-6.12.tar.xz;
# COCCI_SUBSYS_LIMIT=<seconds> (default 300).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cocci=$(cd "$here/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rtlab-cocci.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
limit=${COCCI_SUBSYS_LIMIT:-300}
results=$tmp/results
: >"$results"

# add result lines from a check, or one of our own
add() { cat >>"$results"; }
ok() { echo "ok - $*" >>"$results"; }
notok() { echo "not ok - $1" >>"$results"; shift; for d in "$@"; do echo "# $d" >>"$results"; done; }
check() { python3 "$here/check.py" "$@" >>"$results" 2>&1 || notok "check.py $1 crashed"; }

finish() {
	echo "TAP version 13"
	n=$(grep -cE '^(ok|not ok) ' "$results")
	echo "1..$n"
	awk '/^(ok|not ok) / { i++; sub(/ - /, " " i " "); print; next } { print }' "$results"
	grep -q '^not ok' "$results" && exit 1
	exit 0
}

if ! command -v spatch >/dev/null; then
	notok "spatch installed (apt-get install coccinelle)"
	finish
fi
ok "spatch installed: $(spatch --version | head -n1)"

# --- corpus through the runner ---------------------------------------------
corpus=$tmp/corpus
mkdir -p "$corpus"
cp "$here"/corpus/*.c "$corpus/"
kfp=(--known-fp "$here/known-fp-corpus.tsv")
if "$cocci/run.sh" --tree "$corpus" --out "$tmp/corpus-out" -j 2 "${kfp[@]}" >"$tmp/corpus.log" 2>&1; then
	ok "run.sh over the corpus exits 0"
else
	notok "run.sh over the corpus exits 0" "$(tail -n 5 "$tmp/corpus.log")"
fi
check expect "$corpus" "$tmp/corpus-out/report.json"
check wellformed "$corpus" "$tmp/corpus-out" corpus
# the three call sites of take_s() in collapse() are one finding
if python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
f = [x for x in r["findings"] if x["file"] == "dead.c" and x["function"] == "collapse"]
sys.exit(0 if len(f) == 1 and len(f[0]["sites"]) == 2 else 1)' "$tmp/corpus-out/report.json"; then
	ok "one finding for a helper's lock reached from three call sites, listing the other two"
else
	notok "one finding for a helper's lock reached from three call sites, listing the other two"
fi
# --all lists the hidden findings with their tags
"$cocci/run.sh" --tree "$corpus" --out "$tmp/corpus-all" -j 2 --all "${kfp[@]}" >"$tmp/corpus-all.log" 2>&1
n_all=$(grep -vc '^#' "$tmp/corpus-all/report.txt")
n_def=$(grep -vc '^#' "$tmp/corpus-out/report.txt")
n_json=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["findings"]))' "$tmp/corpus-out/report.json")
if [ "$n_all" = "$n_json" ] && [ "$n_def" -lt "$n_all" ] && grep -q '	dead-code' "$tmp/corpus-all/report.txt" &&
	! grep -q '	dead-code' "$tmp/corpus-out/report.txt"; then
	ok "--all shows all $n_all tagged findings, the default $n_def rt-reachable ones"
else
	notok "--all shows all tagged findings, the default the rt-reachable ones" "all $n_all json $n_json default $n_def"
fi
check wellformed "$corpus" "$tmp/corpus-all" corpus-all

# --- context and org modes ---------------------------------------------------
mode() { # mode SP FILE MODE OUT
	(cd "$corpus" && PYTHONPATH="$cocci" spatch --very-quiet --sp-file "$cocci/$1.cocci" -D "$3" \
		--no-includes --include-headers "$2") >"$4" 2>"$4.err"
}
mode sleeping_lock_hardirq irqchip.c context "$tmp/ctx-irqchip"
check context "$corpus/irqchip.c" "$tmp/ctx-irqchip"
mode sleeping_lock_atomic rawlock.c context "$tmp/ctx-rawlock"
check context "$corpus/rawlock.c" "$tmp/ctx-rawlock" direct
mode sleeping_lock_hardirq ipi.c org "$tmp/org-ipi"
check org "$corpus/ipi.c" "$tmp/org-ipi"
mode sleeping_lock_atomic preemptoff.c org "$tmp/org-preemptoff"
check org "$corpus/preemptoff.c" "$tmp/org-preemptoff"

# --- patch mode ----------------------------------------------------------------
# patch FILE SP: apply the patch mode in place on a copy, then report again
patchrun() {
	local d=$tmp/patch-$1
	rm -rf "$d"; mkdir -p "$d"
	cp "$corpus/$1" "$d/"
	(cd "$d" && PYTHONPATH="$cocci" spatch --very-quiet --sp-file "$cocci/$2.cocci" -D patch --in-place \
		--no-includes --include-headers "$1") >"$d.log" 2>&1
	(cd "$d" && PYTHONPATH="$cocci" spatch --very-quiet --sp-file "$cocci/$2.cocci" -D report \
		--no-includes --include-headers "$1") >"$d.report" 2>&1
}
has() { grep -qF -- "$2" "$1"; }
count() { grep -cF -- "$2" "$1"; }
# report_after REPORT CONVERTED KEPT: the report of the patched file no
# longer names the converted lock and still names the kept one (into det)
report_after() {
	! has "$1" "\"&$2\"" || det+=("$2 still reported after the patch")
	has "$1" "\"&$3\"" || det+=("$3 no longer reported after the patch")
}
# verdict NAME: one point from what the checks above collected in det
verdict() {
	if [ ${#det[@]} -eq 0 ]; then ok "$1"; else notok "$1" "${det[@]}"; fi
}

patchrun rawlock.c sleeping_lock_atomic
f=$tmp/patch-rawlock.c/rawlock.c
det=()
has "$f" 'static DEFINE_RAW_SPINLOCK(only_atomic);' || det+=("only_atomic not converted to DEFINE_RAW_SPINLOCK")
[ "$(count "$f" 'raw_spin_lock(&only_atomic)')" = 2 ] || det+=("raw_spin_lock(&only_atomic) not used at both sites")
has "$f" 'spin_lock(&only_atomic)' && ! has "$f" ' spin_lock(&only_atomic)' || true
grep -qE '(^|[^_])spin_(un)?lock\(&only_atomic\)' "$f" && det+=("a spin_lock/unlock of only_atomic is left")
has "$f" 'static DEFINE_SPINLOCK(both_lock);' || det+=("both_lock (thread and raw context) was converted")
has "$f" 'static DEFINE_SPINLOCK(s);' || det+=("s (taken through a helper) was converted")
report_after "$tmp/patch-rawlock.c.report" only_atomic both_lock
verdict "patch mode (atomic): converts only the lock always taken in atomic context"

patchrun irqchip.c sleeping_lock_hardirq
f=$tmp/patch-irqchip.c/irqchip.c
det=()
has "$f" 'static DEFINE_RAW_SPINLOCK(mask_lock);' || det+=("mask_lock not converted")
grep -qE '(^|[^_])spin_(un)?lock(_irqsave|_irqrestore)?\(&mask_lock' "$f" && det+=("a spin_* of mask_lock is left")
[ "$(count "$f" 'raw_spin_lock_irqsave(&mask_lock, flags)')" = 1 ] || det+=("irqsave site not converted")
has "$f" 'static DEFINE_SPINLOCK(both_lock);' || det+=("both_lock (also taken in probe) was converted")
has "$f" 'spinlock_t lock;' || det+=("a struct member lock was converted")
report_after "$tmp/patch-irqchip.c.report" mask_lock both_lock
verdict "patch mode (hardirq): converts only the lock always taken in hard-irq context"

# --- runner usage ------------------------------------------------------------------
"$cocci/run.sh" --tree "$corpus" --out "$tmp/bad" no/such/dir >"$tmp/bad.log" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q 'no such directory' "$tmp/bad.log"; then ok "run.sh rejects a missing directory (exit 2)"
else notok "run.sh rejects a missing directory (exit 2)" "exit $rc: $(head -n1 "$tmp/bad.log")"; fi
"$cocci/run.sh" --bogus >"$tmp/bad.log" 2>&1
rc=$?
if [ $rc = 2 ]; then ok "run.sh rejects an unknown option (exit 2)"; else notok "run.sh rejects an unknown option (exit 2)" "exit $rc"; fi

# device-tree evidence (reach.py): a driver built with PREEMPT_RT only on
# arm64 whose compatibles no arm64 device tree uses is non-rt-arch
cp -r "$here/hwtree" "$tmp/hwtree"
"$cocci/run.sh" --tree "$tmp/hwtree" --out "$tmp/hw-out" -j 1 --kconfig "$here/hwtree-kconfig" >"$tmp/hw.log" 2>&1
python3 "$here/check.py" expect "$tmp/hwtree" "$tmp/hw-out/report.json" 2>&1 |
	grep -E '^(ok|not ok) - corpus hw|^# .*hw[0-9]+\.c' | sed 's/ - corpus / - hwtree /' >>"$results"

# a directory with no candidate file: an empty, well-formed report, exit 0
mkdir -p "$tmp/nocand/sub"
echo 'int x;' >"$tmp/nocand/sub/plain.c"
"$cocci/run.sh" --tree "$tmp/nocand" --out "$tmp/nocand-out" -j 1 sub >"$tmp/nocand.log" 2>&1
rc=$?
if [ $rc = 0 ] && [ -f "$tmp/nocand-out/report.json" ] &&
	python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["findings"] == [] else 1)' "$tmp/nocand-out/report.json"; then
	ok "run.sh over a directory without candidate files exits 0 with an empty report"
else
	notok "run.sh over a directory without candidate files exits 0 with an empty report" "exit $rc: $(tail -n 2 "$tmp/nocand.log")"
fi
# every reviewed false positive that known-fp.tsv hides is one REVIEW.md gives as FP
if python3 -c 'import sys
rev = open(sys.argv[2]).read()
bad = []
for line in open(sys.argv[1]):
    if not line.strip() or line.startswith("#"):
        continue
    f = line.rstrip("\n").split("\t")
    if len(f) < 5 or not any(f[0] in l and f[1] in l and "| FP |" in l for l in rev.splitlines()):
        bad.append(line.strip())
print("\n".join(bad)); sys.exit(1 if bad else 0)' "$cocci/known-fp.tsv" "$cocci/REVIEW.md" >"$tmp/kfp.log" 2>&1; then
	ok "known-fp.tsv lists only findings REVIEW.md marks FP"
else
	notok "known-fp.tsv lists only findings REVIEW.md marks FP" "$(head -n 3 "$tmp/kfp.log")"
fi

# --- one real subsystem ------------------------------------------------------------
tree=${COCCI_TREE:-}
subs="kernel/irq drivers/pinctrl/samsung"
if [ -z "$tree" ]; then
	tarball=/usr/src/linux-source-6.12.tar.xz
	if [ -f "$tarball" ]; then
		mkdir -p "$tmp/src"
		t0=$(date +%s)
		# the subsystem, and the files of the recall list (recall/fixes.json)
		recall_files=$(python3 -c 'import json,sys
print("\n".join(sorted({"linux-source-6.12/" + f["file"] for f in json.load(open(sys.argv[1]))["fixes"]})))' "$cocci/recall/fixes.json")
		if tar -xf "$tarball" -C "$tmp/src" --wildcards 'linux-source-6.12/Makefile' \
			'linux-source-6.12/kernel/irq/*' 'linux-source-6.12/drivers/pinctrl/samsung/*' \
			$recall_files 2>"$tmp/tar.err"; then
			tree=$tmp/src/linux-source-6.12
			ok "extracted $subs from $tarball in $(( $(date +%s) - t0 )) s"
		else
			notok "extract $subs from $tarball" "$(head -n2 "$tmp/tar.err")"
		fi
	elif [ -d "$cocci/../build/linux/kernel/irq" ]; then
		tree=$cocci/../build/linux
	fi
fi
if [ -z "$tree" ]; then
	echo "ok - real subsystem run # SKIP no kernel source (apt-get install linux-source-6.12)" >>"$results"
else
	t0=$(date +%s)
	timeout "$limit" "$cocci/run.sh" --tree "$tree" --out "$tmp/subsys" -j 2 $subs >"$tmp/subsys.log" 2>&1
	rc=$?
	dt=$(( $(date +%s) - t0 ))
	if [ $rc = 0 ]; then ok "run.sh over $subs completes in $dt s (limit $limit s): $(tail -n1 "$tmp/subsys.log")"
	else notok "run.sh over $subs completes within $limit s" "exit $rc after $dt s" "$(tail -n 3 "$tmp/subsys.log")"; fi
	check wellformed "$tree" "$tmp/subsys" "$subs"
	if python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r["timeouts"] == 0 and r["files_candidate"]["sleeping_lock_hardirq"] > 0 and r["kernelversion"].startswith("6.12.") else 1)' "$tmp/subsys/report.json" 2>/dev/null; then
		ok "$subs: kernel 6.12.y, files reached spatch, none timed out"
	else
		notok "$subs: kernel 6.12.y, files reached spatch, none timed out"
	fi
	# recall: each upstream fix of recall/fixes.json found or missed as recorded
	python3 "$cocci/recall/recall.py" --tree "$tree" >"$tmp/recall.tap" 2>&1
	rc=$?
	grep -E '^(ok|not ok) |^#' "$tmp/recall.tap" | sed -E 's/^(ok|not ok) [0-9]+ - /\1 - recall: /' >>"$results"
	[ $rc = 0 ] || notok "recall.py exits 0" "exit $rc: $(grep -v '^ok' "$tmp/recall.tap" | head -n 3)"
fi

finish
