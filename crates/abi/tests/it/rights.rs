//! The rights and lending-health bindings match the protocols: the Aave V3 ones against the npm
//! artifacts, Permit2's against the project's Permit2-compatible contract (whose ABI is
//! Permit2's `IAllowanceTransfer`), and the Compound-style views against their published
//! signatures, hashed here.

use crate::artifacts::{Abi, load, selector};
use crate::solidity::from_sources;
use alloy_primitives::{hex, keccak256};
use alloy_sol_types::{SolCall, SolEvent, SolType};
use pace_abi::rights::*;

fn check<C: SolCall>(abi: &Abi) {
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

fn check_event<E: SolEvent>(abi: &Abi, indexed: &str) {
    let e = abi
        .events
        .get(&E::SIGNATURE_HASH)
        .unwrap_or_else(|| panic!("{} is not an event of {}", E::SIGNATURE, abi.name));
    assert_eq!(e.signature, E::SIGNATURE);
    assert_eq!(e.indexed, indexed, "indexed arguments of {}", E::SIGNATURE);
}

#[test]
fn credit_delegation_matches_the_aave_debt_token() {
    use ICreditDelegation as D;
    let token = load(
        "@aave/core-v3/artifacts/contracts/protocol/tokenization/VariableDebtToken.sol/VariableDebtToken.json",
    );
    check::<D::approveDelegationCall>(&token);
    check::<D::delegationWithSigCall>(&token);
    check::<D::borrowAllowanceCall>(&token);
    check::<D::UNDERLYING_ASSET_ADDRESSCall>(&token);
    check::<D::POOLCall>(&token);
    check_event::<D::BorrowAllowanceDelegated>(&token, "(address,address,address)");
    assert_eq!(D::ICreditDelegationCalls::SELECTORS.len(), 5);
}

#[test]
fn aave_pool_views_match_the_npm_artifact() {
    use IAaveV3Pool as P;
    let pool = load("@aave/core-v3/artifacts/contracts/protocol/pool/Pool.sol/Pool.json");
    check::<P::getUserAccountDataCall>(&pool);
    check::<P::getUserEModeCall>(&pool);
    // A struct's `SOL_NAME` is its name: compare the artifact's tuples by hand.
    let outputs = |sel: [u8; 4]| pool.functions[&sel].outputs.clone();
    assert_eq!(
        outputs(P::getUserConfigurationCall::SELECTOR),
        "((uint256))"
    );
    assert_eq!(
        outputs(P::getReserveDataCall::SELECTOR),
        "(((uint256),uint128,uint128,uint128,uint128,uint128,uint40,uint16,address,address,\
         address,address,uint128,uint128,uint128))"
    );
    for sel in [
        P::getUserConfigurationCall::SELECTOR,
        P::getReserveDataCall::SELECTOR,
    ] {
        assert!(pool.functions.contains_key(&sel));
    }
    assert_eq!(P::IAaveV3PoolCalls::SELECTORS.len(), 4);
}

#[test]
fn permit2_matches_the_allowance_transfer_abi() {
    use IPermit2 as P;
    let abi = from_sources(
        "MockPermit2",
        &["contracts/mocks/protocols/MockPermit2.sol"],
    );
    check::<P::approveCall>(&abi);
    check::<P::permit_0Call>(&abi);
    check::<P::permit_1Call>(&abi);
    check::<P::lockdownCall>(&abi);
    // `allowance` is a public mapping there: its getter's signature, hashed here.
    assert_eq!(
        P::allowanceCall::SIGNATURE,
        "allowance(address,address,address)"
    );
    check_event::<P::Approval>(&abi, "(address,address,address)");
    check_event::<P::Permit>(&abi, "(address,address,address)");
    check_event::<P::Lockdown>(&abi, "(address)");
    // Permit2's own selectors, as its published interface has them.
    assert_eq!(P::approveCall::SELECTOR, hex!("87517c45"));
    assert_eq!(P::allowanceCall::SELECTOR, hex!("927da105"));
    assert_eq!(
        P::Approval::SIGNATURE_HASH,
        keccak256("Approval(address,address,address,uint160,uint48)")
    );
}

#[test]
fn compound_views_have_the_published_signatures() {
    let golden: [([u8; 4], &str); 11] = [
        (
            selector("comptroller()"),
            ICompoundMarket::comptrollerCall::SIGNATURE,
        ),
        (
            selector("underlying()"),
            ICompoundMarket::underlyingCall::SIGNATURE,
        ),
        (
            hex!("95dd9193"),
            ICompoundMarket::borrowBalanceStoredCall::SIGNATURE,
        ),
        (
            hex!("17bfdfbc"),
            ICompoundMarket::borrowBalanceCurrentCall::SIGNATURE,
        ),
        (
            hex!("3af9e669"),
            ICompoundMarket::balanceOfUnderlyingCall::SIGNATURE,
        ),
        (
            hex!("c37f68e2"),
            ICompoundMarket::getAccountSnapshotCall::SIGNATURE,
        ),
        (
            hex!("5ec88c79"),
            ICompoundComptroller::getAccountLiquidityCall::SIGNATURE,
        ),
        (
            hex!("abfceffc"),
            ICompoundComptroller::getAssetsInCall::SIGNATURE,
        ),
        (
            selector("oracle()"),
            ICompoundComptroller::oracleCall::SIGNATURE,
        ),
        (
            hex!("fc57d4df"),
            ICompoundComptroller::getUnderlyingPriceCall::SIGNATURE,
        ),
        (
            hex!("fc57d4df"),
            ICompoundOracle::getUnderlyingPriceCall::SIGNATURE,
        ),
    ];
    for (sel, signature) in golden {
        assert_eq!(selector(signature), sel, "{signature}");
    }
    // The project's Compound-style market declares the same.
    let market = from_sources(
        "MockCToken",
        &[
            "contracts/mocks/protocols/MockCToken.sol",
            "contracts/mocks/protocols/MockComptroller.sol",
        ],
    );
    for sel in [
        ICompoundMarket::borrowBalanceStoredCall::SELECTOR,
        ICompoundMarket::borrowBalanceCurrentCall::SELECTOR,
        ICompoundMarket::balanceOfUnderlyingCall::SELECTOR,
        ICompoundMarket::getAccountSnapshotCall::SELECTOR,
        ICompoundComptroller::getAccountLiquidityCall::SELECTOR,
        ICompoundComptroller::getAssetsInCall::SELECTOR,
        ICompoundComptroller::getUnderlyingPriceCall::SELECTOR,
    ] {
        assert!(
            market.functions.contains_key(&sel),
            "0x{} is not declared",
            hex::encode(sel)
        );
    }
}
