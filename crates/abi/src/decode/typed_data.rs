//! The typed data a PDR signs for the account (ERC-1271): the `approveHash(digest, domain,
//! message)` call a PDR makes to the account itself, decoded by its type hashes and checked
//! against its digest, and the call it is equivalent to.
//!
//! The account records the digest and calls nothing (`contracts/core/PdrCalls.sol`); while
//! the PDR runs, `isValidSignature(digest, ...)` holds, so any contract the PDR calls can use
//! the signature. What the signature grants is therefore what the typed data says, and the
//! verifier judges it as the call that grants the same right, or a larger one:
//!
//! | typed data (primary type) | domain's contract | judged as |
//! |---|---|---|
//! | EIP-2612 `Permit`, `owner` the account | the token | the token's `permit(owner, spender, value, deadline, ...)` |
//! | Permit2 `PermitSingle` | Permit2 | Permit2's `permit(account, permitSingle, "")` |
//! | Permit2 `PermitBatch` | Permit2 | Permit2's `permit(account, permitBatch, "")` |
//! | Permit2 `PermitTransferFrom` | Permit2 | a `PermitSingle` of the same token, amount and spender until the deadline |
//! | Permit2 `PermitBatchTransferFrom` | Permit2 | a `PermitBatch` of the same tokens, amounts and spender until the deadline |
//!
//! A signature transfer moves the tokens once; the allowance it is judged as could move them
//! until its expiration, so the judgement is at least as strict. Amounts above Permit2's
//! `uint160` and deadlines above `uint48` are clamped to their maxima (an amount of 2^160 - 1
//! is unlimited to the approval check).
//!
//! Anything else is refused ([`TypedDataError`]): a domain type other than
//! `EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)` and
//! `EIP712Domain(string name,uint256 chainId,address verifyingContract)`, a primary type not
//! in the table (a witness transfer, an order, a vote), arguments that are not the canonical
//! ABI encoding, a chain other than the intent's, an EIP-2612 owner other than the account,
//! and typed data whose hash is not the digest. Decoding is pure.

use crate::{
    bindings::IERC20Permit,
    rights::IPermit2::{self, PermitBatch, PermitDetails, PermitSingle},
};
use alloy_primitives::{Address, B256, Bytes, U256, aliases::U48, aliases::U160, keccak256};
use alloy_sol_types::{Eip712Domain, SolCall, SolStruct, SolValue, sol};

sol! {
    /// The account's signing call (`contracts/interfaces/IPaceSignatures.sol`).
    #[sol(all_derives)]
    interface IPaceSignatures {
        function approveHash(bytes32 digest, bytes domain, bytes message) external;
    }

    /// EIP-2612's signed type.
    #[derive(Debug, PartialEq, Eq)]
    struct Permit {
        address owner;
        address spender;
        uint256 value;
        uint256 nonce;
        uint256 deadline;
    }

    /// Permit2 SignatureTransfer's signed types.
    #[derive(Debug, PartialEq, Eq)]
    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    /// One signature transfer of one token.
    #[derive(Debug, PartialEq, Eq)]
    struct PermitTransferFrom {
        TokenPermissions permitted;
        address spender;
        uint256 nonce;
        uint256 deadline;
    }

    /// One signature transfer of several tokens.
    #[derive(Debug, PartialEq, Eq)]
    struct PermitBatchTransferFrom {
        TokenPermissions[] permitted;
        address spender;
        uint256 nonce;
        uint256 deadline;
    }
}

/// `EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)`.
pub const DOMAIN_WITH_VERSION: &str =
    "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)";
/// `EIP712Domain(string name,uint256 chainId,address verifyingContract)` (Permit2's).
pub const DOMAIN_WITHOUT_VERSION: &str =
    "EIP712Domain(string name,uint256 chainId,address verifyingContract)";

/// What a signature grants, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignedMessage {
    /// An EIP-2612 permit of the domain's token.
    Erc2612(Permit),
    /// A Permit2 allowance of one token.
    Permit2Single(PermitSingle),
    /// Permit2 allowances of several tokens, one spender.
    Permit2Batch(PermitBatch),
    /// A Permit2 signature transfer of one token.
    Permit2Transfer(PermitTransferFrom),
    /// A Permit2 signature transfer of several tokens.
    Permit2BatchTransfer(PermitBatchTransferFrom),
}

/// A decoded, checked `approveHash` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedTypedData {
    /// The hash the account signs: `keccak256("\x19\x01" . domainSeparator . hashStruct)`.
    pub digest: B256,
    /// The domain's `verifyingContract`: the contract the signature is for.
    pub verifying_contract: Address,
    /// What it grants.
    pub message: SignedMessage,
}

/// Why an `approveHash` call was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypedDataError {
    /// The call's arguments are not the canonical encoding of `approveHash`.
    BadCall,
    /// The domain's type is not one of the two this decoder reads, or its fields do not decode.
    UnknownDomain,
    /// The message's primary type is not one this decoder reads, or its fields do not decode.
    UnknownMessage,
    /// The domain is for another chain.
    WrongChain {
        /// The domain's `chainId`.
        domain: U256,
        /// The intent's chain.
        intent: u64,
    },
    /// An EIP-2612 permit whose owner is not the account.
    NotTheAccountsPermit {
        /// The permit's owner.
        owner: Address,
    },
    /// The typed data hashes to another digest.
    DigestMismatch {
        /// The digest the call signs.
        signed: B256,
        /// The typed data's hash.
        computed: B256,
    },
}

