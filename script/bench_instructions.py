#!/usr/bin/env python3
"""Instructions per intent of each part of the pipeline, counted by callgrind.

Wall time on a shared machine moves with the load; instruction counts do not (callgrind
counts the same total for the same binary and inputs whatever else runs). This builds the
throughput benchmark (release), runs it under `valgrind --tool=callgrind` once per part with
`--part NAME --iterations K` for two values of K, and prints the difference divided by the
difference in K: the instructions of one iteration, without the setup. Usage:
`make bench-instructions` (valgrind must be installed).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

LOW, HIGH = 20, 120
PARTS = [
    ("simulate", "simulate (revm; the policy's options, hashed intent)"),
    ("verify", "verify (hashed intent and report)"),
    ("sign", "sign (libsecp256k1, RFC 6979, the digest given)"),
    ("intent_hash", "hashing: intent content hash"),
    ("report_hash", "hashing: report content hash"),
    ("whole", "whole: simulate + verify + sign (evaluate)"),
    ("whole_distinct", "whole, each intent a different amount (no digest repeats)"),
    ("digest", "  EIP-712 digest of the PDR"),
    ("next_sequence", "  next sequence read (the account's storage)"),
    ("next_sequence_view", "  (the same through the nextSequence view call)"),
    ("bounds", "  outcome bounds"),
    ("intent_clone", "  intent clone"),
    ("options", "  simulate options for the policy"),
    ("none", "  the loop alone (the noise floor)"),
]


def bench_binary():
    out = subprocess.run(
        ["cargo", "bench", "--locked", "-p", "pace-pipeline", "--bench", "throughput",
         "--no-run", "--message-format=json"],
        check=True, stdout=subprocess.PIPE, text=True,
    ).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg.get("executable") \
                and msg["target"]["name"] == "throughput":
            return msg["executable"]
    sys.exit("bench-instructions: the throughput benchmark was not built")


def instructions(binary, part, iterations, tmp):
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.out",
         binary, "--part", part, "--iterations", str(iterations)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    if run.returncode != 0:
        sys.exit(f"bench-instructions: {part} failed under valgrind:\n{run.stderr[-2000:]}")
    found = re.search(r"Collected : (\d+)", run.stderr)
    if not found:
        sys.exit(f"bench-instructions: no instruction count for {part}:\n{run.stderr[-2000:]}")
    return int(found.group(1))


def main():
    if shutil.which("valgrind") is None:
        sys.exit("bench-instructions: valgrind is not installed (apt-get install valgrind)")
    binary = bench_binary()
    per = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, _ in PARTS:
            low = instructions(binary, name, LOW, tmp)
            high = instructions(binary, name, HIGH, tmp)
            per[name] = (high - low) / (HIGH - LOW)
    print(f"instructions per iteration (callgrind; {HIGH} - {LOW} iterations, setup excluded), "
          "ERC-20 transfer intent")
    for name, label in PARTS:
        print(f"{label:<56} {per[name]:>12,.0f}")
    part = per
    hashing = part["intent_hash"] + part["report_hash"]
    overhead = part["whole"] - (part["simulate"] + part["verify"] + part["sign"])
    print(f"{'hashing (intent + report, once each)':<56} {hashing:>12,.0f}")
    print(f"{'overhead = whole - (simulate + verify + sign)':<56} {overhead:>12,.0f}")
    print(f"{'overhead - hashing':<56} {overhead - hashing:>12,.0f}")
    named = part["digest"] + part["next_sequence"] + part["bounds"]
    print(f"{'overhead - hashing - (digest + next sequence + bounds)':<56} "
          f"{overhead - hashing - named:>12,.0f}")
    print(f"overhead: {100 * overhead / part['whole']:.1f} % of the whole; "
          f"overhead - hashing: {100 * (overhead - hashing) / part['whole']:.1f} %")


if __name__ == "__main__":
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    main()
