// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Math} from "@openzeppelin/contracts/utils/math/Math.sol";
import {IAssetVault} from "../interfaces/IAssetVault.sol";
import {IReservePool} from "../interfaces/IReservePool.sol";

/// @title PaceShareValue
/// @notice Stateless reads for post-conditions over a ratio of two reads, what received shares
///         are worth by their issuer's accounting rather than by a rate it reports:
///         - `productShare`: `shares` of a two-reserve pool as the geometric mean of its
///           reserves per share, `sqrt(reserve0 * reserve1) * shares / totalSupply`. A swap
///           through the pool never lowers it (the product of the reserves only grows with
///           fees), nor does anyone else's join or exit at the pool's price;
///         - `vaultShare`: `shares` of an ERC-4626 vault as their part of everything it
///           manages, `shares * totalAssets / totalSupply`. Anyone else's deposit or
///           withdrawal at the vault's rate leaves it; a rate the vault stores and reports
///           (a cached price per share) does not enter it.
///         Shares minted for nothing lower both. A PDR that received such shares signs the read
///         as a floor, so an issuer that dilutes its shares at execution reverts the PDR
///         whoever lands it.
/// @dev    Deployed at one address on every chain (CREATE2 through the deterministic deployer,
///         salt 0). No storage, no owner: nothing can change what it answers but the pool.
contract PaceShareValue {
    /// @notice The pool or vault has no shares in issue.
    error PaceShareValueNoSupply(address issuer);

    /// @notice A reserve is too large for its product to be taken exactly.
    error PaceShareValueReserveTooLarge(address pool);

    /// @notice What `shares` of `pool` are worth, as above.
    /// @param pool The pool, its own share token.
    /// @param shares The shares valued.
    /// @return value `sqrt(reserve0 * reserve1) * shares / totalSupply`, rounded down.
    function productShare(address pool, uint256 shares) external view returns (uint256 value) {
        (uint256 r0, uint256 r1,) = IReservePool(pool).getReserves();
        if (r0 > type(uint128).max || r1 > type(uint128).max) {
            revert PaceShareValueReserveTooLarge(pool);
        }
        uint256 supply = IReservePool(pool).totalSupply();
        if (supply == 0) revert PaceShareValueNoSupply(pool);
        value = Math.mulDiv(Math.sqrt(r0 * r1), shares, supply);
    }

    /// @notice What `shares` of `vault` are worth, as above.
    /// @param vault The ERC-4626 vault, its own share token.
    /// @param shares The shares valued.
    /// @return value `shares * totalAssets / totalSupply`, rounded down.
    function vaultShare(address vault, uint256 shares) external view returns (uint256 value) {
        uint256 supply = IAssetVault(vault).totalSupply();
        if (supply == 0) revert PaceShareValueNoSupply(vault);
        value = Math.mulDiv(shares, IAssetVault(vault).totalAssets(), supply);
    }
}
