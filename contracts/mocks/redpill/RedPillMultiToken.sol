// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title RedPillMultiToken
/// @notice A minimal ERC-1155 token for the red-pill cases (this project's own code): balances
///         per id, operators, single and batch transfers with the standard events. Its deployer
///         mints.
/// @dev Transfers skip the receiver acceptance check: the PaceAccount implements no ERC-1155
///      hook, so a checking token could never pay it. No metadata URI.
contract RedPillMultiToken {
    /// @notice Who may mint.
    address public immutable minter;

    mapping(uint256 id => mapping(address holder => uint256)) private _balances;
    mapping(address holder => mapping(address operator => bool)) private _operators;

    /// @notice `value` of `id` moved from `from` to `to` at `operator`'s request.
    event TransferSingle(
        address indexed operator,
        address indexed from,
        address indexed to,
        uint256 id,
        uint256 value
    );
    /// @notice Several ids moved at once.
    event TransferBatch(
        address indexed operator,
        address indexed from,
        address indexed to,
        uint256[] ids,
        uint256[] values
    );
    /// @notice `holder` made `operator` an operator, or revoked it.
    event ApprovalForAll(address indexed holder, address indexed operator, bool approved);

    constructor() {
        minter = msg.sender;
    }

    /// @notice Mints `value` of `id` to `to`. Only the deployer.
    /// @param to The holder.
    /// @param id The id.
    /// @param value How many.
    function mint(address to, uint256 id, uint256 value) external {
        require(msg.sender == minter, "not the minter");
        _balances[id][to] += value;
        emit TransferSingle(msg.sender, address(0), to, id, value);
    }

    /// @notice `holder`'s balance of `id`.
    /// @param holder The holder.
    /// @param id The id.
    /// @return The balance.
    function balanceOf(address holder, uint256 id) external view returns (uint256) {
        return _balances[id][holder];
    }

    /// @notice Balances of `holders[i]` in `ids[i]`.
    /// @param holders The holders.
    /// @param ids The ids.
    /// @return out The balances.
    function balanceOfBatch(address[] calldata holders, uint256[] calldata ids)
        external
        view
        returns (uint256[] memory out)
    {
        require(holders.length == ids.length, "length mismatch");
        out = new uint256[](ids.length);
        for (uint256 i; i < ids.length; ++i) {
            out[i] = _balances[ids[i]][holders[i]];
        }
    }

    /// @notice Makes `operator` an operator over the caller's tokens, or revokes it.
    /// @param operator The operator.
    /// @param approved Grant or revoke.
    function setApprovalForAll(address operator, bool approved) external {
        _operators[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    /// @notice Whether `operator` may move `holder`'s tokens.
    /// @param holder The holder.
    /// @param operator The operator.
    /// @return Whether it may.
    function isApprovedForAll(address holder, address operator) external view returns (bool) {
        return _operators[holder][operator];
    }

    /// @notice Moves `value` of `id` from `from` (the caller or its operator) to `to`.
    /// @param from The holder.
    /// @param to The recipient.
    /// @param id The id.
    /// @param value How many.
    function safeTransferFrom(address from, address to, uint256 id, uint256 value, bytes calldata)
        external
    {
        _move(from, to, id, value);
        emit TransferSingle(msg.sender, from, to, id, value);
    }

    /// @notice Moves `values[i]` of `ids[i]` from `from` (the caller or its operator) to `to`.
    /// @param from The holder.
    /// @param to The recipient.
    /// @param ids The ids.
    /// @param values How many of each.
    function safeBatchTransferFrom(
        address from,
        address to,
        uint256[] calldata ids,
        uint256[] calldata values,
        bytes calldata
    ) external {
        require(ids.length == values.length, "length mismatch");
        for (uint256 i; i < ids.length; ++i) {
            _move(from, to, ids[i], values[i]);
        }
        emit TransferBatch(msg.sender, from, to, ids, values);
    }

    function _move(address from, address to, uint256 id, uint256 value) private {
        require(msg.sender == from || _operators[from][msg.sender], "not allowed");
        require(to != address(0), "to zero");
        uint256 held = _balances[id][from];
        require(held >= value, "insufficient balance");
        unchecked {
            _balances[id][from] = held - value;
        }
        _balances[id][to] += value;
    }
}
