//! ERC-4337 v0.8 user operations: the `PackedUserOperation` the EntryPoint takes, its hash
//! (`EntryPoint.getUserOpHash`), and the encodings of a PDR user operation.
//!
//! A PDR user operation (the accounts' `validateUserOp` / `executeUserOpPdr`):
//!
//! - `sender`: the standalone account, or the EOA delegated to `PaceDelegate`;
//! - `nonce`: the PDR's `key << 64 | sequence` ([`crate::pdr::PdrTerms::nonce`]): the
//!   EntryPoint's key/sequence nonce is the PDR's lane, no second nonce;
//! - `callData`: [`pdr_call_data`], `executeUserOpPdr(calls, bounds, held, checks, terms)`: the
//!   batch, its post-conditions and the PDR's packed terms, which the EntryPoint passes to the account's execution as
//!   they are;
//! - `signature`: [`pdr_signature`], `abi.encode(attestation, r, vs)`, the PDR signed under the
//!   entry path's domain salted with [`user_op_hash`]
//!   ([`crate::pdr::EntryPath::EntryPoint`], [`crate::pdr::EntryPath::DelegateEntryPoint`]).
//!
//! The hash covers every field but the signature, under the EntryPoint's own EIP-712 domain
//! (`"ERC4337"`, `"1"`, the chain, the EntryPoint): a bundler that changes a gas limit, a fee or
//! the paymaster changes the hash, and the PDR no longer verifies.

use crate::pdr::{Bound, Call, Check, Pdr};
use alloy_primitives::{Address, B256, Bytes, U256, address, keccak256};
use alloy_sol_types::{Eip712Domain, SolValue, eip712_domain};

alloy_sol_types::sol! {
    /// An ERC-4337 v0.8 user operation, field for field as the EntryPoint takes it.
    #[derive(Debug, Default, PartialEq, Eq)]
    struct PackedUserOperation {
        address sender;
        uint256 nonce;
        bytes initCode;
        bytes callData;
        bytes32 accountGasLimits;
        uint256 preVerificationGas;
        bytes32 gasFees;
        bytes paymasterAndData;
        bytes signature;
    }
}

/// The canonical address of EntryPoint v0.8 (the one `Simple7702Account` and the PACE accounts
/// trust).
pub const ENTRY_POINT_V08: Address = address!("0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108");

/// The EntryPoint's EIP-712 domain name.
pub const ENTRY_POINT_DOMAIN_NAME: &str = "ERC4337";
/// The EntryPoint's EIP-712 domain version.
pub const ENTRY_POINT_DOMAIN_VERSION: &str = "1";

/// The EIP-712 type the EntryPoint hashes a user operation as (every field but `signature`,
/// the `bytes` fields as their keccak256).
pub const PACKED_USER_OP_TYPE: &str = "PackedUserOperation(address sender,uint256 nonce,bytes initCode,bytes callData,bytes32 accountGasLimits,uint256 preVerificationGas,bytes32 gasFees,bytes paymasterAndData)";

/// The signature of the accounts' `executeUserOpPdr(Call[] calls, Bound[] bounds, address[]
/// held, Check[] checks, uint256 terms)`: the EntryPoint calls the account with a PDR user
/// operation's `callData`, this call.
pub const EXECUTE_USER_OP_PDR_SIGNATURE: &str = "executeUserOpPdr((address,uint256,bytes)[],(address,uint8,uint256,uint256,uint256,uint256)[],address[],(address,bytes,uint16,uint8,uint256,uint256)[],uint256)";

/// [`EXECUTE_USER_OP_PDR_SIGNATURE`]'s selector: the first four bytes of a PDR user
/// operation's `callData`.
pub const EXECUTE_USER_OP_PDR_SELECTOR: [u8; 4] = [0x17, 0xf5, 0xee, 0xa9];

/// The `initCode` marker of an EIP-7702 sender: `initCode`'s first 20 bytes are `0x7702`
/// followed by zeros (a shorter `initCode` counts as zero-padded).
pub const INIT_CODE_EIP7702_MARKER: [u8; 2] = [0x77, 0x02];

