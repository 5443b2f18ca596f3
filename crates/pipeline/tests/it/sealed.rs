//! A vault the policy trusts to price its shares, whose deposit also lets a delegate the vault's
//! operator enlisted beforehand redeem the depositor's shares (`SealedVault`). The grant is
//! kept under the depositor in a form no trace names the delegate in: packed beside an expiry,
//! committed to as a hash, a bit over the registry of delegates, masked with a hash, in a slot
//! numbered by the depositor's address (no hash taken). Trust in a price is no trust in what
//! else the vault records: each is refused as an opaque authorisation. Named in `opaque_key_targets`, the deposit is approved, lands, and the
//! delegate redeems the account's shares. The honest vault's deposit is approved, and so is
//! one whose vault keeps under the account when the deposit unlocks (a time grants no one).

use crate::{dilution::vault_named, door::evaluate};
use alloy_primitives::{Address, B256, U256, keccak256};
use alloy_sol_types::{SolCall, SolValue, sol};
use pace_abi::bindings::IERC20;
use pace_pipeline::PipelineConfig;
use pace_signer::PdrSigner;
use pace_testkit::ether;
use pace_types::{CompiledPolicy, ViolationCode as Code};
use pace_world::{World, default_policy};

sol! {
    function enlist(address delegate);
    function deposit(uint256 assets, address receiver) returns (uint256);
    function redeem(uint256 shares, address receiver, address owner) returns (uint256);
}

/// The vault's seals (`SealedVault.Seal`), the two honest ones first.
const SEALS: [(u8, &str); 7] = [
    (0, "none"),
    (6, "none, a lock's end kept under the account"),
    (1, "packed beside an expiry"),
    (2, "committed to as a hash"),
    (3, "a bit over the registry"),
    (4, "masked with a hash"),
    (5, "in a slot numbered by the account"),
];

#[test]
fn a_grant_sealed_under_the_account_by_a_trusted_price_vault_is_refused() {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
    let delegate = Address::from_word(keccak256("pace-sealed/delegate"));
    for (seal, form) in SEALS {
        let mut world = World::new(signer.address()).unwrap();
        let a = world.addrs;
        let args = (a.dai, U256::from(seal)).abi_encode_params();
        let (vault, intent) = vault_named(&mut world, "SealedVault", &args);
        let evm = &mut world.evm;
        let enlisted = evm
            .call(
                a.attacker,
                vault,
                U256::ZERO,
                enlistCall { delegate }.abi_encode().into(),
            )
            .unwrap();
        assert!(enlisted.success, "{enlisted:?}");
        let mut policy = default_policy(&a);
        policy.allowed_targets.push(vault);
        policy.allowed_selectors.push(depositCall::SELECTOR.into());
        policy.allowed_tokens.push(vault);
        policy.price_vaults.push(vault);
        let config = PipelineConfig::default();
        let compiled = CompiledPolicy::try_from(policy.clone()).unwrap();
        let eval = evaluate(evm, &intent, &compiled, &signer, &config).unwrap();
        let honest = seal == 0 || seal == 6;
        if !honest {
            let codes: Vec<Code> = eval.decision.codes().collect();
            assert_eq!(
                codes,
                vec![Code::OpaqueAuthorization],
                "{form}: {:?}",
                eval.decision.violations
            );
        }

        // Trusted for its records too, the deposit lands and the grant is real.
        let mut trusting = policy;
        if !honest {
            trusting.opaque_key_targets.push(vault);
        }
        let trusting = CompiledPolicy::try_from(trusting).unwrap();
        let eval = evaluate(evm, &intent, &trusting, &signer, &config).unwrap();
        assert!(
            eval.decision.approved(),
            "{form}: {:?}",
            eval.decision.violations
        );
        let checked = eval.checked.expect("pass 2 agrees");
        let stranger = Address::repeat_byte(0x57);
        let landed = evm
            .call(stranger, a.account, U256::ZERO, checked.calldata().clone())
            .unwrap();
        assert!(landed.success, "{form}: {landed:?}");
        let shares = evm
            .view_sol(vault, &IERC20::balanceOfCall { account: a.account })
            .unwrap();
        assert!(!shares.is_zero(), "{form}");
        let take = redeemCall {
            shares,
            receiver: delegate,
            owner: a.account,
        };
        let taken = evm
            .call(delegate, vault, U256::ZERO, take.abi_encode().into())
            .unwrap();
        assert_eq!(taken.success, !honest, "{form}: {taken:?}");
        let got = evm
            .view_sol(a.dai, &IERC20::balanceOfCall { account: delegate })
            .unwrap();
        let expected = if honest { U256::ZERO } else { ether(1_000) };
        assert_eq!(got, expected, "{form}");
    }
}
