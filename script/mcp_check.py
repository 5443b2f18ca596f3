#!/usr/bin/env python3
"""`make mcp-check`: `pace serve` over TLS on a real host name, driven by the official Python
MCP SDK (PyPI `mcp`, pinned in script/requirements-mcp.txt).

It makes a certificate for pace.service.test, starts `pace serve` on a free loopback port
with it (embedded world, generated tokens), and maps the name to 127.0.0.1 inside this
client only (a network backend that resolves it; /etc/hosts is never touched). Then, over
https://pace.service.test:PORT/mcp:

- a session opens with the agent's token, not without one (401), and /mcp refuses a request
  carrying a foreign Origin or Host (403);
- propose with an idempotency key, twice: the second answer is the recorded one, marked
  replayed, and one proposal exists;
- confirm waits for a human: the server asks for URL-mode elicitation of the approval page;
  the callback plays the human (reads the page's form token, posts the human's credential
  from the page's own origin) and answers accept; the tool then reports `executed`;
- status says executed; the server is stopped by its PID.

Prints one line, `mcp: ...`, and exits 0; any failure exits 1 naming it.
"""

import asyncio
import datetime
import json
import logging
import os
import re
import ssl
import subprocess
import sys
import tempfile
import threading

import httpcore2
import httpx2
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client