/// The prefix of an EIP-7702 delegation designator (`0xef0100 || delegate`).
pub const EIP7702_PREFIX: [u8; 3] = [0xef, 0x01, 0x00];

/// `validationData`'s authorizer when the signature failed (`SIG_VALIDATION_FAILED`).
pub const SIG_VALIDATION_FAILED: Address = address!("0x0000000000000000000000000000000000000001");

/// Why a user operation's parts could not be hashed or decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UserOpError {
    /// `initCode` carries the EIP-7702 marker, whose hash is taken over the sender's delegate,
    /// and no delegate was given.
    #[error("initCode carries the EIP-7702 marker: the sender's delegate address is needed")]
    MissingDelegate,
    /// The call data does not start with `executeUserOpPdr`'s selector.
    #[error("call data does not start with executeUserOpPdr's selector 0x17f5eea9")]
    NotExecuteUserOpPdr,
    /// The call data after the selector is not the canonical
    /// `abi.encode(calls, bounds, held, checks, terms)`.
    #[error("call data is not abi.encode(Call[], Bound[], address[], Check[], uint256): {0}")]
    BadBatch(String),
    /// A PDR signature is not three words.
    #[error("a PDR user operation signature is 96 bytes, got {0}")]
    BadSignatureLength(usize),
}

/// `accountGasLimits`: `verificationGasLimit << 128 | callGasLimit`.
pub fn pack_account_gas_limits(verification_gas_limit: u128, call_gas_limit: u128) -> B256 {
    pack_high_low(verification_gas_limit, call_gas_limit)
}

/// `(verificationGasLimit, callGasLimit)` of an `accountGasLimits` word.
pub fn unpack_account_gas_limits(word: B256) -> (u128, u128) {
    unpack_high_low(word)
}

/// `gasFees`: `maxPriorityFeePerGas << 128 | maxFeePerGas`.
pub fn pack_gas_fees(max_priority_fee_per_gas: u128, max_fee_per_gas: u128) -> B256 {
    pack_high_low(max_priority_fee_per_gas, max_fee_per_gas)
}

/// `(maxPriorityFeePerGas, maxFeePerGas)` of a `gasFees` word.
pub fn unpack_gas_fees(word: B256) -> (u128, u128) {
    unpack_high_low(word)
}

fn pack_high_low(high: u128, low: u128) -> B256 {
    let mut out = [0u8; 32];
    out[..16].copy_from_slice(&high.to_be_bytes());
    out[16..].copy_from_slice(&low.to_be_bytes());
    B256::from(out)
}

fn unpack_high_low(word: B256) -> (u128, u128) {
    let mut high = [0u8; 16];
    let mut low = [0u8; 16];
    high.copy_from_slice(&word[..16]);
    low.copy_from_slice(&word[16..]);
    (u128::from_be_bytes(high), u128::from_be_bytes(low))
}

/// `paymasterAndData`: the paymaster, its validation gas limit (16 bytes), its `postOp` gas
/// limit (16 bytes), then its own data.
pub fn paymaster_and_data(
    paymaster: Address,
    verification_gas_limit: u128,
    post_op_gas_limit: u128,
    data: &[u8],
) -> Bytes {
    let mut out = Vec::with_capacity(52 + data.len());
    out.extend_from_slice(paymaster.as_slice());
    out.extend_from_slice(&verification_gas_limit.to_be_bytes());
    out.extend_from_slice(&post_op_gas_limit.to_be_bytes());
    out.extend_from_slice(data);
    out.into()
}

/// An EIP-7702 delegation designator: the code of an EOA delegated to `delegate`.
pub fn delegation_designator(delegate: Address) -> Bytes {
    let mut code = EIP7702_PREFIX.to_vec();
    code.extend_from_slice(delegate.as_slice());
    code.into()
}

/// Whether `init_code` is the EIP-7702 marker (EntryPoint v0.8's `_isEip7702InitCode`): at
/// least 2 bytes, whose first 20 (zero-padded) are `0x7702` and zeros.
pub fn is_eip7702_init_code(init_code: &[u8]) -> bool {
    if init_code.len() < 2 {
        return false;
    }
    let mut start = [0u8; 20];
    let n = init_code.len().min(20);
    start[..n].copy_from_slice(&init_code[..n]);
    start[..2] == INIT_CODE_EIP7702_MARKER && start[2..].iter().all(|b| *b == 0)
}

