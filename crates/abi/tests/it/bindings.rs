//! Every binding matches the reference artifacts: function selectors (computed here from the
//! artifacts' canonical signatures) and return types, event topics with which arguments are
//! indexed, and error selectors. Each test lists every call and event of its binding, and
//! asserts the list is the binding's whole `SELECTORS`, so nothing is skipped.

use crate::artifacts::{Abi, load, selector, union, workspace_root};
use alloy_primitives::hex;
use alloy_sol_types::{SolCall, SolEvent, SolType};
use pace_abi::bindings::*;
use std::collections::BTreeSet;

const OZ: &str = "@openzeppelin/contracts/build/contracts";
/// OpenZeppelin 3.4, the last major with `increaseAllowance` / `decreaseAllowance` in
/// `ERC20` (a pinned dependency of `@uniswap/v3-periphery`).
const OZ3_ERC20: &str =
    "@uniswap/v3-periphery/node_modules/@openzeppelin/contracts/build/contracts/ERC20.json";
const V2_CORE: &str = "@uniswap/v2-core/build";
const V2_PERIPHERY: &str = "@uniswap/v2-periphery/build";

fn oz(name: &str) -> Abi {
    load(&format!("{OZ}/{name}.json"))
}

fn check_call<C: SolCall>(abi: &Abi) {
    let f = abi.functions.get(&C::SELECTOR).unwrap_or_else(|| {
        panic!(
            "{} (0x{}) is not a function of {}",
            C::SIGNATURE,
            hex::encode(C::SELECTOR),
            abi.name
        )
    });
    assert_eq!(f.signature, C::SIGNATURE, "in {}", abi.name);
    assert_eq!(
        <C::ReturnTuple<'_> as SolType>::SOL_NAME,
        f.outputs,
        "return types of {} in {}",
        C::SIGNATURE,
        abi.name
    );
}

fn check_event<E: SolEvent>(abi: &Abi) {
    let e = abi.events.get(&E::SIGNATURE_HASH).unwrap_or_else(|| {
        panic!(
            "{} ({}) is not an event of {}",
            E::SIGNATURE,
            E::SIGNATURE_HASH,
            abi.name
        )
    });
    assert_eq!(e.signature, E::SIGNATURE, "in {}", abi.name);
    assert!(!E::ANONYMOUS);
    // Topic 0 is the signature hash, then the indexed arguments in order.
    let topics = match e.indexed.strip_prefix("()") {
        Some(_) => "(bytes32)".to_owned(),
        None => format!("(bytes32,{}", &e.indexed[1..]),
    };
    assert_eq!(
        <E::TopicList as SolType>::SOL_NAME,
        topics,
        "indexed arguments of {} in {}",
        E::SIGNATURE,
        abi.name
    );
    assert_eq!(
        <E::DataTuple<'_> as SolType>::SOL_NAME,
        e.data,
        "data arguments of {} in {}",
        E::SIGNATURE,
        abi.name
    );
}

/// Checks each listed call against `abi` and that the list is all of `$calls::SELECTORS`.
macro_rules! calls {
    ($abi:expr, $calls:ty: $($call:ty),+ $(,)?) => {{
        let abi: &Abi = &$abi;
        let mut listed = BTreeSet::new();
        $(
            check_call::<$call>(abi);
            listed.insert(<$call as SolCall>::SELECTOR);
        )+
        let declared: BTreeSet<[u8; 4]> = <$calls>::SELECTORS.iter().copied().collect();
        assert_eq!(listed, declared, "the test must list every call of {}", stringify!($calls));
        listed
    }};
}

/// Checks each listed event against `abi` and that the list is all of `$events::SELECTORS`.
macro_rules! events {
    ($abi:expr, $events:ty: $($event:ty),+ $(,)?) => {{
        let abi: &Abi = &$abi;
        let mut listed = BTreeSet::new();
        $(
            check_event::<$event>(abi);
            listed.insert(<$event as SolEvent>::SIGNATURE_HASH.0);
        )+
        let declared: BTreeSet<[u8; 32]> = <$events>::SELECTORS.iter().copied().collect();
        assert_eq!(listed, declared, "the test must list every event of {}", stringify!($events));
    }};
}

