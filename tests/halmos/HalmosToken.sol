// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title HalmosToken
/// @notice A minimal ERC-20 for the symbolic proofs, with one ghost counter: `sent[a]`, the
///         total `a` has moved to another address (through `transfer` or `transferFrom`). A
///         budget proof reads it to see every outflow of a batch, not only the net balance fall.
contract HalmosToken {
    mapping(address account => uint256) public balanceOf;
    mapping(address owner => mapping(address spender => uint256)) public allowance;
    mapping(address account => uint256) public sent;

    /// @notice Test-only mint.
    function mint(address to, uint256 amount) external {
        balanceOf[to] += amount;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _move(msg.sender, to, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        allowance[from][msg.sender] -= amount;
        _move(from, to, amount);
        return true;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        return true;
    }

    function increaseAllowance(address spender, uint256 added) external returns (bool) {
        allowance[msg.sender][spender] += added;
        return true;
    }

    function _move(address from, address to, uint256 amount) private {
        balanceOf[from] -= amount;
        balanceOf[to] += amount;
        if (from != to) sent[from] += amount;
    }
}
