# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Helpers of the daemon tier (sourced by run.sh after tests/fakesys/lib.sh). A test runs in
# its own subshell with $T (its directory) and $R (its fake root) set; every process it starts
# is listed in $T/pids so that the cleanup can end exactly those, by pid.
#
# A daemon instance NAME (default "d") keeps its files in $T: NAME.err (stderr), NAME.pid,
# NAME.rc (exit code, written when it ends), NAME.state/ (ZRAM_RECOMPD_STATE_DIR).

# die REASON: ends the test as failed; the reason goes to fd 3.
die() {
	printf '%s\n' "$*" >&3
	exit 1
}

# now_ms: sets NOW to the wall clock in milliseconds (no fork).
now_ms() {
	NOW=${EPOCHREALTIME/./}
	NOW=$((NOW / 1000))
}

# sleep_ms MS: sleep that many milliseconds (0 or less: not at all).
sleep_ms() {
	[ "$1" -gt 0 ] || return 0
	sleep "$(($1 / 1000)).$(printf '%03d' $(($1 % 1000)))"
}

# A file's lines as one line for messages: newlines as '|', the last 400 characters.
oneline() {
	if [ -e "$1" ]; then
		tr '\n' '|' <"$1" | tail -c 400
	else
		printf '(no %s)' "${1##*/}"
	fi
}

# count FILE REGEX: number of lines of FILE matching REGEX (0 when FILE is missing).
count() {
	local n
	n=$(grep -cE -- "$2" "$1" 2>/dev/null) || true
	printf '%s\n' "${n:-0}"
}

# wait_for MS CMD...: poll CMD every 20 ms until it succeeds; 1 after MS milliseconds (times
# $SLOW for the sanitizer build).
wait_for() {
	local end
	now_ms
	end=$((NOW + $1 * SLOW))
	shift
	until "$@"; do
		now_ms
		[ "$NOW" -lt "$end" ] || return 1
		sleep 0.02
	done
}

# at_least N FILE REGEX: at least N lines of FILE match (for wait_for).
at_least() {
	[ "$(count "$2" "$3")" -ge "$1" ]
}

# attr ID NAME: path of a device attribute in this test's root.
attr() {
	fr_attr "$R" "$1" "$2"
}

# rm_dev ID: hot-remove device ID from this test's root (refuses any root outside $T).
rm_dev() {
	case ${T:-} in "" | /) die "rm_dev: no test directory" ;; esac
	case $R in "$T"/?*) ;; *) die "rm_dev: $R is not inside $T" ;; esac
	rm -rf "$R/sys/block/zram$1" "$R/sys/devices/virtual/block/zram$1"
}

# put FILE TEXT: replace FILE atomically (the daemon never reads half a file).
put() {
	printf '%s' "$2" >"$1.tmp.$$" && mv -f "$1.tmp.$$" "$1"
}

# put_mm ID F1..F9: new mm_stat of device ID, atomically.
put_mm() {
	local f
	f=$(attr "$1" mm_stat)
	shift
	put "$f" "$(printf '%8s %8s %8s %8s %8s %8s %8s %8s %8s' "$@")
"
}

# conf_to FILE LINE...: a configuration file, replaced atomically so that a SIGHUP never reads
# half of it. conf LINE...: the same for $T/conf.
conf_to() {
	local f=$1
	shift
	put "$f" "$(printf '%s\n' "$@")
"
}
conf() {
	conf_to "$T/conf" "$@"
}

# The keys every test starts from: a pass every second, idle marks "all", no backoff, no
# CPU-share gate (FIFO-slowed writes would count as CPU time). Line numbers matter to
# sighup_reload: these are lines 1-5.
# shellcheck disable=SC2034 # used by run.sh
BASE_CONF=("[global]" "interval-sec = 1" "idle-age-max-sec = 0" "backoff-max-sec = 0"
	"cpu-share-max-percent = 0")

