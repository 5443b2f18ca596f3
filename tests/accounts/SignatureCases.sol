// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {EntryPathCases} from "./EntryPathCases.sol";
import {PermitPuller, SignatureProbe} from "./SignatureMocks.sol";
import {MockPermit2} from "../../contracts/mocks/protocols/MockPermit2.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {IPaceSignatures} from "../../contracts/interfaces/IPaceSignatures.sol";
import {Vm} from "forge-std/Vm.sol";

/// @notice ERC-1271 on each entry path: only a PDR makes the account's signature valid, for the
///         one hash it signed with `approveHash`, while it runs. A Permit2 permit signed that
///         way is used by a client in the same PDR; before, after and outside it (the owner's
///         own calls included) the account signs nothing.
abstract contract SignatureCases is EntryPathCases {
    bytes4 internal constant MAGIC = 0x1626ba7e;
    bytes4 internal constant INVALID = 0xffffffff;

    MockPermit2 internal permit2;
    PermitPuller internal puller;
    SignatureProbe internal probe;

    function _signatureWorld() internal {
        permit2 = new MockPermit2();
        puller = new PermitPuller(permit2);
        probe = new SignatureProbe();
    }

    /// @dev A PermitSingle of `amount` DAI to the puller, nonce 0.
    function _permit(uint160 amount) internal view returns (MockPermit2.PermitSingle memory p) {
        p.details =
            MockPermit2.PermitDetails(address(dai), amount, uint48(block.timestamp + 1 hours), 0);
        p.spender = address(puller);
        p.sigDeadline = block.timestamp + 1 hours;
    }

    /// @dev The typed data of `p` as `approveHash` carries it, and its EIP-712 hash, written out
    ///      from Permit2's documented types.
    function _typed(MockPermit2.PermitSingle memory p)
        internal
        view
        returns (bytes32 digest, bytes memory domain, bytes memory message)
    {
        bytes32 detailsType = keccak256(
            "PermitDetails(address token,uint160 amount,uint48 expiration,uint48 nonce)"
        );
        bytes32 singleType = keccak256(
            "PermitSingle(PermitDetails details,address spender,uint256 sigDeadline)"
            "PermitDetails(address token,uint160 amount,uint48 expiration,uint48 nonce)"
        );
        domain = abi.encode(
            keccak256("EIP712Domain(string name,uint256 chainId,address verifyingContract)"),
            keccak256("Permit2"),
            block.chainid,
            address(permit2)
        );
        message = abi.encode(singleType, p);
        bytes32 structHash = keccak256(
            abi.encode(
                singleType, keccak256(abi.encode(detailsType, p.details)), p.spender, p.sigDeadline
            )
        );
        digest = keccak256(abi.encodePacked(hex"1901", keccak256(domain), structHash));
        assertEq(keccak256(domain), permit2.DOMAIN_SEPARATOR(), "Permit2's domain");
    }

    function _approveHashCall(bytes32 digest, bytes memory domain, bytes memory message)
        internal
        view
        returns (IPaceAccount.Call memory)
    {
        return IPaceAccount.Call(
            _holder(), 0, abi.encodeCall(IPaceSignatures.approveHash, (digest, domain, message))
        );
    }

    /// @dev The signing call alone, as a batch.
    function _signing(bytes32 digest, bytes memory domain, bytes memory message)
        internal
        view
        returns (IPaceAccount.Call[] memory calls)
    {
        IPaceAccount.Call memory c = _approveHashCall(digest, domain, message);
        return _one(c.target, c.value, c.data);
    }

    /// @dev A PDR: DAI approved to Permit2, then `middle` (the signing call, if any), then the
    ///      puller's permit and pull of `amount`.
    function _permitPdr(IPaceAccount.Call[] memory middle, uint160 amount)
        internal
        view
        returns (Pdr memory p)
    {
        p.calls = new IPaceAccount.Call[](middle.length + 2);
        p.calls[0] = IPaceAccount.Call(
            address(dai), 0, abi.encodeCall(dai.approve, (address(permit2), amount))
        );
        for (uint256 i; i < middle.length; ++i) {
            p.calls[i + 1] = middle[i];
        }
        p.calls[middle.length + 1] = IPaceAccount.Call(
            address(puller), 0, abi.encodeCall(puller.pull, (_holder(), _permit(amount), amount))
        );
        p.bounds = new IPaceAccount.Bound[](0);
        p.held = new address[](0);
        p.terms = _pack(_freshTerms());
        p.attestation = _attestation(uint256(uint160(_holder())) ^ p.terms);
    }

    function test_APdrSignsAPermitForItsOwnRun() public {
        _signatureWorld();
        (bytes32 digest, bytes memory domain, bytes memory message) = _typed(_permit(300 ether));
        Pdr memory p = _permitPdr(_signing(digest, domain, message), 300 ether);
        uint256 before = dai.balanceOf(_holder());
        _execute(p, VERIFIER_KEY);
        assertEq(before - dai.balanceOf(_holder()), 300 ether);
        assertEq(dai.balanceOf(address(puller)), 300 ether);
        // Afterwards the account signs nothing, that hash included.
        assertEq(IPaceAccount(_holder()).isValidSignature(digest, ""), INVALID);
        MockPermit2.PermitSingle memory again = _permit(1 ether);
        again.details.nonce = 1;
        vm.expectRevert(MockPermit2.InvalidContractSignature.selector);
        puller.pull(_holder(), again, 1 ether);
    }

    /// What a signature grant leaves behind, as the revocation runbook reads it: a PDR signs a
    /// Permit2 `PermitSingle` of 300 DAI and its spender pulls 100, leaving a Permit2 allowance
    /// of 200. The account records no `RightGranted` for the signature (only for the PDR's
    /// `approve` of Permit2); Permit2's own `Permit` event names the account, the token and the
    /// spender. Revoking the pair (kind 1, `lockdown`) ends it, and so does revoking the token's
    /// allowance to Permit2 (kind 0), which the account did record.
    function test_ASignedPermitIsRecordedByPermit2AndRevokedAsAPermit2Right() public {
        _signatureWorld();
        address h = _holder();
        (bytes32 digest, bytes memory domain, bytes memory message) = _typed(_permit(300 ether));
        Pdr memory p = _permitPdr(_signing(digest, domain, message), 300 ether);
        p.calls[2].data = abi.encodeCall(puller.pull, (h, _permit(300 ether), 100 ether));
        vm.recordLogs();
        if (_viaEntryPoint()) {
            // Submitted here, not by `_execute`, which reads (and so consumes) the logs.
            _handle(_op(p, VERIFIER_KEY));
        } else {
            _execute(p, VERIFIER_KEY);
        }
        Vm.Log[] memory logs = vm.getRecordedLogs();
        uint256 granted;
        uint256 permits;
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter == h && logs[i].topics[0] == IPaceAccount.RightGranted.selector) {
                ++granted;
                assertEq(logs[i].topics[2], bytes32(uint256(uint160(address(permit2)))));
            }
            if (
                logs[i].emitter == address(permit2)
                    && logs[i].topics[0] == MockPermit2.Permit.selector
            ) {
                ++permits;
                assertEq(logs[i].topics[1], bytes32(uint256(uint160(h))), "owner");
                assertEq(logs[i].topics[3], bytes32(uint256(uint160(address(puller)))));
            }
        }
        assertEq(granted, 1, "the approve of Permit2 only");
        assertEq(permits, 1, "Permit2's record of the signed permit");
        (uint160 standing,,) = permit2.allowance(h, address(dai), address(puller));
        assertEq(standing, 200 ether);

        IPaceAccount.Right[] memory rights = new IPaceAccount.Right[](1);
        rights[0] = IPaceAccount.Right(1, address(permit2), address(dai), address(puller));
        vm.prank(_ownerAddr());
        assertEq(IPaceAccount(h).revokeRights(rights), 0);
        (standing,,) = permit2.allowance(h, address(dai), address(puller));
        assertEq(standing, 0);
        rights[0] = IPaceAccount.Right(0, address(dai), address(0), address(permit2));
        vm.prank(_ownerAddr());
        assertEq(IPaceAccount(h).revokeRights(rights), 0);
        assertEq(dai.allowance(h, address(permit2)), 0);
        vm.prank(address(puller));
        vm.expectRevert();
        permit2.transferFrom(h, address(puller), 1, address(dai));
    }

    /// With spending budgets on, the account signs nothing: a signed permit would hand out the
    /// right to move a budgeted token without a call the metering sees.
    function test_RefusedWhen_TheAccountHasBudgets() public {
        _signatureWorld();
        vm.prank(_ownerAddr());
        IPaceAccount(_holder()).setBudget(address(dai), 5 ether, 1 days);
        (bytes32 digest, bytes memory domain, bytes memory message) = _typed(_permit(1 ether));
        Pdr memory p = _permitPdr(_signing(digest, domain, message), 1 ether);
        uint256 before = dai.balanceOf(_holder());
        _expectRefused(
            p,
            VERIFIER_KEY,
            abi.encodeWithSelector(IPaceAccount.PaceAccountBudgetedSignature.selector),
            ""
        );
        assertEq(dai.balanceOf(_holder()), before);
    }

    /// Without the signing call the permit fails inside the PDR, and nothing moves.
    function test_RefusedWhen_NoPdrSignedThePermit() public {
        _signatureWorld();
        Pdr memory p = _permitPdr(new IPaceAccount.Call[](0), 300 ether);
        uint256 before = dai.balanceOf(_holder());
        _expectRefused(
            p, VERIFIER_KEY, abi.encodePacked(IPaceAccount.PaceAccountCallFailed.selector), ""
        );
        assertEq(dai.balanceOf(_holder()), before);
    }

    /// A PDR that signed one permit does not sign another (here: a larger one).
    function test_RefusedWhen_ThePdrSignedAnotherPermit() public {
        _signatureWorld();
        (bytes32 digest, bytes memory domain, bytes memory message) = _typed(_permit(1 ether));
        Pdr memory p = _permitPdr(_signing(digest, domain, message), 300 ether);
        uint256 before = dai.balanceOf(_holder());
        _expectRefused(
            p, VERIFIER_KEY, abi.encodePacked(IPaceAccount.PaceAccountCallFailed.selector), ""
        );
        assertEq(dai.balanceOf(_holder()), before);
    }

    /// Inside the PDR, only the signed hash is valid.
    function testFuzz_OnlyTheSignedHashIsValid(bytes32 signed, bytes32 other) public {
        vm.assume(uint256(signed) > 1 && other != signed);
        _signatureWorld();
        Pdr memory p;
        p.calls = new IPaceAccount.Call[](2);
        p.calls[0] = _approveHashCall(signed, "", "");
        p.calls[1] = IPaceAccount.Call(
            address(probe), 0, abi.encodeCall(probe.probe, (_holder(), signed, other))
        );
        p.bounds = new IPaceAccount.Bound[](0);
        p.held = new address[](0);
        p.terms = _pack(_freshTerms());
        p.attestation = _attestation(p.terms);
        assertEq(IPaceAccount(_holder()).isValidSignature(signed, ""), INVALID, "before");
        _execute(p, VERIFIER_KEY);
        assertEq(probe.first(), MAGIC, "the signed hash");
        assertEq(probe.second(), INVALID, "another hash");
        assertEq(IPaceAccount(_holder()).isValidSignature(signed, ""), INVALID, "after");
    }

    /// A PDR that signs nothing answers INVALID for every hash, 0 and 1 included (the lock's
    /// own values).
    function test_APdrThatSignsNothingSignsNoHash() public {
        _signatureWorld();
        Pdr memory p;
        p.calls = _one(
            address(probe),
            0,
            abi.encodeCall(probe.probe, (_holder(), bytes32(0), bytes32(uint256(1))))
        );
        p.bounds = new IPaceAccount.Bound[](0);
        p.held = new address[](0);
        p.terms = _pack(_freshTerms());
        p.attestation = _attestation(p.terms);
        _execute(p, VERIFIER_KEY);
        assertEq(probe.first(), INVALID);
        assertEq(probe.second(), INVALID);
    }

    /// The owner's own calls sign nothing either.
    function test_TheOwnersCallsSignNothing() public {
        _signatureWorld();
        vm.prank(_ownerAddr());
        IPaceAccount(_holder())
            .execute(
                address(probe),
                0,
                abi.encodeCall(probe.probe, (_holder(), bytes32(uint256(2)), bytes32(uint256(1))))
            );
        assertEq(probe.first(), INVALID);
        assertEq(probe.second(), INVALID);
    }

    /// Every other call to the account itself is refused: with value, a second signature, a
    /// hash of 0 or 1, data too short to hold a hash, another selector.
    function testFuzz_RefusedWhen_TheSelfCallIsNotOneApproveHash(uint8 kind) public {
        kind = kind % 6;
        vm.deal(_holder(), 1 ether);
        bytes memory good =
            abi.encodeCall(IPaceSignatures.approveHash, (bytes32(uint256(7)), "", ""));
        IPaceAccount.Call[] memory calls = new IPaceAccount.Call[](kind == 1 ? 2 : 1);
        calls[0] = IPaceAccount.Call(_holder(), 0, good);
        uint256 bad = 0;
        if (kind == 0) {
            calls[0].value = 1;
        } else if (kind == 1) {
            calls[1] = calls[0];
            bad = 1;
        } else if (kind == 2 || kind == 3) {
            calls[0].data =
                abi.encodeCall(IPaceSignatures.approveHash, (bytes32(uint256(kind - 2)), "", ""));
        } else if (kind == 4) {
            calls[0].data = abi.encodePacked(IPaceSignatures.approveHash.selector, bytes31(0));
        } else {
            calls[0].data = abi.encodeCall(IPaceAccount.setPaused, (false));
        }
        Pdr memory p;
        p.calls = calls;
        p.bounds = new IPaceAccount.Bound[](0);
        p.held = new address[](0);
        p.terms = _pack(_freshTerms());
        p.attestation = _attestation(p.terms);
        _expectRefused(
            p,
            VERIFIER_KEY,
            abi.encodeWithSelector(IPaceAccount.PaceAccountSelfCall.selector, bad),
            ""
        );
        assertFalse(IPaceAccount(_holder()).paused());
    }
}
