// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {MockPermit2} from "../../contracts/mocks/protocols/MockPermit2.sol";

/// @notice A Permit2 client, as a router is one: it presents the owner's signed `PermitSingle`
///         to Permit2 (an ERC-1271 owner is asked `isValidSignature`), then pulls the tokens
///         with the allowance just granted.
contract PermitPuller {
    MockPermit2 public immutable permit2;

    constructor(MockPermit2 permit2_) {
        permit2 = permit2_;
    }

    /// @notice Permits itself with `permit` of `owner` and pulls `amount`.
    function pull(address owner, MockPermit2.PermitSingle calldata permit, uint160 amount)
        external
    {
        permit2.permit(owner, permit, "");
        permit2.transferFrom(owner, address(this), amount, permit.details.token);
    }
}

/// @notice Asks an account `isValidSignature` for two hashes from inside its PDR and keeps the
///         answers.
contract SignatureProbe {
    bytes4 public first;
    bytes4 public second;

    function probe(address account, bytes32 a, bytes32 b) external {
        first = ISignatureAnswer(account).isValidSignature(a, "");
        second = ISignatureAnswer(account).isValidSignature(b, hex"1234");
    }
}

interface ISignatureAnswer {
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4);
}
