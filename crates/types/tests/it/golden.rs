//! Golden vectors: fixed values -> exact canonical JSON -> exact hash. Any change to the
//! encoding (field order, names, number or hex formatting, domain tags) fails here and must
//! come with a version bump of the domain tag.

use alloy_primitives::{Address, B256, Bytes, I256, U256, address, b256, bytes};
use pace_types::{
    Approval, ApprovalFact, BalanceChange, BudgetState, Call, CheckSwitches, Claims, Decision,
    Intent, Minter, NftFlow, OraclePrice, PeriodBudget, Policy, PositionChange, PriceFact,
    PriceSource, Selector, SimulationReport, SwapFacts, TablePrice, TokenAmount, TokenFlow,
    Violation, ViolationCode, hash::canonical_json,
};
use std::collections::BTreeMap;

fn intent() -> Intent {
    Intent {
        chain_id: 1,
        account: address!("9f9bdd8a96fb9aa78f72e4f491a61fae724b5a45"),
        calls: vec![
            Call {
                target: address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"),
                value: U256::ZERO,
                data: bytes!(
                    "095ea7b30000000000000000000000007a250d5630b4cf539739df2c5dacb4c659f2488d000000000000000000000000000000000000000000000000000000009502f900"
                ),
            },
            Call {
                target: address!("7a250d5630b4cf539739df2c5dacb4c659f2488d"),
                value: U256::from(1_000_000_000_000_000_000u128),
                data: Bytes::new(),
            },
        ],
        claimed: Claims {
            approvals: vec![Approval {
                token: address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"),
                spender: address!("7a250d5630b4cf539739df2c5dacb4c659f2488d"),
                amount: U256::from(2_500_000_000u64),
            }],
            outflows: vec![TokenAmount {
                token: address!("0000000000000000000000000000000000000000"),
                amount: U256::MAX,
            }],
            slippage_bps: Some(50),
            touched: vec![],
        },
        // Inserted out of order: the encoding sorts keys.
        metadata: BTreeMap::from([
            ("task".to_owned(), "swap \"USDC\" → WETH\n".to_owned()),
            ("agent".to_owned(), "demo".to_owned()),
        ]),
    }
}

const INTENT_JSON: &str = concat!(
    r#"{"chain_id":1,"account":"0x9f9bdd8a96fb9aa78f72e4f491a61fae724b5a45","calls":["#,
    r#"{"target":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","value":"0","data":"0x095ea7b30000000000000000000000007a250d5630b4cf539739df2c5dacb4c659f2488d000000000000000000000000000000000000000000000000000000009502f900"},"#,
    r#"{"target":"0x7a250d5630b4cf539739df2c5dacb4c659f2488d","value":"1000000000000000000","data":"0x"}],"#,
    r#""claimed":{"approvals":[{"token":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","spender":"0x7a250d5630b4cf539739df2c5dacb4c659f2488d","amount":"2500000000"}],"#,
    r#""outflows":[{"token":"0x0000000000000000000000000000000000000000","amount":"115792089237316195423570985008687907853269984665640564039457584007913129639935"}],"#,
    r#""slippage_bps":50,"touched":[]},"#,
    r#""metadata":{"agent":"demo","task":"swap \"USDC\" → WETH\n"}}"#,
);

