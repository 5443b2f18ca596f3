//! The Universal Router 2.1 (npm bytecode) over the Permit2-compatible contract: the
//! everyday swap through Permit2 from the account's owner path, and signed permits from a key.

use crate::common::{bed, execute};
use alloy::signers::{SignerSync as _, local::PrivateKeySigner};
use alloy_primitives::{
    Address, Bytes, U256,
    aliases::{U48, U160},
};
use alloy_sol_types::{SolError, SolInterface};
use pace_contracts::bindings::{IERC20, MockERC20};
use pace_testkit::protocols::{
    actions::balance,
    bindings::{MockPermit2, UniversalRouter as Router},
    ether,
    uniswap_v3::{FEE_MEDIUM, deadline},
    universal_router::{commands, permit2_permit, permit2_transfer_from},
};

/// Approve WETH to Permit2, `Permit2.approve` the router, `execute` a V3 exact-input swap paid
/// by the account: the pool is paid through Permit2, which spends both allowances.
#[test]
fn v3_swap_through_the_universal_router_and_permit2() {
    let (mut world, bed) = bed();
    let (a, ur, v3) = (world.addrs, bed.universal_router, bed.uniswap_v3);
    let quoted = v3
        .quote(&world.evm, &v3.weth_dai, a.weth, ether(1))
        .unwrap();
    let dai_before = balance(&world.evm, a.dai, a.account).unwrap();
    let expiration = world.evm.timestamp() + 600;
    let swap = ur.v3_swap_via_permit2(
        &[(a.weth, FEE_MEDIUM)],
        a.dai,
        ether(1),
        quoted,
        a.account,
        expiration,
        deadline(&world.evm).unwrap(),
    );
    execute(&mut world, &swap);
    assert_eq!(
        balance(&world.evm, a.dai, a.account).unwrap() - dai_before,
        quoted
    );
    let (amount, exp, nonce) = ur
        .allowance(&world.evm, a.account, a.weth, ur.router)
        .unwrap();
    assert_eq!(
        (amount, exp, nonce),
        (U256::ZERO, expiration, 0),
        "spent through Permit2"
    );
    let erc20 = world
        .evm
        .view_sol(
            a.weth,
            &IERC20::allowanceCall {
                owner: a.account,
                spender: ur.permit2,
            },
        )
        .unwrap();
    assert_eq!(erc20, U256::ZERO, "Permit2 pulled the approved WETH");
}

/// The same through the world's Uniswap V2 pair (`V2_SWAP_EXACT_IN`, payer = the account).
#[test]
fn v2_swap_through_the_universal_router_and_permit2() {
    let (mut world, bed) = bed();
    let (a, ur) = (world.addrs, bed.universal_router);
    let dai_before = balance(&world.evm, a.dai, a.account).unwrap();
    let weth_before = balance(&world.evm, a.weth, a.account).unwrap();
    let swap = ur.v2_swap_via_permit2(
        &[a.weth, a.dai],
        ether(1),
        ether(990),
        a.account,
        world.evm.timestamp() + 600,
        deadline(&world.evm).unwrap(),
    );
    execute(&mut world, &swap);
    let got = balance(&world.evm, a.dai, a.account).unwrap() - dai_before;
    assert!(got > ether(990) && got < ether(997), "{got}");
    assert_eq!(
        balance(&world.evm, a.weth, a.account).unwrap(),
        weth_before - ether(1)
    );
}

