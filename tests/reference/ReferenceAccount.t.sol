// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {MockERC20} from "../../contracts/mocks/MockERC20.sol";
import {ReentrantTarget} from "../../contracts/mocks/ReentrantTarget.sol";
import {ReferenceAccount} from "../../contracts/reference/ReferenceAccount.sol";
import {ReferencePdr} from "../../contracts/reference/ReferencePdr.sol";
import {ReferenceTestBase} from "./ReferenceTestBase.sol";

contract ReferenceAccountTest is ReferenceTestBase {
    bytes32 internal constant NONCE = keccak256("nonce-1");
    address internal attacker = makeAddr("attacker");

    bytes internal data;
    ReferencePdr.Record internal pdr;
    bytes internal sig;

    function setUp() public {
        vm.warp(1_700_000_000);
        vm.roll(19_000_000);
        _deployFixture();
        data = _transferData(recipient, 100e18);
        pdr = _pdr(address(dai), 0, data, NONCE);
        sig = _sign(pdr, verifierKey);
    }

    function _execute() internal returns (bytes memory) {
        return account.executePDR(pdr, sig, address(dai), 0, data);
    }

    // ---------------------------------------------------------------- valid paths

    function test_ExecutePdr_TransfersErc20() public {
        vm.expectEmit(address(account));
        emit ReferenceAccount.PdrExecuted(NONCE, address(dai), 0);
        vm.prank(attacker); // anyone may submit a signed PDR
        bytes memory result = _execute();

        assertEq(abi.decode(result, (bool)), true);
        assertEq(dai.balanceOf(recipient), 100e18);
        assertEq(dai.balanceOf(address(account)), ACCOUNT_BALANCE - 100e18);
        assertTrue(account.usedNonces(NONCE));
    }

    function test_PdrDigest_IsEip191OverAbiEncodedFields() public view {
        assertEq(account.pdrDigest(pdr), _expectedDigest(pdr));
    }

    function test_ExecutePdr_SendsSignedValue() public {
        vm.deal(address(account), 1 ether);
        pdr = _pdr(recipient, 0.25 ether, "", keccak256("eth"));
        sig = _sign(pdr, verifierKey);
        account.executePDR(pdr, sig, recipient, 0.25 ether, "");
        assertEq(recipient.balance, 0.25 ether);
    }

    function test_ExecutePdr_AcceptsWindowBounds() public {
        vm.warp(pdr.validUntil);
        _execute();
        assertEq(dai.balanceOf(recipient), 100e18);
    }

    function test_ExecutePdr_ConsumesNonceBeforeCall() public {
        ReentrantTarget target = new ReentrantTarget();
        bytes memory ping = hex"c0ffee";
        pdr = _pdr(address(target), 0, ping, keccak256("reenter"));
        sig = _sign(pdr, verifierKey);
        target.setReentry(
            address(account),
            abi.encodeCall(ReferenceAccount.executePDR, (pdr, sig, address(target), 0, ping))
        );

        account.executePDR(pdr, sig, address(target), 0, ping);

        assertEq(target.attempts(), 1);
        assertFalse(target.lastSuccess());
        assertEq(
            target.lastReturnData(),
            abi.encodeWithSelector(
                ReferenceAccount.ReferenceAccountNonceUsed.selector, keccak256("reenter")
            )
        );
    }

    function test_Execute_OwnerRawCall() public {
        vm.expectEmit(address(account));
        emit ReferenceAccount.Executed(address(dai), 0);
        account.execute(address(dai), 0, data);
        assertEq(dai.balanceOf(recipient), 100e18);
    }

    function test_SetVerifier_RotatesKey() public {
        (address newVerifier, uint256 newKey) = makeAddrAndKey("new-verifier");
        vm.expectEmit(address(account));
        emit ReferenceAccount.VerifierUpdated(verifier, newVerifier);
        account.setVerifier(newVerifier);

        vm.expectRevert(
            abi.encodeWithSelector(
                ReferenceAccount.ReferenceAccountInvalidSigner.selector, verifier
            )
        );
        _execute();

        sig = _sign(pdr, newKey);
        _execute();
        assertEq(dai.balanceOf(recipient), 100e18);
    }

    // ---------------------------------------------------------------- the nine checks

    /// Check 1: signer.
    function test_RevertWhen_WrongVerifierKey() public {
        (address impostor, uint256 impostorKey) = makeAddrAndKey("impostor");
        sig = _sign(pdr, impostorKey);
        vm.expectRevert(
            abi.encodeWithSelector(
                ReferenceAccount.ReferenceAccountInvalidSigner.selector, impostor
            )
        );
        _execute();
    }

    /// Check 2: chain id, both as a signed field and as the chain the account runs on.
    function test_RevertWhen_WrongChainId() public {
        pdr.chainId = 5;
        sig = _sign(pdr, verifierKey);
        vm.expectRevert(
            abi.encodeWithSelector(
                ReferenceAccount.ReferenceAccountWrongChainId.selector, 5, block.chainid
            )
        );
        _execute();
    }

    function test_RevertWhen_ReplayedOnAnotherChain() public {
        uint256 signedChain = block.chainid;
        vm.chainId(10);
        vm.expectRevert(
            abi.encodeWithSelector(
                ReferenceAccount.ReferenceAccountWrongChainId.selector, signedChain, 10
            )
        );
        _execute();
    }

    /// Check 3: account.
    function test_RevertWhen_WrongAccount() public {
        ReferenceAccount other = new ReferenceAccount(address(this), verifier);
        pdr.account = address(other);
        sig = _sign(pdr, verifierKey);
        vm.expectRevert(
            abi.encodeWithSelector(
                ReferenceAccount.ReferenceAccountWrongAccount.selector, address(other)
            )
        );
        _execute();
    }

    /// Check 4: target.
    function test_RevertWhen_TargetMutated() public {
        MockERC20 other = new MockERC20("Other", "OTH", 18);
        vm.expectRevert(
            abi.encodeWithSelector(
                ReferenceAccount.ReferenceAccountTargetMismatch.selector,
                address(dai),
                address(other)
            )
        );
        account.executePDR(pdr, sig, address(other), 0, data);
    }

    /// Check 5: value.
    function test_RevertWhen_ValueMutated() public {
        vm.deal(address(account), 1 ether);
        vm.expectRevert(
            abi.encodeWithSelector(
                ReferenceAccount.ReferenceAccountValueMismatch.selector, 0, 1 ether
            )
        );
        account.executePDR(pdr, sig, address(dai), 1 ether, data);
    }

    /// Check 6: calldata hash.
    function test_RevertWhen_CalldataMutated() public {
        bytes memory mutated = _transferData(attacker, 100e18);
        vm.expectRevert(
            abi.encodeWithSelector(
                ReferenceAccount.ReferenceAccountCalldataMismatch.selector,
                keccak256(data),
                keccak256(mutated)
            )
        );
        account.executePDR(pdr, sig, address(dai), 0, mutated);
    }

    /// Check 7: nonce unused.
    function test_RevertWhen_NonceReplayed() public {
        _execute();
        vm.expectRevert(
            abi.encodeWithSelector(ReferenceAccount.ReferenceAccountNonceUsed.selector, NONCE)
        );
        _execute();
    }

    /// Check 8: validAfter <= now.
    function test_RevertWhen_NotYetValid() public {
        pdr.validAfter = block.timestamp + 1;
        sig = _sign(pdr, verifierKey);
        vm.expectRevert(
            abi.encodeWithSelector(
                ReferenceAccount.ReferenceAccountNotYetValid.selector,
                block.timestamp + 1,
                block.timestamp
            )
        );
        _execute();
    }

    /// Check 9: now <= validUntil.
    function test_RevertWhen_Expired() public {
        vm.warp(pdr.validUntil + 1);
        vm.expectRevert(
            abi.encodeWithSelector(
                ReferenceAccount.ReferenceAccountExpired.selector,
                pdr.validUntil,
                pdr.validUntil + 1
            )
        );
        _execute();
    }

    // ---------------------------------------------------------------- signature integrity

    /// Changing any of the twelve signed fields after signing breaks the signature.
    function testFuzz_RevertWhen_SignedFieldTampered(uint8 field, bytes32 noise) public {
        field = uint8(bound(field, 0, 11));
        vm.assume(noise != bytes32(0));
        bytes32[12] memory words = _words(pdr);
        words[field] = words[field] ^ noise;
        // Keep addresses addresses so the calldata decodes.
        if (field == 5 || field == 6) {
            words[field] = bytes32(uint256(uint160(uint256(words[field]))));
        }
        vm.assume(words[field] != _words(pdr)[field]);
        ReferencePdr.Record memory tampered = _record(words);

        vm.expectPartialRevert(ReferenceAccount.ReferenceAccountInvalidSigner.selector);
        account.executePDR(tampered, sig, address(dai), 0, data);
    }

    function test_RevertWhen_SignatureMalformed() public {
        vm.expectRevert(
            abi.encodeWithSelector(
                ReferenceAccount.ReferenceAccountInvalidSigner.selector, address(0)
            )
        );
        account.executePDR(pdr, hex"1234", address(dai), 0, data);
    }

    // ---------------------------------------------------------------- owner path and admin

    function test_RevertWhen_RawExecuteNotOwner() public {
        vm.expectRevert(
            abi.encodeWithSelector(ReferenceAccount.ReferenceAccountNotOwner.selector, attacker)
        );
        vm.prank(attacker);
        account.execute(address(dai), 0, data);
    }

    function test_RevertWhen_SetVerifierNotOwner() public {
        vm.expectRevert(
            abi.encodeWithSelector(ReferenceAccount.ReferenceAccountNotOwner.selector, attacker)
        );
        vm.prank(attacker);
        account.setVerifier(attacker);
    }

    function test_RevertWhen_SetVerifierZero() public {
        vm.expectRevert(ReferenceAccount.ReferenceAccountZeroAddress.selector);
        account.setVerifier(address(0));
    }

    function test_RevertWhen_CallReverts() public {
        bytes memory tooMuch = _transferData(recipient, ACCOUNT_BALANCE + 1);
        pdr = _pdr(address(dai), 0, tooMuch, keccak256("too-much"));
        sig = _sign(pdr, verifierKey);
        bytes memory inner = abi.encodeWithSelector(
            IERC20Errors.ERC20InsufficientBalance.selector,
            address(account),
            ACCOUNT_BALANCE,
            ACCOUNT_BALANCE + 1
        );
        vm.expectRevert(
            abi.encodeWithSelector(ReferenceAccount.ReferenceAccountCallFailed.selector, inner)
        );
        account.executePDR(pdr, sig, address(dai), 0, tooMuch);
        assertFalse(account.usedNonces(keccak256("too-much")));
    }

    // ---------------------------------------------------------------- helpers

    function _words(ReferencePdr.Record memory r) internal pure returns (bytes32[12] memory w) {
        w = [
            r.policyHash,
            r.intentHash,
            r.simulationHash,
            r.calldataHash,
            bytes32(r.chainId),
            bytes32(uint256(uint160(r.account))),
            bytes32(uint256(uint160(r.target))),
            bytes32(r.value),
            r.nonce,
            bytes32(r.validAfter),
            bytes32(r.validUntil),
            bytes32(r.simulationBlock)
        ];
    }

    function _record(bytes32[12] memory w) internal pure returns (ReferencePdr.Record memory) {
        return abi.decode(abi.encode(w), (ReferencePdr.Record));
    }
}
