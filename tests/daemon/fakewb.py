#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A fake kernel's writeback for the daemon tier: bd_stat moves as the commands ask.

Usage: fakewb.py DEVDIR PRIVDIR CANDIDATES READY

DEVDIR is a fake zram device directory (tests/fakesys/lib.sh, wb=1) whose writeback,
writeback_limit and writeback_limit_enable stay regular files: the daemon's commands are
appended there and the tests read them back. DEVDIR/bd_stat is replaced by a FIFO. Every
time the daemon reads bd_stat, the commands appended since the last read are carried out the
way the kernel does (zram-abi.md §2.6): each writeback command writes CANDIDATES pages, or
fewer when writeback_limit_enable is 1 and writeback_limit (the last value written, less
what was written since) runs out; bd_stat's count and writes grow by that. READY is created
once bd_stat is a FIFO. The helper exits when DEVDIR disappears.

Why bd_stat is the FIFO: the daemon reads bd_stat right before and right after each
writeback write, and its commands are complete (regular files) when it opens bd_stat for
reading; so the figure it gets is exact, with no race against a helper watching files.
Each read gets its own FIFO, put at bd_stat by link + rename (as slowattr.py does for its
writes): a reader that opened the previous FIFO is the only one on it, gets one answer, and
end-of-file when the helper closes. A FIFO is checked for a reader with a non-blocking open
for writing (ENXIO: none yet), for a few rounds, since a reader whose path walk found it just
before the rename reaches the FIFO a moment later.
"""

import errno
import os
import sys
import time


def lines(path):
    try:
        with open(path, "rb") as f:
            return [l.strip() for l in f.read().split(b"\n") if l.strip()]
    except OSError:
        return []


def serve(path, privdir, ready, respond):
    """Make path a FIFO whose every reader gets respond() once; create ready, then loop
    until the directory of path disappears."""
    devdir = os.path.dirname(path)
    seq = 0

    def arm():
        nonlocal seq
        seq += 1
        priv = os.path.join(privdir, "fifo.%d" % seq)
        os.mkfifo(priv, 0o600)
        tmp = path + ".fake-tmp"
        try:
            os.link(priv, tmp)
            os.rename(tmp, path)
        except OSError:
            for p in (tmp, priv):
                try:
                    os.unlink(p)
                except OSError:
                    pass
            return None
        return priv

    def answer(priv):
        """True when a reader was on priv and got its answer."""
        try:
            fd = os.open(priv, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as e:
            if e.errno == errno.ENXIO:
                return False
            raise
        try:
            text = respond()
            os.set_blocking(fd, True)
            os.write(fd, text)
        except BrokenPipeError:
            pass
        finally:
            os.close(fd)
        return True

    cur = arm()
    if cur is None:
        sys.exit("%s: cannot replace %s" % (os.path.basename(sys.argv[0]), path))
    open(ready, "w").close()
    waiting = []  # [private path, rounds left]: FIFOs no path leads to any more
    while True:
        time.sleep(0.004)
        if not os.path.isdir(devdir):
            return
        nxt = arm()
        if nxt is None:
            return
        time.sleep(0.003)
        waiting.append([cur, 4])
        cur = nxt
        for w in waiting:
            if answer(w[0]):
                w[1] = 0
            else:
                w[1] -= 1
        for w in [w for w in waiting if w[1] <= 0]:
            os.unlink(w[0])
            waiting.remove(w)


def main():
    devdir, privdir, candidates, ready = sys.argv[1:5]
    candidates = int(candidates)
    st = {"cmds": 0, "limit_lines": 0, "limit": 0, "count": 0, "writes": 0}

    def respond():
        """The kernel's side of what the daemon wrote since the last bd_stat read."""
        lim = lines(os.path.join(devdir, "writeback_limit"))
        if len(lim) > st["limit_lines"]:
            st["limit"] = int(lim[-1])
            st["limit_lines"] = len(lim)
        en = lines(os.path.join(devdir, "writeback_limit_enable"))
        enabled = bool(en) and en[-1] == b"1"
        cmds = lines(os.path.join(devdir, "writeback"))
        for _ in cmds[st["cmds"]:]:
            n = candidates
            if enabled:
                n = min(n, st["limit"])
                st["limit"] -= n
            st["count"] += n
            st["writes"] += n
        st["cmds"] = len(cmds)
        return b"%8d %8d %8d\n" % (st["count"], 0, st["writes"])

    serve(os.path.join(devdir, "bd_stat"), privdir, ready, respond)


if __name__ == "__main__":
    main()
