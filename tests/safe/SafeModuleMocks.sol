// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ISafeTestable} from "./SafeFixture.sol";

/// @notice Another module a Safe may have enabled, which the Safe itself drives: whatever the
///         Safe asks, it runs on the Safe. A PDR that calls it from the Safe reaches the Safe's
///         administration without targeting the Safe.
contract ForwarderModule {
    address public immutable safe;

    constructor(address safe_) {
        safe = safe_;
    }

    /// @notice Runs (`to`, `data`, `operation`) from the Safe, for the Safe only.
    function forward(address to, bytes calldata data, uint8 operation) external {
        require(msg.sender == safe, "only the Safe");
        require(ISafeTestable(safe).execTransactionFromModule(to, 0, data, operation), "failed");
    }
}

/// @notice Writes a word to slot `slot` of whoever runs it: called, its own storage; run by
///         `delegatecall`, the caller's.
contract SlotWriter {
    function write(uint256 slot, uint256 word) external {
        assembly ("memory-safe") {
            sstore(slot, word)
        }
    }
}

/// @notice An ERC-20-shaped token whose `transfer` and `approve` return false (it answers
///         `allowance`, so a revocation reaches its `approve`).
contract FalseToken {
    function transfer(address, uint256) external pure returns (bool) {
        return false;
    }

    function approve(address, uint256) external pure returns (bool) {
        return false;
    }

    function allowance(address, address) external pure returns (uint256) {
        return 1;
    }
}

/// @notice Records the gas its `probe` was called with, and returns a word.
contract GasProbe {
    uint256 public seen = 1;

    function probe() external returns (uint256) {
        uint256 g = gasleft();
        seen = g;
        return 0xabcdef;
    }
}

/// @notice A module that reverts whatever it is asked.
contract BrickedModule {
    fallback() external payable {
        revert("bricked");
    }
}

/// @notice A transaction guard that allows everything (Safe 1.4.1's `setGuard` checks ERC-165).
contract NoopGuard {
    function supportsInterface(bytes4) external pure returns (bool) {
        return true;
    }

    fallback() external {}
}

/// @notice Relays call data to a Safe: from inside a PDR call, an owner-signed Safe transaction
///         (one whose signatures are public, say) runs as anyone's.
contract SafeTxRelayer {
    function relay(address safe, bytes calldata cd) external {
        (bool ok,) = safe.call(cd);
        require(ok, "relay");
    }
}
