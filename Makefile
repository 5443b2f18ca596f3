# PACE-rs tasks. Every target installs what it needs (npm packages from package-lock.json, Rust
# crates from Cargo.lock) before doing its job, so each works on a fresh clone.

SHELL := /bin/bash
export PATH := $(CURDIR)/node_modules/.bin:$(PATH)
FORGE := $(CURDIR)/node_modules/.bin/forge
CARGO ?= cargo
PROOFS_VENV := $(CURDIR)/.venv-proofs
MCP_VENV := $(CURDIR)/.venv-mcp

.PHONY: layout-check size-check all setup demo test test-sol test-rust lint doc fmt gas gas-check bench bench-remote bench-instructions reproduce clean fuzz prove planted mutants install-check service-check mcp-check bench-identical

all: test

## Install the offline Solidity toolchain (forge, anvil, solcjs, forge-std, third-party contracts).
node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

setup: node_modules/.package-lock.json

## The main job on the embedded in-process EVM.
demo: setup
	$(CARGO) run --quiet --locked -p pace-cli -- demo

## All tests: forge (unit, fuzz, invariant, golden vector; the ERC-7562 opcode scan of
## validation needs -vvv, which records the opcode trace; the cold gas-floor cases need
## --isolate), the storage-layout snapshots, the contracts' code sizes, then cargo, then the
## documents' command blocks. `script/forge-test` fails on a failed suite even where forge
## exits 0 (a setUp that reverts).
test: test-sol test-rust doc-journeys

test-sol: setup
	script/forge-test --no-match-contract Erc7562ValidationTest
	script/forge-test --match-contract Erc7562ValidationTest -vvv
	script/forge-test --isolate --match-path 'tests/isolated/*'
	python3 script/layout_check.py
	python3 script/size_check.py

## Runtime code and initcode of every deployable contract under contracts/ (mocks left out)
## against EIP-170 (24,576 bytes) and EIP-3860 (49,152 bytes): one row each with both margins;
## fails above either limit.
size-check: setup
	python3 script/size_check.py

## The accounts' storage layouts (forge inspect) against tests/layouts/*.json, which the Rust
## side's slot reads assume (`python3 script/layout_check.py --write` after a deliberate change).
layout-check: setup
	python3 script/layout_check.py

test-rust: setup
	$(CARGO) test --workspace --locked

## Every command block of README.md, docs/cli.md, docs/accounts.md and docs/deployment.md runs
## as written, in order, one session per document, against an anvil of its own (loopback, free
## port, killed by PID): script/doc_journeys.py. A block that cannot run here (a keystore of
## your own, a release build of minutes) says why in an `illustrative, not run` comment.
.PHONY: doc-journeys
doc-journeys: setup
	@command -v jq >/dev/null || { apt-get update -qq && apt-get install -y -qq jq; }
	@$(CARGO) build --quiet --locked -p pace-cli --bin pace
	@PACE_BIN=$${CARGO_TARGET_DIR:-$(CURDIR)/target}/debug/pace python3 script/doc_journeys.py

lint: setup $(PROOFS_VENV)/.installed
	$(FORGE) fmt --check contracts tests script
	PATH=$(PROOFS_VENV)/bin:$$PATH $(PROOFS_VENV)/bin/python script/slither_triage.py
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings

## API docs of every crate (target/doc), failing on any rustdoc warning (a broken intra-doc link,
## an unclosed code block).
doc: setup
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps --locked

fmt: setup
	$(FORGE) fmt contracts tests script
	$(CARGO) fmt --all

## Pinned Python tools (halmos for `prove`, slither for `lint`) in the git-ignored PROOFS_VENV.
## A Debian python3 without the venv module gets python3-venv from apt (root) first.
$(PROOFS_VENV)/.installed: script/requirements-proofs.txt
	@python3 -c 'import venv, ensurepip' 2>/dev/null || { apt-get update -qq && apt-get install -y -qq python3-venv; }
	python3 -m venv $(PROOFS_VENV)
	$(PROOFS_VENV)/bin/pip install --quiet --disable-pip-version-check -r script/requirements-proofs.txt
	@touch $@

## Halmos symbolic proofs (tests/halmos): every property must PASS and every non-vacuity check
## (the property on the account with its guard removed) FAIL; a TIMEOUT fails. Bounds: README.
prove: setup $(PROOFS_VENV)/.installed
	PATH=$(PROOFS_VENV)/bin:$$PATH $(PROOFS_VENV)/bin/python tests/halmos/prove.py