# dstart [-n NAME] [-r ROOT] [-c CONF] [-s VAR] [-a ARG]...: start the daemon in the background
# (-c -: no --config, the search path under $ZRAM_RECOMPD_CONFIG_ROOT; -a: one more argument
# for it, e.g. --no-sandbox). The state
# directory NAME.state/ is passed in $ZRAM_RECOMPD_STATE_DIR, or with -s STATE_DIRECTORY as
# systemd's StateDirectory= does ("NAME.state:NAME.state2", the first one counts).
dstart() {
	local name=d root=$R cf=$T/conf svar=ZRAM_RECOMPD_STATE_DIR sval extra=()
	while [ $# -gt 0 ]; do
		case $1 in
		-n) name=$2 ;;
		-r) root=$2 ;;
		-c) cf=$2 ;;
		-s) svar=$2 ;;
		-a) extra+=("$2") ;;
		esac
		shift 2
	done
	local cfarg=(--config "$cf")
	[ "$cf" = - ] && cfarg=()
	rm -f "$T/$name.rc" "$T/$name.pid"
	mkdir -p "$T/$name.state"
	sval=$T/$name.state
	[ "$svar" = STATE_DIRECTORY ] && sval=$sval:$T/$name.state2
	# The inner subshell writes its pid and execs the daemon (same pid); the outer one
	# records the exit code.
	(
		(
			echo "$BASHPID" >"$T/$name.pid"
			export "$svar=$sval"
			exec "$BIN" --sysroot "$root" "${cfarg[@]}" "${extra[@]}" </dev/null >"$T/$name.out" \
				2>"$T/$name.err"
		)
		echo $? >"$T/$name.rc.tmp" && mv "$T/$name.rc.tmp" "$T/$name.rc"
	) &
	wait_for 5000 test -s "$T/$name.pid" || die "daemon $name did not start"
	cat "$T/$name.pid" >>"$T/pids"
}

# dpid [NAME]: the daemon's pid.
dpid() {
	cat "$T/${1:-d}.pid"
}

# dalive [NAME]: the daemon is still running.
dalive() {
	[ ! -e "$T/${1:-d}.rc" ] && kill -0 "$(dpid "${1:-d}")" 2>/dev/null
}

# dsig SIGNAL [NAME]
dsig() {
	dalive "${2:-d}" || die "daemon ${2:-d} is not running (exit code $(cat "$T/${2:-d}.rc" \
		2>/dev/null)); stderr: $(oneline "$T/${2:-d}.err")"
	kill "-$1" "$(dpid "${2:-d}")"
}

# dwait MS [NAME]: wait for the daemon to end; sets DRC. 1 on timeout.
dwait() {
	local name=${2:-d}
	wait_for "$1" test -s "$T/$name.rc" || return 1
	DRC=$(cat "$T/$name.rc")
}

# dstop [NAME]: SIGTERM, then the exit code must be 0 within 5 s.
dstop() {
	local name=${1:-d}
	dsig TERM "$name"
	dwait 5000 "$name" || die "daemon $name still running 5 s after SIGTERM"
	[ "$DRC" = 0 ] ||
		die "daemon $name exited $DRC after SIGTERM; stderr: $(oneline "$T/$name.err")"
}

