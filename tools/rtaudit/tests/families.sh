#!/bin/sh
# rtaudit config, issue 41: verdicts an RT engineer would give, and the
# share of "impact unknown" on real configs.
# 1. a table of options with the expected verdict of a change (severity),
#    each run as a two-line config pair; module-option rows add the
#    parent module to both configs
# 2. Debian's own 6.12 amd64 configs (generic and rt, from the
#    linux-config-6.12 package, decompressed at test time) against each
#    other and against the lab's: at most 5% impact unknown, PREEMPT_RT
#    and the preemption model first, every finding with a reason
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# cfgline NAME VALUE: one .config line
cfgline() {
	case $2 in
	n) printf '# CONFIG_%s is not set\n' "$1" ;;
	-) ;;
	*) printf 'CONFIG_%s=%s\n' "$1" "$2" ;;
	esac
}

# 1. OPTION OLD NEW VERDICT [PARENT=VALUE]: the verdict of OLD -> NEW
#    ("-" for a value missing from the config)
bad=""
rows=0
while read -r opt old new want parent; do
	case $opt in '#'*|'') continue ;; esac
	rows=$((rows + 1))
	# the same line on both sides keeps a config with a missing value valid
	for side in old new; do
		eval "v=\$$side"
		{ echo 'CONFIG_EXPERT=y'; cfgline "$opt" "$v"
		  [ -n "$parent" ] && cfgline "${parent%=*}" "${parent#*=}"; } >"$work/$side.config"
	done
	$RTAUDIT --all --rules "$RULES" config "$work/old.config" "$work/new.config" >"$work/one.txt"
	got=$(ranked "$work/one.txt" | grep " CONFIG_$opt:" | awk '{ print $2 }')
	why=$(grep -c '^       why: ' "$work/one.txt")
	if [ "$got" != "$want" ] || [ "$why" -lt 1 ]; then
		bad="$bad $opt:$old->$new=$got(want $want)"
	fi
done <<'TABLE'
# option                 old new verdict  parent
PREEMPT_RT               y   n   problem
PREEMPT_RT               n   y   info
PREEMPT_VOLUNTARY        n   y   problem
PREEMPT_NONE             n   y   problem
PREEMPT                  y   n   problem
PREEMPT_LAZY             n   y   info
PREEMPT_DYNAMIC          n   y   warning
IRQ_FORCED_THREADING     y   n   problem
CPU_ISOLATION            y   n   warning
HIGH_RES_TIMERS          y   n   problem
HZ                       1000 250 warning
NO_HZ_FULL               n   y   warning
RCU_BOOST                y   n   warning
RCU_NOCB_CPU             y   n   warning
RCU_LAZY                 n   y   warning
RCU_FANOUT               -   64  info
LOCKDEP                  n   y   problem
PROVE_LOCKING            n   y   problem
DEBUG_KMEMLEAK           n   y   problem
KASAN                    n   y   problem
DEBUG_ATOMIC_SLEEP       n   y   warning
DEBUG_VM_PGTABLE         n   y   warning
IRQSOFF_TRACER           n   y   problem
HWLAT_TRACER             n   y   info
TIMERLAT_TRACER          n   y   info
KPROBES                  n   y   info
EFI_DISABLE_RUNTIME      y   n   warning
COMPACT_UNEVICTABLE_DEFAULT 0 1  warning
TRANSPARENT_HUGEPAGE_ALWAYS n y  warning
NUMA_BALANCING           n   y   warning
CPU_FREQ_DEFAULT_GOV_PERFORMANCE y n warning
INTEL_IDLE               n   y   warning
SLUB_DEBUG               n   y   info
E1000E                   n   m   none
DRM_I915                 n   m   none
SND_HDA_INTEL            m   y   none
USB_XHCI_HCD             n   y   none
EXT4_FS                  n   y   none
BTRFS_FS                 n   y   none
CRYPTO_AES_NI_INTEL      n   y   none
NF_CONNTRACK_MARK        n   y   none     NF_CONNTRACK=m
B43_PHY_N                n   y   none     B43=m
ARCH_HAS_PREEMPT_LAZY    n   y   none
HAVE_DEBUG_KMEMLEAK      n   y   none
DEBUG_INFO_DWARF5        n   y   none
NR_CPUS                  64  8192 none
LOCALVERSION             ""  "-rt" noise
TABLE
if [ -z "$bad" ]; then
	pass "RT engineer's table: $rows option changes get the expected verdict, each with a reason"
else
	fail "RT engineer's table: wrong verdicts:$bad"
fi

# 2. real configs
dc=/usr/src/linux-config-6.12
if [ ! -r $dc/config.amd64_none_amd64.xz ] || [ ! -r $dc/config.amd64_rt_amd64.xz ]; then
	echo "ok - Debian 6.12 configs # SKIP linux-config-6.12 not installed (tools/rtaudit/deps)"
	exit 0
