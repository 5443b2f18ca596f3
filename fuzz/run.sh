#!/usr/bin/env bash
# `make fuzz`: builds the cargo-fuzz targets with the nightly toolchain and runs each for
# FUZZ_SECS seconds (default 30). The committed seeds in fuzz/corpus/<target>/ are read only;
# libFuzzer writes what it finds to target/fuzz-corpus/<target>/ (kept between runs), crashes
# to fuzz/artifacts/<target>/ (ignored by git). Logs: target/fuzz-logs/. Exits non-zero when a
# target crashes, times out or fails to build.
#
# Environment: FUZZ_SECS (per target), FUZZ_TARGETS (space-separated subset),
# FUZZ_SANITIZER (none by default: the project's crates forbid `unsafe`; `address` works too,
# slower), FUZZ_ARGS (extra libFuzzer flags, e.g. "-jobs=2").
set -uo pipefail
cd "$(dirname "$0")/.."

CARGO_FUZZ_VERSION=0.13.2
SECS=${FUZZ_SECS:-30}
TARGETS=${FUZZ_TARGETS:-"load_intent load_policy load_report decode_call verify simulate"}
BUILD=(--sanitizer "${FUZZ_SANITIZER:-none}" --debug-assertions)
LOGS=target/fuzz-logs

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    echo "fuzz: the nightly toolchain is missing (rustup toolchain list)" >&2
    exit 2
fi
if [ "$(cargo fuzz --version 2>/dev/null)" != "cargo-fuzz $CARGO_FUZZ_VERSION" ]; then
    cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked || exit 2
fi
# cargo-fuzz has no --locked: check the committed fuzz/Cargo.lock is complete first.
cargo +nightly fetch --locked --manifest-path fuzz/Cargo.toml || exit 2
mkdir -p "$LOGS"; : >"$LOGS/build.log"
echo "fuzz: building the targets with nightly (${BUILD[*]}; log $LOGS/build.log)"
for t in $TARGETS; do
    if ! cargo +nightly fuzz build "${BUILD[@]}" "$t" >>"$LOGS/build.log" 2>&1; then
        tail -n 40 "$LOGS/build.log"
        echo "fuzz: building $t failed" >&2
        exit 1
    fi
done
failed=()
summary=$(printf '%-12s %12s %9s %9s %8s %8s  %s\n' target execs exec/s new-units cov corpus result)
for t in $TARGETS; do
    scratch=target/fuzz-corpus/$t
    mkdir -p "$scratch"
    seeds=()
    [ -d "fuzz/corpus/$t" ] && seeds=("fuzz/corpus/$t")
    echo "fuzz: $t for ${SECS}s"
    # shellcheck disable=SC2086
    cargo +nightly fuzz run "${BUILD[@]}" "$t" "$scratch" "${seeds[@]}" -- \
        -max_total_time="$SECS" -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 \
        ${FUZZ_ARGS:-} >"$LOGS/$t.log" 2>&1
    rc=$?
    stat() { grep -m1 "^stat::$1:" "$LOGS/$t.log" | awk '{print $2}'; }
    last=$(grep -E '^#[0-9]+' "$LOGS/$t.log" | tail -1)
    cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
    corp=$(sed -nE 's/.* corp: ([0-9]+).*/\1/p' <<<"$last")
    result=ok
    if [ $rc -ne 0 ]; then
        result="FAILED (exit $rc, log $LOGS/$t.log)"
        failed+=("$t")
        echo "---- $t: last lines of $LOGS/$t.log ----"
        tail -n 60 "$LOGS/$t.log"
    fi
    summary+=$'\n'$(printf '%-12s %12s %9s %9s %8s %8s  %s' "$t" "$(stat number_of_executed_units)" \
        "$(stat average_exec_per_sec)" "$(stat new_units_added)" "${cov:-?}" "${corp:-?}" "$result")
done
echo
echo "$summary" | tee "$LOGS/summary.txt"
if [ ${#failed[@]} -ne 0 ]; then
    echo "fuzz: crashed: ${failed[*]} (inputs in fuzz/artifacts/; reproduce with" \
        "cargo +nightly fuzz run ${BUILD[*]} <target> <artifact>)" >&2
    exit 1
fi
