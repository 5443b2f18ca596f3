//! ERC-20 `Transfer` / `Approval` and pair `Swap` logs, parsed without allocation.

use alloy_primitives::{Address, B256, Log, U256};
use alloy_sol_types::SolEvent;
use pace_contracts::bindings::{IERC20, IUniswapV2Pair};
use pace_evm::revm::primitives::eip7708::ETH_TRANSFER_LOG_ADDRESS;

/// `Transfer(address,address,uint256)`.
pub(crate) const TRANSFER_TOPIC: B256 = IERC20::Transfer::SIGNATURE_HASH;
/// `Approval(address,address,uint256)`.
pub(crate) const APPROVAL_TOPIC: B256 = IERC20::Approval::SIGNATURE_HASH;
/// `Swap(address,uint256,uint256,uint256,uint256,address)` of Uniswap V2 and the mock pairs.
pub(crate) const SWAP_TOPIC: B256 = IUniswapV2Pair::Swap::SIGNATURE_HASH;

/// An ERC-20 `Transfer` or `Approval` log: `(token, first, second, amount)` with
/// `first`/`second` = `from`/`to` or `owner`/`spender`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Erc20Log {
    pub(crate) token: Address,
    pub(crate) first: Address,
    pub(crate) second: Address,
    pub(crate) amount: U256,
}

/// `log` as an ERC-20 event with topic `topic`: three topics (the two addresses indexed) and a
/// 32-byte amount. ERC-721's four-topic form and EIP-7708 ether-transfer logs (which reuse the
/// `Transfer` signature) are not ERC-20 events.
pub(crate) fn erc20(log: &Log, topic: B256) -> Option<Erc20Log> {
    let topics = log.topics();
    if topics.len() != 3 || topics[0] != topic || log.data.data.len() != 32 {
        return None;
    }
    if log.address == ETH_TRANSFER_LOG_ADDRESS {
        return None;
    }
    Some(Erc20Log {
        token: log.address,
        first: Address::from_word(topics[1]),
        second: Address::from_word(topics[2]),
        amount: U256::from_be_slice(&log.data.data),
    })
}

/// Whether `log` is a pair's `Swap` event.
pub(crate) fn is_swap(log: &Log) -> bool {
    log.topics().first() == Some(&SWAP_TOPIC)
}
