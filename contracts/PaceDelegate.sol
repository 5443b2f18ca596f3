// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaceDelegate} from "./interfaces/IPaceDelegate.sol";
import {PaceCore} from "./core/PaceCore.sol";
import {DelegateState} from "./delegate/DelegateState.sol";
import {PaceDelegateAdmin} from "./delegate/PaceDelegateAdmin.sol";

/// @title PaceDelegate
/// @notice The PACE account as an EIP-7702 delegate: the user's EOA keeps its address and
///         funds, its key stays cold, the agent holds no key, and only PDR-approved calls (the
///         checks of `core/PaceCore.sol`, directly or through the ERC-4337 EntryPoint v0.8) and
///         the EOA itself move value.
/// @dev    The owner is the EOA key: it can always act on its own, or re-delegate, and nothing
///         on-chain can stop it. What the delegate guards is the agent's path.
///
///         State lives in one ERC-7201 namespace (`pace.delegate.v1`, `delegate/DelegateState.sol`),
///         with a layout version; nothing relies on a constructor or a per-user immutable.
///         Set-up (verifier, budgets, lanes) comes from the EOA itself (a transaction to itself,
///         or an owner user operation) or from a signature of the EOA key that binds the chain,
///         the EOA, this delegate's code, a nonce above the last set-up's and a deadline. Until a set-up,
///         the verifier is unset and every PDR is refused.
///
///         Replay across re-delegation: every set-up writes a new domain salt, drawn from the
///         previous one and the block it lands in (`prevrandao`, number). Every PDR's domain
///         carries the salt, so once storage is wiped or rewritten by another delegate and the
///         EOA sets this one up again (A -> B -> A), no PDR signed before verifies, even if an
///         old set-up is replayed. Another EOA delegating here has another domain
///         (`verifyingContract`), so a PDR signed for one EOA is worthless at another.
///
///         Code size: the PDR paths, the owner's raw call (`execute`), the receiver hooks,
///         ERC-1271 and the views a PDR's signer reads live here. The set-up and the rest of the
///         administration (the raw batch, the verifier, the pause, budgets, lane cancellation,
///         revocation, and their views) live in
///         `PaceDelegateAdmin`, which this contract deploys in its constructor and runs by
///         `delegatecall` in the EOA's context: the functions below marked "in the module"
///         forward their call data unchanged and return or revert with the module's answer.
///         The ABI is the whole account's either way.
contract PaceDelegate is PaceCore, DelegateState, IPaceDelegate {
    /// @dev The administration module (`PaceDelegateAdmin`), deployed by the constructor.
    address private immutable _admin;

    constructor() {
        _admin = address(new PaceDelegateAdmin());
    }

    /*//////////////////////////////////////////////////////////////
                         SET-UP (IN THE MODULE)
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IPaceDelegate
    function setUp(Setup calldata, bytes calldata) external {
        _toAdmin();
    }

    /// @inheritdoc IPaceDelegate
    function setupDigest(Setup calldata) external view returns (bytes32 digest) {
        _toAdminView();
    }

    /// @inheritdoc IPaceDelegate
    function layoutVersion() external view returns (uint64 version) {
        _toAdminView();
    }

    /// @inheritdoc IPaceDelegate
    function setupNonce() external view returns (uint256 nonce) {
        _toAdminView();
    }

    /*//////////////////////////////////////////////////////////////
                     ADMINISTRATION (IN THE MODULE)
    //////////////////////////////////////////////////////////////*/

    /// @notice Owner-only raw atomic batch.
    function executeBatch(Call[] calldata) external payable override {
        _toAdmin();
    }

    /// @notice Rotates the verifier key. PDRs signed by the previous key stop being accepted.
    /// @dev    Rotating back to an earlier key revives its signed PDRs whose sequences are still
    ///         ahead of their lanes: after rotating away from a leaked key, also `cancelNonces`.
    function setVerifier(address) external override {
        _toAdmin();
    }

    /// @notice Pauses or resumes PDR execution. The owner path stays open.
    function setPaused(bool) external override {
        _toAdmin();
    }

    /// @notice Sets the spending budget of `token` (address(0) = ETH): PDR executions may move at
    ///         most `limit` of it out of the account per `period` seconds, in total. A `period`
    ///         of 0 removes the budget. A new budget starts its first period now.
    function setBudget(address, uint128, uint64) external override {
        _toAdmin();
    }

    /// @notice Sets each listed allowance of the account to 0, each on its own
    ///         (`IPaceAccount.revokeAllowances`).
    function revokeAllowances(Allowance[] calldata) external override returns (uint256 failed) {
        _toAdmin();
    }

    /// @notice Revokes each listed right, each on its own (`IPaceAccount.revokeRights`).
    function revokeRights(Right[] calldata) external override returns (uint256 failed) {
        _toAdmin();
    }

    /// @notice Moves nonce lane `key` forward to `sequence`, cancelling every signed PDR below it
    ///         (`IPaceAccount.cancelNonces`).
    function cancelNonces(uint32, uint64) external override {
        _toAdmin();
    }

    /// @notice The budget of `token` and its current period (`IPaceAccount.budget`).
    function budget(address)
        external
        view
        override
        returns (uint128 limit, uint64 period, uint64 windowStart, uint128 spent)
    {
        _toAdminView();
    }

    /// @notice The tokens that have a budget.
    function budgetTokens() external view override returns (address[] memory tokens) {
        _toAdminView();
    }

    /// @notice The direct path's EIP-712 domain separator.
    function domainSeparator() external view override returns (bytes32 separator) {
        _toAdminView();
    }

    /// @notice The EntryPoint path's EIP-712 domain separator for user operation `userOpHash`.
    function userOpDomainSeparator(bytes32) external view override returns (bytes32 separator) {
        _toAdminView();
    }

    /// @notice The digest the verifier signs for `calls`, `bounds`, `held`, `checks`,
    ///         `attestation` and `terms` on the direct path.
    function pdrDigest(
        Call[] calldata,
        Bound[] calldata,
        address[] calldata,
        Check[] calldata,
        bytes32,
        uint256
    ) external view override returns (bytes32 digest) {
        _toAdminView();
    }

    /*//////////////////////////////////////////////////////////////
                                  VIEWS
    //////////////////////////////////////////////////////////////*/

    /// @notice The owner: the EOA itself.
    function owner() external view returns (address) {
        return address(this);
    }

    /// @inheritdoc IPaceDelegate
    function domainSalt() external view returns (bytes32) {
        return _delegateStore().salt;
    }

    /*//////////////////////////////////////////////////////////////
                          WHAT THE CORE NEEDS
    //////////////////////////////////////////////////////////////*/

    function _ownerSigner() internal view override returns (address) {
        return address(this);
    }

    /// @dev Name "PaceDelegate", version "2", the chain id, the EOA and the set-up's salt.
    function _domainSeparator() internal view override returns (bytes32) {
        return _directDomain();
    }

    /// @dev As the direct path's, with salt `keccak256(abi.encode(salt, userOpHash))`.
    function _userOpDomainSeparator(bytes32 userOpHash) internal view override returns (bytes32) {
        return _userOpDomain(userOpHash);
    }

    /*//////////////////////////////////////////////////////////////
                               THE MODULE
    //////////////////////////////////////////////////////////////*/

    /// @dev Runs this call's data in the module by `delegatecall` and returns, or reverts, with
    ///      what it returned. Never returns to its caller.
    function _toAdmin() private {
        address admin = _admin;
        assembly ("memory-safe") {
            let m := mload(0x40)
            calldatacopy(m, 0x00, calldatasize())
            let ok := delegatecall(gas(), admin, m, calldatasize(), 0x00, 0x00)
            returndatacopy(m, 0x00, returndatasize())
            if iszero(ok) { revert(m, returndatasize()) }
            return(m, returndatasize())
        }
    }

    /// @dev `_toAdmin` for a view: the module's views write nothing.
    function _toAdminView() private view {
        function() internal forward = _toAdmin;
        function() internal view asView;
        assembly ("memory-safe") {
            asView := forward
        }
        asView();
    }
}
