#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A service manager's notification socket for the daemon tier: what sd_notify sends.

Usage: notifysock.py SOCKET LOG READY

Binds an AF_UNIX datagram socket at SOCKET (give it to the daemon as NOTIFY_SOCKET), appends
every message to LOG (each variable of it on its own line, as sd_notify sends "A=1\\nB=2"),
creates READY once bound, and exits when LOG's directory disappears or after an hour.
"""

import os
import socket
import sys
import time


def main():
    path, log, ready = sys.argv[1:4]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(path)
    s.settimeout(0.5)
    open(ready, "w").close()
    end = time.monotonic() + 3600
    while time.monotonic() < end and os.path.isdir(os.path.dirname(log) or "."):
        try:
            msg = s.recv(65536)
        except socket.timeout:
            continue
        with open(log, "a", encoding="utf-8", errors="replace") as f:
            f.write(msg.decode("utf-8", "replace").rstrip("\n") + "\n")


if __name__ == "__main__":
    main()