impl core::fmt::Display for TypedDataError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::BadCall => f.write_str("approveHash's arguments do not decode"),
            Self::UnknownDomain => f.write_str(
                "the signed domain is not EIP712Domain(name,version,chainId,verifyingContract) or EIP712Domain(name,chainId,verifyingContract)",
            ),
            Self::UnknownMessage => f.write_str(
                "the signed message is not an EIP-2612 Permit or a Permit2 PermitSingle, PermitBatch, PermitTransferFrom or PermitBatchTransferFrom",
            ),
            Self::WrongChain { domain, intent } => {
                write!(f, "the signed domain is for chain {domain}, the intent for {intent}")
            }
            Self::NotTheAccountsPermit { owner } => {
                write!(f, "the signed permit is {owner}'s, not the account's")
            }
            Self::DigestMismatch { signed, computed } => write!(
                f,
                "the signed digest {signed} is not the typed data's hash {computed}"
            ),
        }
    }
}

impl std::error::Error for TypedDataError {}

/// Whether a call to `target` with calldata `data` from `account` is the account's signing call.
pub fn is_signing_call(account: Address, target: Address, data: &[u8]) -> bool {
    target == account && data.starts_with(&IPaceSignatures::approveHashCall::SELECTOR)
}

/// Decodes and checks `approveHash` calldata `data` of `account` on chain `chain_id`.
pub fn decode_signing_call(
    account: Address,
    chain_id: u64,
    data: &[u8],
) -> Result<SignedTypedData, TypedDataError> {
    let call = IPaceSignatures::approveHashCall::abi_decode_validate(data)
        .map_err(|_| TypedDataError::BadCall)?;
    if call.abi_encode() != data {
        return Err(TypedDataError::BadCall);
    }
    let (separator, verifying_contract) = domain(&call.domain, chain_id)?;
    let (message, struct_hash) = message(&call.message)?;
    if let SignedMessage::Erc2612(p) = &message
        && p.owner != account
    {
        return Err(TypedDataError::NotTheAccountsPermit { owner: p.owner });
    }
    let computed = keccak256(
        [
            &[0x19, 0x01][..],
            separator.as_slice(),
            struct_hash.as_slice(),
        ]
        .concat(),
    );
    if computed != call.digest {
        return Err(TypedDataError::DigestMismatch {
            signed: call.digest,
            computed,
        });
    }
    Ok(SignedTypedData {
        digest: call.digest,
        verifying_contract,
        message,
    })
}

/// The domain's separator and `verifyingContract`.
fn domain(encoded: &[u8], chain_id: u64) -> Result<(B256, Address), TypedDataError> {
    // Static fields only: the canonical encoding is one word each, the type hash first.
    let words: Vec<B256> = encoded.chunks(32).map(B256::from_slice).collect();
    let fields = match words.first() {
        _ if !encoded.len().is_multiple_of(32) => return Err(TypedDataError::UnknownDomain),
        Some(t) if *t == keccak256(DOMAIN_WITH_VERSION) => 5,
        Some(t) if *t == keccak256(DOMAIN_WITHOUT_VERSION) => 4,
        _ => return Err(TypedDataError::UnknownDomain),
    };
    if words.len() != fields {
        return Err(TypedDataError::UnknownDomain);
    }
    let (chain, contract) = (words[fields - 2], words[fields - 1]);
    if contract[..12].iter().any(|b| *b != 0) {
        return Err(TypedDataError::UnknownDomain);
    }
    let chain = U256::from_be_bytes(chain.0);
    if chain != U256::from(chain_id) {
        return Err(TypedDataError::WrongChain {
            domain: chain,
            intent: chain_id,
        });
    }
    Ok((keccak256(encoded), Address::from_slice(&contract[12..])))
}

/// Decodes `abi.encode(typeHash, value)` as `$ty` when the type hash is `$ty`'s, strictly
/// (the canonical encoding only), with its `hashStruct`.
macro_rules! typed {
    ($ty:ty, $encoded:expr) => {{
        let encoded: &[u8] = $encoded;
        let type_hash = encoded.get(..32).map(B256::from_slice);
        (type_hash == Some(keccak256(<$ty>::eip712_encode_type().as_bytes())))
            .then(|| <(B256, $ty)>::abi_decode_params_validate(encoded).ok())
            .flatten()
            .filter(|decoded| decoded.abi_encode_params() == encoded)
            .map(|(_, value)| {
                let hash = value.eip712_hash_struct();
                (value, hash)
            })
    }};
}

