#!/usr/bin/env python3
"""slither in `make lint`: fails on any finding the committed triage does not accept.

Runs the pinned slither (script/requirements-proofs.txt) with slither.config.json, then holds
every finding against slither.triage.json:

- `excluded_detectors`: detectors switched off for the whole code base, each with its reason.
  They must be exactly slither.config.json's `detectors_to_exclude`: no suppression without one.
- `accepted`: single findings, each `{detector, in, reason}`, where `in` is `Contract.function`
  (the function the finding is in; a line number would go stale with every edit). The same
  detector firing in any other function is new.

Exit 1 on a new finding or on a slither failure; stale `accepted` entries (which no longer fire)
are reported so the triage can shrink. slither builds with forge into .slither/ (FOUNDRY_OUT /
FOUNDRY_CACHE_PATH), so its `forge clean` never touches the out/ and cache/ of `forge test`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "slither.config.json"
TRIAGE = ROOT / "slither.triage.json"


def where(result: dict) -> str:
    """`Contract.function` of a finding: its first element, or the function that holds it."""
    for element in result.get("elements", []):
        node = element
        while node:
            if node.get("type") == "function":
                parent = node.get("type_specific_fields", {}).get("parent", {})
                return f"{parent.get('name', '?')}.{node.get('name')}"
            node = node.get("type_specific_fields", {}).get("parent")
    for element in result.get("elements", []):
        if element.get("type") == "contract":
            return element.get("name", "?")
    return "?"


def run_slither() -> list[dict]:
    env = dict(os.environ)
    env["FOUNDRY_OUT"] = ".slither/out"
    env["FOUNDRY_CACHE_PATH"] = ".slither/cache"
    (ROOT / ".slither").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "slither.json"
        cmd = ["slither", ".", "--config-file", str(CONFIG), "--json", str(report)]
        r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        (ROOT / ".slither" / "slither.log").write_text(r.stdout + r.stderr)
        try:
            out = json.loads(report.read_text())
        except (OSError, ValueError):
            sys.stdout.write(r.stdout + r.stderr)
            sys.exit("slither: no report (see .slither/slither.log)")
    if not out.get("success"):
        sys.exit(f"slither: failed: {out.get('error')}")
    return out.get("results", {}).get("detectors", [])


def main() -> int:
    config = json.loads(CONFIG.read_text())
    triage = json.loads(TRIAGE.read_text())

    excluded = {d for d in (config.get("detectors_to_exclude") or "").split(",") if d}
    reasoned = set(triage.get("excluded_detectors", {}))
    if excluded != reasoned:
        print("slither: slither.config.json's detectors_to_exclude and slither.triage.json's "
              "excluded_detectors differ:")
        for d in sorted(excluded - reasoned):
            print(f"  excluded without a reason: {d}")
        for d in sorted(reasoned - excluded):
            print(f"  reason for a detector that is not excluded: {d}")
        return 1

    accepted = {(a["detector"], a["in"]): a["reason"] for a in triage.get("accepted", [])}
    seen: set[tuple[str, str]] = set()
    new = []
    for result in run_slither():
        key = (result["check"], where(result))
        if key in accepted:
            seen.add(key)
        else:
            new.append((key, result))

    for (detector, fn) in sorted(set(accepted) - seen):
        print(f"slither: stale triage entry (no longer fires): {detector} in {fn}")
    if new:
        print(f"slither: {len(new)} finding(s) not in slither.triage.json:")
        for (detector, fn), result in new:
            print(f"\n[{result['impact']}/{result['confidence']}] {detector} in {fn}")
            print("  " + result["description"].strip().replace("\n", "\n  "))
        print("\nFix them, or accept each in slither.triage.json with its reason.")
        return 1
    print(f"slither: {len(seen)} accepted finding(s), {len(excluded)} detector(s) excluded "
          f"(slither.triage.json), nothing new")
    return 0


if __name__ == "__main__":
    sys.exit(main())
