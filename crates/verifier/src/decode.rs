//! Pure calldata decoding for the calls the verifier understands.
//!
//! Decoded calls are *derived facts*: trusted code reading the exact bytes that will execute.
//! Known functions are ERC-20 `transfer`, `approve` and `transferFrom`, and the Uniswap V2
//! Router02 swaps (`swapExactTokensForTokens`, `swapTokensForExactTokens`,
//! `swapExactETHForTokens`, `swapTokensForExactETH`, `swapExactTokensForETH`,
//! `swapETHForExactTokens`). Arguments are decoded strictly (dirty high bits, short data and
//! bad offsets are errors). Any other selector decodes to [`DecodedCall::Unknown`]: it is
//! judged by the policy's allowlists and the simulation, but contributes no decoded facts.

use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;
use pace_types::Call;

/// `sol!` bindings of the decoded functions (also handy for building calldata in tests).
pub mod abi {
    #![allow(missing_docs)]
    alloy_sol_types::sol! {
        function transfer(address to, uint256 amount) external returns (bool);
        function approve(address spender, uint256 amount) external returns (bool);
        function transferFrom(address from, address to, uint256 amount) external returns (bool);
        function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) external returns (uint256[] amounts);
        function swapTokensForExactTokens(uint256 amountOut, uint256 amountInMax, address[] path, address to, uint256 deadline) external returns (uint256[] amounts);
        function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline) external payable returns (uint256[] amounts);
        function swapTokensForExactETH(uint256 amountOut, uint256 amountInMax, address[] path, address to, uint256 deadline) external returns (uint256[] amounts);
        function swapExactTokensForETH(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) external returns (uint256[] amounts);
        function swapETHForExactTokens(uint256 amountOut, address[] path, address to, uint256 deadline) external payable returns (uint256[] amounts);
    }
}

/// Selectors of the decoded functions, computed from their Solidity signatures.
pub mod selectors {
    use super::{SolCall, abi};

    /// `transfer(address,uint256)`
    pub const TRANSFER: [u8; 4] = abi::transferCall::SELECTOR;
    /// `approve(address,uint256)`
    pub const APPROVE: [u8; 4] = abi::approveCall::SELECTOR;
    /// `transferFrom(address,address,uint256)`
    pub const TRANSFER_FROM: [u8; 4] = abi::transferFromCall::SELECTOR;
    /// `swapExactTokensForTokens(uint256,uint256,address[],address,uint256)`
    pub const SWAP_EXACT_TOKENS_FOR_TOKENS: [u8; 4] = abi::swapExactTokensForTokensCall::SELECTOR;
    /// `swapTokensForExactTokens(uint256,uint256,address[],address,uint256)`
    pub const SWAP_TOKENS_FOR_EXACT_TOKENS: [u8; 4] = abi::swapTokensForExactTokensCall::SELECTOR;
    /// `swapExactETHForTokens(uint256,address[],address,uint256)`
    pub const SWAP_EXACT_ETH_FOR_TOKENS: [u8; 4] = abi::swapExactETHForTokensCall::SELECTOR;
    /// `swapTokensForExactETH(uint256,uint256,address[],address,uint256)`
    pub const SWAP_TOKENS_FOR_EXACT_ETH: [u8; 4] = abi::swapTokensForExactETHCall::SELECTOR;
    /// `swapExactTokensForETH(uint256,uint256,address[],address,uint256)`
    pub const SWAP_EXACT_TOKENS_FOR_ETH: [u8; 4] = abi::swapExactTokensForETHCall::SELECTOR;
    /// `swapETHForExactTokens(uint256,address[],address,uint256)`
    pub const SWAP_ETH_FOR_EXACT_TOKENS: [u8; 4] = abi::swapETHForExactTokensCall::SELECTOR;
}

/// What a call does, as far as its calldata says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodedCall {
    /// Empty calldata: a plain ether transfer to the target.
    PlainTransfer,
    /// ERC-20 `transfer(to, amount)` on the target token.
    Transfer {
        /// The token (the call's target).
        token: Address,
        /// The recipient.
        to: Address,
        /// The amount.
        amount: U256,
    },
    /// ERC-20 `approve(spender, amount)` on the target token.
    Approve {
        /// The token (the call's target).
        token: Address,
        /// The spender.
        spender: Address,
        /// The allowance.
        amount: U256,
    },
    /// ERC-20 `transferFrom(from, to, amount)` on the target token.
    TransferFrom {
        /// The token (the call's target).
        token: Address,
        /// Whose tokens move.
        from: Address,
        /// The recipient.
        to: Address,
        /// The amount.
        amount: U256,
    },
    /// A Uniswap V2 router swap.
    Swap(Swap),
    /// A selector the decoder does not know.
    Unknown,
}

