// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Test} from "forge-std/Test.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {HalmosToken} from "./HalmosToken.sol";

/// @notice The account's external surface that the proofs use, shared by `PaceAccount` and the
///         guard-less variants `make prove` generates from it (tests/halmos/generated/).
interface IAccountUnderProof is IPaceAccount {
    function owner() external view returns (address);
    function verifier() external view returns (address);
    function nextSequence(uint32 key) external view returns (uint64);
    function setBudget(address token, uint128 limit, uint64 period) external;
    function budget(address token)
        external
        view
        returns (uint128 limit, uint64 period, uint64 windowStart, uint128 spent);
    function pdrDigest(
        Call[] calldata calls,
        Bound[] calldata bounds,
        address[] calldata held,
        bytes32 attestation,
        uint256 terms
    ) external view returns (bytes32);
}

/// @notice Shared state of the halmos proofs: an account (the real one, or a variant with one
///         guard removed, chosen by `_deploy`) holding ETH and a token. Halmos treats `ecrecover`
///         as an uninterpreted function: any signature may recover to any address, so "the
///         verifier signed this PDR" is exactly `ecrecover(digest, v, r, s) == verifier`.
/// @dev    Not a forge test: forge's default profile skips tests/halmos (foundry.toml `skip`);
///         `make prove` builds it under the `halmos` profile.
abstract contract PaceHalmosBase is Test {
    address internal constant OWNER = address(0x0A11CE);
    address internal constant VERIFIER = address(0x5E7F1E12);

    IAccountUnderProof internal account;
    HalmosToken internal token;

    function setUp() public virtual {
        vm.roll(1000);
        vm.warp(1_700_000_000);
        token = new HalmosToken();
        account = IAccountUnderProof(_deploy(OWNER, VERIFIER));
        vm.deal(address(account), 100 ether);
        token.mint(address(account), 1e30);
    }

    /// @dev Deploys the account under proof.
    function _deploy(address owner_, address verifier_) internal virtual returns (address);

    /// @dev Submits the PDR through the lean path (its one call, no bounds, nothing held) or the
    ///         batch path; true when it executed.
    function _submit(
        bool lean,
        IPaceAccount.Call[] memory calls,
        IPaceAccount.Bound[] memory bounds,
        address[] memory held,
        bytes32 attestation,
        uint256 terms,
        bytes32 r,
        bytes32 vs
    ) internal returns (bool) {
        if (lean) return _submitLean(calls[0], attestation, terms, r, vs);
        try account.executeBatchPDR(calls, bounds, held, attestation, terms, r, vs) {
            return true;
        } catch {
            return false;
        }
    }

    function _submitLean(
        IPaceAccount.Call memory c,
        bytes32 attestation,
        uint256 terms,
        bytes32 r,
        bytes32 vs
    ) private returns (bool) {
        try account.executePDR(c.target, c.value, c.data, attestation, terms, r, vs) returns (
            bytes memory
        ) {
            return true;
        } catch {
            return false;
        }
    }

    /// @dev The address the compact signature (r, vs) recovers for `digest`, as the account
    ///      recovers it (EIP-2098).
    function _recover(bytes32 digest, bytes32 r, bytes32 vs) internal pure returns (address) {
        uint8 v = uint8(uint256(vs) >> 255) + 27;
        bytes32 s = bytes32((uint256(vs) << 1) >> 1);
        return ecrecover(digest, v, r, s);
    }

    function _one(address target, uint256 value, bytes memory data)
        internal
        pure
        returns (IPaceAccount.Call[] memory calls)
    {
        calls = new IPaceAccount.Call[](1);
        calls[0] = IPaceAccount.Call(target, value, data);
    }
}
