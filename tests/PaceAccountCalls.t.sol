// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DefiFixture} from "./utils/DefiFixture.sol";
import {IPaceAccount} from "../contracts/interfaces/IPaceAccount.sol";

/// @notice A token whose `transfer`, `transferFrom` and `approve` return false (or, with
///         `returnsNothing`, nothing at all, as USDT does) and move nothing; its `balanceOf`
///         returns 0.
contract FalseToken {
    bool public returnsNothing;

    function setReturnsNothing(bool on) external {
        returnsNothing = on;
    }

    function transfer(address, uint256) external view returns (bool) {
        _maybeNothing();
        return false;
    }

    function transferFrom(address, address, uint256) external view returns (bool) {
        _maybeNothing();
        return false;
    }

    function approve(address, uint256) external view returns (bool) {
        _maybeNothing();
        return false;
    }

    function balanceOf(address) external pure returns (uint256) {
        return 0;
    }

    function _maybeNothing() private view {
        if (returnsNothing) {
            assembly {
                return(0, 0)
            }
        }
    }
}

/// @notice Returns `size` zero bytes to any call.
contract LargeReturn {
    uint256 public immutable size;

    constructor(uint256 size_) {
        size = size_;
    }

    fallback() external payable {
        uint256 n = size;
        assembly {
            return(0, n)
        }
    }
}

/// @notice What the account does with each call's result: an ERC-20 `transfer`, `transferFrom`
///         or `approve` that returns false fails the execution; return data is copied only when
///         it is used.
contract PaceAccountCallsTest is DefiFixture {
    FalseToken internal token;

    function setUp() public {
        _deployDefi();
        token = new FalseToken();
    }

    function _tokenCalls() internal view returns (bytes[3] memory) {
        return [
            abi.encodeCall(token.transfer, (recipient, 1 ether)),
            abi.encodeCall(token.transferFrom, (recipient, address(account), 1 ether)),
            abi.encodeCall(token.approve, (recipient, 1 ether))
        ];
    }

    /// Signs `calls` on lane 0 without bounds and submits them, lean when `lean` (one call);
    /// with `revertData`, expects the submission to revert with it.
    function _submit(IPaceAccount.Call[] memory calls, bool lean, bytes memory revertData)
        internal
    {
        uint256 t = _pack(_terms());
        (bytes32 r, bytes32 vs) = _sign(calls, _noBounds(), bytes32(0), t);
        if (revertData.length != 0) vm.expectRevert(revertData);
        if (lean) {
            account.executePDR(calls[0].target, calls[0].value, calls[0].data, bytes32(0), t, r, vs);
        } else {
            account.executeBatchPDR(
                calls, _noBounds(), _noHeld(), _noChecks(), bytes32(0), t, r, vs
            );
        }
    }

    function test_RevertWhen_ATokenCallReturnsFalse() public {
        bytes[3] memory datas = _tokenCalls();
        for (uint256 i; i < datas.length; ++i) {
            _submit(
                _one(address(token), 0, datas[i]),
                true,
                abi.encodeWithSelector(IPaceAccount.PaceAccountCallReturnedFalse.selector, 0)
            );
            IPaceAccount.Call[] memory calls = new IPaceAccount.Call[](2);
            calls[0] = IPaceAccount.Call(address(dai), 0, _transferData(1 ether));
            calls[1] = IPaceAccount.Call(address(token), 0, datas[i]);
            _submit(
                calls,
                false,
                abi.encodeWithSelector(IPaceAccount.PaceAccountCallReturnedFalse.selector, 1)
            );
        }
        assertEq(account.nextSequence(0), 0);
        assertEq(dai.balanceOf(recipient), 1 ether);
    }

    /// USDT-style tokens return nothing: that is success.
    function test_ATokenCallThatReturnsNothingSucceeds() public {
        token.setReturnsNothing(true);
        bytes[3] memory datas = _tokenCalls();
        for (uint256 i; i < datas.length; ++i) {
            _submit(_one(address(token), 0, datas[i]), true, "");
            _submit(_one(address(token), 0, datas[i]), false, "");
        }
        assertEq(account.nextSequence(0), 6);
    }

    /// The check is by selector only: any other function may return a zero word.
    function test_OtherFunctionsMayReturnZero() public {
        bytes memory data = abi.encodeCall(token.balanceOf, (address(account)));
        bytes memory result = _executeSigned(address(token), 0, data);
        assertEq(abi.decode(result, (uint256)), 0);
        _submit(_one(address(token), 0, data), false, "");
        assertEq(account.nextSequence(0), 2);
    }

    /// The lean path returns the call's result as it was returned.
    function test_TheLeanPathReturnsTheCallsResult() public {
        bytes memory result =
            _executeSigned(address(dai), 0, abi.encodeCall(dai.balanceOf, (recipient)));
        assertEq(result, abi.encode(uint256(1 ether)));
        LargeReturn large = new LargeReturn(33);
        result = _executeSigned(address(large), 0, "");
        assertEq(result, new bytes(33));
    }

    /// The batch path needs a call's return data only when the call fails, and the first word
    /// only for the three ERC-20 functions: a 256 KiB result costs it nothing to skip (copying
    /// it cost ~193k gas). The lean path returns the result, so copies it, but once (~631k gas
    /// when it was copied twice).
    function test_UnusedReturnDataIsNotCopied() public {
        LargeReturn large = new LargeReturn(256 << 10);
        // What the call costs by itself, its result left uncopied.
        uint256 g = gasleft();
        assembly {
            pop(call(gas(), large, 0, 0, 0, 0, 0))
        }
        uint256 alone = g - gasleft();

        IPaceAccount.Call[] memory calls = _one(address(large), 0, "");
        uint256 t = _pack(_terms());
        (bytes32 r, bytes32 vs) = _sign(calls, _noBounds(), bytes32(0), t);
        uint256 batch = _gasOf(
            abi.encodeCall(
                account.executeBatchPDR,
                (calls, _noBounds(), _noHeld(), _noChecks(), bytes32(0), t, r, vs)
            )
        ) - alone;
        emit log_named_uint("256 KiB result, batch path: the account's gas beyond the call", batch);
        assertLt(batch, 40_000);

        t = _pack(_terms());
        (r, vs) = _sign(calls, _noBounds(), bytes32(0), t);
        uint256 lean = _gasOf(
            abi.encodeCall(account.executePDR, (address(large), 0, "", bytes32(0), t, r, vs))
        ) - alone;
        emit log_named_uint("256 KiB result, lean path: the account's gas beyond the call", lean);
        assertLt(lean, 250_000); // one copy: ~155k of memory and ~25k of copying
    }

    /// The gas of calling the account with `cd`, its result left uncopied by the caller.
    function _gasOf(bytes memory cd) internal returns (uint256 used) {
        address a = address(account);
        bool ok;
        uint256 g = gasleft();
        assembly {
            ok := call(gas(), a, 0, add(cd, 0x20), mload(cd), 0, 0)
        }
        used = g - gasleft();
        assertTrue(ok);
    }
}
