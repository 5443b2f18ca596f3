//! A second PACE account, for scenarios with two tenants of one verifier: another owner's
//! `PaceAccount` trusting the same verifier key as the world's account, holding 10,000 DAI.
//!
//! It is not part of [`World::new`]: a caller adds it with [`World::add_second_account`],
//! after every other step, so nothing the default world holds changes (no address, no balance,
//! no nonce of the world's deployer). Its owner deploys it at its own first nonce, so its
//! address is known before it exists ([`World::second_account`]).

use crate::builder::Step as _;
use crate::{Addresses, Builder, Error, World};
use alloy_primitives::{Address, U256};
use alloy_sol_types::SolConstructor;
use pace_contracts::bindings::{MockERC20, PaceAccount};
use pace_types::units::ether;

/// DAI the second account starts with.
pub const SECOND_ACCOUNT_DAI: u64 = 10_000;

impl World {
    /// The owner of the second account (an externally owned address of its own).
    pub fn second_owner() -> Address {
        Addresses::actor("second-owner")
    }

    /// The address of the second account, whether or not it was added yet.
    pub fn second_account() -> Address {
        Self::second_owner().create(0)
    }

    /// Deploys the second account: [`Self::second_owner`]'s `PaceAccount` with the world's
    /// verifier key, funded with [`SECOND_ACCOUNT_DAI`] DAI. Returns its address. Call it once:
    /// a second call deploys another account at the owner's next nonce.
    pub fn add_second_account(&mut self) -> Result<Address, Error> {
        let owner = Self::second_owner();
        self.evm
            .fund(owner, ether(1_000))
            .map_err(pace_evm::Error::Fork)
            .step("fund the second owner")?;
        let (deadline, dai, verifier) = (self.deadline(), self.addrs.dai, self.addrs.verifier);
        let mut b = Builder::new(&mut self.evm, owner, deadline)?;
        let ctor = PaceAccount::constructorCall {
            owner_: owner,
            verifier_: verifier,
        };
        let account = b.project(
            "PaceAccount",
            &ctor.abi_encode(),
            "deploy the second account",
        )?;
        let mint = MockERC20::mintCall {
            to: account,
            amount: ether(SECOND_ACCOUNT_DAI),
        };
        b.call(owner, dai, U256::ZERO, &mint, "fund the second account")?;
        Ok(account)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The second account lands where [`World::second_account`] says, trusts the world's
    /// verifier, holds its DAI, and leaves the world's own account and addresses as they were.
    #[test]
    fn second_account_is_additive() {
        let verifier = Address::repeat_byte(0x22);
        let plain = World::new(verifier).unwrap();
        let mut world = plain.clone();
        let account = world.add_second_account().unwrap();
        assert_eq!(account, World::second_account());
        assert_eq!(world.addrs, plain.addrs);
        let trusted = world
            .evm
            .view_sol(account, &PaceAccount::verifierCall {})
            .unwrap();
        assert_eq!(trusted, verifier);
        assert_eq!(
            world.balance_of(world.addrs.dai, account),
            ether(SECOND_ACCOUNT_DAI)
        );
        for token in [world.addrs.weth, world.addrs.dai, world.addrs.usdc] {
            let who = world.addrs.account;
            assert_eq!(world.balance_of(token, who), plain.balance_of(token, who));
        }
    }
}
