//! The account's signing call: the typed data decoded by its type hashes, checked against its
//! digest, and the call it is judged as.

use alloy_primitives::{
    Address, B256, Bytes, U256, address, aliases::U48, aliases::U160, keccak256,
};
use alloy_sol_types::{Eip712Domain, SolCall, SolStruct, SolValue, eip712_domain};
use pace_abi::{
    DecodedCall,
    decode::{
        decode_call,
        rights::{RightKind, decode_rights},
        typed_data::*,
    },
    rights::IPermit2,
};
use proptest::prelude::*;

const ACCOUNT: Address = address!("9f9bdd8a96fb9aa78f72e4f491a61fae724b5a45");
const PERMIT2: Address = address!("000000000022d473030f116ddee9f6b43ac78ba3");
const USDC: Address = address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
const SPENDER: Address = address!("66a9893cc07d91d95644aedd05d03f95e1dba8af");

fn permit2_domain() -> Eip712Domain {
    eip712_domain! { name: "Permit2", chain_id: 1, verifying_contract: PERMIT2, }
}

fn usdc_domain() -> Eip712Domain {
    eip712_domain! { name: "USD Coin", version: "2", chain_id: 1, verifying_contract: USDC, }
}

fn single() -> IPermit2::PermitSingle {
    IPermit2::PermitSingle {
        details: IPermit2::PermitDetails {
            token: USDC,
            amount: U160::from(1_000_000u64),
            expiration: U48::from(1_800_000_000u64),
            nonce: U48::from(3u64),
        },
        spender: SPENDER,
        sigDeadline: U256::from(1_800_000_000u64),
    }
}

fn messages() -> Vec<(Eip712Domain, SignedMessage)> {
    let permitted = TokenPermissions {
        token: USDC,
        amount: U256::from(5u64),
    };
    vec![
        (
            usdc_domain(),
            SignedMessage::Erc2612(Permit {
                owner: ACCOUNT,
                spender: SPENDER,
                value: U256::from(7u64),
                nonce: U256::ZERO,
                deadline: U256::from(9u64),
            }),
        ),
        (permit2_domain(), SignedMessage::Permit2Single(single())),
        (
            permit2_domain(),
            SignedMessage::Permit2Batch(IPermit2::PermitBatch {
                details: vec![single().details, single().details],
                spender: SPENDER,
                sigDeadline: U256::from(4u64),
            }),
        ),
        (
            permit2_domain(),
            SignedMessage::Permit2Transfer(PermitTransferFrom {
                permitted: permitted.clone(),
                spender: SPENDER,
                nonce: U256::from(1u64),
                deadline: U256::from(2u64),
            }),
        ),
        (
            permit2_domain(),
            SignedMessage::Permit2BatchTransfer(PermitBatchTransferFrom {
                permitted: vec![permitted.clone(), permitted],
                spender: SPENDER,
                nonce: U256::from(1u64),
                deadline: U256::from(2u64),
            }),
        ),
    ]
}

/// The type hashes are the ones the standards publish, written out.
#[test]
fn the_types_are_the_standards() {
    let hash = |s: &str| keccak256(s.as_bytes());
    let types = [
        (
            Permit::eip712_encode_type(),
            "Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)",
        ),
        (
            IPermit2::PermitSingle::eip712_encode_type(),
            "PermitSingle(PermitDetails details,address spender,uint256 sigDeadline)PermitDetails(address token,uint160 amount,uint48 expiration,uint48 nonce)",
        ),
        (
            IPermit2::PermitBatch::eip712_encode_type(),
            "PermitBatch(PermitDetails[] details,address spender,uint256 sigDeadline)PermitDetails(address token,uint160 amount,uint48 expiration,uint48 nonce)",
        ),
        (
            PermitTransferFrom::eip712_encode_type(),
            "PermitTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline)TokenPermissions(address token,uint256 amount)",
        ),
        (
            PermitBatchTransferFrom::eip712_encode_type(),
            "PermitBatchTransferFrom(TokenPermissions[] permitted,address spender,uint256 nonce,uint256 deadline)TokenPermissions(address token,uint256 amount)",
        ),
    ];
    for (ours, standard) in types {
        assert_eq!(hash(&ours), hash(standard), "{standard}");
    }
    assert_eq!(permit2_domain().encode_type(), DOMAIN_WITHOUT_VERSION);
    assert_eq!(usdc_domain().encode_type(), DOMAIN_WITH_VERSION);
}

/// Every kind round-trips, its digest is the EIP-712 signing hash alloy computes, and the call
/// it is judged as grants the account's right to the same spender.
#[test]
fn every_kind_decodes_to_its_signing_hash_and_an_equivalent_grant() {
    for (domain, message) in messages() {
        let data = signing_call_data(&domain, &message);
        let signed = decode_signing_call(ACCOUNT, 1, &data).expect("decodes");
        assert_eq!(signed.message, message);
        assert_eq!(
            signed.verifying_contract,
            domain.verifying_contract.unwrap()
        );
        let expected = match &message {
            SignedMessage::Erc2612(p) => p.eip712_signing_hash(&domain),
            SignedMessage::Permit2Single(p) => p.eip712_signing_hash(&domain),
            SignedMessage::Permit2Batch(p) => p.eip712_signing_hash(&domain),
            SignedMessage::Permit2Transfer(p) => p.eip712_signing_hash(&domain),
            SignedMessage::Permit2BatchTransfer(p) => p.eip712_signing_hash(&domain),
        };
        assert_eq!(signed.digest, expected);
        let (target, call) = signed.equivalent_call(ACCOUNT);
        assert_eq!(target, signed.verifying_contract);
        if let SignedMessage::Erc2612(p) = &message {
            match decode_call(target, U256::ZERO, &call).unwrap() {
                DecodedCall::Permit {
                    token,
                    owner,
                    spender,
                    value,
                    ..
                } => assert_eq!(
                    (token, owner, spender, value),
                    (USDC, ACCOUNT, p.spender, p.value)
                ),
                other => panic!("{other:?}"),
            }
            continue;
        }
        let grants = decode_rights(target, &call).unwrap();
        assert!(!grants.is_empty());
        for g in grants {
            assert_eq!(
                (g.kind, g.owner, g.token, g.holder),
                (RightKind::Permit2, Some(ACCOUNT), Some(USDC), SPENDER)
            );
            assert!(!g.amount.is_zero());
        }
    }
}

