#!/usr/bin/env python3
"""`make prove`: the halmos proofs of PaceAccount and PaceDelegate and their non-vacuity checks.

1. Generates, from the current contracts, one variant of an account per guard with that guard
   removed (tests/halmos/generated/, git-ignored). The guard is looked up in the files the
   account is compiled from (contracts/PaceAccount.sol or contracts/PaceDelegate.sol and its
   imports: the enforcement core, the delegate's module, the libraries); that file is copied
   without it, and so is every file importing it on the way up to the account, each copy
   declaring `<name><variant>` and importing the copies under the original names, so the
   variant's code is otherwise the account's. A guard whose text is not found, or is found in
   more than one file, stops the run: the variants must track the real contracts, never a stale
   copy. Variants of the two accounts that remove the same guard share the copies of the files
   both import (the enforcement core), which are the same text.
2. Runs halmos on each test contract, one process per contract, with the bounds below.
3. Checks each outcome: every `check_` of a proof contract must PASS; every `check_` of a
   non-vacuity contract (the same property on a variant) must FAIL with a counterexample. A
   TIMEOUT, an ERROR, a wall-clock overrun or a PASS of a non-vacuity check is a failure.

Exit 0 only when every outcome is the expected one. `PROVE_SOLVER=z3` (or another halmos
solver) runs every suite under that solver instead of its own: a cross-check that no PASS rests
on one solver's wrong answer. Arguments name the suites to run (all without).
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ACCOUNT = ROOT / "contracts" / "PaceAccount.sol"
DELEGATE = ROOT / "contracts" / "PaceDelegate.sol"
GENERATED = ROOT / "tests" / "halmos" / "generated"
BUILD_OUT = ".halmos/out"  # [profile.halmos] out, relative to ROOT

# The bounds of every proof (README "Proofs and static analysis").
BOUNDS = [
    "--loop", "2",  # loop unrolling: calls, bounds and budgeted tokens are at most 2 long
    "--default-array-lengths", "1",  # Call[] and Allowance[] arguments: 1 element
    # Bound[] and held address[] arguments (of the entry points and of the once property): none.
    # The account reads them only after the signer and nonce checks, with staticcalls, so they
    # can only add reverts to what the outflow and once properties decide; each symbolic bound
    # multiplies the paths by its kinds and read targets (outflow: 62 s without, over 19 min
    # with one). What they enforce is the outcome properties', on bounds the spec builds.
    # Check[] arguments (post-conditions) likewise: none; the post-condition property builds its
    # own.
    "--array-lengths", "bounds=0,held=0,checks=0",
    "--default-bytes-lengths", "68",  # bytes arguments (call data): 68 bytes = selector + 2 words
    "--solver-timeout-assertion", "120000",  # ms per assertion query; "unknown" = TIMEOUT
]
WALL_CLOCK_S = int(os.environ.get("PROVE_WALL_CLOCK_S", "1200"))  # per halmos process


@dataclass(frozen=True)
class Variant:
    """`PaceAccount` with one guard removed."""

    name: str
    guard: str  # regex of the guard statement(s)
    count: int  # how many statements it must match, all in one file of the account's sources
    # What replaces the guard. A comment removes a statement; an assembly guard `if c {` becomes
    # `if 0 {`, so its block stays valid Yul and never runs (the file header names the guard).
    # May refer to the guard's groups (`\1`).
    replacement: str | None = None
    # The account the variant is of: contracts/PaceAccount.sol or contracts/PaceDelegate.sol.
    root: Path = ACCOUNT


VARIANTS = [
    Variant(
        "PaceAccountNoSignerCheck",
        # The direct path's signer comparison (the EntryPoint path's is validateUserOp's).
        r"if \(!_isVerifier\([^;]*\)\) revert PaceAccountInvalidSigner\([^;]*\);",
        1,
    ),
    Variant(
        "PaceAccountNoOwnerCheck",
        # `onlyOwner`, the modifier of every owner function.
        r"if \(!_isOwner\(msg\.sender\)\) revert (?:IPaceAccount\.)?PaceAccountNotOwner\([^;]*\);",
        1,
    ),
    Variant(
        "PaceAccountNoNonceCheck",
        r"if \(seq != expected\) revert PaceAccountInvalidNonce\([^;]*\);",
        2,
    ),
    Variant(
        "PaceAccountNoBudgetLimit",
        r"if \(total > b\.limit\) \{\s*"
        r"revert IPaceAccount\.PaceAccountBudgetExceeded\([^;]*\);\s*\}",
        1,
    ),
    Variant(
        "PaceAccountNoSpendRecord",
        # The charge's record of what the period has spent: without it every PDR sees the
        # whole limit left.
        r"b\.spent = uint128\(total\);",
        1,
    ),
    Variant(
        "PaceAccountNoBoundCheck",
        # The comparison that raises PaceAccountOutcomeOutOfBounds (selector 0xc73afb04).
        r"if bad \{(?=\s*let m := mload\(0x40\)\s*mstore\(m, shl\(224, 0xc73afb04\)\))",
        1,
        replacement="if 0 {",
    ),
    Variant(
        "PaceAccountNoPostCondition",
        # The comparison that raises PaceAccountCheckFailed (selector 0xa35e2371).
        r"if bad \{(?=\s*let m := mload\(0x40\)\s*mstore\(m, shl\(224, 0xa35e2371\)\))",
        1,
        replacement="if 0 {",
    ),
    Variant(
        "PaceAccountNoHeldCheck",
        # The comparison that raises PaceAccountHeldBalanceFell (selector 0xf11c1f45).
        r"if lt\(q, b\) \{(?=\s*let m := mload\(0x40\)\s*mstore\(m, shl\(224, 0xf11c1f45\)\))",
        1,
        replacement="if 0 {",
    ),
]

# The EntryPoint path's guards, on both accounts.
_ENTRY_POINT_GUARDS = [
    (
        "PaysPdrPrefund",
        # A PDR user operation returns from validation before the prefund is paid; the variant
        # pays every operation's prefund, as an owner operation's.
        r"if \(userOp\.signature\.length != 65\) return _validatePdrUserOp\(userOp, userOpHash\);"
        r"\s*validationData = _validateOwnerUserOp\(userOp, userOpHash\);",
        1,
        "validationData = userOp.signature.length == 65 ? _validateOwnerUserOp(userOp, userOpHash)"
        " : _validatePdrUserOp(userOp, userOpHash);",
    ),
    (
        "NoUserOpSignerCheck",
        # Validation's comparison of the PDR's signer with the verifier.
        r"if \(!_isVerifier\(config, _recover\(digest, r, vs\)\)\) return _SIG_VALIDATION_FAILED;",
        1,
        None,
    ),
    (
        "NoOwnerUserOpCheck",
        # Validation's comparison of an owner operation's signer with the owner.
        r"return recovered != address\(0\) && recovered == signer \? 0 : _SIG_VALIDATION_FAILED;",
        1,
        "return 0;",
    ),
    (
        "NoLaneAdvance",
        # executeUserOpPdr's write of the lane past the sequence it runs (after its floor check;
        # the direct path's writes follow its own nonce comparison and stay).
        r"(_checkFloor\([^;]*\);)\s*unchecked \{\s*s\.(?:config = _withSequence\(config, seq \+ 1\)"
        r"|laneSequence\[key\] = seq \+ 1);\s*\}",
        2,
        "\\1",
    ),
]
for _suffix, _guard, _count, _replacement in _ENTRY_POINT_GUARDS:
    for _root in (ACCOUNT, DELEGATE):
        VARIANTS.append(Variant(f"{_root.stem}{_suffix}", _guard, _count, _replacement, _root))

# The guards of the direct path and the owner's functions, on the delegate too, and the
# delegate's own: the set-up signature.
VARIANTS += [
    Variant(f"PaceDelegate{v.name.removeprefix('PaceAccount')}", v.guard, v.count,
            v.replacement, DELEGATE)
    for v in VARIANTS
    if v.name in ("PaceAccountNoSignerCheck", "PaceAccountNoOwnerCheck", "PaceAccountNoNonceCheck")
]
VARIANTS.append(Variant(
    "PaceDelegateNoSetUpSignatureCheck",
    # A relayed set-up's comparison of its signer with the EOA.
    r"if \(recovered != address\(this\)\) revert PaceDelegateInvalidSetupSignature\([^;]*\);",
    1,
    root=DELEGATE,
))


@dataclass(frozen=True)
class Suite:
    """A test contract, what it shows, and the outcome every one of its checks must have."""

    contract: str
    claim: str
    expect: str  # "PASS" or "FAIL"
    # The SMT solver, when not halmos's default (yices). The admin property needs z3: yices
    # 2.6.4 answers sat to one of its unsatisfiable queries (a select of a store whose stored
    # value is `1 + x` under `x = 0` comes out neither 0 nor 1) and so reports a counterexample
    # that violates its own path condition: tests/halmos/yices-2.6.4-store-select.smt2, which
    # z3 proves unsatisfiable.
    solver: str | None = None
    # ms per assertion query, when not the bounds' 120 s (a proof near the limit on a loaded
    # machine).
    solver_timeout_ms: int | None = None
    # Loop unrolling, when not the bounds' 2: validation's check of a PDR batch's call data
    # (`UserOpPdr.isBatch`) walks its three arrays.
    loop: int | None = None


SUITES = [
    Suite(
        "PaceAccountOutflowProof",
        "no ETH/token outflow without a valid PDR or the owner (every entry point)",
        "PASS",
    ),
    Suite("PaceAccountOutflowNoSignerCheck", "non-vacuity: signer check removed", "FAIL"),
    Suite("PaceAccountOutflowNoOwnerCheck", "non-vacuity: onlyOwner removed", "FAIL"),
    Suite("PaceAccountOnceProof", "a PDR executes at most once", "PASS"),
    Suite("PaceAccountOnceNoNonceCheck", "non-vacuity: nonce check removed", "FAIL"),
    Suite(
        "PaceAccountBudgetProof",
        "one transaction's budgeted outflow <= what is left of the period's budget",
        "PASS",
    ),
    Suite("PaceAccountBudgetNoLimitCheck", "non-vacuity: budget limit check removed", "FAIL"),
    Suite(
        "PaceAccountBudgetTotalProof",
        "two PDRs in one period of a budget move out at most its limit, together (the first "
        "any call to the token, the second a transfer)",
        "PASS",
        solver_timeout_ms=300000,
    ),
    Suite("PaceAccountBudgetTotalNoLimitCheck", "non-vacuity: budget limit check removed",
          "FAIL"),
    Suite("PaceAccountBudgetTotalNoSpendRecord", "non-vacuity: the charge records no spend",
          "FAIL"),
    Suite(
        "PaceAccountAdminProof",
        "only the owner changes the verifier, the pause, the budgets and the nonce lanes "
        "(every entry point; a signed PDR moves its own lane one step)",
        "PASS",
        solver="z3",
    ),
    Suite("PaceAccountAdminNoOwnerCheck", "non-vacuity: onlyOwner removed", "FAIL",
          solver="z3"),
    Suite(
        "PaceAccountBoundProof",
        "a signed batch PDR moves the token's balance only as its BALANCE bound allows",
        "PASS",
    ),
    Suite("PaceAccountBoundNoCheck", "non-vacuity: bound comparison removed", "FAIL"),
    Suite("PaceAccountHeldProof", "a held token's or ETH balance never falls", "PASS"),
    Suite("PaceAccountHeldNoCheck", "non-vacuity: held comparison removed", "FAIL"),
    Suite(
        "PaceAccountCheckProof",
        "a signed batch PDR whose post-condition (WITHIN or KEPT, any range) fails after its "
        "calls reverts",
        "PASS",
    ),
    Suite("PaceAccountCheckNoComparison", "non-vacuity: post-condition comparison removed",
          "FAIL"),
    # The EntryPoint as the caller (validateUserOp, then the operation's call data), both accounts.
    Suite(
        "PaceAccountPrefundProof",
        "validating a PDR user operation moves no ether (its gas: the deposit or a paymaster)",
        "PASS",
        loop=3,
    ),
    Suite("PaceAccountPrefundPaysPdrPrefund", "non-vacuity: every prefund paid", "FAIL", loop=3),
    Suite("PaceDelegatePrefundProof", "the same on PaceDelegate", "PASS", loop=3),
    Suite("PaceDelegatePrefundPaysPdrPrefund", "non-vacuity: every prefund paid", "FAIL", loop=3),
    Suite(
        "PaceAccountEntryPointProof",
        "through the EntryPoint, outflow only under the owner's or the verifier's signature, "
        "administration only under the owner's (a PDR steps its own lane)",
        "PASS",
        loop=3,
    ),
    Suite("PaceAccountEntryPointNoUserOpSignerCheck",
          "non-vacuity: validation's PDR signer check removed", "FAIL", loop=3),
    Suite("PaceAccountEntryPointNoOwnerUserOpCheck",
          "non-vacuity: validation's owner signer check removed", "FAIL", loop=3),
    Suite("PaceDelegateEntryPointProof", "the same on PaceDelegate", "PASS", loop=3),
    Suite("PaceDelegateEntryPointNoUserOpSignerCheck",
          "non-vacuity: validation's PDR signer check removed", "FAIL", loop=3),
    Suite("PaceDelegateEntryPointNoOwnerUserOpCheck",
          "non-vacuity: validation's owner signer check removed", "FAIL", loop=3),
    Suite(
        "PaceAccountEntryPointOnceProof",
        "a PDR user operation runs once: again through the EntryPoint or directly, refused",
        "PASS",
        loop=3,
    ),
    Suite("PaceAccountEntryPointOnceNoLaneAdvance",
          "non-vacuity: execution leaves the lane", "FAIL", loop=3),
    Suite("PaceDelegateEntryPointOnceProof", "the same on PaceDelegate", "PASS", loop=3),
    Suite("PaceDelegateEntryPointOnceNoLaneAdvance",
          "non-vacuity: execution leaves the lane", "FAIL", loop=3),
    # The direct path and the owner's functions on PaceDelegate.
    Suite(
        "PaceDelegateOutflowProof",
        "PaceDelegate: no ETH/token outflow without a valid PDR or the owner (every entry point, "
        "the module's included)",
        "PASS",
    ),
    Suite("PaceDelegateOutflowNoSignerCheck", "non-vacuity: signer check removed", "FAIL"),
    Suite("PaceDelegateOutflowNoOwnerCheck", "non-vacuity: onlyOwner removed", "FAIL"),
    Suite("PaceDelegateOnceProof", "PaceDelegate: a PDR executes at most once", "PASS"),
    Suite("PaceDelegateOnceNoNonceCheck", "non-vacuity: nonce check removed", "FAIL"),
    Suite(
        "PaceDelegateAdminProof",
        "PaceDelegate: only the owner (the EOA) administers; a signed PDR steps its own lane",
        "PASS",
        solver="z3",
    ),
    Suite("PaceDelegateAdminNoOwnerCheck", "non-vacuity: onlyOwner removed", "FAIL",
          solver="z3"),
    Suite("PaceDelegateSetUpProof", "PaceDelegate: a relayed set-up needs the EOA key", "PASS"),
    Suite("PaceDelegateSetUpNoSignatureCheck", "non-vacuity: set-up signature check removed",
          "FAIL"),
]

# halmos exit codes per test (halmos.__main__.Exitcode)
OUTCOME = {0: "PASS", 1: "FAIL", 2: "TIMEOUT", 3: "ERROR (stuck)", 4: "ERROR (all revert)",
           5: "ERROR"}


def remove_guard(v: Variant, source: str) -> str:
    suffix = v.name.removeprefix(v.root.stem)
    replacement = v.replacement or f"/* guard removed ({suffix}) */"
    text, n = re.subn(v.guard, replacement, source)
    if n != v.count:
        sys.exit(
            f"prove: guard of {v.name} matched {n} statement(s), expected {v.count}: "
            f"update tests/halmos/prove.py to the current contracts"
        )
    return text


IMPORT = re.compile(r'import \{([^}]*)\} from "(\.{1,2}/[^"]+)";')


def imports_of(path: Path) -> dict[Path, list[str]]:
    """The contracts/ files `path` imports (relative imports), each with the names it takes."""
    found: dict[Path, list[str]] = {}
    for names, rel in IMPORT.findall(path.read_text()):
        target = Path(posixpath.normpath(posixpath.join(path.parent.as_posix(), rel)))
        found.setdefault(target, []).extend(n.strip() for n in names.split(",") if n.strip())
    return found


def account_sources(root: Path) -> list[Path]:
    """The files account `root` is compiled from, the account first (its relative imports,
    closed)."""
    seen: list[Path] = []
    todo = [root]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.append(path)
        todo.extend(imports_of(path))
    return seen


def guard_file(v: Variant, sources: list[Path]) -> Path:
    """The one file of the account's sources holding the guard of `v`."""
    holders = [p for p in sources if re.search(v.guard, p.read_text())]
    if len(holders) != 1:
        names = ", ".join(str(p.relative_to(ROOT)) for p in holders) or "none"
        sys.exit(
            f"prove: guard of {v.name} is in {names}, expected exactly one file of the "
            f"account's sources: update tests/halmos/prove.py to the current contracts"
        )
    return holders[0]


