#!/usr/bin/env python3
"""`make doc-journeys`: every command sequence the user documents show runs as written.

The documents are README.md, docs/cli.md, docs/accounts.md and docs/deployment.md (the client
snippets of docs/service.md run in `make mcp-check`, script/doc_snippets.py). Each shell block
(`sh`, `bash`, or a `console` transcript's `$ ` lines) runs, in the order of its document and
in one bash session per document, so that what one block writes (a `world.json`, an `ACCOUNT`
variable) the next one reads. A block whose fence is preceded by an HTML comment saying
`illustrative, not run` and why (one that needs mainnet, a keystore or a model's API key, or a
command CI runs by itself) is skipped, and counted; every other block must exit 0.

Each document's session gets its own anvil (the npm platform binary, on a free loopback port,
started at the embedded world's clock and killed by PID), a scratch directory where
`examples/`, `script/` and `node_modules/` of the checkout are linked, the debug `pace` first on
PATH, and the variables the documents name (docs/cli.md lists them):

  RPC                the anvil's URL
  PACE_VERIFIER_KEY  the public development verifier key the embedded world trusts
  VERIFIER           its address
  PACE_RELAYER_KEY   anvil's development key 2 (pays for submissions)
  PACE_DEPLOYER_KEY  anvil's development key 0 (pays for deployments)
  PACE_OWNER_KEY     the same key, as the owner of what it deploys; OWNER its address
  PACE_EOA_KEY       a fresh key of an EOA holding nothing, to delegate
  NEW                another verifier address (anvil's development address 1)
  TOKEN, SPENDER     an allowance to revoke (two addresses nothing has approved)

Prints one line, `journeys: ...`, and exits 0; a failing block exits 1 naming its document and
line, with the session's output.
"""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = ["README.md", "docs/cli.md", "docs/accounts.md", "docs/deployment.md"]
MARKER = "illustrative, not run"
SHELLS = ("sh", "bash", "console")
# The embedded world starts at 1,700,000,000: a node started just before it mines the world at
# the world's own time, so the examples' deadlines hold.
ANVIL_TIMESTAMP = "1699999900"
# anvil's well-known development accounts (`test test ... junk`), 0, 1 and 2.
DEV_KEYS = [
    "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
    "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
    "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
]
DEV_ADDRESSES = [
    "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
    "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
]
# `pace_signer::DEV_VERIFIER_KEY` and its address.
DEV_VERIFIER_KEY = "0x" + "5a" * 32
EOA_KEY = "0x" + "e0" * 32


def blocks(text):
    """The shell blocks of a markdown text: (line, language, code, illustrative)."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)```(\w*)", lines[i])
        if not m:
            i += 1
            continue
        start, lang, indent = i, m.group(2), len(m.group(1))
        i += 1
        body = []
        while i < len(lines) and not lines[i].strip().startswith("```"):
            body.append(lines[i][indent:])
            i += 1
        i += 1
        if lang not in SHELLS:
            continue
        before = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        illustrative = before.strip().startswith("<!--") and MARKER in before
        out.append((start + 1, lang, "\n".join(body) + "\n", illustrative))
    return out


def commands(lang, code):
    """What a block runs: all of it, or a console transcript's `$ ` lines."""
    if lang != "console":
        return code
    out, going_on = [], False
    for line in code.split("\n"):
        if line.startswith("$ ") or going_on:
            out.append(line[2:] if line.startswith("$ ") else line)
            going_on = line.rstrip().endswith("\\")
    return "\n".join(out) + "\n"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_anvil():
    binary = os.path.join(ROOT, "node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil")
    port = free_port()
    proc = subprocess.Popen(
        [binary, "--host", "127.0.0.1", "--port", str(port), "--chain-id", "31337",
         "--timestamp", ANVIL_TIMESTAMP, "--silent"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc, url
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit(f"journeys: anvil did not listen on {url}")


def verifier_address(pace):
    out = subprocess.run([pace, "world"], capture_output=True, text=True, check=True)
    return re.search(r'"verifier":\s*"(0x[0-9a-fA-F]{40})"', out.stdout).group(1)


def run_document(pace, doc):
    """Runs `doc`'s blocks in one session; (ran, illustrative), or exits 1."""
    with open(os.path.join(ROOT, doc)) as f:
        found = blocks(f.read())
    runnable = [b for b in found if not b[3]]
    if not runnable:
        return 0, len(found)
    work = tempfile.mkdtemp(prefix="pace-journey-")
    anvil, url = start_anvil()
    try:
        for name in ("examples", "script", "node_modules"):
            os.symlink(os.path.join(ROOT, name), os.path.join(work, name))
        env = {
            "PATH": os.path.dirname(pace) + os.pathsep + os.environ.get("PATH", ""),
            "HOME": os.environ.get("HOME", work),
            "RPC": url,
            "PACE_VERIFIER_KEY": DEV_VERIFIER_KEY,
            "VERIFIER": verifier_address(pace),
            "PACE_RELAYER_KEY": DEV_KEYS[2],
            "PACE_DEPLOYER_KEY": DEV_KEYS[0],
            "PACE_OWNER_KEY": DEV_KEYS[0],
            "OWNER": DEV_ADDRESSES[0],
            "PACE_EOA_KEY": EOA_KEY,
            "NEW": DEV_ADDRESSES[1],
            "TOKEN": "0x" + "70" * 20,
            "SPENDER": "0x" + "5e" * 20,
        }
        script = ["set -euo pipefail"]
        for line, lang, code, _ in runnable:
            script.append(f"echo '::{doc}:{line}' >&2")
            script.append(commands(lang, code))
        session = subprocess.run(
            ["bash", "-c", "\n".join(script)], cwd=work, env=env,
            capture_output=True, text=True, timeout=600,
        )
        if session.returncode != 0:
            at = re.findall(r"^::(\S+)$", session.stderr, re.M)
            where = at[-1] if at else doc
            print(f"journeys: the block at {where} failed (exit {session.returncode})")
            print(session.stdout[-4000:])
            print(session.stderr[-4000:])
            sys.exit(1)
        return len(runnable), len(found) - len(runnable)
    finally:
        anvil.send_signal(signal.SIGKILL)
        anvil.wait()
        shutil.rmtree(work, ignore_errors=True)


def main():
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    pace = os.environ.get("PACE_BIN", os.path.join(target, "debug", "pace"))
    if not os.path.exists(pace):
        raise SystemExit(f"journeys: no pace binary at {pace} (cargo build -p pace-cli)")
    if shutil.which("jq") is None:
        raise SystemExit("journeys: the documents use jq; install it (apt-get install jq)")
    ran = skipped = 0
    for doc in DOCS:
        r, s = run_document(pace, doc)
        ran, skipped = ran + r, skipped + s
    print(f"journeys: docs={len(DOCS)} blocks_run={ran} illustrative_not_run={skipped}")


if __name__ == "__main__":
    main()