HOST = "pace.service.test"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def certificate(directory):
    """A self-signed certificate for HOST: (cert path, key path, PEM)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, HOST)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(HOST)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    pem = cert.public_bytes(serialization.Encoding.PEM)
    cert_path, key_path = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    with open(cert_path, "wb") as f:
        f.write(pem)
    with open(key_path, "wb") as f:
        f.write(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
    return cert_path, key_path, pem.decode()


class Loopback(httpcore2.AsyncNetworkBackend):
    """Connects HOST to 127.0.0.1; TLS still checks the certificate against HOST."""

    def __init__(self):
        self.inner = httpcore2.AnyIOBackend()

    async def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        target = "127.0.0.1" if host == HOST else host
        return await self.inner.connect_tcp(target, port, timeout, local_address, socket_options)

    async def sleep(self, seconds):
        await self.inner.sleep(seconds)


def client(ctx, token=None, headers=None):
    """An httpx2 client that reaches HOST on loopback, trusting only our certificate."""
    transport = httpx2.AsyncHTTPTransport(verify=ctx)
    transport._pool = httpcore2.AsyncConnectionPool(ssl_context=ctx, network_backend=Loopback())
    all_headers = dict(headers or {})
    if token:
        all_headers["Authorization"] = f"Bearer {token}"
    return httpx2.AsyncClient(
        transport=transport, headers=all_headers, timeout=httpx2.Timeout(60.0)
    )


def start(pace, cert, key, store):
    """`pace serve` with TLS for HOST; (process, port, agent token, human credential)."""
    proc = subprocess.Popen(
        [pace, "serve", "--listen", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", key,
         "--store", store],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        env={k: v for k, v in os.environ.items() if k != "PACE_VERIFIER_KEY"},
    )
    agent = human = port = None
    for line in proc.stderr:
        if "API token for this run (" in line:
            agent = line.rsplit("): ", 1)[1].strip()
        elif "approval credential for the human" in line:
            human = line.rsplit("): ", 1)[1].strip()
        elif "listening on https://" in line:
            port = int(re.search(r"https://[^ ]+:(\d+)", line).group(1))
            break
    if port is None or agent is None or human is None:
        proc.kill()
        raise SystemExit(f"mcp-check: FAILED: pace serve did not start ({proc.wait()})")
    # Keep draining stderr so the server never blocks on a full pipe.
    threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
    return proc, port, agent, human


def structured(result):
    return result.structured_content or json.loads(result.content[0].text)


async def check(pace, work):
    cert, key, pem = certificate(work)
    ctx = ssl.create_default_context(cadata=pem)
    proc, port, agent, human = start(pace, cert, key, os.path.join(work, "pace.sqlite"))
    url = f"https://{HOST}:{port}/mcp"
    found = {}
    try:
        # Without a token, with a foreign Origin or a foreign Host: refused before any tool.
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "mcp-check", "version": "1"}}}
        accept = {"Accept": "application/json, text/event-stream"}
        async with client(ctx) as anon:
            r = await anon.post(url, json=init, headers=accept)
            assert r.status_code == 401, f"no token: {r.status_code} {r.text}"
        async with client(ctx, agent, {"Origin": "https://evil.example"}) as c:
            r = await c.post(url, json=init, headers=accept)
            assert r.status_code == 403, f"foreign origin: {r.status_code} {r.text}"
        async with client(ctx, agent, {"Host": f"other.example:{port}"}) as c:
            r = await c.post(url, json=init, headers=accept)
            assert r.status_code == 403, f"foreign host: {r.status_code} {r.text}"
        found["refused"] = 3

        async def approve(context, params):
            """The human: opens the approval page, approves with their own credential."""
            assert isinstance(params, types.ElicitRequestURLParams), params
            assert params.url.startswith(f"https://{HOST}:{port}/approve/"), params.url
            found["elicited"] = params.url
            async with client(ctx) as browser:
                page = (await browser.get(params.url)).text
                token = re.search(r'name="token" value="(0x[0-9a-f]{64})"', page).group(1)
                # The agent's token is no human's credential.
                refused = await browser.post(
                    params.url,
                    data={"token": token, "credential": agent, "decision": "approve"},
                    headers={"Origin": f"https://{HOST}:{port}"},
                )
                assert refused.status_code == 403, refused.text
                done = await browser.post(
                    params.url,
                    data={"token": token, "credential": human, "decision": "approve"},
                    headers={"Origin": f"https://{HOST}:{port}"},
                )
                assert done.status_code == 200 and "executed" in done.text, done.text
            return types.ElicitResult(action="accept")

        with open(os.path.join(ROOT, "examples", "world-swap.propose.json")) as f:
            request = json.load(f)
        async with client(ctx, agent) as http:
            async with streamable_http_client(url, http_client=http) as (read, write):
                async with ClientSession(read, write, elicitation_callback=approve) as session:
                    init = await session.initialize()
                    found["protocol"] = init.protocol_version
                    tools = sorted(t.name for t in (await session.list_tools()).tools)
                    assert tools == ["confirm", "history", "pending", "propose", "status"], tools
                    args = dict(request, idempotency_key="mcp-check-1")
                    first = await session.call_tool("propose", args)
                    assert not first.is_error, first
                    proposed = structured(first)
                    again = await session.call_tool("propose", args)
                    meta = again.meta or {}
                    assert meta.get("pace/idempotent_replayed") is True, again
                    assert structured(again) == proposed
                    pid = proposed["preview"]["proposal_id"]
                    done = await session.call_tool(
                        "confirm", {"proposal_id": pid, "confirm": True,
                                    "idempotency_key": "mcp-check-2"}
                    )
                    assert not done.is_error, done
                    assert structured(done)["state"] == "executed", structured(done)
                    status = structured(await session.call_tool("status", {"proposal_id": pid}))
                    assert status["state"] == "executed", status
                    history = structured(await session.call_tool("history", {}))
                    found["history"] = len(history if isinstance(history, list) else history["result"])
        assert "elicited" in found, "no URL elicitation was sent"
    finally:
        proc.kill()
        proc.wait()
    return found


def main():
    # The SDK logs a warning when a session's DELETE is answered 202 (accepted): not a failure.
    logging.getLogger("mcp.client.streamable_http").setLevel(logging.ERROR)
    pace = os.environ.get("PACE_BIN") or os.path.join(ROOT, "target", "debug", "pace")
    if not os.path.isfile(pace):
        raise SystemExit(f"mcp-check: FAILED: no pace binary at {pace} (set PACE_BIN)")
    with tempfile.TemporaryDirectory(prefix="pace-mcp-check-") as work:
        try:
            found = asyncio.run(check(pace, work))
        except AssertionError as e:
            print(f"mcp-check: FAILED: {e}", file=sys.stderr)
            sys.exit(1)
    print(
        f"mcp: tls_host={HOST} protocol={found['protocol']} "
        f"refused_without_token_origin_or_host={found['refused']} replayed=1 elicited_url=1 "
        f"executed=1"
    )


if __name__ == "__main__":
    main()
