//! What an address is, read from a state by what it answers: a Uniswap V3 pool, a V2-style
//! pair, a Uniswap router, an ERC-4626 vault, an ERC-20 token, a price feed, an EIP-7702
//! delegated account, an
//! address without code, or nothing this module knows ("unidentified"). Behind an EIP-1967
//! proxy the implementation is named too. Each answer must decode whole; a contract that
//! answers some probes and not others is the first kind whose probes all answer.
//!
//! An identification is a reading of views, not a proof: a contract can answer a pool's views
//! and be something else. It tells a user what to review, never what to trust.

use alloy_primitives::{Address, Bytes, U256, keccak256};
use alloy_sol_types::SolCall;
use pace_abi::{
    bindings::{IERC20, IERC4626, IPriceOracle, IUniswapV2Pair},
    protocols::IUniswapV3PoolView,
};
use pace_evm::InProcessEvm;
use serde_json::{Value, json};

alloy_sol_types::sol! {
    /// A Uniswap router's immutables: V2 Router02's `WETH`, V3 SwapRouter's `WETH9`.
    interface IRouter {
        function factory() external view returns (address);
        function WETH() external view returns (address);
        function WETH9() external view returns (address);
    }
}

/// The code of an EIP-7702 delegated account: `0xef0100 ‖ address`.
const DELEGATION_PREFIX: [u8; 3] = [0xef, 0x01, 0x00];

/// What `address` is on `evm`, as JSON: `{"address", "kind", ...details, "code_hash"}`;
/// `kind` is `v3_pool`, `v2_pair`, `router`, `vault`, `token`, `feed`, `delegated`, `no_code`
/// or `unidentified`, and `implementation` names an EIP-1967 proxy's.
pub(crate) fn identify(evm: &InProcessEvm, address: Address) -> Result<Value, String> {
    let code = evm
        .code(address)
        .map_err(|e| format!("cannot read the code of {address}: {e}"))?;
    let mut out = json!({ "address": address });
    if code.is_empty() {
        out["kind"] = json!("no_code");
        return Ok(out);
    }
    out["code_hash"] = json!(keccak256(&code));
    if code.len() == 23 && code[..3] == DELEGATION_PREFIX {
        out["kind"] = json!("delegated");
        out["delegate"] = json!(Address::from_slice(&code[3..]));
        return Ok(out);
    }
    let implementation = evm
        .storage(address, pace_types::descriptor::IMPLEMENTATION_SLOT.into())
        .map_err(|e| format!("cannot read the storage of {address}: {e}"))?;
    if !implementation.is_zero() {
        out["implementation"] = json!(Address::from_word(implementation.into()));
    }
    let view = |call: &dyn Probe| call.probe(evm, address);
    let (kind, details) = if let (Some(t0), Some(t1), Some(fee), Some(_)) = (
        view(&IUniswapV3PoolView::token0Call {}),
        view(&IUniswapV3PoolView::token1Call {}),
        view(&IUniswapV3PoolView::feeCall {}),
        view(&IUniswapV3PoolView::slot0Call {}),
    ) {
        ("v3_pool", json!({ "token0": t0, "token1": t1, "fee": fee }))
    } else if let (Some(t0), Some(t1), Some(_)) = (
        view(&IUniswapV2Pair::token0Call {}),
        view(&IUniswapV2Pair::token1Call {}),
        view(&IUniswapV2Pair::getReservesCall {}),
    ) {
        ("v2_pair", json!({ "token0": t0, "token1": t1 }))
    } else if let (Some(factory), Some(weth)) = (
        view(&IRouter::factoryCall {}),
        view(&IRouter::WETHCall {}).or_else(|| view(&IRouter::WETH9Call {})),
    ) {
        ("router", json!({ "factory": factory, "weth": weth }))
    } else if let (Some(asset), Some(_)) = (
        view(&IERC4626::assetCall {}),
        view(&IERC4626::convertToAssetsCall {
            shares: U256::from(1u8),
        }),
    ) {
        ("vault", json!({ "asset": asset }))
    } else if let (Some(_), Some(decimals)) = (
        view(&IPriceOracle::latestRoundDataCall {}),
        view(&IPriceOracle::decimalsCall {}),
    ) {
        ("feed", json!({ "decimals": decimals }))
    } else if let (Some(decimals), Some(_)) = (
        view(&IERC20::decimalsCall {}),
        view(&IERC20::totalSupplyCall {}),
    ) {
        let symbol = view(&IERC20::symbolCall {}).unwrap_or(Value::Null);
        ("token", json!({ "symbol": symbol, "decimals": decimals }))
    } else {
        ("unidentified", json!({}))
    };
    out["kind"] = json!(kind);
    if let Value::Object(details) = details {
        for (k, v) in details {
            out[k] = v;
        }
    }
    Ok(out)
}

/// A view whose whole answer decodes, as JSON (`None` when it reverts or does not decode).
trait Probe {
    fn probe(&self, evm: &InProcessEvm, to: Address) -> Option<Value>;
}

impl<C> Probe for C
where
    C: SolCall,
    C::Return: Answer,
{
    fn probe(&self, evm: &InProcessEvm, to: Address) -> Option<Value> {
        let out = evm.view(to, Bytes::from(self.abi_encode())).ok()?;
        C::abi_decode_returns_validate(&out)
            .ok()
            .map(|r| r.answer())
    }
}

/// A decoded answer as JSON: the first value a probe needs.
trait Answer {
    fn answer(&self) -> Value;
}

impl Answer for Address {
    fn answer(&self) -> Value {
        json!(self)
    }
}

impl Answer for U256 {
    fn answer(&self) -> Value {
        json!(self.to_string())
    }
}

impl Answer for u8 {
    fn answer(&self) -> Value {
        json!(self)
    }
}

impl Answer for String {
    fn answer(&self) -> Value {
        json!(self)
    }
}

impl Answer for alloy_primitives::aliases::U24 {
    fn answer(&self) -> Value {
        json!(self.to::<u32>())
    }
}

impl Answer for IUniswapV3PoolView::slot0Return {
    fn answer(&self) -> Value {
        json!(self.sqrtPriceX96.to_string())
    }
}

impl Answer for IUniswapV2Pair::getReservesReturn {
    fn answer(&self) -> Value {
        json!([self.reserve0.to_string(), self.reserve1.to_string()])
    }
}

impl Answer for IPriceOracle::latestRoundDataReturn {
    fn answer(&self) -> Value {
        json!(self.answer.to_string())
    }
}