def rebase_imports(text: str, source: Path) -> str:
    """Rewrites the relative imports of `source` for a copy of it in GENERATED."""

    def rebase(m: re.Match[str]) -> str:
        target = posixpath.normpath(posixpath.join(source.parent.as_posix(), m.group(1)))
        return f'from "{posixpath.relpath(target, GENERATED.as_posix())}"'

    return re.sub(r'from "(\.{1,2}/[^"]+)"', rebase, text)


def generated_header(suffix: str, source: Path) -> str:
    return (
        f"// GENERATED by tests/halmos/prove.py from {source.relative_to(ROOT)}, for the {suffix}\n"
        f"// variants: an account with one guard removed, for a halmos non-vacuity check. Do not\n"
        f"// edit.\n"
    )


def generate_variant(v: Variant, written: dict[Path, str]) -> None:
    """Writes `v`: the guard's file without the guard, and a copy of every file that imports it,
    directly or not, up to the account, each declaring `<name><suffix>` and importing the copies
    under the original names, so the variant's code is otherwise the account's. A copy another
    variant with the same suffix wrote already must come out the same."""
    sources = account_sources(v.root)
    holder = guard_file(v, sources)
    suffix = v.name.removeprefix(v.root.stem)
    # The files to copy: the holder and every source that reaches it through imports.
    copied = {holder}
    changed = True
    while changed:
        changed = False
        for path in sources:
            if path not in copied and any(t in copied for t in imports_of(path)):
                copied.add(path)
                changed = True
    for path in copied:
        stem = path.stem
        text = path.read_text()
        if path == holder:
            text = remove_guard(v, text)
        text, n = re.subn(rf"\b(library|contract) {stem}\b", rf"\1 {stem}{suffix}", text)
        if n != 1:
            sys.exit(f"prove: {path.relative_to(ROOT)} does not declare `{stem}` once")
        text = rebase_imports(text, path)
        for target, names in imports_of(path).items():
            if target not in copied:
                continue
            if target.stem not in names:
                sys.exit(
                    f"prove: {path.relative_to(ROOT)} imports {target.relative_to(ROOT)} "
                    f"without `{target.stem}`"
                )
            copy = f"{target.stem}{suffix}"
            rel = posixpath.relpath(target.as_posix(), GENERATED.as_posix())
            stmt = f'import {{{copy} as {target.stem}}} from "./{copy}.sol";'
            others = [n for n in names if n != target.stem]
            if others:
                # The file's other names stay the original's, so their types stay shared.
                stmt += f'\nimport {{{", ".join(others)}}} from "{rel}";'
            text, n = re.subn(rf'import \{{[^}}]*\}} from "{re.escape(rel)}";', stmt, text)
            if n != 1:
                sys.exit(f"prove: cannot redirect {path.relative_to(ROOT)}'s import of {rel}")
        out = GENERATED / f"{stem}{suffix}.sol"
        text = generated_header(suffix, path) + text
        if written.get(out, text) != text:
            sys.exit(f"prove: two variants write {out.relative_to(ROOT)} differently")
        written[out] = text
        out.write_text(text)


