// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @title IndexedGrants
/// @notice Test custody whose depositors grant withdrawal rights in forms that name no
///         address anywhere in a trace: agents by their index in a public registry (a bit
///         mask), or whoever reveals the preimage of a 96-bit commitment. Either may take the
///         depositor's whole balance of a token.
contract IndexedGrants {
    using SafeERC20 for IERC20;

    /// @notice The caller may not take `user`'s balance.
    error IndexedGrantsNotGranted(address user, address caller);

    /// @notice Balances by depositor and token.
    mapping(address user => mapping(IERC20 token => uint256 amount)) public balances;
    /// @notice The registry's agents, by index.
    address[] public agents;
    /// @notice Each depositor's agents, as a mask of registry indices.
    mapping(address user => uint256 mask) public agentMask;
    /// @notice Each depositor's recovery commitment: the low 96 bits of a secret's hash.
    mapping(address user => uint96 tag) public recoveryTag;

    /// @param agents_ The registry, set once.
    constructor(address[] memory agents_) {
        agents = agents_;
    }

    /// @notice Deposits `amount` of `token` from the caller.
    function deposit(IERC20 token, uint256 amount) external {
        token.safeTransferFrom(msg.sender, address(this), amount);
        balances[msg.sender][token] += amount;
    }

    /// @notice Grants the registry's agents in `mask` the caller's balances.
    function setAgents(uint256 mask) external {
        agentMask[msg.sender] = mask;
    }

    /// @notice Grants whoever reveals a secret hashing to `tag` the caller's balances.
    function commitRecovery(uint96 tag) external {
        recoveryTag[msg.sender] = tag;
    }

    /// @notice An agent of `user` (`index` in the registry), or the holder of `secret`, takes
    ///         `user`'s whole balance of `token`.
    function take(address user, IERC20 token, uint256 index, bytes32 secret) external {
        bool agent = index < agents.length && agents[index] == msg.sender
            && agentMask[user] & (1 << index) != 0;
        bool revealed = recoveryTag[user] != 0
            && uint96(uint256(keccak256(abi.encode(secret)))) == recoveryTag[user];
        if (!agent && !revealed) revert IndexedGrantsNotGranted(user, msg.sender);
        uint256 amount = balances[user][token];
        balances[user][token] = 0;
        token.safeTransfer(msg.sender, amount);
    }
}
