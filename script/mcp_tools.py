"""The tools' arguments and answers, checked through the official MCP SDK for `make mcp-check`
(script/mcp_check.py imports this module):

- every example a tool's input schema lists (at the end of a description, ` Examples: [...]`)
  passes that schema under `jsonschema` (an engine independent of the server's), and the server
  accepts it at its place in an otherwise valid call: whatever it then says, it is no
  `BAD_REQUEST`;
- values JSON Schema admits but the server refuses (an EIP-55 checksum, 2^256, a slippage
  above the policy's maximum) are refused as tool errors whose message names the field;
- every encoder's answer is a propose request as it is: over MCP it passes propose's input
  schema and propose takes it; over HTTP its body is posted to /v1/propose unchanged;
- a quote's min_amount_out, encoded by encode_swap, is proposed and approved.
"""

import copy
import json

from jsonschema import Draft202012Validator

ENCODERS = ["encode_erc20_transfer", "encode_erc20_approve", "encode_swap", "encode_wrap",
            "encode_unwrap"]
TWO_POW_256 = str(2**256)


def examples(schema):
    """The examples a schema's description lists."""
    description = schema.get("description", "")
    if " Examples: " not in description:
        return []
    return json.loads(description.rsplit(" Examples: ", 1)[1])


def non_null(schema):
    for option in schema.get("anyOf", []):
        if option.get("type") != "null":
            return option
    return schema


def instance(schema, at, leaves):
    """A value the schema accepts, made of each leaf's first example; the leaves with examples
    recorded as (path, schema)."""
    s = non_null(schema)
    if "const" in s:
        return s["const"]
    listed = examples(s)
    if listed:
        leaves.append((at, s))
        return listed[0]
    kinds = s["type"] if isinstance(s["type"], list) else [s["type"]]
    kind = next(k for k in kinds if k != "null")
    if kind == "object":
        return {k: instance(sub, at + [k], leaves) for k, sub in s["properties"].items()}
    if kind == "array":
        n = max(s.get("minItems", 1), 1)
        return [instance(s["items"], at + [i], leaves) for i in range(n)]
    if kind == "boolean":
        return None if "null" in kinds or "anyOf" in schema else False
    raise AssertionError(f"{'/'.join(map(str, at))}: a {kind} without examples")


def put(args, at, value):
    out = copy.deepcopy(args)
    target = out
    for step in at[:-1]:
        target = target[step]
    target[at[-1]] = value
    return out


def refusal(result):
    """(code, message) of a tool error, the code also in the text a model reads; None else."""
    if not result.is_error:
        return None
    error = result.structured_content["error"]
    assert error["code"] in result.content[0].text, result.content[0].text
    return error["code"], error["message"]


async def examples_accepted(session, tools):
    """Every listed example valid under jsonschema and accepted by the server. The k-th call of
    a tool puts each leaf's k-th example (its first when it lists fewer) in place at once, so
    that every example reaches the server within the token's rate."""
    fed = 0
    for tool in tools:
        leaves = []
        instance(tool.input_schema, [], leaves)
        assert leaves, f"{tool.name}: no examples"
        listed = [(at, examples(leaf)) for at, leaf in leaves]
        for at, leaf in leaves:
            for example in examples(leaf):
                Draft202012Validator(leaf).validate(example)
        for k in range(max(len(e) for _, e in listed)):
            args = instance(tool.input_schema, [], [])
            for at, e in listed:
                args = put(args, at, e[k] if k < len(e) else e[0])
            Draft202012Validator(tool.input_schema).validate(args)
            refused = refusal(await session.call_tool(tool.name, args))
            assert refused is None or refused[0] != "BAD_REQUEST", (tool.name, k, refused)
        fed += sum(len(e) for _, e in listed)
    return fed


async def beyond_schema_refused(session, tools, weth, payee, router, dai):
    """Values JSON Schema admits and the server refuses, naming the field."""
    schemas = {t.name: t.input_schema for t in tools}
    # 0x000000000000000000000000000000000000dEaD with another mix of cases.
    bad_checksum = "0x000000000000000000000000000000000000DeaD"
    transfer = {"account": None, "token": weth, "to": payee, "amount": "1"}
    quote = {"account": None, "router": router, "path": [weth, dai], "amount_in": "1000",
             "slippage_bps": None}
    cases = [
        ("encode_erc20_transfer", transfer, ["token"], bad_checksum, "token"),
        ("encode_erc20_transfer", transfer, ["amount"], TWO_POW_256, "amount"),
        ("quote", quote, ["path", 1], bad_checksum, "path[1]"),
        ("quote", quote, ["slippage_bps"], 10_000, "slippage_bps"),
    ]
    for name, base, at, value, field in cases:
        args = put(base, at, value)
        Draft202012Validator(schemas[name]).validate(args)  # JSON Schema admits it
        refused = refusal(await session.call_tool(name, args))
        assert refused and refused[0] == "BAD_REQUEST", (name, at, refused)
        assert refused[1].startswith(f"bad request: {field}: "), (name, refused[1])
    return len(cases)


def encoder_args(weth, payee, router, dai, min_out):
    return {
        "encode_erc20_transfer": {"account": None, "token": weth, "to": payee,
                                  "amount": "1000000000000000"},
        "encode_erc20_approve": {"account": None, "token": weth, "spender": router,
                                 "amount": "1000"},
        "encode_swap": {"account": None, "router": router, "path": [weth, dai],
                        "amount_in": "1000000000000000000", "min_amount_out": min_out,
                        "deadline": None},
        "encode_wrap": {"account": None, "weth": weth, "amount": "1000000000000000"},
        "encode_unwrap": {"account": None, "weth": weth, "amount": "1000000000000000"},
    }


def matching_claims(name, answer):
    preview = answer["preview"]
    mismatches = [v for v in preview["violations"] if v["code"].endswith("_CLAIM_MISMATCH")]
    assert not mismatches, (name, mismatches)
    if name in ("encode_erc20_transfer", "encode_swap"):
        assert preview["approved"], (name, preview["violations"])


async def encoders_proposed_as_is(session, tools, http, base, weth, payee, router, dai):
    """Every encoder's answer proposed as it is, over MCP and over HTTP; the swap's minimum
    from the quote."""
    propose_schema = next(t.input_schema for t in tools if t.name == "propose")
    quote = (await session.call_tool("quote", {
        "account": None, "router": router, "path": [weth, dai],
        "amount_in": "1000000000000000000", "slippage_bps": None})).structured_content
    assert int(quote["min_amount_out"]) < int(quote["amount_out"]), quote
    done = 0
    for name, args in encoder_args(weth, payee, router, dai, quote["min_amount_out"]).items():
        r = await session.call_tool(name, args)
        assert refusal(r) is None, (name, r)
        strict = dict(r.structured_content, execute=None, allow_repeat=None,
                      idempotency_key=None)
        Draft202012Validator(propose_schema).validate(strict)
        proposed = await session.call_tool("propose", strict)
        assert refusal(proposed) is None, (name, proposed)
        matching_claims(name, proposed.structured_content)
        encoded = await http.post(f"{base}/v1/encode/{name[len('encode_'):]}", json=args)
        assert encoded.status_code == 200, (name, encoded.text)
        answer = await http.post(f"{base}/v1/propose", content=encoded.content,
                                 headers={"Content-Type": "application/json"})
        assert answer.status_code == 200, (name, answer.text)
        matching_claims(name, answer.json())
        done += 1
    return done
