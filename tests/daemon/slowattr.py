#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A write-only zram attribute whose writes take DELAY seconds, like a real recompress batch.

Usage: slowattr.py ATTR PRIVDIR LOG DELAY READY [GATE [all]]

ATTR (e.g. ROOT/sys/devices/virtual/block/zram0/recompress) is replaced by a FIFO. Every
command the daemon writes is appended to LOG as "<unix time in us> <command>", the time being
when the write completed. READY is created once ATTR is a FIFO. The helper exits when ATTR's
directory disappears (device hot-removed), after releasing a write that was blocked then.
With GATE, only the first command is released on time: every later one stays blocked until the
file GATE exists, so that a test can signal the daemon while a write is certainly in progress
(a fixed DELAY raced a loaded host's scheduling: the signal could land after the next write).
With "all", the first command waits for GATE too: DELAY counts from the helper's start, not
from the daemon's open(), so a daemon slow to reach the write (ASan, a loaded host) found it
released at once, and a test that kills the daemon "during" the write found the pass over.

Why Python and why the FIFO is swapped each round (a shell loop reopening one FIFO is racy):
the daemon writes each command with its own open()+write()+close(), and the open of a FIFO
blocks until a reader opens it; that is the delay. A reader that reopens one FIFO must close it
between commands, and the daemon's next open can land between the reader's end-of-file and its
close: that command is lost, or the daemon's write() gets EPIPE/SIGPIPE (the daemon does not
ignore SIGPIPE, because sysfs never raises it). Here each round puts a fresh FIFO at ATTR first
(hard link from PRIVDIR + rename, atomic), then opens the previous one through its private name,
non-blocking: a writer blocked in open() is released, and since no path leads to the old FIFO
any more, end-of-file on it is final. A non-blocking open also tells "no writer" (read() returns
0 at once) from "a writer is attached" (EAGAIN), so a round without a writer never hangs.
"""

import os
import select
import sys
import time


def main():
    attr, privdir, log, delay, ready = sys.argv[1:6]
    gate = sys.argv[6] if len(sys.argv) > 6 else None
    hold_all = len(sys.argv) > 7 and sys.argv[7] == "all"
    released = 0
    delay = float(delay)
    seq = 0

    def arm():
        """Put a fresh FIFO at attr; its private path, or None when the device is gone."""
        nonlocal seq
        seq += 1
        priv = os.path.join(privdir, "fifo.%d" % seq)
        os.mkfifo(priv, 0o600)
        tmp = attr + ".slowattr-tmp"
        try:
            os.link(priv, tmp)
            os.rename(tmp, attr)
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            os.unlink(priv)
            return None
        return priv

    def drain(priv):
        """Commands of the writers attached to priv (none: b"")."""
        fd = os.open(priv, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        data = b""
        try:
            while True:
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    # A writer is attached but has not written yet. read() decides
                    # when it is gone: POLLHUP is not reported to a reader that opened
                    # after the writer (pipe_poll compares the writer counter seen at open).
                    select.select([fd], [], [], 0.01)
                    continue
                if not chunk:
                    return data
                data += chunk
        finally:
            os.close(fd)

    def record(data):
        nonlocal released
        if not data:
            return
        released += 1
        stamp = int(time.time() * 1000000)
        with open(log, "ab") as f:
            for line in data.split(b"\n"):
                if line:
                    f.write(b"%d %s\n" % (stamp, line))

    cur = arm()
    if cur is None:
        sys.exit("slowattr: cannot replace %s" % attr)
    open(ready, "w").close()
    old = []  # FIFOs already drained, checked again for a writer that raced the rename
    while True:
        time.sleep(delay)
        while gate and (released or hold_all) and not os.path.exists(gate):
            if not os.path.isdir(os.path.dirname(attr)):
                break
            time.sleep(0.01)
        nxt = arm()
        # A writer whose path walk found cur just before the rename reaches fifo_open()
        # within microseconds; give it that time before looking for writers on cur.
        time.sleep(0.005)
        record(drain(cur))
        for p in old:
            record(drain(p))
        old.append(cur)
        if len(old) > 3:
            os.unlink(old.pop(0))
        if nxt is None:
            return
        cur = nxt


if __name__ == "__main__":
    main()
