//! Everything a case needs on the node before it runs: the world's addresses (from `pace world`),
//! the red-pill contracts deployed by the world's attacker, their inventories, and the standing
//! rights the victim account granted earlier through its owner's raw path (`execute`).

use crate::{abi::*, chain::Chain};
use alloy_primitives::{Address, U256, aliases::U48, aliases::U160};
use alloy_sol_types::{SolCall, SolValue};
use pace_abi::bindings::{IERC20, IERC4626, IWETH9, PaceAccount};
use serde_json::Value;

/// One whole token of 18 decimals, times `n`.
pub(crate) fn e18(n: u64) -> U256 {
    U256::from(n) * U256::from(10u64).pow(U256::from(18u64))
}

/// The desks' price: 1,000 DAI per WETH, the world's pool price.
pub(crate) fn dai_per_weth() -> U256 {
    e18(1_000)
}
/// What one desk trade pays, in DAI (buys 1 WETH).
pub(crate) fn trade() -> U256 {
    e18(1_000)
}
/// What one real execution of an environment red pill steals through the accomplice.
pub(crate) fn env_loot() -> U256 {
    e18(500)
}
/// The fee-token allowance the victim gave the allowance desk, and what it takes of it.
pub(crate) fn standing_allowance() -> (U256, U256) {
    (e18(5_000), e18(2_000))
}
/// The USDC grant the victim gave the Permit2-style desk in the manager, and what it takes.
pub(crate) fn permit2_grant() -> (U256, U256) {
    (U256::from(20_000_000_000u64), U256::from(5_000_000_000u64))
}
/// The victim's ERC-721 ids in the collection it made the operator red pill an operator of,
/// and the one it takes.
pub(crate) const HEIRLOOMS: [u64; 3] = [1, 2, 3];
/// The id the operator red pill takes.
pub(crate) const PRIZE: u64 = 1;
/// The rare id the shop shows selling, and the worthless one it hands over for real.
pub(crate) const RARE: u64 = 7;
/// See [`RARE`].
pub(crate) const DECOY: u64 = 1_000;
/// The ERC-1155 ids: the gold edition the shop shows selling, the dust it hands over.
pub(crate) const GOLD: u64 = 1;
/// See [`GOLD`].
pub(crate) const DUST: u64 = 2;
/// Units of an edition bought, at [`unit_price`] DAI each.
pub(crate) const UNITS: u64 = 10;
/// DAI per edition unit.
pub(crate) fn unit_price() -> U256 {
    e18(100)
}
/// The attacker's own deposit that makes the vault look established, and the victim's.
pub(crate) fn vault_amounts() -> (U256, U256) {
    (e18(10_000), e18(1_000))
}

/// The world's addresses the suite uses, and its default policy.
pub(crate) struct World {
    pub(crate) chain_id: u64,
    pub(crate) account: Address,
    pub(crate) owner: Address,
    pub(crate) attacker: Address,
    pub(crate) weth: Address,
    pub(crate) dai: Address,
    pub(crate) usdc: Address,
    pub(crate) fee_token: Address,
    pub(crate) router: Address,
    pub(crate) policy: Value,
}

impl World {
    /// From `pace world`'s JSON.
    pub(crate) fn from_json(doc: &Value) -> Result<Self, String> {
        let a = |name: &str| -> Result<Address, String> {
            doc["addresses"][name]
                .as_str()
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| format!("pace world: no address for {name}"))
        };
        Ok(Self {
            chain_id: doc["chain_id"].as_u64().ok_or("pace world: no chain_id")?,
            account: a("account")?,
            owner: a("owner")?,
            attacker: a("attacker")?,
            weth: a("weth")?,
            dai: a("dai")?,
            usdc: a("usdc")?,
            fee_token: a("fee_token")?,
            router: a("router")?,
            policy: doc["policy"].clone(),
        })
    }
}

/// The red-pill contracts and helpers, as deployed.
pub(crate) struct Kit {
    pub(crate) accomplice: Address,
    pub(crate) gas_price: Address,
    pub(crate) base_fee: Address,
    pub(crate) origin: Address,
    pub(crate) block_number: Address,
    pub(crate) timestamp: Address,
    pub(crate) gas_left: Address,
    pub(crate) warmth: Address,
    pub(crate) transient: Address,
    pub(crate) views: Address,
    pub(crate) allowance: Address,
    pub(crate) manager: Address,
    pub(crate) permit2: Address,
    pub(crate) heirlooms: Address,
    pub(crate) operator: Address,
    pub(crate) rarities: Address,
    pub(crate) nft_shop: Address,
    pub(crate) editions: Address,
    pub(crate) edition_shop: Address,
    pub(crate) vault: Address,
    pub(crate) diluting_vault: Address,
    pub(crate) recorder: Address,
}

