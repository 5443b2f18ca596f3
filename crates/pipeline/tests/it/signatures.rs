//! The account's own signature (ERC-1271) on the bed's Universal Router and Permit2-compatible
//! contract: a PDR signs a `PermitSingle` for the router with `approveHash`, and the router's
//! `PERMIT2_PERMIT` command asks the account `isValidSignature` in the same transaction. The
//! verifier judges the typed data as Permit2's `permit`: the honest swap is approved and
//! executes; a permit to a stranger, an unlimited one, typed data that does not hash to the
//! signed digest, one for another chain or of a kind not read, and one whose Permit2 `permit`
//! the policy does not allow are refused. After the PDR the account signs nothing.

use crate::protocols_bed::{Bed, bed, codes, selector};
use alloy_primitives::{Address, Bytes, U256, aliases::U48, aliases::U160, keccak256};
use alloy_sol_types::{SolCall, SolValue};
use pace_abi::{
    bindings::{IERC20, PaceAccount},
    decode::typed_data::{IPaceSignatures, SignedMessage, signing_call_data},
    rights::IPermit2,
};
use pace_pipeline::ExecutionResult;
use pace_testkit::protocols::{
    bindings::{MockPermit2, UniversalRouter as Router},
    uniswap_v3::{FEE_MEDIUM, deadline},
    universal_router::{commands, permit2_permit, v3_path, v3_swap_exact_in},
};
use pace_types::{Call, Policy, RightKind, ViolationCode as Code, units::ether};

fn stranger() -> Address {
    Address::from_word(keccak256("pace-signatures/stranger"))
}

fn policy(b: &Bed) -> Policy {
    let (a, ur) = (b.a(), b.bed.universal_router);
    b.policy(
        &[a.weth, a.dai, ur.permit2, ur.router],
        &[
            selector::<IERC20::approveCall>(),
            selector::<IPermit2::permit_0Call>(),
            selector::<Router::executeCall>(),
        ],
        &[],
        &[ur.permit2, ur.router, b.bed.uniswap_v3.weth_dai.address],
    )
}

fn permit(b: &Bed, spender: Address, amount: U160) -> IPermit2::PermitSingle {
    let expiration = b.world.evm.timestamp() + 600;
    IPermit2::PermitSingle {
        details: IPermit2::PermitDetails {
            token: b.a().weth,
            amount,
            expiration: U48::from(expiration),
            nonce: U48::ZERO,
        },
        spender,
        sigDeadline: U256::from(expiration),
    }
}

/// `permit` as the bed's Permit2 bindings spell it (the same ABI type).
fn as_mock(permit: &IPermit2::PermitSingle) -> MockPermit2::PermitSingle {
    MockPermit2::PermitSingle::abi_decode(&permit.abi_encode()).expect("the same type")
}

/// The account's signing call of `permit`, in Permit2's domain on `chain_id`.
fn signing_call(b: &Bed, chain_id: u64, permit: &IPermit2::PermitSingle) -> Call {
    let ur = b.bed.universal_router;
    Call {
        target: b.a().account,
        value: U256::ZERO,
        data: signing_call_data(
            &ur.permit2_domain(chain_id),
            &SignedMessage::Permit2Single(permit.clone()),
        ),
    }
}

/// WETH approved to Permit2, `signing` (the account's signature, if any), then the router's
/// `PERMIT2_PERMIT` of `permit` and a 1 WETH -> DAI V3 swap paid through Permit2.
fn swap(b: &Bed, signing: Option<Call>, permit: &IPermit2::PermitSingle) -> Vec<Call> {
    let (a, ur, v3) = (b.a(), b.bed.universal_router, b.bed.uniswap_v3);
    // QuoterV2's quote less 0.5 %: an honest minimum.
    let quote = v3
        .quote(&b.world.evm, &v3.weth_dai, a.weth, ether(1))
        .unwrap();
    let swap = v3_swap_exact_in(
        a.account,
        ether(1),
        quote * U256::from(9_950u64) / U256::from(10_000u64),
        v3_path(&[(a.weth, FEE_MEDIUM)], a.dai),
        true,
    );
    let plan = [
        (
            commands::PERMIT2_PERMIT,
            permit2_permit(&as_mock(permit), &[]),
        ),
        (commands::V3_SWAP_EXACT_IN, swap),
    ];
    let mut calls = vec![ur.approve_permit2(a.weth, ether(1))];
    calls.extend(signing);
    calls.push(ur.execute(&plan, deadline(&b.world.evm).unwrap()));
    calls
}

fn is_valid_signature(b: &Bed, hash: alloy_primitives::B256) -> [u8; 4] {
    let answer = b
        .world
        .evm
        .view_sol(
            b.a().account,
            &PaceAccount::isValidSignatureCall {
                hash,
                signature: Bytes::new(),
            },
        )
        .expect("isValidSignature");
    answer.0
}

