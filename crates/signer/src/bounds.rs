//! Outcome bounds derived from the simulation: everything that can leave the account.
//!
//! A PDR's bounds cover, at least:
//! - every token and ether whose balance the simulation moved: a simulated outflow of `x`
//!   allows at most `x * (1 + tolerance)` out, a simulated inflow of `y` requires at least
//!   `y * (1 - tolerance)` in and never less than one unit (a single NFT, a token without
//!   decimals), and a debt token's rise (debt taken on) may be at most `y * (1 + tolerance)`;
//! - every token whose balance the simulation read and did not move (the policy's tokens, the
//!   touched contracts that hold a balance of the account, the tokens of allowances read or
//!   changed), and ether: *held*, their balance may not fall (but for what no right the
//!   account granted can reach: a token the simulator reports `ungranted`, left unread under
//!   an `UNGRANTED` bound on its grant-filter bits, and the ether of an account that keeps a
//!   grant filter when no call sends any); a debt token among them, or any
//!   token naming an underlying asset (`debt_like`: Aave's debt tokens and aTokens, whoever
//!   declares them), may rise by at most 1 bps of its balance and one unit (days of interest),
//!   so no debt is drawn behind the account;
//! - every ERC-721 id the simulation moved (`ownerOf`: an arriving id must be the account's,
//!   a leaving one may leave) and every ERC-1155 id (`balanceOf(account, id)`, as a balance);
//!   and every id of a held ERC-721 collection the simulation read (a position, an item
//!   approval): still the account's after the calls, so a valuable id cannot leave while
//!   another arrives and the count holds;
//! - for an asset the account receives from its issuer (a vault share, a pool's share, a
//!   lending market's claim), the issuer's holdings of the underlying: they must rise (or
//!   fall) by what the simulation shows, within the tolerance, so the claim is not emptied
//!   behind it in the same transaction.
//!
//! What the simulation never read (a token no call, log, policy field or allowance names) is
//! outside the set and unprotected by the bounds.

use alloy_primitives::{Address, I256, U256};
use pace_types::{
    BalanceChange, Bps, ETH, NftFlow, PriceSource, SimulationReport, TokenFlow,
    pdr::{Bound, BoundKind, grant_bit},
};

const BPS: u64 = 10_000;

/// What a PDR re-checks after the calls: the bounded quantities, the held assets (ERC-20
/// tokens, the zero address for ether) whose balance may not fall, and whether the facts the
/// approval relied on are signed as post-conditions too ([`crate::post_conditions`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// One per bounded quantity, sorted by kind, token and id.
    pub bounds: Vec<Bound>,
    /// Sorted, each once, none of them bounded above.
    pub held: Vec<Address>,
    /// Whether [`crate::attest`] signs the approval's relied reads as post-conditions: always
    /// (the default), but to reproduce the paper's PDR, which re-checks nothing.
    pub post_conditions: bool,
}

impl Default for Bounds {
    /// No bounds, nothing held, and the approval's post-conditions.
    fn default() -> Self {
        Self {
            bounds: Vec::new(),
            held: Vec::new(),
            post_conditions: true,
        }
    }
}

/// The tolerance as `(scale, scale - tol, scale + tol)` in basis points (capped at 100 %).
fn scales(tolerance_bps: Bps) -> (U256, U256, U256) {
    let tol = U256::from(u64::from(tolerance_bps).min(BPS));
    let scale = U256::from(BPS);
    (scale, scale - tol, scale + tol)
}

/// A bound of `kind` on `token`/`id` for a simulated change of `delta` units, within
/// `tolerance_bps`; a rise of debt is capped, not required.
fn bound_for(
    kind: BoundKind,
    token: Address,
    id: U256,
    delta: I256,
    tolerance: Bps,
    debt: bool,
) -> Bound {
    let (scale, floor, ceiling) = scales(tolerance);
    let magnitude = delta.unsigned_abs();
    let mut b = Bound::new(kind, token, id);
    if delta.is_negative() {
        b.maxOut = magnitude.saturating_mul(ceiling).div_ceil(scale);
    } else if debt {
        b.maxIn = magnitude.saturating_mul(ceiling).div_ceil(scale);
    } else {
        // Never 0 when something arrives: one NFT, one unit of a token without decimals.
        b.minIn = (magnitude.saturating_mul(floor) / scale).max(U256::from(1u8));
    }
    b
}