/// Every error of the binding is an error of `abi`, and the other way round.
fn errors_equal(abi: &Abi, signatures: &[&str], selectors: &[[u8; 4]]) {
    let declared: BTreeSet<[u8; 4]> = selectors.iter().copied().collect();
    let computed: BTreeSet<[u8; 4]> = signatures.iter().map(|s| selector(s)).collect();
    assert_eq!(declared, computed, "selectors of {signatures:?}");
    let artifact: BTreeSet<[u8; 4]> = abi.errors.keys().copied().collect();
    assert_eq!(declared, artifact, "errors of {}", abi.name);
}

#[test]
fn erc20_matches_openzeppelin() {
    let abi = union(&[&format!("{OZ}/IERC20Metadata.json"), OZ3_ERC20]);
    use IERC20::*;
    calls!(abi, IERC20Calls:
        nameCall, symbolCall, decimalsCall, totalSupplyCall, balanceOfCall, allowanceCall,
        transferCall, approveCall, transferFromCall, increaseAllowanceCall,
        decreaseAllowanceCall,
    );
    events!(abi, IERC20Events: Transfer, Approval);
}

#[test]
fn erc20_permit_matches_openzeppelin_and_the_v2_pair() {
    use IERC20Permit::*;
    for abi in [
        oz("IERC20Permit"),
        load(&format!("{V2_CORE}/UniswapV2Pair.json")),
    ] {
        calls!(abi, IERC20PermitCalls: permitCall, noncesCall, DOMAIN_SEPARATORCall);
    }
}

#[test]
fn erc20_errors_match_openzeppelin() {
    use IERC20Errors::IERC20ErrorsErrors as E;
    errors_equal(&oz("IERC20Errors"), E::SIGNATURES, E::SELECTORS);
    use ISafeERC20::ISafeERC20Errors as S;
    errors_equal(&oz("SafeERC20"), S::SIGNATURES, S::SELECTORS);
}

#[test]
fn weth9_matches_the_v2_periphery_build() {
    let abi = load(&format!("{V2_PERIPHERY}/WETH9.json"));
    use IWETH9::*;
    calls!(abi, IWETH9Calls: depositCall, withdrawCall);
    events!(abi, IWETH9Events: Deposit, Withdrawal);
}

#[test]
fn erc721_matches_openzeppelin() {
    let abi = oz("IERC721");
    use IERC721::*;
    calls!(abi, IERC721Calls:
        balanceOfCall, ownerOfCall, safeTransferFrom_0Call, safeTransferFrom_1Call,
        transferFromCall, approveCall, setApprovalForAllCall, getApprovedCall,
        isApprovedForAllCall,
    );
    events!(abi, IERC721Events: Transfer, Approval, ApprovalForAll);
    // Same topic as ERC-20's Transfer, one more indexed argument.
    assert_eq!(Transfer::SIGNATURE_HASH, IERC20::Transfer::SIGNATURE_HASH);
}

#[test]
fn erc1155_matches_openzeppelin() {
    let abi = oz("IERC1155");
    use IERC1155::*;
    calls!(abi, IERC1155Calls:
        balanceOfCall, balanceOfBatchCall, setApprovalForAllCall, isApprovedForAllCall,
        safeTransferFromCall, safeBatchTransferFromCall,
    );
    events!(abi, IERC1155Events: TransferSingle, TransferBatch, ApprovalForAll);
}

#[test]
fn erc4626_matches_openzeppelin() {
    let abi = oz("IERC4626");
    use IERC4626::*;
    calls!(abi, IERC4626Calls:
        assetCall, totalAssetsCall, convertToSharesCall, convertToAssetsCall, maxDepositCall,
        previewDepositCall, depositCall, maxMintCall, previewMintCall, mintCall,
        maxWithdrawCall, previewWithdrawCall, withdrawCall, maxRedeemCall, previewRedeemCall,
        redeemCall,
    );
    events!(abi, IERC4626Events: Deposit, Withdraw);
}

#[test]
fn v2_pair_matches_the_core_build() {
    let abi = load(&format!("{V2_CORE}/UniswapV2Pair.json"));
    use IUniswapV2Pair::*;
    calls!(abi, IUniswapV2PairCalls:
        MINIMUM_LIQUIDITYCall, factoryCall, token0Call, token1Call, totalSupplyCall,
        balanceOfCall, getReservesCall, price0CumulativeLastCall, price1CumulativeLastCall,
        kLastCall, mintCall, burnCall, swapCall, skimCall, syncCall,
    );
    events!(abi, IUniswapV2PairEvents: Mint, Burn, Swap, Sync);
}