/// `Permit2.approve` from the owner path sets the allowance Permit2 reports, and the spender
/// can pull exactly that much until it expires.
#[test]
fn permit2_allowance_from_the_owner_path_is_what_a_spender_may_pull() {
    let (mut world, bed) = bed();
    let (a, ur) = (world.addrs, bed.universal_router);
    let spender = a.attacker;
    let expiration = world.evm.timestamp() + 60;
    let grant = vec![
        ur.approve_permit2(a.dai, U256::MAX),
        ur.permit2_approve(a.dai, spender, U160::from(ether(500)), expiration),
    ];
    execute(&mut world, &grant);
    let (amount, exp, nonce) = ur.allowance(&world.evm, a.account, a.dai, spender).unwrap();
    assert_eq!((amount, exp, nonce), (ether(500), expiration, 0));
    let pull = |amount: U256| MockPermit2::transferFrom_0Call {
        from: a.account,
        to: spender,
        amount: U160::from(amount),
        token: a.dai,
    };
    world
        .evm
        .call_sol(spender, ur.permit2, U256::ZERO, &pull(ether(300)))
        .unwrap();
    assert_eq!(balance(&world.evm, a.dai, spender).unwrap(), ether(300));
    let Err(over) = world
        .evm
        .call_sol(spender, ur.permit2, U256::ZERO, &pull(ether(201)))
    else {
        panic!("pulled more than allowed");
    };
    assert_eq!(
        over.decode_revert::<MockPermit2::MockPermit2Errors>(),
        Some(MockPermit2::MockPermit2Errors::InsufficientAllowance(
            MockPermit2::InsufficientAllowance { amount: ether(200) }
        ))
    );
    world
        .evm
        .set_block(world.evm.block_number() + 10, expiration + 1);
    let Err(late) = world
        .evm
        .call_sol(spender, ur.permit2, U256::ZERO, &pull(ether(1)))
    else {
        panic!("pulled after expiry");
    };
    assert!(matches!(
        late.decode_revert::<MockPermit2::MockPermit2Errors>(),
        Some(MockPermit2::MockPermit2Errors::AllowanceExpired(_))
    ));
}

/// An externally owned account signs a Permit2 permit for the router and has it `execute`
/// `PERMIT2_PERMIT` then `PERMIT2_TRANSFER_FROM`: the EIP-712 digest computed here is the one
/// the contract recovers from, through the real router.
#[test]
fn signed_permit_through_the_universal_router() {
    let (mut world, bed) = bed();
    let (a, ur) = (world.addrs, bed.universal_router);
    let signer = PrivateKeySigner::from_bytes(&alloy_primitives::B256::repeat_byte(0x42)).unwrap();
    let holder = signer.address();
    let recipient = Address::repeat_byte(0x77);
    world.evm.fund(holder, ether(1)).unwrap();
    let mint = MockERC20::mintCall {
        to: holder,
        amount: ether(1_000),
    };
    world
        .evm
        .call_sol(a.trader, a.dai, U256::ZERO, &mint)
        .unwrap();
    let approve = IERC20::approveCall {
        spender: ur.permit2,
        value: U256::MAX,
    };
    world
        .evm
        .call_sol(holder, a.dai, U256::ZERO, &approve)
        .unwrap();

    let permit = MockPermit2::PermitSingle {
        details: MockPermit2::PermitDetails {
            token: a.dai,
            amount: U160::from(ether(250)),
            expiration: U48::from(world.evm.timestamp() + 600),
            nonce: U48::ZERO,
        },
        spender: ur.router,
        sigDeadline: U256::from(world.evm.timestamp() + 600),
    };
    let run = |world: &mut pace_world::World, key: &PrivateKeySigner| {
        let digest = ur.permit_digest(world.evm.chain_id(), &permit);
        let signature = key.sign_hash_sync(&digest).unwrap().as_bytes();
        let plan = [
            (
                commands::PERMIT2_PERMIT,
                permit2_permit(&permit, &signature),
            ),
            (
                commands::PERMIT2_TRANSFER_FROM,
                permit2_transfer_from(a.dai, recipient, U160::from(ether(100))),
            ),
        ];
        let call = ur.execute(&plan, deadline(&world.evm).unwrap());
        world
            .evm
            .call(holder, call.target, call.value, call.data)
            .unwrap()
    };

    // Signed by another key: the router's permit command fails with Permit2's InvalidSigner.
    let stranger =
        PrivateKeySigner::from_bytes(&alloy_primitives::B256::repeat_byte(0x43)).unwrap();
    let refused = run(&mut world, &stranger);
    assert!(!refused.success);
    let Ok(Router::UniversalRouterErrors::ExecutionFailed(failed)) =
        Router::UniversalRouterErrors::abi_decode(&refused.output)
    else {
        panic!("not ExecutionFailed: {}", refused.output);
    };
    assert_eq!(failed.commandIndex, U256::ZERO);
    assert_eq!(
        failed.message,
        Bytes::from(MockPermit2::InvalidSigner {}.abi_encode())
    );

    let done = run(&mut world, &signer);
    assert!(done.success, "{}", done.output);
    assert_eq!(balance(&world.evm, a.dai, recipient).unwrap(), ether(100));
    let (amount, _, nonce) = ur.allowance(&world.evm, holder, a.dai, ur.router).unwrap();
    assert_eq!((amount, nonce), (ether(150), 1));
}
