//! The health factors a decision rests on, as [`FactRead`]s the account can re-read after the
//! calls: an Aave V3 pool's `getUserAccountData(account)` (its sixth word, the health factor in
//! WAD) for every Aave fact, and `healthFactor(account)` (WAD) of every generic market the
//! report reads, the first call target that answers it included. A generic market's
//! `debtOf(account)` too, when it answers: its debt has no token whose balance a bound could
//! hold (an Aave debt token is one).

use alloy_primitives::{Address, U256};
use alloy_sol_types::SolCall;
use pace_abi::{bindings::ILendingPosition, rights::IAaveV3Pool};
use pace_evm::{ForkError, revm::DatabaseRef};
use pace_types::{FactRead, LendingFact, LendingProtocol, ReadKind};

use crate::{error::Result, fork::Viewer};

/// One `kind` read of `market`: `data`, answering `words` words, the fact at `word`.
fn read<B, A>(
    kind: ReadKind,
    market: Address,
    data: Vec<u8>,
    (words, word): (usize, usize),
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<FactRead>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    let at = |w: Option<Vec<U256>>| w.map(|w| w[word]);
    Ok(FactRead {
        kind,
        subject: market,
        target: market,
        before: at(before.words(market, data.clone(), words)?),
        after: at(after.words(market, data.clone(), words)?),
        data: data.into(),
        word: u16::try_from(word).expect("a small word index"),
    })
}

/// The health factor reads of `facts` and of the generic `source` ([`super::health_factors`]'s
/// market; see the module docs), each market once.
pub(crate) fn health_reads<B, A>(
    facts: &[LendingFact],
    source: Option<Address>,
    account: Address,
    before: &mut Viewer<'_, '_, B>,
    after: &mut Viewer<'_, '_, A>,
) -> Result<Vec<FactRead>>
where
    B: DatabaseRef<Error = ForkError>,
    A: DatabaseRef<Error = ForkError>,
{
    let aave = IAaveV3Pool::getUserAccountDataCall { user: account }.abi_encode();
    let generic = ILendingPosition::healthFactorCall { user: account }.abi_encode();
    // Each market, and whether it is a generic one (else an Aave V3 pool).
    let mut markets: Vec<(Address, bool)> = Vec::new();
    for f in facts {
        match f.protocol {
            LendingProtocol::AaveV3 => markets.push((f.market, false)),
            LendingProtocol::Generic => markets.push((f.market, true)),
            // A comptroller answers liquidity and shortfall, not a health factor; a
            // descriptor's model brings its own reads.
            LendingProtocol::Compound | LendingProtocol::Descriptor => {}
        }
    }
    markets.extend(source.map(|source| (source, true)));
    let mut out: Vec<FactRead> = Vec::new();
    for (market, is_generic) in markets {
        if out.iter().any(|r| r.target == market) {
            continue;
        }
        let (data, shape) = if is_generic {
            (generic.clone(), (1, 0))
        } else {
            (aave.clone(), (6, 5))
        };
        out.push(read(
            ReadKind::HealthFactor,
            market,
            data,
            shape,
            before,
            after,
        )?);
        if is_generic {
            let data = ILendingPosition::debtOfCall { user: account }.abi_encode();
            let debt = read(ReadKind::Debt, market, data, (1, 0), before, after)?;
            if debt.before.is_some() || debt.after.is_some() {
                out.push(debt);
            }
        }
    }
    Ok(out)
}