/// Amounts above Permit2's `uint160` are judged as its maximum (unlimited), not truncated.
#[test]
fn a_signature_transfer_above_uint160_is_judged_unlimited() {
    let message = SignedMessage::Permit2Transfer(PermitTransferFrom {
        permitted: TokenPermissions {
            token: USDC,
            amount: U256::MAX,
        },
        spender: SPENDER,
        nonce: U256::ZERO,
        deadline: U256::MAX,
    });
    let data = signing_call_data(&permit2_domain(), &message);
    let (target, call) = decode_signing_call(ACCOUNT, 1, &data)
        .unwrap()
        .equivalent_call(ACCOUNT);
    let grants = decode_rights(target, &call).unwrap();
    assert_eq!(grants[0].amount, U256::from(U160::MAX));
}

fn refused(data: &[u8]) -> TypedDataError {
    decode_signing_call(ACCOUNT, 1, data).expect_err("refused")
}

fn call(digest: B256, domain: Vec<u8>, message: Vec<u8>) -> Bytes {
    IPaceSignatures::approveHashCall {
        digest,
        domain: domain.into(),
        message: message.into(),
    }
    .abi_encode()
    .into()
}

fn parts(data: &[u8]) -> (B256, Vec<u8>, Vec<u8>) {
    let c = IPaceSignatures::approveHashCall::abi_decode(data).unwrap();
    (c.digest, c.domain.to_vec(), c.message.to_vec())
}

#[test]
fn what_the_decoder_does_not_read_is_refused() {
    let (domain, message) = messages().remove(1);
    let good = signing_call_data(&domain, &message);
    let (digest, d, m) = parts(&good);

    // Another chain, a salted domain, a domain without its chain.
    assert!(matches!(
        decode_signing_call(ACCOUNT, 10, &good),
        Err(TypedDataError::WrongChain { .. })
    ));
    let salted = eip712_domain! {
        name: "Permit2", chain_id: 1, verifying_contract: PERMIT2, salt: B256::repeat_byte(1),
    };
    assert_eq!(
        refused(&signing_call_data(&salted, &message)),
        TypedDataError::UnknownDomain
    );
    let chainless = eip712_domain! { name: "Permit2", verifying_contract: PERMIT2, };
    assert_eq!(
        refused(&signing_call_data(&chainless, &message)),
        TypedDataError::UnknownDomain
    );
    // A dirty address word, a trailing word.
    let mut dirty = d.clone();
    dirty[96] = 1;
    assert_eq!(
        refused(&call(digest, dirty, m.clone())),
        TypedDataError::UnknownDomain
    );
    let mut long = d.clone();
    long.extend([0u8; 32]);
    assert_eq!(
        refused(&call(digest, long, m.clone())),
        TypedDataError::UnknownDomain
    );
    let mut trailing = m.clone();
    trailing.extend([0u8; 32]);
    assert_eq!(
        refused(&call(digest, d.clone(), trailing)),
        TypedDataError::UnknownMessage
    );

    // A witness transfer (UniswapX's order): a type not read.
    let witness = (
        keccak256("PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,ExclusiveDutchOrder witness)"),
        USDC,
        U256::from(1u64),
    )
        .abi_encode_params();
    assert_eq!(
        refused(&call(digest, d.clone(), witness)),
        TypedDataError::UnknownMessage
    );

    // Another digest.
    assert!(matches!(
        refused(&call(B256::repeat_byte(7), d, m)),
        TypedDataError::DigestMismatch { .. }
    ));

    // Someone else's EIP-2612 permit.
    let (usdc, mut permit) = messages().remove(0);
    if let SignedMessage::Erc2612(p) = &mut permit {
        p.owner = SPENDER;
    }
    assert_eq!(
        refused(&signing_call_data(&usdc, &permit)),
        TypedDataError::NotTheAccountsPermit { owner: SPENDER }
    );
    // Not the canonical call encoding.
    let mut padded = good.to_vec();
    padded.push(0);
    assert_eq!(refused(&padded), TypedDataError::BadCall);
}

proptest! {
    /// Changing any byte of the domain or the message after signing is refused: the typed data
    /// then no longer hashes to the digest, or no longer decodes.
    #[test]
    fn any_changed_byte_is_refused(kind in 0usize..5, in_domain: bool, at: usize, bit in 0u8..8) {
        let (domain, message) = messages().remove(kind);
        let (digest, mut d, mut m) = parts(&signing_call_data(&domain, &message));
        let part = if in_domain { &mut d } else { &mut m };
        let i = at % part.len();
        part[i] ^= 1 << bit;
        prop_assert!(decode_signing_call(ACCOUNT, 1, &call(digest, d, m)).is_err());
    }
}