/// The message and its `hashStruct`.
fn message(encoded: &[u8]) -> Result<(SignedMessage, B256), TypedDataError> {
    if let Some((p, h)) = typed!(Permit, encoded) {
        return Ok((SignedMessage::Erc2612(p), h));
    }
    if let Some((p, h)) = typed!(PermitSingle, encoded) {
        return Ok((SignedMessage::Permit2Single(p), h));
    }
    if let Some((p, h)) = typed!(PermitBatch, encoded) {
        return Ok((SignedMessage::Permit2Batch(p), h));
    }
    if let Some((p, h)) = typed!(PermitTransferFrom, encoded) {
        return Ok((SignedMessage::Permit2Transfer(p), h));
    }
    if let Some((p, h)) = typed!(PermitBatchTransferFrom, encoded) {
        return Ok((SignedMessage::Permit2BatchTransfer(p), h));
    }
    Err(TypedDataError::UnknownMessage)
}

fn clamp160(x: U256) -> U160 {
    U160::saturating_from(x)
}

fn clamp48(x: U256) -> U48 {
    U48::saturating_from(x)
}

impl SignedTypedData {
    /// The call that grants what the signature grants (see the module docs), as the account
    /// would make it: its target and calldata.
    pub fn equivalent_call(&self, account: Address) -> (Address, Bytes) {
        let target = self.verifying_contract;
        let single = |details: PermitDetails, spender: Address, deadline: U256| {
            IPermit2::permit_0Call {
                owner: account,
                permitSingle: PermitSingle {
                    details,
                    spender,
                    sigDeadline: deadline,
                },
                signature: Bytes::new(),
            }
            .abi_encode()
        };
        let data = match &self.message {
            SignedMessage::Erc2612(p) => IERC20Permit::permitCall {
                owner: p.owner,
                spender: p.spender,
                value: p.value,
                deadline: p.deadline,
                v: 0,
                r: B256::ZERO,
                s: B256::ZERO,
            }
            .abi_encode(),
            SignedMessage::Permit2Single(p) => single(p.details.clone(), p.spender, p.sigDeadline),
            SignedMessage::Permit2Batch(p) => IPermit2::permit_1Call {
                owner: account,
                permitBatch: p.clone(),
                signature: Bytes::new(),
            }
            .abi_encode(),
            SignedMessage::Permit2Transfer(p) => single(
                PermitDetails {
                    token: p.permitted.token,
                    amount: clamp160(p.permitted.amount),
                    expiration: clamp48(p.deadline),
                    nonce: U48::ZERO,
                },
                p.spender,
                p.deadline,
            ),
            SignedMessage::Permit2BatchTransfer(p) => IPermit2::permit_1Call {
                owner: account,
                permitBatch: PermitBatch {
                    details: p
                        .permitted
                        .iter()
                        .map(|t| PermitDetails {
                            token: t.token,
                            amount: clamp160(t.amount),
                            expiration: clamp48(p.deadline),
                            nonce: U48::ZERO,
                        })
                        .collect(),
                    spender: p.spender,
                    sigDeadline: p.deadline,
                },
                signature: Bytes::new(),
            }
            .abi_encode(),
        };
        (target, data.into())
    }
}

impl SignedMessage {
    /// `abi.encode(typeHash, value)`: the message as `approveHash` carries it.
    pub fn encode(&self) -> Vec<u8> {
        fn enc<T: SolStruct>(_: &T) -> B256 {
            keccak256(T::eip712_encode_type().as_bytes())
        }
        match self {
            Self::Erc2612(p) => (enc(p), p.clone()).abi_encode_params(),
            Self::Permit2Single(p) => (enc(p), p.clone()).abi_encode_params(),
            Self::Permit2Batch(p) => (enc(p), p.clone()).abi_encode_params(),
            Self::Permit2Transfer(p) => (enc(p), p.clone()).abi_encode_params(),
            Self::Permit2BatchTransfer(p) => (enc(p), p.clone()).abi_encode_params(),
        }
    }

    /// `hashStruct(message)`.
    pub fn hash_struct(&self) -> B256 {
        match self {
            Self::Erc2612(p) => p.eip712_hash_struct(),
            Self::Permit2Single(p) => p.eip712_hash_struct(),
            Self::Permit2Batch(p) => p.eip712_hash_struct(),
            Self::Permit2Transfer(p) => p.eip712_hash_struct(),
            Self::Permit2BatchTransfer(p) => p.eip712_hash_struct(),
        }
    }
}

/// The calldata of the account's signing call for `message` in `domain`: `approveHash(digest,
/// domain, message)` with the digest the contract behind `domain` will ask the account about.
/// A domain with fields other than those [`decode_signing_call`] reads gives calldata it
/// refuses.
pub fn signing_call_data(domain: &Eip712Domain, message: &SignedMessage) -> Bytes {
    let mut encoded_domain = domain.type_hash().to_vec();
    encoded_domain.extend(domain.encode_data());
    let digest = keccak256(
        [
            &[0x19, 0x01][..],
            domain.separator().as_slice(),
            message.hash_struct().as_slice(),
        ]
        .concat(),
    );
    IPaceSignatures::approveHashCall {
        digest,
        domain: encoded_domain.into(),
        message: message.encode().into(),
    }
    .abi_encode()
    .into()
}
