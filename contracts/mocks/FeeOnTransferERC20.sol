// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {MockERC20} from "./MockERC20.sol";

/// @title FeeOnTransferERC20
/// @notice Test token that burns 1% of every transfer (mints and burns are fee-free), so the
///         recipient receives less than the amount the sender named.
/// @dev Models deflationary tokens: an approval or transfer of `x` moves only `x * 99 / 100` to
///      the recipient. Use it to check that outcome checks measure balances, not calldata.
contract FeeOnTransferERC20 is MockERC20 {
    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice Emitted when a transfer fee is burned.
    /// @param from The sender who paid the fee.
    /// @param fee Amount burned.
    event TransferFeeBurned(address indexed from, uint256 fee);

    /*//////////////////////////////////////////////////////////////
                                 STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @notice Transfer fee in basis points (100 = 1%).
    uint256 public constant FEE_BPS = 100;

    uint256 private constant _BPS = 10_000;

    /*//////////////////////////////////////////////////////////////
                               CONSTRUCTOR
    //////////////////////////////////////////////////////////////*/

    /// @param name_ Token name.
    /// @param symbol_ Token symbol.
    /// @param decimals_ Number of decimals `decimals()` reports.
    constructor(string memory name_, string memory symbol_, uint8 decimals_)
        MockERC20(name_, symbol_, decimals_)
    {}

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @dev Transfers (neither side zero) burn `FEE_BPS` of `value` from the sender and deliver the
    ///      rest; mints and burns pass through unchanged.
    function _update(address from, address to, uint256 value) internal virtual override {
        if (from == address(0) || to == address(0)) {
            super._update(from, to, value);
            return;
        }
        uint256 fee = value * FEE_BPS / _BPS;
        if (fee != 0) {
            super._update(from, address(0), fee);
            emit TransferFeeBurned(from, fee);
        }
        super._update(from, to, value - fee);
    }
}
