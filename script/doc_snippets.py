#!/usr/bin/env python3
"""`make mcp-check`, second part: every client snippet of docs/service.md runs against the
pinned official MCP SDK (script/requirements-mcp.txt) and a `pace serve` of its own.

A client snippet is a fenced `python` block, or a shell block (`sh`, `bash`, `console`) that
calls curl. Each one runs, except a snippet whose fence is preceded by an HTML comment saying
`illustrative, not run` and why (one that needs a model API key, a transcript with elided
values): those, and only those, are skipped, and counted.

For each snippet the check starts `pace serve` (the embedded world, an in-memory store, the
tokens it generates) on a free loopback port, reading the port and the agent's token from its
stderr, and kills it by PID afterwards. A Python snippet runs with this interpreter (the
pinned SDK's), a shell one under `bash -euo pipefail` (for `console`, its `$ ` lines), each in
the repository's root with PACE_URL (http://127.0.0.1:PORT) and PACE_TOKEN (the agent's token)
set and the pace binary first on PATH; it passes when it exits 0 within 120 s.

Prints one line, `docs: ...`, and exits 0; a failing snippet exits 1 naming its line.
"""

import os
import re
import subprocess
import sys
import tempfile
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "service.md")
MARKER = "illustrative, not run"
SHELLS = ("sh", "bash", "console")


def snippets(text):
    """The client snippets of a markdown text: (line, language, code, illustrative)."""
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
        code = "\n".join(body) + "\n"
        client = lang == "python" or (lang in SHELLS and re.search(r"\bcurl\b", code))
        if not client:
            continue
        before = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        illustrative = before.strip().startswith("<!--") and MARKER in before
        out.append((start + 1, lang, code, illustrative))
    return out


def shell_script(lang, code):
    """The commands of a shell snippet: all of it, or a console transcript's `$ ` lines."""
    if lang != "console":
        return code
    commands, going_on = [], False
    for line in code.split("\n"):
        if line.startswith("$ ") or going_on:
            commands.append(line[2:] if line.startswith("$ ") else line)
            going_on = line.rstrip().endswith("\\")
    return "\n".join(commands) + "\n"


def serve(pace, work):
    """`pace serve` on a free loopback port: (process, base URL, agent token)."""
    proc = subprocess.Popen(
        [pace, "serve", "--listen", "127.0.0.1:0"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        cwd=work, env={k: v for k, v in os.environ.items() if k != "PACE_VERIFIER_KEY"},
    )
    token = url = None
    for line in proc.stderr:
        if "API token for this run (" in line:
            token = line.rsplit("): ", 1)[1].strip()
        m = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
        if m:
            url = m.group(1)
            break
    if url is None or token is None:
        proc.kill()
        raise SystemExit(f"docs-snippets: FAILED: pace serve did not start ({proc.wait()})")
    # Keep draining stderr so the server never blocks on a full pipe.
    threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
    return proc, url, token


def run(pace, line, lang, code):
    """Runs one snippet against a fresh `pace serve`; raises naming the line on failure."""
    with tempfile.TemporaryDirectory(prefix="pace-doc-snippet-") as work:
        proc, url, token = serve(pace, work)
        try:
            env = dict(os.environ, PACE_URL=url, PACE_TOKEN=token)
            env["PATH"] = os.path.dirname(os.path.abspath(pace)) + os.pathsep + env["PATH"]
            env.pop("PACE_VERIFIER_KEY", None)
            if lang == "python":
                command = [sys.executable, "-c", code]
            else:
                command = ["bash", "-euo", "pipefail", "-c", shell_script(lang, code)]
            done = subprocess.run(
                command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
            )
        finally:
            proc.kill()
            proc.wait()
    if done.returncode != 0:
        raise AssertionError(
            f"docs/service.md:{line} ({lang}) exited {done.returncode}:\n"
            f"{done.stdout}\n{done.stderr}"
        )
    return done.stdout


def main():
    pace = os.environ.get("PACE_BIN") or os.path.join(ROOT, "target", "debug", "pace")
    if not os.path.isfile(pace):
        raise SystemExit(f"docs-snippets: FAILED: no pace binary at {pace} (set PACE_BIN)")
    with open(DOC) as f:
        found = snippets(f.read())
    ran = skipped = 0
    try:
        for line, lang, code, illustrative in found:
            if illustrative:
                skipped += 1
                continue
            run(pace, line, lang, code)
            ran += 1
    except (AssertionError, subprocess.TimeoutExpired) as e:
        print(f"docs-snippets: FAILED: {e}", file=sys.stderr)
        sys.exit(1)
    assert ran > 0, "no client snippet ran"
    print(f"docs: client_snippets={len(found)} run={ran} illustrative_not_run={skipped}")


if __name__ == "__main__":
    main()