/// The outcome bounds of `report`, the simulation of an intent of `account`, with
/// `tolerance_bps` (see the module docs).
pub fn bounds_from_report(
    report: &SimulationReport,
    account: Address,
    tolerance_bps: Bps,
) -> Bounds {
    let debts: Vec<Address> = report.debt_tokens.iter().map(|d| d.token).collect();
    // A token naming an underlying may not rise unseen (debt drawn behind the account).
    let capped = |token: &Address| debts.contains(token) || report.debt_like.contains(token);
    let mut bounds: Vec<Bound> = report
        .balance_changes
        .iter()
        .filter(|c| !c.delta.is_zero())
        .map(|c| {
            let debt = debts.contains(&c.token);
            let mut b = bound_for(
                BoundKind::Balance,
                c.token,
                U256::ZERO,
                c.delta,
                tolerance_bps,
                debt,
            );
            // A token naming an underlying that arrives (an aToken, or debt through a gateway
            // that declared nothing) must arrive, and no more than simulated.
            if !debt && c.delta.is_positive() && report.debt_like.contains(&c.token) {
                let (scale, _, ceiling) = scales(tolerance_bps);
                b.maxIn = c
                    .delta
                    .unsigned_abs()
                    .saturating_mul(ceiling)
                    .div_ceil(scale);
            }
            b
        })
        .collect();
    let moved = |token: Address| report.balance_changes.iter().any(|c| c.token == token);
    let mut held: Vec<Address> = Vec::new();
    // An account that keeps a grant filter (a `PaceAccount`) parts with ether only by the
    // value of its own calls, which the PDR signs: with none, its ether cannot fall. Any other
    // holder (an EOA's key, a Safe's other modules) may have ether leave otherwise.
    let keeps_grants = report.grant_filter.is_some_and(|f| f != u16::MAX);
    let sends_ether = report
        .token_flows
        .iter()
        .any(|f| f.token == ETH && f.from == account);
    if !moved(ETH) && (sends_ether || !keeps_grants) {
        held.push(ETH);
    }
    // What no right the account granted reaches is left unread, on the filter's bits.
    let mut ungranted_bits = 0u16;
    for read in &report.balances_read {
        if moved(read.token) {
            continue;
        }
        if !capped(&read.token)
            && !report.names_right_over(read.token)
            && let Some(u) = report.ungranted.iter().find(|u| u.token == read.token)
        {
            // The token's own bit is the signer's to add, whatever the report says.
            ungranted_bits |= u.bits | grant_bit(u.token);
            continue;
        }
        if capped(&read.token) {
            // Interest accrues between the simulation and the execution (1 bps of what is
            // owed, and one unit, is days of it); nothing may be drawn on top.
            // A declared debt may fall (repaid); a token merely naming an underlying (an aToken
            // as much as a debt token) may not, as if held.
            let mut b = Bound::balance(read.token);
            b.maxOut = if debts.contains(&read.token) {
                U256::MAX
            } else {
                U256::ZERO
            };
            b.maxIn = read.amount / U256::from(BPS) + U256::from(1u8);
            bounds.push(b);
        } else {
            held.push(read.token);
        }
    }
    bounds.extend(nft_bounds(&report.nft_flows, account, tolerance_bps));
    bounds.extend(held_items(report, &held));
    bounds.extend(holding_bounds(report, tolerance_bps));
    if ungranted_bits != 0 {
        bounds.push(Bound::ungranted(ungranted_bits));
    }
    bounds.extend(granted_bounds(report));
    normalise(Bounds {
        bounds,
        held,
        ..Bounds::default()
    })
}

/// A `GRANTED` bound for each contract over whose records the simulation saw a right of the
/// account granted (an allowance, an operator, a delegation, any right fact) whose bit the
/// account's grant filter does not have yet: a right granted through another contract (a
/// forwarder acting for the account) leaves no call of the account to the contract that
/// records it. Where a call of the intent does target it, the bound repeats what the call
/// records. None where the account keeps no filter (every bit reads as set) or the report
/// says nothing of one (an account that would refuse the bound's kind).
fn granted_bounds(report: &SimulationReport) -> Vec<Bound> {
    let Some(filter) = report.grant_filter else {
        return Vec::new();
    };
    let mut over: Vec<Address> = report
        .approvals
        .iter()
        .filter(|a| !a.amount.is_zero())
        .map(|a| a.token)
        .chain(
            report
                .rights
                .iter()
                .flat_map(|r| std::iter::once(r.contract).chain(r.token)),
        )
        .filter(|c| *c != ETH && grant_bit(*c) & filter == 0)
        .collect();
    over.sort();
    over.dedup();
    over.into_iter().map(Bound::granted).collect()
}

