//! The hand-written `sol!` declarations match the compiled ABIs, selector for selector.

use alloy_sol_types::{SolCall, SolError};
use pace_contracts::{artifacts, bindings::*};
use std::collections::BTreeSet;

struct Abi {
    functions: BTreeSet<String>,
    errors: BTreeSet<String>,
    events: BTreeSet<String>,
}

fn abi(name: &str) -> Abi {
    let artifact = artifacts()
        .expect("compile contracts/")
        .get(name)
        .expect(name);
    Abi {
        functions: artifact.abi.functions().map(|f| f.signature()).collect(),
        errors: artifact.abi.errors().map(|e| e.signature()).collect(),
        events: artifact.abi.events().map(|e| e.signature()).collect(),
    }
}

fn uniswap_abi(name: &str) -> Abi {
    let artifact = pace_contracts::uniswap_v2(name).expect(name);
    Abi {
        functions: artifact.abi.functions().map(|f| f.signature()).collect(),
        errors: artifact.abi.errors().map(|e| e.signature()).collect(),
        events: artifact.abi.events().map(|e| e.signature()).collect(),
    }
}

fn set(sigs: &[&str]) -> BTreeSet<String> {
    sigs.iter().map(|s| (*s).to_owned()).collect()
}

/// The ERC-20 functions every token here has: `IERC20` without the OpenZeppelin 2-4
/// `increaseAllowance` / `decreaseAllowance`, which OpenZeppelin 5 and the Uniswap builds do not
/// have (`pace-abi` checks those against OpenZeppelin 3).
fn erc20_functions() -> Vec<&'static str> {
    let extensions = [
        IERC20::increaseAllowanceCall::SIGNATURE,
        IERC20::decreaseAllowanceCall::SIGNATURE,
    ];
    IERC20::IERC20Calls::SIGNATURES
        .iter()
        .copied()
        .filter(|s| !extensions.contains(s))
        .collect()
}

#[track_caller]
fn subset(what: &str, declared: &[&str], compiled: &BTreeSet<String>) {
    let missing: Vec<_> = set(declared).difference(compiled).cloned().collect();
    assert!(
        missing.is_empty(),
        "{what}: declared but not in the compiled ABI: {missing:?}"
    );
}

#[test]
fn pace_account_bindings_equal_the_abi() {
    let abi = abi("PaceAccount");
    assert_eq!(
        set(PaceAccount::PaceAccountCalls::SIGNATURES),
        abi.functions
    );
    assert_eq!(set(PaceAccount::PaceAccountErrors::SIGNATURES), abi.errors);
    assert_eq!(set(PaceAccount::PaceAccountEvents::SIGNATURES), abi.events);
    // The interface declares a subset of the account.
    let iface = self::abi("IPaceAccount");
    assert!(iface.errors == abi.errors && iface.events == abi.events);
}

#[test]
fn pace_delegate_bindings_with_the_account_s_equal_the_abi() {
    let abi = abi("PaceDelegate");
    let union = |own: &[&str], shared: &[&str]| -> BTreeSet<String> {
        set(own).union(&set(shared)).cloned().collect()
    };
    // The getter of the public constant `LAYOUT_VERSION`, which the interface leaves out (its
    // name is a constant's, not a function's); `layoutVersion()` reads what is stored.
    let mut functions = abi.functions.clone();
    assert!(functions.remove("LAYOUT_VERSION()"));
    assert_eq!(
        union(
            PaceDelegate::PaceDelegateCalls::SIGNATURES,
            PaceAccount::PaceAccountCalls::SIGNATURES
        ),
        functions
    );
    assert_eq!(
        union(
            PaceDelegate::PaceDelegateErrors::SIGNATURES,
            PaceAccount::PaceAccountErrors::SIGNATURES
        ),
        abi.errors
    );
    assert_eq!(
        union(
            PaceDelegate::PaceDelegateEvents::SIGNATURES,
            PaceAccount::PaceAccountEvents::SIGNATURES
        ),
        abi.events
    );
}

