//! Integration tests of pace-node against real anvil nodes, one per test, each started by the
//! test on a free loopback port and killed when it ends.

mod anvil;
mod fork;
mod pdr;
mod recorded;
mod slow_node;
mod uncertain;

use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_sol_types::{SolCall, SolConstructor};
use pace_contracts::bindings::{IERC20, MockERC20, PaceAccount};
use pace_node::{Anvil, NodeClient, Tx, TxOutcome};
use pace_signer::PdrSigner;
use pace_types::pdr::{Attestation, Call, Pdr, PdrTerms};
use std::time::Duration;

/// Tokens minted to the account.
pub(crate) const MINTED: u64 = 1_000_000;

pub(crate) fn start_anvil() -> Anvil {
    Anvil::spawn().expect("start anvil (run `npm ci` if it is missing)")
}

/// A client for dev account `index` that gives up on receipts after 10 s.
pub(crate) async fn client(anvil: &Anvil, index: usize) -> NodeClient {
    NodeClient::connect(anvil.url(), Anvil::dev_signer(index))
        .await
        .expect("connect to anvil")
        .with_receipt_timeout(Duration::from_secs(10))
}

pub(crate) fn init_code(name: &str, ctor_args: &[u8]) -> Bytes {
    pace_contracts::artifacts()
        .expect("compile contracts/")
        .get(name)
        .expect(name)
        .deploy_code(ctor_args)
}

/// Whether process `pid` is gone (Linux: no `/proc/<pid>`).
pub(crate) fn process_gone(pid: u32) -> bool {
    !std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// A PaceAccount (owner dev 0, verifier [`World::signer`]) holding [`MINTED`] units of a
/// MockERC20, deployed over JSON-RPC.
pub(crate) struct World {
    pub(crate) anvil: Anvil,
    pub(crate) owner: NodeClient,
    pub(crate) relayer: NodeClient,
    pub(crate) signer: PdrSigner,
    pub(crate) account: Address,
    pub(crate) token: Address,
}

pub(crate) const BOB: Address = Address::repeat_byte(0xb0);

impl World {
    pub(crate) async fn new() -> Self {
        let anvil = start_anvil();
        let owner = client(&anvil, 0).await;
        let relayer = client(&anvil, 1).await;
        let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x77)).unwrap();
        let ctor = PaceAccount::constructorCall {
            owner_: owner.address(),
            verifier_: signer.address(),
        };
        let account = owner
            .deploy(init_code("PaceAccount", &ctor.abi_encode()))
            .await
            .expect("deploy PaceAccount");
        let ctor = MockERC20::constructorCall {
            name_: "Token".into(),
            symbol_: "TKN".into(),
            decimals_: 18,
        };
        let token = owner
            .deploy(init_code("MockERC20", &ctor.abi_encode()))
            .await
            .expect("deploy MockERC20");
        let mint = MockERC20::mintCall {
            to: account,
            amount: U256::from(MINTED),
        };
        let minted = owner
            .execute(Tx::call(token, U256::ZERO, mint.abi_encode().into()))
            .await
            .unwrap();
        assert!(minted.is_executed(), "{minted}");
        Self {
            anvil,
            owner,
            relayer,
            signer,
            account,
            token,
        }
    }

    pub(crate) async fn token_balance(&self, who: Address) -> U256 {
        self.owner
            .call_sol(self.token, &IERC20::balanceOfCall { account: who })
            .await
            .unwrap()
    }

    /// A PDR moving `amount` tokens to [`BOB`], for the account's next sequence on lane 0,
    /// valid around the latest block; with its signature.
    pub(crate) async fn signed_transfer(&self, amount: u64) -> (Pdr, B256, B256) {
        let latest = self.owner.latest_block().await.unwrap();
        let sequence = self
            .owner
            .call_sol(self.account, &PaceAccount::nextSequenceCall { key: 0 })
            .await
            .unwrap();
        let terms = PdrTerms {
            key: 0,
            sequence,
            valid_after: latest.timestamp - 60,
            valid_until: latest.timestamp + 3_600,
            simulation_block: latest.number,
            max_simulation_age: 5,
            call_gas_kib: 0,
        };
        let transfer = IERC20::transferCall {
            to: BOB,
            value: U256::from(amount),
        };
        let pdr = Pdr::new(
            Attestation {
                policyHash: B256::repeat_byte(1),
                intentHash: B256::repeat_byte(2),
                simulationHash: B256::repeat_byte(3),
            },
            vec![Call {
                target: self.token,
                value: U256::ZERO,
                data: transfer.abi_encode().into(),
            }],
            vec![],
            vec![],
            vec![],
            &terms,
        );
        let sig = self
            .signer
            .sign_digest(pdr.digest(self.owner.chain_id(), self.account))
            .unwrap();
        (pdr, sig.r, sig.vs)
    }
}

/// The `executePDR` calldata of a single-call PDR, with the call's data replaced by `data`.
pub(crate) fn execute_pdr(pdr: &Pdr, data: Bytes, r: B256, vs: B256) -> Bytes {
    let call = &pdr.calls[0];
    PaceAccount::executePDRCall {
        target: call.target,
        value: call.value,
        data,
        attestation: pdr.attestation_hash(),
        terms: pdr.terms().pack(),
        r,
        vs,
    }
    .abi_encode()
    .into()
}

pub(crate) fn executed_gas(outcome: &TxOutcome) -> u64 {
    match outcome {
        TxOutcome::Executed { gas_used, .. } => *gas_used,
        other => panic!("expected Executed, got {other}"),
    }
}