/// The ERC-721 ids of a held collection that the simulation read (a position it valued, an
/// item it approved), each held by id: the account must still own it after the calls. Held by
/// count alone, a valuable id could leave while a worthless one arrives. Ids the calls moved
/// are bounded by [`nft_bounds`] instead (they come first, and win in [`normalise`]).
fn held_items(report: &SimulationReport, held: &[Address]) -> Vec<Bound> {
    let positions = report
        .protocols
        .v3_positions
        .iter()
        .map(|p| (p.manager, p.id));
    let approved = report.item_approvals.iter().map(|a| (a.token, a.id));
    positions
        .chain(approved)
        .filter(|(collection, _)| held.contains(collection))
        .map(|(collection, id)| Bound::new(BoundKind::Erc721, collection, id))
        .collect()
}

/// ERC-721 ids arriving at the account (it must own them after) or leaving it (they may
/// leave), and each ERC-1155 id's net change, as a balance. An ERC-721 id minted to the
/// account gets no id bound: a collection that numbers its mints in sequence gives the next
/// id to whoever mints first, so the id is not the simulation's to promise; the collection's
/// count (its balance bound) holds the mint instead.
fn nft_bounds(flows: &[NftFlow], account: Address, tolerance: Bps) -> Vec<Bound> {
    // (multi, token, id) -> (net, minted to the account)
    let mut nets: Vec<((bool, Address, U256), I256, bool)> = Vec::new();
    for f in flows.iter().filter(|f| f.from != f.to) {
        let amount = I256::try_from(f.amount).unwrap_or(I256::MAX);
        let signed = if f.to == account {
            amount
        } else if f.from == account {
            -amount
        } else {
            continue;
        };
        let minted = f.to == account && f.from == Address::ZERO;
        let key = (f.multi, f.token, f.id);
        match nets.iter_mut().find(|(k, _, _)| *k == key) {
            Some((_, net, m)) => {
                *net = net.saturating_add(signed);
                *m |= minted;
            }
            None => nets.push((key, signed, minted)),
        }
    }
    nets.into_iter()
        .filter(|(_, net, _)| !net.is_zero())
        .filter(|((multi, _, _), net, minted)| *multi || !(*minted && net.is_positive()))
        .map(|((multi, token, id), net, _)| {
            if multi {
                bound_for(BoundKind::Erc1155, token, id, net, tolerance, false)
            } else {
                let mut b = Bound::new(BoundKind::Erc721, token, id);
                if net.is_negative() {
                    b.maxOut = U256::from(1u8);
                } else {
                    b.minIn = U256::from(1u8);
                }
                b
            }
        })
        .collect()
}

/// For each asset the account receives whose value the simulation priced through its
/// issuer (a vault share, a pool's share token, a lending market's claim: the issuer is the
/// asset's own contract, which holds the underlying), the issuer's holdings of each
/// underlying must change as the execution's flows moved them.
fn holding_bounds(report: &SimulationReport, tolerance: Bps) -> Vec<Bound> {
    let received = |token: Address| {
        report
            .balance_changes
            .iter()
            .any(|c| c.token == token && c.delta.is_positive())
    };
    let mut out = Vec::new();
    for fact in report.prices.iter().filter(|f| {
        matches!(
            f.source,
            PriceSource::Vault | PriceSource::PoolShare | PriceSource::Claim | PriceSource::Rate
        ) && received(f.token)
    }) {
        let issuer = fact.token;
        for underlying in &fact.worth {
            let net = net_flow(&report.token_flows, underlying.token, issuer);
            if net.is_zero() {
                continue;
            }
            let holder = U256::from_be_slice(issuer.as_slice());
            out.push(bound_for(
                BoundKind::Holding,
                underlying.token,
                holder,
                net,
                tolerance,
                false,
            ));
        }
    }
    out
}

