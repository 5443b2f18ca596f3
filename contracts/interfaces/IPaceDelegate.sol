// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title IPaceDelegate
/// @notice Types, errors, events and functions of `PaceDelegate`, the PACE account as an
///         EIP-7702 delegate of the user's own EOA, beyond the `IPaceAccount` it shares.
interface IPaceDelegate {
    /// @notice A spending budget to set: `token` (address(0) = ETH), `limit` per `period`.
    struct BudgetLimit {
        address token;
        uint128 limit;
        uint64 period;
    }

    /// @notice A nonce lane to move forward to `sequence` (a lane already there stays).
    struct LaneFloor {
        uint32 key;
        uint64 sequence;
    }

    /// @notice The delegate's set-up, signed by the EOA key as EIP-712 typed data
    ///         `Setup(address delegate,address verifier,BudgetLimit[] budgets,LaneFloor[] lanes,
    ///         uint256 nonce,uint256 deadline)` in the domain `PaceDelegate`, version "2", the
    ///         chain id, the EOA: it binds the chain, the EOA, the delegate's code and a nonce,
    ///         until `deadline` (a timestamp). Set-ups are ordered: a set-up lands only with a
    ///         nonce above the last one that landed (`setupNonce`; nonces start at 1, gaps
    ///         allowed), so neither a replay nor an older set-up that never landed can follow a
    ///         newer one.
    struct Setup {
        address verifier;
        BudgetLimit[] budgets;
        LaneFloor[] lanes;
        uint256 nonce;
        uint256 deadline;
    }

    /// @notice The set-up's signature is not the EOA key's, or it names another delegate.
    error PaceDelegateInvalidSetupSignature(address recovered);
    /// @notice The set-up's nonce is not above `last`, the nonce of the last set-up that
    ///         landed: a replay, or an older set-up than the one in force.
    error PaceDelegateSetupNonceNotIncreasing(uint256 last, uint256 nonce);
    /// @notice The stored state was written under layout version `layout`, which this code does
    ///         not know (a newer delegate's): the set-up refuses to read or rewrite it. Wipe the
    ///         namespace, or go back to the delegate that wrote it.
    error PaceDelegateUnknownLayout(uint64 layout);
    /// @notice The set-up's deadline has passed.
    error PaceDelegateSetupExpired(uint256 deadline, uint256 timestamp);
    /// @notice A set-up inside a PDR execution or an owner function.
    error PaceDelegateSetupLocked();

    /// @notice The EOA set the delegate up: its verifier, and the domain salt every PDR it
    ///         signs from now on is bound to.
    event DelegateSetUp(address indexed verifier, bytes32 salt, uint256 nonce);

    /// @notice Sets the delegate up: the verifier, budgets and lane floors, and a new domain
    ///         salt (every PDR signed before stops verifying). From the EOA itself `signature`
    ///         is ignored; from anyone else (a relayer) it is the EOA key's 65-byte signature of
    ///         `setupDigest(setup)`.
    function setUp(Setup calldata setup, bytes calldata signature) external;

    /// @notice The EIP-712 digest the EOA key signs for `setup` at this EOA.
    function setupDigest(Setup calldata setup) external view returns (bytes32);

    /// @notice The salt of this EOA's PDR domains, written by the last set-up.
    function domainSalt() external view returns (bytes32);

    /// @notice The layout version of the stored state (0: never set up, or wiped), written by
    ///         every set-up. A set-up refuses state of a version above its code's
    ///         (`PaceDelegateUnknownLayout`).
    function layoutVersion() external view returns (uint64);

    /// @notice The nonce of the last set-up that landed (0: none yet, or wiped); the next
    ///         set-up's nonce must be above it.
    function setupNonce() external view returns (uint256);
}