/// A decoded Uniswap V2 router swap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Swap {
    /// The router (the call's target).
    pub router: Address,
    /// Exact input or exact output, with the bound the caller set.
    pub kind: SwapKind,
    /// The token route; at least two tokens. For ether in or out the end is WETH.
    pub path: Vec<Address>,
    /// Who receives the output.
    pub to: Address,
    /// The router's deadline argument.
    pub deadline: U256,
    /// The input is the call's ether value.
    pub eth_in: bool,
    /// The output is paid out as ether.
    pub eth_out: bool,
}

/// The two shapes of a swap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwapKind {
    /// Sell exactly `amount_in`, receive at least `min_out`.
    ExactIn {
        /// Amount sold.
        amount_in: U256,
        /// Minimum accepted output.
        min_out: U256,
    },
    /// Buy exactly `amount_out`, pay at most `max_in`.
    ExactOut {
        /// Amount bought.
        amount_out: U256,
        /// Maximum accepted input.
        max_in: U256,
    },
}

impl Swap {
    /// The token sold (WETH when `eth_in`).
    pub fn token_in(&self) -> Address {
        self.path[0]
    }

    /// The token bought (WETH when `eth_out`).
    pub fn token_out(&self) -> Address {
        self.path[self.path.len() - 1]
    }

    /// The most the swap can take from the account (`amount_in` or `max_in`).
    pub fn max_input(&self) -> U256 {
        match self.kind {
            SwapKind::ExactIn { amount_in, .. } => amount_in,
            SwapKind::ExactOut { max_in, .. } => max_in,
        }
    }
}

/// Why a call could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// Calldata of 1-3 bytes: no selector, yet not a plain transfer.
    NoSelector,
    /// A known function whose arguments do not decode strictly.
    BadArguments {
        /// The function's name.
        function: &'static str,
    },
    /// A swap whose path has fewer than two tokens.
    ShortPath {
        /// The function's name.
        function: &'static str,
    },
}

impl core::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::NoSelector => f.write_str("calldata is 1-3 bytes long: no function selector"),
            Self::BadArguments { function } => write!(f, "arguments of {function} do not decode"),
            Self::ShortPath { function } => write!(f, "{function} path has fewer than two tokens"),
        }
    }
}

