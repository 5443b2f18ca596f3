//! An inflow nobody paid for cannot hide a loss.
//!
//! Every movement of the execution is an edge between counterparties, worth its value at the
//! trusted pre-execution prices (an asset no trusted source prices carries nothing): ERC-20,
//! ether and NFT flows (a mint comes from the token contract, a burn goes to it, as does a fall
//! of the account's balance that no log shows; a debt token's movement runs the other way,
//! being a liability); the contract that made a mint happen can
//! pass what reached it on to the token it minted, and the contract that made a burn happen
//! received what the burn took from the token (a pool's shares burned on an exit its Vault
//! pays out); and the exchanges the adapters declare: a
//! lending position or Compound-style debt that moved in the account's favour is a payment from
//! its market to the account, one that moved against it a payment from the account to the
//! market; a V3 position's change likewise with its pool. The addresses of an Aave market are
//! one counterparty.
//!
//! The account (with its payees, whose receipts value conservation counts as the account's) is
//! both the source and the sink. The most value that can flow from the account back to it
//! through these edges, a maximum flow, is what the account's inflows were paid for, directly
//! or through intermediaries; the rest of its inflows were not paid for by anything that left
//! it. Edges between two others carry their value plus the policy's loss bound, so trusted
//! prices that disagree by a little along a multi-hop route do not cut it.
//!
//! The maximum flow is computed by shortest augmenting paths, at most [`MAX_AUGMENTATIONS`] of
//! them, over at most [`MAX_EDGES`] edges (the largest kept): stopping early, or dropping
//! edges, only ever finds less paid, never more.

use super::{Valuer, trusted::Trusted, v3::PositionDelta};
use crate::Few;
use alloy_primitives::{Address, I256, U256};
use pace_types::{BPS_SCALE, ETH, Policy, SimulationReport};
use std::collections::VecDeque;

/// The most edges the graph keeps (the largest, after merging those between the same two
/// counterparties).
const MAX_EDGES: usize = 1_024;
/// The most augmenting paths searched.
const MAX_AUGMENTATIONS: usize = 512;
/// Node index of the account as a payer.
const SOURCE: usize = 0;
/// Node index of the account (and its payees) as a receiver.
const SINK: usize = 1;

/// What the account's inflows were paid for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Paid {
    /// The value of every inflow to the account and its payees from others (wei).
    pub(crate) inflow: U256,
    /// The part of it paid for by value that left the account (wei).
    pub(crate) credited: U256,
    /// The counterparties whose payments were not all paid for, with the unpaid value, largest
    /// first.
    pub(crate) unpaid: Vec<(Address, U256)>,
}

impl Paid {
    /// The value of the inflows nobody paid for.
    pub(crate) fn uncredited(&self) -> U256 {
        self.inflow.saturating_sub(self.credited)
    }
}

/// A directed graph of counterparties with merged edge capacities.
struct Graph {
    nodes: Few<Address, 4>,
    /// `(from, to, capacity)`, merged per pair.
    edges: Few<(usize, usize, U256), 4>,
}

impl Graph {
    fn node(&mut self, a: Address) -> usize {
        match self.nodes.iter().position(|n| *n == a) {
            Some(i) => i + 2,
            None => {
                self.nodes.push(a);
                self.nodes.len() + 1
            }
        }
    }

    fn add(&mut self, from: usize, to: usize, capacity: U256) {
        if from == to || capacity.is_zero() || from == SINK || to == SOURCE {
            return;
        }
        match self.edges.iter_mut().find(|e| e.0 == from && e.1 == to) {
            Some(e) => e.2 = e.2.saturating_add(capacity),
            None => self.edges.push((from, to, capacity)),
        }
    }
}

/// The residual network of a [`Graph`] and a maximum flow on it.
struct Flow {
    /// Per edge index `2k` the forward residual of graph edge `k`, `2k + 1` its reverse.
    residual: Vec<U256>,
    ends: Vec<(usize, usize)>,
    adjacency: Vec<Vec<usize>>,
}

