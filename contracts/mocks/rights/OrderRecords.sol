// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title OrderRecords
/// @notice Test contract of records under values a caller passes whole: a pre-signed order
///         digest (opaque: what it authorises cannot be read from it, as a settlement contract's
///         pre-signatures), and a role granted under a role hash the code holds as a constant.
contract OrderRecords {
    /// @notice The one role this registry knows.
    bytes32 public constant KEEPER = keccak256("KEEPER");

    /// @notice The caller's grant is for another role than `KEEPER`.
    error OrderRecordsUnknownRole(bytes32 role);

    /// @notice Pre-signed order digests, by signer.
    mapping(address signer => mapping(bytes32 digest => bool)) public preSigned;

    /// @notice Role holders, by role.
    mapping(bytes32 role => mapping(address holder => bool)) public hasRole;

    /// @notice Pre-signs `digest` for the caller: anyone holding the order it hashes may settle
    ///         it against the caller's approvals.
    function setPreSignature(bytes32 digest) external {
        preSigned[msg.sender][digest] = true;
    }

    /// @notice Grants `role` (only `KEEPER`) to `holder`.
    function grantRole(bytes32 role, address holder) external {
        if (role != KEEPER) revert OrderRecordsUnknownRole(role);
        hasRole[role][holder] = true;
    }
}
