// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title MockOracle
/// @notice Owner-less test price feed: the price of one unit of collateral in debt units,
///         scaled by 1e18 (WAD). Anyone can set it, which is how tests model oracle manipulation.
/// @dev The price is a ratio of smallest units: `collateralAmount * price / 1e18` is the value in
///      the debt token's smallest unit. With 18-decimal tokens on both sides, 1,000 DAI per ETH is
///      `1_000e18`.
contract MockOracle {
    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice Emitted when the price changes.
    /// @param oldPrice Previous WAD price.
    /// @param newPrice New WAD price.
    event PriceUpdated(uint256 oldPrice, uint256 newPrice);

    /*//////////////////////////////////////////////////////////////
                                 STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @notice Current WAD price of collateral in debt units.
    uint256 public price;

    /*//////////////////////////////////////////////////////////////
                               CONSTRUCTOR
    //////////////////////////////////////////////////////////////*/

    /// @param initialPrice Starting WAD price.
    constructor(uint256 initialPrice) {
        price = initialPrice;
        emit PriceUpdated(0, initialPrice);
    }

    /*//////////////////////////////////////////////////////////////
                                EXTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @notice Sets the price. Unrestricted: any caller may set any price.
    /// @param newPrice New WAD price of collateral in debt units.
    function setPrice(uint256 newPrice) external {
        emit PriceUpdated(price, newPrice);
        price = newPrice;
    }
}