/// The `initCode` hash the EntryPoint uses for an EIP-7702 `init_code` of a sender delegated to
/// `delegate`: `keccak256(delegate)`, or `keccak256(delegate ++ initCode[20:])` when longer than
/// 20 bytes.
pub fn eip7702_init_code_hash(init_code: &[u8], delegate: Address) -> B256 {
    let mut preimage = delegate.to_vec();
    if init_code.len() > 20 {
        preimage.extend_from_slice(&init_code[20..]);
    }
    keccak256(preimage)
}

/// The EntryPoint's EIP-712 domain: `"ERC4337"`, `"1"`, `chain_id`, the EntryPoint.
pub fn user_op_domain(chain_id: u64, entry_point: Address) -> Eip712Domain {
    eip712_domain! {
        name: ENTRY_POINT_DOMAIN_NAME,
        version: ENTRY_POINT_DOMAIN_VERSION,
        chain_id: chain_id,
        verifying_contract: entry_point,
    }
}

/// `hashStruct` of `op` as the EntryPoint computes it, with `init_code_hash` in place of
/// `keccak256(initCode)`.
fn struct_hash(op: &PackedUserOperation, init_code_hash: B256) -> B256 {
    keccak256(
        (
            keccak256(PACKED_USER_OP_TYPE),
            op.sender,
            op.nonce,
            init_code_hash,
            keccak256(&op.callData),
            op.accountGasLimits,
            op.preVerificationGas,
            op.gasFees,
            keccak256(&op.paymasterAndData),
        )
            .abi_encode(),
    )
}

/// `EntryPoint.getUserOpHash(op)` of the EntryPoint at `entry_point` on `chain_id`:
/// `keccak256(0x1901 || separator || hashStruct(op))`, the signature left out.
///
/// When `initCode` carries the EIP-7702 marker ([`is_eip7702_init_code`]), the EntryPoint
/// hashes the sender's delegate in its place ([`eip7702_init_code_hash`]); `delegate` is then
/// the address the sender's code designates, and without it the hash is refused. Otherwise
/// `delegate` is not used.
pub fn user_op_hash(
    op: &PackedUserOperation,
    entry_point: Address,
    chain_id: u64,
    delegate: Option<Address>,
) -> Result<B256, UserOpError> {
    let init_code_hash = if is_eip7702_init_code(&op.initCode) {
        eip7702_init_code_hash(&op.initCode, delegate.ok_or(UserOpError::MissingDelegate)?)
    } else {
        keccak256(&op.initCode)
    };
    let mut preimage = Vec::with_capacity(66);
    preimage.extend_from_slice(&[0x19, 0x01]);
    preimage.extend_from_slice(user_op_domain(chain_id, entry_point).separator().as_slice());
    preimage.extend_from_slice(struct_hash(op, init_code_hash).as_slice());
    Ok(keccak256(preimage))
}

/// A PDR user operation's `callData`: `executeUserOpPdr(calls, bounds, held, checks, terms)`,
/// `terms` the PDR's packed terms ([`crate::pdr::PdrTerms::pack`]).
pub fn pdr_call_data(
    calls: &[Call],
    bounds: &[Bound],
    held: &[Address],
    checks: &[Check],
    terms: U256,
) -> Bytes {
    let mut out = EXECUTE_USER_OP_PDR_SELECTOR.to_vec();
    out.extend_from_slice(
        &(
            calls.to_vec(),
            bounds.to_vec(),
            held.to_vec(),
            checks.to_vec(),
            terms,
        )
            .abi_encode_params(),
    );
    out.into()
}

