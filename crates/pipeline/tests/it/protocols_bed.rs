//! The protocols test bed (`pace_testkit::protocols`: Aave V3 and the Universal Router from
//! their npm bytecode, the Permit2-compatible contract, the Compound-style market and feeds)
//! under the pipeline: a signer whose key the bed's account trusts, a policy over the bed's
//! tokens, intents whose claims an honest agent would make (what its own simulation shows),
//! evaluation, submission, and the owner's raw path for showing what an attack costs.

use crate::door::{evaluate, execute, world_relayer};
use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::SolCall;
use pace_abi::rights::IAaveV3Pool;
use pace_pipeline::{Evaluation, ExecutionResult, Pipeline, PipelineConfig};
use pace_signer::PdrSigner;
use pace_testkit::protocols::{Protocols, actions, world_with_protocols};
use pace_types::{
    Approval, Call, Claims, CompiledPolicy, Intent, Policy, SimulationReport, TablePrice,
    TokenAmount, ViolationCode, units::ether,
};
use pace_world::World;

/// EIP-1967's implementation slot: a proxy's logic contract.
const IMPLEMENTATION_SLOT: B256 =
    alloy_primitives::b256!("360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc");

/// The bed with the pipeline's signer.
pub(crate) struct Bed {
    pub(crate) world: World,
    pub(crate) bed: Protocols,
    pub(crate) signer: PdrSigner,
}

/// A fresh copy of the world with the bed, its account trusting [`Bed::signer`].
pub(crate) fn bed() -> Bed {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).expect("a valid key");
    let (world, bed) =
        world_with_protocols(signer.address()).unwrap_or_else(|e| panic!("the bed: {e}"));
    Bed { world, bed, signer }
}

impl Bed {
    /// The world's addresses.
    pub(crate) fn a(&self) -> pace_world::Addresses {
        self.world.addrs
    }

    /// A policy over the world's tokens for `targets` and `selectors`, with the contracts
    /// the protocols act through (`touched`) allowed, WETH at par with ether, DAI at 1,000 and
    /// USDC at 1,000 per ether, caps of 100 WETH, 100,000 DAI and USDC, and a health factor of
    /// at least 1.2.
    pub(crate) fn policy(
        &self,
        targets: &[Address],
        selectors: &[[u8; 4]],
        tokens: &[Address],
        touched: &[Address],
    ) -> Policy {
        let a = self.a();
        let mut allowed_tokens = vec![a.weth, a.dai, a.usdc];
        allowed_tokens.extend_from_slice(tokens);
        let usdc = |n: u64| U256::from(n) * U256::from(1_000_000u64);
        Policy {
            name: Some("protocols bed".into()),
            chain_id: Some(self.world.evm.chain_id()),
            account: Some(a.account),
            allowed_targets: targets.to_vec(),
            allowed_selectors: selectors.iter().map(|s| (*s).into()).collect(),
            allowed_tokens,
            spend_caps: vec![
                TokenAmount {
                    token: a.weth,
                    amount: ether(100),
                },
                TokenAmount {
                    token: a.dai,
                    amount: ether(100_000),
                },
                TokenAmount {
                    token: a.usdc,
                    amount: usdc(100_000),
                },
            ],
            max_slippage_bps: 100,
            max_price_impact_bps: 100,
            max_simulation_age_secs: 60,
            allowed_touched: touched.to_vec(),
            prices: vec![
                TablePrice {
                    token: a.weth,
                    amount: ether(1),
                    value: ether(1),
                },
                TablePrice {
                    token: a.dai,
                    amount: ether(1_000),
                    value: ether(1),
                },
                TablePrice {
                    token: a.usdc,
                    amount: usdc(1_000),
                    value: ether(1),
                },
            ],
            min_health_factor_bps: Some(12_000),
            max_loss_bps: Some(100),
            outcome_tolerance_bps: 50,
            ..Policy::default()
        }
    }

