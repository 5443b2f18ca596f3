//! A pool an attacker seeded cannot make a junk token valuable: value conservation prices
//! assets only through sources the policy names, so a swap of WETH into a token that only the
//! attacker's pool prices is `UNPRICED_ASSET`, however rich the pool says it is.

use crate::door::evaluate;
use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;
use pace_contracts::bindings::{IERC20, IUniswapV2Factory, IUniswapV2Router02};
use pace_pipeline::PipelineConfig;
use pace_signer::PdrSigner;
use pace_testkit::ether;
use pace_types::{
    Approval, Call, Claims, CompiledPolicy, Intent, PriceSource, TokenAmount, ViolationCode as Code,
};
use pace_world::{Builder, World, default_policy};

/// The attacker deploys JUNK and seeds a WETH/JUNK pool at 1 WETH : 10 JUNK, so one JUNK
/// "is worth" 0.1 WETH there. Returns (junk, its pair).
fn seed_junk(world: &mut World) -> (Address, Address) {
    let a = world.addrs;
    let deadline = world.deadline();
    let mut b = Builder::new(&mut world.evm, a.attacker, deadline).unwrap();
    let junk = b.token("Junk", "JUNK", 18, "deploy JUNK").unwrap();
    b.mint(a.attacker, junk, a.attacker, ether(10), "mint JUNK")
        .unwrap();
    b.approve(a.attacker, junk, a.router, ether(10), "approve JUNK")
        .unwrap();
    b.add_liquidity_eth(a.attacker, a.router, (junk, ether(10)), ether(1), "seed")
        .unwrap();
    let get_pair = IUniswapV2Factory::getPairCall {
        tokenA: a.weth,
        tokenB: junk,
    };
    let pair = b.view(a.factory, &get_pair, "getPair").unwrap();
    (junk, pair)
}

#[test]
fn a_pool_the_attacker_seeded_prices_nothing() {
    let signer = PdrSigner::from_bytes(&alloy_primitives::B256::repeat_byte(0x42)).unwrap();
    let mut world = World::new(signer.address()).unwrap();
    let (junk, junk_pair) = seed_junk(&mut world);
    let a = world.addrs;
    // A careless user allows JUNK and its pool; the agent swaps 0.001 WETH into JUNK (small
    // against the pool: no price impact to speak of).
    let mut policy = default_policy(&a);
    policy.allowed_tokens.push(junk);
    policy.allowed_touched.extend([junk_pair, a.factory]);
    let policy = CompiledPolicy::try_from(policy).unwrap();
    let weth = ether(1) / U256::from(1_000u64);
    let out = world
        .evm
        .view_sol(
            a.router,
            &IUniswapV2Router02::getAmountsOutCall {
                amountIn: weth,
                path: vec![a.weth, junk],
            },
        )
        .unwrap()[1];
    let intent = Intent {
        chain_id: world.evm.chain_id(),
        account: a.account,
        calls: vec![
            Call {
                target: a.weth,
                value: U256::ZERO,
                data: IERC20::approveCall {
                    spender: a.router,
                    value: weth,
                }
                .abi_encode()
                .into(),
            },
            Call {
                target: a.router,
                value: U256::ZERO,
                data: IUniswapV2Router02::swapExactTokensForTokensCall {
                    amountIn: weth,
                    amountOutMin: out * U256::from(9_990u64) / U256::from(10_000u64),
                    path: vec![a.weth, junk],
                    to: a.account,
                    deadline: world.deadline(),
                }
                .abi_encode()
                .into(),
            },
        ],
        claimed: Claims {
            approvals: vec![Approval {
                token: a.weth,
                spender: a.router,
                amount: weth,
            }],
            outflows: vec![TokenAmount {
                token: a.weth,
                amount: weth,
            }],
            ..Claims::default()
        },
        metadata: Default::default(),
    };
    let eval = evaluate(
        &world.evm,
        &intent,
        &policy,
        &signer,
        &PipelineConfig::default(),
    )
    .unwrap();
    // The simulator did read the attacker's pool: the refusal is a matter of trust.
    assert!(
        eval.report
            .prices
            .iter()
            .any(|p| p.token == junk && p.via == junk_pair && p.source == PriceSource::Pool),
        "{:?}",
        eval.report.prices
    );
    let codes: Vec<_> = eval.decision.codes().collect();
    assert_eq!(
        codes,
        vec![Code::UnpricedAsset],
        "{:#?}",
        eval.decision.violations
    );
    assert!(eval.record.signed().is_none());

    // Naming the attacker's pool as a price source is the user's own mistake to make: then
    // the pool's price counts, and the swap (a fair trade at that price) passes.
    let mut trusting = policy.into_policy();
    trusting.price_pools.push(junk_pair);
    let trusting = CompiledPolicy::try_from(trusting).unwrap();
    let eval = evaluate(
        &world.evm,
        &intent,
        &trusting,
        &signer,
        &PipelineConfig::default(),
    )
    .unwrap();
    assert!(eval.decision.approved(), "{:#?}", eval.decision.violations);
}
