// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {RedPillDilutingVault} from "./RedPillDilutingVault.sol";

/// @title RedPillStaleRateVault
/// @notice The diluting vault with a rate it stores: `convertToAssets` answers from the price
///         per share of the last `harvest` (as `pricePerShare` and `exchangeRateStored` do),
///         while `redeem` pays the shares' part of the assets held. Armed, it dilutes at
///         execution exactly as its parent; its reported rate does not move, so a check of that
///         rate alone passes while the depositor's shares redeem for a tenth of the deposit.
contract RedPillStaleRateVault is RedPillDilutingVault {
    /// @notice Assets per 10^18 shares as of the last harvest.
    uint256 public pricePerShare = 1e18;

    /// @param asset_ The underlying.
    constructor(IERC20 asset_) RedPillDilutingVault(asset_) {}

    /// @notice Stores the current price per share. Anyone.
    function harvest() external {
        pricePerShare = _live(1e18);
    }

    /// @notice Assets `shares` stand for at the stored rate.
    /// @param shares Shares.
    /// @return Assets.
    function convertToAssets(uint256 shares) public view override returns (uint256) {
        return shares * pricePerShare / 1e18;
    }
}
