// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {RebasingToken} from "./RebasingToken.sol";

/// @title WrappedRebasingToken
/// @notice Test wrapper in Lido's wstETH shape: a plain ERC-20 whose every unit is one share of
///         the rebasing token it wraps, so its balances stay put while the token's rebase; it is
///         no ERC-4626 vault, and its rate is `stEthPerToken()`.
contract WrappedRebasingToken is ERC20 {
    /// @notice The rebasing token wrapped.
    RebasingToken public immutable stETH;

    constructor(RebasingToken stETH_) ERC20("Wrapped rebasing token", "wRB") {
        stETH = stETH_;
    }

    /// @notice Takes `amount` of the rebasing token and mints the shares it is worth.
    function wrap(uint256 amount) external returns (uint256 wrapped) {
        wrapped = stETH.getSharesByPooledEth(amount);
        _mint(msg.sender, wrapped);
        stETH.transferFrom(msg.sender, address(this), amount);
    }

    /// @notice Burns `wrapped` and pays out the shares they are.
    function unwrap(uint256 wrapped) external returns (uint256 amount) {
        _burn(msg.sender, wrapped);
        amount = stETH.transferShares(msg.sender, wrapped);
    }

    /// @notice The rebasing token one whole wrapped token is worth.
    function stEthPerToken() external view returns (uint256) {
        return stETH.getPooledEthByShares(1 ether);
    }

    /// @notice The rebasing token `wrapped` units are worth.
    function getStETHByWstETH(uint256 wrapped) external view returns (uint256) {
        return stETH.getPooledEthByShares(wrapped);
    }
}
