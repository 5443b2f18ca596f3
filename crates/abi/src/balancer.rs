//! `sol!` bindings of the Balancer V2 Vault: the two swap functions the decoder reads
//! (`swap`, `batchSwap`), the views the simulator's weighted-pool hop reads (`getPool`,
//! `getPoolTokens`, `WETH`, the pool's `getNormalizedWeights`), what a pool share's valuation
//! reads of its pool (`getVault`, `getPoolId`, `getRate`) and the Vault's `Swap` event.
//! Declared by hand from the Vault's public interface (`IVault`, GPL-3.0-or-later);
//! `tests/it/balancer.rs` checks each selector and the event against the npm artifacts.

use alloy_sol_types::sol;

sol! {
    /// The Balancer V2 Vault's swaps and pool views. `kind` is `IVault.SwapKind`:
    /// `0` (`GIVEN_IN`) or `1` (`GIVEN_OUT`); an asset `address(0)` is ether.
    #[sol(all_derives)]
    interface IBalancerVault {
        struct SingleSwap {
            bytes32 poolId;
            uint8 kind;
            address assetIn;
            address assetOut;
            uint256 amount;
            bytes userData;
        }
        struct BatchSwapStep {
            bytes32 poolId;
            uint256 assetInIndex;
            uint256 assetOutIndex;
            uint256 amount;
            bytes userData;
        }
        struct FundManagement {
            address sender;
            bool fromInternalBalance;
            address recipient;
            bool toInternalBalance;
        }
        event Swap(
            bytes32 indexed poolId,
            address indexed tokenIn,
            address indexed tokenOut,
            uint256 amountIn,
            uint256 amountOut
        );
        function swap(
            SingleSwap singleSwap,
            FundManagement funds,
            uint256 limit,
            uint256 deadline
        ) external payable returns (uint256 amountCalculated);
        function batchSwap(
            uint8 kind,
            BatchSwapStep[] swaps,
            address[] assets,
            FundManagement funds,
            int256[] limits,
            uint256 deadline
        ) external payable returns (int256[] assetDeltas);
        function getPool(bytes32 poolId) external view returns (address pool, uint8 specialization);
        function getPoolTokens(bytes32 poolId) external view returns (
            address[] tokens,
            uint256[] balances,
            uint256 lastChangeBlock
        );
        function WETH() external view returns (address);
        function getInternalBalance(address user, address[] tokens)
            external view returns (uint256[] balances);
    }
}

sol! {
    /// A Balancer V2 weighted pool's weights (18-decimal fractions summing to one, in the
    /// order of the Vault's `getPoolTokens`).
    #[sol(all_derives)]
    interface IWeightedPoolView {
        function getNormalizedWeights() external view returns (uint256[] weights);
    }
}

sol! {
    /// What a Balancer V2 pool says of itself (`BasePool`): its Vault, its id there, and its
    /// rate, the pool's invariant per share (swap fees raise it; shares minted for nothing
    /// lower it).
    #[sol(all_derives)]
    interface IBalancerPoolView {
        function getVault() external view returns (address);
        function getPoolId() external view returns (bytes32);
        function getRate() external view returns (uint256);
    }
}
