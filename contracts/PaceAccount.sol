// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {PaceCore} from "./core/PaceCore.sol";

/// @title PaceAccount
/// @notice The standalone PACE smart account: a contract of its own that executes a call, or an
///         atomic batch, only under a Policy Decision Record (PDR) signed by its verifier over
///         EIP-712 typed data, and that re-checks the realised outcome against the signed bounds
///         after the calls: per bound, an ERC-20 or ETH balance, an ERC-721 id, an ERC-1155 id's
///         balance or a third party's holdings may change only as signed, and no held asset's
///         balance may fall (`libraries/OutcomeBounds.sol`). PDRs arrive directly
///         (`executePDR`, `executeBatchPDR`) or through the ERC-4337 EntryPoint v0.8
///         (`validateUserOp`, `executeUserOpPdr`); the checks are `core/PaceCore.sol`'s. The owner
///         keeps a raw path for recovery and administration, directly or by an owner-signed
///         user operation.
/// @dev    Spending budgets cap what PDR executions can move out of the account, even under a
///         leaked verifier key: the owner gives a token (or ETH) a limit per period, and every
///         PDR execution adds to the period's total (1) every fall of the account's balance
///         across each call of the batch, so a later inflow (a borrow, say) cannot net out an
///         earlier transfer, and (2) every allowance of the token that the batch's `approve` /
///         `increaseAllowance` / `increaseApproval` calls, and its calls to the canonical
///         Permit2's `approve`, leave standing after it, since a spender can pull that later,
///         outside any PDR. A PDR may call a budgeted token only
///         for transfers and allowance changes, so no other function of it (`approveAndCall`,
///         an operator grant, a multicall) hands out rights unseen. Above the limit the
///         execution reverts. With any budget set, PDRs must use a batch path; the lean
///         `executePDR` path is closed. Budgets see balances and these allowances only: debt
///         taken on, allowances granted through any other contract, a token reachable at a
///         second address, and unbudgeted tokens are not counted. Allowances cannot be
///         listed on-chain: the account emits `RightGranted` for every right a PDR grants, and
///         after a key leak the owner revokes them with `revokeRights`.
///
///         Runs only at its own address: `owner` and the domain are the deployment's, so an
///         EOA delegating to this code (EIP-7702) would hand itself to that owner; every entry
///         point refuses to run anywhere else (`PaceAccountNotHome`). EOAs use `PaceDelegate`.
///
///         Gas design (docs/gas.md): the verifier, the pause flag and the sequence of nonce
///         lane 0 share one storage slot, so the common path reads one cold slot and rewrites it
///         (2,100 + 2,900 gas) instead of writing a fresh slot per PDR (22,100). Target, value,
///         calldata, bounds, held assets, chain id and account are all inside the signed digest,
///         so one signer comparison rejects a change to any of them. Each bound and held asset
///         is read once before the calls and once after them.
contract PaceAccount is PaceCore {
    /// @notice The owner: raw execution and administration.
    address public immutable owner;

    /// @dev The account's own address: its code refuses to run at any other.
    address private immutable _home;

    uint256 private immutable _cachedChainId;
    bytes32 private immutable _cachedDomainSeparator;

    bytes32 private constant _DOMAIN_TYPEHASH = keccak256(
        "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"
    );
    bytes32 private constant _NAME_HASH = keccak256("PaceAccount");
    bytes32 private constant _VERSION_HASH = keccak256("3");

    /// @param owner_ The owner (raw path and administration).
    /// @param verifier_ The address of the verifier's signing key.
    constructor(address owner_, address verifier_) payable {
        // The account as its own owner would let a signed PDR administer it.
        if (owner_ == address(0) || owner_ == address(this)) {
            revert PaceAccountInvalidOwner(owner_);
        }
        if (verifier_ == address(0)) revert PaceAccountZeroVerifier();
        owner = owner_;
        _home = address(this);
        _store().config = uint256(uint160(verifier_));
        _cachedChainId = block.chainid;
        _cachedDomainSeparator = _buildDomainSeparator();
    }

    /// @dev The state from slot 0: config, lanes, then the budgets (slots 2 and 3).
    function _store() internal pure override returns (PaceStore storage s) {
        assembly ("memory-safe") {
            s.slot := 0
        }
    }

    /// @dev The owner, or the EntryPoint running a user operation the owner signed.
    function _isOwner(address caller) internal view override returns (bool) {
        return caller == owner || caller == ENTRY_POINT;
    }

    function _ownerSigner() internal view override returns (address) {
        return owner;
    }

    /// @dev Name "PaceAccount", version "3", the chain id and this account.
    function _domainSeparator() internal view override returns (bytes32) {
        return block.chainid == _cachedChainId ? _cachedDomainSeparator : _buildDomainSeparator();
    }

    /// @dev The direct path's domain with `salt` = the user operation's hash.
    function _userOpDomainSeparator(bytes32 userOpHash) internal view override returns (bytes32) {
        return keccak256(
            abi.encode(
                SALTED_DOMAIN_TYPEHASH,
                _NAME_HASH,
                _VERSION_HASH,
                block.chainid,
                address(this),
                userOpHash
            )
        );
    }

    /// @dev Nothing acts for the account but its own code: it keeps a grant filter.
    function _keepsGrants() internal pure override returns (bool) {
        return true;
    }

    function _checkHome() internal view override {
        if (address(this) != _home) revert PaceAccountNotHome(_home);
    }

    function _buildDomainSeparator() private view returns (bytes32) {
        return keccak256(
            abi.encode(_DOMAIN_TYPEHASH, _NAME_HASH, _VERSION_HASH, block.chainid, address(this))
        );
    }
}
