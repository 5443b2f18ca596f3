//! Round trips: each decoded function, encoded with the bindings, decodes to the facts it
//! states; and the recipients, minimums and allowance changes those facts list.

use alloy_primitives::{Address, B256, U256, address};
use alloy_sol_types::SolCall;
use pace_abi::{
    AllowanceChange, AllowanceDelta, DecodeError, DecodedCall, Minimum, MinimumRole, PermitArgs,
    Recipient, RecipientRole, Swap, SwapKind,
    bindings::{IERC20, IERC20Permit, IUniswapV2Router02 as Router, IWETH9},
    decode_call,
};

pub(crate) const USDC: Address = address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
pub(crate) const WETH: Address = address!("c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2");
pub(crate) const ROUTER: Address = address!("7a250d5630b4cf539739df2c5dacb4c659f2488d");
pub(crate) const ME: Address = address!("00000000000000000000000000000000000000aa");
const PAYEE: Address = address!("00000000000000000000000000000000000000bb");

fn u(n: u64) -> U256 {
    U256::from(n)
}

fn decode(target: Address, value: u64, call: &impl SolCall) -> DecodedCall {
    decode_call(target, u(value), &call.abi_encode()).expect("decodes")
}

#[test]
fn plain_transfers_unknown_selectors_and_short_data() {
    assert_eq!(decode_call(ME, u(1), &[]), Ok(DecodedCall::PlainTransfer));
    assert_eq!(
        decode_call(USDC, U256::ZERO, &[1, 2, 3, 4, 5]),
        Ok(DecodedCall::Unknown)
    );
    assert_eq!(
        decode_call(USDC, U256::ZERO, &[0xa9, 0x05, 0x9c]),
        Err(DecodeError::NoSelector)
    );
    let unknown = DecodedCall::Unknown;
    assert!(unknown.recipients().is_empty() && unknown.minimums().is_empty());
    assert_eq!(unknown.allowance_change(), None);
}

#[test]
fn erc20_calls() {
    let transfer = decode(
        USDC,
        0,
        &IERC20::transferCall {
            to: PAYEE,
            value: u(7),
        },
    );
    assert_eq!(
        transfer,
        DecodedCall::Transfer {
            token: USDC,
            to: PAYEE,
            amount: u(7)
        }
    );
    assert_eq!(
        transfer.recipients(),
        [Recipient {
            to: PAYEE,
            role: RecipientRole::Transfer
        }]
    );
    assert!(transfer.minimums().is_empty() && transfer.allowance_change().is_none());

    let from = IERC20::transferFromCall {
        from: ME,
        to: PAYEE,
        value: u(9),
    };
    let from = decode(USDC, 0, &from);
    assert_eq!(
        from,
        DecodedCall::TransferFrom {
            token: USDC,
            from: ME,
            to: PAYEE,
            amount: u(9)
        }
    );
    assert_eq!(from.recipients()[0].to, PAYEE);

    let approve = decode(
        USDC,
        0,
        &IERC20::approveCall {
            spender: ROUTER,
            value: u(5),
        },
    );
    assert_eq!(
        approve,
        DecodedCall::Approve {
            token: USDC,
            spender: ROUTER,
            amount: u(5)
        }
    );
    assert_eq!(
        approve.allowance_change(),
        Some(AllowanceChange {
            token: USDC,
            owner: None,
            spender: ROUTER,
            delta: AllowanceDelta::Set(u(5))
        })
    );
    assert!(approve.recipients().is_empty());
}

