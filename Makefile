# PACE-rs tasks. Every target installs what it needs (npm packages from package-lock.json, Rust
# crates from Cargo.lock) before doing its job, so each works on a fresh clone.

SHELL := /bin/bash
export PATH := $(CURDIR)/node_modules/.bin:$(PATH)
FORGE := $(CURDIR)/node_modules/.bin/forge
CARGO ?= cargo

.PHONY: all setup demo test test-sol test-rust lint fmt gas gas-check bench reproduce clean

all: test

## Install the offline Solidity toolchain (forge, anvil, solcjs, forge-std, third-party contracts).
node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

setup: node_modules/.package-lock.json

## The main job on the embedded in-process EVM.
demo: setup
	$(CARGO) run --quiet --locked -p pace-cli -- demo

## All tests: forge (unit, fuzz, invariant, golden vector) then cargo.
test: test-sol test-rust

test-sol: setup
	$(FORGE) test

test-rust: setup
	$(CARGO) test --workspace --locked

lint: setup
	$(FORGE) fmt --check contracts tests script
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings

fmt: setup
	$(FORGE) fmt contracts tests script
	$(CARGO) fmt --all

## Gas overhead of PDR execution over the owner's raw call, in isolated transactions.
gas: setup
	PACE_GAS_ISOLATED=true $(FORGE) snapshot --isolate --match-path 'tests/gas/*' --snap .gas-snapshot > /dev/null
	@PACE_GAS_ISOLATED=true $(FORGE) test --isolate --match-path 'tests/gas/*' -vv | tee target-gas.log | grep -E '^\s+(raw_tx_gas|tx_overhead) ' | sed 's/^ *//'
	@grep -E '^\s+overhead ' target-gas.log | sed 's/^ *//'; rm -f target-gas.log

## Fails when the gas snapshot drifts by more than 1%.
gas-check: setup
	PACE_GAS_ISOLATED=true $(FORGE) snapshot --isolate --match-path 'tests/gas/*' --snap .gas-snapshot --check --tolerance 1

bench: setup
	$(CARGO) bench -p pace-verifier

## The paper's evaluation on the embedded EVM (release build): tables on stdout, CSV, JSON and PNGs in bench-out/.
reproduce: setup
	$(CARGO) run --release --locked -p pace-cli -- bench --out bench-out --json bench-out/summary.json

clean:
	rm -rf out cache target
