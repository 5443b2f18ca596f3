// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DefiFixture} from "./utils/DefiFixture.sol";
import {PaceAccount} from "../contracts/PaceAccount.sol";
import {IPaceAccount} from "../contracts/interfaces/IPaceAccount.sol";
import {ReentrantTarget} from "../contracts/mocks/ReentrantTarget.sol";

/// @notice The paper's 11 enforcement cases (section 7.4) and the checks PACE-rs adds.
contract PaceAccountTest is DefiFixture {
    function setUp() public {
        _deployDefi();
    }

    /*//////////////////////////////////////////////////////////////
                       VALID PDRS (paper cases 1-3)
    //////////////////////////////////////////////////////////////*/

    function test_ExecutesErc20Transfer() public {
        uint256 before = dai.balanceOf(recipient);
        _executeSigned(address(dai), 0, _transferData(500 ether));
        assertEq(dai.balanceOf(recipient) - before, 500 ether);
        assertEq(account.nextSequence(0), 1);
    }

    function test_ExecutesApproval() public {
        _executeSigned(address(weth), 0, _approveData(5 ether));
        assertEq(weth.allowance(address(account), address(router)), 5 ether);
    }

    function test_ExecutesAmmSwap() public {
        _executeSigned(address(weth), 0, _approveData(1 ether));
        uint256 quoted = router.getAmountsOut(1 ether, _path(address(weth), address(dai)))[1];
        uint256 daiBefore = dai.balanceOf(address(account));
        _executeSigned(address(router), 0, _swapData(1 ether, quoted));
        assertEq(dai.balanceOf(address(account)) - daiBefore, quoted);
        assertEq(account.nextSequence(0), 2);
    }

    function test_EmitsPdrExecutedWithTheSignedDigest() public {
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(1);
        IPaceAccount.Call[] memory calls = _one(address(dai), 0, _transferData(1));
        bytes32 digest = account.pdrDigest(calls, _noBounds(), _noHeld(), _noChecks(), att, t);
        (bytes32 r, bytes32 vs) = vm.signCompact(VERIFIER_KEY, digest);
        vm.expectEmit(address(account));
        emit IPaceAccount.PdrExecuted(digest);
        account.executePDR(address(dai), 0, calls[0].data, att, t, r, vs);
    }

    /*//////////////////////////////////////////////////////////////
                    REJECTED PDRS (paper cases 4-10)
    //////////////////////////////////////////////////////////////*/

    function test_RevertWhen_CalldataMutated() public {
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(1);
        (bytes32 r, bytes32 vs) =
            _sign(_one(address(dai), 0, _transferData(1 ether)), _noBounds(), att, t);
        bytes memory mutated = abi.encodeCall(dai.transfer, (makeAddr("attacker"), 1 ether));
        vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
        account.executePDR(address(dai), 0, mutated, att, t, r, vs);
    }

    function test_RevertWhen_TargetMutated() public {
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(1);
        (bytes32 r, bytes32 vs) =
            _sign(_one(address(dai), 0, _transferData(1 ether)), _noBounds(), att, t);
        vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
        account.executePDR(address(weth), 0, _transferData(1 ether), att, t, r, vs);
    }

    function test_RevertWhen_ValueMutated() public {
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(1);
        (bytes32 r, bytes32 vs) = _sign(_one(recipient, 0.1 ether, ""), _noBounds(), att, t);
        vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
        account.executePDR(recipient, 1 ether, "", att, t, r, vs);
    }

    function test_RevertWhen_Replayed() public {
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(1);
        bytes memory data = _transferData(1 ether);
        (bytes32 r, bytes32 vs) = _sign(_one(address(dai), 0, data), _noBounds(), att, t);
        account.executePDR(address(dai), 0, data, att, t, r, vs);
        vm.expectRevert(
            abi.encodeWithSelector(IPaceAccount.PaceAccountInvalidNonce.selector, 0, 1, 0)
        );
        account.executePDR(address(dai), 0, data, att, t, r, vs);
    }

    function test_RevertWhen_Expired() public {
        Terms memory terms = _terms();
        terms.validUntil = uint40(block.timestamp + 10);
        uint256 t = _pack(terms);
        bytes32 att = _attestation(1);
        bytes memory data = _transferData(1 ether);
        (bytes32 r, bytes32 vs) = _sign(_one(address(dai), 0, data), _noBounds(), att, t);
        vm.warp(block.timestamp + 11);
        vm.expectRevert(
            abi.encodeWithSelector(
                IPaceAccount.PaceAccountExpired.selector, terms.validUntil, block.timestamp
            )
        );
        account.executePDR(address(dai), 0, data, att, t, r, vs);
    }

    function test_RevertWhen_WrongVerifier() public {
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(1);
        bytes memory data = _transferData(1 ether);
        (bytes32 r, bytes32 vs) =
            _signFor(account, OTHER_KEY, _one(address(dai), 0, data), _noBounds(), att, t);
        vm.expectRevert(
            abi.encodeWithSelector(
                IPaceAccount.PaceAccountInvalidSigner.selector, vm.addr(OTHER_KEY)
            )
        );
        account.executePDR(address(dai), 0, data, att, t, r, vs);
    }

    function test_RevertWhen_SignedForAnotherAccount() public {
        PaceAccount other = new PaceAccount(owner, verifierAddr);
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(1);
        bytes memory data = _transferData(1 ether);
        (bytes32 r, bytes32 vs) =
            _signFor(other, VERIFIER_KEY, _one(address(dai), 0, data), _noBounds(), att, t);
        vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
        account.executePDR(address(dai), 0, data, att, t, r, vs);
    }

    function test_RevertWhen_SignedForAnotherChain() public {
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(1);
        bytes memory data = _transferData(1 ether);
        uint256 home = block.chainid;
        vm.chainId(1);
        (bytes32 r, bytes32 vs) = _sign(_one(address(dai), 0, data), _noBounds(), att, t);
        vm.chainId(home);
        vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
        account.executePDR(address(dai), 0, data, att, t, r, vs);
    }

    /*//////////////////////////////////////////////////////////////
                        OWNER PATH (paper case 11)
    //////////////////////////////////////////////////////////////*/

    function test_OwnerExecutesRawCall() public {
        vm.prank(owner);
        account.execute(address(dai), 0, _transferData(7 ether));
        assertEq(dai.balanceOf(recipient), 8 ether);
    }

    function test_RevertWhen_RawCallNotFromOwner() public {
        vm.expectRevert(
            abi.encodeWithSelector(IPaceAccount.PaceAccountNotOwner.selector, address(this))
        );
        account.execute(address(dai), 0, _transferData(7 ether));
    }

    function test_OwnerExecutesRawBatch() public {
        IPaceAccount.Call[] memory calls = new IPaceAccount.Call[](2);
        calls[0] = IPaceAccount.Call(address(dai), 0, _transferData(1 ether));
        calls[1] = IPaceAccount.Call(address(dai), 0, _transferData(2 ether));
        vm.prank(owner);
        account.executeBatch(calls);
        assertEq(dai.balanceOf(recipient), 4 ether);
    }

    /*//////////////////////////////////////////////////////////////
                        CHECKS PACE-RS ADDS
    //////////////////////////////////////////////////////////////*/

    function test_RevertWhen_NotYetValid() public {
        Terms memory terms = _terms();
        terms.validAfter = uint40(block.timestamp + 60);
        uint256 t = _pack(terms);
        bytes32 att = _attestation(1);
        bytes memory data = _transferData(1 ether);
        (bytes32 r, bytes32 vs) = _sign(_one(address(dai), 0, data), _noBounds(), att, t);
        vm.expectRevert(
            abi.encodeWithSelector(
                IPaceAccount.PaceAccountNotYetValid.selector, terms.validAfter, block.timestamp
            )
        );
        account.executePDR(address(dai), 0, data, att, t, r, vs);
        vm.warp(block.timestamp + 60);
        account.executePDR(address(dai), 0, data, att, t, r, vs);
    }

    function test_RevertWhen_SimulationStale() public {
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(1);
        bytes memory data = _transferData(1 ether);
        (bytes32 r, bytes32 vs) = _sign(_one(address(dai), 0, data), _noBounds(), att, t);
        vm.roll(block.number + MAX_AGE); // age = MAX_AGE + 1
        vm.expectRevert(
            abi.encodeWithSelector(
                IPaceAccount.PaceAccountStaleSimulation.selector,
                block.number - MAX_AGE - 1,
                MAX_AGE,
                block.number
            )
        );
        account.executePDR(address(dai), 0, data, att, t, r, vs);
    }

    function test_SimulationAtExactlyMaxAgeExecutes() public {
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(1);
        bytes memory data = _transferData(1 ether);
        (bytes32 r, bytes32 vs) = _sign(_one(address(dai), 0, data), _noBounds(), att, t);
        vm.roll(block.number + MAX_AGE - 1); // age = MAX_AGE
        account.executePDR(address(dai), 0, data, att, t, r, vs);
    }

    function test_RevertWhen_SimulationInFuture() public {
        Terms memory terms = _terms();
        terms.simulationBlock = uint64(block.number + 1);
        uint256 t = _pack(terms);
        bytes32 att = _attestation(1);
        bytes memory data = _transferData(1 ether);
        (bytes32 r, bytes32 vs) = _sign(_one(address(dai), 0, data), _noBounds(), att, t);
        vm.expectRevert(
            abi.encodeWithSelector(
                IPaceAccount.PaceAccountSimulationInFuture.selector, block.number + 1, block.number
            )
        );
        account.executePDR(address(dai), 0, data, att, t, r, vs);
    }

    function test_RevertWhen_Paused() public {
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(1);
        bytes memory data = _transferData(1 ether);
        (bytes32 r, bytes32 vs) = _sign(_one(address(dai), 0, data), _noBounds(), att, t);
        vm.prank(owner);
        account.setPaused(true);
        assertTrue(account.paused());
        vm.expectRevert(IPaceAccount.PaceAccountPaused.selector);
        account.executePDR(address(dai), 0, data, att, t, r, vs);
        // The owner path stays open, and resuming restores PDR execution with the same record.
        vm.startPrank(owner);
        account.execute(address(dai), 0, _transferData(1));
        account.setPaused(false);
        vm.stopPrank();
        assertEq(account.verifier(), verifierAddr);
        account.executePDR(address(dai), 0, data, att, t, r, vs);
    }

    function test_RevertWhen_AdminCalledByNonOwner() public {
        vm.expectRevert(
            abi.encodeWithSelector(IPaceAccount.PaceAccountNotOwner.selector, address(this))
        );
        account.setPaused(true);
        vm.expectRevert(
            abi.encodeWithSelector(IPaceAccount.PaceAccountNotOwner.selector, address(this))
        );
        account.setVerifier(address(this));
        vm.expectRevert(
            abi.encodeWithSelector(IPaceAccount.PaceAccountNotOwner.selector, address(this))
        );
        account.cancelNonces(0, 5);
    }

    function test_RotatedVerifierInvalidatesOldKey() public {
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(1);
        bytes memory data = _transferData(1 ether);
        (bytes32 r, bytes32 vs) = _sign(_one(address(dai), 0, data), _noBounds(), att, t);
        vm.expectEmit(address(account));
        emit IPaceAccount.VerifierRotated(verifierAddr, vm.addr(OTHER_KEY));
        vm.prank(owner);
        account.setVerifier(vm.addr(OTHER_KEY));
        vm.expectRevert(
            abi.encodeWithSelector(IPaceAccount.PaceAccountInvalidSigner.selector, verifierAddr)
        );
        account.executePDR(address(dai), 0, data, att, t, r, vs);
        (r, vs) = _signFor(account, OTHER_KEY, _one(address(dai), 0, data), _noBounds(), att, t);
        account.executePDR(address(dai), 0, data, att, t, r, vs);
        assertEq(account.nextSequence(0), 1);
    }

    function test_RevertWhen_VerifierIsZero() public {
        vm.expectRevert(IPaceAccount.PaceAccountZeroVerifier.selector);
        new PaceAccount(owner, address(0));
        vm.prank(owner);
        vm.expectRevert(IPaceAccount.PaceAccountZeroVerifier.selector);
        account.setVerifier(address(0));
    }

    /// An owner of zero would leave the account without administration; the account as its own
    /// owner would let a signed PDR call `setVerifier` or `setBudget` on itself.
    function test_RevertWhen_OwnerIsZeroOrTheAccountItself() public {
        vm.expectRevert(
            abi.encodeWithSelector(IPaceAccount.PaceAccountInvalidOwner.selector, address(0))
        );
        new PaceAccount(address(0), verifierAddr);
        address next = vm.computeCreateAddress(address(this), vm.getNonce(address(this)));
        vm.expectRevert(abi.encodeWithSelector(IPaceAccount.PaceAccountInvalidOwner.selector, next));
        new PaceAccount(next, verifierAddr);
    }

    /// `cancelNonces(key, type(uint64).max)` retires a lane: every PDR on it, the one carrying
    /// the last sequence included, reverts with the lane's own error.
    function test_RevertWhen_TheLaneIsRetired() public {
        uint32[2] memory keys = [uint32(0), 7];
        for (uint256 i; i < keys.length; ++i) {
            vm.prank(owner);
            account.cancelNonces(keys[i], type(uint64).max);
            assertEq(account.nextSequence(keys[i]), type(uint64).max);
            uint64[2] memory seqs = [type(uint64).max, 0];
            for (uint256 j; j < seqs.length; ++j) {
                Terms memory terms = _terms();
                terms.key = keys[i];
                terms.sequence = seqs[j];
                uint256 t = _pack(terms);
                bytes memory data = _transferData(1 ether);
                (bytes32 r, bytes32 vs) =
                    _sign(_one(address(dai), 0, data), _noBounds(), bytes32(0), t);
                vm.expectRevert(
                    abi.encodeWithSelector(IPaceAccount.PaceAccountLaneRetired.selector, keys[i])
                );
                account.executePDR(address(dai), 0, data, bytes32(0), t, r, vs);
            }
        }
    }

    function test_CancelNoncesRevokesSignedPdrs() public {
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(1);
        bytes memory data = _transferData(1 ether);
        (bytes32 r, bytes32 vs) = _sign(_one(address(dai), 0, data), _noBounds(), att, t);
        vm.prank(owner);
        account.cancelNonces(0, 3);
        vm.expectRevert(
            abi.encodeWithSelector(IPaceAccount.PaceAccountInvalidNonce.selector, 0, 3, 0)
        );
        account.executePDR(address(dai), 0, data, att, t, r, vs);
        vm.prank(owner);
        vm.expectRevert(
            abi.encodeWithSelector(IPaceAccount.PaceAccountNonceNotIncreasing.selector, 0, 3, 2)
        );
        account.cancelNonces(0, 2);
    }

    function test_NonceLanesAreIndependent() public {
        bytes memory data = _transferData(1 ether);
        Terms memory terms = _terms();
        terms.key = 9;
        uint256 t = _pack(terms);
        bytes32 att = _attestation(1);
        (bytes32 r, bytes32 vs) = _sign(_one(address(dai), 0, data), _noBounds(), att, t);
        account.executePDR(address(dai), 0, data, att, t, r, vs);
        assertEq(account.nextSequence(9), 1);
        assertEq(account.nextSequence(0), 0);
        vm.expectRevert(
            abi.encodeWithSelector(IPaceAccount.PaceAccountInvalidNonce.selector, 9, 1, 0)
        );
        account.executePDR(address(dai), 0, data, att, t, r, vs);
        _executeSigned(address(dai), 0, data); // lane 0 still at 0
    }

    function test_RevertWhen_NonceOutOfOrder() public {
        Terms memory terms = _terms();
        terms.sequence = 1;
        uint256 t = _pack(terms);
        bytes32 att = _attestation(1);
        bytes memory data = _transferData(1 ether);
        (bytes32 r, bytes32 vs) = _sign(_one(address(dai), 0, data), _noBounds(), att, t);
        vm.expectRevert(
            abi.encodeWithSelector(IPaceAccount.PaceAccountInvalidNonce.selector, 0, 0, 1)
        );
        account.executePDR(address(dai), 0, data, att, t, r, vs);
    }

    function test_ExecutesAtomicBatch() public {
        IPaceAccount.Call[] memory calls = new IPaceAccount.Call[](2);
        calls[0] = IPaceAccount.Call(address(weth), 0, _approveData(2 ether));
        calls[1] = IPaceAccount.Call(address(router), 0, _swapData(2 ether, 0));
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(1);
        (bytes32 r, bytes32 vs) = _sign(calls, _noBounds(), att, t);
        uint256 wethBefore = weth.balanceOf(address(account));
        account.executeBatchPDR(calls, _noBounds(), _noHeld(), _noChecks(), att, t, r, vs);
        assertEq(wethBefore - weth.balanceOf(address(account)), 2 ether);
        assertEq(weth.allowance(address(account), address(router)), 0);
    }

    function test_RevertWhen_BatchCallFailsEverythingRollsBack() public {
        IPaceAccount.Call[] memory calls = new IPaceAccount.Call[](2);
        calls[0] = IPaceAccount.Call(address(dai), 0, _transferData(1 ether));
        calls[1] = IPaceAccount.Call(address(dai), 0, _transferData(1_000_000 ether)); // more than held
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(1);
        (bytes32 r, bytes32 vs) = _sign(calls, _noBounds(), att, t);
        vm.expectPartialRevert(IPaceAccount.PaceAccountCallFailed.selector);
        account.executeBatchPDR(calls, _noBounds(), _noHeld(), _noChecks(), att, t, r, vs);
        assertEq(dai.balanceOf(recipient), 1 ether);
        assertEq(account.nextSequence(0), 0);
    }

    function test_RevertWhen_BatchEmpty() public {
        IPaceAccount.Call[] memory calls = new IPaceAccount.Call[](0);
        vm.expectRevert(IPaceAccount.PaceAccountEmptyBatch.selector);
        account.executeBatchPDR(
            calls, _noBounds(), _noHeld(), _noChecks(), bytes32(0), 0, bytes32(0), bytes32(0)
        );
    }

    function test_RevertWhen_BatchReordered() public {
        IPaceAccount.Call[] memory calls = new IPaceAccount.Call[](2);
        calls[0] = IPaceAccount.Call(address(weth), 0, _approveData(2 ether));
        calls[1] = IPaceAccount.Call(address(router), 0, _swapData(2 ether, 0));
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(1);
        (bytes32 r, bytes32 vs) = _sign(calls, _noBounds(), att, t);
        (calls[0], calls[1]) = (calls[1], calls[0]);
        vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
        account.executeBatchPDR(calls, _noBounds(), _noHeld(), _noChecks(), att, t, r, vs);
    }

    /*//////////////////////////////////////////////////////////////
                            OUTCOME BOUNDS
    //////////////////////////////////////////////////////////////*/

    function _swapBatch(uint256 amountIn, uint256 minOut)
        internal
        view
        returns (IPaceAccount.Call[] memory calls)
    {
        calls = new IPaceAccount.Call[](2);
        calls[0] = IPaceAccount.Call(address(weth), 0, _approveData(amountIn));
        calls[1] = IPaceAccount.Call(address(router), 0, _swapData(amountIn, minOut));
    }

    function _swapBounds(uint256 maxWethOut, uint256 minDaiIn)
        internal
        view
        returns (IPaceAccount.Bound[] memory b)
    {
        b = new IPaceAccount.Bound[](2);
        b[0] = _balanceBound(address(weth), maxWethOut, 0);
        b[1] = _balanceBound(address(dai), 0, minDaiIn);
    }

    function test_BoundedSwapExecutesWhenStateIsUnchanged() public {
        uint256 quoted = router.getAmountsOut(10 ether, _path(address(weth), address(dai)))[1];
        IPaceAccount.Call[] memory calls = _swapBatch(10 ether, 0);
        IPaceAccount.Bound[] memory bounds = _swapBounds(10 ether, quoted * 9990 / 10_000);
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(1);
        (bytes32 r, bytes32 vs) = _sign(calls, bounds, att, t);
        uint256 daiBefore = dai.balanceOf(address(account));
        account.executeBatchPDR(calls, bounds, _noHeld(), _noChecks(), att, t, r, vs);
        assertEq(dai.balanceOf(address(account)) - daiBefore, quoted);
    }

    /// The router's own min-out is 0 (what an agent that "forgot" slippage signs), so only the
    /// signed outcome bound protects the account when the pool moves before execution.
    function test_RevertWhen_ReservesMoveBeforeExecution() public {
        uint256 quoted = router.getAmountsOut(10 ether, _path(address(weth), address(dai)))[1];
        IPaceAccount.Call[] memory calls = _swapBatch(10 ether, 0);
        IPaceAccount.Bound[] memory bounds = _swapBounds(10 ether, quoted * 9950 / 10_000);
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(1);
        (bytes32 r, bytes32 vs) = _sign(calls, bounds, att, t);

        // A front-runner dumps 500 WETH into the pool between signing and execution.
        address mev = makeAddr("mev");
        weth.mint(mev, 500 ether);
        vm.startPrank(mev);
        weth.approve(address(router), 500 ether);
        router.swapExactTokensForTokens(
            500 ether, 0, _path(address(weth), address(dai)), mev, block.timestamp
        );
        vm.stopPrank();

        uint256 daiBefore = dai.balanceOf(address(account));
        uint256 delivered = router.getAmountsOut(10 ether, _path(address(weth), address(dai)))[1];
        assertLt(delivered, quoted * 9950 / 10_000);
        vm.expectRevert(
            abi.encodeWithSelector(
                IPaceAccount.PaceAccountOutcomeOutOfBounds.selector,
                1,
                address(dai),
                daiBefore,
                daiBefore + delivered
            )
        );
        account.executeBatchPDR(calls, bounds, _noHeld(), _noChecks(), att, t, r, vs);
        assertEq(account.nextSequence(0), 0);
    }

    function test_RevertWhen_OutflowExceedsBound() public {
        IPaceAccount.Call[] memory calls = _one(address(dai), 0, _transferData(10 ether));
        IPaceAccount.Bound[] memory bounds = new IPaceAccount.Bound[](1);
        bounds[0] = _balanceBound(address(dai), 9 ether, 0);
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(1);
        (bytes32 r, bytes32 vs) = _sign(calls, bounds, att, t);
        uint256 bal = dai.balanceOf(address(account));
        vm.expectRevert(
            abi.encodeWithSelector(
                IPaceAccount.PaceAccountOutcomeOutOfBounds.selector,
                0,
                address(dai),
                bal,
                bal - 10 ether
            )
        );
        account.executeBatchPDR(calls, bounds, _noHeld(), _noChecks(), att, t, r, vs);
    }

    function test_RevertWhen_EthOutflowExceedsBound() public {
        IPaceAccount.Call[] memory calls = _one(recipient, 2 ether, "");
        IPaceAccount.Bound[] memory bounds = new IPaceAccount.Bound[](1);
        bounds[0] = _balanceBound(address(0), 1 ether, 0);
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(1);
        (bytes32 r, bytes32 vs) = _sign(calls, bounds, att, t);
        vm.expectPartialRevert(IPaceAccount.PaceAccountOutcomeOutOfBounds.selector);
        account.executeBatchPDR(calls, bounds, _noHeld(), _noChecks(), att, t, r, vs);
        bounds[0].maxOut = 2 ether;
        (r, vs) = _sign(calls, bounds, att, t);
        account.executeBatchPDR(calls, bounds, _noHeld(), _noChecks(), att, t, r, vs);
        assertEq(recipient.balance, 2 ether);
    }

    function test_RevertWhen_BoundMutated() public {
        IPaceAccount.Call[] memory calls = _swapBatch(1 ether, 0);
        IPaceAccount.Bound[] memory bounds = _swapBounds(1 ether, 900 ether);
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(1);
        (bytes32 r, bytes32 vs) = _sign(calls, bounds, att, t);
        bounds[1].minIn = 0;
        vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
        account.executeBatchPDR(calls, bounds, _noHeld(), _noChecks(), att, t, r, vs);
        bounds = new IPaceAccount.Bound[](0);
        vm.expectPartialRevert(IPaceAccount.PaceAccountInvalidSigner.selector);
        account.executeBatchPDR(calls, bounds, _noHeld(), _noChecks(), att, t, r, vs);
    }

    /*//////////////////////////////////////////////////////////////
                               REENTRANCY
    //////////////////////////////////////////////////////////////*/

    /// The target calls back into executePDR with the very PDR being executed: the nonce is
    /// already consumed, so the re-entry fails and the outer call still completes once.
    function test_ReentryCannotReuseThePdr() public {
        ReentrantTarget target = new ReentrantTarget();
        bytes memory data = abi.encodeWithSignature("poke()");
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(1);
        (bytes32 r, bytes32 vs) = _sign(_one(address(target), 0, data), _noBounds(), att, t);
        target.setReentry(
            address(account),
            abi.encodeCall(account.executePDR, (address(target), 0, data, att, t, r, vs))
        );
        account.executePDR(address(target), 0, data, att, t, r, vs);
        assertEq(target.attempts(), 1);
        assertFalse(target.lastSuccess());
        assertEq(
            target.lastReturnData(),
            abi.encodeWithSelector(IPaceAccount.PaceAccountInvalidNonce.selector, 0, 1, 0)
        );
        assertEq(account.nextSequence(0), 1);
    }

    /// Inside a bounded execution no other PDR may start: its effects would blur the bounds.
    function test_ReentryIntoBoundedExecutionIsLocked() public {
        ReentrantTarget target = new ReentrantTarget();
        // A second, independently valid PDR on another lane.
        bytes memory inner = _transferData(1 ether);
        Terms memory innerTerms = _terms();
        innerTerms.key = 1;
        uint256 ti = _pack(innerTerms);
        bytes32 atti = _attestation(2);
        (bytes32 ri, bytes32 vsi) = _sign(_one(address(dai), 0, inner), _noBounds(), atti, ti);
        target.setReentry(
            address(account),
            abi.encodeCall(account.executePDR, (address(dai), 0, inner, atti, ti, ri, vsi))
        );

        IPaceAccount.Call[] memory calls =
            _one(address(target), 0, abi.encodeWithSignature("poke()"));
        IPaceAccount.Bound[] memory bounds = new IPaceAccount.Bound[](1);
        bounds[0] = _balanceBound(address(dai), 0, 0);
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(1);
        (bytes32 r, bytes32 vs) = _sign(calls, bounds, att, t);
        account.executeBatchPDR(calls, bounds, _noHeld(), _noChecks(), att, t, r, vs);
        assertFalse(target.lastSuccess());
        assertEq(
            target.lastReturnData(),
            abi.encodeWithSelector(IPaceAccount.PaceAccountReentrant.selector)
        );
        // Outside the bounded execution the inner PDR is fine.
        account.executePDR(address(dai), 0, inner, atti, ti, ri, vsi);
    }

    /// The lean path holds the lock too: a PDR executes the same way through either entry
    /// point, and no second PDR can start inside it.
    function test_ReentryIntoALeanExecutionIsLocked() public {
        ReentrantTarget target = new ReentrantTarget();
        bytes memory inner = _transferData(1 ether);
        Terms memory innerTerms = _terms();
        innerTerms.key = 1;
        uint256 ti = _pack(innerTerms);
        IPaceAccount.Call[] memory innerCalls = _one(address(dai), 0, inner);
        (bytes32 ri, bytes32 vsi) = _sign(innerCalls, _noBounds(), bytes32(0), ti);
        bytes[2] memory reentries = [
            abi.encodeCall(account.executePDR, (address(dai), 0, inner, bytes32(0), ti, ri, vsi)),
            abi.encodeCall(
                account.executeBatchPDR,
                (innerCalls, _noBounds(), _noHeld(), _noChecks(), bytes32(0), ti, ri, vsi)
            )
        ];
        for (uint256 i; i < reentries.length; ++i) {
            target.setReentry(address(account), reentries[i]);
            _executeSigned(address(target), 0, abi.encodeWithSignature("poke()"));
            assertFalse(target.lastSuccess());
            assertEq(
                target.lastReturnData(),
                abi.encodeWithSelector(IPaceAccount.PaceAccountReentrant.selector)
            );
        }
        assertEq(account.nextSequence(1), 0);
        assertEq(dai.balanceOf(recipient), 1 ether);
        // Outside it the inner PDR is fine.
        account.executePDR(address(dai), 0, inner, bytes32(0), ti, ri, vsi);
    }

    /// A PDR calls out only: a call to the account itself (here `setVerifier`, which would fail
    /// on the owner check anyway) is refused before it starts, on either path.
    function test_RevertWhen_APdrCallTargetsTheAccount() public {
        bytes memory data = abi.encodeCall(account.setVerifier, (makeAddr("attacker")));
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(1);
        (bytes32 r, bytes32 vs) = _sign(_one(address(account), 0, data), _noBounds(), att, t);
        vm.expectRevert(abi.encodeWithSelector(IPaceAccount.PaceAccountSelfCall.selector, 0));
        account.executePDR(address(account), 0, data, att, t, r, vs);

        IPaceAccount.Call[] memory calls = new IPaceAccount.Call[](2);
        calls[0] = IPaceAccount.Call(address(dai), 0, _transferData(1 ether));
        calls[1] = IPaceAccount.Call(address(account), 1 ether, "");
        (r, vs) = _sign(calls, _noBounds(), att, t);
        vm.expectRevert(abi.encodeWithSelector(IPaceAccount.PaceAccountSelfCall.selector, 1));
        account.executeBatchPDR(calls, _noBounds(), _noHeld(), _noChecks(), att, t, r, vs);
        assertEq(account.verifier(), verifierAddr);
        assertEq(account.nextSequence(0), 0);
    }

    /// Storage the constructor never wrote (an EOA delegating to the account's code under
    /// EIP-7702) has a zero verifier; a signature that recovers to nothing must not match it.
    /// An EOA delegating to the standalone account's code (EIP-7702) finds the code refusing to
    /// run there: its owner and domain are the deployment's, so the deployment's owner would
    /// otherwise drive the EOA's funds.
    function test_RevertWhen_TheCodeRunsAtADelegatedEoa() public {
        uint256 eoaKey = 0xE0A;
        address eoa = vm.addr(eoaKey);
        dai.mint(eoa, 500 ether);
        vm.signAndAttachDelegation(address(account), eoaKey);
        PaceAccount delegated = PaceAccount(payable(eoa));
        bytes memory data = abi.encodeCall(dai.transfer, (owner, 500 ether));
        // The deployment's owner reaches for the EOA's funds.
        vm.prank(owner);
        vm.expectRevert(
            abi.encodeWithSelector(IPaceAccount.PaceAccountNotHome.selector, address(account))
        );
        delegated.execute(address(dai), 0, data);
        // A PDR meets the same refusal before any signature is read.
        Terms memory t = _terms();
        t.validAfter = 0;
        vm.expectRevert(
            abi.encodeWithSelector(IPaceAccount.PaceAccountNotHome.selector, address(account))
        );
        delegated.executePDR(address(dai), 0, data, bytes32(0), _pack(t), bytes32(0), bytes32(0));
        assertEq(dai.balanceOf(eoa), 500 ether);
    }
}