#[test]
fn v2_factory_matches_the_core_build() {
    let abi = load(&format!("{V2_CORE}/UniswapV2Factory.json"));
    use IUniswapV2Factory::*;
    calls!(abi, IUniswapV2FactoryCalls:
        feeToCall, feeToSetterCall, getPairCall, allPairsCall, allPairsLengthCall,
        createPairCall,
    );
    events!(abi, IUniswapV2FactoryEvents: PairCreated);
}

#[test]
fn router02_is_the_complete_periphery_abi() {
    let abi = load(&format!("{V2_PERIPHERY}/UniswapV2Router02.json"));
    use IUniswapV2Router02::*;
    let listed = calls!(abi, IUniswapV2Router02Calls:
        factoryCall, WETHCall,
        addLiquidityCall, addLiquidityETHCall,
        removeLiquidityCall, removeLiquidityETHCall, removeLiquidityWithPermitCall,
        removeLiquidityETHWithPermitCall, removeLiquidityETHSupportingFeeOnTransferTokensCall,
        removeLiquidityETHWithPermitSupportingFeeOnTransferTokensCall,
        swapExactTokensForTokensCall, swapTokensForExactTokensCall, swapExactETHForTokensCall,
        swapTokensForExactETHCall, swapExactTokensForETHCall, swapETHForExactTokensCall,
        swapExactTokensForTokensSupportingFeeOnTransferTokensCall,
        swapExactETHForTokensSupportingFeeOnTransferTokensCall,
        swapExactTokensForETHSupportingFeeOnTransferTokensCall,
        quoteCall, getAmountOutCall, getAmountInCall, getAmountsOutCall, getAmountsInCall,
    );
    let artifact: BTreeSet<[u8; 4]> = abi.functions.keys().copied().collect();
    assert_eq!(listed, artifact, "the binding is the whole Router02 ABI");
}

/// SwapRouter02's swaps and payments, against the router's npm build.
#[test]
fn swap_router02_matches_its_build() {
    let abi = load(
        "@uniswap/swap-router-contracts/artifacts/contracts/SwapRouter02.sol/SwapRouter02.json",
    );
    use ISwapRouter02::*;
    calls!(abi, ISwapRouter02Calls:
        exactInputSingleCall, exactInputCall, exactOutputSingleCall, exactOutputCall,
        swapExactTokensForTokensCall, swapTokensForExactTokensCall,
        multicall_0Call, multicall_1Call, multicall_2Call,
        sweepToken_0Call, sweepToken_1Call, unwrapWETH9_0Call, unwrapWETH9_1Call, refundETHCall,
        pullCall,
    );
}

/// The account's binding is its whole external interface: every function of `PaceAccount.sol`
/// (with the `owner` getter), every error and event of `IPaceAccount.sol`.
#[test]
fn pace_account_matches_its_sources() {
    let abi = crate::solidity::from_sources(
        "PaceAccount",
        &[
            "contracts/interfaces/IPaceAccount.sol",
            "contracts/PaceAccount.sol",
        ],
    );
    use PaceAccount::*;
    let listed = calls!(abi, PaceAccountCalls:
        executePDRCall, executeBatchPDRCall, executeCall, executeBatchCall, setVerifierCall,
        setPausedCall, cancelNoncesCall, setGrantFilterCall, setBudgetCall, budgetCall, budgetTokensCall, ownerCall,
        verifierCall, pausedCall, nextSequenceCall, grantFilterCall, domainSeparatorCall,
        pdrDigestCall,
        revokeAllowancesCall, revokeRightsCall, validateUserOpCall, executeUserOpPdrCall,
        entryPointCall, onERC721ReceivedCall, onERC1155ReceivedCall, onERC1155BatchReceivedCall,
        supportsInterfaceCall, userOpDomainSeparatorCall, isValidSignatureCall,
    );
    let source: BTreeSet<[u8; 4]> = abi.functions.keys().copied().collect();
    assert_eq!(
        listed, source,
        "the binding is the account's whole external interface"
    );
    events!(abi, PaceAccountEvents:
        PdrExecuted, OwnerExecuted, VerifierRotated, PauseSet, NoncesCancelled, GrantFilterSet,
        BudgetSet,
        BudgetCharged, AllowanceRevoked, RightGranted, RightRevoked, RevocationFailed,
    );
    assert_eq!(abi.events.len(), PaceAccountEvents::SELECTORS.len());
    use PaceAccountErrors as E;
    errors_equal(&abi, E::SIGNATURES, E::SELECTORS);
    // Payable where the source is.
    for call in [executePDRCall::SIGNATURE, executeBatchPDRCall::SIGNATURE] {
        assert_eq!(
            abi.functions[&selector(call)].mutability,
            "payable",
            "{call}"
        );
    }
}

