#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A fake kernel's recompression for the daemon tier: mm_stat moves as the commands ask.

Usage: fakerecomp.py DEVDIR PRIVDIR SAVE READY

DEVDIR is a fake zram device directory (tests/fakesys/lib.sh) whose recompress stays a
regular file: the daemon's commands are appended there. DEVDIR/mm_stat is replaced by a
FIFO (fakewb.serve, which says why a FIFO). At every read, each recompress command appended
since the last read has saved SAVE bytes of compr_data_size and of mem_used_total; the
other figures stay what mm_stat held when the helper started. READY is created once mm_stat
is a FIFO. The helper exits when DEVDIR disappears.
"""

import os
import sys

from fakewb import lines, serve


def main():
    devdir, privdir, save, ready = sys.argv[1:5]
    save = int(save)
    with open(os.path.join(devdir, "mm_stat"), "rb") as f:
        v = [int(x) for x in f.read().split()]
    st = {"cmds": 0}

    def respond():
        cmds = lines(os.path.join(devdir, "recompress"))
        for _ in cmds[st["cmds"]:]:
            v[1] = max(0, v[1] - save)
            v[2] = max(0, v[2] - save)
        st["cmds"] = len(cmds)
        return (" ".join("%8d" % x for x in v) + "\n").encode()

    serve(os.path.join(devdir, "mm_stat"), privdir, ready, respond)


if __name__ == "__main__":
    main()