impl Flow {
    fn new(graph: &Graph) -> Self {
        let n = graph.nodes.len() + 2;
        let mut flow = Self {
            residual: Vec::with_capacity(graph.edges.len() * 2),
            ends: Vec::with_capacity(graph.edges.len() * 2),
            adjacency: vec![Vec::new(); n],
        };
        for &(from, to, capacity) in &graph.edges {
            flow.adjacency[from].push(flow.residual.len());
            flow.residual.push(capacity);
            flow.ends.push((from, to));
            flow.adjacency[to].push(flow.residual.len());
            flow.residual.push(U256::ZERO);
            flow.ends.push((to, from));
        }
        flow
    }

    /// Augments along shortest paths from [`SOURCE`] to [`SINK`]; returns the flow found.
    fn run(&mut self) -> U256 {
        let mut total = U256::ZERO;
        // One allocation each for every search.
        let n = self.adjacency.len();
        let mut via: Vec<Option<usize>> = vec![None; n];
        let mut seen = vec![false; n];
        let mut queue = VecDeque::with_capacity(n);
        for _ in 0..MAX_AUGMENTATIONS {
            via.fill(None);
            seen.fill(false);
            queue.clear();
            queue.push_back(SOURCE);
            seen[SOURCE] = true;
            while let Some(u) = queue.pop_front() {
                if u == SINK {
                    break;
                }
                for &e in &self.adjacency[u] {
                    let v = self.ends[e].1;
                    if !seen[v] && !self.residual[e].is_zero() {
                        seen[v] = true;
                        via[v] = Some(e);
                        queue.push_back(v);
                    }
                }
            }
            if !seen[SINK] {
                break;
            }
            let mut bottleneck = U256::MAX;
            let mut v = SINK;
            while let Some(e) = via[v] {
                bottleneck = bottleneck.min(self.residual[e]);
                v = self.ends[e].0;
            }
            let mut v = SINK;
            while let Some(e) = via[v] {
                self.residual[e] -= bottleneck;
                self.residual[e ^ 1] = self.residual[e ^ 1].saturating_add(bottleneck);
                v = self.ends[e].0;
            }
            total = total.saturating_add(bottleneck);
        }
        total
    }
}

/// What the adapters and the execution say moved, as edges; see the module docs.
pub(crate) struct Inputs<'a> {
    pub(crate) report: &'a SimulationReport,
    pub(crate) policy: &'a Policy,
    pub(crate) account: Address,
    pub(crate) trusted: &'a Trusted<'a>,
    pub(crate) positions: &'a [PositionDelta],
}