impl Kit {
    /// The desks that sell WETH from an inventory.
    pub(crate) fn desks(&self) -> [Address; 6] {
        [
            self.gas_price,
            self.base_fee,
            self.gas_left,
            self.warmth,
            self.allowance,
            self.permit2,
        ]
    }

    /// The red pills that steal through the accomplice.
    pub(crate) fn crew(&self) -> [Address; 9] {
        [
            self.gas_price,
            self.base_fee,
            self.origin,
            self.block_number,
            self.timestamp,
            self.gas_left,
            self.warmth,
            self.transient,
            self.views,
        ]
    }
}

/// Deploys every red-pill contract from the world's attacker, stocks the shops, desks and the
/// vault, and grants the standing rights from the victim account (its owner's raw path).
pub(crate) fn deploy(chain: &Chain, w: &World) -> Result<Kit, String> {
    let artifacts = pace_contracts::artifacts().map_err(|e| e.to_string())?;
    let attacker = w.attacker;
    chain.impersonate(attacker)?;
    chain.impersonate(w.owner)?;
    let deploy = |name: &str, args: Vec<u8>| -> Result<Address, String> {
        let code = artifacts
            .get(name)
            .map_err(|e| e.to_string())?
            .deploy_code(&args);
        chain.deploy(attacker, &code, name)
    };
    let accomplice = deploy("RedPillAccomplice", (w.fee_token,).abi_encode_params())?;
    let desk = (w.dai, w.weth, dai_per_weth(), accomplice, env_loot()).abi_encode_params();
    let harmless = (accomplice, env_loot()).abi_encode_params();
    let (standing, standing_take) = standing_allowance();
    let (grant, grant_take) = permit2_grant();
    let manager = deploy("RedPillAllowanceManager", Vec::new())?;
    let heirlooms = deploy(
        "RedPillCollection",
        ("Heirlooms".to_owned(),).abi_encode_params(),
    )?;
    let rarities = deploy(
        "RedPillCollection",
        ("Rarities".to_owned(),).abi_encode_params(),
    )?;
    let editions = deploy("RedPillMultiToken", Vec::new())?;
    let kit = Kit {
        accomplice,
        gas_price: deploy("RedPillGasPrice", desk.clone())?,
        base_fee: deploy("RedPillBaseFee", desk.clone())?,
        origin: deploy("RedPillOrigin", harmless.clone())?,
        block_number: deploy("RedPillBlockNumber", harmless.clone())?,
        timestamp: deploy("RedPillTimestamp", harmless.clone())?,
        gas_left: deploy("RedPillGasLeft", desk.clone())?,
        warmth: deploy("RedPillWarmth", desk)?,
        transient: deploy("RedPillTransient", harmless.clone())?,
        views: deploy("RedPillAccountViews", harmless)?,
        allowance: deploy(
            "RedPillAllowance",
            (w.dai, w.weth, dai_per_weth(), w.fee_token, standing_take).abi_encode_params(),
        )?,
        manager,
        permit2: deploy(
            "RedPillPermit2",
            (
                w.dai,
                w.weth,
                dai_per_weth(),
                manager,
                w.usdc,
                U160::from(grant_take),
            )
                .abi_encode_params(),
        )?,
        heirlooms,
        operator: deploy(
            "RedPillOperator",
            (heirlooms, U256::from(PRIZE)).abi_encode_params(),
        )?,
        rarities,
        nft_shop: deploy(
            "RedPillNftShop",
            (w.dai, rarities, trade(), U256::from(DECOY)).abi_encode_params(),
        )?,
        editions,
        edition_shop: deploy(
            "RedPillEditionShop",
            (w.dai, editions, unit_price(), U256::from(DUST)).abi_encode_params(),
        )?,
        vault: deploy("RedPillVault", (w.dai,).abi_encode_params())?,
        diluting_vault: deploy("RedPillDilutingVault", (w.dai,).abi_encode_params())?,
        recorder: deploy("EnvironmentRecorder", Vec::new())?,
    };
    stock(chain, w, &kit)?;
    grant_rights(chain, w, &kit, standing, grant)?;
    check_recorder(chain, w, &kit)?;
    Ok(kit)
}

/// The environment recorder measures what it is told: in an `eth_call` the WETH contract is
/// cold and the recorder itself (the call's target) warm; an empty slot of its storage is cold.
fn check_recorder(chain: &Chain, w: &World, k: &Kit) -> Result<(), String> {
    let record = Recorder::recordCall {
        addresses: vec![w.weth, k.recorder],
        slots: vec![alloy_primitives::B256::repeat_byte(0x77)],
        transientSlot: alloy_primitives::B256::ZERO,
    };
    let out = chain.view(k.recorder, &record)?;
    let (weth, own, slot) = (
        out.addressProbes[0].cost,
        out.addressProbes[1].cost,
        out.slotProbes[0].cost,
    );
    let cold = U256::from(2_000u64);
    if weth < cold || own >= cold || slot < cold || out.env.chainId != U256::from(w.chain_id) {
        return Err(format!(
            "the environment recorder misreads: WETH access {weth} gas, its own {own}, a cold \
             slot {slot}, chain {}",
            out.env.chainId
        ));
    }
    Ok(())
}

