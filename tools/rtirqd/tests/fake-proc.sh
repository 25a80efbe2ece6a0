# Sourced by the host tests: fake_kthread TID COMM [RT_PRIORITY POLICY]
# writes $F/proc/TID/stat for a kernel thread (41 fields: field 9, flags,
# has PF_KTHREAD; 40 and 41 are rt_priority and policy), atomically.
fake_kthread() {
	mkdir -p "$F/proc/$1"
	{
		printf '%s (%s) S 2 0 0 0 -1 2097216' "$1" "$2"
		i=10
		while [ $i -le 39 ]; do printf ' 0'; i=$((i + 1)); done
		echo " ${3:-0} ${4:-0}"
	} >"$F/proc/$1/stat.new"
	mv "$F/proc/$1/stat.new" "$F/proc/$1/stat"
}
