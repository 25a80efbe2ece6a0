#!/bin/bash
# cocci/run.sh: run rtlab's PREEMPT_RT context-violation semantic patches
# over a kernel tree and write a sorted report (text + JSON).
#
#   cocci/run.sh [--tree TREE] [--out DIR] [-j JOBS] [--chunk N] [--all]
#                [--kconfig KDIR | --no-kconfig] [--known-fp FILE] [SUBDIR...]
#
# TREE defaults to build/linux; SUBDIRs (relative to TREE, default: the
# whole tree) limit the scan.  Files are prefiltered with grep: a file is
# given to a semantic patch only if it contains both a sleeping-lock token
# and one of the tokens that semantic patch needs.  Output in DIR (default
# build/cocci-report): report.txt, report.json, raw/ (per-chunk spatch
# output and errors).  Findings are tagged (rt-reachable, non-rt-arch,
# kconfig-excludes-rt, dead-code, test-code); report.txt shows the
# rt-reachable ones, all with --all.  The Kconfig facts (kconfig.sh) are
# kept in KDIR (default build/cocci-kconfig/VERSION), made when missing if
# TREE has a Kconfig.  Findings listed in FILE (default cocci/known-fp.tsv,
# false positives of REVIEW.md) are tagged reviewed-fp.  Exit status: 0 on
# success (findings are not an error; no candidate file gives an empty
# report), 1 if spatch failed on some chunk, 2 on bad usage.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
tree=$top/build/linux
out=$top/build/cocci-report
jobs=2
chunk=50
timeout=120
dirs=()
all=
kdir=
nokconfig=
knownfp=$here/known-fp.tsv

usage() {
	sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
	case $1 in
	--tree) tree=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	-j) jobs=${2:?}; shift 2 ;;
	--chunk) chunk=${2:?}; shift 2 ;;
	--timeout) timeout=${2:?}; shift 2 ;;
	--all) all=--all; shift ;;
	--kconfig) kdir=${2:?}; shift 2 ;;
	--no-kconfig) nokconfig=1; shift ;;
	--known-fp) knownfp=${2:?}; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	-*) echo "run.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
	*) dirs+=("$1"); shift ;;
	esac