/// Sorted, one bound per quantity (a later one for the same quantity is dropped), held
/// assets sorted and distinct and none of them bounded.
fn normalise(mut b: Bounds) -> Bounds {
    b.bounds.sort_by_key(Bound::key);
    b.bounds.dedup_by_key(|x| x.key());
    b.held.sort();
    b.held.dedup();
    let bounded: Vec<Address> = b
        .bounds
        .iter()
        .filter(|x| x.kind == BoundKind::Balance as u8)
        .map(|x| x.token)
        .collect();
    b.held.retain(|t| !bounded.contains(t));
    b
}

/// Bounds on the account's balances for net `changes` given directly (what a person confirmed
/// in a preview, say), with the rules of [`bounds_from_report`] for moved balances.
pub fn bounds_from_changes(changes: &[BalanceChange], tolerance_bps: Bps) -> Vec<Bound> {
    let mut out: Vec<Bound> = changes
        .iter()
        .filter(|c| !c.delta.is_zero())
        .map(|c| {
            bound_for(
                BoundKind::Balance,
                c.token,
                U256::ZERO,
                c.delta,
                tolerance_bps,
                false,
            )
        })
        .collect();
    out.sort_by_key(Bound::key);
    out
}

/// The tighter of two sets of bounds, quantity by quantity: the smaller ceiling on what
/// leaves, the larger floor on what arrives, the smaller cap on what arrives; a quantity
/// bounded in one set only keeps that bound, and a held asset that `b` bounds is bounded
/// instead. What both allow, so a PDR signed with it honours both (the policy's tolerance
/// around the fresh simulation and a person's around what they confirmed).
pub fn tightest(a: &Bounds, b: &[Bound]) -> Bounds {
    let mut out = a.bounds.clone();
    for bound in b {
        match out.iter_mut().find(|o| o.key() == bound.key()) {
            Some(o) => {
                o.maxOut = o.maxOut.min(bound.maxOut);
                o.minIn = o.minIn.max(bound.minIn);
                o.maxIn = o.maxIn.min(bound.maxIn);
            }
            // A held balance may not fall at all: that stays the tighter side.
            None if bound.kind == BoundKind::Balance as u8 && a.held.contains(&bound.token) => {
                out.push(Bound {
                    maxOut: U256::ZERO,
                    ..bound.clone()
                });
            }
            None => out.push(bound.clone()),
        }
    }
    normalise(Bounds {
        bounds: out,
        held: a.held.clone(),
        post_conditions: a.post_conditions,
    })
}

