//! The verifier on protocols trusted by descriptor: the benign swap with its router and pair
//! allowed by a descriptor instead of `allowed_targets` and `allowed_touched` passes when the
//! report says the pair belongs and the router runs the pinned code; it is refused when the
//! membership fact is missing or names an untrusted protocol, and when the root's code differs
//! from the pin or was not read.

use crate::case::Case;
use alloy_primitives::{B256, keccak256};
use pace_testkit::mainnet::*;
use pace_types::{
    ProtocolMember, ProtocolPin, RootCode, ViolationCode as Code,
    descriptor::{DESCRIPTOR_SCHEMA, Descriptor, EntryPoint, Members, Registry, Root},
};

fn router_code() -> B256 {
    keccak256(b"Router02")
}

fn uniswap_v2() -> Descriptor {
    Descriptor {
        schema: DESCRIPTOR_SCHEMA,
        id: "uniswap-v2".into(),
        chain_id: Some(CHAIN_ID),
        reviewed_by: None,
        license: None,
        roots: vec![
            Root {
                name: "factory".into(),
                address: alloy_primitives::address!("5c69bee701ef814a2b6a3edd4b1652cb9cc5aa6f"),
                code_hash: None,
                implementation_code_hash: None,
            },
            Root {
                name: "router".into(),
                address: ROUTER,
                code_hash: Some(router_code()),
                implementation_code_hash: None,
            },
        ],
        entry_points: vec![EntryPoint {
            root: "router".into(),
            selectors: vec![[0x38, 0xed, 0x17, 0x39].into()],
        }],
        members: Members {
            registries: vec![Registry {
                root: "factory".into(),
                lookup: "getPair(address,address)".into(),
                args: vec!["token0()".into(), "token1()".into()],
            }],
            ..Members::default()
        },
        positions: Vec::new(),
        health: Vec::new(),
        prices: Vec::new(),
        rates: Vec::new(),
        records: Vec::new(),
        checks: Vec::new(),
    }
}

/// The benign swap with the router and the pair trusted by descriptor only, and the report's
/// facts: the pair a member of `member_of`, the router's code `code`.
fn by_descriptor(member_of: &str, code: Option<B256>) -> Case {
    Case::benign()
        .with(|c| {
            let d = uniswap_v2();
            c.policy.allowed_targets.retain(|t| *t != ROUTER);
            c.policy.allowed_touched.retain(|t| *t != PAIR);
            c.policy.protocols = vec![ProtocolPin {
                file: None,
                hash: d.hash(),
                descriptor: Some(d),
            }];
            let protocols = &mut c.report_mut().protocols;
            protocols.members = vec![ProtocolMember {
                contract: PAIR,
                protocol: member_of.into(),
                rule: "registry".into(),
            }];
            protocols.root_code = code
                .map(|code| RootCode {
                    protocol: "uniswap-v2".into(),
                    root: "router".into(),
                    address: ROUTER,
                    code_hash: Some(code),
                    implementation_code_hash: None,
                })
                .into_iter()
                .collect();
        })
        .rehash()
}

#[test]
fn a_protocol_trusted_by_descriptor_allows_its_entry_points_and_members() {
    assert_eq!(
        by_descriptor("uniswap-v2", Some(router_code())).codes(),
        vec![]
    );
    // The same policy without the descriptor: the router and the pair are strangers.
    let bare =
        by_descriptor("uniswap-v2", Some(router_code())).with(|c| c.policy.protocols.clear());
    let codes = bare.codes();
    assert!(codes.contains(&Code::TargetNotAllowed), "{codes:?}");
    assert!(codes.contains(&Code::TouchedNotAllowed), "{codes:?}");
}

#[test]
fn membership_comes_from_the_report_and_only_for_trusted_protocols() {
    let unread = by_descriptor("uniswap-v2", Some(router_code()))
        .with(|c| c.report_mut().protocols.members.clear())
        .rehash();
    for case in [by_descriptor("a-lookalike", Some(router_code())), unread] {
        // The pair is a stranger again: touched, and paid.
        let codes = case.codes();
        assert!(codes.contains(&Code::TouchedNotAllowed), "{codes:?}");
        assert!(codes.contains(&Code::RecipientNotAllowed), "{codes:?}");
    }
}

#[test]
fn a_root_running_other_code_or_unread_is_refused() {
    assert_eq!(
        by_descriptor("uniswap-v2", Some(keccak256(b"upgraded"))).codes(),
        vec![Code::ProtocolCodeChanged]
    );
    assert_eq!(
        by_descriptor("uniswap-v2", None).codes(),
        vec![Code::ProtocolCodeChanged]
    );
}