#[test]
fn erc20_and_mock_bindings_are_in_the_abis() {
    let token = abi("MockERC20");
    subset("IERC20 functions", &erc20_functions(), &token.functions);
    subset(
        "IERC20 events",
        IERC20::IERC20Events::SIGNATURES,
        &token.events,
    );
    subset(
        "IERC20Errors",
        IERC20Errors::IERC20ErrorsErrors::SIGNATURES,
        &token.errors,
    );
    subset(
        "MockERC20",
        MockERC20::MockERC20Calls::SIGNATURES,
        &token.functions,
    );

    let fot = abi("FeeOnTransferERC20");
    subset(
        "FeeOnTransferERC20",
        FeeOnTransferERC20::FeeOnTransferERC20Calls::SIGNATURES,
        &fot.functions,
    );
    subset(
        "FeeOnTransferERC20 events",
        FeeOnTransferERC20::FeeOnTransferERC20Events::SIGNATURES,
        &fot.events,
    );

    let pair = abi("MockAmmPair");
    subset(
        "MockAmmPair",
        MockAmmPair::MockAmmPairCalls::SIGNATURES,
        &pair.functions,
    );
    subset(
        "MockAmmPair errors",
        MockAmmPair::MockAmmPairErrors::SIGNATURES,
        &pair.errors,
    );
    subset(
        "MockAmmPair events",
        MockAmmPair::MockAmmPairEvents::SIGNATURES,
        &pair.events,
    );

    let router = abi("MockAmmRouter");
    assert_eq!(
        set(MockAmmRouter::MockAmmRouterCalls::SIGNATURES),
        router.functions
    );
    subset(
        "MockAmmRouter errors",
        MockAmmRouter::MockAmmRouterErrors::SIGNATURES,
        &router.errors,
    );
    subset(
        "MockAmmRouter events",
        MockAmmRouter::MockAmmRouterEvents::SIGNATURES,
        &router.events,
    );

    let evil = abi("MaliciousRouter");
    assert_eq!(
        set(MaliciousRouter::MaliciousRouterCalls::SIGNATURES),
        evil.functions
    );
    subset(
        "MaliciousRouter errors",
        MaliciousRouter::MaliciousRouterErrors::SIGNATURES,
        &evil.errors,
    );

    let sink = abi("HiddenSink");
    assert_eq!(set(HiddenSink::HiddenSinkCalls::SIGNATURES), sink.functions);
    subset(
        "HiddenSink events",
        HiddenSink::HiddenSinkEvents::SIGNATURES,
        &sink.events,
    );

    let drainer = abi("ApprovalDrainer");
    assert_eq!(
        set(ApprovalDrainer::ApprovalDrainerCalls::SIGNATURES),
        drainer.functions
    );
    subset(
        "ApprovalDrainer events",
        ApprovalDrainer::ApprovalDrainerEvents::SIGNATURES,
        &drainer.events,
    );

    let oracle = abi("MockOracle");
    assert_eq!(
        set(MockOracle::MockOracleCalls::SIGNATURES),
        oracle.functions
    );
    assert_eq!(set(MockOracle::MockOracleEvents::SIGNATURES), oracle.events);

    let pool = abi("MockLendingPool");
    assert_eq!(
        set(MockLendingPool::MockLendingPoolCalls::SIGNATURES),
        pool.functions
    );
    subset(
        "MockLendingPool errors",
        MockLendingPool::MockLendingPoolErrors::SIGNATURES,
        &pool.errors,
    );
    assert_eq!(
        set(MockLendingPool::MockLendingPoolEvents::SIGNATURES),
        pool.events
    );

    let reentrant = abi("ReentrantTarget");
    assert_eq!(
        set(ReentrantTarget::ReentrantTargetCalls::SIGNATURES),
        reentrant.functions
    );
    assert_eq!(
        set(ReentrantTarget::ReentrantTargetEvents::SIGNATURES),
        reentrant.events
    );

    let reference = abi("ReferenceAccount");
    assert_eq!(
        set(ReferenceAccount::ReferenceAccountCalls::SIGNATURES),
        reference.functions
    );
    subset(
        "ReferenceAccount errors",
        ReferenceAccount::ReferenceAccountErrors::SIGNATURES,
        &reference.errors,
    );
    assert_eq!(
        set(ReferenceAccount::ReferenceAccountEvents::SIGNATURES),
        reference.events
    );

    // The drainer uses `safeTransferFrom` only, so its ABI has only that failure of
    // `SafeERC20`.
    let safe = abi("ApprovalDrainer");
    subset(
        "SafeERC20",
        &[ISafeERC20::SafeERC20FailedOperation::SIGNATURE],
        &safe.errors,
    );
}

#[test]
fn uniswap_bindings_are_in_the_npm_abis() {
    let factory = uniswap_abi("UniswapV2Factory");
    subset(
        "factory",
        IUniswapV2Factory::IUniswapV2FactoryCalls::SIGNATURES,
        &factory.functions,
    );
    subset(
        "factory events",
        IUniswapV2Factory::IUniswapV2FactoryEvents::SIGNATURES,
        &factory.events,
    );
    let pair = uniswap_abi("UniswapV2Pair");
    subset(
        "pair",
        IUniswapV2Pair::IUniswapV2PairCalls::SIGNATURES,
        &pair.functions,
    );
    subset(
        "pair events",
        IUniswapV2Pair::IUniswapV2PairEvents::SIGNATURES,
        &pair.events,
    );
    subset("pair erc20", &erc20_functions(), &pair.functions);
    let router = uniswap_abi("UniswapV2Router02");
    subset(
        "router",
        IUniswapV2Router02::IUniswapV2Router02Calls::SIGNATURES,
        &router.functions,
    );
    let weth = uniswap_abi("WETH9");
    subset("weth", IWETH9::IWETH9Calls::SIGNATURES, &weth.functions);
    subset(
        "weth events",
        IWETH9::IWETH9Events::SIGNATURES,
        &weth.events,
    );
    subset("weth erc20", &erc20_functions(), &weth.functions);
    let deflating = uniswap_abi("DeflatingERC20");
    subset("deflating erc20", &erc20_functions(), &deflating.functions);
}
