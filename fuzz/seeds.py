#!/usr/bin/env python3
"""Regenerates the committed seed corpus under fuzz/corpus/ from examples/*.json.

- load_intent / load_policy / load_report: the example documents, verbatim.
- decode_call: `[target index 0][value selector 0]` + the calldata of every call in the examples.
- simulate: `[flags]` + the examples' calls re-addressed to the embedded world (mainnet USDC
  becomes the world's DAI, which has a Uniswap V2 pair with WETH), plus a few world-native calls
  (WETH deposit/withdraw, a DAI transfer to the payee, an approval, swaps that succeed, the
  lending pool). See simulate.rs for the record format.
- verify: no seeds; its input is structured (`arbitrary`) and libFuzzer starts from nothing.

Run from the repository root: `python3 fuzz/seeds.py`.
"""
import glob
import json
import os
import shutil

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")

# The embedded world's addresses (`pace world`), deterministic.
WORLD = {
    "router": "d85a89ba51a50e2b22593f07f172f8b7ea1b5af4",
    "weth": "ce10784a1c769f37d0f84bb03a4c428dc47c36f4",
    "dai": "c4eb5196cfb94e8b7d6120fe87647084664fe826",
    "usdc": "971bffdb80cce4f448b9eb1a394bce180da91faf",
    "pair_weth_dai": "f73b92c9189bca57105f7c0df4e885684a4ccf35",
    "account": "cf762b88cd6ab208283c12ca4baf66764d1300db",
    "attacker": "0e03491fd4f0f5ecac8346abf7879a0853e655e9",
    "payee": "7efdfcb6f9191d0bf2aaf2944b650a5bdca7130a",
    "lending_pool": "e6dedef9207336156282747d31221d3be221606d",
}
# Indices into simulate.rs's target list.
TARGET = {"router": 0, "weth": 1, "dai": 2, "usdc": 3, "lending_pool": 13, "payee": 15}
MAINNET = {
    "7a250d5630b4cf539739df2c5dacb4c659f2488d": "router",
    "a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48": "dai",
    "c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2": "weth",
    "b4e16d0168e52d35cacd2c6185b44281ec28c9dc": "pair_weth_dai",
    "9f9bdd8a96fb9aa78f72e4f491a61fae724b5a45": "account",
    "8b8410386e1c9a9cb3da24cc0c24950ccee3c05c": "attacker",
}


def word(x):
    return x.to_bytes(32, "big")


def addr(name):
    return bytes(12) + bytes.fromhex(WORLD[name])


def sel(hexsel):
    return bytes.fromhex(hexsel)


def swap_exact_in(amount_in, min_out, path, to, deadline=1_800_000_000):
    return (sel("38ed1739") + word(amount_in) + word(min_out) + word(0xA0) + addr(to)
            + word(deadline) + word(len(path)) + b"".join(addr(p) for p in path))


def swap_eth_in(min_out, path, to, deadline=1_800_000_000):
    return (sel("7ff36ab5") + word(min_out) + word(0x80) + addr(to) + word(deadline)
            + word(len(path)) + b"".join(addr(p) for p in path))


def record(target, value_sel, data):
    return bytes([target, value_sel]) + len(data).to_bytes(2, "big") + data


def write(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def main():
    shutil.rmtree(CORPUS, ignore_errors=True)
    examples = sorted(glob.glob(os.path.join(ROOT, "examples", "*.json")))
    for path in examples:
        name = os.path.basename(path)
        data = open(path, "rb").read()
        kind = ("load_intent" if name.endswith(".intent.json") else
                "load_report" if name.endswith(".simulation.json") else "load_policy")
        write(kind, name.removesuffix(".json"), data)
        if kind != "load_intent":
            continue
        intent = json.loads(data)
        records = []
        for i, call in enumerate(intent["calls"]):
            calldata = bytes.fromhex(call.get("data", "0x")[2:])
            stem = name.removesuffix(".intent.json")
            write("decode_call", f"{stem}-{i}", bytes([0, 0]) + calldata)
            hexdata = calldata.hex()
            for mainnet, world in MAINNET.items():
                hexdata = hexdata.replace(mainnet, WORLD[world])
            target = TARGET[MAINNET[call["target"][2:].lower()]]
            records.append(record(target, 0, bytes.fromhex(hexdata)))
        write("simulate", name.removesuffix(".intent.json"), bytes([1]) + b"".join(records))

    one = 10**18
    native = {
        "weth-deposit": record(TARGET["weth"], 2, sel("d0e30db0")),
        "weth-withdraw": record(TARGET["weth"], 0, sel("2e1a7d4d") + word(one)),
        "dai-transfer-payee": record(TARGET["dai"], 0, sel("a9059cbb") + addr("payee") + word(100 * one)),
        "approve-swap-weth-dai": record(TARGET["weth"], 0, sel("095ea7b3") + addr("router") + word(one))
        + record(TARGET["router"], 0, swap_exact_in(one, 0, ["weth", "dai"], "account")),
        "swap-eth-for-dai": record(TARGET["router"], 2, swap_eth_in(0, ["weth", "dai"], "account")),
        "eth-to-payee": record(TARGET["payee"], 1, b""),
        "lending-repay": record(TARGET["dai"], 0, sel("095ea7b3") + addr("lending_pool") + word(1000 * one))
        + record(TARGET["lending_pool"], 0, sel("371fd8e6") + word(1000 * one)),
        "lending-borrow": record(TARGET["lending_pool"], 0, sel("c5ebeaec") + word(100 * one)),
    }
    for name, data in native.items():
        write("simulate", name, bytes([1]) + data)
        write("decode_call", name, bytes([0, 0]) + data[4:4 + int.from_bytes(data[2:4], "big")])


if __name__ == "__main__":
    main()
