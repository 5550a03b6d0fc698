#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# adopt_loop.sh with plan B: `zram-recompd adopt --via-temp` on a swap device whose backing
# device is a plain loop device set to autoclear; the same setup and assertions (there).
# vm-timeout: 300
ADOPT_LOOP_PLAN=temp
. /vm/scenarios/adopt_loop.sh
