// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title GrantDesk
/// @notice Test registry of agents that records, under the caller, grants a rights rule must
///         not take for something else: an expiry keyed by an agent's index (a time, but not
///         the caller's own), a mask of agents beside a known party in the key, a mask keyed
///         by the desk's own address, and an agent's pass kept as an ERC-1155-shaped balance
///         with no transfer log. `follow` records a plain flag for a party, the honest control.
/// @dev Never deploy outside tests: the records mean whatever a puller reads into them.
contract GrantDesk {
    /// @notice The registered agents, by index.
    address[] public agents;
    mapping(uint256 index => mapping(address user => uint256 until)) public sessionUntil;
    mapping(address user => mapping(address party => uint256 flags)) public flags;
    mapping(address user => mapping(address desk => uint256 mask)) public selfMask;
    mapping(address user => mapping(uint256 id => uint256 amount)) public balanceOf;
    mapping(address user => mapping(uint256 id => uint256 until)) public lockUntil;
    mapping(address user => mapping(address party => mapping(uint256 index => uint256 on))) public
        enabled;

    constructor(address[] memory agents_) {
        agents = agents_;
    }

    /// @notice The last agent may act for the caller for 30 days.
    function renewSession() external {
        sessionUntil[agents.length - 1][msg.sender] = block.timestamp + 30 days;
    }

    /// @notice Follows `party`, and enables the last agent in the same word.
    function subscribe(address party) external {
        flags[msg.sender][party] = 1 | (uint256(1) << (128 + agents.length - 1));
    }

    /// @notice Locks the caller's position `id` for a week (a time per id, no grant).
    function lock(uint256 id) external {
        lockUntil[msg.sender][id] = block.timestamp + 7 days;
    }

    /// @notice Follows `party` through the last agent: a flag under the party and an index.
    function enable(address party) external {
        enabled[msg.sender][party][agents.length - 1] = 1;
    }

    /// @notice Follows `party`: a flag and nothing else.
    function follow(address party) external {
        flags[msg.sender][party] = 1;
    }

    /// @notice Enables the last agent under a key of the desk's own address.
    function checkInSelf() external {
        selfMask[msg.sender][address(this)] = uint256(1) << (agents.length - 1);
    }

    /// @notice Issues the last agent's pass to the caller, with no transfer log.
    function checkInPass() external {
        balanceOf[msg.sender][uint256(keccak256(abi.encode("pass", agents.length - 1)))] = 1;
    }
}