#[test]
fn allowance_increase_decrease_and_permit() {
    let up = IERC20::increaseAllowanceCall {
        spender: ROUTER,
        addedValue: u(3),
    };
    let up = decode(USDC, 0, &up);
    assert_eq!(
        up,
        DecodedCall::IncreaseAllowance {
            token: USDC,
            spender: ROUTER,
            added: u(3)
        }
    );
    assert_eq!(
        up.allowance_change().map(|c| c.delta),
        Some(AllowanceDelta::Increase(u(3)))
    );

    let down = IERC20::decreaseAllowanceCall {
        spender: ROUTER,
        subtractedValue: u(2),
    };
    let down = decode(USDC, 0, &down);
    assert_eq!(
        down,
        DecodedCall::DecreaseAllowance {
            token: USDC,
            spender: ROUTER,
            subtracted: u(2)
        }
    );
    assert_eq!(
        down.allowance_change().map(|c| c.delta),
        Some(AllowanceDelta::Decrease(u(2)))
    );

    let permit = IERC20Permit::permitCall {
        owner: ME,
        spender: ROUTER,
        value: U256::MAX,
        deadline: u(99),
        v: 27,
        r: B256::repeat_byte(1),
        s: B256::repeat_byte(2),
    };
    let permit = decode(USDC, 0, &permit);
    assert_eq!(
        permit,
        DecodedCall::Permit {
            token: USDC,
            owner: ME,
            spender: ROUTER,
            value: U256::MAX,
            deadline: u(99)
        }
    );
    assert_eq!(
        permit.allowance_change(),
        Some(AllowanceChange {
            token: USDC,
            owner: Some(ME),
            spender: ROUTER,
            delta: AllowanceDelta::Set(U256::MAX)
        })
    );
    assert!(permit.recipients().is_empty());
}

#[test]
fn weth_deposit_and_withdraw() {
    let deposit = decode(WETH, 42, &IWETH9::depositCall {});
    assert_eq!(
        deposit,
        DecodedCall::WethDeposit {
            token: WETH,
            amount: u(42)
        }
    );
    let withdraw = decode(WETH, 0, &IWETH9::withdrawCall { wad: u(8) });
    assert_eq!(
        withdraw,
        DecodedCall::WethWithdraw {
            token: WETH,
            amount: u(8)
        }
    );
    for d in [deposit, withdraw] {
        assert!(d.recipients().is_empty() && d.minimums().is_empty());
        assert!(d.allowance_change().is_none());
    }
}

fn swap(
    kind: SwapKind,
    path: &[Address],
    eth_in: bool,
    eth_out: bool,
    fee_on_transfer: bool,
) -> DecodedCall {
    DecodedCall::Swap(Swap {
        router: ROUTER,
        kind,
        path: path.to_vec(),
        to: ME,
        deadline: u(1),
        eth_in,
        eth_out,
        fee_on_transfer,
        v4_pools: Vec::new(),
        to_internal: false,
        routes: Vec::new(),
    })
}

fn exact_in(amount_in: u64, min_out: u64) -> SwapKind {
    SwapKind::ExactIn {
        amount_in: u(amount_in),
        min_out: u(min_out),
    }
}

fn exact_out(amount_out: u64, max_in: u64) -> SwapKind {
    SwapKind::ExactOut {
        amount_out: u(amount_out),
        max_in: u(max_in),
    }
}

