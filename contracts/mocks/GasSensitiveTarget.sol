// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title GasSensitiveTarget
/// @notice Test helper whose outcome depends on the gas it is given: `act` tries an expensive
///         sub-call and records whether it ran or was caught, as a multicall with
///         `allowFailure`, a wallet with its own gas budget or a bridge receiver would.
contract GasSensitiveTarget {
    // Counters start at 1, so that counting costs a warm write and the catch branch can run on
    // the 1/64 of the gas a failed sub-call leaves behind (EIP-150).
    uint256 private _succeeded = 1;
    uint256 private _caught = 1;
    uint256[] private _sink;
    uint256 private immutable _slots;

    /// @param slots How many fresh storage slots the expensive path writes.
    constructor(uint256 slots) {
        _slots = slots;
    }

    /// @notice How many times the expensive path ran.
    function succeeded() external view returns (uint256) {
        return _succeeded - 1;
    }

    /// @notice How many times it ran out of gas and was caught.
    function caught() external view returns (uint256) {
        return _caught - 1;
    }

    /// @notice The expensive path: `slots` fresh storage slots. Only callable by `act`.
    function expensive() external {
        require(msg.sender == address(this), "only act");
        for (uint256 i; i < _slots; ++i) {
            _sink.push(i);
        }
    }

    /// @notice Runs the expensive path, or records that it could not.
    function act() external {
        try this.expensive() {
            ++_succeeded;
        } catch {
            ++_caught;
        }
    }
}
