// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title RedPillCollection
/// @notice A minimal ERC-721 collection for the red-pill cases (this project's own code):
///         ownership, balances, single-id approvals, operators and `transferFrom`, with the
///         standard events. Its deployer mints.
/// @dev No `safeTransferFrom` and no metadata: the PaceAccount has no receiver hook, and the
///      cases only move ids with `transferFrom`.
contract RedPillCollection {
    /// @notice The collection's name.
    string public name;
    /// @notice Who may mint.
    address public immutable minter;

    mapping(uint256 id => address) private _owners;
    mapping(address owner => uint256) private _balances;
    mapping(uint256 id => address) private _approved;
    mapping(address owner => mapping(address operator => bool)) private _operators;

    /// @notice `id` moved from `from` to `to` (from the zero address: minted).
    event Transfer(address indexed from, address indexed to, uint256 indexed id);
    /// @notice `owner` let `approved` move `id`.
    event Approval(address indexed owner, address indexed approved, uint256 indexed id);
    /// @notice `owner` made `operator` an operator over all its ids, or revoked it.
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);

    /// @param name_ The collection's name.
    constructor(string memory name_) {
        name = name_;
        minter = msg.sender;
    }

    /// @notice Mints `id` to `to`. Only the deployer.
    /// @param to The first owner.
    /// @param id A new id.
    function mint(address to, uint256 id) external {
        require(msg.sender == minter, "not the minter");
        require(to != address(0) && _owners[id] == address(0), "bad mint");
        _owners[id] = to;
        ++_balances[to];
        emit Transfer(address(0), to, id);
    }

    /// @notice The owner of `id` (reverts for an id nobody owns).
    /// @param id The id.
    /// @return The owner.
    function ownerOf(uint256 id) public view returns (address) {
        address owner = _owners[id];
        require(owner != address(0), "no such id");
        return owner;
    }

    /// @notice How many ids `owner` holds.
    /// @param owner The holder.
    /// @return The count.
    function balanceOf(address owner) external view returns (uint256) {
        return _balances[owner];
    }

    /// @notice Who may move `id` besides its owner and operators.
    /// @param id The id.
    /// @return The approved address.
    function getApproved(uint256 id) external view returns (address) {
        ownerOf(id);
        return _approved[id];
    }

    /// @notice Whether `operator` may move every id of `owner`.
    /// @param owner The holder.
    /// @param operator The operator.
    /// @return Whether it may.
    function isApprovedForAll(address owner, address operator) external view returns (bool) {
        return _operators[owner][operator];
    }

    /// @notice Lets `to` move `id` (the owner or an operator only).
    /// @param to The approved address.
    /// @param id The id.
    function approve(address to, uint256 id) external {
        address owner = ownerOf(id);
        require(msg.sender == owner || _operators[owner][msg.sender], "not allowed");
        _approved[id] = to;
        emit Approval(owner, to, id);
    }

    /// @notice Makes `operator` an operator over all the caller's ids, or revokes it.
    /// @param operator The operator.
    /// @param approved Grant or revoke.
    function setApprovalForAll(address operator, bool approved) external {
        _operators[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    /// @notice Moves `id` from `from` to `to` (the owner, its operator or the approved address).
    /// @param from The owner.
    /// @param to The recipient.
    /// @param id The id.
    function transferFrom(address from, address to, uint256 id) external {
        require(ownerOf(id) == from, "not the owner");
        require(to != address(0), "to zero");
        require(
            msg.sender == from || _operators[from][msg.sender] || _approved[id] == msg.sender,
            "not allowed"
        );
        delete _approved[id];
        --_balances[from];
        ++_balances[to];
        _owners[id] = to;
        emit Transfer(from, to, id);
    }
}
