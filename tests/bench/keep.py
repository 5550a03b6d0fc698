#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# make bench with BENCH_KEEP=1 (run.sh): the "key value" lines of a results file (latest.json)
# that a run of only some scenarios or kernels leaves as they were: every key except the
# targets and measurements (derived again), the run-wide top-level meta (the new run's) and
# the keys of the scenarios each kernel runs now. A word "SCENARIO" names the unprefixed
# kernel's ("swap.", "vm.swap."), "kPREFIX.SCENARIO" another kernel's ("k7_3.swap.",
# "k7_3.vm.swap."); other kernels' keys of that scenario are kept. Kept as well: the
# unprefixed kernel's own meta (meta.kernel, meta.arch, ...) and every group under meta but
# meta.kept (meta.burst_run). meta.kept.* say where the kept keys come from: the results
# file's run (an older meta.kept naming another run moves to meta.kept.earlier). Numbers
# keep their text.
# Usage: keep.py RESULTS.json "[kPREFIX.]SCENARIO ..."
import json
import re
import sys


def flat(prefix, obj, out):
    for k, v in obj.items():
        key = prefix + k
        if isinstance(v, dict):
            flat(key + ".", v, out)
        elif v is None:
            out.append((key, "null"))
        elif isinstance(v, bool):
            out.append((key, "true" if v else "false"))
        else:
            out.append((key, str(v)))


# The unprefixed kernel's meta (run.sh, run_vm), kept while a run does not replace it.
KERNEL_META = {"kernel", "arch", "page_size", "host_load_1min_after_vm", "burst_vm_cpus"}


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: keep.py RESULTS.json '[kPREFIX.]SCENARIO ...'")
    with open(sys.argv[1], encoding="utf-8") as f:
        data = json.load(f, parse_float=str, parse_int=str)
    ran = set()
    for word in sys.argv[2].split():
        pre, _, scen = word.rpartition(".")
        ran.add((pre, scen))
    pairs = []
    flat("", data, pairs)
    meta = data.get("meta", {})
    kept = []
    for key, val in pairs:
        parts = key.split(".")
        pre = ""
        if re.fullmatch(r"k[0-9][0-9a-z_]*", parts[0]):
            pre = parts[0]
            parts = parts[1:]
        if not parts or key.startswith(("targets.", "measurements.")):
            continue
        if key.startswith("meta."):
            if parts[1] == "kept":
                continue
            if len(parts) == 2 and parts[1] not in KERNEL_META:
                continue
        elif (pre, parts[0]) in ran or (
            parts[0] == "vm" and len(parts) > 1 and (pre, parts[1]) in ran
        ):
            continue
        if "\n" in val:
            continue
        kept.append((key, val))
    print("meta.kept.git_commit", meta.get("git_commit", "unknown"))
    print("meta.kept.date", meta.get("date", "unknown"))
    print("meta.kept.kernel_prefixes", meta.get("kernel_prefixes", ""))
    old = meta.get("kept", {})
    if isinstance(old, dict) and old.get("git_commit") not in (None, meta.get("git_commit")):
        for k, v in old.items():
            if not isinstance(v, dict):
                print("meta.kept.earlier." + k, v)
    for key, val in kept:
        print(key, val)


main()