def generate_variants() -> None:
    for root in (ACCOUNT, DELEGATE):
        if f"contract {root.stem} is" not in root.read_text():
            sys.exit(f"prove: {root.relative_to(ROOT)} has no `contract {root.stem} is`")
    GENERATED.mkdir(parents=True, exist_ok=True)
    for stale in GENERATED.glob("*.sol"):
        stale.unlink()
    written: dict[Path, str] = {}
    for v in VARIANTS:
        generate_variant(v, written)
    # Formatted like the sources they copy, so `make lint`'s `forge fmt --check` stays clean
    # after a proof run.
    subprocess.run(["forge", "fmt", *map(str, sorted(GENERATED.glob("*.sol")))], cwd=ROOT,
                   check=True, capture_output=True)


def build() -> None:
    # The halmos profile compiles contracts/ and tests/halmos/ only, into its own out/cache, so
    # it neither rebuilds nor disturbs the artifacts of `forge test`.
    cmd = ["forge", "build", "--ast", "--extra-output", "storageLayout", "metadata"]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    # forge 1.7.1 over the solcjs shim can exit 0 on a failed compilation: read its verdict too.
    if r.returncode != 0 or "Compiler run failed" in r.stdout + r.stderr:
        sys.stdout.write(r.stdout + r.stderr)
        sys.exit("prove: forge build (profile halmos) failed")


