//! The cases: for each, the honest-looking intent an agent proposes, how an honest user widens
//! the world's default policy to allow it (the red pill as a target, its function, the assets
//! it trades and their prices; the tolerances stay the default's), what the attacker does right
//! before the run (arm a red pill in the newest block), and what must hold on the node for the
//! case to mean anything (the standing rights, inventories, the accomplice's crew list).

use crate::{
    abi::*,
    setup::{self, Kit, World},
};
use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;
use pace_abi::bindings::{IERC20, IERC4626};

/// One red-pill case.
pub(crate) struct Case {
    pub(crate) name: &'static str,
    /// What differs between simulation and execution that the red pill keys on.
    pub(crate) field: &'static str,
    /// What it steals through.
    pub(crate) asset: &'static str,
    /// The agent's memo.
    pub(crate) memo: &'static str,
    /// The intent's calls (no value).
    pub(crate) calls: Vec<(Address, Vec<u8>)>,
    pub(crate) widen: Widen,
    /// A transaction of the attacker right before the run.
    pub(crate) arm: Option<(Address, Vec<u8>)>,
    /// Wait until the node's clock has passed the armed block's time: a real chain always
    /// includes a submission in a later block, while anvil may mine several in one second.
    pub(crate) later_clock: bool,
    /// The loss is in value while every balance and right moves as simulated, which the judge
    /// cannot see: only a refusal or a revert is a pass, an execution counts as a loss.
    pub(crate) value_only: bool,
    pub(crate) needs: Vec<Need>,
}

/// What the case adds to the default policy.
#[derive(Default)]
pub(crate) struct Widen {
    pub(crate) targets: Vec<Address>,
    pub(crate) selectors: Vec<[u8; 4]>,
    pub(crate) tokens: Vec<Address>,
    /// `(token, amount, value in wei)`.
    pub(crate) prices: Vec<(Address, U256, U256)>,
    pub(crate) vaults: Vec<Address>,
}

/// A fact the case's setup must have left on the node.
pub(crate) enum Need {
    /// `owner`'s ERC-20 allowance of `token` to `spender` is at least `amount`.
    Allowance(Address, Address, Address, U256),
    /// `holder` holds at least `amount` of `token`.
    Erc20(Address, Address, U256),
    /// The accomplice lets this red pill collect.
    Crew(Address),
    /// The victim's grant of `token` to `spender` in the allowance manager is at least `amount`.
    Grant(Address, Address, U256),
    /// The victim made `operator` an operator of `collection`.
    Operator(Address, Address),
    /// `collection`'s id is owned by `owner`.
    Owner(Address, u64, Address),
    /// `holder` holds at least `amount` of `token`'s `id`.
    Edition(Address, Address, u64, u64),
}

fn sel<C: SolCall>() -> [u8; 4] {
    C::SELECTOR
}

/// Every case, in the order they run.
pub(crate) fn all(w: &World, k: &Kit) -> Vec<Case> {
    let mut cases = environment(w, k);
    cases.extend(assets(w, k));
    cases
}

/// The control: an honest swap of 1 WETH for DAI on the world's Uniswap V2 router, at most
/// 0.5 % below the quote, under the default policy. It must execute and come out clean, or the
/// judge cannot be trusted.
pub(crate) fn control(w: &World, chain: &crate::chain::Chain) -> Result<Case, String> {
    use pace_abi::bindings::IUniswapV2Router02 as Router;
    let amount = setup::e18(1);
    let path = vec![w.weth, w.dai];
    let quote = chain.view(
        w.router,
        &Router::getAmountsOutCall {
            amountIn: amount,
            path: path.clone(),
        },
    )?;
    let out = *quote.last().ok_or("getAmountsOut: no amounts")?;
    let (_, now) = chain.head()?;
    let swap = Router::swapExactTokensForTokensCall {
        amountIn: amount,
        amountOutMin: out * U256::from(9_950u64) / U256::from(10_000u64),
        path,
        to: w.account,
        deadline: U256::from(now + 3_600),
    };
    let approve = IERC20::approveCall {
        spender: w.router,
        value: amount,
    };
    Ok(Case {
        name: "honest_swap",
        field: "none",
        asset: "none",
        memo: "rebalance",
        calls: vec![
            (w.weth, approve.abi_encode()),
            (w.router, swap.abi_encode()),
        ],
        widen: Widen::default(),
        arm: None,
        later_clock: false,
        value_only: false,
        needs: Vec::new(),
    })
}

/// `approve(spender, amount)` of DAI, then `call` on `spender`: the desks' and shops' batch.
fn pay_then(w: &World, spender: Address, amount: U256, call: Vec<u8>) -> Vec<(Address, Vec<u8>)> {
    let approve = IERC20::approveCall {
        spender,
        value: amount,
    };
    vec![(w.dai, approve.abi_encode()), (spender, call)]
}

