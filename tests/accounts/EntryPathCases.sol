// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EntryPaths} from "./EntryPaths.sol";
import {IEntryPointV8} from "./EntryPointFixture.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";

/// @notice The paper's enforcement cases, written once and run on each entry path (a concrete
///         contract per path says which account and how a PDR reaches it): an approved batch
///         executes; a wrong signer, any changed signed field, a window not open or closed, a
///         stale simulation, a replayed nonce, a paused account and a violated outcome bound are
///         refused, and nothing moves. On the EntryPoint path a refusal in validation is the
///         EntryPoint's `FailedOp` (the whole `handleOps` reverts: nobody pays), one in execution
///         is a `UserOperationEvent` with `success` false carrying the account's error.
abstract contract EntryPathCases is EntryPaths {
    /*//////////////////////////////////////////////////////////////
                                 CASES
    //////////////////////////////////////////////////////////////*/

    function test_ApprovedBatchExecutes() public {
        address h = _holder();
        uint256 daiBefore = dai.balanceOf(h);
        uint256 recipientBefore = dai.balanceOf(recipient);
        _execute(_richPdr(h, 500 ether, _pack(_freshTerms())), VERIFIER_KEY);
        assertEq(daiBefore - dai.balanceOf(h), 500 ether);
        assertEq(dai.balanceOf(recipient) - recipientBefore, 500 ether);
        assertEq(weth.allowance(h, address(router)), 1 ether);
        assertEq(_nextSeq(0), 1);
    }

    function test_RefusedWhen_TheSignerIsNotTheVerifier() public {
        Pdr memory p = _richPdr(_holder(), 500 ether, _pack(_freshTerms()));
        uint256 before = dai.balanceOf(_holder());
        _expectRefused(
            p,
            OTHER_KEY,
            abi.encodeWithSelector(
                IPaceAccount.PaceAccountInvalidSigner.selector, vm.addr(OTHER_KEY)
            ),
            "AA24 signature error"
        );
        assertEq(dai.balanceOf(_holder()), before);
    }

    /// Any change to any signed field (calls, bounds, held assets, attestation, terms), or to
    /// the signature itself, is refused, and nothing moves.
    function testFuzz_RefusedWhen_AnySignedFieldChanges(uint8 field, uint256 x) public {
        address h = _holder();
        Pdr memory signed = _richPdr(h, 500 ether, _pack(_freshTerms()));
        Pdr memory presented = _mutated(signed, field, x);
        uint256 daiBefore = dai.balanceOf(h);
        uint64 seqBefore = _nextSeq(0);
        if (!_viaEntryPoint()) {
            (bytes32 r, bytes32 vs) = _signDirect(signed, VERIFIER_KEY);
            vm.expectRevert();
            _callDirect(presented, r, vs);
        } else {
            IPaceAccount.PackedUserOperation memory op = _op(signed, VERIFIER_KEY);
            bytes32 signedHash = ep.getUserOpHash(op);
            (, bytes32 r, bytes32 vs) = abi.decode(op.signature, (bytes32, bytes32, bytes32));
            op.callData = _pdrCallData(presented);
            op.signature = abi.encode(presented.attestation, r, vs);
            // The PDR binding alone, under the very user operation hash it was signed for.
            assertEq(_validate(_pace(), op, signedHash), SIG_FAILED, "validated");
            // And as a bundler would submit it.
            vm.expectPartialRevert(IEntryPointV8.FailedOp.selector);
            _handle(op);
        }
        assertEq(dai.balanceOf(h), daiBefore);
        assertEq(_nextSeq(0), seqBefore);
        assertEq(weth.allowance(h, address(router)), 0);
    }

    /// A flipped bit of the signature's `r` or `vs` is refused too.
    function testFuzz_RefusedWhen_TheSignatureChanges(bool inR, uint8 bit) public {
        address h = _holder();
        Pdr memory p = _richPdr(h, 500 ether, _pack(_freshTerms()));
        uint256 daiBefore = dai.balanceOf(h);
        bytes32 flip = bytes32(uint256(1) << bit);
        if (!_viaEntryPoint()) {
            (bytes32 r, bytes32 vs) = vm.signCompact(VERIFIER_KEY, _directDigest(p));
            if (inR) r ^= flip;
            else vs ^= flip;
            vm.expectRevert();
            IPaceAccount(_pace())
                .executeBatchPDR(p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms, r, vs);
        } else {
            IPaceAccount.PackedUserOperation memory op = _op(p, VERIFIER_KEY);
            (, bytes32 r, bytes32 vs) = abi.decode(op.signature, (bytes32, bytes32, bytes32));
            if (inR) r ^= flip;
            else vs ^= flip;
            op.signature = abi.encode(p.attestation, r, vs);
            _expectFailedOp(op, "AA24 signature error");
        }
        assertEq(dai.balanceOf(h), daiBefore);
    }

    function test_RefusedWhen_Expired() public {
        Terms memory t = _freshTerms();
        t.validUntil = uint40(block.timestamp + 10);
        Pdr memory p = _transferPdr(1 ether, _pack(t));
        vm.warp(block.timestamp + 11);
        _expectRefused(
            p,
            VERIFIER_KEY,
            abi.encodeWithSelector(
                IPaceAccount.PaceAccountExpired.selector, t.validUntil, block.timestamp
            ),
            "AA22 expired or not due"
        );
    }

    function test_RefusedWhen_NotYetValid() public {
        Terms memory t = _freshTerms();
        t.validAfter = uint40(block.timestamp + 100);
        _expectRefused(
            _transferPdr(1 ether, _pack(t)),
            VERIFIER_KEY,
            abi.encodeWithSelector(
                IPaceAccount.PaceAccountNotYetValid.selector, t.validAfter, block.timestamp
            ),
            "AA22 expired or not due"
        );
        // Once the window opens it executes.
        vm.warp(t.validAfter);
        _execute(_transferPdr(1 ether, _pack(t)), VERIFIER_KEY);
    }

    /// The window opens at `validAfter` itself on every path (`PdrTerms`: "first valid
    /// timestamp, inclusive"; the EntryPoint's own start is exclusive, so the account hands it
    /// `validAfter - 1`): refused a second before, executed at it.
    function test_TheWindowOpensAtValidAfterOnEveryPath() public {
        Terms memory t = _freshTerms();
        t.validAfter = uint40(block.timestamp + 100);
        Pdr memory p = _transferPdr(1 ether, _pack(t));
        vm.warp(t.validAfter - 1);
        _expectRefused(
            p,
            VERIFIER_KEY,
            abi.encodeWithSelector(
                IPaceAccount.PaceAccountNotYetValid.selector, t.validAfter, block.timestamp
            ),
            "AA22 expired or not due"
        );
        vm.warp(t.validAfter);
        _execute(p, VERIFIER_KEY);
    }

    /// The simulation is one block older than allowed: refused in execution (freshness reads
    /// NUMBER, banned in validation), so on the EntryPoint path the operation lands, fails,
    /// and its nonce is spent.
    function test_RefusedWhen_TheSimulationIsStale() public {
        Terms memory t = _freshTerms();
        Pdr memory p = _transferPdr(1 ether, _pack(t));
        uint256 before = dai.balanceOf(recipient);
        vm.roll(t.simulationBlock + MAX_AGE + 1);
        _expectRefused(
            p,
            VERIFIER_KEY,
            abi.encodeWithSelector(
                IPaceAccount.PaceAccountStaleSimulation.selector,
                t.simulationBlock,
                MAX_AGE,
                block.number
            ),
            ""
        );
        assertEq(dai.balanceOf(recipient), before);
        assertEq(_nextSeq(0), _viaEntryPoint() ? 1 : 0);
    }

    function test_RefusedWhen_Replayed() public {
        Pdr memory p = _transferPdr(1 ether, _pack(_freshTerms()));
        _execute(p, VERIFIER_KEY);
        uint256 before = dai.balanceOf(recipient);
        _expectRefused(
            p,
            VERIFIER_KEY,
            abi.encodeWithSelector(IPaceAccount.PaceAccountInvalidNonce.selector, 0, 1, 0),
            "AA25 invalid account nonce"
        );
        assertEq(dai.balanceOf(recipient), before);
    }

    function test_RefusedWhen_Paused() public {
        Pdr memory p = _transferPdr(1 ether, _pack(_freshTerms()));
        _pause();
        _expectRefused(
            p,
            VERIFIER_KEY,
            abi.encodeWithSelector(IPaceAccount.PaceAccountPaused.selector),
            "AA24 signature error"
        );
    }

    function test_RefusedWhen_TheOutcomeBoundIsViolated() public {
        address h = _holder();
        Pdr memory p = _transferPdr(10 ether, _pack(_freshTerms()));
        p.bounds = new IPaceAccount.Bound[](1);
        p.bounds[0] = _balanceBound(address(dai), 9 ether, 0);
        uint256 bal = dai.balanceOf(h);
        _expectRefused(
            p,
            VERIFIER_KEY,
            abi.encodeWithSelector(
                IPaceAccount.PaceAccountOutcomeOutOfBounds.selector,
                0,
                address(dai),
                bal,
                bal - 10 ether
            ),
            ""
        );
        assertEq(dai.balanceOf(h), bal);
    }

    /// A spending budget (set by the owner) caps what PDRs move, on every path.
    function test_RefusedWhen_TheBudgetIsExceeded() public {
        vm.prank(_ownerAddr());
        IPaceAccount(_pace()).setBudget(address(dai), 5 ether, 1 days);
        _execute(_transferPdr(4 ether, _pack(_freshTerms())), VERIFIER_KEY);
        _expectRefused(
            _transferPdr(2 ether, _pack(_freshTerms())),
            VERIFIER_KEY,
            abi.encodeWithSelector(
                IPaceAccount.PaceAccountBudgetExceeded.selector, address(dai), 6 ether, 5 ether
            ),
            ""
        );
    }

    /// The signed gas floor: a submission that leaves the call less gas is refused before the
    /// call (on the EntryPoint path the floor exceeds the signed callGasLimit).
    function test_RefusedWhen_TheGasFloorIsNotMet() public {
        Terms memory t = _freshTerms();
        t.callGasKib = 1000; // 1,024,000 gas
        Pdr memory p = _transferPdr(1 ether, _pack(t));
        if (_viaEntryPoint()) {
            (bool ok, bytes memory reason) = _handleRecorded(_op(p, VERIFIER_KEY));
            assertFalse(ok);
            // forge-lint: disable-next-line(unsafe-typecast)
            assertEq(bytes4(reason), IPaceAccount.PaceAccountInsufficientGas.selector);
        } else {
            (bytes32 r, bytes32 vs) = _signDirect(p, VERIFIER_KEY);
            vm.expectPartialRevert(IPaceAccount.PaceAccountInsufficientGas.selector);
            IPaceAccount(_pace()).executeBatchPDR{gas: 600_000}(
                p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms, r, vs
            );
        }
        assertEq(dai.balanceOf(recipient), 1 ether);
    }

    /// An `UNGRANTED` bound holds only while the grant-filter bits it names are clear, and only
    /// on an account that keeps the filter: the standalone account, until its owner grants a
    /// right over the token; an EIP-7702 EOA (whose key acts outside its code) never.
    function test_UngrantedBound_HoldsOnlyWhileNoGrantIsRecorded() public {
        address h = _holder();
        uint256 bit = uint256(1) << (uint160(address(weth)) & 15);
        Pdr memory p = _transferPdr(1 ether, _pack(_freshTerms()));
        p.bounds = new IPaceAccount.Bound[](1);
        p.bounds[0] = IPaceAccount.Bound(address(0), 4, bit, 0, 0, 0);
        bytes memory recorded =
            abi.encodeWithSelector(IPaceAccount.PaceAccountGrantRecorded.selector, 0, bit);
        if (h != address(account)) {
            assertEq(IPaceAccount(_pace()).grantFilter(), 0xffff, "no filter: all set");
            _expectRefused(p, VERIFIER_KEY, recorded, "");
            return;
        }
        assertEq(account.grantFilter() & bit, 0, "nothing granted over WETH yet");
        _execute(p, VERIFIER_KEY);
        vm.prank(owner);
        account.execute(address(weth), 0, _approveData(1));
        assertEq(account.grantFilter() & bit, bit, "the owner's approval is recorded");
        _expectRefused(
            _withBounds(_transferPdr(1 ether, _pack(_freshTerms())), p.bounds),
            VERIFIER_KEY,
            recorded,
            ""
        );
    }

    /// A `GRANTED` bound records its token after the calls where the account keeps a filter.
    function test_GrantedBound_RecordsItsToken() public {
        uint256 bit = uint256(1) << (uint160(address(weth)) & 15);
        Pdr memory p = _transferPdr(1 ether, _pack(_freshTerms()));
        p.bounds = new IPaceAccount.Bound[](1);
        p.bounds[0] = IPaceAccount.Bound(address(weth), 5, 0, 0, 0, 0);
        uint16 before = IPaceAccount(_pace()).grantFilter();
        _execute(p, VERIFIER_KEY);
        uint16 filter = IPaceAccount(_pace()).grantFilter();
        if (_holder() == address(account)) assertEq(filter, before | bit);
        else assertEq(filter, 0xffff);
    }

    /// @dev `p` with `bounds`.
    function _withBounds(Pdr memory p, IPaceAccount.Bound[] memory bounds)
        internal
        pure
        returns (Pdr memory)
    {
        p.bounds = bounds;
        return p;
    }

    /// @dev The holder's owner as a caller: the standalone account's owner, or the EOA.
    function _ownerAddr() internal view virtual returns (address) {
        return _holder() == eoa ? eoa : owner;
    }

    /*//////////////////////////////////////////////////////////////
                               MUTATION
    //////////////////////////////////////////////////////////////*/

    /// @dev A deep copy of `p` with signed field `field % 20` changed by `x`.
    function _mutated(Pdr memory p, uint8 field, uint256 x) internal pure returns (Pdr memory q) {
        q = _copy(p);
        uint256 d = x == 0 ? 1 : x;
        uint256 i = x % q.calls.length;
        uint256 f = field % 20;
        if (f == 0) {
            // forge-lint: disable-next-line(unsafe-typecast)
            q.calls[i].target = address(uint160(q.calls[i].target) ^ uint160(d | 1));
        } else if (f == 1) {
            q.calls[i].value ^= d;
        } else if (f == 2) {
            bytes memory data = q.calls[i].data;
            // forge-lint: disable-next-line(unsafe-typecast)
            data[x % data.length] = data[x % data.length] ^ bytes1(uint8(d | 1));
        } else if (f == 3) {
            // forge-lint: disable-next-line(unsafe-typecast)
            q.calls[i].data = bytes.concat(q.calls[i].data, bytes1(uint8(x)));
        } else if (f == 4) {
            bytes memory data = q.calls[i].data;
            assembly ("memory-safe") {
                mstore(data, sub(mload(data), 1))
            }
        } else if (f == 5) {
            (q.calls[0], q.calls[1]) = (q.calls[1], q.calls[0]);
        } else if (f == 6) {
            IPaceAccount.Call[] memory c = q.calls;
            assembly ("memory-safe") {
                mstore(c, sub(mload(c), 1))
            }
        } else if (f == 7) {
            // forge-lint: disable-next-line(unsafe-typecast)
            q.bounds[0].token = address(uint160(q.bounds[0].token) ^ uint160(d | 1));
        } else if (f == 8) {
            // forge-lint: disable-next-line(unsafe-typecast)
            q.bounds[0].kind ^= uint8(d | 1);
        } else if (f == 9) {
            q.bounds[0].id ^= d;
        } else if (f == 10) {
            q.bounds[0].maxOut ^= d;
        } else if (f == 11) {
            q.bounds[0].minIn ^= d;
        } else if (f == 12) {
            q.bounds[0].maxIn ^= d;
        } else if (f == 13) {
            q.bounds = new IPaceAccount.Bound[](0);
        } else if (f == 14) {
            // forge-lint: disable-next-line(unsafe-typecast)
            q.held[0] = address(uint160(q.held[0]) ^ uint160(d | 1));
        } else if (f == 15) {
            q.held = new address[](0);
        } else if (f == 16) {
            q.attestation ^= bytes32(d);
        } else if (f == 17) {
            q.terms ^= uint256(1) << (x % 256);
        } else if (f == 18) {
            // A second held asset.
            address[] memory held = new address[](2);
            held[0] = q.held[0];
            // forge-lint: disable-next-line(unsafe-typecast)
            held[1] = address(uint160(x));
            q.held = held;
        } else {
            // A second bound.
            IPaceAccount.Bound[] memory bounds = new IPaceAccount.Bound[](2);
            bounds[0] = q.bounds[0];
            bounds[1] = q.bounds[0];
            q.bounds = bounds;
        }
    }

    function _copy(Pdr memory p) internal pure returns (Pdr memory q) {
        q.calls = new IPaceAccount.Call[](p.calls.length);
        for (uint256 i; i < p.calls.length; ++i) {
            q.calls[i] = IPaceAccount.Call(
                p.calls[i].target, p.calls[i].value, bytes.concat(p.calls[i].data)
            );
        }
        q.bounds = new IPaceAccount.Bound[](p.bounds.length);
        for (uint256 i; i < p.bounds.length; ++i) {
            IPaceAccount.Bound memory b = p.bounds[i];
            q.bounds[i] = IPaceAccount.Bound(b.token, b.kind, b.id, b.maxOut, b.minIn, b.maxIn);
        }
        q.held = new address[](p.held.length);
        for (uint256 i; i < p.held.length; ++i) {
            q.held[i] = p.held[i];
        }
        q.attestation = p.attestation;
        q.terms = p.terms;
    }
}
