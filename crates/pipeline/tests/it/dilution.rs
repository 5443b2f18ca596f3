//! A vault that dilutes its shares only at execution: every balance moves as simulated, what
//! the received shares are worth does not. The pipeline signs, from the verifier's relied
//! reads, post-conditions on what one share is worth: by the vault's own rate, and by its part
//! of the vault's `totalAssets` (read through `PaceShareValue.vaultShare`). A third party
//! landing the PDR a block after the vault was armed is reverted (`PaceAccountCheckFailed`),
//! while the same intent signed without post-conditions executes and loses most of the
//! deposit; so is it when the vault reports a stored rate that the dilution does not move.

use crate::door::evaluate;
use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::{SolCall, SolValue, sol};
use pace_abi::bindings::{IERC20, IPaceShareValue, PaceAccount};
use pace_pipeline::PipelineConfig;
use pace_signer::PdrSigner;
use pace_testkit::ether;
use pace_types::{Approval, Call, Claims, CompiledPolicy, Intent, TokenAmount, pdr::CheckRelation};
use pace_world::{Builder, World, default_policy};

sol! {
    function arm();
    function deposit(uint256 assets, address receiver) returns (uint256);
    function convertToAssets(uint256 shares) view returns (uint256);
}

/// The attacker's diluting vault, seeded with 10,000 DAI, and the agent's intent to deposit
/// 1,000 DAI of the account into it.
pub(super) fn diluting_vault(world: &mut World) -> (Address, Intent) {
    let args = world.addrs.dai.abi_encode();
    vault_named(world, "RedPillDilutingVault", &args)
}

/// [`diluting_vault`] with the vault contract `name`, deployed by the attacker with the
/// constructor arguments `args` (the asset first).
pub(super) fn vault_named(world: &mut World, name: &str, args: &[u8]) -> (Address, Intent) {
    let a = world.addrs;
    let deadline = world.deadline();
    let (amount, seed) = (ether(1_000), ether(10_000));
    let vault = {
        let mut b = Builder::new(&mut world.evm, a.attacker, deadline).unwrap();
        let vault = b
            .project_from(a.attacker, name, args, "deploy the vault")
            .unwrap();
        b.mint(a.attacker, a.dai, a.attacker, seed, "the attacker's DAI")
            .unwrap();
        let approve = IERC20::approveCall {
            spender: vault,
            value: seed,
        };
        b.call(a.attacker, a.dai, U256::ZERO, &approve, "approve the vault")
            .unwrap();
        let seeded = depositCall {
            assets: seed,
            receiver: a.attacker,
        };
        b.call(a.attacker, vault, U256::ZERO, &seeded, "seed the vault")
            .unwrap();
        vault
    };
    let evm = &mut world.evm;

    // The agent deposits 1,000 DAI; the policy trusts the vault's rate.
    let approve = IERC20::approveCall {
        spender: vault,
        value: amount,
    };
    let intent = Intent {
        chain_id: evm.chain_id(),
        account: a.account,
        calls: vec![
            Call {
                target: a.dai,
                value: U256::ZERO,
                data: approve.abi_encode().into(),
            },
            Call {
                target: vault,
                value: U256::ZERO,
                data: depositCall {
                    assets: amount,
                    receiver: a.account,
                }
                .abi_encode()
                .into(),
            },
        ],
        claimed: Claims {
            approvals: vec![Approval {
                token: a.dai,
                spender: vault,
                amount,
            }],
            outflows: vec![TokenAmount {
                token: a.dai,
                amount,
            }],
            touched: vec![a.dai, vault],
            ..Claims::default()
        },
        metadata: Default::default(),
    };
    (vault, intent)
}

#[test]
fn a_vault_diluting_at_execution_is_reverted_by_the_signed_post_condition() {
    dilutes_and_is_reverted("RedPillDilutingVault", false);
}

#[test]
fn a_vault_diluting_under_a_stored_rate_is_reverted_by_its_assets_per_share() {
    dilutes_and_is_reverted("RedPillStaleRateVault", true);
}

