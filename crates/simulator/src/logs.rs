//! The logs that move assets (ERC-20 `Transfer`, wrapped-ether `Deposit` / `Withdrawal`,
//! ERC-721 `Transfer`, ERC-1155 `TransferSingle` / `TransferBatch`), `Approval`, and pair
//! `Swap` logs. The fungible ones parse without allocation.

use alloy_primitives::{Address, B256, Log, U256};
use alloy_sol_types::SolEvent;
use pace_abi::bindings::{IERC20, IERC721, IERC1155, IUniswapV2Pair, IWETH9};
use pace_evm::revm::primitives::eip7708::ETH_TRANSFER_LOG_ADDRESS;
use pace_types::{NftFlow, TokenFlow};

/// `Transfer(address,address,uint256)`.
pub(crate) const TRANSFER_TOPIC: B256 = IERC20::Transfer::SIGNATURE_HASH;
/// `Approval(address,address,uint256)`.
pub(crate) const APPROVAL_TOPIC: B256 = IERC20::Approval::SIGNATURE_HASH;
/// `Deposit(address,uint256)` of WETH9: ether wrapped, a mint to `dst` without a `Transfer`.
pub(crate) const DEPOSIT_TOPIC: B256 = IWETH9::Deposit::SIGNATURE_HASH;
/// `Withdrawal(address,uint256)` of WETH9: ether unwrapped, a burn from `src`.
pub(crate) const WITHDRAWAL_TOPIC: B256 = IWETH9::Withdrawal::SIGNATURE_HASH;
/// `TransferSingle(address,address,address,uint256,uint256)` of ERC-1155.
pub(crate) const TRANSFER_SINGLE_TOPIC: B256 = IERC1155::TransferSingle::SIGNATURE_HASH;
/// `TransferBatch(address,address,address,uint256[],uint256[])` of ERC-1155.
pub(crate) const TRANSFER_BATCH_TOPIC: B256 = IERC1155::TransferBatch::SIGNATURE_HASH;
/// ERC-6909 `Transfer(address caller, address indexed sender, address indexed receiver,
/// uint256 indexed id, uint256 amount)`.
pub(crate) const TRANSFER_6909_TOPIC: B256 =
    alloy_primitives::b256!("1b3d7edb2e9c0b0e7c525b20aaaef0f5940d2ed71663c7d39266ecafac728859");
/// `Swap(address,uint256,uint256,uint256,uint256,address)` of Uniswap V2 and the mock pairs.
pub(crate) const SWAP_TOPIC: B256 = IUniswapV2Pair::Swap::SIGNATURE_HASH;
/// `Swap(address,address,int256,int256,uint160,uint128,int24)` of a Uniswap V3 pool.
pub(crate) const V3_SWAP_TOPIC: B256 =
    pace_abi::protocols::IUniswapV3PoolView::Swap::SIGNATURE_HASH;
/// A Uniswap V4 pool manager's `Swap(bytes32 indexed id, address indexed sender, int128,
/// int128, uint160, uint128, int24, uint24)` (`IPoolManager`).
pub(crate) const V4_SWAP_TOPIC: B256 =
    alloy_primitives::b256!("40e9cecb9f5f1f1c5b9c97dec2917b7ee92e57ba5563708daca94dd84ad7112f");

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

/// `log` as a wrapped-ether `Deposit` (a mint to the indexed address) or `Withdrawal` (a burn
/// from it): two topics and a 32-byte amount.
pub(crate) fn wrapper_flow(log: &Log) -> Option<TokenFlow> {
    let topics = log.topics();
    if topics.len() != 2 || log.data.data.len() != 32 {
        return None;
    }
    let who = Address::from_word(topics[1]);
    let (from, to) = if topics[0] == DEPOSIT_TOPIC {
        (Address::ZERO, who)
    } else if topics[0] == WITHDRAWAL_TOPIC {
        (who, Address::ZERO)
    } else {
        return None;
    };
    Some(TokenFlow {
        token: log.address,
        from,
        to,
        amount: U256::from_be_slice(&log.data.data),
    })
}

/// `log` as non-fungible or multi-token movements: ERC-721 `Transfer` (four topics, no data),
/// ERC-1155 `TransferSingle` / `TransferBatch` (a batch whose arrays do not decode is skipped)
/// or ERC-6909 `Transfer` (a claim ledger's: four topics, the caller and the amount as data),
/// the last two as multi-token movements.
pub(crate) fn nft_flows(log: &Log, out: &mut Vec<NftFlow>) {
    let topics = log.topics();
    let data = &log.data.data;
    let word = |i: usize| data.get(32 * i..32 * (i + 1)).map(U256::from_be_slice);
    let flow = |from: B256, to: B256, id: U256, amount: U256, multi: bool| NftFlow {
        token: log.address,
        from: Address::from_word(from),
        to: Address::from_word(to),
        id,
        amount,
        multi,
    };
    match topics {
        [t, from, to, id] if *t == TRANSFER_TOPIC && data.is_empty() => {
            out.push(flow(
                *from,
                *to,
                U256::from_be_bytes(id.0),
                U256::from(1u8),
                false,
            ));
        }
        [t, from, to, id] if *t == TRANSFER_6909_TOPIC && data.len() == 64 => {
            if let Some(amount) = word(1) {
                out.push(flow(*from, *to, U256::from_be_bytes(id.0), amount, true));
            }
        }
        [t, _, from, to] if *t == TRANSFER_SINGLE_TOPIC && data.len() == 64 => {
            if let (Some(id), Some(amount)) = (word(0), word(1)) {
                out.push(flow(*from, *to, id, amount, true));
            }
        }
        [t, _, from, to] if *t == TRANSFER_BATCH_TOPIC => {
            let array = |head: usize| -> Option<Vec<U256>> {
                let offset = usize::try_from(word(head)?).ok()?;
                let len = usize::try_from(word(offset / 32)?).ok()?;
                if offset % 32 != 0 || len > data.len() / 32 {
                    return None;
                }
                (0..len).map(|k| word(offset / 32 + 1 + k)).collect()
            };
            if let (Some(ids), Some(amounts)) = (array(0), array(1))
                && ids.len() == amounts.len()
            {
                for (id, amount) in ids.into_iter().zip(amounts) {
                    out.push(flow(*from, *to, id, amount, true));
                }
            }
        }
        _ => {}
    }
}

