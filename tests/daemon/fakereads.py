#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A fake device's reads for the daemon tier: stat counts RATE pages read a second.

Usage: fakereads.py DEVDIR PRIVDIR RATE READY [LOG UNTIL]

DEVDIR/stat is replaced by a FIFO (fakewb.serve, which says why a FIFO). Every read gets
the pages read since the helper started at RATE a second (field 1, read I/Os, one page
each; field 3, sectors of 512 bytes), computed from the clock when the daemon reads, so
that neither a loaded host nor a writer's loop makes the daemon see fewer. With LOG and
UNTIL, the count stops growing once LOG holds the text UNTIL: a thread looks every 10 ms,
and the count stays what it was when the thread saw it. READY is created once stat is a
FIFO. The helper exits when DEVDIR disappears.
"""

import os
import sys
import threading
import time

from fakewb import serve


def watch(log, until, st):
    """Set st["stop"] to the clock when log first holds until."""
    want = until.encode()
    while st["stop"] is None:
        try:
            with open(log, "rb") as f:
                if want in f.read():
                    st["stop"] = time.monotonic()
                    return
        except OSError:
            pass
        time.sleep(0.01)


def main():
    devdir, privdir, rate, ready = sys.argv[1:5]
    rate = int(rate)
    st = {"t0": time.monotonic(), "stop": None}
    if len(sys.argv) > 6:
        threading.Thread(target=watch, args=(sys.argv[5], sys.argv[6], st),
                         daemon=True).start()

    def respond():
        now = time.monotonic() if st["stop"] is None else st["stop"]
        pages = int((now - st["t0"]) * rate)
        v = [pages, 0, pages * 8, 0, 0, 0, 0, 0, 0, 0, 0]
        return (" ".join("%8d" % x for x in v) + "\n").encode()

    serve(os.path.join(devdir, "stat"), privdir, ready, respond)


if __name__ == "__main__":
    main()
