#!/usr/bin/env python3
"""Storage layouts of the accounts against their committed snapshots (`make layout-check`).

`tests/layouts/AccountLayouts.sol` declares each account's state as plain storage;
`forge inspect <contract> storageLayout --json` places every member. The flattened layout
(member path, slot, byte offset, type; compiler ids dropped) must equal
`tests/layouts/<contract>.json`. The Rust side reads the lanes straight from these slots
(`pace_pipeline::AccountKind`), so a layout change must change both, deliberately:
`python3 script/layout_check.py --write` rewrites the snapshots.
"""

import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FORGE = ROOT / "node_modules" / ".bin" / "forge"
CONTRACTS = ["PaceAccountLayout", "PaceDelegateLayout"]


def flatten(types, type_id, base, prefix):
    """Every member of struct `type_id` laid out from slot `base`, nested structs included."""
    rows = []
    for member in types[type_id].get("members", []):
        slot = base + int(member["slot"])
        path = f"{prefix}.{member['label']}" if prefix else member["label"]
        rows.append({"member": path, "slot": slot, "offset": member["offset"],
                     "type": types[member["type"]]["label"]})
        if types[member["type"]].get("members"):
            rows += flatten(types, member["type"], slot, path)
    return rows


def layout(contract):
    out = subprocess.run([str(FORGE), "inspect", contract, "storageLayout", "--json"],
                         cwd=ROOT, check=True, capture_output=True, text=True).stdout
    # forge prints its compiler progress first when the build is not up to date.
    data = json.loads(out[out.index("{"):])
    rows = []
    for var in data["storage"]:
        rows.append({"member": var["label"], "slot": int(var["slot"]), "offset": var["offset"],
                     "type": data["types"][var["type"]]["label"]})
        rows += flatten(data["types"], var["type"], int(var["slot"]), var["label"])
    return rows


def main():
    write = "--write" in sys.argv[1:]
    failed = False
    for contract in CONTRACTS:
        path = ROOT / "tests" / "layouts" / f"{contract}.json"
        current = layout(contract)
        if write:
            path.write_text(json.dumps(current, indent=2) + "\n")
            print(f"layout-check: wrote {path.relative_to(ROOT)}")
            continue
        committed = json.loads(path.read_text())
        if current != committed:
            failed = True
            print(f"layout-check: {contract} differs from {path.relative_to(ROOT)}:")
            for row in current:
                if row not in committed:
                    print(f"  now   {row}")
            for row in committed:
                if row not in current:
                    print(f"  was   {row}")
        else:
            print(f"layout-check: {contract} matches ({len(current)} members)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
