// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title RedPillAllowanceManager
/// @notice A minimal allowance manager in the shape of Uniswap's Permit2 allowance transfer
///         (this project's own code): an owner approves this contract once per token with an
///         ordinary ERC-20 allowance, then grants spenders allowances here, each with an amount
///         and an expiry; a spender moves the owner's tokens with
///         `transferFrom(from, to, amount, token)`. The token's own allowance names this
///         contract, never the spender, so the spender's right is invisible to the token.
/// @dev No signatures (`permit`), no nonces in use, no batch functions: the allowance path only.
contract RedPillAllowanceManager {
    /// @dev One spender's allowance over one owner's token.
    struct Grant {
        uint160 amount;
        uint48 expiration;
        uint48 nonce;
    }

    mapping(address owner => mapping(address token => mapping(address spender => Grant))) private
        _grants;

    /// @notice `owner` let `spender` move up to `amount` of `token` until `expiration`.
    event Approval(
        address indexed owner,
        address indexed token,
        address indexed spender,
        uint160 amount,
        uint48 expiration
    );

    /// @notice The allowance has expired.
    error AllowanceExpired(uint256 deadline);
    /// @notice The allowance is smaller than the amount.
    error InsufficientAllowance(uint256 amount);

    /// @notice Lets `spender` move up to `amount` of the caller's `token` until `expiration`
    ///         (0: until the end of this block). `type(uint160).max` is never used up.
    /// @param token The token.
    /// @param spender Who may move it.
    /// @param amount The most it may move.
    /// @param expiration Until when (unix seconds).
    function approve(address token, address spender, uint160 amount, uint48 expiration) external {
        Grant storage g = _grants[msg.sender][token][spender];
        g.amount = amount;
        g.expiration = expiration == 0 ? uint48(block.timestamp) : expiration;
        emit Approval(msg.sender, token, spender, amount, g.expiration);
    }

    /// @notice `spender`'s allowance over `owner`'s `token`.
    /// @param owner The owner.
    /// @param token The token.
    /// @param spender The spender.
    /// @return amount The most it may still move.
    /// @return expiration Until when.
    /// @return nonce Unused (always 0).
    function allowance(address owner, address token, address spender)
        external
        view
        returns (uint160 amount, uint48 expiration, uint48 nonce)
    {
        Grant storage g = _grants[owner][token][spender];
        return (g.amount, g.expiration, g.nonce);
    }

    /// @notice Moves `amount` of `token` from `from` to `to` under the caller's allowance.
    /// @param from The owner.
    /// @param to The recipient.
    /// @param amount How much.
    /// @param token The token (its allowance to this contract must cover it).
    function transferFrom(address from, address to, uint160 amount, address token) external {
        Grant storage g = _grants[from][token][msg.sender];
        if (block.timestamp > g.expiration) revert AllowanceExpired(g.expiration);
        if (g.amount != type(uint160).max) {
            if (g.amount < amount) revert InsufficientAllowance(g.amount);
            unchecked {
                g.amount -= amount;
            }
        }
        require(IERC20(token).transferFrom(from, to, amount), "token transfer failed");
    }
}
