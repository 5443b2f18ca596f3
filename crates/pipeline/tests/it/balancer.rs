//! Balancer V2's real Vault and weighted pools (`@balancer-labs/v2-deployments`): a swap
//! through the Vault carries its slippage facts like a Router02 swap. The limit is read as
//! the minimum (or the maximum input), `funds.recipient` as the output's recipient, and the
//! weighted pool's spot price (balances over weights) as the quote, on an 80/20 pool and a
//! two-pool `batchSwap` route. Honest trades are approved and land as simulated; a zero
//! minimum, a stranger as recipient, a swap paid into the Vault's internal balances where
//! nothing reads them and a relayer approved to act for the account in the Vault are refused.

use crate::protocols_bed::{Bed, bed, selector};
use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;
use pace_abi::balancer::IBalancerVault as Vault;
use pace_abi::bindings::IERC20;
use pace_pipeline::ExecutionResult;
use pace_testkit::protocols::{
    actions::{call, fund_token},
    balancer::{Balancer, GIVEN_IN, GIVEN_OUT, WeightedPool},
    ether,
    uniswap_v3::deadline,
};
use pace_types::{Call, Policy, SwapFacts, ViolationCode as Code};

/// The bed with the Vault, an 80/20 WETH/DAI pool at 1,000 DAI per WETH and a 50/50 DAI/USDC
/// pool at par, 10 WETH in the account.
pub(crate) struct Fixture {
    pub(crate) b: Bed,
    pub(crate) balancer: Balancer,
    pub(crate) weth_dai: WeightedPool,
    pub(crate) dai_usdc: WeightedPool,
}

pub(crate) fn fixture() -> Fixture {
    let mut b = bed();
    let a = b.a();
    let deployer = b.bed.deployer;
    let evm = &mut b.world.evm;
    let balancer = Balancer::deploy(evm, &a, deployer).unwrap();
    let weight = |percent: u64| ether(percent) / U256::from(100u8);
    let fee = ether(3) / U256::from(1_000u16);
    let usdc = |n: u64| U256::from(n) * U256::from(1_000_000u64);
    let weth_dai = balancer
        .weighted_pool(
            evm,
            &a,
            deployer,
            &[
                (a.weth, weight(80), ether(100)),
                (a.dai, weight(20), ether(25_000)),
            ],
            fee,
        )
        .unwrap();
    let dai_usdc = balancer
        .weighted_pool(
            evm,
            &a,
            deployer,
            &[
                (a.dai, weight(50), ether(100_000)),
                (a.usdc, weight(50), usdc(100_000)),
            ],
            fee,
        )
        .unwrap();
    fund_token(evm, &a, a.weth, a.account, ether(10)).unwrap();
    Fixture {
        b,
        balancer,
        weth_dai,
        dai_usdc,
    }
}

impl Fixture {
    /// The bed's policy with the Vault's swaps allowed and its pools as touched contracts.
    pub(crate) fn policy(&self) -> Policy {
        let (vault, a) = (self.balancer.vault, self.b.a());
        self.b.policy(
            &[vault, a.weth, a.dai, a.usdc],
            &[
                selector::<IERC20::approveCall>(),
                selector::<Vault::swapCall>(),
                selector::<Vault::batchSwapCall>(),
            ],
            &[],
            &[vault, self.weth_dai.pool, self.dai_usdc.pool],
        )
    }

    /// Approve the Vault, then `swap`.
    pub(crate) fn calls(&self, token_in: Address, amount: U256, swap: Call) -> Vec<Call> {
        vec![self.balancer.approve(token_in, amount), swap]
    }

    /// Approve the Vault, then a GIVEN_IN swap of `amount` WETH for DAI with `min_out`, its
    /// input from the account's internal balance in the Vault and its output to `recipient`'s
    /// as `(from, to)` say.
    pub(crate) fn internal_swap(
        &self,
        amount: U256,
        min_out: U256,
        recipient: Address,
        (from, to): (bool, bool),
    ) -> Vec<Call> {
        let a = self.b.a();
        let d = deadline(&self.b.world.evm).unwrap();
        let mut swap = Vault::swapCall::abi_decode(
            &self
                .balancer
                .swap(
                    &self.weth_dai,
                    GIVEN_IN,
                    a.weth,
                    a.dai,
                    amount,
                    min_out,
                    a.account,
                    recipient,
                    d,
                )
                .data,
        )
        .unwrap();
        swap.funds.fromInternalBalance = from;
        swap.funds.toInternalBalance = to;
        self.calls(a.weth, amount, call(self.balancer.vault, &swap))
    }

    /// A GIVEN_IN swap of `amount` WETH for DAI with `min_out`, to `recipient`.
    fn weth_for_dai(&self, amount: U256, min_out: U256, recipient: Address) -> Vec<Call> {
        self.weth_for_dai_in(&self.weth_dai, amount, min_out, recipient)
    }

