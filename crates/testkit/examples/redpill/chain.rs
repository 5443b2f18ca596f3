//! The node as the harness uses it: transactions from impersonated accounts (the world's keyless
//! owner and attacker), deployments, `eth_call` reads with `sol!` types, and the clock.

use crate::rpc::Rpc;
use alloy_primitives::{Address, Bytes, U256, hex};
use alloy_sol_types::SolCall;
use serde_json::{Value, json};

/// A development node (anvil).
pub(crate) struct Chain {
    rpc: Rpc,
}

/// `value` as a JSON-RPC quantity.
fn quantity(value: U256) -> String {
    format!("{value:#x}")
}

/// A JSON-RPC quantity or data string as a number.
pub(crate) fn number(v: &Value) -> Result<U256, String> {
    let s = v.as_str().ok_or_else(|| format!("not a hex string: {v}"))?;
    s.parse::<U256>().map_err(|e| format!("{s}: {e}"))
}

impl Chain {
    pub(crate) fn new(url: &str) -> Result<Self, String> {
        Ok(Self {
            rpc: Rpc::new(url)?,
        })
    }

    /// A raw JSON-RPC call.
    pub(crate) fn raw(&self, method: &str, params: &Value) -> Result<Value, String> {
        self.rpc.call(method, params)
    }

    /// Lets the node send for `who` without its key (anvil's impersonation).
    pub(crate) fn impersonate(&self, who: Address) -> Result<(), String> {
        self.raw("anvil_impersonateAccount", &json!([who]))
            .map(drop)
    }

    /// Sends a transaction from `from` (unlocked or impersonated) and waits for its receipt,
    /// which must report success; returns the receipt.
    pub(crate) fn send(
        &self,
        from: Address,
        to: Option<Address>,
        value: U256,
        data: &[u8],
        what: &str,
    ) -> Result<Value, String> {
        let mut tx = json!({
            "from": from,
            "value": quantity(value),
            "input": hex::encode_prefixed(data),
        });
        if let Some(to) = to {
            tx["to"] = json!(to);
        }
        let hash = self
            .raw("eth_sendTransaction", &json!([tx]))
            .map_err(|e| format!("{what}: {e}"))?;
        // Automine mines it at once; the receipt may take a moment to be served.
        let mut receipt = Value::Null;
        for _ in 0..200 {
            receipt = self
                .raw("eth_getTransactionReceipt", &json!([hash]))
                .map_err(|e| format!("{what}: {e}"))?;
            if !receipt.is_null() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
        }
        if receipt.is_null() {
            return Err(format!("{what}: no receipt for {hash} within 5 s"));
        }
        if receipt["status"] != "0x1" {
            return Err(format!("{what}: reverted ({hash})"));
        }
        Ok(receipt)
    }

    /// `from` calls `to` with the encoded `call`.
    pub(crate) fn send_sol<C: SolCall>(
        &self,
        from: Address,
        to: Address,
        call: &C,
        what: &str,
    ) -> Result<(), String> {
        self.send(from, Some(to), U256::ZERO, &call.abi_encode(), what)
            .map(drop)
    }

    /// `from` deploys `init_code`; the new contract's address.
    pub(crate) fn deploy(
        &self,
        from: Address,
        init_code: &[u8],
        what: &str,
    ) -> Result<Address, String> {
        let receipt = self.send(from, None, U256::ZERO, init_code, what)?;
        receipt["contractAddress"]
            .as_str()
            .and_then(|a| a.parse().ok())
            .ok_or_else(|| format!("{what}: no contract address in {receipt}"))
    }

    /// `eth_call` of `data` to `to` at the latest block.
    pub(crate) fn call(&self, to: Address, data: Vec<u8>) -> Result<Bytes, String> {
        let out = self.raw(
            "eth_call",
            &json!([{"to": to, "input": hex::encode_prefixed(data)}, "latest"]),
        )?;
        let text = out.as_str().ok_or_else(|| format!("eth_call: {out}"))?;
        hex::decode(text)
            .map(Bytes::from)
            .map_err(|e| format!("eth_call: {e}"))
    }

    /// Reads `call` from `to`.
    pub(crate) fn view<C: SolCall>(&self, to: Address, call: &C) -> Result<C::Return, String> {
        let out = self.call(to, call.abi_encode())?;
        C::abi_decode_returns(&out).map_err(|e| format!("decoding a view of {to}: {e}"))
    }

    /// `who`'s ether.
    pub(crate) fn eth(&self, who: Address) -> Result<U256, String> {
        number(&self.raw("eth_getBalance", &json!([who, "latest"]))?)
    }

    /// How many transactions `who` has sent.
    pub(crate) fn nonce(&self, who: Address) -> Result<u64, String> {
        let n = number(&self.raw("eth_getTransactionCount", &json!([who, "latest"]))?)?;
        u64::try_from(n).map_err(|e| e.to_string())
    }

    /// The latest block's number and timestamp.
    pub(crate) fn head(&self) -> Result<(u64, u64), String> {
        let block = self.raw("eth_getBlockByNumber", &json!(["latest", false]))?;
        let field = |name: &str| -> Result<u64, String> {
            u64::try_from(number(&block[name])?).map_err(|e| e.to_string())
        };
        Ok((field("number")?, field("timestamp")?))
    }
}