done
[ ${#dirs[@]} -eq 0 ] && dirs=(.)

command -v spatch >/dev/null || { echo "run.sh: spatch not found (apt-get install coccinelle)" >&2; exit 2; }
[ -d "$tree" ] || { echo "run.sh: $tree: no such kernel tree" >&2; exit 2; }
tree=$(cd "$tree" && pwd)
for d in "${dirs[@]}"; do
	[ -e "$tree/$d" ] || { echo "run.sh: $tree/$d: no such directory" >&2; exit 2; }
done
case $jobs in ''|*[!0-9]*|0) echo "run.sh: -j needs a positive number" >&2; exit 2 ;; esac

case $knownfp in /*) ;; *) knownfp=$PWD/$knownfp ;; esac
case $kdir in ''|/*) ;; *) kdir=$PWD/$kdir ;; esac
rm -rf "$out"
mkdir -p "$out/raw"
out=$(cd "$out" && pwd)
t0=$(date +%s)
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)

# --- prefilter ---------------------------------------------------------
sleeping='\b(spin_lock|spin_lock_irq|spin_lock_irqsave|spin_lock_bh|spin_lock_nested|spin_lock_irqsave_nested|spin_lock_nest_lock|spin_trylock|spin_trylock_irq|spin_trylock_irqsave|spin_trylock_bh|read_lock|read_lock_irq|read_lock_irqsave|read_lock_bh|read_trylock|write_lock|write_lock_irq|write_lock_irqsave|write_lock_bh|write_lock_nested|write_trylock|write_trylock_irqsave|local_lock|local_lock_irq|local_lock_irqsave|local_lock_nested_bh|xa_lock[a-z_]*|xas_lock[a-z_]*|write_seqlock[a-z_]*|read_seqlock_excl[a-z_]*|wake_up[a-z_]*|kill_fasync|k[mzc]alloc|kmalloc_array|krealloc|kmemdup|kstrdup|kv?free|kfree_sensitive|kmem_cache_(alloc|zalloc|free)|alloc_pages|__get_free_pages?|get_zeroed_page|free_pages?|__free_pages|clk_enable|clk_disable|clk_prepare_enable|clk_disable_unprepare|regmap_[a-z_]+|get_random_[a-z0-9_]+|pm_runtime_[a-z_]+|pm_request_[a-z]+|skcipher_walk_[a-z_]+|k[mzc]alloc_node|kmalloc_array_node|kmem_cache_[a-z_]+|kmemdup_nul|kstrndup|kfree_const|kv[mzc]alloc[a-z_]*|kvrealloc|krealloc_array|kvfree_sensitive|alloc_pages?[a-z_]*|__alloc_pages[a-z_]*|free_pages_exact|__free_page|folio_alloc|v[mz]alloc(_node)?|vfree|mempool_[a-z_]+|devm_k[a-z_]+|[a-z_]*alloc_skb[a-z_]*|skb_clone|skb_copy[a-z_]*|pskb_copy|__kfree_skb|kfree_skb[a-z_]*|consume_skb|dev_kfree_skb|skb_queue_purge|idr_(alloc[a-z0-9_]*|preload|destroy)|ida_[a-z_]+) *\(|(scoped_)?guard\((spinlock|read_lock|write_lock)'
need_atomic='\b(local_irq_disable|local_irq_save|raw_local_irq_disable|raw_local_irq_save|preempt_disable|preempt_disable_notrace|get_cpu|get_cpu_var|get_cpu_ptr|rcu_read_lock_sched|rcu_read_lock_sched_notrace|raw_spin_lock[a-z_]*|raw_spin_trylock[a-z_]*|kernel_fpu_begin(_mask)?|kernel_neon_begin|kernel_vector_begin) *\(|(scoped_)?guard\((irq|irqsave|preempt|preempt_notrace|raw_spinlock[a-z_]*)\b'
need_hardirq='\bstruct +irq_chip\b|\birq_set_chained_handler|\birq_set_handler|\birq_set_chip_and_handler|\birq_domain_set_info|\bparent_handler\b|\bIRQF_(NO_THREAD|TIMER|PERCPU)\b|\brequest_percpu_irq|\brequest_(percpu_)?nmi\b|\bHRTIMER_MODE_[A-Z_]*HARD\b|\bclock_event_device\b|\bsmp_call_function|\bon_each_cpu|\bINIT_CSD\b|\bCSD_INIT\b|\bstop_machine|\bIRQ_WORK_INIT_HARD\b|\bCPUHP_AP_[A-Z0-9_]*(STARTING|DYING)\b|\bcpu_pm_register_notifier\b|\bsyscore_ops\b|\bpci_ops\b|\bstruct +pmu\b|\bcsd\b|(\.|->) *(irq_(startup|shutdown|enable|disable|ack|mask|mask_ack|unmask|eoi|set_affinity|retrigger|set_type|set_wake|cpu_online|cpu_offline|suspend|resume|pm_shutdown|print_chip|compose_msi_msg|write_msi_msg|get_irqchip_state|set_irqchip_state|set_vcpu_affinity|nmi_setup|nmi_teardown)|ipi_send_single|ipi_send_mask) *='

cd "$tree"
# Kernel C sources only: user-space tools and scripts are not kernel code.
grep -rlE --include='*.c' --include='*.h' \
	--exclude-dir=tools --exclude-dir=scripts --exclude-dir=Documentation \
	--exclude-dir=.git "$sleeping" "${dirs[@]}" 2>/dev/null | sed 's|^\./||' | sort -u >"$out/raw/cand.lock"
scanned=$(find "${dirs[@]}" \( -name tools -o -name scripts -o -name Documentation -o -name .git \) -prune -o \
	-type f \( -name '*.c' -o -name '*.h' \) -print 2>/dev/null | wc -l)

declare -A need=([sleeping_lock_atomic]=$need_atomic [sleeping_lock_hardirq]=$need_hardirq)
status=0
for sp in sleeping_lock_atomic sleeping_lock_hardirq; do
	{
		tr '\n' '\0' <"$out/raw/cand.lock" | xargs -0 -r grep -lE "${need[$sp]}" 2>/dev/null
		# IRQF_ONESHOT keeps a primary handler in hard irq: one that wakes
		# its thread (returns IRQ_WAKE_THREAD), or one requested without a
		# thread (request_irq(..., IRQF_ONESHOT)).  Most ONESHOT files
		# pass a NULL primary handler and are left out.
		if [ $sp = sleeping_lock_hardirq ]; then
			tr '\n' '\0' <"$out/raw/cand.lock" | xargs -0 -r grep -lE '\bIRQF_ONESHOT\b' 2>/dev/null >"$out/raw/oneshot"
			tr '\n' '\0' <"$out/raw/oneshot" | xargs -0 -r grep -l '\bIRQ_WAKE_THREAD\b' 2>/dev/null
			tr '\n' '\0' <"$out/raw/oneshot" |
				xargs -0 -r grep -lPz '(?s)\b(devm_)?request_irq\s*\([^;]*\bIRQF_ONESHOT\b' 2>/dev/null
		fi
	} | sort -u >"$out/raw/$sp.files"
	rm -f "$out/raw/$sp".chunk.*
	# Each spatch process pays about 1.2 s of CPU to start (Python): at
	# most $chunk files per process, but no fewer chunks than jobs.
	n=$(wc -l <"$out/raw/$sp.files")
	per=$(( (n + jobs - 1) / jobs ))
	[ "$per" -lt "$chunk" ] && [ "$per" -gt 0 ] && c=$per || c=$chunk
	split -l "$c" -d -a 5 "$out/raw/$sp.files" "$out/raw/$sp.chunk."
	# one group per file, so each file is processed on its own
	ls "$out/raw/$sp".chunk.* 2>/dev/null | grep -v '\.\(out\|err\|rc\)$' |
		xargs -r -P "$jobs" -I{} sh -c '
			sed G "$1" >"$1.groups"
			PYTHONPATH="$4${PYTHONPATH:+:$PYTHONPATH}" spatch --very-quiet --no-show-diff --sp-file "$2" -D report \
				--no-includes --include-headers --timeout "$3" \
				--file-groups "$1.groups" >"$1.out" 2>"$1.err"
			echo $? >"$1.rc"' _ {} "$here/$sp.cocci" "$timeout" "$here"
	for rc in "$out/raw/$sp".chunk.*.rc; do
		[ -e "$rc" ] || continue
		[ "$(cat "$rc")" = 0 ] || { echo "run.sh: spatch failed on $(basename "${rc%.rc}") (see ${rc%.rc}.err)" >&2; status=1; }
	done
	cat "$out/raw/$sp".chunk.*.out 2>/dev/null >"$out/raw/$sp.out"
done
t1=$(date +%s)

# kernel version from the top Makefile (no make run: the tree may be partial)
version=$(awk -F' *= *' '$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
	$1 == "SUBLEVEL" { s = $2 } END { if (v != "") printf "%s.%s.%s\n", v, p, s }' "$tree/Makefile" 2>/dev/null)
[ -n "$version" ] || version=unknown
kopt=()
if [ -z "$nokconfig" ] && [ -f "$tree/Kconfig" ]; then
	[ -n "$kdir" ] || kdir=$top/build/cocci-kconfig/$version
	if [ ! -f "$kdir/riscv-nort.syms" ]; then
		echo "run.sh: Kconfig facts for $version into $kdir (kconfig.sh, about 2 min)" >&2
		"$here/kconfig.sh" "$tree" "$kdir" || status=1
	fi
	[ -f "$kdir/riscv-nort.syms" ] && kopt=(--kconfig "$kdir")
fi
# no chunk at all when no file passed the prefilter: an empty report, not an error
shopt -s nullglob
errs=("$out"/raw/*.err)
shopt -u nullglob
python3 "$here/report.py" --tree "$tree" --version "$version" --started "$started" \
	--seconds $((t1 - t0)) --scanned "$scanned" --dirs "${dirs[*]}" --out "$out" \
	--candidates "$out/raw/sleeping_lock_atomic.files" "$out/raw/sleeping_lock_hardirq.files" \
	--timeouts "${errs[@]}" \
	--outputs "$out/raw/sleeping_lock_atomic.out" "$out/raw/sleeping_lock_hardirq.out" \
	--known-fp "$knownfp" "${kopt[@]}" $all || status=1
exit $status