fn policy() -> Policy {
    Policy {
        schema: pace_types::POLICY_SCHEMA,
        name: Some("golden".to_owned()),
        chain_id: Some(1),
        account: None,
        allowed_targets: vec![address!("7a250d5630b4cf539739df2c5dacb4c659f2488d")],
        allowed_selectors: vec![Selector::from([0x38, 0xed, 0x17, 0x39])],
        allowed_tokens: vec![address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48")],
        blocked_selectors: vec![Selector::from([0x23, 0xb8, 0x72, 0xdd])],
        spend_caps: vec![TokenAmount {
            token: address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"),
            amount: U256::from(10_000_000_000u64),
        }],
        budgets: vec![PeriodBudget {
            token: address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"),
            limit: U256::from(25_000_000_000u64),
            period_secs: 86_400,
        }],
        max_value_wei: U256::from(10u64).pow(U256::from(18u64)),
        forbid_unlimited_approval: true,
        max_slippage_bps: 100,
        max_price_impact_bps: 150,
        require_simulation: true,
        max_simulation_age_secs: 120,
        allowed_touched: vec![address!("b4e16d0168e52d35cacd2c6185b44281ec28c9dc")],
        allowed_recipients: vec![address!("1111111111111111111111111111111111111111")],
        fee_recipients: vec![address!("2222222222222222222222222222222222222222")],
        prices: vec![TablePrice {
            token: address!("c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"),
            amount: U256::from(1u8),
            value: U256::from(1u8),
        }],
        price_oracles: vec![OraclePrice {
            oracle: address!("3333333333333333333333333333333333333333"),
            token: address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"),
            quote: address!("0000000000000000000000000000000000000000"),
            scale: U256::from(1_000_000u64),
            max_age_secs: None,
        }],
        price_vaults: vec![address!("4444444444444444444444444444444444444444")],
        price_pools: vec![address!("b4e16d0168e52d35cacd2c6185b44281ec28c9dc")],
        min_health_factor_bps: Some(15_000),
        max_loss_bps: None,
        metadata_patterns: vec![r"(?i)ignore\s+previous".to_owned()],
        outcome_tolerance_bps: 50,
        checks: CheckSwitches {
            touched_allowlist: false,
            ..CheckSwitches::all_on()
        },
        ..Policy::default()
    }
}

const POLICY_JSON: &str = concat!(
    r#"{"name":"golden","chain_id":1,"account":null,"allowed_targets":["0x7a250d5630b4cf539739df2c5dacb4c659f2488d"],"#,
    r#""allowed_selectors":["0x38ed1739"],"allowed_tokens":["0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"],"#,
    r#""blocked_selectors":["0x23b872dd"],"#,
    r#""spend_caps":[{"token":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","amount":"10000000000"}],"#,
    r#""budgets":[{"token":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","limit":"25000000000","period_secs":86400}],"#,
    r#""max_value_wei":"1000000000000000000","forbid_unlimited_approval":true,"max_slippage_bps":100,"#,
    r#""max_price_impact_bps":150,"require_simulation":true,"max_simulation_age_secs":120,"#,
    r#""allowed_touched":["0xb4e16d0168e52d35cacd2c6185b44281ec28c9dc"],"#,
    r#""allowed_recipients":["0x1111111111111111111111111111111111111111"],"#,
    r#""fee_recipients":["0x2222222222222222222222222222222222222222"],"#,
    r#""prices":[{"token":"0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2","amount":"1","value":"1"}],"#,
    r#""price_oracles":[{"oracle":"0x3333333333333333333333333333333333333333","token":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","#,
    r#""quote":"0x0000000000000000000000000000000000000000","scale":"1000000"}],"#,
    r#""price_vaults":["0x4444444444444444444444444444444444444444"],"#,
    r#""price_pools":["0xb4e16d0168e52d35cacd2c6185b44281ec28c9dc"],"min_health_factor_bps":15000,"#,
    r#""max_loss_bps":null,"metadata_patterns":["(?i)ignore\\s+previous"],"outcome_tolerance_bps":50,"#,
    r#""checks":{"scope":true,"target_allowlist":true,"selector_allowlist":true,"blocked_selectors":true,"#,
    r#""token_allowlist":true,"spend_caps":true,"max_value":true,"unlimited_approval":true,"#,
    r#""slippage":true,"metadata_patterns":true,"simulation_required":true,"simulation_success":true,"#,
    r#""freshness":true,"future_timestamp":true,"intent_hash":true,"touched_allowlist":false,"#,
    r#""health_factor":true,"max_loss":true,"price_impact":true,"claims":true,"swap_recipient":true,"#,
    r#""counterparties":true,"budgets":true}}"#,
);

fn report() -> SimulationReport {
    let usdc = address!("a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48");
    let weth = address!("c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2");
    let account = address!("9f9bdd8a96fb9aa78f72e4f491a61fae724b5a45");
    let pair = address!("b4e16d0168e52d35cacd2c6185b44281ec28c9dc");
    SimulationReport {
        intent_hash: b256!("1111111111111111111111111111111111111111111111111111111111111111"),
        block_number: 23_900_000,
        timestamp: 1_764_460_800,
        success: true,
        revert_reason: None,
        gas_used: 111_726,
        touched_contracts: vec![pair],
        precompiles: vec![address!("0000000000000000000000000000000000000001")],
        token_flows: vec![TokenFlow {
            token: usdc,
            from: account,
            to: pair,
            amount: U256::from(2_500_000_000u64),
        }],
        nft_flows: vec![NftFlow {
            token: pair,
            from: Address::ZERO,
            to: account,
            id: U256::from(7u8),
            amount: U256::from(1u8),
            multi: false,
        }],
        approvals: vec![ApprovalFact {
            token: usdc,
            owner: account,
            spender: pair,
            amount: U256::ZERO,
        }],
        balance_changes: vec![
            BalanceChange {
                token: usdc,
                delta: I256::try_from(-2_500_000_000i64).unwrap(),
            },
            BalanceChange {
                token: weth,
                delta: I256::MIN,
            },
        ],
        swap: Some(SwapFacts {
            pool: pair,
            token_in: usdc,
            token_out: weth,
            amount_in: U256::from(2_500_000_000u64),
            amount_out: U256::from(795_616_924_814_898_864u64),
            quoted_out: U256::from(800_000_000_000_000_000u64),
            min_out: U256::from(791_638_840_190_824_369u64),
            price_impact_bps: 55,
            slippage_bps: 50,
        }),
        later_swaps: Vec::new(),
        loss_bps: Some(55),
        health_factor_before_bps: None,
        health_factor_after_bps: Some(17_500),
        budgets: vec![BudgetState {
            token: usdc,
            limit: U256::from(25_000_000_000u64),
            period_secs: 86_400,
            window_start: 1_764_400_000,
            spent: U256::from(5_000_000_000u64),
        }],
        prices: vec![PriceFact {
            token: usdc,
            source: PriceSource::Pool,
            via: pair,
            amount: U256::from(2_500_000_000u64),
            worth: vec![TokenAmount {
                token: weth,
                amount: U256::from(800_000_000_000_000_000u64),
            }],
        }],
        positions: vec![PositionChange {
            market: pair,
            token: weth,
            delta: I256::try_from(-5i64).unwrap(),
        }],
        minters: vec![Minter {
            token: pair,
            to: account,
            by: usdc,
        }],
        // Written only when a burn happened: an empty list keeps the report's hash.
        burners: vec![],
        execution: None,
        balances_read: vec![],
        payee_receipts: vec![],
        reads: vec![],
        debt_like: vec![],
        grant_filter: None,
        ungranted: vec![],
        debt_tokens: vec![],
        protocols: Default::default(),
        lending: vec![],
        rights: vec![],
        item_approvals: vec![],
        unread_positions: vec![],
        environment: Vec::new(),
    }
}

const REPORT_JSON: &str = concat!(
    r#"{"intent_hash":"0x1111111111111111111111111111111111111111111111111111111111111111","#,
    r#""block_number":23900000,"timestamp":1764460800,"success":true,"revert_reason":null,"gas_used":111726,"#,
    r#""touched_contracts":["0xb4e16d0168e52d35cacd2c6185b44281ec28c9dc"],"#,
    r#""precompiles":["0x0000000000000000000000000000000000000001"],"#,
    r#""token_flows":[{"token":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","from":"0x9f9bdd8a96fb9aa78f72e4f491a61fae724b5a45","to":"0xb4e16d0168e52d35cacd2c6185b44281ec28c9dc","amount":"2500000000"}],"#,
    r#""nft_flows":[{"token":"0xb4e16d0168e52d35cacd2c6185b44281ec28c9dc","from":"0x0000000000000000000000000000000000000000","#,
    r#""to":"0x9f9bdd8a96fb9aa78f72e4f491a61fae724b5a45","id":"7","amount":"1"}],"#,
    r#""approvals":[{"token":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","owner":"0x9f9bdd8a96fb9aa78f72e4f491a61fae724b5a45","spender":"0xb4e16d0168e52d35cacd2c6185b44281ec28c9dc","amount":"0"}],"#,
    r#""balance_changes":[{"token":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","delta":"-2500000000"},"#,
    r#"{"token":"0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2","delta":"-57896044618658097711785492504343953926634992332820282019728792003956564819968"}],"#,
    r#""swap":{"pool":"0xb4e16d0168e52d35cacd2c6185b44281ec28c9dc","token_in":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","#,
    r#""token_out":"0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2","amount_in":"2500000000","amount_out":"795616924814898864","#,
    r#""quoted_out":"800000000000000000","min_out":"791638840190824369","price_impact_bps":55,"slippage_bps":50},"#,
    r#""loss_bps":55,"health_factor_before_bps":null,"health_factor_after_bps":17500,"#,
    r#""budgets":[{"token":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","limit":"25000000000","period_secs":86400,"window_start":1764400000,"spent":"5000000000"}],"#,
    r#""prices":[{"token":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48","source":"pool","via":"0xb4e16d0168e52d35cacd2c6185b44281ec28c9dc","#,
    r#""amount":"2500000000","worth":[{"token":"0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2","amount":"800000000000000000"}]}],"#,
    r#""positions":[{"market":"0xb4e16d0168e52d35cacd2c6185b44281ec28c9dc","token":"0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2","delta":"-5"}],"#,
    r#""minters":[{"token":"0xb4e16d0168e52d35cacd2c6185b44281ec28c9dc","to":"0x9f9bdd8a96fb9aa78f72e4f491a61fae724b5a45","by":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"}]}"#,
);

fn decision() -> Decision {
    Decision::new(
        b256!("2222222222222222222222222222222222222222222222222222222222222222"),
        b256!("3333333333333333333333333333333333333333333333333333333333333333"),
        None,
        vec![Violation::new(
            ViolationCode::SlippageExceeded,
            "slippage tolerance 300 bps exceeds max_slippage_bps 100",
        )],
    )
}

const DECISION_JSON: &str = concat!(
    r#"{"outcome":"reject","intent_hash":"0x2222222222222222222222222222222222222222222222222222222222222222","#,
    r#""policy_hash":"0x3333333333333333333333333333333333333333333333333333333333333333","simulation_hash":null,"#,
    r#""violations":[{"code":"SLIPPAGE_EXCEEDED","message":"slippage tolerance 300 bps exceeds max_slippage_bps 100"}]}"#,
);

const INTENT_HASH: B256 = b256!("2a2f7869788d53dbc539e590db47172fb5747a3c8a985f27bf63586a6459efe2");
const POLICY_HASH: B256 = b256!("f0acc0ae999f6629d18a93f37fc3fb491b1295ed8053a1ab71227c5c161bae15");
const SIMULATION_HASH: B256 =
    b256!("52dc7329dd41a035b6aa1d4b79d97f739e1930c4fd386479d83ee6d2bc1a55f3");
const DECISION_HASH: B256 =
    b256!("6128cc68eb4369135cc989d33a4e17abde0b9773e02042e2bfafab3357ffea4d");

fn text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap()
}

