// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @notice Another EIP-7702 delegate an EOA may switch to between two delegations to
///         `PaceDelegate` (A -> B -> A): it wipes, or rewrites, `PaceDelegate`'s ERC-7201
///         namespace (`pace.delegate.v1`: config, lanes, budgets, tokens, salt, layout and the
///         last set-up nonce), only when the EOA itself asks.
contract WipingDelegate {
    /// @dev `PaceDelegate`'s namespace root.
    uint256 internal constant BASE =
        0x0a77491a114767f413aad0dc67297bb622aec1da0ef7bade1cd1421e1010f800;

    error NotSelf();

    modifier onlySelf() {
        if (msg.sender != address(this)) revert NotSelf();
        _;
    }

    /// @notice Zeroes the namespace's fixed slots (the last set-up nonce included) and the
    ///         sequences of lanes `laneKeys`.
    function wipe(uint32[] calldata laneKeys) external onlySelf {
        for (uint256 i; i < 7; ++i) {
            _store(BASE + i, 0);
        }
        for (uint256 i; i < laneKeys.length; ++i) {
            _store(uint256(keccak256(abi.encode(uint256(laneKeys[i]), BASE + 1))), 0);
        }
    }

    /// @notice Rewinds lane 0's sequence to 0, leaving the verifier, pause flag and salt.
    function rewindLaneZero() external onlySelf {
        uint256 config;
        uint256 slot = BASE;
        assembly ("memory-safe") {
            config := sload(slot)
        }
        _store(BASE, config & ~(uint256(type(uint64).max) << 168));
    }

    function _store(uint256 slot, uint256 value) private {
        assembly ("memory-safe") {
            sstore(slot, value)
        }
    }
}