def bounds(suite: Suite) -> list[str]:
    """BOUNDS, with the suite's own solver timeout and loop bound if it has them."""
    out = list(BOUNDS)
    for flag, value in (("--solver-timeout-assertion", suite.solver_timeout_ms),
                        ("--loop", suite.loop)):
        if value is not None:
            i = out.index(flag)
            out[i + 1] = str(value)
    return out


def run_suite(suite: Suite) -> bool:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "halmos.json"
        cmd = ["halmos", "--root", str(ROOT), "--forge-build-out", BUILD_OUT,
               "--contract", suite.contract, *bounds(suite), "--json-output", str(report)]
        solver = os.environ.get("PROVE_SOLVER") or suite.solver
        if solver:
            cmd += ["--solver", solver]
        if suite.expect == "FAIL":
            cmd.append("--early-exit")  # one counterexample is enough
        start = time.monotonic()
        try:
            r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                               timeout=WALL_CLOCK_S)
            log = r.stdout + r.stderr
        except subprocess.TimeoutExpired as e:
            log = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            print(f"TIMEOUT  {suite.contract}: over {WALL_CLOCK_S} s wall clock  [failure]")
            return False
        elapsed = time.monotonic() - start
        log_path = ROOT / ".halmos" / f"{suite.contract}.log"
        log_path.write_text(log)
        try:
            results = json.loads(report.read_text())["test_results"]
        except (OSError, ValueError, KeyError):
            print(f"ERROR    {suite.contract}: no halmos report (see {log_path.relative_to(ROOT)})")
            return False

    tests = [t for per_file in results.values() for t in per_file]
    if not tests:
        print(f"ERROR    {suite.contract}: no check_ test ran")
        return False
    good = True
    for t in tests:
        outcome = OUTCOME.get(t["exitcode"], f"exit {t['exitcode']}")
        secs = (t.get("time") or [elapsed])[0]
        incomplete = t.get("num_bounded_loops") or 0
        ok = outcome == suite.expect and (suite.expect == "FAIL" or incomplete == 0)
        if outcome == "FAIL" and suite.expect == "FAIL":
            note = "(expected: non-vacuity)"
        elif ok:
            note = ""
        elif outcome == suite.expect:
            note = f"[failure: {incomplete} loop(s) cut by --loop]"
        else:
            note = f"[failure: expected {suite.expect}]"
        print(f"{outcome:<8} {suite.contract}.{t['name']}  {secs:6.1f} s  {note}".rstrip())
        good &= ok
    print(f"         -> {suite.claim}")
    return good


def main() -> int:
    sys.stdout.reconfigure(line_buffering=True)
    os.environ["FOUNDRY_PROFILE"] = "halmos"
    (ROOT / ".halmos").mkdir(exist_ok=True)
    generate_variants()
    build()
    only = sys.argv[1:]
    suites = [s for s in SUITES if not only or s.contract in only]
    start = time.monotonic()
    failed = [s.contract for s in suites if not run_suite(s)]
    total = time.monotonic() - start
    if failed:
        print(f"prove: {len(failed)} of {len(suites)} suites not as expected "
              f"({', '.join(failed)}), {total:.0f} s")
        return 1
    print(f"prove: all {len(suites)} suites as expected "
          f"(proofs PASS, non-vacuity checks FAIL), {total:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
