// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaceDelegate} from "./interfaces/IPaceDelegate.sol";
import {PaceCore} from "./core/PaceCore.sol";

/// @title PaceDelegate
/// @notice The PACE account as an EIP-7702 delegate: the user's EOA keeps its address and
///         funds, its key stays cold, the agent holds no key, and only PDR-approved calls (the
///         checks of `core/PaceCore.sol`, directly or through the ERC-4337 EntryPoint v0.8) and
///         the EOA itself move value.
/// @dev    The owner is the EOA key: it can always act on its own, or re-delegate, and nothing
///         on-chain can stop it. What the delegate guards is the agent's path.
///
///         State lives in one ERC-7201 namespace (`pace.delegate.v1`), with a layout version;
///         nothing relies on a constructor or a per-user immutable. Set-up (verifier, budgets,
///         lanes) comes from the EOA itself (a transaction to itself, or an owner user
///         operation) or from a signature of the EOA key that binds the chain, the EOA, this
///         delegate's code, a nonce usable once and a deadline. Until a set-up, the verifier is
///         unset and every PDR is refused.
///
///         Replay across re-delegation: every set-up writes a new domain salt, drawn from the
///         previous one and the block it lands in (`prevrandao`, number). Every PDR's domain
///         carries the salt, so once storage is wiped or rewritten by another delegate and the
///         EOA sets this one up again (A -> B -> A), no PDR signed before verifies, even if an
///         old set-up is replayed. Another EOA delegating here has another domain
///         (`verifyingContract`), so a PDR signed for one EOA is worthless at another.
contract PaceDelegate is PaceCore, IPaceDelegate {
    /// @notice The storage layout this code reads and writes.
    uint64 public constant LAYOUT_VERSION = 1;

    /// @custom:storage-location erc7201:pace.delegate.v1
    struct DelegateStore {
        PaceStore core;
        bytes32 salt;
        uint64 layout;
        mapping(uint256 nonce => bool) setupUsed;
    }

    /// @dev keccak256(abi.encode(uint256(keccak256("pace.delegate.v1")) - 1)) & ~bytes32(0xff).
    uint256 private constant _STORE_SLOT =
        0x0a77491a114767f413aad0dc67297bb622aec1da0ef7bade1cd1421e1010f800;

    bytes32 private constant _DOMAIN_TYPEHASH = keccak256(
        "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"
    );
    bytes32 private constant _NAME_HASH = keccak256("PaceDelegate");
    bytes32 private constant _VERSION_HASH = keccak256("1");

    bytes32 private constant _SETUP_TYPEHASH = keccak256(
        "Setup(address delegate,address verifier,BudgetLimit[] budgets,LaneFloor[] lanes,"
        "uint256 nonce,uint256 deadline)BudgetLimit(address token,uint128 limit,uint64 period)"
        "LaneFloor(uint32 key,uint64 sequence)"
    );
    bytes32 private constant _BUDGET_TYPEHASH =
        keccak256("BudgetLimit(address token,uint128 limit,uint64 period)");
    bytes32 private constant _LANE_TYPEHASH = keccak256("LaneFloor(uint32 key,uint64 sequence)");

    /// @dev This code's own address (the same for every EOA delegating to it): what a set-up
    ///      signature names.
    address private immutable _self = address(this);

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
        if (d.setupUsed[setup.nonce]) revert PaceDelegateSetupReplayed(setup.nonce);
        d.setupUsed[setup.nonce] = true;
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
                _self,
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

    /// @inheritdoc IPaceDelegate
    function layoutVersion() external view returns (uint64) {
        return _delegateStore().layout;
    }

    /// @inheritdoc IPaceDelegate
    function setupUsed(uint256 nonce) external view returns (bool) {
        return _delegateStore().setupUsed[nonce];
    }

    /*//////////////////////////////////////////////////////////////
                          WHAT THE CORE NEEDS
    //////////////////////////////////////////////////////////////*/

    function _delegateStore() private pure returns (DelegateStore storage d) {
        assembly ("memory-safe") {
            d.slot := _STORE_SLOT
        }
    }

    /// @dev The core's state is the namespace's first member.
    function _store() internal pure override returns (PaceStore storage s) {
        assembly ("memory-safe") {
            s.slot := _STORE_SLOT
        }
    }

    /// @dev The EOA itself, or the EntryPoint running a user operation the EOA key signed.
    function _isOwner(address caller) internal view override returns (bool) {
        return caller == address(this) || caller == ENTRY_POINT;
    }

    function _ownerSigner() internal view override returns (address) {
        return address(this);
    }

    /// @dev Name "PaceDelegate", version "1", the chain id, the EOA and the set-up's salt.
    function _domainSeparator() internal view override returns (bytes32) {
        return _saltedDomain(_delegateStore().salt);
    }

    /// @dev As the direct path's, with salt `keccak256(abi.encode(salt, userOpHash))`.
    function _userOpDomainSeparator(bytes32 userOpHash) internal view override returns (bytes32) {
        return _saltedDomain(keccak256(abi.encode(_delegateStore().salt, userOpHash)));
    }

    /// @dev Runs at any EOA that delegates to it: each has its own storage and domain.
    function _checkHome() internal view override {}

    function _saltedDomain(bytes32 salt) private view returns (bytes32) {
        return keccak256(
            abi.encode(
                SALTED_DOMAIN_TYPEHASH,
                _NAME_HASH,
                _VERSION_HASH,
                block.chainid,
                address(this),
                salt
            )
        );
    }

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
