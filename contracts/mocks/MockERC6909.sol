// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC6909} from "@openzeppelin/contracts/token/ERC6909/ERC6909.sol";

/// @title MockERC6909
/// @notice Test multi-token ledger: OpenZeppelin's ERC-6909 (claims per id, per-id allowances,
///         operators) with an unrestricted mint.
/// @dev Never deploy outside tests: anyone can mint any amount of any id to anyone.
contract MockERC6909 is ERC6909 {
    /// @notice Mints `amount` of `id` to `to`.
    function mint(address to, uint256 id, uint256 amount) external {
        _mint(to, id, amount);
    }
}
