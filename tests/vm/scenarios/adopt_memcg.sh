#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# `zram-recompd adopt` with the workload in a memory cgroup (v2) at its memory.max: swapoff
# charges every page it reads back to the cgroup that swapped it out, so MemAvailable alone
# does not make the direct plan safe. swapload (96 MiB, 10% hot) runs in a cgroup with
# memory.max 64 MiB, on a zram swap device set up as the distribution tools do (lzo-rle,
# mkswap -L, priority 7); a good part of its pages go to the device, with plenty of
# MemAvailable (no balloons):
#   a. adopt --dry-run prints the cgroup's line (not safe) and the direct plan's (safe by
#      MemAvailable: the rule without cgroups would have taken it), and chooses the temporary
#      device: the exact plan line;
#   b. adopt goes through the temporary device: the cgroup's memory.events oom_kill stays 0,
#      the workload is alive, the device is swap again as before with zstd, and every page
#      reads back intact;
#   c. the control: a plain swapoff of the device (busybox), what the direct plan does first,
#      with the cgroup at its limit and no other swap: the kernel OOM-kills in the cgroup
#      (oom_kill rises) or swapoff fails with ENOMEM, or both (7.3.4: the workload killed,
#      then swapoff's next charge fails: exit 1); which, on a VMINFO line.
# Needs CONFIG_MEMCG (kernel-7.3.fragment only): skipped where the kernel has no memory
# controller.
# vm-timeout: 240
. /vm/lib.sh
SQUEEZE=1 # the control's OOM kill of the workload: its trace is judged (squeeze_traces)
need_recompd

. /vm/adopt_lib.sh
MIB=96	   # the workload's pages
LIMIT=64   # MiB, the cgroup's memory.max: the rest of the pages go to the device
PRIO=7
CGROOT=/sys/fs/cgroup
CGNAME=adopt_memcg
CG=$CGROOT/$CGNAME

MOUNTED=
# after the device's swapoff and reset (adopt_lib's EXIT trap): the cgroup, then its mount
adopt_end_more() {
	[ ! -d "$CG" ] || rmdir "$CG" 2>/dev/null || note "cleanup: rmdir $CG failed"
	[ -z "$MOUNTED" ] || umount "$CGROOT" 2>/dev/null || note "cleanup: umount $CGROOT failed"
}

# cgroup v2 with its memory controller, mounted here when /init did not
if ! grep -q "^[^ ]* $CGROOT cgroup2 " /proc/mounts; then
	grep -qw cgroup2 /proc/filesystems || skip "no cgroup2 file system in this kernel"
	mount -t cgroup2 none "$CGROOT" || fail "mount -t cgroup2 at $CGROOT failed"
	MOUNTED=1
fi
grep -qw memory "$CGROOT/cgroup.controllers" ||
	skip "no memory controller in this kernel (CONFIG_MEMCG; only kernel-7.3.fragment has it)"
echo +memory >"$CGROOT/cgroup.subtree_control" || fail "cannot enable +memory below $CGROOT"
mkdir "$CG" || fail "mkdir $CG failed"
echo $((LIMIT << 20)) >"$CG/memory.max" || fail "cannot set $CG/memory.max"

cg() {
	cat "$CG/$1"
}
# events FIELD: a counter of the cgroup's memory.events (max, oom, oom_kill, ...)
events() {
	awk -v k="$1" '$1 == k { print $2 }' "$CG/memory.events"
}
mib_of() {
	echo $(($1 >> 20))
}
figures() {
	echo "memory.max $(mib_of "$(cg memory.max)") MiB, memory.current" \
		"$(mib_of "$(cg memory.current)") MiB, memory.swap.current" \
		"$(mib_of "$(cg memory.swap.current)") MiB, /proc/swaps used $(swap_used "$Z") KiB," \
		"MemAvailable $(avail_mib) MiB, memory.events max $(events max) oom $(events oom)" \
		"oom_kill $(events oom_kill)"
}

t0=$(now)
# the point is a direct plan MemAvailable allows: the pages and its margin (64 MiB) and more
avail=$(avail_mib)
[ "$avail" -gt $((MIB + 64 + 128)) ] || skip "only $avail MiB available"
zram_add
swap_setup memcglbl
# no other swap area: the device alone takes what the cgroup's reclaim swaps out
expect_eq "swap areas" "$(awk 'NR > 1 { print $1 }' /proc/swaps | tr '\n' ' ')" "/dev/$Z "

# the workload joins the cgroup before it allocates: the shell writes its own pid, then execs
W=$WORK/load.out
sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" run "$3" "$4" 10 600 1 65536 0 1' sh \
	"$CG" "$SWAPLOAD" "$DATA/pages.bin" "$MIB" >"$W" 2>&1 &