/// Decodes one call (strictly). Pure; allocates only a swap's path.
pub fn decode_call(call: &Call) -> Result<DecodedCall, DecodeError> {
    let data = call.data.as_ref();
    if data.is_empty() {
        return Ok(DecodedCall::PlainTransfer);
    }
    let Some(selector) = call.selector() else {
        return Err(DecodeError::NoSelector);
    };
    let token = call.target;
    let decoded = match selector {
        abi::transferCall::SELECTOR => {
            let c = strict::<abi::transferCall>(data, "transfer")?;
            DecodedCall::Transfer {
                token,
                to: c.to,
                amount: c.amount,
            }
        }
        abi::approveCall::SELECTOR => {
            let c = strict::<abi::approveCall>(data, "approve")?;
            DecodedCall::Approve {
                token,
                spender: c.spender,
                amount: c.amount,
            }
        }
        abi::transferFromCall::SELECTOR => {
            let c = strict::<abi::transferFromCall>(data, "transferFrom")?;
            DecodedCall::TransferFrom {
                token,
                from: c.from,
                to: c.to,
                amount: c.amount,
            }
        }
        abi::swapExactTokensForTokensCall::SELECTOR => {
            let name = "swapExactTokensForTokens";
            let c = strict::<abi::swapExactTokensForTokensCall>(data, name)?;
            let kind = SwapKind::ExactIn {
                amount_in: c.amountIn,
                min_out: c.amountOutMin,
            };
            swap(call, name, kind, c.path, c.to, c.deadline, false, false)?
        }
        abi::swapTokensForExactTokensCall::SELECTOR => {
            let name = "swapTokensForExactTokens";
            let c = strict::<abi::swapTokensForExactTokensCall>(data, name)?;
            let kind = SwapKind::ExactOut {
                amount_out: c.amountOut,
                max_in: c.amountInMax,
            };
            swap(call, name, kind, c.path, c.to, c.deadline, false, false)?
        }
        abi::swapExactETHForTokensCall::SELECTOR => {
            let name = "swapExactETHForTokens";
            let c = strict::<abi::swapExactETHForTokensCall>(data, name)?;
            let kind = SwapKind::ExactIn {
                amount_in: call.value,
                min_out: c.amountOutMin,
            };
            swap(call, name, kind, c.path, c.to, c.deadline, true, false)?
        }
        abi::swapTokensForExactETHCall::SELECTOR => {
            let name = "swapTokensForExactETH";
            let c = strict::<abi::swapTokensForExactETHCall>(data, name)?;
            let kind = SwapKind::ExactOut {
                amount_out: c.amountOut,
                max_in: c.amountInMax,
            };
            swap(call, name, kind, c.path, c.to, c.deadline, false, true)?
        }
        abi::swapExactTokensForETHCall::SELECTOR => {
            let name = "swapExactTokensForETH";
            let c = strict::<abi::swapExactTokensForETHCall>(data, name)?;
            let kind = SwapKind::ExactIn {
                amount_in: c.amountIn,
                min_out: c.amountOutMin,
            };
            swap(call, name, kind, c.path, c.to, c.deadline, false, true)?
        }
        abi::swapETHForExactTokensCall::SELECTOR => {
            let name = "swapETHForExactTokens";
            let c = strict::<abi::swapETHForExactTokensCall>(data, name)?;
            let kind = SwapKind::ExactOut {
                amount_out: c.amountOut,
                max_in: call.value,
            };
            swap(call, name, kind, c.path, c.to, c.deadline, true, false)?
        }
        _ => DecodedCall::Unknown,
    };
    Ok(decoded)
}

fn strict<C: SolCall>(data: &[u8], function: &'static str) -> Result<C, DecodeError> {
    C::abi_decode_validate(data).map_err(|_| DecodeError::BadArguments { function })
}