/// `token`'s net flow into `holder` in `flows` (what it received less what it sent).
fn net_flow(flows: &[TokenFlow], token: Address, holder: Address) -> I256 {
    let (mut inflow, mut outflow) = (U256::ZERO, U256::ZERO);
    for f in flows.iter().filter(|f| f.token == token && f.from != f.to) {
        if f.to == holder {
            inflow = inflow.saturating_add(f.amount);
        }
        if f.from == holder {
            outflow = outflow.saturating_add(f.amount);
        }
    }
    I256::try_from(inflow).unwrap_or(I256::MAX) - I256::try_from(outflow).unwrap_or(I256::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pace_types::{PriceFact, TokenAmount, UngrantedAsset, protocols::DebtToken};

    const ACCOUNT: Address = Address::repeat_byte(0xac);

    fn token(t: u8) -> Address {
        Address::repeat_byte(t)
    }

    fn report(changes: &[(u8, i64)]) -> SimulationReport {
        let mut r: SimulationReport = serde_json::from_str(
            r#"{"intent_hash":"0x0000000000000000000000000000000000000000000000000000000000000000",
                "block_number":1,"timestamp":1,"success":true,"gas_used":0}"#,
        )
        .expect("minimal report parses");
        r.balance_changes = changes
            .iter()
            .map(|&(t, d)| BalanceChange {
                token: if t == 0 { ETH } else { token(t) },
                delta: I256::try_from(d).unwrap(),
            })
            .collect();
        r
    }

    fn find(b: &Bounds, kind: BoundKind, t: Address) -> &Bound {
        b.bounds
            .iter()
            .find(|x| x.kind == kind as u8 && x.token == t)
            .unwrap_or_else(|| panic!("no {kind:?} bound on {t}: {b:?}"))
    }

    #[test]
    fn outflows_get_a_ceiling_and_inflows_a_floor() {
        let b = bounds_from_report(&report(&[(2, 1_000), (1, -10_000), (3, 0)]), ACCOUNT, 50);
        assert_eq!(b.bounds.len(), 2);
        let out = find(&b, BoundKind::Balance, token(1));
        assert_eq!(
            (out.maxOut, out.minIn, out.maxIn),
            (U256::from(10_050), U256::ZERO, U256::MAX)
        );
        let inflow = find(&b, BoundKind::Balance, token(2));
        assert_eq!(
            (inflow.maxOut, inflow.minIn, inflow.maxIn),
            (U256::ZERO, U256::from(995), U256::MAX)
        );
        // Ether did not move: held.
        assert_eq!(b.held, vec![ETH]);
    }

    #[test]
    fn a_token_naming_an_underlying_may_neither_fall_nor_rise_unseen() {
        // Token 6 read and unmoved, token 7 arriving 1,000: both name an underlying.
        let mut r = report(&[(7, 1_000)]);
        r.balances_read = vec![
            TokenAmount {
                token: token(6),
                amount: U256::from(50_000),
            },
            TokenAmount {
                token: token(7),
                amount: U256::ZERO,
            },
        ];
        r.debt_like = vec![token(6), token(7)];
        let b = bounds_from_report(&r, ACCOUNT, 100);
        assert!(!b.held.contains(&token(6)));
        let unmoved = find(&b, BoundKind::Balance, token(6));
        assert_eq!(
            (unmoved.maxOut, unmoved.minIn, unmoved.maxIn),
            (U256::ZERO, U256::ZERO, U256::from(6))
        );
        let arriving = find(&b, BoundKind::Balance, token(7));
        assert_eq!(
            (arriving.minIn, arriving.maxIn),
            (U256::from(990), U256::from(1_010))
        );
    }

    #[test]
    fn one_unit_arriving_needs_one_unit() {
        let b = bounds_from_report(&report(&[(2, 1)]), ACCOUNT, 50);
        assert_eq!(find(&b, BoundKind::Balance, token(2)).minIn, U256::from(1));
    }

    #[test]
    fn what_was_read_and_not_moved_is_held_and_debt_is_capped() {
        let mut r = report(&[(1, -5), (4, 300)]);
        r.balances_read = vec![
            TokenAmount {
                token: token(1),
                amount: U256::from(9),
            },
            TokenAmount {
                token: token(2),
                amount: U256::from(0),
            },
            TokenAmount {
                token: token(4),
                amount: U256::from(0),
            },
            TokenAmount {
                token: token(5),
                amount: U256::from(1_000_000),
            },
        ];
        r.debt_tokens = vec![
            DebtToken {
                token: token(4),
                underlying: token(9),
                market: token(8),
            },
            DebtToken {
                token: token(5),
                underlying: token(9),
                market: token(8),
            },
        ];
        let b = bounds_from_report(&r, ACCOUNT, 100);
        // Token 2 read, not moved: held; ether too. Token 1 moved: bounded, not held.
        assert_eq!(b.held, vec![ETH, token(2)]);
        // Debt taken on is capped, not required.
        let borrowed = find(&b, BoundKind::Balance, token(4));
        assert_eq!(
            (borrowed.minIn, borrowed.maxIn),
            (U256::ZERO, U256::from(303))
        );
        // Debt not taken on may accrue 1 bps of what is owed, and be repaid.
        let owed = find(&b, BoundKind::Balance, token(5));
        assert_eq!((owed.maxIn, owed.maxOut), (U256::from(101), U256::MAX));
    }

    #[test]
    fn what_no_grant_reaches_is_left_unread_on_the_filter_bits() {
        let mut r = report(&[(1, -5)]);
        let read = |t: u8| TokenAmount {
            token: token(t),
            amount: U256::from(7),
        };
        r.balances_read = vec![read(1), read(2), read(3), read(5)];
        r.debt_tokens = vec![DebtToken {
            token: token(5),
            underlying: token(9),
            market: token(8),
        }];
        r.grant_filter = Some(0);
        r.ungranted = vec![
            UngrantedAsset {
                token: token(2),
                bits: 0b0100,
            },
            // Moved or debt: never left unread, whatever the simulator says.
            UngrantedAsset {
                token: token(1),
                bits: 0b1000,
            },
            UngrantedAsset {
                token: token(5),
                bits: 0b1_0000,
            },
        ];
        let b = bounds_from_report(&r, ACCOUNT, 100);
        // No call sends ether: an account that keeps a filter cannot lose any.
        assert_eq!(b.held, vec![token(3)]);
        let unread = find(&b, BoundKind::Ungranted, Address::ZERO);
        assert_eq!(unread.id, U256::from(0b0100 | grant_bit(token(2))));
        assert!(b.bounds.iter().any(|x| x.token == token(5)));
        // A report that calls a touched token ungranted is not believed.
        let mut touched = r.clone();
        touched.touched_contracts = vec![token(2)];
        assert!(
            bounds_from_report(&touched, ACCOUNT, 100)
                .held
                .contains(&token(2))
        );
        // Nothing left unread: no bound on the filter. A call sends ether (and gets it back):
        // ether is held.
        r.ungranted.clear();
        r.token_flows = vec![TokenFlow {
            token: ETH,
            from: ACCOUNT,
            to: token(7),
            amount: U256::from(1),
        }];
        let all = bounds_from_report(&r, ACCOUNT, 100);
        assert_eq!(all.held, vec![ETH, token(2), token(3)]);
        assert!(
            all.bounds
                .iter()
                .all(|x| x.kind != BoundKind::Ungranted as u8)
        );
    }

    #[test]
    fn a_right_granted_over_a_clear_bit_is_recorded() {
        let mut r = report(&[]);
        r.approvals = vec![pace_types::ApprovalFact {
            token: token(2),
            owner: ACCOUNT,
            spender: token(7),
            amount: U256::from(1),
        }];
        // The filter unknown (an account that keeps none, and would refuse the kind): nothing.
        assert!(bounds_from_report(&r, ACCOUNT, 0).bounds.is_empty());
        r.grant_filter = Some(0);
        let b = bounds_from_report(&r, ACCOUNT, 0);
        assert_eq!(b.bounds, vec![Bound::granted(token(2))]);
        // Its bit already set, or no filter kept (all bits set): nothing to record.
        r.grant_filter = Some(grant_bit(token(2)));
        assert!(bounds_from_report(&r, ACCOUNT, 0).bounds.is_empty());
        r.grant_filter = Some(u16::MAX);
        assert!(bounds_from_report(&r, ACCOUNT, 0).bounds.is_empty());
    }

    #[test]
    fn nft_ids_are_bounded_by_id() {
        let mut r = report(&[]);
        let flow = |t: u8, from: Address, to: Address, id: u64, amount: u64, multi: bool| NftFlow {
            token: token(t),
            from,
            to,
            id: U256::from(id),
            amount: U256::from(amount),
            multi,
        };
        let other = token(0xee);
        r.nft_flows = vec![
            flow(6, other, ACCOUNT, 7, 1, false),
            flow(6, ACCOUNT, other, 8, 1, false),
            flow(7, other, ACCOUNT, 9, 5, true),
            flow(7, ACCOUNT, other, 9, 2, true),
            // Neither end is the account: nothing to bound.
            flow(6, other, token(0xef), 10, 1, false),
            // Minted to the account: its count holds it, not its id.
            flow(6, Address::ZERO, ACCOUNT, 11, 1, false),
        ];
        let b = bounds_from_report(&r, ACCOUNT, 0);
        let by_id = |id: u64| {
            b.bounds
                .iter()
                .find(|x| x.id == U256::from(id))
                .unwrap_or_else(|| panic!("no bound on id {id}"))
        };
        assert_eq!(
            (by_id(7).kind, by_id(7).minIn),
            (BoundKind::Erc721 as u8, U256::from(1))
        );
        assert_eq!(
            (by_id(8).kind, by_id(8).maxOut),
            (BoundKind::Erc721 as u8, U256::from(1))
        );
        assert_eq!(
            (by_id(9).kind, by_id(9).minIn),
            (BoundKind::Erc1155 as u8, U256::from(3))
        );
        assert_eq!(b.bounds.len(), 3);
        assert!(b.bounds.iter().all(|x| x.id != U256::from(11)));
    }

    #[test]
    fn a_held_collections_read_ids_are_held_by_id() {
        // The account holds collection 6 (read, unmoved); the simulation approved its item 3
        // and read item 4 as a position; item 5 of collection 6 moved out (bounded as moved).
        let mut r = report(&[]);
        let collection = token(6);
        r.balances_read = vec![TokenAmount {
            token: collection,
            amount: U256::from(3u8),
        }];
        r.item_approvals = vec![pace_types::ItemApproval {
            token: collection,
            spender: token(0x55),
            id: U256::from(3u8),
        }];
        r.protocols.v3_positions = vec![pace_types::V3Position {
            manager: collection,
            id: U256::from(4u8),
            pool: token(0x70),
            token0: token(0x71),
            token1: token(0x72),
            tick_lower: -1,
            tick_upper: 1,
            sqrt_lower_x96: U256::from(1u8),
            sqrt_upper_x96: U256::from(2u8),
            before: None,
            after: None,
        }];
        r.nft_flows = vec![NftFlow {
            token: collection,
            from: ACCOUNT,
            to: token(0xee),
            id: U256::from(5u8),
            amount: U256::from(1u8),
            multi: false,
        }];
        let b = bounds_from_report(&r, ACCOUNT, 0);
        let item = |id: u8| {
            b.bounds
                .iter()
                .find(|x| x.kind == BoundKind::Erc721 as u8 && x.id == U256::from(id))
                .unwrap_or_else(|| panic!("no bound on item {id}: {b:?}"))
        };
        // Held: may not leave.
        assert_eq!((item(3).maxOut, item(4).maxOut), (U256::ZERO, U256::ZERO));
        // Moved: may leave, as simulated.
        assert_eq!(item(5).maxOut, U256::from(1u8));
        assert!(b.held.contains(&collection), "the count is held too");
        // A collection that is not held gets no id bound from the reads.
        r.balances_read.clear();
        let b = bounds_from_report(&r, ACCOUNT, 0);
        assert!(b.bounds.iter().all(|x| x.id != U256::from(3u8)));
    }

    #[test]
    fn an_issuer_keeps_what_it_was_given_for_the_shares() {
        let (vault, dai) = (token(0x10), token(0x11));
        let mut r = report(&[(0x10, 990), (0x11, -1_000)]);
        r.prices = vec![PriceFact {
            token: vault,
            source: PriceSource::Vault,
            via: vault,
            amount: U256::from(1),
            worth: vec![TokenAmount {
                token: dai,
                amount: U256::from(1),
            }],
        }];
        r.token_flows = vec![TokenFlow {
            token: dai,
            from: ACCOUNT,
            to: vault,
            amount: U256::from(1_000),
        }];
        let b = bounds_from_report(&r, ACCOUNT, 50);
        let holding = find(&b, BoundKind::Holding, dai);
        assert_eq!(holding.id, U256::from_be_slice(vault.as_slice()));
        assert_eq!(holding.minIn, U256::from(995));
    }

    #[test]
    fn the_tightest_bounds_are_what_both_sets_allow() {
        let fresh = bounds_from_report(&report(&[(1, -10_000), (2, 1_000)]), ACCOUNT, 100);
        let confirmed = bounds_from_changes(
            &report(&[(1, -9_990), (2, 1_002), (4, -5)]).balance_changes,
            50,
        );
        let both = tightest(&fresh, &confirmed);
        let by = |t: u8| find(&both, BoundKind::Balance, token(t)).clone();
        // Out: min(10_100, 10_040); in: max(990, 996); token 4 only in the second set.
        assert_eq!(by(1).maxOut, U256::from(10_040));
        assert_eq!(by(2).minIn, U256::from(996));
        assert_eq!((by(4).maxOut, by(4).minIn), (U256::from(6), U256::ZERO));
        assert_eq!(both.bounds.len(), 3);
        assert!(both.bounds.windows(2).all(|w| w[0].key() < w[1].key()));
        assert_eq!(both.held, vec![ETH]);
        // What one side holds (may not fall) stays held against a looser bound of the other.
        let ether = tightest(
            &fresh,
            &bounds_from_changes(&report(&[(0, -5)]).balance_changes, 0),
        );
        let bound = find(&ether, BoundKind::Balance, ETH);
        assert_eq!(bound.maxOut, U256::ZERO);
        assert!(ether.held.is_empty());
    }

    #[test]
    fn zero_tolerance_is_exact_and_tolerance_is_capped() {
        let b = bounds_from_report(&report(&[(1, -7), (2, 9)]), ACCOUNT, 0);
        assert_eq!(
            (
                find(&b, BoundKind::Balance, token(1)).maxOut,
                find(&b, BoundKind::Balance, token(2)).minIn
            ),
            (U256::from(7), U256::from(9))
        );
        // A 100 % tolerance still asks for one unit of what arrives.
        let b = bounds_from_report(&report(&[(2, 9)]), ACCOUNT, 60_000);
        assert_eq!(find(&b, BoundKind::Balance, token(2)).minIn, U256::from(1));
    }
}
