//! Which rates the valuation trusts, and how far it follows them: every field of a feed the
//! policy names must match, a vault or pool share prices only itself, and chains of rates stop
//! at the depth, cycle and step limits (mutation testing found these untested).

use super::{MAX_DEPTH, MAX_STEPS, Valuer};
use alloy_primitives::{Address, U256};
use pace_types::{
    ETH, FeedRound, OraclePrice, Policy, PriceFact, PriceSource, TablePrice, TokenAmount,
};

fn addr(b: u8) -> Address {
    Address::repeat_byte(b)
}

fn fact(
    source: PriceSource,
    token: Address,
    via: Address,
    amount: u64,
    worth: &[(Address, u64)],
) -> PriceFact {
    PriceFact {
        token,
        source,
        via,
        amount: U256::from(amount),
        worth: worth
            .iter()
            .map(|&(token, amount)| TokenAmount {
                token,
                amount: U256::from(amount),
            })
            .collect(),
    }
}

fn value(policy: &Policy, facts: &[PriceFact], token: Address, amount: u64) -> Option<U256> {
    Valuer::new(policy, facts).value(token, U256::from(amount), false)
}

/// A policy trusting feed 7 for 100 of token 2 in ether, and pricing token 4 at 1 wei.
fn feed_policy() -> Policy {
    Policy {
        price_oracles: vec![OraclePrice {
            oracle: addr(7),
            token: addr(2),
            quote: ETH,
            scale: U256::from(100u64),
            max_age_secs: None,
        }],
        prices: vec![TablePrice {
            token: addr(4),
            amount: U256::from(1u8),
            value: U256::from(1u8),
        }],
        ..Policy::default()
    }
}

#[test]
fn a_feed_prices_only_through_the_round_of_the_oracle_token_and_quote_the_policy_names() {
    let policy = feed_policy();
    let good = super::flows_tests::round(50);
    let priced = |rounds: &[FeedRound]| {
        Valuer::with_feeds(&policy, &[], rounds, 100).value(addr(2), U256::from(200u64), false)
    };
    assert_eq!(
        priced(std::slice::from_ref(&good)),
        Some(U256::from(100u64))
    );
    // The round of another feed, for another token or in another quote (one the policy
    // prices: only the mismatch refuses it) prices nothing.
    let mut other_feed = good.clone();
    other_feed.oracle = addr(6);
    let mut other_token = good.clone();
    other_token.token = addr(3);
    let mut other_quote = good;
    other_quote.quote = addr(4);
    for (why, r) in [
        ("another feed", other_feed),
        ("another token", other_token),
        ("another quote", other_quote),
    ] {
        assert_eq!(priced(&[r]), None, "{why}");
    }
    // A bare answer, without its round, is no price: its age is unknown.
    let bare = fact(PriceSource::Oracle, addr(2), addr(7), 100, &[(ETH, 50)]);
    assert_eq!(value(&policy, &[bare], addr(2), 200), None);
}

/// A policy trusting `via` as a source of `source`'s kind (a vault, or a pool for its shares).
fn trusting(source: PriceSource, via: Address) -> Policy {
    let mut policy = Policy::default();
    match source {
        PriceSource::Vault => policy.price_vaults.push(via),
        _ => policy.price_pools.push(via),
    }
    policy
}

#[test]
fn a_vault_or_a_pool_share_prices_only_its_own_shares() {
    for source in [PriceSource::Vault, PriceSource::PoolShare] {
        let policy = trusting(source, addr(8));
        // 10 shares of 8 are worth 20 wei.
        let own = fact(source, addr(8), addr(8), 10, &[(ETH, 20)]);
        assert_eq!(
            value(&policy, std::slice::from_ref(&own), addr(8), 5),
            Some(U256::from(10u64)),
            "{source:?}"
        );
        // A trusted vault or pool saying what another token is worth is not trusted.
        let other = fact(source, addr(3), addr(8), 10, &[(ETH, 20)]);
        assert_eq!(value(&policy, &[other], addr(3), 5), None, "{source:?}");
        // Its own shares, but the policy does not name it.
        let untrusted = trusting(source, addr(9));
        assert_eq!(value(&untrusted, &[own], addr(8), 5), None, "{source:?}");
    }
}

/// A chain of `links` rates, token 0x10 -> 0x11 -> ... -> ether, each 1:1, through trusted
/// pool 9.
fn chain(links: u8) -> (Policy, Vec<PriceFact>) {
    let facts = (0..links)
        .map(|i| {
            let next = if i + 1 == links { ETH } else { addr(0x11 + i) };
            fact(PriceSource::Pool, addr(0x10 + i), addr(9), 1, &[(next, 1)])
        })
        .collect();
    (trusting(PriceSource::Pool, addr(9)), facts)
}

#[test]
fn chains_of_rates_stop_at_the_depth_limit() {
    let depth = u8::try_from(MAX_DEPTH).unwrap();
    let (policy, facts) = chain(depth);
    assert_eq!(
        value(&policy, &facts, addr(0x10), 3),
        Some(U256::from(3u64))
    );
    let (policy, facts) = chain(depth + 1);
    assert_eq!(value(&policy, &facts, addr(0x10), 3), None);
}

#[test]
fn a_cycle_is_not_followed_even_when_it_would_price() {
    // 1 of token 2 = 1 of token 3; token 3's first rate goes back to token 2 at 1:2, its
    // second to ether at 1:1. Around the cycle, 10 of token 2 would be worth 20 wei.
    let policy = trusting(PriceSource::Pool, addr(9));
    let facts = [
        fact(PriceSource::Pool, addr(2), addr(9), 1, &[(addr(3), 1)]),
        fact(PriceSource::Pool, addr(3), addr(9), 1, &[(addr(2), 2)]),
        fact(PriceSource::Pool, addr(3), addr(9), 1, &[(ETH, 1)]),
    ];
    assert_eq!(value(&policy, &facts, addr(2), 10), Some(U256::from(10u64)));
}

