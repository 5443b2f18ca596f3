//! A pool an attacker seeded cannot make a junk token valuable: value conservation prices
//! assets only through sources the policy names, so a swap of WETH into a token that only the
//! attacker's pool prices is `UNPRICED_ASSET`, however rich the pool says it is.

use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::{SolCall, SolConstructor};
use pace_contracts::bindings::{IERC20, IUniswapV2Router02, MockERC20};
use pace_pipeline::{PipelineConfig, evaluate};
use pace_signer::PdrSigner;
use pace_types::{
    Approval, Call, Claims, CompiledPolicy, Intent, PriceSource, TokenAmount, ViolationCode as Code,
};
use pace_world::{World, default_policy};

fn e18(n: u64) -> U256 {
    U256::from(n) * U256::from(10u64).pow(U256::from(18u64))
}

/// The attacker deploys JUNK and seeds a WETH/JUNK pool at 1 WETH : 10 JUNK, so one JUNK
/// "is worth" 0.1 WETH there. Returns (junk, its pair).
fn seed_junk(world: &mut World) -> (Address, Address) {
    let a = world.addrs;
    let artifacts = pace_contracts::artifacts().unwrap();
    let code = artifacts.get("MockERC20").unwrap().deploy_code(
        &MockERC20::constructorCall {
            name_: "Junk".into(),
            symbol_: "JUNK".into(),
            decimals_: 18,
        }
        .abi_encode(),
    );
    let junk = world.evm.deploy(a.attacker, code).unwrap();
    let deadline = world.deadline();
    let evm = &mut world.evm;
    let call = |evm: &mut pace_evm::InProcessEvm, to: Address, value: U256, data: Vec<u8>| {
        let out = evm.call(a.attacker, to, value, Bytes::from(data)).unwrap();
        assert!(out.success, "seeding call to {to} reverted");
    };
    call(
        evm,
        junk,
        U256::ZERO,
        MockERC20::mintCall {
            to: a.attacker,
            amount: e18(10),
        }
        .abi_encode(),
    );
    call(
        evm,
        junk,
        U256::ZERO,
        IERC20::approveCall {
            spender: a.router,
            value: e18(10),
        }
        .abi_encode(),
    );
    call(
        evm,
        a.router,
        e18(1),
        IUniswapV2Router02::addLiquidityETHCall {
            token: junk,
            amountTokenDesired: e18(10),
            amountTokenMin: U256::ZERO,
            amountETHMin: U256::ZERO,
            to: a.attacker,
            deadline,
        }
        .abi_encode(),
    );
    let pair = world
        .evm
        .view_sol(
            a.factory,
            &pace_contracts::bindings::IUniswapV2Factory::getPairCall {
                tokenA: a.weth,
                tokenB: junk,
            },
        )
        .unwrap();
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
    let weth = e18(1) / U256::from(1_000u64);
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
