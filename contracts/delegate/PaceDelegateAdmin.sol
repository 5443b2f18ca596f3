// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaceAccount} from "../interfaces/IPaceAccount.sol";
import {IPaceDelegate} from "../interfaces/IPaceDelegate.sol";
import {PdrHash} from "../libraries/PdrHash.sol";
import {DelegateState} from "./DelegateState.sol";

/// @title PaceDelegateAdmin
/// @notice The administration of a `PaceDelegate` account: its set-up, budgets, lane
///         cancellations, revocations and the views that go with them. The delegate's code
///         holds this module's address as an immutable and runs each of these functions by
///         `delegatecall`, in the delegated EOA's context: the EOA's storage, its transient lock,
///         its events, `msg.sender` and `msg.value` as the delegate received them. None of it is
///         on a PDR's path, so the delegate's own code keeps its room for the PDR checks.
/// @dev    Every owner function here checks the owner itself (`onlyOwner`: the EOA, or the
///         EntryPoint running an owner user operation) and takes the lock, exactly as the
///         delegate's own owner functions do. Called at its own address, the module acts on its
///         own empty storage, owned by nobody who could call it: it holds nothing.
contract PaceDelegateAdmin is DelegateState, IPaceDelegate {
    bytes32 private constant _DOMAIN_TYPEHASH = keccak256(
        "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"
    );

    bytes32 private constant _SETUP_TYPEHASH = keccak256(
        "Setup(address delegate,address verifier,BudgetLimit[] budgets,LaneFloor[] lanes,"
        "uint256 nonce,uint256 deadline)BudgetLimit(address token,uint128 limit,uint64 period)"
        "LaneFloor(uint32 key,uint64 sequence)"
    );
    bytes32 private constant _BUDGET_TYPEHASH =
        keccak256("BudgetLimit(address token,uint128 limit,uint64 period)");
    bytes32 private constant _LANE_TYPEHASH = keccak256("LaneFloor(uint32 key,uint64 sequence)");

    /// @dev The `PaceDelegate` code that deployed this module (the same for every EOA
    ///      delegating to it): what a set-up signature names.
    address private immutable _delegate = msg.sender;

    /*//////////////////////////////////////////////////////////////
                                 SET-UP
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IPaceDelegate
    function setUp(Setup calldata setup, bytes calldata signature) external {
        if (_locked()) revert PaceDelegateSetupLocked();
        if (!_isOwner(msg.sender)) {
            if (block.timestamp > setup.deadline) {
                revert PaceDelegateSetupExpired(setup.deadline, block.timestamp);
            }
            address recovered = _recover65(setupDigest(setup), signature);
            if (recovered != address(this)) revert PaceDelegateInvalidSetupSignature(recovered);
        }
        DelegateStore storage d = _delegateStore();
        uint64 layout = d.layout;
        if (layout > LAYOUT_VERSION) revert PaceDelegateUnknownLayout(layout);
        uint256 last = d.setupNonce;
        if (setup.nonce <= last) revert PaceDelegateSetupNonceNotIncreasing(last, setup.nonce);
        d.setupNonce = setup.nonce;
        d.layout = LAYOUT_VERSION;

        _setVerifier(setup.verifier);
        for (uint256 i; i < setup.budgets.length; ++i) {
            BudgetLimit calldata b = setup.budgets[i];
            _setBudget(b.token, b.limit, b.period);
        }
        for (uint256 i; i < setup.lanes.length; ++i) {
            LaneFloor calldata l = setup.lanes[i];
            if (l.sequence > _sequenceOf(l.key)) _raiseLane(l.key, l.sequence);
        }
        bytes32 salt = keccak256(abi.encode(d.salt, block.prevrandao, block.number, setup.nonce));
        d.salt = salt;
        emit DelegateSetUp(setup.verifier, salt, setup.nonce);
    }

    /// @inheritdoc IPaceDelegate
    function setupDigest(Setup calldata setup) public view returns (bytes32) {
        bytes32[] memory budgets = new bytes32[](setup.budgets.length);
        for (uint256 i; i < budgets.length; ++i) {
            BudgetLimit calldata b = setup.budgets[i];
            budgets[i] = keccak256(abi.encode(_BUDGET_TYPEHASH, b.token, b.limit, b.period));
        }
        bytes32[] memory lanes = new bytes32[](setup.lanes.length);
        for (uint256 i; i < lanes.length; ++i) {
            LaneFloor calldata l = setup.lanes[i];
            lanes[i] = keccak256(abi.encode(_LANE_TYPEHASH, l.key, l.sequence));
        }
        bytes32 structHash = keccak256(
            abi.encode(
                _SETUP_TYPEHASH,
                _delegate,
                setup.verifier,
                keccak256(abi.encodePacked(budgets)),
                keccak256(abi.encodePacked(lanes)),
                setup.nonce,
                setup.deadline
            )
        );
        bytes32 domain = keccak256(
            abi.encode(_DOMAIN_TYPEHASH, _NAME_HASH, _VERSION_HASH, block.chainid, address(this))
        );
        return keccak256(abi.encodePacked(hex"1901", domain, structHash));
    }

    /// @inheritdoc IPaceDelegate
    function domainSalt() external view returns (bytes32) {
        return _delegateStore().salt;
    }

    /// @inheritdoc IPaceDelegate
    function layoutVersion() external view returns (uint64) {
        return _delegateStore().layout;
    }

    /// @inheritdoc IPaceDelegate
    function setupNonce() external view returns (uint256) {
        return _delegateStore().setupNonce;
    }

    /*//////////////////////////////////////////////////////////////
                             ADMINISTRATION
    //////////////////////////////////////////////////////////////*/

    /// @notice The owner's raw atomic batch (`IPaceAccount.executeBatch`).
    function executeBatch(IPaceAccount.Call[] calldata calls) external payable onlyOwner {
        _executeBatch(calls);
    }

    /// @notice Rotates the verifier key (`IPaceAccount.setVerifier`).
    function setVerifier(address verifier_) external onlyOwner {
        _setVerifier(verifier_);
    }

    /// @notice Pauses or resumes PDR execution (`IPaceAccount.setPaused`).
    function setPaused(bool paused_) external onlyOwner {
        _setPaused(paused_);
    }

    /// @notice Sets the spending budget of `token` (`IPaceAccount.setBudget`).
    function setBudget(address token, uint128 limit, uint64 period) external onlyOwner {
        _setBudget(token, limit, period);
    }

    /// @notice Sets each listed allowance to 0 (`IPaceAccount.revokeAllowances`).
    function revokeAllowances(IPaceAccount.Allowance[] calldata allowances)
        external
        onlyOwner
        returns (uint256 failed)
    {
        return _revokeAllowances(allowances);
    }

    /// @notice Revokes each listed right (`IPaceAccount.revokeRights`).
    function revokeRights(IPaceAccount.Right[] calldata rights)
        external
        onlyOwner
        returns (uint256 failed)
    {
        return _revokeRights(rights);
    }

    /// @notice Moves nonce lane `key` forward to `sequence` (`IPaceAccount.cancelNonces`).
    function cancelNonces(uint32 key, uint64 sequence) external onlyOwner {
        _raiseLane(key, sequence);
    }

    /*//////////////////////////////////////////////////////////////
                                  VIEWS
    //////////////////////////////////////////////////////////////*/

    /// @notice The budget of `token` and its current period (`IPaceAccount.budget`).
    function budget(address token)
        external
        view
        returns (uint128 limit, uint64 period, uint64 windowStart, uint128 spent)
    {
        return _budget(token);
    }

    /// @notice The tokens that have a budget (`IPaceAccount.budgetTokens`).
    function budgetTokens() external view returns (address[] memory) {
        return _store().budgets.tokens;
    }

    /// @notice The direct path's EIP-712 domain separator (`IPaceAccount.domainSeparator`).
    function domainSeparator() external view returns (bytes32) {
        return _directDomain();
    }

    /// @notice The EntryPoint path's EIP-712 domain separator for user operation `userOpHash`
    ///         (`IPaceAccount.userOpDomainSeparator`).
    function userOpDomainSeparator(bytes32 userOpHash) external view returns (bytes32) {
        return _userOpDomain(userOpHash);
    }

    /// @notice The digest the verifier signs on the direct path (`IPaceAccount.pdrDigest`).
    function pdrDigest(
        IPaceAccount.Call[] calldata calls,
        IPaceAccount.Bound[] calldata bounds,
        address[] calldata held,
        IPaceAccount.Check[] calldata checks,
        bytes32 attestation,
        uint256 terms
    ) external view returns (bytes32) {
        return PdrHash.toTypedDataHash(
            _directDomain(), PdrHash.hashBatch(calls, bounds, held, checks, attestation, terms)
        );
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @dev A 65-byte (r, s, v) ECDSA recovery; address(0) for any other length or a failure.
    function _recover65(bytes32 digest, bytes calldata sig) private view returns (address signer) {
        assembly ("memory-safe") {
            if eq(sig.length, 65) {
                let m := mload(0x40)
                mstore(0x00, digest)
                mstore(0x20, byte(0, calldataload(add(sig.offset, 0x40))))
                calldatacopy(0x40, sig.offset, 0x40)
                let ok := staticcall(gas(), 0x01, 0x00, 0x80, 0x00, 0x20)
                signer := mul(mload(0x00), and(ok, eq(returndatasize(), 0x20)))
                mstore(0x60, 0)
                mstore(0x40, m)
            }
        }
    }
}
