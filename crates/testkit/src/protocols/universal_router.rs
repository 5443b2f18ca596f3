//! The Universal Router 2.1 from the npm bytecode, with the project's Permit2-compatible
//! [`MockPermit2`] as its `PERMIT2`, over the world's Uniswap V2 factory and the bed's V3
//! factory: the commands it understands, encoded, and the everyday swap through Permit2
//! (approve the token to Permit2, `Permit2.approve` the router, `execute`).
//!
//! `MockPermit2` is not mainnet's Permit2 bytecode (none ships in a registry package); it has
//! Permit2's AllowanceTransfer ABI and semantics (`contracts/mocks/protocols/MockPermit2.sol`).

use super::{
    actions::{approve, call},
    bindings::{MockPermit2, UniversalRouter as Router},
    chain::{Chain, Context as _, Result},
    npm,
    uniswap_v3::UniswapV3,
};
use alloy_primitives::{
    Address, B256, Bytes, U256,
    aliases::{U48, U160},
};
use alloy_sol_types::{Eip712Domain, SolConstructor, SolStruct, SolValue, eip712_domain};
use pace_contracts::MAINNET_PAIR_INIT_CODE_HASH;
use pace_types::Call;
use pace_world::Addresses;

/// Universal Router command bytes (`Commands.sol` of the package), the ones the bed uses.
pub mod commands {
    /// `(address recipient, uint256 amountIn, uint256 amountOutMin, bytes path, bool
    /// payerIsUser)`.
    pub const V3_SWAP_EXACT_IN: u8 = 0x00;
    /// `(address token, address recipient, uint160 amount)`: pull from the caller through
    /// Permit2.
    pub const PERMIT2_TRANSFER_FROM: u8 = 0x02;
    /// `(address token, address recipient, uint256 amountMin)`.
    pub const SWEEP: u8 = 0x04;
    /// `(address recipient, uint256 amountIn, uint256 amountOutMin, address[] path, bool
    /// payerIsUser)`.
    pub const V2_SWAP_EXACT_IN: u8 = 0x08;
    /// `(PermitSingle permit, bytes signature)`: `Permit2.permit` for the caller.
    pub const PERMIT2_PERMIT: u8 = 0x0a;
    /// Set on a command byte: a failure of that command does not revert the whole execution.
    pub const FLAG_ALLOW_REVERT: u8 = 0x80;
}

/// The router's recipient placeholder for "the caller" (`ActionConstants.MSG_SENDER`).
pub const MSG_SENDER: Address = Address::with_last_byte(1);
/// The router's recipient placeholder for "the router itself" (`ActionConstants.ADDRESS_THIS`).
pub const ADDRESS_THIS: Address = Address::with_last_byte(2);

/// The deployment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UniversalRouter {
    /// The UniversalRouter.
    pub router: Address,
    /// The Permit2-compatible contract it pulls tokens through.
    pub permit2: Address,
}

impl UniversalRouter {
    /// Deploys [`MockPermit2`] and the router from `deployer` (V4 and the spoke pool unset).
    pub fn deploy<C: Chain>(
        chain: &mut C,
        world: &Addresses,
        v3: &UniswapV3,
        deployer: Address,
    ) -> Result<Self> {
        let permit2 = chain
            .deploy(deployer, super::embedded("MockPermit2")?.deploy_code(&[]))
            .step("deploy MockPermit2")?;
        let router = Self::deploy_router(chain, world, v3, (permit2, Address::ZERO), deployer)?;
        Ok(Self { router, permit2 })
    }

    /// Deploys a router over the world's V2, `v3`, `permit2` and the V4 pool manager
    /// `v4_pool_manager` (zero: none) from `deployer`.
    pub fn deploy_router<C: Chain>(
        chain: &mut C,
        world: &Addresses,
        v3: &UniswapV3,
        (permit2, v4_pool_manager): (Address, Address),
        deployer: Address,
    ) -> Result<Address> {
        let params = Router::RouterParameters {
            permit2,
            weth9: world.weth,
            v2Factory: world.factory,
            v3Factory: v3.factory,
            pairInitCodeHash: MAINNET_PAIR_INIT_CODE_HASH,
            poolInitCodeHash: v3.pool_init_code_hash,
            v4PoolManager: v4_pool_manager,
            v3NFTPositionManager: v3.position_manager,
            v4PositionManager: Address::ZERO,
            spokePool: Address::ZERO,
        };
        let args = Router::constructorCall { params }.abi_encode();
        chain
            .deploy(
                deployer,
                npm::uniswap::universal_router()?.deploy_code(&args)?,
            )
            .step("deploy UniversalRouter")
    }

    /// `execute(commands, inputs, deadline)` of `(command, input)` pairs.
    pub fn execute(&self, plan: &[(u8, Bytes)], deadline: U256) -> Call {
        let execute = Router::executeCall {
            commands: plan.iter().map(|(c, _)| *c).collect::<Vec<u8>>().into(),
            inputs: plan.iter().map(|(_, i)| i.clone()).collect(),
            deadline,
        };
        call(self.router, &execute)
    }

    /// `token.approve(permit2, amount)`: the ERC-20 allowance Permit2 pulls against.
    pub fn approve_permit2(&self, token: Address, amount: U256) -> Call {
        approve(token, self.permit2, amount)
    }

