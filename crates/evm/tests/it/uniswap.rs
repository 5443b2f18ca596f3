use super::*;
use alloy_sol_types::SolConstructor;
use pace_contracts::{
    bindings::{IERC20, IUniswapV2Factory, IUniswapV2Pair, IUniswapV2Router02},
    uniswap_v2,
};

/// The npm Uniswap V2 factory, pair and Router02 run unmodified on the in-process EVM.
#[test]
fn uniswap_v2_from_npm_swaps() {
    let mut evm = InProcessEvm::new(CHAIN_ID);
    evm.set_block(100, 1_700_000_000);
    let deploy = |evm: &mut InProcessEvm, name: &str, args: Vec<u8>| {
        evm.deploy(DEPLOYER, uniswap_v2(name).unwrap().deploy_code(&args))
            .unwrap()
    };
    let factory = deploy(
        &mut evm,
        "UniswapV2Factory",
        IUniswapV2Factory::constructorCall {
            _feeToSetter: DEPLOYER,
        }
        .abi_encode(),
    );
    let weth = deploy(&mut evm, "WETH9", Vec::new());
    let router = deploy(
        &mut evm,
        "UniswapV2Router02",
        IUniswapV2Router02::constructorCall {
            _factory: factory,
            _WETH: weth,
        }
        .abi_encode(),
    );
    let a = deploy_token(&mut evm, "A");
    let b = deploy_token(&mut evm, "B");
    for token in [a, b] {
        evm.call_sol(
            DEPLOYER,
            token,
            U256::ZERO,
            &MockERC20::mintCall {
                to: ALICE,
                amount: ether(1_000),
            },
        )
        .unwrap();
        evm.call_sol(
            ALICE,
            token,
            U256::ZERO,
            &IERC20::approveCall {
                spender: router,
                value: U256::MAX,
            },
        )
        .unwrap();
    }
    let deadline = U256::from(1_700_000_100u64);
    let liquidity = IUniswapV2Router02::addLiquidityCall {
        tokenA: a,
        tokenB: b,
        amountADesired: ether(500),
        amountBDesired: ether(500),
        amountAMin: U256::ZERO,
        amountBMin: U256::ZERO,
        to: ALICE,
        deadline,
    };
    let added = evm.call_sol(ALICE, router, U256::ZERO, &liquidity).unwrap();
    assert_eq!((added.amountA, added.amountB), (ether(500), ether(500)));
    let pair = evm
        .view_sol(
            factory,
            &IUniswapV2Factory::getPairCall {
                tokenA: a,
                tokenB: b,
            },
        )
        .unwrap();
    let reserves = evm
        .view_sol(pair, &IUniswapV2Pair::getReservesCall {})
        .unwrap();
    assert_eq!(U256::from(reserves.reserve0), ether(500));

    let path = vec![a, b];
    let quote = evm
        .view_sol(
            router,
            &IUniswapV2Router02::getAmountsOutCall {
                amountIn: ether(10),
                path: path.clone(),
            },
        )
        .unwrap();
    let swap = IUniswapV2Router02::swapExactTokensForTokensCall {
        amountIn: ether(10),
        amountOutMin: quote[1],
        path,
        to: BOB,
        deadline,
    };
    let amounts = evm.call_sol(ALICE, router, U256::ZERO, &swap).unwrap();
    assert_eq!(amounts, quote);
    assert_eq!(
        evm.view_sol(b, &IERC20::balanceOfCall { account: BOB })
            .unwrap(),
        quote[1]
    );
    assert!(
        quote[1] < ether(10) && quote[1] > ether(9),
        "0.3% fee plus price impact"
    );
}
