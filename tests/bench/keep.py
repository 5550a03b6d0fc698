#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# make bench with BENCH_KEEP=1 (run.sh): the "key value" lines of a results file (latest.json)
# that a run of only some scenarios leaves as they were: every key except the targets (derived
# again), the top-level meta (the new run's) and the keys of the scenarios run now, on any
# kernel ("swap.", "vm.swap.", "k7_3.swap.", "k7_3.vm.swap."). meta.kept.* say where the kept
# keys come from. Numbers keep their text.
# Usage: keep.py RESULTS.json "SCENARIO ..."
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


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: keep.py RESULTS.json 'SCENARIO ...'")
    with open(sys.argv[1], encoding="utf-8") as f:
        data = json.load(f, parse_float=str, parse_int=str)
    scen = set(sys.argv[2].split())
    pairs = []
    flat("", data, pairs)
    meta = data.get("meta", {})
    kept = []
    for key, val in pairs:
        parts = key.split(".")
        if re.fullmatch(r"k[0-9_]+", parts[0]):
            parts = parts[1:]
        if not parts or key.startswith("targets.") or key.startswith("meta."):
            continue
        if parts[0] in scen or (parts[0] == "vm" and len(parts) > 1 and parts[1] in scen):
            continue
        if "\n" in val:
            continue
        kept.append((key, val))
    print("meta.kept.git_commit", meta.get("git_commit", "unknown"))
    print("meta.kept.date", meta.get("date", "unknown"))
    print("meta.kept.kernel_prefixes", meta.get("kernel_prefixes", ""))
    for key, val in kept:
        print(key, val)


main()