    /// `Permit2.approve(token, spender, amount, expiration)`.
    pub fn permit2_approve(
        &self,
        token: Address,
        spender: Address,
        amount: U160,
        expiration: u64,
    ) -> Call {
        let approve = MockPermit2::approveCall {
            token,
            spender,
            amount,
            expiration: U48::saturating_from(expiration),
        };
        call(self.permit2, &approve)
    }

    /// The everyday V3 swap through the router: approve `token_in` to Permit2, let the router
    /// take `amount_in` through Permit2 until `expiration`, and `execute` one
    /// `V3_SWAP_EXACT_IN` paid by the caller (`payerIsUser`) along `path`
    /// ([`v3_path`]) to `recipient`.
    #[allow(clippy::too_many_arguments)]
    pub fn v3_swap_via_permit2(
        &self,
        path: &[(Address, u32)],
        token_out: Address,
        amount_in: U256,
        min_out: U256,
        recipient: Address,
        expiration: u64,
        deadline: U256,
    ) -> Vec<Call> {
        let token_in = path.first().map_or(Address::ZERO, |(t, _)| *t);
        let input = v3_swap_exact_in(
            recipient,
            amount_in,
            min_out,
            v3_path(path, token_out),
            true,
        );
        self.via_permit2(
            token_in,
            amount_in,
            expiration,
            (commands::V3_SWAP_EXACT_IN, input),
            deadline,
        )
    }

    /// The everyday Uniswap V2 swap through the router and Permit2 along `path`.
    pub fn v2_swap_via_permit2(
        &self,
        path: &[Address],
        amount_in: U256,
        min_out: U256,
        recipient: Address,
        expiration: u64,
        deadline: U256,
    ) -> Vec<Call> {
        let token_in = path.first().copied().unwrap_or(Address::ZERO);
        let input = v2_swap_exact_in(recipient, amount_in, min_out, path, true);
        self.via_permit2(
            token_in,
            amount_in,
            expiration,
            (commands::V2_SWAP_EXACT_IN, input),
            deadline,
        )
    }

    fn via_permit2(
        &self,
        token_in: Address,
        amount_in: U256,
        expiration: u64,
        command: (u8, Bytes),
        deadline: U256,
    ) -> Vec<Call> {
        vec![
            self.approve_permit2(token_in, amount_in),
            self.permit2_approve(
                token_in,
                self.router,
                U160::saturating_from(amount_in),
                expiration,
            ),
            self.execute(&[command], deadline),
        ]
    }

    /// Permit2's EIP-712 domain here: name "Permit2", `chain_id`, this Permit2, no version.
    pub fn permit2_domain(&self, chain_id: u64) -> Eip712Domain {
        eip712_domain! {
            name: "Permit2",
            chain_id: chain_id,
            verifying_contract: self.permit2,
        }
    }

    /// The digest an owner signs for `permit` (what `Permit2.permit` recovers from).
    pub fn permit_digest(&self, chain_id: u64, permit: &MockPermit2::PermitSingle) -> B256 {
        permit.eip712_signing_hash(&self.permit2_domain(chain_id))
    }

    /// `Permit2.allowance(owner, token, spender)`: `(amount, expiration, nonce)`.
    pub fn allowance<C: Chain>(
        &self,
        chain: &C,
        owner: Address,
        token: Address,
        spender: Address,
    ) -> Result<(U256, u64, u64)> {
        let a = chain.view_sol(
            self.permit2,
            &MockPermit2::allowanceCall {
                user: owner,
                token,
                spender,
            },
        )?;
        Ok((U256::from(a.amount), a.expiration.to(), a.nonce.to()))
    }
}

/// A V3 path: each hop's input token and pool fee, then the output token, packed as the
/// router reads it (`token(20) fee(3) token(20) ...`).
pub fn v3_path(hops: &[(Address, u32)], token_out: Address) -> Bytes {
    let mut path = Vec::with_capacity(hops.len() * 23 + 20);
    for (token, fee) in hops {
        path.extend_from_slice(token.as_slice());
        path.extend_from_slice(&fee.to_be_bytes()[1..]);
    }
    path.extend_from_slice(token_out.as_slice());
    path.into()
}

/// The input of `V3_SWAP_EXACT_IN`.
pub fn v3_swap_exact_in(
    recipient: Address,
    amount_in: U256,
    min_out: U256,
    path: Bytes,
    payer_is_user: bool,
) -> Bytes {
    (recipient, amount_in, min_out, path, payer_is_user)
        .abi_encode_params()
        .into()
}

/// The input of `V2_SWAP_EXACT_IN`.
pub fn v2_swap_exact_in(
    recipient: Address,
    amount_in: U256,
    min_out: U256,
    path: &[Address],
    payer_is_user: bool,
) -> Bytes {
    (recipient, amount_in, min_out, path.to_vec(), payer_is_user)
        .abi_encode_params()
        .into()
}

/// The input of `PERMIT2_PERMIT`.
pub fn permit2_permit(permit: &MockPermit2::PermitSingle, signature: &[u8]) -> Bytes {
    (permit.clone(), Bytes::copy_from_slice(signature))
        .abi_encode_params()
        .into()
}

/// The input of `PERMIT2_TRANSFER_FROM`.
pub fn permit2_transfer_from(token: Address, recipient: Address, amount: U160) -> Bytes {
    (token, recipient, amount).abi_encode_params().into()
}
