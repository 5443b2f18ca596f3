// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Test} from "forge-std/Test.sol";
import {PaceAccount} from "../contracts/PaceAccount.sol";
import {PaceModule} from "../contracts/PaceModule.sol";
import {IPaceAccount} from "../contracts/interfaces/IPaceAccount.sol";
import {PdrHash} from "../contracts/libraries/PdrHash.sol";
import {PdrTerms} from "../contracts/libraries/PdrTerms.sol";

/// @notice The committed golden vector of EIP-712 domain version "3"
///         (tests/vectors/pdr_golden.json), reproduced by the account's own hashing: every field
///         of the PDR, a bound of each kind, two held assets and a check of each relation, and
///         the same PDR without its checks. The Rust signer reproduces the same file in
///         crates/signer/tests/it/golden.rs: one struct, two hashers, one vector.
contract PdrGoldenVectorTest is Test {
    string internal json;

    function setUp() public {
        json = vm.readFile(string.concat(vm.projectRoot(), "/tests/vectors/pdr_golden.json"));
    }

    function _u(string memory key) internal view returns (uint256) {
        return vm.parseJsonUint(json, string.concat(".", key));
    }

    function _b32(string memory key) internal view returns (bytes32) {
        return vm.parseJsonBytes32(json, string.concat(".", key));
    }

    function _calls() internal view returns (IPaceAccount.Call[] memory calls) {
        address[] memory targets = vm.parseJsonAddressArray(json, ".callTargets");
        uint256[] memory values = vm.parseJsonUintArray(json, ".callValues");
        bytes[] memory data = vm.parseJsonBytesArray(json, ".callData");
        calls = new IPaceAccount.Call[](targets.length);
        for (uint256 i; i < targets.length; ++i) {
            calls[i] = IPaceAccount.Call(targets[i], values[i], data[i]);
        }
    }

    function _bounds() internal view returns (IPaceAccount.Bound[] memory bounds) {
        address[] memory tokens = vm.parseJsonAddressArray(json, ".boundTokens");
        uint256[] memory kinds = vm.parseJsonUintArray(json, ".boundKinds");
        uint256[] memory ids = vm.parseJsonUintArray(json, ".boundIds");
        uint256[] memory maxOut = vm.parseJsonUintArray(json, ".boundMaxOut");
        uint256[] memory minIn = vm.parseJsonUintArray(json, ".boundMinIn");
        uint256[] memory maxIn = vm.parseJsonUintArray(json, ".boundMaxIn");
        bounds = new IPaceAccount.Bound[](tokens.length);
        for (uint256 i; i < tokens.length; ++i) {
            assertLt(kinds[i], 256, "kind is a uint8");
            bounds[i] = IPaceAccount.Bound(
                // forge-lint: disable-next-line(unsafe-typecast)
                tokens[i],
                uint8(kinds[i]),
                ids[i],
                maxOut[i],
                minIn[i],
                maxIn[i]
            );
        }
    }

    function _checks() internal view returns (IPaceAccount.Check[] memory checks) {
        address[] memory targets = vm.parseJsonAddressArray(json, ".checkTargets");
        bytes[] memory data = vm.parseJsonBytesArray(json, ".checkData");
        uint256[] memory words = vm.parseJsonUintArray(json, ".checkWords");
        uint256[] memory relations = vm.parseJsonUintArray(json, ".checkRelations");
        uint256[] memory lo = vm.parseJsonUintArray(json, ".checkLo");
        uint256[] memory hi = vm.parseJsonUintArray(json, ".checkHi");
        checks = new IPaceAccount.Check[](targets.length);
        for (uint256 i; i < targets.length; ++i) {
            assertLt(words[i], 1 << 16, "word is a uint16");
            assertLt(relations[i], 256, "relation is a uint8");
            checks[i] = IPaceAccount.Check(
                targets[i],
                data[i],
                // forge-lint: disable-next-line(unsafe-typecast)
                uint16(words[i]),
                // forge-lint: disable-next-line(unsafe-typecast)
                uint8(relations[i]),
                lo[i],
                hi[i]
            );
        }
    }

    /// The vector covers every bound kind, both held-asset forms (ETH and a token) and both
    /// check relations.
    function test_GoldenVectorCoversEveryKind() public view {
        IPaceAccount.Bound[] memory bounds = _bounds();
        bool[4] memory seen;
        for (uint256 i; i < bounds.length; ++i) {
            seen[bounds[i].kind] = true;
        }
        for (uint256 k; k < 4; ++k) {
            assertTrue(seen[k], "a bound of every kind");
        }
        address[] memory held = vm.parseJsonAddressArray(json, ".held");
        assertEq(held.length, 2);
        assertEq(held[0], address(0));
        assertTrue(held[1] != address(0));
        IPaceAccount.Check[] memory checks = _checks();
        bool[2] memory relation;
        for (uint256 i; i < checks.length; ++i) {
            relation[checks[i].relation] = true;
        }
        assertTrue(relation[0] && relation[1], "a check of every relation");
    }

    function test_GoldenVector() public {
        vm.chainId(_u("chainId"));
        address accountAddr = vm.parseJsonAddress(json, ".account");
        uint256 key = vm.parseJsonUint(json, ".verifierKey");
        deployCodeTo(
            "PaceAccount.sol:PaceAccount", abi.encode(address(this), vm.addr(key)), accountAddr
        );
        PaceAccount account = PaceAccount(payable(accountAddr));

        bytes32 att =
            PdrHash.hashAttestation(_b32("policyHash"), _b32("intentHash"), _b32("simulationHash"));
        uint256 terms = PdrTerms.pack(
            uint32(_u("key")),
            uint64(_u("sequence")),
            uint40(_u("validAfter")),
            uint40(_u("validUntil")),
            uint48(_u("simulationBlock")),
            uint16(_u("maxSimulationAge")),
            uint16(_u("callGasKib"))
        );
        address[] memory held = vm.parseJsonAddressArray(json, ".held");
        bytes32 digest = account.pdrDigest(_calls(), _bounds(), held, _checks(), att, terms);
        bytes32 noChecks =
            account.pdrDigest(_calls(), _bounds(), held, new IPaceAccount.Check[](0), att, terms);
        (bytes32 r, bytes32 vs) = vm.signCompact(key, digest);

        if (vm.envOr("PACE_PRINT_GOLDEN", false)) {
            emit log_named_bytes32("attestation", att);
            emit log_named_uint("terms", terms);
            emit log_named_bytes32("digest", digest);
            emit log_named_bytes32("digestNoChecks", noChecks);
            emit log_named_bytes32("r", r);
            emit log_named_bytes32("vs", vs);
            return;
        }
        assertEq(att, _b32("expected.attestation"), "attestation");
        assertEq(terms, _u("expected.terms"), "terms");
        assertEq(digest, _b32("expected.digest"), "digest");
        assertEq(noChecks, _b32("expected.digestNoChecks"), "digest without the checks");
        assertEq(r, _b32("expected.r"), "r");
        assertEq(vs, _b32("expected.vs"), "vs");
        assertEq(
            digest,
            _plainDigest(accountAddr, _bounds(), held, _checks()),
            "assembly hashing = abi.encode hashing"
        );
        assertEq(
            noChecks,
            _plainDigest(accountAddr, _bounds(), held, new IPaceAccount.Check[](0)),
            "assembly hashing = abi.encode hashing, no checks"
        );
    }

    /// The Safe module's digest of the vector (domain "PaceModule", "1", the module, the Safe
    /// as salt), by the module's own hashing: the value the Rust signer reproduces for
    /// `EntryPath::Module`.
    function test_GoldenVectorOnTheModule() public {
        vm.chainId(_u("chainId"));
        address safe = vm.parseJsonAddress(json, ".moduleSafe");
        address moduleAddr = vm.parseJsonAddress(json, ".module");
        vm.etch(safe, hex"00"); // the module needs code at its Safe
        deployCodeTo("PaceModule.sol:PaceModule", abi.encode(safe, address(0xbeef)), moduleAddr);
        uint256 terms = PdrTerms.pack(
            uint32(_u("key")),
            uint64(_u("sequence")),
            uint40(_u("validAfter")),
            uint40(_u("validUntil")),
            uint48(_u("simulationBlock")),
            uint16(_u("maxSimulationAge")),
            uint16(_u("callGasKib"))
        );
        bytes32 att =
            PdrHash.hashAttestation(_b32("policyHash"), _b32("intentHash"), _b32("simulationHash"));
        bytes32 digest = PaceModule(payable(moduleAddr))
            .pdrDigest(
                _calls(), _bounds(), vm.parseJsonAddressArray(json, ".held"), _checks(), att, terms
            );
        assertEq(digest, _b32("expected.digestModule"), "the module's digest");
    }

    /// Differential: for any bounds, held assets and checks (the vector's calls and terms), the
    /// account's digest is the one `abi.encode` hashing gives.
    function testFuzz_DigestMatchesPlainHashing(
        IPaceAccount.Bound[] memory bounds,
        address[] memory held,
        IPaceAccount.Check[] memory checks
    ) public {
        // At most 8 of each, in place.
        assembly {
            if gt(mload(bounds), 8) { mstore(bounds, 8) }
            if gt(mload(held), 8) { mstore(held, 8) }
            if gt(mload(checks), 8) { mstore(checks, 8) }
        }
        vm.chainId(_u("chainId"));
        PaceAccount account = new PaceAccount(address(this), address(0xbeef));
        uint256 terms = PdrTerms.pack(
            uint32(_u("key")),
            uint64(_u("sequence")),
            uint40(_u("validAfter")),
            uint40(_u("validUntil")),
            uint48(_u("simulationBlock")),
            uint16(_u("maxSimulationAge")),
            uint16(_u("callGasKib"))
        );
        assertEq(
            account.pdrDigest(_calls(), bounds, held, checks, _plainAttestation(), terms),
            _plainDigest(address(account), bounds, held, checks)
        );
    }

    /// @dev The vector's digest, with `bounds`, `held` and `checks`, from its inputs with
    ///      `abi.encode` and the type strings written out here, independently of `PdrHash`'s
    ///      assembly, its constants and `PdrTerms`.
    function _plainDigest(
        address accountAddr,
        IPaceAccount.Bound[] memory bounds,
        address[] memory held,
        IPaceAccount.Check[] memory checks
    ) internal view returns (bytes32) {
        bytes32 domain = keccak256(
            abi.encode(
                keccak256(
                    "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"
                ),
                keccak256("PaceAccount"),
                keccak256("3"),
                _u("chainId"),
                accountAddr
            )
        );
        bytes32 pdrType = keccak256(
            "Pdr(Attestation attestation,Call[] calls,Bound[] bounds,address[] held,Check[] checks,"
            "uint256 nonce,uint40 validAfter,uint40 validUntil,uint48 simulationBlock,"
            "uint16 maxSimulationAge,uint16 callGasKib)"
            "Attestation(bytes32 policyHash,bytes32 intentHash,bytes32 simulationHash)"
            "Bound(address token,uint8 kind,uint256 id,uint256 maxOut,uint256 minIn,uint256 maxIn)"
            "Call(address target,uint256 value,bytes data)"
            "Check(address target,bytes data,uint16 word,uint8 relation,uint256 lo,uint256 hi)"
        );
        bytes memory scalars = abi.encode(
            (_u("key") << 64) | _u("sequence"),
            _u("validAfter"),
            _u("validUntil"),
            _u("simulationBlock"),
            _u("maxSimulationAge"),
            _u("callGasKib")
        );
        bytes32 structHash = keccak256(
            bytes.concat(
                abi.encode(pdrType, _plainAttestation(), _plainCalls(), _plainBounds(bounds)),
                abi.encode(keccak256(abi.encodePacked(_padded(held))), _plainChecks(checks)),
                scalars
            )
        );
        return keccak256(abi.encodePacked(hex"1901", domain, structHash));
    }

    function _plainAttestation() internal view returns (bytes32) {
        return keccak256(
            abi.encode(
                keccak256(
                    "Attestation(bytes32 policyHash,bytes32 intentHash,bytes32 simulationHash)"
                ),
                _b32("policyHash"),
                _b32("intentHash"),
                _b32("simulationHash")
            )
        );
    }

    function _plainCalls() internal view returns (bytes32) {
        IPaceAccount.Call[] memory calls = _calls();
        bytes32[] memory hashes = new bytes32[](calls.length);
        for (uint256 i; i < calls.length; ++i) {
            hashes[i] = keccak256(
                abi.encode(
                    keccak256("Call(address target,uint256 value,bytes data)"),
                    calls[i].target,
                    calls[i].value,
                    keccak256(calls[i].data)
                )
            );
        }
        return keccak256(abi.encodePacked(hashes));
    }

    function _plainBounds(IPaceAccount.Bound[] memory bounds) internal pure returns (bytes32) {
        bytes32[] memory hashes = new bytes32[](bounds.length);
        for (uint256 i; i < bounds.length; ++i) {
            IPaceAccount.Bound memory b = bounds[i];
            hashes[i] = keccak256(
                abi.encode(
                    keccak256(
                        "Bound(address token,uint8 kind,uint256 id,uint256 maxOut,uint256 minIn,"
                        "uint256 maxIn)"
                    ),
                    b.token,
                    b.kind,
                    b.id,
                    b.maxOut,
                    b.minIn,
                    b.maxIn
                )
            );
        }
        return keccak256(abi.encodePacked(hashes));
    }

    function _plainChecks(IPaceAccount.Check[] memory checks) internal pure returns (bytes32) {
        bytes32[] memory hashes = new bytes32[](checks.length);
        for (uint256 i; i < checks.length; ++i) {
            IPaceAccount.Check memory c = checks[i];
            hashes[i] = keccak256(
                abi.encode(
                    keccak256(
                        "Check(address target,bytes data,uint16 word,uint8 relation,uint256 lo,"
                        "uint256 hi)"
                    ),
                    c.target,
                    keccak256(c.data),
                    c.word,
                    c.relation,
                    c.lo,
                    c.hi
                )
            );
        }
        return keccak256(abi.encodePacked(hashes));
    }

    /// @dev The held addresses, each as a 32-byte word (EIP-712 arrays of atomic values).
    function _padded(address[] memory held) internal pure returns (bytes32[] memory words) {
        words = new bytes32[](held.length);
        for (uint256 i; i < held.length; ++i) {
            words[i] = bytes32(uint256(uint160(held[i])));
        }
    }
}
