// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title PackedMarket
/// @notice Test contract: an isolated lending market that keeps each position packed under a
///         market id and the user, as Morpho Blue does (`{uint256 supplyShares; uint128
///         borrowShares; uint128 collateral}`), and answers none of the views the simulator's
///         adapters read (no `healthFactor`, no `collateralOf` / `debtOf`, no Aave or Compound
///         account data): only Morpho's own `position(id, user)`. Loans at a fixed price, 80 %
///         loan-to-value.
contract PackedMarket {
    struct Position {
        uint256 supplyShares;
        uint128 borrowShares;
        uint128 collateral;
    }

    /// @notice The position would owe more than its collateral allows.
    error PackedMarketUnhealthy();
    /// @notice A token transfer failed.
    error PackedMarketTransferFailed();

    /// @notice What the market takes as collateral.
    IERC20 public immutable collateralAsset;
    /// @notice What it lends.
    IERC20 public immutable loanAsset;
    /// @notice The one market's id.
    bytes32 public immutable id;
    /// @notice Loan units per 1e18 collateral units.
    uint256 public immutable price;

    mapping(bytes32 market => mapping(address user => Position)) internal _position;

    constructor(IERC20 collateral_, IERC20 loan_, uint256 price_) {
        (collateralAsset, loanAsset, price) = (collateral_, loan_, price_);
        id = keccak256(abi.encode(collateral_, loan_));
    }

    /// @notice Adds `assets` of collateral to `onBehalf`'s position, paid by the caller.
    function supplyCollateral(uint256 assets, address onBehalf) external {
        _position[id][onBehalf].collateral += uint128(assets);
        _pull(collateralAsset, assets);
    }

    /// @notice Takes `assets` of the caller's collateral back, if the position stays healthy.
    function withdrawCollateral(uint256 assets) external {
        _position[id][msg.sender].collateral -= uint128(assets);
        _checkHealthy(msg.sender);
        _push(collateralAsset, assets);
    }

    /// @notice `user`'s position in `market`, as Morpho Blue's `position(Id, address)` view
    ///         answers it (a view a protocol descriptor can name; no adapter reads it).
    function position(bytes32 market, address user)
        external
        view
        returns (uint256 supplyShares, uint128 borrowShares, uint128 collateral)
    {
        Position memory p = _position[market][user];
        return (p.supplyShares, p.borrowShares, p.collateral);
    }

    /// @notice Lends `assets` to the caller against its collateral (one share per unit).
    function borrow(uint256 assets) external {
        _position[id][msg.sender].borrowShares += uint128(assets);
        _checkHealthy(msg.sender);
        _push(loanAsset, assets);
    }

    /// @notice Repays `assets` of `onBehalf`'s loan, paid by the caller.
    function repay(uint256 assets, address onBehalf) external {
        _position[id][onBehalf].borrowShares -= uint128(assets);
        _pull(loanAsset, assets);
    }

    function _checkHealthy(address user) private view {
        Position storage p = _position[id][user];
        if (uint256(p.borrowShares) * 1e18 > uint256(p.collateral) * price * 8 / 10) {
            revert PackedMarketUnhealthy();
        }
    }

    function _pull(IERC20 token, uint256 amount) private {
        if (!token.transferFrom(msg.sender, address(this), amount)) {
            revert PackedMarketTransferFailed();
        }
    }

    function _push(IERC20 token, uint256 amount) private {
        if (!token.transfer(msg.sender, amount)) revert PackedMarketTransferFailed();
    }
}