LPID=$!
wait_line "$W" "SWAPLOAD filled" 120 || fail "the workload did not fill its memory: $(cat "$W")"
grep -qx "$LPID" "$CG/cgroup.procs" || fail "the workload (pid $LPID) is not in $CG"
sleep 2
remember
used0=$(swap_used "$Z")
note "filled $MIB MiB in $(elapsed "$t0" "$(now)") s: $(figures)"
echo "VMINFO adopt_memcg filled: $(figures)"
[ "$used0" -gt $((16 << 10)) ] || fail "only $used0 KiB in swap: the cgroup did not swap"
expect_eq "oom_kill after the fill" "$(events oom_kill)" 0

# the header's UUID as adopt prints it
u=$(echo "$hdr0" | cut -c1-32 |
	sed 's/^\(........\)\(....\)\(....\)\(....\)\(............\)$/\1-\2-\3-\4-\5/')
PLAN_B="$Z: plan: through a temporary zram device; keeps primary lzo-rle, disksize 134217728 (128.0 MiB),"
PLAN_B="$PLAN_B mem_limit 0 (none), backing device none, swap priority $PRIO, the header's UUID $u"

# a. the dry run: the cgroup rules out the direct plan that MemAvailable alone allows
conf "$WORK/a.conf" "recompress-algorithms = zstd"
run_recompd "$WORK/dry.out" --config "$WORK/a.conf" adopt --dry-run "$Z"
expect_eq "adopt --dry-run exit code" "$RC" 0
cgline=$(grep "^$Z: memory cgroup " "$WORK/dry.out")
case $cgline in
"$Z: memory cgroup $CGNAME (the least room; swapoff charges it): needed "*": not safe") ;;
*) fail "no 'not safe' line of the cgroup $CGNAME: '$cgline'" ;;
esac
grep -q "^$Z: direct (swapoff first, pages uncompressed): .*: safe\$" "$WORK/dry.out" ||
	fail "MemAvailable alone does not allow the direct plan: the control is void"
expect_eq "plan line (dry run)" "$(grep "^$Z: plan: " "$WORK/dry.out")" "$PLAN_B"
expect_eq "swap after the dry run" "$(swap_line "$Z")" "$line0"
echo "VMINFO adopt_memcg dry run: ${cgline#"$Z: "}"

# b. adopt: the temporary device takes the pages; the cgroup's reclaim swaps out to it
t1=$(now)
run_recompd "$WORK/b.out" --config "$WORK/a.conf" adopt "$Z"
expect_eq "adopt exit code" "$RC" 0
expect_eq "plan line" "$(grep "^$Z: plan: " "$WORK/b.out")" "$PLAN_B"
grep -q "^$Z: hot-added zram[0-9]* as the temporary device" "$WORK/b.out" ||
	fail "no temporary device was hot-added"
grep -q "^$Z: adopted" "$WORK/b.out" || fail "no 'adopted' line"
held=$(sed -n 's/^zram[0-9]*: holds \([0-9]*\) pages (orig_data_size) after the swapoff.*/\1/p' "$WORK/b.out")
kill -0 "$LPID" 2>/dev/null || fail "the workload died during adopt: $(figures)"
expect_eq "oom_kill after adopt" "$(events oom_kill)" 0
expect_swap_again "adopt"
expect_eq "zram devices" "$(zram_list)" "$devs0"
expect_eq "recomp_algorithm" "$(secondaries "$Z")" "#1: [zstd] "
note "adopt in $(elapsed "$t1" "$(now)") s, the temporary device held ${held:-?} pages: $(figures)"
echo "VMINFO adopt_memcg after adopt (temporary device held ${held:-?} pages): $(figures)"

# every page of the workload, through the temporary device and back
verify_pages 150
expect_eq "oom_kill after the verification" "$(events oom_kill)" 0

# c. the control: swapoff from outside, the direct plan's first step, with the cgroup at its
# limit and its pages in swap
sleep 1
before=$(figures)
k0=$(events oom_kill)
[ "$(swap_used "$Z")" -gt $((8 << 10)) ] || fail "only $(swap_used "$Z") KiB in swap before the control"
err=$(swapoff "/dev/$Z" 2>&1)
src=$?
k1=$(events oom_kill)
alive=alive
kill -0 "$LPID" 2>/dev/null || alive=killed
note "control: swapoff /dev/$Z: exit $src${err:+ ($err)}, oom_kill $k0 -> $k1, workload $alive"
echo "VMINFO adopt_memcg control: before: $before; plain swapoff exit $src${err:+ ($err)}," \
	"oom_kill $k0 -> $k1, the workload $alive"
outcome=
[ "$k1" -le "$k0" ] || outcome="oom_kill $k0 -> $k1 (the workload $alive)"
if [ "$src" -ne 0 ] && echo "$err" | grep -qiE 'out of memory|cannot allocate'; then
	outcome="${outcome:+$outcome, }swapoff failed with ENOMEM"
fi
[ -n "$outcome" ] ||
	fail "the control did no harm: swapoff exit $src, oom_kill $k0 -> $k1; before: $before"
# the OOM killer's report of the control, its victim the workload, is the point of it
squeeze_traces "$LPID"
pass_note "temporary device with MemAvailable ample, oom_kill 0, $VERIFIED pages verified;" \
	"control: $outcome, $(elapsed "$t0" "$(now)") s"