# blocked_in_fifo [NAME]: true when a thread of the daemon waits in a FIFO open (the slow
# attribute holding its write). Where the kernel hides wchan ("0"), true after 0.5 s instead.
blocked_in_fifo() {
	local w any=
	for w in /proc/"$(dpid "${1:-d}")"/task/*/wchan; do
		w=$(cat "$w" 2>/dev/null) || continue
		[ "$w" = wait_for_partner ] && return 0
		[ "$w" = 0 ] || any=1
	done
	[ -z "$any" ] && sleep 0.5
	[ -z "$any" ]
}

# slow_attr ID ATTR DELAY [GATE [all]]: make the attribute a slow FIFO (tests/daemon/slowattr.py);
# the commands land in $T/slow.ID.ATTR ("<us> <command>" lines). With GATE, writes after the
# first stay blocked until the file GATE exists; with "all", the first one too.
slow_attr() {
	local id=$1 a=$2 delay=$3 priv=$T/fifo.$1.$2
	mkdir -p "$priv"
	python3 "$HERE/slowattr.py" "$(attr "$id" "$a")" "$priv" "$T/slow.$id.$a" "$delay" \
		"$priv/ready" ${4:+"$4"} ${5:+"$5"} 2>>"$T/slowattr.err" &
	echo $! >>"$T/pids"
	# generous: a pyenv shim plus interpreter start-up on a loaded 2-core machine
	wait_for 20000 test -e "$priv/ready" ||
		die "slowattr.py did not start: $(oneline "$T/slowattr.err")"
}

# slow_cmds ID ATTR: the commands the slow attribute received, one per line.
slow_cmds() {
	[ -e "$T/slow.$1.$2" ] || return 0
	cut -d' ' -f2- "$T/slow.$1.$2"
}

# state_field DEV KEY [NAME]: a value from the daemon's state file ("" when absent).
state_field() {
	local f=$T/${3:-d}.state/state
	[ -e "$f" ] || return 0
	awk -v dev="$1" -v key="$2" '$1 == dev {
		for (i = 2; i <= NF; i++)
			if (index($i, key "=") == 1)
				print substr($i, length(key) + 2)
	}' "$f" | head -n 1
}

# state_valid [NAME]: the state file is in format version 2.
STATE_LINE='^zram[0-9]+ passes=[0-9]+ pages_attempted=[0-9]+ bytes_saved=[0-9]+ mem_freed=[0-9]+'
STATE_LINE+=' incompressible=[0-9]+ kernel_ns=[0-9]+ errors=[0-9]+ last_pass_unix=[0-9]+'
STATE_LINE+=' wb_pages=[0-9]+ wb_day_left=[0-9]+ wb_day_at=[0-9]+$'
state_valid() {
	local f=$T/${1:-d}.state/state
	[ -e "$f" ] && [ "$(head -n 1 "$f")" = "zram-recompd-state 2" ] &&
		[ "$(sed 1d "$f" | grep -cvE "$STATE_LINE")" = 0 ]
}

# passes_logged DEV [NAME]: passes the daemon reported finished ("zramN: pass: ..." or
# "zramN: pass (interrupted): ...").
passes_logged() {
	count "$T/${2:-d}.err" "^zram-recompd: $1: pass( \(interrupted\))?:"
}

# running_daemons: pids of this test's daemons that have not ended. A daemon whose NAME.rc
# exists was reaped, and its pid may already belong to a process of another test running in
# parallel (seen under ThreadSanitizer: a finished test's cleanup stopped another's daemon).
running_daemons() {
	local f
	for f in "$T"/*.pid; do
		[ -e "$f" ] && [ ! -e "${f%.pid}.rc" ] && cat "$f"
	done
}

# ended_daemons DIR: pids of the daemons of test directory DIR that ended.
ended_daemons() {
	local f
	for f in "$1"/*.pid; do
		[ -e "$f" ] && [ -e "${f%.pid}.rc" ] && cat "$f"
	done
}

# test_cleanup: end this test's processes by pid: the daemons still running first, with SIGTERM
# (a helper may still have to release a write a daemon is blocked in), then whatever is left,
# with SIGKILL; never the pid of a daemon that ended (see running_daemons).
test_cleanup() {
	local p i left ended
	[ -e "$T/pids" ] || return 0
	running_daemons | while read -r p; do
		kill -TERM "$p" 2>/dev/null
	done
	for ((i = 0; i < 100; i++)); do
		left=0
		while read -r p; do
			kill -0 "$p" 2>/dev/null && left=1
		done < <(running_daemons)
		[ "$left" = 0 ] && break
		sleep 0.03
	done
	ended=" $(ended_daemons "$T" | tr '\n' ' ') "
	while read -r p; do
		case $ended in *" $p "*) continue ;; esac
		kill -KILL "$p" 2>/dev/null
	done <"$T/pids"
	wait 2>/dev/null
}
