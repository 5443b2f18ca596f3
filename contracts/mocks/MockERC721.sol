// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title MockERC721
/// @notice Test NFT: the ERC-721 ownership and transfer functions a PDR touches (`ownerOf`,
///         `balanceOf`, `approve`, `setApprovalForAll`, `transferFrom`), with an unrestricted
///         mint and burn. No receiver hook, no metadata, no ERC-165.
/// @dev Never deploy outside tests: anyone can mint or burn any id. `ownerOf` reverts for an id
///      that does not exist, as ERC-721 requires.
contract MockERC721 {
    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice ERC-721 `Transfer`.
    event Transfer(address indexed from, address indexed to, uint256 indexed id);
    /// @notice ERC-721 `Approval`.
    event Approval(address indexed owner, address indexed spender, uint256 indexed id);
    /// @notice ERC-721 `ApprovalForAll`.
    event ApprovalForAll(address indexed owner, address indexed operator, bool approved);

    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    /// @notice `id` has no owner.
    error MockERC721NoSuchToken(uint256 id);
    /// @notice The caller may not move `id`.
    error MockERC721NotAllowed(address caller, uint256 id);
    /// @notice `from` does not own `id`, or `to` is address(0).
    error MockERC721BadTransfer(address from, address to, uint256 id);

    /*//////////////////////////////////////////////////////////////
                                 STORAGE
    //////////////////////////////////////////////////////////////*/

    mapping(uint256 id => address) private _ownerOf;
    /// @notice How many ids each address owns.
    mapping(address owner => uint256) public balanceOf;
    /// @notice The address approved for each id.
    mapping(uint256 id => address) public getApproved;
    /// @notice Operators approved for all of an owner's ids.
    mapping(address owner => mapping(address operator => bool)) public isApprovedForAll;

    /*//////////////////////////////////////////////////////////////
                                EXTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @notice The owner of `id`; reverts if it does not exist.
    function ownerOf(uint256 id) public view virtual returns (address owner) {
        owner = _ownerOf[id];
        if (owner == address(0)) revert MockERC721NoSuchToken(id);
    }

    /// @notice Mints `id` to `to`. Unrestricted: any caller may mint.
    function mint(address to, uint256 id) external {
        if (to == address(0) || _ownerOf[id] != address(0)) {
            revert MockERC721BadTransfer(address(0), to, id);
        }
        _ownerOf[id] = to;
        ++balanceOf[to];
        emit Transfer(address(0), to, id);
    }

    /// @notice Destroys `id`. Unrestricted: any caller may burn.
    function burn(uint256 id) external {
        address owner = ownerOf(id);
        --balanceOf[owner];
        delete _ownerOf[id];
        delete getApproved[id];
        emit Transfer(owner, address(0), id);
    }

    /// @notice Lets `spender` move `id`.
    function approve(address spender, uint256 id) external {
        address owner = ownerOf(id);
        if (msg.sender != owner && !isApprovedForAll[owner][msg.sender]) {
            revert MockERC721NotAllowed(msg.sender, id);
        }
        getApproved[id] = spender;
        emit Approval(owner, spender, id);
    }

    /// @notice Lets `operator` move every id of the caller (or stops it).
    function setApprovalForAll(address operator, bool approved) external {
        isApprovedForAll[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    /// @notice Moves `id` from `from` to `to`, by its owner, its approved address or an operator.
    function transferFrom(address from, address to, uint256 id) public {
        if (from != _ownerOf[id] || to == address(0)) revert MockERC721BadTransfer(from, to, id);
        if (
            msg.sender != from && msg.sender != getApproved[id]
                && !isApprovedForAll[from][msg.sender]
        ) {
            revert MockERC721NotAllowed(msg.sender, id);
        }
        --balanceOf[from];
        ++balanceOf[to];
        _ownerOf[id] = to;
        delete getApproved[id];
        emit Transfer(from, to, id);
    }
}