    /// [`Self::weth_for_dai`] through `pool`.
    pub(crate) fn weth_for_dai_in(
        &self,
        pool: &WeightedPool,
        amount: U256,
        min_out: U256,
        recipient: Address,
    ) -> Vec<Call> {
        let a = self.b.a();
        let d = deadline(&self.b.world.evm).unwrap();
        let swap = self.balancer.swap(
            pool, GIVEN_IN, a.weth, a.dai, amount, min_out, a.account, recipient, d,
        );
        self.calls(a.weth, amount, swap)
    }

    /// The facts of the first swap of `calls`, as the pipeline's simulation measures them.
    pub(crate) fn facts(&self, calls: Vec<Call>) -> SwapFacts {
        self.b.swap_facts(calls, &self.policy())
    }

    /// Evaluates `calls` with honest claims; for an approval, submits it and checks the
    /// account's balances moved as simulated.
    fn run(&mut self, calls: Vec<Call>, watch: &[Address]) -> Result<ExecutionResult, Vec<Code>> {
        let intent = self.b.intent(calls);
        let evaluation = self.b.evaluate_claimed(intent, &self.policy());
        if !evaluation.decision.approved() {
            return Err(evaluation
                .decision
                .violations
                .iter()
                .map(|v| v.code)
                .collect());
        }
        Ok(self.b.submit(&evaluation, watch))
    }
}

/// `amount` less `bps` basis points.
pub(crate) fn less(amount: U256, bps: u64) -> U256 {
    amount * U256::from(10_000 - bps) / U256::from(10_000u16)
}

#[test]
fn a_weighted_pool_swap_is_priced_at_its_spot_and_lands_as_simulated() {
    let mut f = fixture();
    let a = f.b.a();
    let amount = ether(1) / U256::from(10u8);
    let facts = f.facts(f.weth_for_dai(amount, U256::from(1u8), a.account));
    assert_eq!(facts.pool, f.weth_dai.pool);
    assert_eq!((facts.token_in, facts.token_out), (a.weth, a.dai));
    assert_eq!(facts.amount_in, amount);
    // The spot price is (25,000 / 0.2) / (100 / 0.8) = 1,000 DAI per WETH: the quote of 0.1
    // WETH is 100 DAI, and the trade pays the 0.3 % fee and its impact.
    assert_eq!(facts.quoted_out, ether(100));
    assert!(facts.amount_out < less(ether(100), 30) && facts.amount_out > less(ether(100), 60));
    // Selling 0.1 % of the 80 % side moves the price by about 0.1 % * (1 + 0.8 / 0.2).
    assert!(
        (45..=55).contains(&facts.price_impact_bps),
        "{}",
        facts.price_impact_bps
    );

    let min_out = less(facts.amount_out, 50);
    let before = f.b.balance(a.dai, a.account);
    let result = f
        .run(f.weth_for_dai(amount, min_out, a.account), &[a.weth, a.dai])
        .unwrap_or_else(|codes| panic!("refused: {codes:?}"));
    assert!(
        matches!(result, ExecutionResult::Executed { .. }),
        "{result:?}"
    );
    assert_eq!(f.b.balance(a.dai, a.account) - before, facts.amount_out);
}

#[test]
fn a_zero_minimum_or_a_strangers_output_through_the_vault_is_refused() {
    let mut f = fixture();
    let a = f.b.a();
    let amount = ether(1) / U256::from(10u8);
    let codes = f
        .run(f.weth_for_dai(amount, U256::ZERO, a.account), &[])
        .expect_err("a zero minimum");
    assert!(codes.contains(&Code::SlippageExceeded), "{codes:?}");
    let facts = f.facts(f.weth_for_dai(amount, U256::from(1u8), a.account));
    let stranger = Address::repeat_byte(0x5e);
    let codes = f
        .run(
            f.weth_for_dai(amount, less(facts.amount_out, 50), stranger),
            &[],
        )
        .expect_err("a stranger's output");
    assert!(codes.contains(&Code::SwapRecipientNotAccount), "{codes:?}");
}

#[test]
fn an_exact_output_swap_is_bounded_by_its_most_paid() {
    let mut f = fixture();
    let a = f.b.a();
    let d = deadline(&f.b.world.evm).unwrap();
    let want = ether(50);
    let (balancer, pool) = (f.balancer, f.weth_dai.clone());
    let swap = |max_in: U256| {
        balancer.swap(
            &pool, GIVEN_OUT, a.weth, a.dai, want, max_in, a.account, a.account, d,
        )
    };
    // Ten times what 50 DAI cost leaves 900 % open.
    let half = ether(1) / U256::from(2u8);
    let loose = vec![balancer.approve(a.weth, half), swap(half)];
    let paid = f.facts(loose.clone()).amount_in;
    let codes = f.run(loose, &[]).expect_err("a loose maximum");
    assert!(codes.contains(&Code::SlippageExceeded), "{codes:?}");
    let max_in = paid + paid / U256::from(200u8);
    let result = f
        .run(
            vec![balancer.approve(a.weth, max_in), swap(max_in)],
            &[a.weth, a.dai],
        )
        .unwrap_or_else(|codes| panic!("refused: {codes:?}"));
    assert!(
        matches!(result, ExecutionResult::Executed { .. }),
        "{result:?}"
    );
}