/// What the account's inflows in `input` were paid for; see the module docs. `valuer` prices
/// the movements (its problems are not the delta's: a source it refuses just carries nothing).
pub(crate) fn paid(input: &Inputs<'_>, valuer: &Valuer<'_>) -> Paid {
    let Inputs {
        report,
        policy,
        account,
        trusted,
        positions,
    } = *input;
    let ours = |a: &Address| *a == account || policy.allowed_recipients.contains(a);
    let mut graph = Graph {
        nodes: Few::new(),
        edges: Few::new(),
    };
    // The account's side as a payer (ours as a sender is the account only: payees' own
    // movements are theirs) or a receiver; anyone else as their counterparty.
    let from_node = |g: &mut Graph, a: Address| {
        if a == account {
            Some(SOURCE)
        } else if ours(&a) {
            None
        } else {
            Some(g.node(trusted.party(a)))
        }
    };
    let to_node = |g: &mut Graph, a: Address| {
        if ours(&a) {
            SINK
        } else {
            g.node(trusted.party(a))
        }
    };
    let slack = U256::from(policy.loss_bound_bps());
    let scale = U256::from(BPS_SCALE);
    // One movement of `amount` of `token` (valued as `priced` of it).
    // The movements summed per (payer, receiver, asset) first, so each is valued once.
    let mut sums: Few<(usize, usize, Address, U256), 4> = Few::new();
    let mut movement =
        |g: &mut Graph, from: Address, to: Address, priced: Address, amount: U256| {
            let (Some(f), t) = (from_node(g, from), to_node(g, to)) else {
                return;
            };
            match sums
                .iter_mut()
                .find(|s| s.0 == f && s.1 == t && s.2 == priced)
            {
                Some(s) => s.3 = s.3.saturating_add(amount),
                None => sums.push((f, t, priced, amount)),
            }
        };
    let moves = report
        .token_flows
        .iter()
        .map(|f| (f.token, f.from, f.to, f.amount))
        .chain(
            report
                .nft_flows
                .iter()
                .filter(|f| !trusted.is_manager(f.token))
                .map(|f| (f.token, f.from, f.to, f.amount)),
        );
    for (token, from, to, amount) in moves {
        if from == to || amount.is_zero() || (from == Address::ZERO && to == Address::ZERO) {
            continue;
        }
        // A mint comes from the token, a burn goes to it.
        let from = if from == Address::ZERO { token } else { from };
        let to = if to == Address::ZERO { token } else { to };
        match trusted.debt(token) {
            // A liability moves value the other way: minted to the account, it is the
            // account's promise to the market.
            Some(debt) => movement(&mut graph, to, from, debt.underlying, amount),
            None => movement(&mut graph, from, to, token, amount),
        }
    }
    // A balance that fell by more than its logged movements (a stake or a share its issuer
    // burned without a log) went back to its issuer: a claim surrendered to the token.
    for c in report
        .balance_changes
        .iter()
        .filter(|c| c.delta.is_negative() && c.token != ETH && trusted.debt(c.token).is_none())
    {
        let logged = report
            .token_flows
            .iter()
            .filter(|f| f.token == c.token && f.from != f.to)
            .fold(I256::ZERO, |net, f| {
                let amount = I256::try_from(f.amount).unwrap_or(I256::MAX);
                if f.from == account {
                    net.saturating_sub(amount)
                } else if f.to == account {
                    net.saturating_add(amount)
                } else {
                    net
                }
            });
        let silent = logged.saturating_sub(c.delta);
        if silent.is_positive() {
            movement(&mut graph, account, c.token, c.token, silent.unsigned_abs());
        }
    }
    for (f, t, priced, amount) in sums {
        let value = valuer.value(priced, amount, false).unwrap_or_default();
        let capacity = if f == SOURCE || t == SINK {
            value
        } else {
            value.saturating_add(value.saturating_mul(slack) / scale)
        };
        graph.add(f, t, capacity);
    }
    // Who made a mint happen can pass on what reached it to the token that minted.
    for m in &report.minters {
        if m.by != account && !ours(&m.by) && m.by != Address::ZERO {
            let (by, token) = (
                graph.node(trusted.party(m.by)),
                graph.node(trusted.party(m.token)),
            );
            graph.add(by, token, U256::MAX);
        }
    }
    // Who made a burn happen received what the burn took from the token that burned.
    for b in &report.burners {
        // Only what the account (or a payee) burned: a burn of another holder's tokens moved
        // nothing of the account's.
        if (b.from == account || ours(&b.from))
            && b.by != account
            && !ours(&b.by)
            && b.by != Address::ZERO
        {
            let (token, by) = (
                graph.node(trusted.party(b.token)),
                graph.node(trusted.party(b.by)),
            );
            graph.add(token, by, U256::MAX);
        }
    }
    // Declared exchanges: a position's change in the account's favour is paid by its market.
    let exchange = |g: &mut Graph, market: Address, token: Address, delta: I256| {
        let value = valuer
            .value(token, delta.unsigned_abs(), false)
            .unwrap_or_default();
        let m = g.node(trusted.party(market));
        if delta.is_positive() {
            g.add(m, SINK, value);
        } else {
            g.add(SOURCE, m, value);
        }
    };
    for p in &report.positions {
        exchange(&mut graph, p.market, p.token, p.delta);
    }
    for d in &trusted.lending_debts {
        let s = |v: U256| I256::try_from(v).unwrap_or(I256::MAX);
        // Debt down is in the account's favour.
        exchange(
            &mut graph,
            d.market,
            d.token,
            s(d.before).saturating_sub(s(d.after)),
        );
    }
    for p in positions {
        for (token, delta) in p.legs {
            exchange(&mut graph, p.pool, token, delta);
        }
    }
    maximum(graph)
}

