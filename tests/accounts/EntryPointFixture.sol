// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DefiFixture} from "../utils/DefiFixture.sol";
import {PaceAccount} from "../../contracts/PaceAccount.sol";
import {PaceDelegate} from "../../contracts/PaceDelegate.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {IPaceDelegate} from "../../contracts/interfaces/IPaceDelegate.sol";
import {Vm} from "forge-std/Vm.sol";

/// @notice The part of the ERC-4337 EntryPoint v0.8 the account tests drive, declared here
///         against `IPaceAccount.PackedUserOperation` (the same ABI as the EntryPoint's own).
interface IEntryPointV8 {
    /// @notice A user operation failed validation (`reason` starts with its AA code).
    error FailedOp(uint256 opIndex, string reason);
    /// @notice A user operation's validation reverted (`reason` "AA23 reverted").
    error FailedOpWithRevert(uint256 opIndex, string reason, bytes inner);

    /// @notice One per executed user operation.
    event UserOperationEvent(
        bytes32 indexed userOpHash,
        address indexed sender,
        address indexed paymaster,
        uint256 nonce,
        bool success,
        uint256 actualGasCost,
        uint256 actualGasUsed
    );
    /// @notice The revert data of a user operation's failed execution.
    event UserOperationRevertReason(
        bytes32 indexed userOpHash, address indexed sender, uint256 nonce, bytes revertReason
    );

    /// @notice Validates, then executes, `ops`; pays `beneficiary` the gas.
    function handleOps(IPaceAccount.PackedUserOperation[] calldata ops, address payable beneficiary)
        external;
    /// @notice The EIP-712 hash of `op` under the EntryPoint's own domain ("ERC4337", "1").
    function getUserOpHash(IPaceAccount.PackedUserOperation calldata op)
        external
        view
        returns (bytes32);
    /// @notice The next nonce of `sender`'s lane `key` (`key << 64 | sequence`).
    function getNonce(address sender, uint192 key) external view returns (uint256);
    /// @notice The deposit of `account`.
    function balanceOf(address account) external view returns (uint256);
    /// @notice Adds to `account`'s deposit.
    function depositTo(address account) external payable;
    /// @notice The contract that deploys senders from initCode.
    function senderCreator() external view returns (address);
}

/// @notice The SimpleAccount v0.8 surface the reference tests use.
interface ISimpleAccountV8 {
    /// @notice The owner key's address.
    function owner() external view returns (address);
    /// @notice Owner or EntryPoint raw call.
    function execute(address target, uint256 value, bytes calldata data) external;
}

/// @notice The SimpleAccountFactory v0.8 surface.
interface ISimpleAccountFactoryV8 {
    /// @notice Deploys (only from the EntryPoint's SenderCreator) the account of `owner`.
    function createAccount(address owner, uint256 salt) external returns (address);
}

