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
- status says executed;
- every tool is listed with a title, annotations and an output schema, and its input schema
  passes the strict-subset check below (written here, independently of the server's own);
  the server calls itself `pace`; the SDK validates every structured answer against its
  tool's output schema;
- the reads: the policy (metadata patterns redacted), the budgets, the balances; an ERC-20
  transfer to the policy's payee is encoded, proposed, approved by the human and executed;
- invalid arguments on every tool are tool errors (`isError`) carrying the /v1 error object,
  BAD_REQUEST, the message naming the field; an unknown tool stays a JSON-RPC error;
- values beyond JSON Schema refused naming the field, every encoder's answer proposed as it
  is over MCP and over HTTP with the swap's minimum from the quote (script/mcp_tools.py);
- the operator's endpoints: a 401 names the RFC 9728 metadata document, which is served;
  /ready and /health answer; /metrics needs a token and parses with prometheus_client's text
  parser (HELP and TYPE on every family, no series twice, the refusals counted);
- then over stdio (`pace serve --stdio`): the same tools, a read, an encoded transfer proposed
  and confirmed with the human approving on the loopback approval page, invalid arguments, and
  every example the schemas list accepted (script/mcp_tools.py).

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
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from prometheus_client.parser import text_string_to_metric_families

import mcp_tools

TOOLS = sorted([
    "propose", "confirm", "status", "history", "pending", "policy", "budgets", "balances",
    "encode_erc20_transfer", "encode_erc20_approve", "encode_swap", "encode_wrap",
    "encode_unwrap", "quote",
])
READ_ONLY = set(TOOLS) - {"propose", "confirm"}
STRICT_KEYWORDS = {
    "type", "properties", "required", "additionalProperties", "items", "enum", "const",
    "anyOf", "description", "pattern", "minItems", "maxItems", "minimum", "maximum",
}
STRICT_DEPTH = 5

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


def strict(schema, at="", depth=1):
    """The strict subset of JSON Schema LLM tool calling accepts: raises on the first breach."""
    assert isinstance(schema, dict), f"{at}: not an object"
    if at == "":
        assert schema.get("type") == "object", "the root is not an object"
    extra = set(schema) - STRICT_KEYWORDS
    assert not extra, f"{at}: keywords outside the strict subset: {sorted(extra)}"
    kinds = schema.get("type", [])
    kinds = [kinds] if isinstance(kinds, str) else kinds
    for i, option in enumerate(schema.get("anyOf", [])):
        strict(option, f"{at}/anyOf/{i}", depth)
    if "object" in kinds:
        assert depth <= STRICT_DEPTH, f"{at}: objects nest deeper than {STRICT_DEPTH}"
        assert schema.get("additionalProperties") is False, f"{at}: additionalProperties"
        props = schema.get("properties")
        assert isinstance(props, dict), f"{at}: no properties"
        assert sorted(schema.get("required", [])) == sorted(props), f"{at}: not all required"
        for name, sub in props.items():
            strict(sub, f"{at}/properties/{name}", depth + 1)
    if "items" in schema:
        strict(schema["items"], f"{at}/items", depth)


def check_tools(listed, found):
    """Every tool: strict input, output schema, annotations, title."""
    names = sorted(t.name for t in listed)
    assert names == TOOLS, names
    for t in listed:
        strict(t.input_schema)
        assert t.output_schema and t.output_schema.get("type") == "object", t.name
        a = t.annotations
        assert a is not None and a.read_only_hint == (t.name in READ_ONLY), t.name
        assert a.destructive_hint == (t.name in ("propose", "confirm")), t.name
        assert a.idempotent_hint is not None and t.title, t.name
    found["strict_schemas"] = len(listed)


async def refused_arguments(session, pid, weth, payee):
    """Each tool with invalid arguments: a tool error (`isError`) carrying the /v1 error
    object, BAD_REQUEST, whose message names the field; an unknown tool is a JSON-RPC error."""
    bad = {
        "propose": ({"intent": {"chain_id": 1}}, "intent.account"),
        "confirm": ({"proposal_id": pid, "confirm": "true"}, "confirm"),
        "status": ({"proposal_id": 7}, "proposal_id"),
        "history": ({"limit": "many"}, "limit"),
        "pending": ({"limit": -1, "extra": True}, "extra"),
        "policy": ({"account": "0x12"}, "account"),
        "budgets": ({"account": 5}, "account"),
        "balances": ({"who": None}, "who"),
        "quote": ({"router": weth, "path": [weth, payee], "amount_in": "01"}, "amount_in"),
        "encode_erc20_transfer": ({"token": weth, "to": payee, "amount": "-1"}, "amount"),
        "encode_erc20_approve": ({"token": weth, "amount": "1"}, "spender"),
        "encode_swap": ({"router": weth, "path": [weth], "amount_in": "1",
                         "min_amount_out": "1"}, "path"),
        "encode_wrap": ({"weth": weth, "amount": "0x10"}, "amount"),
        "encode_unwrap": ({"weth": "nope", "amount": "1"}, "weth"),
    }
    for name in TOOLS:
        args, field = bad[name]
        refused = mcp_tools.refusal(await session.call_tool(name, args))
        assert refused and refused[0] == "BAD_REQUEST", (name, refused)
        assert refused[1].startswith(f"bad request: {field}: "), (name, refused[1])
    try:
        r = await session.call_tool("no_such_tool", {})
    except MCPError:
        pass
    else:
        raise AssertionError(f"an unknown tool answered {r}")
    return len(TOOLS)


async def reads_and_encoded_transfer(session, found):
    """The reads, then a transfer encoded, proposed and confirmed (a human approves)."""
    policy = structured(await session.call_tool("policy", {"account": None}))
    assert "metadata_patterns" not in policy["policy"], policy
    assert policy["metadata_patterns_redacted"] >= 1, policy
    assert policy["policy_hash"].startswith("0x"), policy
    budgets = structured(await session.call_tool("budgets", {"account": None}))
    assert isinstance(budgets["budgets"], list), budgets
    balances = structured(await session.call_tool("balances", {"account": None}))
    tokens = {b["token"]: b for b in balances["balances"]}
    payee = policy["policy"]["allowed_recipients"][0]
    weth = next(t for t, b in tokens.items() if b["symbol"] == "WETH")
    assert int(tokens[weth]["balance"]) > 0, balances
    encoded = structured(await session.call_tool("encode_erc20_transfer", {
        "account": None, "token": weth, "to": payee, "amount": "1000000000000000"}))
    proposed = structured(await session.call_tool(
        "propose", {"intent": encoded["intent"], "execute": None, "allow_repeat": None,
                    "idempotency_key": None}))
    assert proposed["preview"]["approved"], proposed
    pid = proposed["preview"]["proposal_id"]
    done = await session.call_tool("confirm", {"proposal_id": pid, "confirm": True,
                                               "idempotency_key": None})
    assert not done.is_error, done
    assert structured(done)["state"] == "executed", structured(done)
    found["encoded_transfer_executed"] = found.get("encoded_transfer_executed", 0) + 1
    return pid, weth, payee


def prometheus(text, found):
    """The metrics through prometheus_client's parser: HELP and TYPE, each series once."""
    seen = set()
    values = {}
    families = list(text_string_to_metric_families(text))
    assert families, "no metric family"
    for fam in families:
        assert fam.documentation, f"{fam.name}: no HELP"
        assert fam.type in ("counter", "gauge"), f"{fam.name}: type {fam.type}"
        for sample in fam.samples:
            key = (sample.name, tuple(sorted(sample.labels.items())))
            assert key not in seen, f"series twice: {key}"
            seen.add(key)
            values[key] = sample.value
    refused = values.get(("pace_refusals_total", (("code", "UNAUTHORIZED"),)), 0)
    assert refused >= 1, "the 401s are not counted"
    executed = values.get(("pace_submissions_total", (("state", "executed"),)), 0)
    assert executed >= 2, f"executed submissions: {executed}"
    found["metric_families"] = len(families)


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
        async with client(ctx) as anon:
            r = await anon.post(url, json=init, headers=accept)
            challenge = r.headers.get("www-authenticate", "")
            meta_url = f"https://{HOST}:{port}/.well-known/oauth-protected-resource/mcp"
            assert challenge == f'Bearer resource_metadata="{meta_url}"', challenge
            doc = (await anon.get(meta_url)).json()
            assert doc["resource"] == url and doc["bearer_methods_supported"] == ["header"], doc
            assert (await anon.get(f"https://{HOST}:{port}/ready")).status_code == 200
            assert (await anon.get(f"https://{HOST}:{port}/health")).status_code == 200
            m = await anon.get(f"https://{HOST}:{port}/metrics")
            assert m.status_code == 401, f"/metrics without a token: {m.status_code}"
            assert m.json()["error"]["code"] == "UNAUTHORIZED", m.text

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
                    assert init.server_info.name == "pace", init.server_info
                    check_tools((await session.list_tools()).tools, found)
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
                    history = structured(await session.call_tool("history", {"limit": None}))
                    found["history"] = len(history["proposals"])
                    pid2, weth, payee = await reads_and_encoded_transfer(session, found)
                    found["invalid_refused"] = await refused_arguments(session, pid2, weth, payee)
                    tools = (await session.list_tools()).tools
                    router = request["intent"]["calls"][1]["target"]
                    balances = structured(await session.call_tool("balances", {"account": None}))
                    dai = next(b["token"] for b in balances["balances"] if b["symbol"] == "DAI")
                    found["beyond"] = await mcp_tools.beyond_schema_refused(
                        session, tools, weth, payee, router, dai)
                    found["as_is"] = await mcp_tools.encoders_proposed_as_is(
                        session, tools, http, f"https://{HOST}:{port}", weth, payee, router, dai)
            m = await http.get(f"https://{HOST}:{port}/metrics")
            assert m.status_code == 200, m.text
            prometheus(m.text, found)
        assert "elicited" in found, "no URL elicitation was sent"
    finally:
        proc.kill()
        proc.wait()
    return found


async def check_stdio(pace, work, found):
    """`pace serve --stdio`: tools, a read, an encoded transfer confirmed by the human on the
    loopback approval page, invalid arguments refused, the schemas' examples accepted."""
    log_path = os.path.join(work, "stdio.log")

    def logged(pattern):
        with open(log_path) as f:
            m = re.search(pattern, f.read())
        assert m, f"stdio server log lacks {pattern}"
        return m.group(1)

    async def approve(context, params):
        assert isinstance(params, types.ElicitRequestURLParams), params
        human = logged(r"approval credential for the human \(approve, read\): (\S+)")
        base = logged(r"approval page for the human at (http://127\.0\.0\.1:\d+)/approve")
        assert params.url.startswith(f"{base}/approve/"), params.url
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(60.0)) as browser:
            page = (await browser.get(params.url)).text
            token = re.search(r'name="token" value="(0x[0-9a-f]{64})"', page).group(1)
            done = await browser.post(
                params.url,
                data={"token": token, "credential": human, "decision": "approve"},
                headers={"Origin": base},
            )
            assert done.status_code == 200 and "executed" in done.text, done.text
        found["stdio_elicited"] = 1
        return types.ElicitResult(action="accept")

    env = {k: v for k, v in os.environ.items() if k not in ("PACE_VERIFIER_KEY", "PACE_API_TOKEN")}
    server = StdioServerParameters(command=pace, args=["serve", "--stdio"], env=env)
    with open(log_path, "w") as errlog:
        async with stdio_client(server, errlog=errlog) as (read, write):
            async with ClientSession(read, write, elicitation_callback=approve) as session:
                init = await session.initialize()
                assert init.server_info.name == "pace", init.server_info
                check_tools((await session.list_tools()).tools, {})
                pid, weth, payee = await reads_and_encoded_transfer(session, found)
                await refused_arguments(session, pid, weth, payee)
                tools = (await session.list_tools()).tools
                found["examples"] = await mcp_tools.examples_accepted(session, tools)
    assert found.get("stdio_elicited") == 1, "no URL elicitation over stdio"
    found["transports"] = 2