/// The maximum flow of `graph` from the account back to it, and what it leaves unpaid.
fn maximum(mut graph: Graph) -> Paid {
    if graph.edges.len() > MAX_EDGES {
        graph.edges.sort_by_key(|e| std::cmp::Reverse(e.2));
        graph.edges.truncate(MAX_EDGES);
    }
    let (into_sink, inflow) = into_sink(&graph);
    if paid_directly(&graph, &into_sink) {
        return Paid {
            inflow,
            credited: inflow,
            unpaid: Vec::new(),
        };
    }
    searched(&graph, into_sink, inflow)
}

/// The edges into the account (index, capacity) and their sum: every inflow.
fn into_sink(graph: &Graph) -> (Few<(usize, U256), 2>, U256) {
    let edges: Few<(usize, U256), 2> = graph
        .edges
        .iter()
        .enumerate()
        .filter(|(_, e)| e.1 == SINK)
        .map(|(i, e)| (i, e.2))
        .collect();
    let inflow = edges
        .iter()
        .fold(U256::ZERO, |sum, (_, c)| sum.saturating_add(*c));
    (edges, inflow)
}

/// Whether every payer into the account was paid directly by the account at least what it
/// paid (or the account paid its payees itself). Those two-edge paths are disjoint and fill
/// every edge into the account, the most any flow can; the search would find exactly that, one
/// augmentation per such edge, within its limit.
fn paid_directly(graph: &Graph, into_sink: &[(usize, U256)]) -> bool {
    into_sink.len() <= MAX_AUGMENTATIONS
        && into_sink.iter().all(|&(i, capacity)| {
            let from = graph.edges[i].0;
            from == SOURCE
                || graph
                    .edges
                    .iter()
                    .any(|e| e.0 == SOURCE && e.1 == from && e.2 >= capacity)
        })
}