/// The attacker stocks its contracts: the crew enlisted, WETH in every desk, ids in the shops
/// and the victim's wallet, its own deposit in each vault.
fn stock(chain: &Chain, w: &World, k: &Kit) -> Result<(), String> {
    let attacker = w.attacker;
    for pill in k.crew() {
        chain.send_sol(
            attacker,
            k.accomplice,
            &Accomplice::enlistCall { pill },
            "enlist a red pill",
        )?;
    }
    let per_desk = e18(10);
    let wrap = IWETH9::depositCall {}.abi_encode();
    let total = per_desk * U256::from(k.desks().len());
    chain.send(attacker, Some(w.weth), total, &wrap, "wrap WETH")?;
    for desk in k.desks() {
        let fund = IERC20::transferCall {
            to: desk,
            value: per_desk,
        };
        chain.send_sol(attacker, w.weth, &fund, "stock a desk with WETH")?;
    }
    for id in HEIRLOOMS {
        let mint = Collection::mintCall {
            to: w.account,
            id: U256::from(id),
        };
        chain.send_sol(attacker, k.heirlooms, &mint, "mint the victim's heirlooms")?;
    }
    for id in [RARE, DECOY] {
        let mint = Collection::mintCall {
            to: k.nft_shop,
            id: U256::from(id),
        };
        chain.send_sol(attacker, k.rarities, &mint, "stock the NFT shop")?;
    }
    for id in [GOLD, DUST] {
        let mint = MultiToken::mintCall {
            to: k.edition_shop,
            id: U256::from(id),
            value: U256::from(100u64),
        };
        chain.send_sol(attacker, k.editions, &mint, "stock the edition shop")?;
    }
    let (seed, _) = vault_amounts();
    for vault in [k.vault, k.diluting_vault] {
        let mint = MockToken::mintCall {
            to: attacker,
            amount: seed,
        };
        chain.send_sol(attacker, w.dai, &mint, "the attacker's DAI")?;
        let approve = IERC20::approveCall {
            spender: vault,
            value: seed,
        };
        chain.send_sol(attacker, w.dai, &approve, "approve the vault")?;
        let deposit = IERC4626::depositCall {
            assets: seed,
            receiver: attacker,
        };
        chain.send_sol(attacker, vault, &deposit, "seed the vault")?;
    }
    Ok(())
}

/// The victim's owner grants, through the account's raw path, the rights the asset-class cases
/// steal through: fee-token allowances to the accomplice and to the allowance desk, USDC to the
/// allowance manager and a grant there to the Permit2-style desk, an operator over heirlooms.
fn grant_rights(
    chain: &Chain,
    w: &World,
    k: &Kit,
    standing: U256,
    grant: U256,
) -> Result<(), String> {
    let (_, now) = chain.head()?;
    let expiration = U48::from(now + 30 * 86_400);
    let rights: [(Address, Vec<u8>, &str); 5] = [
        (
            w.fee_token,
            IERC20::approveCall {
                spender: k.accomplice,
                value: U256::MAX,
            }
            .abi_encode(),
            "fee-token allowance to the accomplice",
        ),
        (
            w.fee_token,
            IERC20::approveCall {
                spender: k.allowance,
                value: standing,
            }
            .abi_encode(),
            "fee-token allowance to the allowance desk",
        ),
        (
            w.usdc,
            IERC20::approveCall {
                spender: k.manager,
                value: U256::MAX,
            }
            .abi_encode(),
            "USDC allowance to the allowance manager",
        ),
        (
            k.manager,
            Manager::approveCall {
                token: w.usdc,
                spender: k.permit2,
                amount: U160::from(grant),
                expiration,
            }
            .abi_encode(),
            "USDC grant to the Permit2-style desk",
        ),
        (
            k.heirlooms,
            pace_abi::bindings::IERC721::setApprovalForAllCall {
                operator: k.operator,
                approved: true,
            }
            .abi_encode(),
            "operator over the heirlooms",
        ),
    ];
    for (target, data, what) in rights {
        let execute = PaceAccount::executeCall {
            target,
            value: U256::ZERO,
            data: data.into(),
        };
        chain.send_sol(w.owner, w.account, &execute, what)?;
    }
    Ok(())
}