## Gas overhead of PDR execution over the owner's raw call, in isolated transactions, what
## one outcome bound of each kind, one held asset and one post-condition of each relation add to
## a PDR (touched by the calls or not), and the typical PDR with a post-condition before and
## after it.
gas: setup
	PACE_GAS_ISOLATED=true $(FORGE) snapshot --isolate --match-path 'tests/gas/*' --snap .gas-snapshot > /dev/null
	@PACE_GAS_ISOLATED=true $(FORGE) test --isolate --match-path 'tests/gas/*' -vv | tee target-gas.log | grep -E '^\s+(raw_tx_gas|tx_overhead|overhead_over_plain_call|bound_cost|held_cost|check_cost|pdr_typical|owner_path) ' | sed 's/^ *//'
	@grep -E '^\s+overhead ' target-gas.log | sed 's/^ *//'; rm -f target-gas.log

## Fails when the gas snapshot drifts by more than 1%.
gas-check: setup
	PACE_GAS_ISOLATED=true $(FORGE) snapshot --isolate --match-path 'tests/gas/*' --snap .gas-snapshot --check --tolerance 1

bench: setup
	$(CARGO) bench -p pace-verifier

## The whole pipeline (`Pipeline::evaluate`, pass 2 included) on a remote node's state
## (release build): the world on its own anvil behind a latency proxy (LATENCY_MS per round
## trip, default 50), both on free loopback ports and stopped by PID; round trips, requests
## and wall time for a cold and a warm intent.
bench-remote: setup
	PACE_REMOTE_LATENCY_MS=$(or $(LATENCY_MS),50) $(CARGO) bench --locked -p pace-pipeline --bench remote

## Instructions per intent of each part of the pipeline under callgrind (load-independent; needs valgrind).
bench-instructions: setup
	python3 script/bench_instructions.py

## The paper's evaluation on the embedded EVM (release build): tables on stdout, CSV, JSON and SVG figures in bench-out/.
reproduce: setup
	$(CARGO) run --release --locked -p pace-cli -- bench --out bench-out --json bench-out/summary.json

## The benchmark's trials.csv compared byte for byte with the committed sha256
## (crates/bench/trials.sha256): a change to any decision, chain verdict, gas figure or revert of
## any trial fails it, and the commit that changes one updates the sha256 and says which rows moved.
## Release build (BENCH_PROFILE=dev for the debug build `make test` made: ~10x slower to run).
bench-identical: setup
	@$(CARGO) build --quiet --locked -p pace-cli $(if $(filter dev,$(BENCH_PROFILE)),,--release)
	@out=$$(mktemp -d /tmp/pace-bench-identical.XXXXXX) && trap 'rm -rf "$$out"' EXIT && \
	$${CARGO_TARGET_DIR:-$(CURDIR)/target}/$(if $(filter dev,$(BENCH_PROFILE)),debug,release)/pace bench --out "$$out" > /dev/null && \
	(cd "$$out" && sha256sum -c $(CURDIR)/crates/bench/trials.sha256) && \
	echo "bench-identical: trials.csv matches crates/bench/trials.sha256"

## Coverage-guided fuzzing (cargo-fuzz, nightly): every target in fuzz/ for FUZZ_SECS seconds each
## (default 30; `make fuzz FUZZ_SECS=120`); fails if one crashes. Installs cargo-fuzz if missing.
fuzz: setup
	FUZZ_SECS=$(or $(FUZZ_SECS),30) ./fuzz/run.sh

## Fault injection outside the trusted code: applies tests/planted/planted.patch (runtime-switched
## bugs in the verifier, the policy compiler and the signer) to a copy of the working tree under
## target/planted/src, and fails if the patch no longer applies. One release build of that copy,
## then `pace bench` clean and once per bug (`PACE_PLANTED=<bug>`): one line per bug, detected or
## not, and the total. `PLANTED_REV=<commit>` copies that commit instead of the working tree.
## Updating the patch when the code moves: tests/planted/README.md.
planted: setup
	python3 tests/planted/tree.py prepare $(if $(PLANTED_REV),--rev $(PLANTED_REV))
	$(CARGO) build --release --locked -p pace-cli --manifest-path target/planted/src/Cargo.toml --target-dir target/planted
	python3 script/planted.py target/planted/release/pace target/planted/src