#[test]
fn a_batch_route_through_two_pools_is_one_swap() {
    let mut f = fixture();
    let a = f.b.a();
    let d = deadline(&f.b.world.evm).unwrap();
    let amount = ether(1) / U256::from(10u8);
    let (balancer, weth_dai, dai_usdc) = (f.balancer, f.weth_dai.clone(), f.dai_usdc.clone());
    let route = |min_out: U256| {
        let swap = balancer.batch_swap(
            a.weth,
            &[(&weth_dai, a.dai), (&dai_usdc, a.usdc)],
            amount,
            min_out,
            a.account,
            a.account,
            d,
        );
        vec![balancer.approve(a.weth, amount), swap]
    };
    let facts = f.facts(route(U256::from(1u8)));
    assert_eq!((facts.token_in, facts.token_out), (a.weth, a.usdc));
    // 0.1 WETH at 1,000 DAI, then DAI for USDC at par: 100 USDC (6 decimals).
    assert_eq!(facts.quoted_out, U256::from(100_000_000u64));
    let codes = f.run(route(U256::ZERO), &[]).expect_err("a zero minimum");
    assert!(codes.contains(&Code::SlippageExceeded), "{codes:?}");
    let before = f.b.balance(a.usdc, a.account);
    let result = f
        .run(route(less(facts.amount_out, 50)), &[a.weth, a.usdc])
        .unwrap_or_else(|codes| panic!("refused: {codes:?}"));
    assert!(
        matches!(result, ExecutionResult::Executed { .. }),
        "{result:?}"
    );
    assert_eq!(f.b.balance(a.usdc, a.account) - before, facts.amount_out);
}

#[test]
fn a_swap_into_the_vaults_internal_balance_nothing_reads_is_refused() {
    let mut f = fixture();
    let a = f.b.a();
    let calls = f.internal_swap(
        ether(1) / U256::from(10u8),
        ether(90),
        a.account,
        (false, true),
    );
    // The output is measured in the internal balance, but nothing values a claim there
    // (`balancer_internal.rs` reads it by descriptor).
    let codes = f.run(calls, &[]).expect_err("an internal balance");
    assert!(codes.contains(&Code::LossExceeded), "{codes:?}");
}

#[test]
fn ether_sold_through_the_vault_is_priced_against_its_weth() {
    let mut f = fixture();
    let a = f.b.a();
    let d = deadline(&f.b.world.evm).unwrap();
    let amount = ether(1) / U256::from(10u8);
    f.b.world.evm.fund(a.account, ether(1)).unwrap();
    let swap = |min_out: U256| {
        let mut c = f.balancer.swap(
            &f.weth_dai,
            GIVEN_IN,
            Address::ZERO,
            a.dai,
            amount,
            min_out,
            a.account,
            a.account,
            d,
        );
        c.value = amount;
        vec![c]
    };
    let facts = f.facts(swap(U256::from(1u8)));
    assert_eq!((facts.token_in, facts.token_out), (pace_types::ETH, a.dai));
    assert_eq!((facts.amount_in, facts.quoted_out), (amount, ether(100)));
    let calls = swap(less(facts.amount_out, 50));
    let mut policy = f.policy();
    policy.max_value_wei = ether(1);
    let intent = f.b.intent(calls);
    let evaluation = f.b.evaluate_claimed(intent, &policy);
    let before = f.b.world.evm.balance(a.account).unwrap();
    let result = f.b.submit(&evaluation, &[a.dai]);
    assert!(
        matches!(result, ExecutionResult::Executed { .. }),
        "{result:?}"
    );
    assert_eq!(before - f.b.world.evm.balance(a.account).unwrap(), amount);
}

alloy_sol_types::sol! {
    /// The Vault's relayer approval: `relayer` may then act for `sender` in every Vault
    /// function, swaps and exits paid anywhere included.
    interface IVaultRelayers {
        function setRelayerApproval(address sender, address relayer, bool approved) external;
    }
}

#[test]
fn a_relayer_approved_in_the_vault_is_a_right_nothing_reads_and_refused() {
    let f = fixture();
    let a = f.b.a();
    let stranger = Address::repeat_byte(0x5e);
    let mut policy = f.policy();
    policy
        .allowed_selectors
        .push(selector::<IVaultRelayers::setRelayerApprovalCall>().into());
    let grant = call(
        f.balancer.vault,
        &IVaultRelayers::setRelayerApprovalCall {
            sender: a.account,
            relayer: stranger,
            approved: true,
        },
    );
    let evaluation = f.b.evaluate_claimed(f.b.intent(vec![grant]), &policy);
    assert!(
        !evaluation.decision.approved(),
        "a relayer approval was approved"
    );
    let codes: Vec<Code> = evaluation
        .decision
        .violations
        .iter()
        .map(|v| v.code)
        .collect();
    // The Vault keeps the approval under the account and the relayer: a holder of a right
    // over the account's funds that the policy does not name.
    assert!(codes.contains(&Code::RoleHolderNotAllowed), "{codes:?}");
}