/// The batch and terms of a PDR user operation's `callData` ([`pdr_call_data`]'s inverse).
/// Only the canonical encoding is accepted: one that re-encodes to other bytes is refused.
pub fn decode_pdr_call_data(data: &[u8]) -> Result<PdrBatch, UserOpError> {
    let body = data
        .strip_prefix(EXECUTE_USER_OP_PDR_SELECTOR.as_slice())
        .ok_or(UserOpError::NotExecuteUserOpPdr)?;
    let (calls, bounds, held, checks, terms) =
        <(Vec<Call>, Vec<Bound>, Vec<Address>, Vec<Check>, U256)>::abi_decode_params_validate(body)
            .map_err(|e| UserOpError::BadBatch(e.to_string()))?;
    if pdr_call_data(&calls, &bounds, &held, &checks, terms).as_ref() != data {
        return Err(UserOpError::BadBatch("not the canonical encoding".into()));
    }
    Ok(PdrBatch {
        calls,
        bounds,
        held,
        checks,
        terms,
    })
}

/// What a PDR user operation's `callData` carries: the PDR's calls, bounds, held assets,
/// post-conditions and packed terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PdrBatch {
    /// The calls the account makes.
    pub calls: Vec<Call>,
    /// The outcome bounds.
    pub bounds: Vec<Bound>,
    /// The held assets whose balance may not fall.
    pub held: Vec<Address>,
    /// The post-conditions checked after the calls.
    pub checks: Vec<Check>,
    /// The packed terms ([`crate::pdr::PdrTerms::pack`]); its top 96 bits are the nonce.
    pub terms: U256,
}

/// A PDR user operation's `signature`: the PDR's attestation hash and its EIP-2098 compact
/// signature.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PdrSignature {
    /// `hashStruct(attestation)` ([`Pdr::attestation_hash`]).
    pub attestation: B256,
    /// The signature's `r`.
    pub r: B256,
    /// The signature's `vs` (EIP-2098: the parity bit on top of `s`).
    pub vs: B256,
}

impl PdrSignature {
    /// `abi.encode(attestation, r, vs)`: 96 bytes.
    pub fn encode(&self) -> Bytes {
        pdr_signature(self.attestation, self.r, self.vs)
    }

    /// The three words of a 96-byte `signature`; any other length is refused.
    pub fn decode(signature: &[u8]) -> Result<Self, UserOpError> {
        if signature.len() != 96 {
            return Err(UserOpError::BadSignatureLength(signature.len()));
        }
        let w = |i: usize| B256::from_slice(&signature[32 * i..32 * (i + 1)]);
        Ok(Self {
            attestation: w(0),
            r: w(1),
            vs: w(2),
        })
    }
}

/// A PDR user operation's `signature`: `abi.encode(attestation, r, vs)`.
pub fn pdr_signature(attestation: B256, r: B256, vs: B256) -> Bytes {
    (attestation, r, vs).abi_encode().into()
}

/// The gas fields of a user operation, unpacked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserOpGas {
    /// Gas for the account's `validateUserOp` (and deployment).
    pub verification_gas_limit: u128,
    /// Gas for the account's execution (`executeUserOpPdr`).
    pub call_gas_limit: u128,
    /// Gas paid for the bundler's overhead outside the metered calls.
    pub pre_verification_gas: u128,
    /// The tip per gas.
    pub max_priority_fee_per_gas: u128,
    /// The most paid per gas, base fee included.
    pub max_fee_per_gas: u128,
}

/// The unsigned user operation that carries `pdr` from `sender`: its nonce, its batch as
/// [`pdr_call_data`], `gas`, `paymaster_and_data` (empty: the account pays), no `initCode`, and
/// an empty signature. Hash it ([`user_op_hash`]), sign the PDR under the salted domain and set
/// [`PdrSignature::encode`] as its signature.
pub fn pdr_user_op(
    sender: Address,
    pdr: &Pdr,
    gas: &UserOpGas,
    paymaster_and_data: Bytes,
) -> PackedUserOperation {
    PackedUserOperation {
        sender,
        nonce: pdr.nonce,
        initCode: Bytes::new(),
        callData: pdr_call_data(
            &pdr.calls,
            &pdr.bounds,
            &pdr.held,
            &pdr.checks,
            pdr.terms().pack(),
        ),
        accountGasLimits: pack_account_gas_limits(gas.verification_gas_limit, gas.call_gas_limit),
        preVerificationGas: U256::from(gas.pre_verification_gas),
        gasFees: pack_gas_fees(gas.max_priority_fee_per_gas, gas.max_fee_per_gas),
        paymasterAndData: paymaster_and_data,
        signature: Bytes::new(),
    }
}