#[test]
fn a_permit_the_pdr_signs_pays_the_routers_swap_and_then_signs_nothing() {
    let mut b = bed();
    let (a, ur) = (b.a(), b.bed.universal_router);
    let chain = b.world.evm.chain_id();
    let p = permit(&b, ur.router, U160::from(ether(1)));
    let calls = swap(&b, Some(signing_call(&b, chain, &p)), &p);
    let e = b.evaluate_claimed(b.intent(calls), &policy(&b));
    assert!(e.decision.approved(), "{:?}", e.decision.violations);
    let right = e
        .report
        .rights
        .iter()
        .find(|r| r.kind == RightKind::Permit2Allowance)
        .expect("the permit's allowance, as the simulation saw Permit2 record it");
    assert_eq!((right.holder, right.token), (ur.router, Some(a.weth)));

    let (weth, dai) = (b.balance(a.weth, a.account), b.balance(a.dai, a.account));
    let result = b.submit(&e, &[a.weth, a.dai]);
    assert!(
        matches!(result, ExecutionResult::Executed { .. }),
        "{result:?}"
    );
    assert_eq!(weth - b.balance(a.weth, a.account), ether(1));
    assert!(b.balance(a.dai, a.account) > dai, "the swap paid out");
    let digest = ur.permit_digest(chain, &as_mock(&p));
    assert_eq!(
        is_valid_signature(&b, digest),
        [0xff; 4],
        "signs nothing afterwards"
    );
}

/// Without the signing call the router's permit fails: the simulation shows it, refused.
#[test]
fn without_the_accounts_signature_the_permit_fails_and_is_refused() {
    let b = bed();
    let p = permit(&b, b.bed.universal_router.router, U160::from(ether(1)));
    let e = b.evaluate(&b.intent(swap(&b, None, &p)), &policy(&b));
    assert!(
        codes(&e).contains(&Code::SimulationFailed),
        "{:?}",
        e.decision
    );
}

#[test]
fn a_signed_permit_to_a_stranger_or_unlimited_is_refused() {
    let b = bed();
    let chain = b.world.evm.chain_id();
    let a = b.a();
    // The stranger's permit is only signed, never used in the PDR: the typed data alone says
    // what the signature grants.
    let to_stranger = permit(&b, stranger(), U160::from(ether(1)));
    let calls = vec![signing_call(&b, chain, &to_stranger)];
    let e = b.evaluate(&b.intent(calls), &policy(&b));
    assert!(
        codes(&e).contains(&Code::SpenderNotAllowed),
        "{:?}",
        e.decision
    );

    let unlimited = permit(&b, b.bed.universal_router.router, U160::MAX);
    let calls = swap(&b, Some(signing_call(&b, chain, &unlimited)), &unlimited);
    let e = b.evaluate_claimed(b.intent(calls), &policy(&b));
    assert!(
        codes(&e).contains(&Code::UnlimitedApproval),
        "{:?}",
        e.decision
    );
    let _ = a;
}

#[test]
fn typed_data_that_is_not_what_the_digest_signs_is_refused() {
    let b = bed();
    let chain = b.world.evm.chain_id();
    let ur = b.bed.universal_router;
    let small = permit(&b, ur.router, U160::from(1u64));
    let large = permit(&b, ur.router, U160::from(ether(1)));
    // The digest of the large permit, the typed data of the small one.
    let signed =
        IPaceSignatures::approveHashCall::abi_decode(&signing_call(&b, chain, &large).data)
            .unwrap();
    let shown = IPaceSignatures::approveHashCall::abi_decode(&signing_call(&b, chain, &small).data)
        .unwrap();
    let forged = IPaceSignatures::approveHashCall {
        digest: signed.digest,
        domain: shown.domain.clone(),
        message: shown.message.clone(),
    };
    let mut calls = swap(&b, None, &large);
    calls.insert(
        1,
        Call {
            target: b.a().account,
            value: U256::ZERO,
            data: forged.abi_encode().into(),
        },
    );
    let e = b.evaluate_claimed(b.intent(calls), &policy(&b));
    assert!(
        codes(&e).contains(&Code::MalformedCalldata),
        "{:?}",
        e.decision
    );

    // Another chain's domain.
    let calls = swap(&b, Some(signing_call(&b, chain + 1, &large)), &large);
    let e = b.evaluate(&b.intent(calls), &policy(&b));
    assert!(
        codes(&e).contains(&Code::MalformedCalldata),
        "{:?}",
        e.decision
    );

    // A kind of typed data the verifier does not read: a witness the account cannot judge.
    let unknown = (
        keccak256("Order(address maker,uint256 amount)"),
        b.a().account,
        ether(1),
    )
        .abi_encode_params();
    let call = IPaceSignatures::approveHashCall {
        digest: keccak256(b"anything"),
        domain: shown.domain,
        message: unknown.into(),
    };
    let calls = vec![Call {
        target: b.a().account,
        value: U256::ZERO,
        data: call.abi_encode().into(),
    }];
    let e = b.evaluate(&b.intent(calls), &policy(&b));
    assert!(
        codes(&e).contains(&Code::MalformedCalldata),
        "{:?}",
        e.decision
    );
}

/// The signature is judged as Permit2's `permit`: a policy that does not allow that function
/// does not allow the signature either.
#[test]
fn a_policy_without_permit2s_permit_refuses_the_signature() {
    let b = bed();
    let (a, ur) = (b.a(), b.bed.universal_router);
    let chain = b.world.evm.chain_id();
    let p = permit(&b, ur.router, U160::from(ether(1)));
    let mut policy = policy(&b);
    policy
        .allowed_selectors
        .retain(|s| s.0 != selector::<IPermit2::permit_0Call>());
    let e = b.evaluate_claimed(
        b.intent(swap(&b, Some(signing_call(&b, chain, &p)), &p)),
        &policy,
    );
    assert!(
        codes(&e).contains(&Code::SelectorNotAllowed),
        "{:?}",
        e.decision
    );
    let _ = a;
}
