// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";

/// @title ReentrantApproveToken
/// @notice A listed token turned hostile: when the account revokes an allowance
///         (`approve(spender, 0)`), it first applies the revocation, then replays a signed PDR
///         into the account that grants the allowance again. `swallow` decides what it does when
///         that replay fails: ignore it (the revocation looks clean) or revert with its reason.
contract ReentrantApproveToken is ERC20 {
    /// @notice The call the token makes into the account during a revocation (empty: none).
    bytes public replay;
    /// @notice Where `replay` goes.
    address public account;
    /// @notice Whether a failed replay is ignored (true) or reverts the `approve` (false).
    bool public swallow;
    /// @notice Whether the replay ran, and what it returned (its revert data when it failed).
    bool public replayed;
    bool public replayOk;
    bytes public replayResult;

    constructor() ERC20("Hostile", "HST") {}

    /// @notice Mints `amount` to `to` (test token).
    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    /// @notice Arms the token: the next revocation (`approve(_, 0)`) sends `data` to `account_`.
    function arm(address account_, bytes calldata data, bool swallow_) external {
        account = account_;
        replay = data;
        swallow = swallow_;
    }

    /// @notice ERC-20 `approve`; a revocation by the armed account replays the stored call.
    function approve(address spender, uint256 amount) public override returns (bool) {
        bool ok = super.approve(spender, amount);
        if (amount == 0 && replay.length != 0 && msg.sender == account) {
            bytes memory data = replay;
            delete replay; // once
            replayed = true;
            bytes memory ret;
            (replayOk, ret) = account.call(data);
            replayResult = ret;
            if (!replayOk && !swallow) {
                assembly ("memory-safe") {
                    revert(add(ret, 0x20), mload(ret))
                }
            }
        }
        return ok;
    }
}

/// @title SpoofingToken
/// @notice A fake token: anyone can make it log an ERC-20 `Approval` naming any owner (a
///         spoofed log an indexer would read as an allowance of the account), and its `approve`
///         always reverts.
contract SpoofingToken {
    /// @notice The ERC-20 `Approval` event, as real tokens emit it.
    event Approval(address indexed owner, address indexed spender, uint256 value);

    /// @notice Logs `Approval(owner, spender, value)` without any allowance behind it.
    function spoof(address owner, address spender, uint256 value) external {
        emit Approval(owner, spender, value);
    }

    /// @notice Always reverts.
    function approve(address, uint256) external pure returns (bool) {
        revert("SpoofingToken: no approvals here");
    }
}

/// @title RightsToken
/// @notice An ERC-20 with the older allowance functions `increaseAllowance` and
///         `increaseApproval` (both add to the allowance), and a debt token's credit delegation
///         (`approveDelegation`, Aave's `ICreditDelegationToken`), so one contract carries every
///         allowance-like right a PDR can grant.
contract RightsToken is ERC20 {
    /// @notice Credit delegated by `delegator` to `delegatee`.
    mapping(address delegator => mapping(address delegatee => uint256)) public borrowAllowance;

    constructor() ERC20("Rights", "RGT") {}

    /// @notice Adds `added` to the caller's allowance for `spender`.
    function increaseAllowance(address spender, uint256 added) external returns (bool) {
        _approve(msg.sender, spender, allowance(msg.sender, spender) + added);
        return true;
    }

    /// @notice The same, under its older name.
    function increaseApproval(address spender, uint256 added) external returns (bool) {
        _approve(msg.sender, spender, allowance(msg.sender, spender) + added);
        return true;
    }

    /// @notice Lets `delegatee` borrow up to `amount` against the caller's collateral.
    function approveDelegation(address delegatee, uint256 amount) external {
        borrowAllowance[msg.sender][delegatee] = amount;
    }
}

/// @title HookedERC721
/// @notice OpenZeppelin's ERC-721, whose `safeTransferFrom` calls `onERC721Received` on a
///         contract recipient and reverts unless it answers; with an open mint.
contract HookedERC721 is ERC721 {
    constructor() ERC721("Hooked", "HK721") {}

    /// @notice Mints `id` to `to` (no receiver check).
    function mint(address to, uint256 id) external {
        _mint(to, id);
    }
}

/// @title HookedERC1155
/// @notice OpenZeppelin's ERC-1155, whose transfers call `onERC1155Received` /
///         `onERC1155BatchReceived` on a contract recipient; with an open mint.
contract HookedERC1155 is ERC1155 {
    constructor() ERC1155("") {}

    /// @notice Mints `value` of `id` to `to`, without the receiver check.
    function mint(address to, uint256 id, uint256 value) external {
        uint256[] memory ids = new uint256[](1);
        uint256[] memory values = new uint256[](1);
        (ids[0], values[0]) = (id, value);
        _update(address(0), to, ids, values);
    }
}

/// @title NftVendor
/// @notice Sells NFTs for nothing: `deliver` safe-transfers ERC-721 id `id721`, then `value` of
///         ERC-1155 ids `id1155` and `id1155 + 1` (one single and one batch transfer) to the
///         caller, so the caller's receiver hooks run inside the caller's own call.
contract NftVendor {
    HookedERC721 public immutable nft;
    HookedERC1155 public immutable multi;

    constructor(HookedERC721 nft_, HookedERC1155 multi_) {
        nft = nft_;
        multi = multi_;
    }

    /// @notice Delivers the stock to the caller with safe transfers.
    function deliver(uint256 id721, uint256 id1155, uint256 value) external {
        nft.safeTransferFrom(address(this), msg.sender, id721);
        multi.safeTransferFrom(address(this), msg.sender, id1155, value, "");
        uint256[] memory ids = new uint256[](1);
        uint256[] memory values = new uint256[](1);
        (ids[0], values[0]) = (id1155 + 1, value);
        multi.safeBatchTransferFrom(address(this), msg.sender, ids, values, "");
    }
}

/// @title Reenterer
/// @notice A target the owner calls that tries to start a PDR inside the owner's call.
contract Reenterer {
    /// @notice Whether the last attempt succeeded, and its return or revert data.
    bool public ok;
    bytes public result;

    /// @notice Sends `data` to `account`, recording the outcome, never reverting.
    function poke(address account, bytes calldata data) external {
        (ok, result) = account.call(data);
    }
}
