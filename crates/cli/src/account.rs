//! `--account-kind` and `--entry`: where a PDR goes and how it gets there, as `pace run`,
//! `pace simulate`, `pace verify` and `pace serve` take them (`pace_types::account` defines
//! both; the names are the JSON's).

use clap::builder::{PossibleValuesParser, TypedValueParser};
use pace_types::{AccountKind, Entry};

/// The account a PDR goes to and how it reaches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::Args)]
pub struct AccountArgs {
    /// The kind of account the intent's account is: `pace-account` (a PaceAccount of its own)
    /// or `pace-delegate` (an EOA delegated to PaceDelegate with EIP-7702).
    #[arg(long, default_value = "pace-account", value_parser = kind_parser())]
    pub account_kind: AccountKind,
    /// How the PDR reaches the account: `direct` (the relayer calls the account) or
    /// `entry-point` (the relayer bundles the PDR's user operation through the ERC-4337
    /// EntryPoint v0.8 at 0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108, as its own bundler).
    #[arg(long, default_value = "direct", value_parser = entry_parser())]
    pub entry: Entry,
}

/// Parses `--account-kind`, listing the kinds in `--help`.
pub(crate) fn kind_parser() -> impl TypedValueParser<Value = AccountKind> {
    PossibleValuesParser::new(AccountKind::ALL.map(AccountKind::as_str))
        .map(|name| name.parse().expect("a listed kind parses"))
}

/// Parses `--entry`, listing the entries in `--help`.
fn entry_parser() -> impl TypedValueParser<Value = Entry> {
    PossibleValuesParser::new(Entry::ALL.map(Entry::as_str))
        .map(|name| name.parse().expect("a listed entry parses"))
}