/// `ApprovalForAll(address,address,bool)` of ERC-721 and ERC-1155.
pub(crate) const APPROVAL_FOR_ALL_TOPIC: B256 = IERC721::ApprovalForAll::SIGNATURE_HASH;

/// `log` as a non-fungible approval, in the shape of an ERC-20 one (`token`, owner, spender,
/// amount): `ApprovalForAll` (three topics, a bool) grants everything (`U256::MAX`) or
/// revokes (0); an ERC-721 `Approval` (four topics, no data) grants one item (1), or clears
/// it (approved = the zero address, 0).
pub(crate) fn nft_approval(log: &Log) -> Option<Erc20Log> {
    let topics = log.topics();
    let data = &log.data.data;
    match topics {
        [t, owner, operator] if *t == APPROVAL_FOR_ALL_TOPIC && data.len() == 32 => {
            let on = U256::from_be_slice(data);
            Some(Erc20Log {
                token: log.address,
                first: Address::from_word(*owner),
                second: Address::from_word(*operator),
                amount: if on.is_zero() { U256::ZERO } else { U256::MAX },
            })
        }
        [t, owner, approved, _id] if *t == APPROVAL_TOPIC && data.is_empty() => {
            let spender = Address::from_word(*approved);
            Some(Erc20Log {
                token: log.address,
                first: Address::from_word(*owner),
                second: spender,
                amount: U256::from(u8::from(spender != Address::ZERO)),
            })
        }
        _ => None,
    }
}

/// Whether `log` is a pair's `Swap` event.
pub(crate) fn is_swap(log: &Log) -> bool {
    log.topics().first() == Some(&SWAP_TOPIC)
}

/// Whether `log` is a Uniswap V4 pool manager's `Swap` event (the pool id and the sender
/// indexed).
pub(crate) fn is_v4_swap(log: &Log) -> bool {
    log.topics().len() == 3 && log.topics()[0] == V4_SWAP_TOPIC
}

/// Whether `log` is a V3 pool's `Swap` event.
pub(crate) fn is_v3_swap(log: &Log) -> bool {
    log.topics().first() == Some(&V3_SWAP_TOPIC)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::keccak256;

    #[test]
    fn topics_are_the_event_signatures() {
        for (topic, signature) in [
            (DEPOSIT_TOPIC, "Deposit(address,uint256)"),
            (WITHDRAWAL_TOPIC, "Withdrawal(address,uint256)"),
            (
                TRANSFER_SINGLE_TOPIC,
                "TransferSingle(address,address,address,uint256,uint256)",
            ),
            (
                TRANSFER_6909_TOPIC,
                "Transfer(address,address,address,uint256,uint256)",
            ),
            (
                TRANSFER_BATCH_TOPIC,
                "TransferBatch(address,address,address,uint256[],uint256[])",
            ),
            (
                APPROVAL_FOR_ALL_TOPIC,
                "ApprovalForAll(address,address,bool)",
            ),
            (
                V3_SWAP_TOPIC,
                "Swap(address,address,int256,int256,uint160,uint128,int24)",
            ),
            (
                V4_SWAP_TOPIC,
                "Swap(bytes32,address,int128,int128,uint160,uint128,int24,uint24)",
            ),
        ] {
            assert_eq!(topic, keccak256(signature), "{signature}");
        }
    }

    #[test]
    fn batch_arrays_decode_and_garbage_is_skipped() {
        let addr = |b: u8| B256::left_padding_from(&[b]);
        let mut data = Vec::new();
        for w in [64u64, 160, 2, 7, 9, 2, 1, 5] {
            data.extend_from_slice(&U256::from(w).to_be_bytes::<32>());
        }
        let log = Log::new_unchecked(
            Address::repeat_byte(1),
            vec![TRANSFER_BATCH_TOPIC, addr(9), addr(2), addr(3)],
            data.into(),
        );
        let mut out = Vec::new();
        nft_flows(&log, &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(
            (out[1].id, out[1].amount),
            (U256::from(9u8), U256::from(5u8))
        );
        assert_eq!(out[0].to, Address::from_word(addr(3)));
        let bad = Log::new_unchecked(
            Address::repeat_byte(1),
            vec![TRANSFER_BATCH_TOPIC, addr(9), addr(2), addr(3)],
            vec![0xff; 64].into(),
        );
        nft_flows(&bad, &mut out);
        assert_eq!(out.len(), 2);
    }
}
