// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DefiFixture} from "./utils/DefiFixture.sol";
import {IPaceAccount} from "../contracts/interfaces/IPaceAccount.sol";

/// @notice Returns its whole calldata as raw returndata: any length, any bytes.
contract Echo {
    fallback(bytes calldata input) external payable returns (bytes memory) {
        return input;
    }
}

/// @notice The lean path hand-encodes its `bytes` result in assembly; these tests hold it to
///         the ABI encoder, byte for byte, and to the owner path's `execute`, which uses it.
contract PaceAccountReturnTest is DefiFixture {
    Echo internal echo;

    function setUp() public {
        _deployDefi();
        echo = new Echo();
    }

    function test_ReturnsTheTokenResult() public {
        bytes memory result = _executeSigned(address(dai), 0, _transferData(1 ether));
        assertEq(result, abi.encode(true));
    }

    function test_ReturnsEmptyForAnEtherPayment() public {
        vm.deal(address(account), 1 ether);
        bytes memory result = _executeSigned(recipient, 1 ether, "");
        assertEq(result.length, 0);
    }

    /// @dev The raw returndata of `executePDR` is exactly `abi.encode(bytes)` of the callee's
    ///      returndata: offset, length, data and zeroed padding, for every length.
    function testFuzz_RawReturndataIsTheAbiEncoding(bytes memory data) public {
        vm.assume(data.length <= 2048);
        uint256 t = _pack(_terms());
        bytes32 att = _attestation(t);
        (bytes32 r, bytes32 vs) = _sign(_one(address(echo), 0, data), _noBounds(), att, t);
        (bool ok, bytes memory raw) = address(account)
            .call(abi.encodeCall(IPaceAccount.executePDR, (address(echo), 0, data, att, t, r, vs)));
        assertTrue(ok);
        assertEq(raw, abi.encode(data));
        assertEq(raw.length % 32, 0);
    }

    /// @dev Differential: the signed lean path and the owner's `execute` return the same bytes.
    function testFuzz_MatchesTheOwnerPath(bytes memory data) public {
        vm.assume(data.length <= 2048);
        vm.prank(owner);
        bytes memory viaOwner = account.execute(address(echo), 0, data);
        bytes memory viaPdr = _executeSigned(address(echo), 0, data);
        assertEq(viaPdr, viaOwner);
        assertEq(viaPdr, data);
    }
}
