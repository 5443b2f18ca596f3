// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title ReentrantTarget
/// @notice Test helper that calls back into a configured contract whenever it is called (any
///         function, or plain ETH), recording whether the re-entry succeeded instead of reverting.
///         Use it to check that an account consumes its nonce before the external call.
/// @dev Re-enters once per outer call: the re-entrant call itself does not re-enter again.
contract ReentrantTarget {
    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice A re-entrant call was attempted.
    /// @param target The contract called back.
    /// @param success Whether the call succeeded.
    /// @param returnData Its return or revert data.
    event ReentryAttempted(address indexed target, bool success, bytes returnData);

    /*//////////////////////////////////////////////////////////////
                                 STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @notice The contract to call back; zero disables re-entry.
    address public reentryTarget;
    /// @notice The calldata of the call back.
    bytes public reentryData;
    /// @notice Whether the last re-entry succeeded.
    bool public lastSuccess;
    /// @notice The return or revert data of the last re-entry.
    bytes public lastReturnData;
    /// @notice Number of re-entries attempted.
    uint256 public attempts;

    bool private _entered;

    /*//////////////////////////////////////////////////////////////
                                EXTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @notice Configures the call back. Unrestricted (test helper).
    /// @param target The contract to call back; zero disables re-entry.
    /// @param data The calldata to send it.
    function setReentry(address target, bytes calldata data) external {
        reentryTarget = target;
        reentryData = data;
    }

    /// @notice Any call with data re-enters the configured target.
    fallback() external payable {
        _reenter();
    }

    /// @notice Plain ETH transfers re-enter the configured target.
    receive() external payable {
        _reenter();
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @dev Calls the configured target once, storing the outcome.
    function _reenter() private {
        address target = reentryTarget;
        if (target == address(0) || _entered) return;
        _entered = true;
        (bool success, bytes memory returnData) = target.call(reentryData);
        _entered = false;
        lastSuccess = success;
        lastReturnData = returnData;
        ++attempts;
        emit ReentryAttempted(target, success, returnData);
    }
}
