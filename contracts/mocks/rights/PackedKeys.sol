// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// @title PackedKeys
/// @notice Test vault whose depositors name keepers in forms a trace does not show as a whole
///         word: packed with the depositor into a hashed key of any length, under a nested
///         mapping's inner hash, or split in pieces across storage slots. A keeper named in any
///         of them may take the depositor's whole balance of a token.
contract PackedKeys {
    using SafeERC20 for IERC20;

    /// @notice The caller is no keeper of `user`.
    error PackedKeysNotKeeper(address user, address caller);

    /// @notice Balances by depositor and token.
    mapping(address user => mapping(IERC20 token => uint256 amount)) public balanceOf;

    /// @notice Grants under `keccak256(abi.encodePacked(user, config))`.
    mapping(bytes32 key => bool) public packedGrant;

    /// @notice Grants under `keccak256(abi.encode(keeper, 7))`, by depositor.
    mapping(address user => mapping(bytes32 key => bool)) public nestedGrant;

    /// @notice A keeper's address in two pieces: its first 10 bytes, then its last 10.
    mapping(address user => bytes32) public head;
    mapping(address user => bytes32) public tail;

    /// @notice Deposits `amount` of `token` from the caller.
    function deposit(IERC20 token, uint256 amount) external {
        token.safeTransferFrom(msg.sender, address(this), amount);
        balanceOf[msg.sender][token] += amount;
    }

    /// @notice Names a keeper packed in `config` (`abi.encodePacked(keeper, uint32 tag)`).
    function grantPacked(bytes calldata config) external {
        packedGrant[keccak256(abi.encodePacked(msg.sender, config))] = true;
    }

    /// @notice Names `keeper` under a nested mapping's hashed key.
    function grantNested(address keeper) external {
        nestedGrant[msg.sender][keccak256(abi.encode(keeper, uint256(7)))] = true;
    }

    /// @notice Names `keeper` in two pieces, each beside other data in its slot.
    function grantSplit(address keeper) external {
        bytes20 k = bytes20(keeper);
        head[msg.sender] = bytes32(uint256(uint80(bytes10(k))) << 40 | 0xa1);
        tail[msg.sender] = bytes32(uint256(uint80(uint160(keeper))) << 96 | 0xb2);
    }

    /// @notice A keeper takes `user`'s whole balance of `token`: named packed (with `tag`),
    ///         nested, or in pieces.
    function take(address user, IERC20 token, uint32 tag) external {
        bool packed = packedGrant[keccak256(abi.encodePacked(user, msg.sender, tag))];
        bool nested = nestedGrant[user][keccak256(abi.encode(msg.sender, uint256(7)))];
        bytes20 k = bytes20(msg.sender);
        bool split = uint80(uint256(head[user]) >> 40) == uint80(bytes10(k))
            && uint80(uint256(tail[user]) >> 96) == uint80(uint160(msg.sender));
        if (!(packed || nested || split)) revert PackedKeysNotKeeper(user, msg.sender);
        uint256 amount = balanceOf[user][token];
        balanceOf[user][token] = 0;
        token.safeTransfer(msg.sender, amount);
    }
}
