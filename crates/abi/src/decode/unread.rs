//! What a call holds that the decoder does not read: a Universal Router plan's commands (or its
//! swap legs, when together they are not one trade), a swap router batch's calls, or a Balancer
//! V2 Vault swap that is not one route ([`unread`]). The
//! verifier refuses such a call (`PLAN_NOT_DECODED`) unless the policy names its target, and
//! `pace policy suggest` lists it for review: both read it here.

use alloy_primitives::{Address, U256, hex};

/// The parts of one call the decoder does not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unread {
    /// A Universal Router plan's command bytes.
    Commands(Vec<u8>),
    /// A Universal Router plan's swap legs (command bytes), each read but together not one
    /// trade: the minimums and recipients written in them are not the trade's.
    Legs(Vec<u8>),
    /// A swap router `multicall`'s inner calls, by selector (`[0; 4]` for one shorter than a
    /// selector).
    Calls(Vec<[u8; 4]>),
    /// A Balancer V2 Vault swap, and why it is not read as one route.
    VaultSwap(&'static str),
}

impl Unread {
    /// Each unread part as hex: a command byte, a selector, or the Vault's `swap`.
    pub fn names(&self) -> Vec<String> {
        match self {
            Self::Commands(c) | Self::Legs(c) => c.iter().map(|c| format!("0x{c:02x}")).collect(),
            Self::Calls(s) => s.iter().map(|s| format!("0x{}", hex::encode(s))).collect(),
            Self::VaultSwap(why) => vec![format!("swap ({why})")],
        }
    }

    /// A clause for messages: "the plan's command(s) 0x.. are not read".
    pub fn describe(&self) -> String {
        match self {
            Self::Commands(c) => format!("the plan's command(s) 0x{} are not read", hex::encode(c)),
            Self::Legs(c) => format!(
                "the plan's swap command(s) 0x{} are not read as one trade",
                hex::encode(c)
            ),
            Self::Calls(_) => {
                format!(
                    "the plan's batched call(s) {} are not read",
                    self.names().join(", ")
                )
            }
            Self::VaultSwap(why) => format!("the Vault swap is not read as one route ({why})"),
        }
    }
}

/// What the call `caller` sends with `value` wei and `data` holds that the decoder does not
/// read; `None` when it is read whole or is none of the three shapes.
pub fn unread(caller: Address, value: U256, data: &[u8]) -> Option<Unread> {
    if let Some(commands) = super::universal_router::unread_commands_sent(data, value) {
        if !commands.is_empty() {
            return Some(Unread::Commands(commands));
        }
        return super::universal_router::unread_legs(data, value).map(Unread::Legs);
    }
    if let Some(calls) = super::router_batch::unread_calls(data) {
        return (!calls.is_empty()).then_some(Unread::Calls(calls));
    }
    super::balancer::unread_swap(caller, value, data).map(Unread::VaultSwap)
}