## Rewrites tests/planted/planted.patch from target/planted/stage, the copy where the planted
## branches were edited by hand (after `python3 tests/planted/tree.py reject`).
.PHONY: planted-patch
planted-patch:
	python3 tests/planted/tree.py patch

## Mutation testing (cargo-mutants, installed if missing): every mutant of the verifier's checks,
## its value model and the signer's bounds, tested in place against the crate's own tests.
## Outcomes under target/mutants-*/; survivors and why each is left: mutants.triage.md.
mutants: setup
	@command -v cargo-mutants >/dev/null || $(CARGO) install cargo-mutants --locked
	$(CARGO) mutants -p pace-signer -f crates/signer/src/bounds.rs --in-place --output target/mutants-signer
	$(CARGO) mutants -p pace-verifier -f 'crates/verifier/src/checks/*.rs' -f crates/verifier/src/value.rs --in-place --output target/mutants-verifier

## `cargo install` of `pace` into a temporary root (a release build: slow, so opt-in, not in
## `test`), then the portability test on the installed binary: alone in an empty directory, the
## checkout and ~/.cargo hidden, user nobody, empty environment (needs root for the sandbox).
install-check: setup
	@root=$$(mktemp -d /tmp/pace-install-check.XXXXXX) && trap 'rm -rf "$$root"' EXIT && \
	start=$$(date +%s) && \
	$(CARGO) install --locked --path crates/cli --root "$$root" && \
	echo "install-check: cargo install took $$(( $$(date +%s) - start )) s" && \
	PACE_PORTABLE_BIN="$$root/bin/pace" $(CARGO) test --locked -p pace-cli --test it portable

## `pace serve --rpc` under load and faults (crates/service/examples/service_check): its own anvil
## and servers on free loopback ports, killed by PID; concurrent agents, duplicate deliveries,
## confirm races, keyed retries (reordered keys, after the 30 s window, after a kill -9), a
## kill -9 with a submitted transaction and no receipt, restarts. The zeros are read from the
## chain and the store. Dev profile (the build `make test` already made). One line; then
## mcp-check's two lines.
service-check: setup $(MCP_VENV)/.installed
	@$(CARGO) build --quiet --locked -p pace-cli --bin pace
	@$(CARGO) build --quiet --locked -p pace-service --example service_check
	@PACE_BIN=$${CARGO_TARGET_DIR:-$(CURDIR)/target}/debug/pace $${CARGO_TARGET_DIR:-$(CURDIR)/target}/debug/examples/service_check
	@PACE_BIN=$${CARGO_TARGET_DIR:-$(CURDIR)/target}/debug/pace $(MCP_VENV)/bin/python script/mcp_check.py
	@PACE_BIN=$${CARGO_TARGET_DIR:-$(CURDIR)/target}/debug/pace $(MCP_VENV)/bin/python script/doc_snippets.py

## Three `pace serve` instances for one account on one PostgreSQL store, under clients that
## send each request to two instances at once, a `kill -9`, a database outage and a paused
## signer: a PostgreSQL server of its own (temporary directory, free loopback port, an
## unprivileged user when run as root), anvil, the instances, all stopped by PID. One line.
.PHONY: cluster-check
cluster-check: setup
	@$(CARGO) build --quiet --locked -p pace-cli --bin pace
	@$(CARGO) build --quiet --locked -p pace-service --example cluster_check
	@PACE_BIN=$${CARGO_TARGET_DIR:-$(CURDIR)/target}/debug/pace $${CARGO_TARGET_DIR:-$(CURDIR)/target}/debug/examples/cluster_check

## What a new idempotency key costs a grant on PostgreSQL as its live records grow (1,000,
## 10,000, 100,000): the store's claim, and the count it once ran per new key, timed on a
## server of its own (temporary directory, loopback, stopped by the check). One line per size.
.PHONY: idempotency-bench
idempotency-bench: setup
	@$(CARGO) build --quiet --locked --release -p pace-service --example idempotency_bench
	@$${CARGO_TARGET_DIR:-$(CURDIR)/target}/release/examples/idempotency_bench

