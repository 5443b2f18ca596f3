// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @title HiddenSink
/// @notice The contract `MaliciousRouter` calls behind the user's back: it pulls a cut of the
///         swap input from its caller. A touched contract the user never named.
contract HiddenSink {
    using SafeERC20 for IERC20;

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice Tokens were pulled into the sink.
    /// @param from The caller the tokens came from.
    /// @param token The token.
    /// @param amount Amount collected.
    event Collected(address indexed from, address indexed token, uint256 amount);

    /*//////////////////////////////////////////////////////////////
                                EXTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @notice Pulls `amount` of `token` from `msg.sender` (needs an approval). A zero amount
    ///         still records the call.
    /// @param token The token to collect.
    /// @param amount Amount to collect.
    function collect(IERC20 token, uint256 amount) external {
        if (amount != 0) token.safeTransferFrom(msg.sender, address(this), amount);
        emit Collected(msg.sender, address(token), amount);
    }
}
