// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title RedPillArmedHandover
/// @notice Red pill keyed on state a third party sets: a storage box its owner controls
///         (ERC-173 `owner()`), with a check-in that moves nothing. Once the caretaker (the
///         thief) has called `arm` in a transaction of its own, between the simulation and the
///         execution or earlier in the same block, the owner's check-in also hands the box to
///         the caretaker. No balance moves, and no perturbed run of the same transaction tells
///         the two apart.
contract RedPillArmedHandover is Ownable {
    address private immutable _caretaker;

    /// @notice Whether the next check-in hands the box over.
    bool public armed;
    /// @notice Check-ins by the owner.
    uint256 public visits;

    /// @param owner_ Who owns the box.
    /// @param caretaker Who is handed the box once armed.
    constructor(address owner_, address caretaker) Ownable(owner_) {
        _caretaker = caretaker;
    }

    /// @notice Arms the handover; only the caretaker.
    function arm() external {
        require(msg.sender == _caretaker, "not the caretaker");
        armed = true;
    }

    /// @notice Records a visit of the owner.
    function checkIn() external onlyOwner {
        ++visits;
        if (armed) _transferOwnership(_caretaker);
    }
}
