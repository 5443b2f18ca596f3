// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";

/// @notice A paymaster that sponsors every user operation (an ERC-4337 v0.8 `IPaymaster`), so
///         a test can put a paymaster in a user operation and see who pays.
contract AcceptingPaymaster {
    /// @notice Accepts: no context, no window.
    function validatePaymasterUserOp(IPaceAccount.PackedUserOperation calldata, bytes32, uint256)
        external
        pure
        returns (bytes memory context, uint256 validationData)
    {
        return ("", 0);
    }

    /// @notice Nothing to settle.
    function postOp(uint8, bytes calldata, uint256, uint256) external pure {}
}
