// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title MockERC20
/// @notice Test token: OpenZeppelin ERC-20 with configurable decimals and an unrestricted mint.
/// @dev Never deploy outside tests: anyone can mint any amount to anyone.
contract MockERC20 is ERC20 {
    /*//////////////////////////////////////////////////////////////
                                 STORAGE
    //////////////////////////////////////////////////////////////*/

    uint8 private immutable _decimals;

    /*//////////////////////////////////////////////////////////////
                               CONSTRUCTOR
    //////////////////////////////////////////////////////////////*/

    /// @param name_ Token name.
    /// @param symbol_ Token symbol.
    /// @param decimals_ Number of decimals `decimals()` reports.
    constructor(string memory name_, string memory symbol_, uint8 decimals_) ERC20(name_, symbol_) {
        _decimals = decimals_;
    }

    /*//////////////////////////////////////////////////////////////
                                EXTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @notice Mints `amount` new tokens to `to`. Unrestricted: any caller may mint.
    /// @param to Recipient of the new tokens.
    /// @param amount Amount to mint, in the token's smallest unit.
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    /// @notice Number of decimals chosen at deployment.
    /// @return The token's decimals.
    function decimals() public view virtual override returns (uint8) {
        return _decimals;
    }
}