#[test]
fn all_nine_swaps() {
    let tokens = vec![USDC, WETH];
    let (to, deadline) = (ME, u(1));
    let cases: Vec<(u64, Vec<u8>, DecodedCall)> = vec![
        (
            0,
            Router::swapExactTokensForTokensCall {
                amountIn: u(100),
                amountOutMin: u(90),
                path: tokens.clone(),
                to,
                deadline,
            }
            .abi_encode(),
            swap(exact_in(100, 90), &tokens, false, false, false),
        ),
        (
            0,
            Router::swapTokensForExactTokensCall {
                amountOut: u(50),
                amountInMax: u(60),
                path: tokens.clone(),
                to,
                deadline,
            }
            .abi_encode(),
            swap(exact_out(50, 60), &tokens, false, false, false),
        ),
        (
            55,
            Router::swapExactETHForTokensCall {
                amountOutMin: u(1),
                path: vec![WETH, USDC],
                to,
                deadline,
            }
            .abi_encode(),
            swap(exact_in(55, 1), &[WETH, USDC], true, false, false),
        ),
        (
            0,
            Router::swapTokensForExactETHCall {
                amountOut: u(5),
                amountInMax: u(6),
                path: tokens.clone(),
                to,
                deadline,
            }
            .abi_encode(),
            swap(exact_out(5, 6), &tokens, false, true, false),
        ),
        (
            0,
            Router::swapExactTokensForETHCall {
                amountIn: u(7),
                amountOutMin: u(3),
                path: tokens.clone(),
                to,
                deadline,
            }
            .abi_encode(),
            swap(exact_in(7, 3), &tokens, false, true, false),
        ),
        (
            66,
            Router::swapETHForExactTokensCall {
                amountOut: u(4),
                path: vec![WETH, USDC],
                to,
                deadline,
            }
            .abi_encode(),
            swap(exact_out(4, 66), &[WETH, USDC], true, false, false),
        ),
        (
            0,
            Router::swapExactTokensForTokensSupportingFeeOnTransferTokensCall {
                amountIn: u(100),
                amountOutMin: u(80),
                path: tokens.clone(),
                to,
                deadline,
            }
            .abi_encode(),
            swap(exact_in(100, 80), &tokens, false, false, true),
        ),
        (
            77,
            Router::swapExactETHForTokensSupportingFeeOnTransferTokensCall {
                amountOutMin: u(2),
                path: vec![WETH, USDC],
                to,
                deadline,
            }
            .abi_encode(),
            swap(exact_in(77, 2), &[WETH, USDC], true, false, true),
        ),
        (
            0,
            Router::swapExactTokensForETHSupportingFeeOnTransferTokensCall {
                amountIn: u(9),
                amountOutMin: u(8),
                path: tokens.clone(),
                to,
                deadline,
            }
            .abi_encode(),
            swap(exact_in(9, 8), &tokens, false, true, true),
        ),
    ];
    for (value, data, expected) in cases {
        let decoded = decode_call(ROUTER, u(value), &data);
        assert_eq!(decoded.as_ref(), Ok(&expected));
        let DecodedCall::Swap(s) = &expected else {
            unreachable!()
        };
        assert_eq!(
            expected.recipients(),
            [Recipient {
                to: ME,
                role: RecipientRole::SwapOutput
            }]
        );
        let minimums = expected.minimums();
        match s.kind {
            SwapKind::ExactIn { min_out, .. } => {
                let token = if s.eth_out {
                    Address::ZERO
                } else {
                    s.token_out()
                };
                assert_eq!(
                    minimums,
                    [Minimum {
                        token,
                        min: min_out,
                        role: MinimumRole::SwapOutput
                    }]
                );
                assert_eq!(s.min_output(), Some(min_out));
            }
            SwapKind::ExactOut { max_in, .. } => {
                assert!(minimums.is_empty());
                assert_eq!((s.min_output(), s.max_input()), (None, max_in));
            }
        }
    }
}

#[test]
fn add_liquidity_and_add_liquidity_eth() {
    let add = Router::addLiquidityCall {
        tokenA: USDC,
        tokenB: WETH,
        amountADesired: u(10),
        amountBDesired: u(20),
        amountAMin: u(9),
        amountBMin: u(18),
        to: ME,
        deadline: u(5),
    };
    let add = decode(ROUTER, 0, &add);
    assert_eq!(
        add,
        DecodedCall::AddLiquidity {
            router: ROUTER,
            token_a: USDC,
            token_b: WETH,
            amount_a_desired: u(10),
            amount_b_desired: u(20),
            amount_a_min: u(9),
            amount_b_min: u(18),
            to: ME,
            deadline: u(5),
            eth: false
        }
    );
    assert_eq!(
        add.recipients(),
        [Recipient {
            to: ME,
            role: RecipientRole::LiquidityShares
        }]
    );
    let role = MinimumRole::LiquidityDeposit;
    assert_eq!(
        add.minimums(),
        [
            Minimum {
                token: USDC,
                min: u(9),
                role
            },
            Minimum {
                token: WETH,
                min: u(18),
                role
            }
        ]
    );

    let add_eth = Router::addLiquidityETHCall {
        token: USDC,
        amountTokenDesired: u(10),
        amountTokenMin: u(9),
        amountETHMin: u(3),
        to: PAYEE,
        deadline: u(5),
    };
    let add_eth = decode(ROUTER, 4, &add_eth);
    assert_eq!(
        add_eth,
        DecodedCall::AddLiquidity {
            router: ROUTER,
            token_a: USDC,
            token_b: Address::ZERO,
            amount_a_desired: u(10),
            amount_b_desired: u(4),
            amount_a_min: u(9),
            amount_b_min: u(3),
            to: PAYEE,
            deadline: u(5),
            eth: true
        }
    );
    assert_eq!(add_eth.recipients()[0].to, PAYEE);
    assert_eq!(add_eth.minimums()[1].token, Address::ZERO);
}

