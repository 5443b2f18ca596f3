#!/usr/bin/env python3
"""Code size of every deployable contract under contracts/ (`make size-check`, also run by
`make test-sol`).

Builds contracts/ with forge (foundry.toml's settings: the bytecode that is deployed), then reads
each artifact `out/<File>.sol/<Name>.json` whose compilation target is a `contract` under
contracts/ (mocks, interfaces, libraries and abstract contracts left out): its runtime code
(`deployedBytecode`) against EIP-170's 24,576 bytes and its initcode (`bytecode`, constructor
arguments not included) against EIP-3860's 49,152. Prints one row per contract with both sizes
and both margins; exits 1 when any contract is above either limit. `--no-build` reads the
artifacts as they are.
"""

import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FORGE = ROOT / "node_modules" / ".bin" / "forge"
OUT = ROOT / "out"
RUNTIME_LIMIT = 24_576  # EIP-170
INITCODE_LIMIT = 49_152  # EIP-3860
EXCLUDED = ("contracts/mocks/",)


def concrete_contracts(source: pathlib.Path) -> set[str]:
    """The names `source` declares as `contract` (not abstract, not a library or interface)."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", "", source.read_text(), flags=re.S)
    return set(re.findall(r"(?m)^\s*contract\s+(\w+)", text))


def code_size(obj: dict) -> int:
    code = obj.get("object", "")
    return len(code.removeprefix("0x")) // 2


def rows() -> list[tuple[str, int, int]]:
    found = []
    for artifact in sorted(OUT.glob("*.sol/*.json")):
        data = json.loads(artifact.read_text())
        target = data.get("metadata", {}).get("settings", {}).get("compilationTarget", {})
        for source, name in target.items():
            if not source.startswith("contracts/") or source.startswith(EXCLUDED):
                continue
            path = ROOT / source
            if not path.exists() or name not in concrete_contracts(path):
                continue
            found.append((name, code_size(data["deployedBytecode"]), code_size(data["bytecode"])))
    return found


def main() -> int:
    if "--no-build" not in sys.argv[1:]:
        r = subprocess.run([str(FORGE), "build", "contracts"], cwd=ROOT, capture_output=True,
                           text=True)
        if r.returncode != 0:
            sys.stdout.write(r.stdout + r.stderr)
            print("size-check: forge build failed")
            return 1
    table = rows()
    if not table:
        print("size-check: no artifact of a contract under contracts/ in out/")
        return 1
    print(f"{'contract':<24} {'runtime':>8} {'EIP-170 margin':>15} {'initcode':>9} "
          f"{'EIP-3860 margin':>16}")
    over = []
    for name, runtime, init in table:
        print(f"{name:<24} {runtime:>8,} {RUNTIME_LIMIT - runtime:>15,} {init:>9,} "
              f"{INITCODE_LIMIT - init:>16,}")
        if runtime > RUNTIME_LIMIT or init > INITCODE_LIMIT:
            over.append(name)
    if over:
        print(f"size-check: above EIP-170 or EIP-3860: {', '.join(over)}")
        return 1
    least = min(RUNTIME_LIMIT - runtime for _, runtime, _ in table)
    print(f"size-check: {len(table)} contracts within EIP-170 and EIP-3860 "
          f"(least runtime margin {least:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