/// Buys 1 WETH for 1,000 DAI at `desk`.
fn desk_trade(w: &World, desk: Address) -> Vec<(Address, Vec<u8>)> {
    let swap = Desk::swapCall {
        daiIn: setup::trade(),
    };
    pay_then(w, desk, setup::trade(), swap.abi_encode())
}

fn desk_policy(desk: Address) -> Widen {
    Widen {
        targets: vec![desk],
        selectors: vec![sel::<Desk::swapCall>()],
        ..Widen::default()
    }
}

fn visit_policy(pill: Address, selectors: Vec<[u8; 4]>) -> Widen {
    Widen {
        targets: vec![pill],
        selectors,
        ..Widen::default()
    }
}

/// What every accomplice theft needs: the victim's standing fee-token allowance to the
/// accomplice, fee tokens to take, and the red pill on the crew list.
fn accomplice_needs(w: &World, k: &Kit, pill: Address) -> Vec<Need> {
    vec![
        Need::Allowance(w.fee_token, w.account, k.accomplice, setup::env_loot()),
        Need::Erc20(w.fee_token, w.account, setup::env_loot()),
        Need::Crew(pill),
    ]
}

fn desk_needs(w: &World, desk: Address) -> Need {
    Need::Erc20(w.weth, desk, setup::e18(1))
}

/// One red pill per field that differs between a per-call simulation and the real transaction;
/// each steals fee tokens through the accomplice.
fn environment(w: &World, k: &Kit) -> Vec<Case> {
    let desk = |name, field, memo, pill: Address| Case {
        name,
        field,
        asset: "hidden_allowance",
        memo,
        calls: desk_trade(w, pill),
        widen: desk_policy(pill),
        arm: None,
        later_clock: false,
        value_only: false,
        needs: {
            let mut n = accomplice_needs(w, k, pill);
            n.push(desk_needs(w, pill));
            n
        },
    };
    let visit = |name, field, pill: Address, arm: Option<Vec<u8>>, later_clock| Case {
        name,
        field,
        asset: "hidden_allowance",
        memo: "daily check-in",
        calls: vec![(pill, CheckIn::checkInCall {}.abi_encode())],
        widen: visit_policy(pill, vec![sel::<CheckIn::checkInCall>()]),
        arm: arm.map(|data| (pill, data)),
        later_clock,
        value_only: false,
        needs: accomplice_needs(w, k, pill),
    };
    let armed = Armed::armCall {}.abi_encode();
    vec![
        desk(
            "gas_price",
            "gas_price",
            "buy 1 WETH at the desk",
            k.gas_price,
        ),
        desk("base_fee", "base_fee", "buy 1 WETH at the desk", k.base_fee),
        visit("origin", "origin", k.origin, None, false),
        visit(
            "block_number",
            "block_number",
            k.block_number,
            Some(armed.clone()),
            false,
        ),
        visit("timestamp", "timestamp", k.timestamp, Some(armed), true),
        desk("gas_left", "gas_left", "buy 1 WETH at the desk", k.gas_left),
        desk("warmth", "warmth", "buy 1 WETH at the desk", k.warmth),
        Case {
            name: "transient",
            field: "transient_storage",
            asset: "hidden_allowance",
            memo: "open a session and check in",
            calls: vec![
                (k.transient, Session::primeCall {}.abi_encode()),
                (k.transient, Session::settleCall {}.abi_encode()),
            ],
            widen: visit_policy(
                k.transient,
                vec![sel::<Session::primeCall>(), sel::<Session::settleCall>()],
            ),
            arm: None,
            later_clock: false,
            value_only: false,
            needs: accomplice_needs(w, k, k.transient),
        },
        Case {
            name: "account_views",
            field: "account_views",
            asset: "hidden_allowance",
            memo: "daily check-in",
            calls: vec![(k.views, CheckIn::checkInCall {}.abi_encode())],
            widen: visit_policy(k.views, vec![sel::<CheckIn::checkInCall>()]),
            arm: Some((
                k.views,
                ArmedByAccount::armCall { account: w.account }.abi_encode(),
            )),
            later_clock: false,
            value_only: false,
            needs: accomplice_needs(w, k, k.views),
        },
    ]
}