#[test]
fn canonical_json_is_pinned() {
    assert_eq!(text(canonical_json(&intent())), INTENT_JSON);
    assert_eq!(text(canonical_json(&policy())), POLICY_JSON);
    assert_eq!(text(canonical_json(&report())), REPORT_JSON);
    assert_eq!(text(canonical_json(&decision())), DECISION_JSON);
}

#[test]
fn hashes_are_pinned() {
    assert_eq!(intent().intent_hash(), INTENT_HASH);
    assert_eq!(policy().policy_hash(), POLICY_HASH);
    assert_eq!(report().simulation_hash(), SIMULATION_HASH);
    assert_eq!(decision().decision_hash(), DECISION_HASH);
}

/// INTENT_HASH was also checked with an independent keccak (js-sha3) over the same bytes.
#[test]
fn hash_is_keccak_of_tag_and_canonical_json() {
    let mut preimage = b"PACE-RS/intent/v1\n".to_vec();
    preimage.extend_from_slice(INTENT_JSON.as_bytes());
    assert_eq!(
        alloy_primitives::keccak256(&preimage),
        intent().intent_hash()
    );
}

#[test]
fn canonical_json_round_trips_through_the_loaders() {
    assert_eq!(Intent::from_json_str(INTENT_JSON).unwrap(), intent());
    assert_eq!(Policy::from_json_str(POLICY_JSON).unwrap(), policy());
    assert_eq!(
        SimulationReport::from_json_str(REPORT_JSON).unwrap(),
        report()
    );
    assert_eq!(Decision::from_json_str(DECISION_JSON).unwrap(), decision());
}

#[test]
fn hash_ignores_input_formatting() {
    // Whitespace, key order, hex case and omitted defaults do not change the hash.
    let messy = r#"
    {
      "metadata": {"task": "swap \"USDC\" \u2192 WETH\n", "agent": "demo"},
      "calls": [
        {"data": "0x095EA7B30000000000000000000000007A250D5630B4CF539739DF2C5DACB4C659F2488D000000000000000000000000000000000000000000000000000000009502F900",
         "target": "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"},
        {"target": "0x7a250d5630B4cF539739dF2C5dAcb4c659F2488D", "value": "1000000000000000000"}
      ],
      "account": "0x9F9BDD8A96FB9AA78F72E4F491A61FAE724B5A45",
      "claimed": {"slippage_bps": 50,
                  "outflows": [{"amount": "115792089237316195423570985008687907853269984665640564039457584007913129639935", "token": "0x0000000000000000000000000000000000000000"}],
                  "approvals": [{"token": "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", "spender": "0x7a250d5630b4cf539739df2c5dacb4c659f2488d", "amount": "2500000000"}]},
      "chain_id": 1
    }"#;
    assert_eq!(
        Intent::from_json_str(messy).unwrap().intent_hash(),
        intent().intent_hash()
    );
}