/// @notice The ERC-4337 world of the account tests: the real EntryPoint v0.8 at its canonical
///         address (built from its npm artifact, so its immutables are its own), the standalone
///         `PaceAccount` of `DefiFixture`, an EOA delegated (EIP-7702) to `PaceDelegate` and set
///         up by itself, and helpers that build and sign PDR user operations exactly as the
///         accounts' spec says (`notes`: userOpHash-salted EIP-712 domains), written out here
///         independently of the contracts' own hashing.
abstract contract EntryPointFixture is DefiFixture {
    address internal constant ENTRY_POINT = 0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108;
    string internal constant ARTIFACTS = "node_modules/@account-abstraction/contracts/artifacts/";
    bytes4 internal constant EXECUTE_USER_OP_PDR = IPaceAccount.executeUserOpPdr.selector;
    uint256 internal constant SIG_FAILED = 1;
    /// @dev What each account has deposited at the EntryPoint: a PDR user operation's gas comes
    ///      from there (or a paymaster), never from the account's ether.
    uint256 internal constant DEPOSIT = 10 ether;
    /// @dev The EntryPoint nonce key of owner user operations: at or above 2^32, out of the PDR
    ///      lanes' range.
    uint192 internal constant OWNER_NONCE_KEY = uint192(1) << 32;

    /// @dev makeAddr("owner")'s key: the standalone account's owner signs user operations.
    uint256 internal constant OWNER_KEY = uint256(keccak256(abi.encodePacked("owner")));
    uint256 internal constant EOA_KEY = 0xE0A7702;

    IEntryPointV8 internal ep = IEntryPointV8(ENTRY_POINT);
    PaceDelegate internal delegateImpl;
    address internal eoa = vm.addr(EOA_KEY);
    /// @dev The EOA seen through its delegate's ABI.
    PaceDelegate internal dlg = PaceDelegate(payable(vm.addr(EOA_KEY)));
    address internal bundler = makeAddr("bundler");
    address payable internal beneficiary = payable(makeAddr("beneficiary"));

    /// @dev A PDR's parts as they travel: calls, bounds, held assets, checks, attestation and
    ///      terms.
    struct Pdr {
        IPaceAccount.Call[] calls;
        IPaceAccount.Bound[] bounds;
        address[] held;
        IPaceAccount.Check[] checks;
        bytes32 attestation;
        uint256 terms;
    }

    /// @dev The user operation gas fields a bundler might touch.
    struct Gas {
        uint128 verificationGasLimit;
        uint128 callGasLimit;
        uint256 preVerificationGas;
        uint128 maxPriorityFeePerGas;
        uint128 maxFeePerGas;
    }

    function _deployWorld() internal {
        _deployDefi();
        assertEq(vm.addr(OWNER_KEY), owner, "owner key");
        deployCodeTo(string.concat(ARTIFACTS, "EntryPoint.json"), ENTRY_POINT);
        delegateImpl = new PaceDelegate();
        vm.signAndAttachDelegation(address(delegateImpl), EOA_KEY);
        vm.prank(eoa);
        dlg.setUp(_setup(verifierAddr, 1), "");
        weth.mint(eoa, 100 ether);
        dai.mint(eoa, 100_000 ether);
        vm.deal(eoa, 10 ether);
        vm.deal(address(this), address(this).balance + 2 * DEPOSIT);
        ep.depositTo{value: DEPOSIT}(address(account));
        ep.depositTo{value: DEPOSIT}(eoa);
    }

    /// @dev A set-up with `verifier_`, no budgets or lanes, nonce `nonce`, a day to land.
    function _setup(address verifier_, uint256 nonce)
        internal
        view
        returns (IPaceDelegate.Setup memory s)
    {
        s.verifier = verifier_;
        s.budgets = new IPaceDelegate.BudgetLimit[](0);
        s.lanes = new IPaceDelegate.LaneFloor[](0);
        s.nonce = nonce;
        s.deadline = block.timestamp + 1 days;
    }

    /// @dev The EIP-712 digest the EOA key at `at` signs for `s` on delegate code `impl`,
    ///      written out from `IPaceDelegate.Setup`'s documented type.
    function _setupDigest(address at, address impl, IPaceDelegate.Setup memory s)
        internal
        view
        returns (bytes32)
    {
        bytes32[] memory b = new bytes32[](s.budgets.length);
        for (uint256 i; i < b.length; ++i) {
            b[i] = keccak256(
                abi.encode(
                    keccak256("BudgetLimit(address token,uint128 limit,uint64 period)"),
                    s.budgets[i].token,
                    s.budgets[i].limit,
                    s.budgets[i].period
                )
            );
        }
        bytes32[] memory l = new bytes32[](s.lanes.length);
        for (uint256 i; i < l.length; ++i) {
            l[i] = keccak256(
                abi.encode(
                    keccak256("LaneFloor(uint32 key,uint64 sequence)"),
                    s.lanes[i].key,
                    s.lanes[i].sequence
                )
            );
        }
        bytes32 structHash = keccak256(
            abi.encode(
                keccak256(
                    "Setup(address delegate,address verifier,BudgetLimit[] budgets,"
                    "LaneFloor[] lanes,uint256 nonce,uint256 deadline)"
                    "BudgetLimit(address token,uint128 limit,uint64 period)"
                    "LaneFloor(uint32 key,uint64 sequence)"
                ),
                impl,
                s.verifier,
                keccak256(abi.encodePacked(b)),
                keccak256(abi.encodePacked(l)),
                s.nonce,
                s.deadline
            )
        );
        bytes32 domain = keccak256(
            abi.encode(
                keccak256(
                    "EIP712Domain(string name,string version,uint256 chainId,"
                    "address verifyingContract)"
                ),
                keccak256("PaceDelegate"),
                keccak256("2"),
                block.chainid,
                at
            )
        );
        return keccak256(abi.encodePacked(hex"1901", domain, structHash));
    }

    /// @dev The 65-byte signature by `key` of `s` for the EOA of `key` on `impl`.
    function _signSetup(uint256 key, address impl, IPaceDelegate.Setup memory s)
        internal
        view
        returns (bytes memory)
    {
        (uint8 v, bytes32 r, bytes32 sv) = vm.sign(key, _setupDigest(vm.addr(key), impl, s));
        return abi.encodePacked(r, sv, v);
    }

    /// @dev A relayer sends the set-up `s` signed by `key`.
    function _relaySetup(uint256 key, IPaceDelegate.Setup memory s, bytes memory sig) internal {
        vm.prank(makeAddr("relayer"));
        PaceDelegate(payable(vm.addr(key))).setUp(s, sig);
    }

    /*//////////////////////////////////////////////////////////////
                              PDR BUILDING
    //////////////////////////////////////////////////////////////*/

    /// @dev Terms on lane `key` at `sequence`, valid an hour, simulated a block ago.
    function _termsAt(uint32 key, uint64 sequence) internal view returns (uint256) {
        Terms memory t = _terms();
        t.key = key;
        t.sequence = sequence;
        return _pack(t);
    }

    /// @dev A one-call DAI transfer of `amount` to the recipient, unbounded.
    function _transferPdr(uint256 amount, uint256 terms) internal view returns (Pdr memory p) {
        p.calls = _one(address(dai), 0, _transferData(amount));
        p.bounds = _noBounds();
        p.held = _noHeld();
        p.attestation = _attestation(terms);
        p.terms = terms;
    }

    /// @dev A two-call batch with a bound and a held asset: approve WETH, transfer DAI; the DAI
    ///      balance may fall by `amount`, WETH must not fall.
    function _richPdr(address holder, uint256 amount, uint256 terms)
        internal
        view
        returns (Pdr memory p)
    {
        p.calls = new IPaceAccount.Call[](2);
        p.calls[0] = IPaceAccount.Call(address(weth), 0, _approveData(1 ether));
        p.calls[1] = IPaceAccount.Call(address(dai), 0, _transferData(amount));
        p.bounds = new IPaceAccount.Bound[](1);
        p.bounds[0] = _balanceBound(address(dai), amount, 0);
        p.held = new address[](1);
        p.held[0] = address(weth);
        p.attestation = _attestation(uint256(uint160(holder)) ^ terms);
        p.terms = terms;
    }

    /// @dev `hashStruct(Pdr)`, with the type strings and `abi.encode` written out.
    function _pdrStructHash(Pdr memory p) internal pure returns (bytes32) {
        bytes32[] memory ch = new bytes32[](p.calls.length);
        for (uint256 i; i < ch.length; ++i) {
            ch[i] = keccak256(
                abi.encode(
                    keccak256("Call(address target,uint256 value,bytes data)"),
                    p.calls[i].target,
                    p.calls[i].value,
                    keccak256(p.calls[i].data)
                )
            );
        }
        bytes32[] memory bh = new bytes32[](p.bounds.length);
        for (uint256 i; i < bh.length; ++i) {
            IPaceAccount.Bound memory b = p.bounds[i];
            bh[i] = keccak256(
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
        bytes32[] memory hh = new bytes32[](p.held.length);
        for (uint256 i; i < hh.length; ++i) {
            hh[i] = bytes32(uint256(uint160(p.held[i])));
        }
        uint256 t = p.terms;
        return keccak256(
            bytes.concat(
                abi.encode(
                    keccak256(
                        "Pdr(Attestation attestation,Call[] calls,Bound[] bounds,address[] held,"
                        "Check[] checks,uint256 nonce,uint40 validAfter,uint40 validUntil,"
                        "uint48 simulationBlock,uint16 maxSimulationAge,uint16 callGasKib)"
                        "Attestation(bytes32 policyHash,bytes32 intentHash,bytes32 simulationHash)"
                        "Bound(address token,uint8 kind,uint256 id,uint256 maxOut,uint256 minIn,"
                        "uint256 maxIn)" "Call(address target,uint256 value,bytes data)"
                        "Check(address target,bytes data,uint16 word,uint8 relation,uint256 lo,"
                        "uint256 hi)"
                    ),
                    p.attestation,
                    keccak256(abi.encodePacked(ch)),
                    keccak256(abi.encodePacked(bh)),
                    keccak256(abi.encodePacked(hh)),
                    _checksHash(p.checks)
                ),
                abi.encode(
                    t >> 160,
                    (t >> 120) & type(uint40).max,
                    (t >> 80) & type(uint40).max,
                    (t >> 32) & type(uint48).max,
                    t & type(uint16).max,
                    (t >> 16) & type(uint16).max
                )
            )
        );
    }

    /// @dev The EIP-712 encoding of `checks`, written out.
    function _checksHash(IPaceAccount.Check[] memory checks) internal pure returns (bytes32) {
        bytes32[] memory h = new bytes32[](checks.length);
        for (uint256 i; i < h.length; ++i) {
            IPaceAccount.Check memory c = checks[i];
            h[i] = keccak256(
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
        return keccak256(abi.encodePacked(h));
    }

    function _saltedDomain(bytes memory name, bytes memory version, address at, bytes32 salt)
        internal
        view
        returns (bytes32)
    {
        return keccak256(
            abi.encode(
                keccak256(
                    "EIP712Domain(string name,string version,uint256 chainId,"
                    "address verifyingContract,bytes32 salt)"
                ),
                keccak256(name),
                keccak256(version),
                block.chainid,
                at,
                salt
            )
        );
    }

    /// @dev The EntryPoint-path domain of `sender` for `userOpHash`: the standalone account's
    ///      ("PaceAccount", "3", salt userOpHash) or a delegated EOA's ("PaceDelegate", "2", salt
    ///      keccak256(setupSalt, userOpHash)).
    function _userOpDomain(address sender, bytes32 userOpHash)
        internal
        view
        virtual
        returns (bytes32)
    {
        if (sender.code.length == 23 && bytes3(sender.code) == 0xef0100) {
            bytes32 salt =
                keccak256(abi.encode(PaceDelegate(payable(sender)).domainSalt(), userOpHash));
            return _saltedDomain("PaceDelegate", "2", sender, salt);
        }
        return _saltedDomain("PaceAccount", "3", sender, userOpHash);
    }

    /// @dev The direct-path domain of a delegated EOA ("PaceDelegate", "2", the set-up salt).
    function _delegateDirectDomain(address at) internal view returns (bytes32) {
        return _saltedDomain("PaceDelegate", "2", at, PaceDelegate(payable(at)).domainSalt());
    }

    function _digest(bytes32 domain, Pdr memory p) internal pure returns (bytes32) {
        return keccak256(abi.encodePacked(hex"1901", domain, _pdrStructHash(p)));
    }

    /*//////////////////////////////////////////////////////////////
                            USER OPERATIONS
    //////////////////////////////////////////////////////////////*/

    function _defaultGas() internal pure returns (Gas memory g) {
        g.verificationGasLimit = 300_000;
        g.callGasLimit = 600_000;
        g.preVerificationGas = 60_000;
        g.maxPriorityFeePerGas = 1 gwei;
        g.maxFeePerGas = 2 gwei;
    }

    function _setGas(IPaceAccount.PackedUserOperation memory op, Gas memory g) internal pure {
        op.accountGasLimits = bytes32((uint256(g.verificationGasLimit) << 128) | g.callGasLimit);
        op.preVerificationGas = g.preVerificationGas;
        op.gasFees = bytes32((uint256(g.maxPriorityFeePerGas) << 128) | g.maxFeePerGas);
    }

    /// @dev The PDR batch as user operation call data.
    function _pdrCallData(Pdr memory p) internal pure returns (bytes memory) {
        return abi.encodeCall(
            IPaceAccount.executeUserOpPdr, (p.calls, p.bounds, p.held, p.checks, p.terms)
        );
    }

    /// @dev An unsigned PDR user operation of `sender`.
    function _pdrOpUnsigned(address sender, Pdr memory p)
        internal
        pure
        returns (IPaceAccount.PackedUserOperation memory op)
    {
        op.sender = sender;
        op.nonce = p.terms >> 160;
        op.callData = _pdrCallData(p);
        _setGas(op, _defaultGas());
    }

    /// @dev Signs `op` (as it stands) with the PDR `p` under `key`.
    function _signPdrOp(IPaceAccount.PackedUserOperation memory op, Pdr memory p, uint256 key)
        internal
        view
    {
        bytes32 h = ep.getUserOpHash(op);
        (bytes32 r, bytes32 vs) = vm.signCompact(key, _digest(_userOpDomain(op.sender, h), p));
        op.signature = abi.encode(p.attestation, r, vs);
    }

    /// @dev A PDR user operation of `sender` signed by the verifier.
    function _pdrOp(address sender, Pdr memory p)
        internal
        view
        returns (IPaceAccount.PackedUserOperation memory op)
    {
        op = _pdrOpUnsigned(sender, p);
        _signPdrOp(op, p, VERIFIER_KEY);
    }

    /// @dev An owner user operation: `callData`, a 65-byte (r, s, v) signature of its hash.
    function _ownerOp(address sender, uint256 nonce, bytes memory callData, uint256 key)
        internal
        view
        returns (IPaceAccount.PackedUserOperation memory op)
    {
        op.sender = sender;
        op.nonce = nonce;
        op.callData = callData;
        _setGas(op, _defaultGas());
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, ep.getUserOpHash(op));
        op.signature = abi.encodePacked(r, s, v);
    }

    function _ops(IPaceAccount.PackedUserOperation memory op)
        internal
        pure
        returns (IPaceAccount.PackedUserOperation[] memory ops)
    {
        ops = new IPaceAccount.PackedUserOperation[](1);
        ops[0] = op;
    }

    /// @dev The bundler submits `op` alone.
    function _handle(IPaceAccount.PackedUserOperation memory op) internal {
        vm.prank(bundler, bundler);
        ep.handleOps(_ops(op), beneficiary);
    }

    /// @dev Expects `handleOps` to refuse `op` in validation with the AA `reason`.
    function _expectFailedOp(IPaceAccount.PackedUserOperation memory op, string memory reason)
        internal
    {
        vm.expectRevert(abi.encodeWithSelector(IEntryPointV8.FailedOp.selector, 0, reason));
        vm.prank(bundler, bundler);
        ep.handleOps(_ops(op), beneficiary);
    }

    /// @dev Submits `op` and returns its UserOperationEvent's `success` and, if it failed, the
    ///      revert data of its execution.
    function _handleRecorded(IPaceAccount.PackedUserOperation memory op)
        internal
        returns (bool success, bytes memory revertReason)
    {
        return _handleRecordedTo(op, beneficiary);
    }

    /// @dev As `_handleRecorded`, the bundler naming `to` as its beneficiary.
    function _handleRecordedTo(IPaceAccount.PackedUserOperation memory op, address payable to)
        internal
        returns (bool success, bytes memory revertReason)
    {
        return _handleRecordedBy(op, bundler, to);
    }

    /// @dev As `_handleRecorded`, `by` (sender and origin) bundling `op` for `to`.
    function _handleRecordedBy(
        IPaceAccount.PackedUserOperation memory op,
        address by,
        address payable to
    ) internal returns (bool success, bytes memory revertReason) {
        vm.recordLogs();
        vm.prank(by, by);
        ep.handleOps(_ops(op), to);
        Vm.Log[] memory logs = vm.getRecordedLogs();
        bool seen;
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter != ENTRY_POINT) continue;
            if (logs[i].topics[0] == IEntryPointV8.UserOperationEvent.selector) {
                (, success,,) = abi.decode(logs[i].data, (uint256, bool, uint256, uint256));
                seen = true;
            } else if (logs[i].topics[0] == IEntryPointV8.UserOperationRevertReason.selector) {
                (, revertReason) = abi.decode(logs[i].data, (uint256, bytes));
            }
        }
        assertTrue(seen, "no UserOperationEvent");
    }

    /// @dev Calls `acct.validateUserOp` as the EntryPoint.
    function _validate(address acct, IPaceAccount.PackedUserOperation memory op, bytes32 h)
        internal
        returns (uint256)
    {
        vm.prank(ENTRY_POINT);
        return IPaceAccount(acct).validateUserOp(op, h, 0);
    }

    /// @dev What validation returns for a good PDR with `terms`: its window as the EntryPoint
    ///      reads it (validAfter exclusive, so the PDR's inclusive start less one), no failure.
    function _window(uint256 terms) internal pure returns (uint256) {
        // forge-lint: disable-next-line(unsafe-typecast)
        uint256 validAfter = uint40(terms >> 120);
        if (validAfter != 0) --validAfter;
        // forge-lint: disable-next-line(unsafe-typecast)
        return (uint256(uint40(terms >> 80)) << 160) | (validAfter << 208);
    }
}
