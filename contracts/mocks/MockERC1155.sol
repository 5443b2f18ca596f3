// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title MockERC1155
/// @notice Test multi-token: per-id balances, operator approvals and `safeTransferFrom`, with an
///         unrestricted mint. No receiver hook (the transfer never calls the recipient), no
///         batch functions, no URI, no ERC-165.
/// @dev Never deploy outside tests: anyone can mint any amount of any id to anyone.
contract MockERC1155 {
    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice ERC-1155 `TransferSingle`.
    event TransferSingle(
        address indexed operator,
        address indexed from,
        address indexed to,
        uint256 id,
        uint256 value
    );
    /// @notice ERC-1155 `ApprovalForAll`.
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);

    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    /// @notice The caller is neither `from` nor one of its operators.
    error MockERC1155NotAllowed(address caller, address from);
    /// @notice `from` holds less than `value` of `id`.
    error MockERC1155InsufficientBalance(address from, uint256 id, uint256 value);

    /*//////////////////////////////////////////////////////////////
                                 STORAGE
    //////////////////////////////////////////////////////////////*/

    mapping(address owner => mapping(uint256 id => uint256)) private _balance;
    /// @notice Operators approved for all of an owner's ids.
    mapping(address owner => mapping(address operator => bool)) public isApprovedForAll;

    /*//////////////////////////////////////////////////////////////
                                EXTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @notice `owner`'s balance of `id`.
    function balanceOf(address owner, uint256 id) external view returns (uint256) {
        return _balance[owner][id];
    }

    /// @notice Mints `value` of `id` to `to`. Unrestricted: any caller may mint.
    function mint(address to, uint256 id, uint256 value) external {
        _balance[to][id] += value;
        emit TransferSingle(msg.sender, address(0), to, id, value);
    }

    /// @notice Lets `operator` move every id of the caller (or stops it).
    function setApprovalForAll(address operator, bool approved) external {
        isApprovedForAll[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    /// @notice Moves `value` of `id` from `from` to `to`, by `from` or one of its operators.
    ///         `data` is ignored: no receiver hook is called.
    function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes calldata)
        external
    {
        if (msg.sender != from && !isApprovedForAll[from][msg.sender]) {
            revert MockERC1155NotAllowed(msg.sender, from);
        }
        uint256 bal = _balance[from][id];
        if (bal < value) revert MockERC1155InsufficientBalance(from, id, value);
        unchecked {
            _balance[from][id] = bal - value;
        }
        _balance[to][id] += value;
        emit TransferSingle(msg.sender, from, to, id, value);
    }
}