/// What `validateUserOp` returns, unpacked: `authorizer | validUntil << 160 | validAfter << 208`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ValidationData {
    /// The zero address when the signature is valid, [`SIG_VALIDATION_FAILED`] when it is not,
    /// otherwise a signature aggregator.
    pub authorizer: Address,
    /// Last valid timestamp, inclusive (48 bits; 0 means no end to the EntryPoint, and the
    /// PACE accounts never return it for a PDR).
    pub valid_until: u64,
    /// First valid timestamp (48 bits).
    pub valid_after: u64,
}

/// The largest timestamp `validationData` holds (48 bits).
pub const MAX_VALIDATION_TIME: u64 = (1 << 48) - 1;

impl ValidationData {
    /// The value of an account that checks its own signature: `sig_failed`, valid from
    /// `valid_after` to `valid_until`. Timestamps above [`MAX_VALIDATION_TIME`] are refused
    /// (`None`), never truncated.
    pub fn new(sig_failed: bool, valid_until: u64, valid_after: u64) -> Option<Self> {
        if valid_until > MAX_VALIDATION_TIME || valid_after > MAX_VALIDATION_TIME {
            return None;
        }
        Some(Self {
            authorizer: if sig_failed {
                SIG_VALIDATION_FAILED
            } else {
                Address::ZERO
            },
            valid_until,
            valid_after,
        })
    }

    /// Whether the account reported a failed signature.
    pub fn sig_failed(&self) -> bool {
        self.authorizer == SIG_VALIDATION_FAILED
    }

    /// The packed word.
    pub fn pack(&self) -> U256 {
        U256::from_be_slice(self.authorizer.as_slice())
            | (U256::from(self.valid_until & MAX_VALIDATION_TIME) << 160)
            | (U256::from(self.valid_after & MAX_VALIDATION_TIME) << 208)
    }