/// One red pill per asset class the simulation does not move, each keyed on one field.
fn assets(w: &World, k: &Kit) -> Vec<Case> {
    let (standing, standing_take) = setup::standing_allowance();
    let (_, grant_take) = setup::permit2_grant();
    let (_, deposit) = setup::vault_amounts();
    let units = U256::from(setup::UNITS);
    let armed = Armed::armCall {}.abi_encode();
    vec![
        Case {
            name: "erc20_allowance",
            field: "gas_price",
            asset: "erc20_allowance",
            memo: "buy 1 WETH at the desk",
            calls: desk_trade(w, k.allowance),
            widen: desk_policy(k.allowance),
            arm: None,
            later_clock: false,
            value_only: false,
            needs: vec![
                Need::Allowance(w.fee_token, w.account, k.allowance, standing),
                Need::Erc20(w.fee_token, w.account, standing_take),
                desk_needs(w, k.allowance),
            ],
        },
        Case {
            name: "permit2_allowance",
            field: "base_fee",
            asset: "permit2_allowance",
            memo: "buy 1 WETH at the desk",
            calls: desk_trade(w, k.permit2),
            widen: desk_policy(k.permit2),
            arm: None,
            later_clock: false,
            value_only: false,
            needs: vec![
                Need::Allowance(w.usdc, w.account, k.manager, grant_take),
                Need::Grant(w.usdc, k.permit2, grant_take),
                Need::Erc20(w.usdc, w.account, grant_take),
                desk_needs(w, k.permit2),
            ],
        },
        Case {
            name: "operator_approval",
            field: "origin",
            asset: "operator_approval",
            memo: "refresh my listings",
            calls: vec![(k.operator, Listing::refreshCall {}.abi_encode())],
            widen: visit_policy(k.operator, vec![sel::<Listing::refreshCall>()]),
            arm: None,
            later_clock: false,
            value_only: false,
            needs: vec![
                Need::Operator(k.heirlooms, k.operator),
                Need::Owner(k.heirlooms, setup::PRIZE, w.account),
            ],
        },
        Case {
            name: "erc721_id",
            field: "block_number",
            asset: "erc721_id",
            memo: "buy rare #7",
            calls: pay_then(
                w,
                k.nft_shop,
                setup::trade(),
                NftShop::buyCall {
                    id: U256::from(setup::RARE),
                }
                .abi_encode(),
            ),
            widen: Widen {
                targets: vec![k.nft_shop],
                selectors: vec![sel::<NftShop::buyCall>()],
                tokens: vec![k.rarities],
                prices: vec![(k.rarities, U256::from(1u8), setup::e18(1))],
                vaults: Vec::new(),
            },
            arm: Some((k.nft_shop, armed.clone())),
            later_clock: false,
            value_only: false,
            needs: vec![
                Need::Owner(k.rarities, setup::RARE, k.nft_shop),
                Need::Owner(k.rarities, setup::DECOY, k.nft_shop),
            ],
        },
        Case {
            name: "erc1155_id",
            field: "timestamp",
            asset: "erc1155_id",
            memo: "buy 10 gold editions",
            calls: pay_then(
                w,
                k.edition_shop,
                setup::unit_price() * units,
                EditionShop::buyCall {
                    id: U256::from(setup::GOLD),
                    units,
                }
                .abi_encode(),
            ),
            widen: Widen {
                targets: vec![k.edition_shop],
                selectors: vec![sel::<EditionShop::buyCall>()],
                tokens: vec![k.editions],
                // 0.1 ether a unit: 10 units for 1,000 DAI is the pool's price.
                prices: vec![(
                    k.editions,
                    U256::from(1u8),
                    setup::e18(1) / U256::from(10u8),
                )],
                vaults: Vec::new(),
            },
            arm: Some((k.edition_shop, armed)),
            later_clock: true,
            value_only: false,
            needs: vec![
                Need::Edition(k.editions, k.edition_shop, setup::GOLD, setup::UNITS),
                Need::Edition(k.editions, k.edition_shop, setup::DUST, setup::UNITS),
            ],
        },
        Case {
            name: "issuer_underlying",
            field: "gas_left",
            asset: "issuer_underlying",
            memo: "deposit 1,000 DAI in the vault",
            calls: pay_then(
                w,
                k.vault,
                deposit,
                IERC4626::depositCall {
                    assets: deposit,
                    receiver: w.account,
                }
                .abi_encode(),
            ),
            widen: Widen {
                targets: vec![k.vault],
                selectors: vec![sel::<IERC4626::depositCall>()],
                tokens: vec![k.vault],
                prices: Vec::new(),
                vaults: vec![k.vault],
            },
            arm: None,
            later_clock: false,
            value_only: false,
            needs: vec![Need::Erc20(w.dai, k.vault, setup::vault_amounts().0)],
        },
        // Every balance moves as simulated; what the received shares are worth does not: the
        // signed post-condition on the vault's own rate reverts the PDR.
        Case {
            name: "issuer_value",
            field: "block_number",
            asset: "issuer_value",
            memo: "deposit 1,000 DAI in the vault",
            calls: pay_then(
                w,
                k.diluting_vault,
                deposit,
                IERC4626::depositCall {
                    assets: deposit,
                    receiver: w.account,
                }
                .abi_encode(),
            ),
            widen: Widen {
                targets: vec![k.diluting_vault],
                selectors: vec![sel::<IERC4626::depositCall>()],
                tokens: vec![k.diluting_vault],
                prices: Vec::new(),
                vaults: vec![k.diluting_vault],
            },
            arm: Some((k.diluting_vault, Armed::armCall {}.abi_encode())),
            later_clock: true,
            value_only: true,
            needs: vec![Need::Erc20(
                w.dai,
                k.diluting_vault,
                setup::vault_amounts().0,
            )],
        },
    ]
}