/// Deposits into the vault `name`, armed after the decision, and lands the PDR a block later:
/// reverted with the post-conditions, executed at a loss without them. With a `stored_rate`
/// the vault's rate does not move, and the check that fails is of its assets per share.
fn dilutes_and_is_reverted(name: &str, stored_rate: bool) {
    let signer = PdrSigner::from_bytes(&B256::repeat_byte(0x42)).unwrap();
    let mut world = World::new(signer.address()).unwrap();
    let a = world.addrs;
    let amount = ether(1_000);
    let args = a.dai.abi_encode();
    let (vault, intent) = vault_named(&mut world, name, &args);
    let evm = &mut world.evm;
    let mut policy = default_policy(&a);
    policy.allowed_targets.push(vault);
    policy.allowed_selectors.push(depositCall::SELECTOR.into());
    policy.allowed_tokens.push(vault);
    policy.price_vaults.push(vault);
    let tolerance = policy.outcome_tolerance_bps;
    let policy = CompiledPolicy::try_from(policy).unwrap();

    let sign = |evm: &pace_evm::InProcessEvm, post_conditions: bool| {
        let config = PipelineConfig {
            post_conditions,
            ..PipelineConfig::default()
        };
        let eval = evaluate(evm, &intent, &policy, &signer, &config).unwrap();
        assert!(eval.decision.approved(), "{:?}", eval.decision.violations);
        eval.checked.expect("pass 2 agrees")
    };
    let checked = sign(evm, true);
    let unchecked = sign(evm, false);
    let checks = &checked.signed().pdr.checks;
    assert_eq!(checks.len(), 2, "{checks:?}");
    // What one whole share is worth (1:1 here), by the rate the verifier valued the shares at
    // and by the vault's assets per share.
    let one = ether(1);
    let helper = pace_types::pdr::SHARE_VALUE_HELPER;
    let rate = convertToAssetsCall { shares: one }.abi_encode();
    let accounting = IPaceShareValue::vaultShareCall { vault, shares: one }.abi_encode();
    let floor = one * U256::from(10_000 - tolerance) / U256::from(10_000u64);
    for (target, data) in [(vault, &rate), (helper, &accounting)] {
        let c = checks
            .iter()
            .find(|c| c.target == target && c.data.as_ref() == data.as_slice())
            .unwrap_or_else(|| panic!("no check of {target}: {checks:?}"));
        assert_eq!(c.relation(), Some(CheckRelation::Within));
        assert_eq!(c.lo, floor, "the simulated value less the tolerance");
        assert_eq!(c.hi, U256::MAX);
    }
    assert!(unchecked.signed().pdr.checks.is_empty());

    // The attacker arms the vault; a stranger lands each PDR a block later.
    let armed = evm
        .call(
            a.attacker,
            vault,
            U256::ZERO,
            armCall {}.abi_encode().into(),
        )
        .unwrap();
    assert!(armed.success, "arm: {armed:?}");
    let (number, timestamp) = (evm.block_number(), evm.timestamp());
    evm.set_block(number + 1, timestamp + 12);
    let stranger = Address::repeat_byte(0x57);
    let dai = |evm: &pace_evm::InProcessEvm| {
        evm.view_sol(a.dai, &IERC20::balanceOfCall { account: a.account })
            .unwrap()
    };

    let mut without = evm.clone();
    let before = dai(evm);
    let landed = evm
        .call(stranger, a.account, U256::ZERO, checked.calldata().clone())
        .unwrap();
    assert!(!landed.success, "the diluted deposit executed");
    let error = landed.decode_revert::<PaceAccount::PaceAccountErrors>();
    assert!(
        matches!(
            error,
            Some(PaceAccount::PaceAccountErrors::PaceAccountCheckFailed(ref e))
                if (e.target == helper || !stored_rate && e.target == vault)
                    && e.quantityAfter < floor
        ),
        "{error:?}"
    );
    assert_eq!(dai(evm), before, "DAI left the account");

    // Without the post-condition every bound holds and the deposit loses most of its value.
    let landed = without
        .call(
            stranger,
            a.account,
            U256::ZERO,
            unchecked.calldata().clone(),
        )
        .unwrap();
    assert!(landed.success, "{landed:?}");
    let worth = without
        .view_sol(
            helper,
            &IPaceShareValue::vaultShareCall {
                vault,
                shares: amount,
            },
        )
        .unwrap();
    assert!(worth < amount / U256::from(5u8), "worth {worth}");
}