    /// Every contract the bed's Aave V3 market acts through: its pool and implementation,
    /// registry, oracle and feeds, logic libraries, and each reserve's tokens (with their
    /// implementations) and interest rate strategy.
    pub(crate) fn aave_contracts(&self) -> Vec<Address> {
        let aave = &self.bed.aave;
        let f = &self.bed.feeds;
        let mut out = vec![
            aave.pool,
            aave.pool_implementation,
            aave.addresses_provider,
            aave.acl_manager,
            aave.oracle,
            aave.data_provider,
            f.eth_usd,
            f.dai_usd,
            f.usdc_usd,
        ];
        out.extend(aave.libraries.values().copied());
        for r in aave.reserves() {
            for token in [r.a_token, r.variable_debt_token, r.stable_debt_token] {
                out.push(token);
                let slot = U256::from_be_bytes(IMPLEMENTATION_SLOT.0);
                let implementation = self.world.evm.storage(token, slot).expect("a slot");
                out.push(Address::from_word(
                    implementation.to_be_bytes::<32>().into(),
                ));
            }
            let data = self
                .world
                .evm
                .view_sol(
                    aave.pool,
                    &IAaveV3Pool::getReserveDataCall { asset: r.asset },
                )
                .expect("the reserve");
            out.push(data.interestRateStrategyAddress);
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// An intent of the account with `calls` and no claims.
    pub(crate) fn intent(&self, calls: Vec<Call>) -> Intent {
        Intent {
            chain_id: self.world.evm.chain_id(),
            account: self.a().account,
            calls,
            claimed: Claims::default(),
            metadata: Default::default(),
        }
    }

    /// `intent` with the claims an honest agent makes: the approvals and outflows its own
    /// simulation under `policy` shows.
    pub(crate) fn claimed(&self, intent: Intent, policy: &CompiledPolicy) -> Intent {
        let simulated = Pipeline::new(self.signer.clone())
            .simulate(&self.world.evm, intent.clone(), policy)
            .expect("the simulation runs");
        let report = simulated.report().get();
        Intent {
            claimed: claims_of(report, intent.account),
            ..intent
        }
    }

    /// The facts of the first swap of `calls`, as the pipeline's simulation under `policy`
    /// measures them.
    pub(crate) fn swap_facts(&self, calls: Vec<Call>, policy: &Policy) -> pace_types::SwapFacts {
        let policy = CompiledPolicy::try_from(policy.clone()).expect("the policy compiles");
        let simulated = Pipeline::new(self.signer.clone())
            .simulate(&self.world.evm, self.intent(calls), &policy)
            .expect("the simulation runs");
        let swap = simulated.report().get().swap.clone();
        swap.expect("the swap has facts")
    }

    /// Simulates, decides and, for an approval, signs and preflights `intent` under `policy`.
    pub(crate) fn evaluate(&self, intent: &Intent, policy: &Policy) -> Evaluation {
        let policy = CompiledPolicy::try_from(policy.clone()).expect("the policy compiles");
        evaluate(
            &self.world.evm,
            intent,
            &policy,
            &self.signer,
            &PipelineConfig::default(),
        )
        .expect("the pipeline runs")
    }

    /// `intent` with honest claims, evaluated under `policy`.
    pub(crate) fn evaluate_claimed(&self, intent: Intent, policy: &Policy) -> Evaluation {
        let compiled = CompiledPolicy::try_from(policy.clone()).expect("the policy compiles");
        let intent = self.claimed(intent, &compiled);
        self.evaluate(&intent, policy)
    }

    /// Submits an approved evaluation through the account from the world's relayer.
    pub(crate) fn submit(&mut self, evaluation: &Evaluation, watch: &[Address]) -> ExecutionResult {
        let checked = evaluation
            .checked
            .as_ref()
            .unwrap_or_else(|| panic!("not approved: {:?}", evaluation.decision.violations));
        execute(&mut self.world.evm, world_relayer(), checked, watch).expect("the submission runs")
    }

    /// The owner's raw path (no PDR), which must succeed.
    pub(crate) fn owner(&mut self, calls: &[Call]) {
        let a = self.a();
        actions::owner_execute(&mut self.world.evm, &a, calls)
            .unwrap_or_else(|e| panic!("owner path: {e}"));
    }

    /// `who`'s balance of `token`.
    pub(crate) fn balance(&self, token: Address, who: Address) -> U256 {
        actions::balance(&self.world.evm, token, who).expect("balanceOf")
    }

    /// `to.call(data)` from `from`, committed; panics on a revert.
    pub(crate) fn send<C: SolCall>(&mut self, from: Address, to: Address, call: &C) {
        self.world
            .evm
            .call_sol(from, to, U256::ZERO, call)
            .unwrap_or_else(|e| panic!("{}: {e}", C::SIGNATURE));
    }
}

/// The approvals the account set and its gross outflow per token, as `report` shows them.
pub(crate) fn claims_of(report: &SimulationReport, account: Address) -> Claims {
    let approvals = report
        .approvals
        .iter()
        .filter(|f| f.owner == account)
        .map(|f| Approval {
            token: f.token,
            spender: f.spender,
            amount: f.amount,
        })
        .collect();
    let mut outflows: Vec<TokenAmount> = Vec::new();
    for f in report
        .token_flows
        .iter()
        .filter(|f| f.from == account && f.to != account)
    {
        match outflows.iter_mut().find(|o| o.token == f.token) {
            Some(o) => o.amount += f.amount,
            None => outflows.push(TokenAmount {
                token: f.token,
                amount: f.amount,
            }),
        }
    }
    Claims {
        approvals,
        outflows,
        ..Claims::default()
    }
}

/// Deploys the embedded contract `name` with `args` from the bed's deployer.
pub(crate) fn deploy(b: &mut Bed, name: &str, args: &[u8]) -> Address {
    let code = pace_contracts::artifacts()
        .unwrap()
        .get(name)
        .unwrap()
        .deploy_code(args);
    b.world
        .evm
        .deploy(b.bed.deployer, code)
        .unwrap_or_else(|e| panic!("deploy {name}: {e}"))
}

/// The codes of `evaluation`'s violations.
pub(crate) fn codes(evaluation: &Evaluation) -> Vec<ViolationCode> {
    evaluation.decision.codes().collect()
}

/// `C`'s selector.
pub(crate) fn selector<C: SolCall>() -> [u8; 4] {
    C::SELECTOR
}