/// The maximum flow searched on `graph`, whose edges into the account are `into_sink`.
fn searched(graph: &Graph, into_sink: Few<(usize, U256), 2>, inflow: U256) -> Paid {
    let mut flow = Flow::new(graph);
    let credited = flow.run();
    let mut unpaid: Vec<(Address, U256)> = Vec::new();
    for (i, capacity) in into_sink {
        let left = flow.residual[2 * i];
        let from = graph.edges[i].0;
        if !left.is_zero() && from >= 2 {
            unpaid.push((graph.nodes[from - 2], left.min(capacity)));
        }
    }
    unpaid.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Paid {
        inflow,
        credited: credited.min(inflow),
        unpaid,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(edges: &[(usize, usize, u64)], nodes: usize) -> Graph {
        let mut g = Graph {
            nodes: (0..nodes)
                .map(|i| Address::with_last_byte(i as u8 + 1))
                .collect(),
            edges: Few::new(),
        };
        for &(f, t, c) in edges {
            g.add(f, t, U256::from(c));
        }
        g
    }

    #[test]
    fn the_flow_is_bounded_by_what_left_and_what_reached_each_payer() {
        // Account -> pool (2) 10, pool -> account 9: all paid.
        let p = maximum(graph(&[(SOURCE, 2, 10), (2, SINK, 9)], 1));
        assert_eq!((p.inflow, p.credited), (U256::from(9u8), U256::from(9u8)));
        // A stranger (3) pays 5 that nothing reached: unpaid, and named.
        let p = maximum(graph(&[(SOURCE, 2, 10), (2, SINK, 9), (3, SINK, 5)], 2));
        assert_eq!(p.uncredited(), U256::from(5u8));
        assert_eq!(p.unpaid, [(Address::with_last_byte(2), U256::from(5u8))]);
        // Through an intermediary: account -> router (2) -> pool (3) -> account.
        let p = maximum(graph(&[(SOURCE, 2, 10), (2, 3, 10), (3, SINK, 10)], 2));
        assert_eq!(p.uncredited(), U256::ZERO);
        // Two payers sharing one intermediary cannot both be paid in full by it.
        let shared = [
            (SOURCE, 2, 10),
            (2, 3, 10),
            (2, 4, 10),
            (3, SINK, 10),
            (4, SINK, 10),
        ];
        let p = maximum(graph(&shared, 3));
        assert_eq!((p.inflow, p.credited), (U256::from(20u8), U256::from(10u8)));
    }

    use pace_types::{Burner, DebtToken, Minter, TablePrice, TokenFlow};

    const ACCOUNT: Address = Address::repeat_byte(0xaa);

    fn at(b: u8) -> Address {
        Address::repeat_byte(b)
    }

    fn flow(token: u8, from: Address, to: Address, amount: u64) -> TokenFlow {
        TokenFlow {
            token: at(token),
            from,
            to,
            amount: U256::from(amount),
        }
    }

    /// What `flows` (and `more`) leave unpaid, tokens 1 to 3 at 1 wei each, market 9 trusted.
    fn unpaid(flows: Vec<TokenFlow>, more: impl FnOnce(&mut SimulationReport)) -> U256 {
        let mut report: SimulationReport = serde_json::from_str(
            r#"{"intent_hash":"0x0000000000000000000000000000000000000000000000000000000000000000",
                "block_number":1,"timestamp":1,"success":true}"#,
        )
        .unwrap();
        report.token_flows = flows;
        more(&mut report);
        let policy = Policy {
            allowed_targets: vec![at(9)],
            prices: (1..=3)
                .map(|t| TablePrice {
                    token: at(t),
                    amount: U256::from(1u8),
                    value: U256::from(1u8),
                })
                .collect(),
            ..Policy::default()
        };
        let trusted = Trusted::of(&report, &policy);
        let input = Inputs {
            report: &report,
            policy: &policy,
            account: ACCOUNT,
            trusted: &trusted,
            positions: &[],
        };
        paid(&input, &Valuer::new(&policy, &report.prices)).uncredited()
    }

    #[test]
    fn movements_become_edges_between_counterparties() {
        // A swap through a router: paid.
        let swap = vec![
            flow(1, ACCOUNT, at(5), 100),
            flow(1, at(5), at(6), 100),
            flow(2, at(6), ACCOUNT, 99),
        ];
        assert_eq!(unpaid(swap, |_| {}), U256::ZERO);
        // A mint from a token the account paid (wrapping): paid; a mint nobody paid for: not.
        let wrap = vec![
            flow(1, ACCOUNT, at(2), 10),
            flow(2, Address::ZERO, ACCOUNT, 10),
        ];
        assert_eq!(unpaid(wrap, |_| {}), U256::ZERO);
        let free = vec![flow(2, Address::ZERO, ACCOUNT, 10)];
        assert_eq!(unpaid(free, |_| {}), U256::from(10u8));
        // Minted by a contract the account paid: paid through the minter.
        let shop = vec![
            flow(1, ACCOUNT, at(7), 10),
            flow(2, Address::ZERO, ACCOUNT, 10),
        ];
        let minted = |r: &mut SimulationReport| {
            r.minters.push(Minter {
                token: at(2),
                to: ACCOUNT,
                by: at(7),
            })
        };
        assert_eq!(unpaid(shop.clone(), minted), U256::ZERO);
        assert_eq!(unpaid(shop, |_| {}), U256::from(10u8));
        // Shares burned by the contract that pays out for them (a pool's exit its Vault 7
        // pays): paid through the burner; the same payment beside a burn nobody asked 7 for,
        // or beside no burn at all: not.
        let exit = vec![
            flow(2, ACCOUNT, Address::ZERO, 10),
            flow(1, at(7), ACCOUNT, 10),
        ];
        let burned = |by: u8| {
            move |r: &mut SimulationReport| {
                r.burners.push(Burner {
                    token: at(2),
                    from: ACCOUNT,
                    by: at(by),
                })
            }
        };
        assert_eq!(unpaid(exit.clone(), burned(7)), U256::ZERO);
        assert_eq!(unpaid(exit.clone(), burned(8)), U256::from(10u8));
        assert_eq!(unpaid(exit, |_| {}), U256::from(10u8));
        let gift = vec![flow(1, at(7), ACCOUNT, 10)];
        assert_eq!(unpaid(gift, burned(7)), U256::from(10u8));
        // Another holder's shares burned: nothing of the account's reached the burner.
        let theirs = vec![
            flow(2, ACCOUNT, at(9), 10),
            flow(2, at(9), Address::ZERO, 10),
            flow(1, at(7), ACCOUNT, 10),
        ];
        let burned_by_them = |r: &mut SimulationReport| {
            r.burners.push(Burner {
                token: at(2),
                from: at(9),
                by: at(7),
            })
        };
        assert_eq!(unpaid(theirs, burned_by_them), U256::from(10u8));
    }

    #[test]
    fn a_trusted_debt_runs_the_other_way_and_pays_its_market() {
        // Borrow 10 of token 1 from market 9: its debt token 3 is minted to the account.
        let borrow = vec![
            flow(1, at(9), ACCOUNT, 10),
            flow(3, Address::ZERO, ACCOUNT, 10),
        ];
        let declared = |market: u8| {
            move |r: &mut SimulationReport| {
                r.debt_tokens.push(DebtToken {
                    token: at(3),
                    underlying: at(1),
                    market: at(market),
                });
                r.protocols.groups.push(pace_types::CounterpartyGroup {
                    market: at(market),
                    members: vec![at(market), at(3)],
                });
            }
        };
        assert_eq!(unpaid(borrow.clone(), declared(9)), U256::ZERO);
        // Declared by an untrusted market: the loan and the debt token are free inflows.
        assert_eq!(unpaid(borrow, declared(8)), U256::from(20u8));
    }

    #[test]
    fn edges_merge_and_self_loops_vanish() {
        let mut g = graph(
            &[(SOURCE, 2, 3), (SOURCE, 2, 4), (2, 2, 9), (SINK, 2, 9)],
            1,
        );
        g.add(2, SOURCE, U256::from(1u8));
        assert_eq!(g.edges[..], [(SOURCE, 2, U256::from(7u8))]);
    }

    /// Where the direct-payment shortcut answers, the search answers the same; and on graphs
    /// where it does not apply, `maximum` is the search. Random graphs of up to six parties.
    #[test]
    fn the_direct_payment_shortcut_is_the_search_where_it_applies() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let (mut applied, mut searched_only) = (0, 0);
        for _ in 0..4_000 {
            let nodes = 1 + next(6) as usize;
            let edges: Vec<(usize, usize, u64)> = (0..1 + next(10))
                .map(|_| {
                    let from = next(nodes as u64 + 2) as usize;
                    let to = next(nodes as u64 + 2) as usize;
                    (from, to, 1 + next(20))
                })
                .collect();
            let g = graph(&edges, nodes);
            let (edges_in, inflow) = into_sink(&g);
            let search = searched(&g, edges_in.clone(), inflow);
            if paid_directly(&g, &edges_in) {
                applied += 1;
                assert_eq!(search.credited, inflow, "{edges:?}");
                assert!(search.unpaid.is_empty(), "{edges:?}");
            } else {
                searched_only += 1;
            }
            assert_eq!(maximum(graph(&edges, nodes)), search, "{edges:?}");
        }
        assert!(
            applied > 200 && searched_only > 200,
            "{applied} {searched_only}"
        );
    }
}