def main():
    # The SDK logs a warning when a session's DELETE is answered 202 (accepted): not a failure.
    logging.getLogger("mcp.client.streamable_http").setLevel(logging.ERROR)
    pace = os.environ.get("PACE_BIN") or os.path.join(ROOT, "target", "debug", "pace")
    if not os.path.isfile(pace):
        raise SystemExit(f"mcp-check: FAILED: no pace binary at {pace} (set PACE_BIN)")
    with tempfile.TemporaryDirectory(prefix="pace-mcp-check-") as work:
        try:
            found = asyncio.run(check(pace, work))
            asyncio.run(check_stdio(pace, work, found))
        except AssertionError as e:
            print(f"mcp-check: FAILED: {e}", file=sys.stderr)
            sys.exit(1)
    print(
        f"mcp: transports={found['transports']} tls_host={HOST} protocol={found['protocol']} "
        f"tools={found['strict_schemas']} strict_schemas={found['strict_schemas']} "
        f"invalid_arguments_refused={found['invalid_refused']} "
        f"schema_examples_accepted={found['examples']} "
        f"beyond_schema_refused={found['beyond']} "
        f"encoders_proposed_as_is={found['as_is']}x2 "
        f"refused_without_token_origin_or_host={found['refused']} replayed=1 elicited_url=2 "
        f"encoded_transfers_executed={found['encoded_transfer_executed']} "
        f"metric_families={found['metric_families']} executed=1"
    )


if __name__ == "__main__":
    main()
