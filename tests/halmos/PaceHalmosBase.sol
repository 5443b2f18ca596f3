// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Test} from "forge-std/Test.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {PdrTerms} from "../../contracts/libraries/PdrTerms.sol";
import {HalmosToken} from "./HalmosToken.sol";

/// @notice The account's external surface that the proofs use, shared by `PaceAccount` and the
///         guard-less variants `make prove` generates from it (tests/halmos/generated/).
interface IAccountUnderProof is IPaceAccount {
    function owner() external view returns (address);
    function verifier() external view returns (address);
    function nextSequence(uint32 key) external view returns (uint64);
    function setBudget(address token, uint128 limit, uint64 period) external;
    function budgetTokens() external view returns (address[] memory);
    function budget(address token)
        external
        view
        returns (uint128 limit, uint64 period, uint64 windowStart, uint128 spent);
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
    /// @dev The ERC-4337 EntryPoint v0.8 the account trusts: it calls the owner's functions and
    ///      `executeUserOpPdr` only for a user operation the account's `validateUserOp` accepted.
    ///      That path is `EntryPointProofs.t.sol`'s (and the forge tests', against the real
    ///      EntryPoint); a property over "any caller" elsewhere means any caller but the owner,
    ///      the EntryPoint and the account itself.
    address internal constant ENTRY_POINT = 0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108;

    IAccountUnderProof internal account;
    HalmosToken internal token;
    /// @dev A delegate's administration module (`DelegateUnderProof`), address(0) for the
    ///      standalone account. Called directly, at its own address, the module acts on its own
    ///      empty storage; the proofs keep PDR and owner calls off it, since halmos cannot follow
    ///      the symbolic offsets its functions would decode from symbolic call data.
    address internal module;

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

    /// @dev Who the account's owner is, as it says: `OWNER` for the standalone account, the
    ///      account itself for a delegate (the EOA).
    function _owner() internal view returns (address) {
        return account.owner();
    }

    /// @dev Assumes `target` is not the delegate's module (nothing for the standalone account).
    function _assumeNotModule(address target) internal view {
        if (module != address(0)) vm.assume(target != module);
    }

    /// @dev Assumes no call `data` to the account makes targets the delegate's module, and no
    ///      raw call of the owner (`execute`, `executeBatch`: the EntryPoint proofs run them)
    ///      targets the account itself: halmos cannot follow the symbolic offsets either would
    ///      decode from symbolic call data. The calls: the first of `executeBatchPDR`,
    ///      `executeUserOpPdr` and `executeBatch` (halmos gives each array one element), the
    ///      target of `executePDR` and `execute`, read from the ABI encoding's words, whose
    ///      offsets halmos makes concrete (decoding the array would allocate memory by its
    ///      symbolic length).
    function _assumeTargets(bytes memory data) internal view {
        if (data.length < 4) return;
        // forge-lint: disable-next-line(unsafe-typecast)
        bytes4 selector = bytes4(data);
        address target;
        if (
            selector == IPaceAccount.executeBatchPDR.selector
                || selector == IPaceAccount.executeUserOpPdr.selector
                || selector == IPaceAccount.executeBatch.selector
        ) {
            uint256 n;
            assembly ("memory-safe") {
                let args := add(data, 0x24)
                let array := add(args, mload(args))
                n := mload(array)
                let elements := add(array, 0x20)
                target := mload(add(elements, mload(elements)))
            }
            vm.assume(n <= 1);
            if (n == 0) return;
            if (selector == IPaceAccount.executeBatch.selector) {
                vm.assume(target != address(account));
            }
        } else if (
            selector == IPaceAccount.executePDR.selector
                || selector == IPaceAccount.execute.selector
        ) {
            assembly ("memory-safe") {
                target := mload(add(data, 0x24))
            }
            if (selector == IPaceAccount.execute.selector) vm.assume(target != address(account));
        } else {
            return;
        }
        _assumeNotModule(target);
    }

    /// @dev A PDR's attestation and signature, for a PDR whose terms `_submitSigned` fixes.
    struct Signed {
        bytes32 attestation;
        bytes32 r;
        bytes32 vs;
    }

    /// @dev Submits a batch PDR under terms that pass (lane 0, the next
    ///      sequence, always valid, fresh, no gas floor): window, nonce and gas checks only add
    ///      reverts, and fixing them keeps a proof within its time. True when it executed.
    function _submitSigned(
        IPaceAccount.Call[] memory calls,
        IPaceAccount.Bound[] memory bounds,
        address[] memory held,
        Signed memory s
    ) internal returns (bool) {
        return _submit(false, calls, bounds, held, s.attestation, _passingTerms(), s.r, s.vs);
    }