## The load benchmark of `pace serve`: proposes and confirms at 1, 10 and 50 concurrent
## clients, one instance and three, on the embedded world and on anvil (a PostgreSQL store of
## its own): requests per second, p50, p99 and where the time goes. One line per cell.
## Release builds: a debug build measures the compiler's checks, not the service.
.PHONY: serve-bench
serve-bench: setup
	@$(CARGO) build --quiet --locked --release -p pace-cli --bin pace
	@$(CARGO) build --quiet --locked --release -p pace-service --example serve_bench
	@PACE_BIN=$${CARGO_TARGET_DIR:-$(CURDIR)/target}/release/pace $${CARGO_TARGET_DIR:-$(CURDIR)/target}/release/examples/serve_bench

## The official Python MCP SDK (script/requirements-mcp.txt) in the git-ignored MCP_VENV.
$(MCP_VENV)/.installed: script/requirements-mcp.txt
	@python3 -c 'import venv, ensurepip' 2>/dev/null || { apt-get update -qq && apt-get install -y -qq python3-venv; }
	python3 -m venv $(MCP_VENV)
	$(MCP_VENV)/bin/pip install --quiet --disable-pip-version-check -r script/requirements-mcp.txt
	@touch $@

## `pace serve` over TLS on a host name (pace.service.test, mapped to loopback inside the
## client) and over stdio, driven by the official Python MCP SDK: a session needs a token, a
## foreign Origin or Host is refused, a keyed retry is replayed, confirm asks for the human by
## URL elicitation and executes once approved on the approval page; every tool's schema passes
## the strict-subset check and its examples are accepted, the reads answer, an encoded transfer
## executes, every encoder's answer is proposed as it is, invalid arguments are tool errors
## naming the field; /metrics parses with prometheus_client. Then every client snippet of
## docs/service.md runs (script/doc_snippets.py) but those marked "illustrative, not run".
## Servers on free loopback ports, killed by PID. Two lines. Also run by service-check.
mcp-check: setup $(MCP_VENV)/.installed
	@$(CARGO) build --quiet --locked -p pace-cli --bin pace
	@PACE_BIN=$${CARGO_TARGET_DIR:-$(CURDIR)/target}/debug/pace $(MCP_VENV)/bin/python script/mcp_check.py
	@PACE_BIN=$${CARGO_TARGET_DIR:-$(CURDIR)/target}/debug/pace $(MCP_VENV)/bin/python script/doc_snippets.py

## The docs speak of the product only (rules: docs/README.md): no work-history talk, issue
## references or markers, links inside the repository and to files and headings that exist,
## README.md at most 200 lines. Names the file and line of each finding.
.PHONY: docs-check
docs-check:
	@bash script/docs_check.sh

## The red-pill suite (crates/testkit/examples/redpill): contracts that act honestly when they
## think they are simulated and steal when they run for real (contracts/mocks/redpill/), each
## run through `pace run --rpc` on the suite's own anvil (loopback, free port, killed by PID)
## and judged from chain state. One line per case, then the summary; fails when a case executed
## with a loss or could not be set up. Dev profile (the build `make test` already made). Then
## the value-moving red pills (a vault that dilutes its shares at execution, one that hides it
## behind a stored rate, a box handed to its caretaker at the owner's check-in) on every entry
## path (standalone and EIP-7702 delegate, direct and through the EntryPoint, landed by a third
## party too): tests/accounts/PostConditionRedPill.t.sol, one line per path.
.PHONY: redpill
redpill: setup
	@$(CARGO) build --quiet --locked -p pace-cli --bin pace
	@$(CARGO) build --quiet --locked -p pace-testkit --features node --example redpill
	@PACE_BIN=$${CARGO_TARGET_DIR:-$(CURDIR)/target}/debug/pace $${CARGO_TARGET_DIR:-$(CURDIR)/target}/debug/examples/redpill
	@set -o pipefail; script/forge-test --match-path tests/accounts/PostConditionRedPill.t.sol | grep -E '^(Ran [0-9]+ tests? for|Suite result)' | paste - - | sed -E 's/^Ran ([0-9]+) tests? for [^:]+:([A-Za-z]+).*Suite result: ([a-zA-Z]+)\. ([0-9]+) passed; ([0-9]+) failed.*/redpill path=\2 cases=\1 passed=\4 failed=\5/'

clean:
	rm -rf out cache target .halmos .slither
