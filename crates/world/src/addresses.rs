//! Who and what lives in the world.

use alloy_primitives::Address;

/// Every named account and contract of a [`crate::World`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Addresses {
    /// Deploys every contract (its nonce fixes their addresses).
    pub deployer: Address,
    /// Owner of the PaceAccount (raw path, administration).
    pub owner: Address,
    /// The PDR verifier key's address.
    pub verifier: Address,
    /// Submits signed PDRs (anyone may).
    pub relayer: Address,
    /// An external attacker: the recipient of injected transfers and approvals.
    pub attacker: Address,
    /// A liquidity provider, and a front-runner when a scenario needs one.
    pub trader: Address,
    /// A counterparty the user pays regularly (allow-listed by the default policy).
    pub payee: Address,
    /// The PaceAccount.
    pub account: Address,
    /// WETH9 (real bytecode).
    pub weth: Address,
    /// A DAI-like 18-decimal token.
    pub dai: Address,
    /// A USDC-like 6-decimal token.
    pub usdc: Address,
    /// DeflatingERC20 from Uniswap's periphery tests: burns 1 % of every transfer.
    pub fee_token: Address,
    /// Uniswap V2 factory (real bytecode).
    pub factory: Address,
    /// Uniswap V2 Router02 (real bytecode).
    pub router: Address,
    /// The Uniswap V2 WETH/DAI pair.
    pub pair_weth_dai: Address,
    /// The Uniswap V2 WETH/fee-token pair.
    pub pair_weth_fee: Address,
    /// The project's mock AMM router (the malicious router trades through it).
    pub mock_router: Address,
    /// A router that skims part of every swap into [`Self::hidden_sink`].
    pub malicious_router: Address,
    /// The contract the malicious router touches behind the user's back.
    pub hidden_sink: Address,
    /// Pulls whatever allowance a victim granted it to the attacker.
    pub drainer: Address,
    /// WETH price oracle in DAI (18 decimals).
    pub oracle: Address,
    /// WETH-collateral, DAI-debt lending pool (LTV 75 %, liquidation threshold 80 %).
    pub lending_pool: Address,
    /// `PaceDelegate`, the code an EOA delegates to with EIP-7702 (`pace delegate`).
    pub delegate: Address,
    /// The ERC-4337 EntryPoint v0.8, at its canonical address.
    pub entry_point: Address,
}

impl Addresses {
    /// A fixed externally owned address derived from a label, for the world's actors.
    pub(crate) fn actor(label: &str) -> Address {
        Address::from_word(alloy_primitives::keccak256(format!("pace-world/{label}")))
    }
}
