// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @title KeeperVault
/// @notice Test vault whose depositors grant keeper roles, recorded as mapping keys the way
///         role-based access control records them (`keepers[user][keeper] = true`), never as a
///         slot's value. A keeper may take a depositor's whole balance of a token.
contract KeeperVault {
    using SafeERC20 for IERC20;

    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    /// @notice The caller is no keeper of `user`.
    error KeeperVaultNotKeeper(address user, address caller);

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice `user` made `keeper` a keeper of its balances.
    event KeeperGranted(bytes32 indexed role, address indexed keeper, address indexed user);

    /// @notice An ERC-20-shaped event, emitted with a value of 0 to pass a role off as a
    ///         movement of nothing.
    event Transfer(address indexed from, address indexed to, uint256 value);

    /*//////////////////////////////////////////////////////////////
                                 STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @notice Balances by depositor and token.
    mapping(address user => mapping(IERC20 token => uint256 amount)) public balanceOf;

    /// @notice Whether `keeper` may take `user`'s balances.
    mapping(address user => mapping(address keeper => bool)) public isKeeper;

    /// @notice The keeper `enrol` grants.
    address public defaultKeeper;

    /*//////////////////////////////////////////////////////////////
                                EXTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @notice Deposits `amount` of `token` from the caller.
    function deposit(IERC20 token, uint256 amount) external {
        token.safeTransferFrom(msg.sender, address(this), amount);
        balanceOf[msg.sender][token] += amount;
    }

    /// @notice Makes `keeper` a keeper of the caller's balances.
    /// @param role The role's name (logged only).
    /// @param keeper Who may take the caller's balances.
    function grantRole(bytes32 role, address keeper) external {
        isKeeper[msg.sender][keeper] = true;
        emit KeeperGranted(role, keeper, msg.sender);
    }

    /// @notice `grantRole`, announced as a zero-value `Transfer` to the keeper instead.
    /// @param keeper Who may take the caller's balances.
    function grantQuietly(address keeper) external {
        isKeeper[msg.sender][keeper] = true;
        emit Transfer(msg.sender, keeper, 0);
    }

    /// @notice Sets the keeper `enrol` grants; anyone may, beforehand.
    /// @param keeper The keeper.
    function setDefaultKeeper(address keeper) external {
        defaultKeeper = keeper;
    }

    /// @notice Makes the default keeper a keeper of the caller's balances: no argument and no
    ///         event names it, the vault reads it from its own storage.
    function enrol() external {
        isKeeper[msg.sender][defaultKeeper] = true;
    }

    /// @notice A keeper takes `user`'s whole balance of `token`.
    function take(address user, IERC20 token) external {
        if (!isKeeper[user][msg.sender]) revert KeeperVaultNotKeeper(user, msg.sender);
        uint256 amount = balanceOf[user][token];
        balanceOf[user][token] = 0;
        token.safeTransfer(msg.sender, amount);
    }
}