fi
xz -dc $dc/config.amd64_none_amd64.xz >"$work/deb.config"
xz -dc $dc/config.amd64_rt_amd64.xz >"$work/debrt.config"
D=$work/deb.config R=$work/debrt.config L=$FIX/lab-rt.config G=$FIX/lab-rt-debug.config
for pair in "$D $R" "$R $D" "$L $D" "$L $R" "$R $L" "$D $L" "$L $G"; do
	set -- $pair
	name="$(basename "$1" .config) -> $(basename "$2" .config)"
	$RTAUDIT --all --rules "$RULES" config "$1" "$2" >"$work/all.txt"
	total=$(ranked "$work/all.txt" | wc -l)
	unk=$(ranked "$work/all.txt" | grep -c ' unknown ')
	whys=$(grep -c '^       why: ' "$work/all.txt")
	if [ "$total" -gt 0 ] && [ $((unk * 100)) -le $((total * 5)) ] && [ "$whys" = "$total" ]; then
		pass "$name: $unk of $total impact unknown (at most 5%), every finding with a reason"
	else
		fail "$name: $unk of $total impact unknown, $whys reasons"
	fi
done
# PREEMPT_RT first, then the preemption model that replaces it, when a
# config loses PREEMPT_RT (Debian rt -> generic, lab rt -> Debian generic)
for pair in "$R $D" "$L $D"; do
	set -- $pair
	$RTAUDIT --rules "$RULES" config "$1" "$2" >"$work/r.txt"
	first=$(ranked "$work/r.txt" | sed -n 1p)
	second=$(ranked "$work/r.txt" | sed -n 2p)
	case "$first|$second" in
	*" problem CONFIG_PREEMPT_RT: y -> n|"*" problem CONFIG_PREEMPT_VOLUNTARY: n -> y")
		pass "$(basename "$1") -> $(basename "$2"): PREEMPT_RT first, PREEMPT_VOLUNTARY second" ;;
	*) fail "$(basename "$1") -> $(basename "$2"): first $first, second $second" ;;
	esac
done
# ... also above lockdep and the other debug problems
{ cat "$D"; printf 'CONFIG_LOCKDEP=y\nCONFIG_PROVE_LOCKING=y\nCONFIG_KASAN=y\n'; } >"$work/debdbg.config"
$RTAUDIT --rules "$RULES" config "$R" "$work/debdbg.config" >"$work/r.txt"
order=$(ranked "$work/r.txt" | awk '{ print $3 }' | sed -n 1,5p | tr -d : | tr '\n' ' ')
case $order in
"CONFIG_PREEMPT_RT CONFIG_PREEMPT_VOLUNTARY CONFIG_LOCKDEP "*) pass "debian rt -> generic + lockdep: preemption model above LOCKDEP ($order)" ;;
*) fail "debian rt -> generic + lockdep: $order" ;;
esac
# the options issue 41 found "impact unknown" each get a verdict
$RTAUDIT --all --rules "$RULES" config "$D" "$R" >"$work/dr.txt"
miss=""
for o in CPU_ISOLATION IRQ_FORCED_THREADING EFI_DISABLE_RUNTIME PREEMPT_LAZY HWLAT_TRACER \
	OSNOISE_TRACER TIMERLAT_TRACER RCU_NOCB_CPU_CB_BOOST COMPACT_UNEVICTABLE_DEFAULT; do
	printf 'CONFIG_%s=y\n' "$o" >"$work/a.config"
	printf '# CONFIG_%s is not set\n' "$o" >"$work/b.config"
	$RTAUDIT --rules "$RULES" config "$work/a.config" "$work/b.config" >"$work/o.txt"
	grep -q 'why: changed, impact unknown' "$work/o.txt" && miss="$miss $o"
done
grep -q ' unknown ' "$work/dr.txt" && miss="$miss (debian generic -> rt has unknowns)"
if [ -z "$miss" ]; then pass "issue 41's unknown options are rated"; else fail "still unknown:$miss"; fi
# the text output counts the "no latency effect" options by family
$RTAUDIT --rules "$RULES" config "$L" "$D" >"$work/t.txt"
n=$(sed -n 's/^ *\([0-9]*\) options with no latency effect, by family.*/\1/p' "$work/t.txt")
fam=$(grep -cE '^ +[0-9]+ built as a module: ' "$work/t.txt")
if [ -n "$n" ] && [ "$n" -gt 0 ] && [ "$fam" = 1 ] && ! ranked "$work/t.txt" | grep -q ' none '; then
	pass "lab rt -> debian: $n options with no latency effect counted by family, not listed"
else
	fail "lab rt -> debian: no-effect summary ($n, module family lines $fam)"
fi
exit 0