#[test]
fn a_report_listing_too_many_rates_leaves_the_asset_unpriced() {
    // Token 0x10 has `wide` dead-end rates into token 0x11, which has `wide` into 0x12, which
    // has `wide` into the unpriced 0x13: about wide^3 tries. Its last rate, into token 0x20,
    // which a trusted pool prices in ether, would price it if the search had no budget.
    let wide = 1 + (MAX_STEPS as f64).cbrt() as u64;
    assert!(wide.pow(3) > MAX_STEPS as u64);
    let policy = trusting(PriceSource::Pool, addr(9));
    let mut facts = Vec::new();
    for (from, to) in [(0x10, 0x11), (0x11, 0x12), (0x12, 0x13)] {
        for amount in 1..=wide {
            facts.push(fact(
                PriceSource::Pool,
                addr(from),
                addr(9),
                1,
                &[(addr(to), amount)],
            ));
        }
    }
    facts.push(fact(
        PriceSource::Pool,
        addr(0x10),
        addr(9),
        1,
        &[(addr(0x20), 1)],
    ));
    facts.push(fact(PriceSource::Pool, addr(0x20), addr(9), 1, &[(ETH, 1)]));
    assert_eq!(value(&policy, &facts, addr(0x10), 1), None);
    // The same last rate alone prices it: the budget, not the rate, refused it above.
    let direct = &facts[facts.len() - 2..];
    assert_eq!(
        value(&policy, direct, addr(0x10), 1),
        Some(U256::from(1u64))
    );
}

/// A policy pinning a descriptor with `root` as its root and `rule` among its price rules.
fn by_descriptor(root: Address, rule: bool) -> Policy {
    by_rule(root, if rule { &["vault_rate"] } else { &[] })
}

/// A policy pinning a descriptor with `root` as its root and `rules` as its price rules.
fn by_rule(root: Address, rules: &[&str]) -> Policy {
    let d: pace_types::descriptor::Descriptor = serde_json::from_value(serde_json::json!({
        "schema": 1, "id": "vaults",
        "roots": [{"name": "vault", "address": format!("{root:#x}")}],
        "prices": rules,
    }))
    .unwrap();
    Policy {
        protocols: vec![pace_types::ProtocolPin {
            file: None,
            hash: d.hash(),
            descriptor: Some(d),
        }],
        ..Policy::default()
    }
}

#[test]
fn a_descriptors_vault_rate_prices_its_roots_and_members_shares_only() {
    let own = fact(PriceSource::Vault, addr(8), addr(8), 10, &[(ETH, 20)]);
    let members = [pace_types::ProtocolMember {
        contract: addr(9),
        protocol: "vaults".into(),
        rule: "code_hash".into(),
    }];
    assert_eq!(
        value(
            &by_descriptor(addr(8), true),
            std::slice::from_ref(&own),
            addr(8),
            5
        ),
        Some(U256::from(10u64))
    );
    assert_eq!(
        value(&by_descriptor(addr(8), false), &[own], addr(8), 5),
        None
    );
    // Without the rule, the root's rate is not trusted.
    assert!(!super::trusted_vault(
        &by_descriptor(addr(8), false),
        &[],
        addr(8)
    ));
    // A member of the protocol is trusted, a member of another protocol is not.
    assert!(super::trusted_vault(
        &by_descriptor(addr(7), true),
        &members,
        addr(9)
    ));
    let mut stranger = members.clone();
    stranger[0].protocol = "other".into();
    assert!(!super::trusted_vault(
        &by_descriptor(addr(7), true),
        &stranger,
        addr(9)
    ));
    // Nor a contract that is neither root nor member.
    assert!(!super::trusted_vault(
        &by_descriptor(addr(7), true),
        &members,
        addr(8)
    ));
}

#[test]
fn a_descriptors_pool_share_prices_its_roots_and_members_own_shares_only() {
    let shares = fact(PriceSource::PoolShare, addr(9), addr(9), 10, &[(ETH, 20)]);
    let members = [pace_types::ProtocolMember {
        contract: addr(9),
        protocol: "vaults".into(),
        rule: "listing".into(),
    }];
    let trusted = |policy: &Policy, f: &PriceFact, members: &[pace_types::ProtocolMember]| {
        super::trusted_source(policy, members, f)
    };
    // A member of a descriptor with the rule, and a root.
    assert!(trusted(
        &by_rule(addr(7), &["pool_share"]),
        &shares,
        &members
    ));
    assert!(trusted(&by_rule(addr(9), &["pool_share"]), &shares, &[]));
    // Not without the rule, nor under the vault rule alone.
    assert!(!trusted(&by_rule(addr(7), &[]), &shares, &members));
    assert!(!trusted(
        &by_rule(addr(7), &["vault_rate"]),
        &shares,
        &members
    ));
    // Nor another token's price through the pool, nor the pool's mid price.
    let other = fact(PriceSource::PoolShare, addr(5), addr(9), 10, &[(ETH, 20)]);
    assert!(!trusted(
        &by_rule(addr(7), &["pool_share"]),
        &other,
        &members
    ));
    let mid = fact(PriceSource::Pool, addr(5), addr(9), 10, &[(ETH, 20)]);
    assert!(!trusted(&by_rule(addr(7), &["pool_share"]), &mid, &members));
    // Nor a contract that is neither root nor member.
    assert!(!trusted(&by_rule(addr(7), &["pool_share"]), &shares, &[]));
}