#[allow(clippy::too_many_arguments)]
fn swap(
    call: &Call,
    function: &'static str,
    kind: SwapKind,
    path: Vec<Address>,
    to: Address,
    deadline: U256,
    eth_in: bool,
    eth_out: bool,
) -> Result<DecodedCall, DecodeError> {
    if path.len() < 2 {
        return Err(DecodeError::ShortPath { function });
    }
    Ok(DecodedCall::Swap(Swap {
        router: call.target,
        kind,
        path,
        to,
        deadline,
        eth_in,
        eth_out,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::{Bytes, address, keccak256};

    fn sel(signature: &str) -> [u8; 4] {
        keccak256(signature)[..4].try_into().unwrap()
    }

    #[test]
    fn selectors_match_signatures() {
        use selectors::*;
        assert_eq!(TRANSFER, [0xa9, 0x05, 0x9c, 0xbb]);
        assert_eq!(APPROVE, [0x09, 0x5e, 0xa7, 0xb3]);
        assert_eq!(TRANSFER_FROM, [0x23, 0xb8, 0x72, 0xdd]);
        assert_eq!(SWAP_EXACT_TOKENS_FOR_TOKENS, [0x38, 0xed, 0x17, 0x39]);
        assert_eq!(SWAP_TOKENS_FOR_EXACT_TOKENS, [0x88, 0x03, 0xdb, 0xee]);
        assert_eq!(SWAP_EXACT_ETH_FOR_TOKENS, [0x7f, 0xf3, 0x6a, 0xb5]);
        assert_eq!(
            SWAP_EXACT_ETH_FOR_TOKENS,
            sel("swapExactETHForTokens(uint256,address[],address,uint256)")
        );
        assert_eq!(
            SWAP_TOKENS_FOR_EXACT_ETH,
            sel("swapTokensForExactETH(uint256,uint256,address[],address,uint256)")
        );
        assert_eq!(
            SWAP_EXACT_TOKENS_FOR_ETH,
            sel("swapExactTokensForETH(uint256,uint256,address[],address,uint256)")
        );
        assert_eq!(
            SWAP_ETH_FOR_EXACT_TOKENS,
            sel("swapETHForExactTokens(uint256,address[],address,uint256)")
        );
    }

    const USDC: Address = address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
    const WETH: Address = address!("c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2");
    const ROUTER: Address = address!("7a250d5630b4cf539739df2c5dacb4c659f2488d");
    const ME: Address = address!("00000000000000000000000000000000000000aa");

    fn call(target: Address, value: u64, data: Vec<u8>) -> Call {
        Call {
            target,
            value: U256::from(value),
            data: Bytes::from(data),
        }
    }

    #[test]
    fn decodes_erc20_calls() {
        let data = abi::approveCall {
            spender: ROUTER,
            amount: U256::from(5u8),
        }
        .abi_encode();
        assert_eq!(
            decode_call(&call(USDC, 0, data)),
            Ok(DecodedCall::Approve {
                token: USDC,
                spender: ROUTER,
                amount: U256::from(5u8)
            })
        );
        let data = abi::transferCall {
            to: ME,
            amount: U256::from(7u8),
        }
        .abi_encode();
        assert_eq!(
            decode_call(&call(USDC, 0, data)),
            Ok(DecodedCall::Transfer {
                token: USDC,
                to: ME,
                amount: U256::from(7u8)
            })
        );
        let data = abi::transferFromCall {
            from: ME,
            to: ROUTER,
            amount: U256::from(9u8),
        }
        .abi_encode();
        assert!(matches!(
            decode_call(&call(USDC, 0, data)),
            Ok(DecodedCall::TransferFrom { .. })
        ));
    }

    #[test]
    fn decodes_swaps() {
        let data = abi::swapExactTokensForTokensCall {
            amountIn: U256::from(100u8),
            amountOutMin: U256::from(90u8),
            path: vec![USDC, WETH],
            to: ME,
            deadline: U256::from(1u8),
        }
        .abi_encode();
        let Ok(DecodedCall::Swap(s)) = decode_call(&call(ROUTER, 0, data)) else {
            panic!()
        };
        assert_eq!(
            (s.token_in(), s.token_out(), s.to, s.max_input()),
            (USDC, WETH, ME, U256::from(100u8))
        );
        assert!(!s.eth_in && !s.eth_out);

        let data = abi::swapExactETHForTokensCall {
            amountOutMin: U256::from(1u8),
            path: vec![WETH, USDC],
            to: ME,
            deadline: U256::from(1u8),
        }
        .abi_encode();
        let Ok(DecodedCall::Swap(s)) = decode_call(&call(ROUTER, 55, data)) else {
            panic!()
        };
        assert_eq!(
            s.kind,
            SwapKind::ExactIn {
                amount_in: U256::from(55u8),
                min_out: U256::from(1u8)
            }
        );
        assert!(s.eth_in);
    }

    #[test]
    fn rejects_malformed_known_calls() {
        assert_eq!(
            decode_call(&call(USDC, 0, vec![0xa9, 0x05])),
            Err(DecodeError::NoSelector)
        );
        assert_eq!(
            decode_call(&call(USDC, 0, vec![])),
            Ok(DecodedCall::PlainTransfer)
        );
        assert_eq!(
            decode_call(&call(USDC, 0, vec![1, 2, 3, 4, 5])),
            Ok(DecodedCall::Unknown)
        );
        // Truncated arguments.
        let mut data = abi::transferCall {
            to: ME,
            amount: U256::from(7u8),
        }
        .abi_encode();
        data.truncate(40);
        assert!(matches!(
            decode_call(&call(USDC, 0, data)),
            Err(DecodeError::BadArguments { .. })
        ));
        // Dirty high bits in an address word.
        let mut data = abi::transferCall {
            to: ME,
            amount: U256::from(7u8),
        }
        .abi_encode();
        data[4] = 0xff;
        assert!(matches!(
            decode_call(&call(USDC, 0, data)),
            Err(DecodeError::BadArguments { .. })
        ));
        // One-token path.
        let data = abi::swapExactTokensForTokensCall {
            amountIn: U256::from(1u8),
            amountOutMin: U256::from(1u8),
            path: vec![USDC],
            to: ME,
            deadline: U256::from(1u8),
        }
        .abi_encode();
        assert!(matches!(
            decode_call(&call(ROUTER, 0, data)),
            Err(DecodeError::ShortPath { .. })
        ));
    }
}