    /// Unpacks a `validationData` word.
    pub fn unpack(word: U256) -> Self {
        let bytes = word.to_be_bytes::<32>();
        let field = |shift: usize| ((word >> shift) & U256::from(MAX_VALIDATION_TIME)).to::<u64>();
        Self {
            authorizer: Address::from_slice(&bytes[12..]),
            valid_until: field(160),
            valid_after: field(208),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pdr::{Attestation, BoundKind, PdrTerms};
    use alloy_primitives::hex;

    #[test]
    fn execute_user_op_pdr_selector_is_keccak_of_its_signature() {
        let sig = EXECUTE_USER_OP_PDR_SIGNATURE;
        assert_eq!(EXECUTE_USER_OP_PDR_SELECTOR, keccak256(sig)[..4]);
        assert_eq!(EXECUTE_USER_OP_PDR_SELECTOR, hex!("17f5eea9"));
    }

    #[test]
    fn gas_words_put_the_first_value_on_top() {
        let w = pack_account_gas_limits(1, 2);
        assert_eq!(
            U256::from_be_bytes(w.0),
            (U256::from(1) << 128) | U256::from(2)
        );
        assert_eq!(unpack_account_gas_limits(w), (1, 2));
        let f = pack_gas_fees(u128::MAX, 7);
        assert_eq!(unpack_gas_fees(f), (u128::MAX, 7));
        assert_eq!(U256::from_be_bytes(f.0) >> 128, U256::from(u128::MAX));
    }

    #[test]
    fn eip7702_marker_is_recognised_as_the_entry_point_does() {
        assert!(is_eip7702_init_code(&hex!("7702")));
        assert!(is_eip7702_init_code(&[0x77, 0x02, 0, 0, 0]));
        let mut long = vec![0x77, 0x02];
        long.extend([0u8; 18]);
        long.extend([0xab; 4]);
        assert!(is_eip7702_init_code(&long));
        assert!(!is_eip7702_init_code(&hex!("77")));
        assert!(!is_eip7702_init_code(&hex!("770201")));
        assert!(!is_eip7702_init_code(&hex!("7703")));
        let mut factory = vec![0x77, 0x02];
        factory.extend([0u8; 17]);
        factory.push(1);
        assert!(!is_eip7702_init_code(&factory), "a factory 0x7702…01");
        let d = Address::repeat_byte(0xdd);
        assert_eq!(eip7702_init_code_hash(&hex!("7702"), d), keccak256(d));
        let mut tail = d.to_vec();
        tail.extend([0xab; 4]);
        assert_eq!(eip7702_init_code_hash(&long, d), keccak256(tail));
    }

    #[test]
    fn a_marked_init_code_needs_the_delegate() {
        let op = PackedUserOperation {
            initCode: hex!("7702").into(),
            ..Default::default()
        };
        assert_eq!(
            user_op_hash(&op, ENTRY_POINT_V08, 1, None),
            Err(UserOpError::MissingDelegate)
        );
        let a = user_op_hash(&op, ENTRY_POINT_V08, 1, Some(Address::repeat_byte(1))).unwrap();
        let b = user_op_hash(&op, ENTRY_POINT_V08, 1, Some(Address::repeat_byte(2))).unwrap();
        assert_ne!(a, b, "the delegate is hashed");
    }

    #[test]
    fn the_hash_binds_every_field_but_the_signature() {
        let base = PackedUserOperation {
            sender: Address::repeat_byte(1),
            nonce: U256::from(5),
            initCode: Bytes::new(),
            callData: vec![1, 2, 3].into(),
            accountGasLimits: pack_account_gas_limits(100_000, 200_000),
            preVerificationGas: U256::from(50_000),
            gasFees: pack_gas_fees(1, 2),
            paymasterAndData: Bytes::new(),
            signature: Bytes::new(),
        };
        let h = |op: &PackedUserOperation| user_op_hash(op, ENTRY_POINT_V08, 1, None).unwrap();
        let h0 = h(&base);
        let changed: Vec<PackedUserOperation> = vec![
            PackedUserOperation {
                sender: Address::repeat_byte(2),
                ..base.clone()
            },
            PackedUserOperation {
                nonce: U256::from(6),
                ..base.clone()
            },
            PackedUserOperation {
                initCode: vec![9].into(),
                ..base.clone()
            },
            PackedUserOperation {
                callData: vec![1, 2].into(),
                ..base.clone()
            },
            PackedUserOperation {
                accountGasLimits: pack_account_gas_limits(100_001, 200_000),
                ..base.clone()
            },
            PackedUserOperation {
                preVerificationGas: U256::from(50_001),
                ..base.clone()
            },
            PackedUserOperation {
                gasFees: pack_gas_fees(1, 3),
                ..base.clone()
            },
            PackedUserOperation {
                paymasterAndData: paymaster_and_data(Address::repeat_byte(3), 1, 1, &[]),
                ..base.clone()
            },
        ];
        for (i, op) in changed.iter().enumerate() {
            assert_ne!(h(op), h0, "field {i}");
        }
        let signed = PackedUserOperation {
            signature: vec![7; 65].into(),
            ..base.clone()
        };
        assert_eq!(h(&signed), h0);
        assert_ne!(user_op_hash(&base, Address::ZERO, 1, None).unwrap(), h0);
        assert_ne!(user_op_hash(&base, ENTRY_POINT_V08, 2, None).unwrap(), h0);
    }

    fn pdr() -> Pdr {
        let terms = PdrTerms {
            key: 9,
            sequence: 4,
            ..PdrTerms::default()
        };
        Pdr::new(
            Attestation {
                policyHash: B256::repeat_byte(1),
                intentHash: B256::repeat_byte(2),
                simulationHash: B256::repeat_byte(3),
            },
            vec![Call {
                target: Address::repeat_byte(0xaa),
                value: U256::from(3),
                data: vec![0xde, 0xad].into(),
            }],
            vec![Bound::new(
                BoundKind::Erc1155,
                Address::repeat_byte(0xbb),
                U256::from(8),
            )],
            vec![Address::ZERO],
            vec![Check::kept(
                Address::repeat_byte(0xcc),
                vec![0x07, 0xa2, 0xd1, 0x3a].into(),
                1,
                U256::from(5),
                U256::MAX,
            )],
            &terms,
        )
    }

    #[test]
    fn pdr_call_data_round_trips_and_refuses_anything_else() {
        let p = pdr();
        let terms = p.terms().pack();
        let data = pdr_call_data(&p.calls, &p.bounds, &p.held, &p.checks, terms);
        assert_eq!(data[..4], hex!("17f5eea9"));
        assert_eq!(
            data[..4],
            keccak256(EXECUTE_USER_OP_PDR_SIGNATURE)[..4],
            "the selector is the signature's"
        );
        // Four offsets and the terms, then the arrays.
        assert_eq!(U256::from_be_slice(&data[4..36]), U256::from(160));
        assert_eq!(U256::from_be_slice(&data[132..164]), terms);
        let batch = decode_pdr_call_data(&data).unwrap();
        assert_eq!(
            (
                batch.calls,
                batch.bounds,
                batch.held,
                batch.checks,
                batch.terms
            ),
            (p.calls, p.bounds, p.held, p.checks, terms)
        );
        assert_eq!(
            decode_pdr_call_data(&data[1..]),
            Err(UserOpError::NotExecuteUserOpPdr)
        );
        let mut trailing = data.to_vec();
        trailing.extend([0u8; 32]);
        assert!(matches!(
            decode_pdr_call_data(&trailing),
            Err(UserOpError::BadBatch(_))
        ));
        assert!(matches!(
            decode_pdr_call_data(&data[..data.len() - 1]),
            Err(UserOpError::BadBatch(_))
        ));
    }

    #[test]
    fn pdr_user_op_carries_the_nonce_and_batch() {
        let p = pdr();
        let gas = UserOpGas {
            verification_gas_limit: 1,
            call_gas_limit: 2,
            pre_verification_gas: 3,
            max_priority_fee_per_gas: 4,
            max_fee_per_gas: 5,
        };
        let op = pdr_user_op(Address::repeat_byte(0x5a), &p, &gas, Bytes::new());
        assert_eq!(op.nonce, (U256::from(9) << 64) | U256::from(4));
        assert_eq!(op.nonce, p.terms().pack() >> 160);
        assert_eq!(unpack_account_gas_limits(op.accountGasLimits), (1, 2));
        assert_eq!(unpack_gas_fees(op.gasFees), (4, 5));
        assert_eq!(op.preVerificationGas, U256::from(3));
        let batch = decode_pdr_call_data(&op.callData).unwrap();
        assert_eq!(batch.calls, p.calls);
        assert_eq!(batch.terms, p.terms().pack());
    }

    #[test]
    fn pdr_signature_is_three_words() {
        let s = PdrSignature {
            attestation: B256::repeat_byte(1),
            r: B256::repeat_byte(3),
            vs: B256::repeat_byte(4),
        };
        let bytes = s.encode();
        assert_eq!(bytes.len(), 96);
        assert_eq!(bytes[..32], [1u8; 32]);
        assert_eq!(bytes[32..64], [3u8; 32]);
        assert_eq!(PdrSignature::decode(&bytes), Ok(s));
        assert_eq!(
            PdrSignature::decode(&bytes[..95]),
            Err(UserOpError::BadSignatureLength(95))
        );
    }

    #[test]
    fn validation_data_packs_as_the_entry_point_reads_it() {
        let v = ValidationData::new(true, 1_700_000_600, 1_700_000_000).unwrap();
        let word = v.pack();
        assert_eq!(word & U256::from(u8::MAX), U256::from(1));
        assert_eq!(
            word,
            U256::from(1)
                | (U256::from(1_700_000_600u64) << 160)
                | (U256::from(1_700_000_000u64) << 208)
        );
        assert_eq!(ValidationData::unpack(word), v);
        assert!(ValidationData::unpack(word).sig_failed());
        let ok = ValidationData::new(false, MAX_VALIDATION_TIME, 0).unwrap();
        assert!(!ok.sig_failed());
        assert_eq!(ValidationData::unpack(ok.pack()), ok);
        assert_eq!(ValidationData::new(false, MAX_VALIDATION_TIME + 1, 0), None);
        let aggregator = U256::from_be_slice(Address::repeat_byte(0x42).as_slice());
        let agg = ValidationData::unpack(aggregator);
        assert_eq!(agg.authorizer, Address::repeat_byte(0x42));
        assert!(!agg.sig_failed());
    }
}