#[test]
fn the_decoder_knows_every_state_changing_router02_function() {
    let abi = load(&format!("{V2_PERIPHERY}/UniswapV2Router02.json"));
    let decoded: BTreeSet<[u8; 4]> = pace_abi::decode::selectors::ALL.into_iter().collect();
    assert_eq!(
        decoded.len(),
        pace_abi::decode::selectors::ALL.len(),
        "no duplicates"
    );
    for (sel, f) in &abi.functions {
        let state_changing = !matches!(f.mutability.as_str(), "view" | "pure");
        assert_eq!(
            decoded.contains(sel),
            state_changing,
            "{} ({})",
            f.signature,
            f.mutability
        );
    }
}

/// No artifact ships the Chainlink interface; these selectors are the ones deployed feeds
/// answer (AggregatorV3Interface), hashed independently of this crate.
#[test]
fn price_oracle_matches_golden_selectors() {
    use IPriceOracle::*;
    let golden: [([u8; 4], &str, &str); 4] = [
        (
            hex!("feaf968c"),
            latestRoundDataCall::SIGNATURE,
            "(uint80,int256,uint256,uint256,uint80)",
        ),
        (hex!("50d25bcd"), latestAnswerCall::SIGNATURE, "(int256)"),
        (hex!("313ce567"), decimalsCall::SIGNATURE, "(uint8)"),
        (hex!("a035b1fe"), priceCall::SIGNATURE, "(uint256)"),
    ];
    let returns = [
        <<latestRoundDataCall as SolCall>::ReturnTuple<'_> as SolType>::SOL_NAME,
        <<latestAnswerCall as SolCall>::ReturnTuple<'_> as SolType>::SOL_NAME,
        <<decimalsCall as SolCall>::ReturnTuple<'_> as SolType>::SOL_NAME,
        <<priceCall as SolCall>::ReturnTuple<'_> as SolType>::SOL_NAME,
    ];
    for ((sel, signature, ret), declared) in golden.iter().zip(returns) {
        assert_eq!(selector(signature), *sel, "{signature}");
        assert_eq!(*ret, declared, "return types of {signature}");
    }
    let declared: BTreeSet<[u8; 4]> = IPriceOracleCalls::SELECTORS.iter().copied().collect();
    let listed: BTreeSet<[u8; 4]> = golden.iter().map(|g| g.0).collect();
    assert_eq!(declared, listed);
    // The project's oracle answers `price()`.
    assert_source_declares("contracts/mocks/MockOracle.sol", "uint256 public price;");
}

/// The generic lending view is what the project's `MockLendingPool` exposes; selectors hashed
/// independently of this crate.
#[test]
fn lending_position_matches_the_mock_lending_pool() {
    use ILendingPosition::*;
    let golden: [([u8; 4], &str, &str); 5] = [
        (
            hex!("6ad9f9df"),
            healthFactorCall::SIGNATURE,
            "function healthFactor(address user) public view returns (uint256)",
        ),
        (
            hex!("b2016bd4"),
            collateralTokenCall::SIGNATURE,
            "IERC20 public immutable collateralToken;",
        ),
        (
            hex!("f8d89898"),
            debtTokenCall::SIGNATURE,
            "IERC20 public immutable debtToken;",
        ),
        (
            hex!("1aefb107"),
            collateralOfCall::SIGNATURE,
            "mapping(address user => uint256 amount) public collateralOf;",
        ),
        (
            hex!("d283e75f"),
            debtOfCall::SIGNATURE,
            "mapping(address user => uint256 amount) public debtOf;",
        ),
    ];
    for (sel, signature, declaration) in golden {
        assert_eq!(selector(signature), sel, "{signature}");
        assert_source_declares("contracts/mocks/MockLendingPool.sol", declaration);
    }
    let declared: BTreeSet<[u8; 4]> = ILendingPositionCalls::SELECTORS.iter().copied().collect();
    let listed: BTreeSet<[u8; 4]> = golden.iter().map(|g| g.0).collect();
    assert_eq!(declared, listed);
}

#[track_caller]
fn assert_source_declares(relative: &str, declaration: &str) {
    let path = workspace_root().join(relative);
    let source = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        squash(&source).contains(&squash(declaration)),
        "{relative} no longer declares `{declaration}`"
    );
}