fn removal(eth: bool, fee_on_transfer: bool, permit: Option<PermitArgs>) -> DecodedCall {
    DecodedCall::RemoveLiquidity {
        router: ROUTER,
        token_a: USDC,
        token_b: if eth { Address::ZERO } else { WETH },
        liquidity: u(1000),
        amount_a_min: u(10),
        amount_b_min: u(20),
        to: ME,
        deadline: u(9),
        eth,
        fee_on_transfer,
        permit,
    }
}

#[test]
fn all_six_liquidity_removals() {
    let (liquidity, a_min, b_min, to, deadline) = (u(1000), u(10), u(20), ME, u(9));
    let (r, s) = (B256::repeat_byte(3), B256::repeat_byte(4));
    let exact = Some(PermitArgs {
        approve_max: false,
        value: liquidity,
    });
    let max = Some(PermitArgs {
        approve_max: true,
        value: U256::MAX,
    });
    let cases: Vec<(Vec<u8>, DecodedCall)> = vec![
        (
            Router::removeLiquidityCall {
                tokenA: USDC,
                tokenB: WETH,
                liquidity,
                amountAMin: a_min,
                amountBMin: b_min,
                to,
                deadline,
            }
            .abi_encode(),
            removal(false, false, None),
        ),
        (
            Router::removeLiquidityETHCall {
                token: USDC,
                liquidity,
                amountTokenMin: a_min,
                amountETHMin: b_min,
                to,
                deadline,
            }
            .abi_encode(),
            removal(true, false, None),
        ),
        (
            Router::removeLiquidityWithPermitCall {
                tokenA: USDC,
                tokenB: WETH,
                liquidity,
                amountAMin: a_min,
                amountBMin: b_min,
                to,
                deadline,
                approveMax: false,
                v: 28,
                r,
                s,
            }
            .abi_encode(),
            removal(false, false, exact),
        ),
        (
            Router::removeLiquidityETHWithPermitCall {
                token: USDC,
                liquidity,
                amountTokenMin: a_min,
                amountETHMin: b_min,
                to,
                deadline,
                approveMax: true,
                v: 27,
                r,
                s,
            }
            .abi_encode(),
            removal(true, false, max),
        ),
        (
            Router::removeLiquidityETHSupportingFeeOnTransferTokensCall {
                token: USDC,
                liquidity,
                amountTokenMin: a_min,
                amountETHMin: b_min,
                to,
                deadline,
            }
            .abi_encode(),
            removal(true, true, None),
        ),
        (
            Router::removeLiquidityETHWithPermitSupportingFeeOnTransferTokensCall {
                token: USDC,
                liquidity,
                amountTokenMin: a_min,
                amountETHMin: b_min,
                to,
                deadline,
                approveMax: false,
                v: 27,
                r,
                s,
            }
            .abi_encode(),
            removal(true, true, exact),
        ),
    ];
    for (data, expected) in cases {
        assert_eq!(decode_call(ROUTER, U256::ZERO, &data), Ok(expected.clone()));
        assert_eq!(
            expected.recipients(),
            [Recipient {
                to: ME,
                role: RecipientRole::LiquidityWithdrawal
            }]
        );
        let minimums = expected.minimums();
        assert_eq!(minimums.len(), 2);
        assert!(
            minimums
                .iter()
                .all(|m| m.role == MinimumRole::LiquidityWithdrawal)
        );
        assert_eq!((minimums[0].min, minimums[1].min), (a_min, b_min));
        assert!(expected.allowance_change().is_none());
    }
}

#[test]
fn roles_have_stable_names() {
    let names = [
        RecipientRole::Transfer,
        RecipientRole::SwapOutput,
        RecipientRole::LiquidityShares,
        RecipientRole::LiquidityWithdrawal,
    ]
    .map(RecipientRole::as_str);
    assert_eq!(
        names,
        [
            "transfer",
            "swap output",
            "liquidity shares",
            "liquidity withdrawal"
        ]
    );
}
