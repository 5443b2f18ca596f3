// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title RewardStake
/// @notice Test contract: a staking pool in the shape of Synthetix's StakingRewards. A stake is
///         read by `balanceOf(user)`; every stake or withdrawal also moves the user's reward
///         checkpoint (`userRewardPerTokenPaid`, a slot keyed by the user that only grows) to
///         the pool's accumulator, which rises by one unit per block.
contract RewardStake {
    /// @notice A token transfer failed.
    error RewardStakeTransferFailed();

    /// @notice What is staked.
    IERC20 public immutable stakingToken;
    /// @notice Staked balances.
    mapping(address user => uint256) public balanceOf;
    /// @notice Each user's reward checkpoint.
    mapping(address user => uint256) public userRewardPerTokenPaid;
    /// @notice Rewards earned and not yet claimed.
    mapping(address user => uint256) public rewards;

    constructor(IERC20 stakingToken_) {
        stakingToken = stakingToken_;
    }

    /// @notice The reward accumulator: one unit per block.
    function rewardPerToken() public view returns (uint256) {
        return block.number;
    }

    /// @notice Stakes `amount` for the caller.
    function stake(uint256 amount) external {
        _checkpoint(msg.sender);
        balanceOf[msg.sender] += amount;
        if (!stakingToken.transferFrom(msg.sender, address(this), amount)) {
            revert RewardStakeTransferFailed();
        }
    }

    /// @notice Withdraws `amount` of the caller's stake.
    function withdraw(uint256 amount) external {
        _checkpoint(msg.sender);
        balanceOf[msg.sender] -= amount;
        if (!stakingToken.transfer(msg.sender, amount)) revert RewardStakeTransferFailed();
    }

    function _checkpoint(address user) private {
        uint256 perToken = rewardPerToken();
        rewards[user] += balanceOf[user] * (perToken - userRewardPerTokenPaid[user]);
        userRewardPerTokenPaid[user] = perToken;
    }
}
