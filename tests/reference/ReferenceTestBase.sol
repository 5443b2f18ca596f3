// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Test} from "forge-std/Test.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {MockERC20} from "../../contracts/mocks/MockERC20.sol";
import {ReferenceAccount} from "../../contracts/reference/ReferenceAccount.sol";
import {ReferencePdr} from "../../contracts/reference/ReferencePdr.sol";

/// Shared fixture: a `ReferenceAccount` owned by the test contract, holding DAI, and helpers to
/// build and sign PDRs for it.
abstract contract ReferenceTestBase is Test {
    uint256 internal constant ACCOUNT_BALANCE = 1_000_000e18;

    MockERC20 internal dai;
    ReferenceAccount internal account;
    address internal verifier;
    uint256 internal verifierKey;
    address internal recipient = makeAddr("recipient");

    function _deployFixture() internal {
        (verifier, verifierKey) = makeAddrAndKey("verifier");
        dai = new MockERC20("Dai", "DAI", 18);
        account = new ReferenceAccount(address(this), verifier);
        dai.mint(address(account), ACCOUNT_BALANCE);
    }

    function _transferData(address to, uint256 amount) internal pure returns (bytes memory) {
        return abi.encodeCall(IERC20.transfer, (to, amount));
    }

    /// A PDR approving exactly `target.call{value: value}(data)` from `account` for one hour.
    function _pdr(address target, uint256 value, bytes memory data, bytes32 nonce)
        internal
        view
        returns (ReferencePdr.Record memory pdr)
    {
        pdr = ReferencePdr.Record({
            policyHash: keccak256("policy"),
            intentHash: keccak256("intent"),
            simulationHash: keccak256("simulation"),
            calldataHash: keccak256(data),
            chainId: block.chainid,
            account: address(account),
            target: target,
            value: value,
            nonce: nonce,
            validAfter: block.timestamp,
            validUntil: block.timestamp + 1 hours,
            simulationBlock: block.number
        });
    }

    /// The paper's digest, computed independently of the contract.
    function _expectedDigest(ReferencePdr.Record memory pdr) internal pure returns (bytes32) {
        bytes32 fieldsHash = keccak256(
            abi.encode(
                pdr.policyHash,
                pdr.intentHash,
                pdr.simulationHash,
                pdr.calldataHash,
                pdr.chainId,
                pdr.account,
                pdr.target,
                pdr.value,
                pdr.nonce,
                pdr.validAfter,
                pdr.validUntil,
                pdr.simulationBlock
            )
        );
        return keccak256(abi.encodePacked("\x19Ethereum Signed Message:\n32", fieldsHash));
    }

    function _sign(ReferencePdr.Record memory pdr, uint256 key)
        internal
        pure
        returns (bytes memory)
    {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, _expectedDigest(pdr));
        return abi.encodePacked(r, s, v);
    }
}
