// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title IPaceDelegate
/// @notice Types, errors and events of `PaceDelegate`, the PACE account as an EIP-7702 delegate
///         of the user's own EOA. Everything else is `IPaceAccount`'s.
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
    ///         uint256 nonce,uint256 deadline)` in the domain `PaceDelegate`, version "1", the
    ///         chain id, the EOA: it binds the chain, the EOA, the delegate's code and a nonce
    ///         usable once, until `deadline` (a timestamp).
    struct Setup {
        address verifier;
        BudgetLimit[] budgets;
        LaneFloor[] lanes;
        uint256 nonce;
        uint256 deadline;
    }

    /// @notice The set-up's signature is not the EOA key's, or it names another delegate.
    error PaceDelegateInvalidSetupSignature(address recovered);
    /// @notice The set-up's nonce was used already.
    error PaceDelegateSetupReplayed(uint256 nonce);
    /// @notice The set-up's deadline has passed.
    error PaceDelegateSetupExpired(uint256 deadline, uint256 timestamp);
    /// @notice A set-up inside a PDR execution or an owner function.
    error PaceDelegateSetupLocked();

    /// @notice The EOA set the delegate up: its verifier, and the domain salt every PDR it
    ///         signs from now on is bound to.
    event DelegateSetUp(address indexed verifier, bytes32 salt, uint256 nonce);
}