    /// @dev Submits a batch PDR with post-conditions `checks` (no bounds, nothing held) under
    ///      the terms `_submitSigned` fixes; true when it executed.
    function _submitChecked(
        IPaceAccount.Call[] memory calls,
        IPaceAccount.Check[] memory checks,
        Signed memory s
    ) internal returns (bool) {
        try account.executeBatchPDR(
            calls,
            new IPaceAccount.Bound[](0),
            new address[](0),
            checks,
            s.attestation,
            _passingTerms(),
            s.r,
            s.vs
        ) {
            return true;
        } catch {
            return false;
        }
    }

    /// @dev Lane 0, the next sequence, always valid, fresh, no gas floor.
    function _passingTerms() internal view returns (uint256) {
        return PdrTerms.pack(
            0,
            account.nextSequence(0),
            0,
            type(uint40).max,
            // forge-lint: disable-next-line(unsafe-typecast)
            uint48(block.number),
            0,
            0
        );
    }

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
        try account.executeBatchPDR(
            calls, bounds, held, new IPaceAccount.Check[](0), attestation, terms, r, vs
        ) {
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

    /// @dev Whether `data` is a PDR submission whose PDR `signer` signed.
    function _signedPdr(bytes memory data, address signer) internal view returns (bool) {
        if (data.length < 4) return false;
        // forge-lint: disable-next-line(unsafe-typecast)
        bytes4 selector = bytes4(data); // the first 4 bytes, by design
        bytes memory args = _arguments(data);
        if (selector == IPaceAccount.executePDR.selector) return _signedLean(args, signer);
        if (selector == IPaceAccount.executeBatchPDR.selector) return _signedBatch(args, signer);
        return false;
    }

    function _signedLean(bytes memory args, address signer) internal view returns (bool) {
        (address target, uint256 value) = abi.decode(args, (address, uint256));
        bytes memory callData = _bytesAt(args, 2);
        bytes32 digest = account.pdrDigest(
            _one(target, value, callData),
            new IPaceAccount.Bound[](0),
            new address[](0),
            new IPaceAccount.Check[](0),
            _word(args, 3),
            uint256(_word(args, 4))
        );
        return _recover(digest, _word(args, 5), _word(args, 6)) == signer;
    }

    function _signedBatch(bytes memory args, address signer) internal view returns (bool) {
        (
            IPaceAccount.Call[] memory calls,
            IPaceAccount.Bound[] memory bounds,
            address[] memory held,
            IPaceAccount.Check[] memory checks
        ) = abi.decode(
            args, (IPaceAccount.Call[], IPaceAccount.Bound[], address[], IPaceAccount.Check[])
        );
        bytes32 digest =
            account.pdrDigest(calls, bounds, held, checks, _word(args, 4), uint256(_word(args, 5)));
        return _recover(digest, _word(args, 6), _word(args, 7)) == signer;
    }

    /// @dev The terms of PDR submission `data` (call data with its selector), read from its
    ///      head words as the account decodes them: argument 4 of `executePDR(target, value,
    ///      data, attestation, terms, r, vs)` and of `executeUserOpPdr(calls, bounds, held,
    ///      checks, terms)`, argument 5 of `executeBatchPDR(calls, bounds, held, checks,
    ///      attestation, terms, r, vs)`; 0 for any other call data (lane 0, sequence 0).
    function _termsOf(bytes memory data) internal pure returns (uint256) {
        if (data.length < 4) return 0;
        // forge-lint: disable-next-line(unsafe-typecast)
        bytes4 selector = bytes4(data); // the first 4 bytes, by design
        if (
            selector == IPaceAccount.executePDR.selector
                || selector == IPaceAccount.executeUserOpPdr.selector
        ) return uint256(_argument(data, 4));
        if (selector == IPaceAccount.executeBatchPDR.selector) return uint256(_argument(data, 5));
        return 0;
    }

    /// @dev Head word `i` of the arguments of call data `data` (after its selector), 0 past its
    ///      end.
    function _argument(bytes memory data, uint256 i) internal pure returns (bytes32 w) {
        if (data.length < 4 + 32 * (i + 1)) return bytes32(0);
        assembly ("memory-safe") {
            w := mload(add(add(data, 0x24), shl(5, i)))
        }
    }

    /// @dev Head word `i` of ABI-encoded `args` (abi.decode of 7 values is stack-too-deep).
    function _word(bytes memory args, uint256 i) internal pure returns (bytes32 w) {
        assembly ("memory-safe") {
            w := mload(add(add(args, 0x20), shl(5, i)))
        }
    }

    /// @dev The `bytes` argument whose offset is head word `i` of `args`, in place.
    function _bytesAt(bytes memory args, uint256 i) internal pure returns (bytes memory b) {
        assembly ("memory-safe") {
            b := add(add(args, 0x20), mload(add(add(args, 0x20), shl(5, i))))
        }
    }

    /// @dev `data` without its selector, in place (no copy loop for halmos to unroll): the
    ///      length word moves 4 bytes up, over the selector.
    function _arguments(bytes memory data) internal pure returns (bytes memory args) {
        assembly ("memory-safe") {
            args := add(data, 4)
            mstore(args, sub(mload(data), 4))
        }
    }
}
