// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Vm} from "forge-std/Vm.sol";
import {
    EntryPointFixture,
    IEntryPointV8,
    ISimpleAccountFactoryV8
} from "../accounts/EntryPointFixture.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";
import {OutcomeBounds} from "../../contracts/libraries/OutcomeBounds.sol";
import {MockERC20} from "../../contracts/mocks/MockERC20.sol";

/// @notice Gas of PACE on the accounts agents already have, beside the reference accounts of
///         the account-abstraction contracts 0.8.0 (npm), in isolated transactions (`make gas`:
///         `forge test --isolate`, so every top-level call below is its own transaction and
///         cold storage is cold).
///
///         - `overhead 4337_<case> pace=<gas> reference=<gas>`: the whole `handleOps`
///           transaction (gas used, intrinsic and calldata included) of one user operation
///           through the real EntryPoint v0.8: a PDR user operation of the standalone
///           `PaceAccount` against an owner-signed user operation of `SimpleAccount` (its
///           factory's ERC-1967 proxy) running the same call through `execute`.
///         - `overhead 7702_<case> pace=<gas> reference=<gas>`: execution gas (transaction gas
///           less 21,000 and calldata, as the standalone `overhead` lines) of one transaction to
///           an EOA delegated (EIP-7702) to `PaceDelegate`, a relayer submitting a PDR on the
///           direct path (`executePDR`, or `executeBatchPDR` with bounds), against the same EOA
///           delegated to `Simple7702Account` sending itself `execute` with the same call (its
///           direct path: the EOA key signs the transaction, no user operation).
///         - `bound_cost <line> gas=<gas>`: what the case's bounds and held assets add to the
///           same PDR without them, on the same path.
///
///         Every case runs from one state (a state snapshot is restored between its
///         transactions) in which each account has executed before: EntryPoint nonces,
///         deposits, lanes and token balances exist in steady state on both sides.
contract AccountsGasTest is EntryPointFixture {
    /// @dev What the account's own nonce lane costs a PDR user operation: its execution moves
    ///      the lane past the sequence the EntryPoint ran (one lane per key on both paths), a
    ///      write of a warm non-zero slot (2,900 gas). `SimpleAccount` keeps no lane of its own.
    uint256 internal constant LANE_WRITE = 2900;

    /// @dev What an empty post-condition array adds to a PDR user operation: two words of call
    ///      data that the bundler pays for and the EntryPoint copies, hashes and forwards, and
    ///      validation's walk of one more array (measured 1,636 on the ERC-20 transfer; 47 of it
    ///      in the account's execution).
    uint256 internal constant EMPTY_CHECKS = 1700;

    /// @dev What the account's grant filter adds to a PDR: after each call, the bits the call
    ///      records, compared with a warm read of the packed slot when it may grant (measured
    ///      158 on the ERC-20 transfer, which records nothing, and 453 on the swap, whose
    ///      router's bit is already set). `SimpleAccount` records nothing.
    uint256 internal constant GRANT_RECORD = 500;

    /// @dev The most a PDR user operation without bounds may cost over `SimpleAccount` running
    ///      the same call: 5,000 for the PDR's checks, plus the lane, the empty post-condition
    ///      array and the grant filter's record.
    uint256 internal constant MAX_4337_OVERHEAD = 5000 + LANE_WRITE + EMPTY_CHECKS + GRANT_RECORD;

    address internal simple;
    address internal simple7702Impl;
    MockERC20 internal usdc;
    MockERC20 internal wbtc;

    function setUp() public {
        // Gas is measured in isolated transactions only (`make gas`); skipped otherwise.
        if (!vm.envOr("PACE_GAS_ISOLATED", false)) {
            vm.skip(true);
            return;
        }
        _deployWorld();
        address factory = deployCode(
            string.concat(ARTIFACTS, "SimpleAccountFactory.json"), abi.encode(ENTRY_POINT)
        );
        vm.prank(ep.senderCreator());
        simple = ISimpleAccountFactoryV8(factory).createAccount(owner, 0);
        simple7702Impl = deployCode(string.concat(ARTIFACTS, "Simple7702Account.json"));
        usdc = new MockERC20("USD Coin", "USDC", 6);
        wbtc = new MockERC20("Wrapped BTC", "WBTC", 8);

        // Every account holds the same assets and has approved the router.
        address[3] memory holders = [address(account), simple, eoa];
        for (uint256 i; i < 3; ++i) {
            address h = holders[i];
            if (h != address(account)) {
                weth.mint(h, 100 ether);
                dai.mint(h, 100_000 ether);
            }
            usdc.mint(h, 10_000e6);
            wbtc.mint(h, 1e8);
            vm.deal(h, 10 ether);
            ep.depositTo{value: 1 ether}(h);
        }
        // The standalone account approved it and swapped through it before, through PDRs (an
        // owner's raw call would set every bit of its grant filter).
        _handle(_pacePdrOp(_callPdr(address(weth), _approveData(type(uint128).max))));
        _handle(_pacePdrOp(_callPdr(address(router), _swapTo(address(account)))));
        vm.prank(owner);
        (bool ok,) = simple.call(
            abi.encodeWithSignature(
                "execute(address,uint256,bytes)", address(weth), 0, _approveData(type(uint128).max)
            )
        );
        require(ok, "SimpleAccount approval");
        vm.prank(eoa);
        dlg.execute(address(weth), 0, _approveData(type(uint128).max));
        vm.deal(beneficiary, 1 ether);

        // Steady state: one user operation each through the EntryPoint, one direct PDR at the
        // delegated EOA.
        _handle(_pacePdrOp(_transferPdr(1 ether, _nextTerms(address(account)))));
        _handle(_simpleOp(address(dai), _transferData(1 ether)));
        _send(eoa, bundler, _delegatePdrCall(_transferPdr(1 ether, _delegateTerms())));
    }

    /*//////////////////////////////////////////////////////////////
                                 CASES
    //////////////////////////////////////////////////////////////*/

    function test_gas_4337_erc20_transfer() public {
        _skipUnlessIsolated();
        uint256 snap = vm.snapshotState();
        uint256 pace = _handleGas(_pacePdrOp(_transferPdr(500 ether, _nextTerms(address(account)))));
        vm.revertToState(snap);
        uint256 ref = _handleGas(_simpleOp(address(dai), _transferData(500 ether)));
        _line("overhead 4337_erc20_transfer", pace, ref);
        assertLe(pace, ref + MAX_4337_OVERHEAD, "a PDR without bounds, over SimpleAccount");
    }

    /// The typical swap as the signer bounds it (DAI must arrive, WETH may leave up to the
    /// amount in; on the standalone account USDC and WBTC are left unread under an `UNGRANTED`
    /// bound and ETH is not held, on the delegated EOA, which keeps no grant filter, ETH, USDC
    /// and WBTC are held); the reference runs the same swap unbounded.
    function test_gas_4337_swap_typical_v2() public {
        _skipUnlessIsolated();
        uint256 snap = vm.snapshotState();
        uint256 bounded = _handleGas(_pacePdrOp(_swapPdr(address(account), true)));
        vm.revertToState(snap);
        uint256 bare = _handleGas(_pacePdrOp(_swapPdr(address(account), false)));
        vm.revertToState(snap);
        uint256 ref = _handleGas(_simpleOp(address(router), _swapTo(simple)));
        _line("overhead 4337_amm_swap", bare, ref);
        assertLe(bare, ref + MAX_4337_OVERHEAD, "a PDR without bounds, over SimpleAccount");
        _line("overhead 4337_swap_typical_v2", bounded, ref);
        emit log(string.concat("bound_cost 4337_swap_typical_v2 gas=", vm.toString(bounded - bare)));
    }

    function test_gas_7702_erc20_transfer() public {
        _skipUnlessIsolated();
        uint256 snap = vm.snapshotState();
        uint256 pace =
            _send(eoa, bundler, _delegatePdrCall(_transferPdr(500 ether, _delegateTerms())));
        (uint256 delegateRaw, uint256 ref) =
            _rawPaths("7702_erc20_transfer", snap, address(dai), _transferData(500 ether));
        _line("overhead 7702_erc20_transfer", pace, ref);
        _ownerPathLine("7702_erc20_transfer", pace, delegateRaw, ref);
    }

    function test_gas_7702_swap_typical_v2() public {
        _skipUnlessIsolated();
        uint256 snap = vm.snapshotState();
        uint256 bounded = _send(eoa, bundler, _delegatePdrCall(_swapPdr(eoa, true)));
        vm.revertToState(snap);
        uint256 bare = _send(eoa, bundler, _delegatePdrCall(_swapPdr(eoa, false)));
        (uint256 delegateRaw, uint256 ref) =
            _rawPaths("7702_swap_typical_v2", snap, address(router), _swapTo(eoa));
        _line("overhead 7702_amm_swap", bare, ref);
        _line("overhead 7702_swap_typical_v2", bounded, ref);
        _ownerPathLine("7702_amm_swap", bare, delegateRaw, ref);
        _ownerPathLine("7702_swap_typical_v2", bounded, delegateRaw, ref);
        emit log(string.concat("bound_cost 7702_swap_typical_v2 gas=", vm.toString(bounded - bare)));
    }

    /*//////////////////////////////////////////////////////////////
                                MEASURING
    //////////////////////////////////////////////////////////////*/

    function _skipUnlessIsolated() internal {
        // Only meaningful as isolated transactions; `make gas` runs them that way.
        if (!vm.envOr("PACE_GAS_ISOLATED", false)) vm.skip(true);
    }

    /// @dev The PDR's execution gas over the delegate's own owner path (the standalone
    ///      `overhead` lines' measure) and the two raw paths' execution gas.
    function _ownerPathLine(string memory name, uint256 pace, uint256 delegateRaw, uint256 ref)
        internal
    {
        emit log(string.concat(
                "owner_path ",
                name,
                " pdr_over_owner_path=",
                vm.toString(pace - delegateRaw),
                " pace_delegate_raw=",
                vm.toString(delegateRaw),
                " simple7702_raw=",
                vm.toString(ref)
            ));
    }

    function _line(string memory name, uint256 pace, uint256 ref) internal {
        emit log(string.concat(name, " pace=", vm.toString(pace), " reference=", vm.toString(ref)));
    }

    /// @dev The bundler submits `op` alone as its own transaction; returns the transaction's
    ///      gas. The user operation must have succeeded.
    function _handleGas(IPaceAccount.PackedUserOperation memory op)
        internal
        returns (uint256 gas_)
    {
        bytes memory cd = abi.encodeCall(ep.handleOps, (_ops(op), beneficiary));
        vm.recordLogs();
        vm.prank(bundler, bundler);
        (bool ok, bytes memory ret) = ENTRY_POINT.call(cd);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(ret, 0x20), mload(ret))
            }
        }
        gas_ = vm.lastCallGas().gasTotalUsed;
        Vm.Log[] memory logs = vm.getRecordedLogs();
        bool succeeded;
        for (uint256 i; i < logs.length; ++i) {
            if (
                logs[i].emitter == ENTRY_POINT
                    && logs[i].topics[0] == IEntryPointV8.UserOperationEvent.selector
            ) {
                (, succeeded,,) = abi.decode(logs[i].data, (uint256, bool, uint256, uint256));
            }
        }
        assertTrue(succeeded, "the user operation succeeded");
    }

    /// @dev Sends `cd` to `to` from `from` as its own transaction; returns its execution gas
    ///      (transaction gas less the EIP-2028 intrinsic cost).
    function _send(address to, address from, bytes memory cd) internal returns (uint256) {
        return _sendTx(to, from, cd)[1];
    }

    /// @dev As `_send`; returns the transaction's gas and its execution gas.
    function _sendTx(address to, address from, bytes memory cd)
        internal
        returns (uint256[2] memory gas_)
    {
        vm.prank(from, from);
        (bool ok, bytes memory ret) = to.call(cd);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(ret, 0x20), mload(ret))
            }
        }
        uint256 intrinsic = 21_000;
        for (uint256 i; i < cd.length; ++i) {
            intrinsic += cd[i] == 0 ? 4 : 16;
        }
        gas_[0] = vm.lastCallGas().gasTotalUsed;
        gas_[1] = gas_[0] - intrinsic;
    }

    /// @dev The raw paths of a 7702 case, from the state `snap`: the EOA sending itself
    ///      `execute(target, 0, data)` on `PaceDelegate` (the owner path, as the standalone
    ///      `overhead` lines' raw path) and on `Simple7702Account`; prints their transaction gas
    ///      and returns their execution gas. Leaves the EOA delegated to `Simple7702Account`.
    function _rawPaths(string memory name, uint256 snap, address target, bytes memory data)
        internal
        returns (uint256 delegateRaw, uint256 simpleRaw)
    {
        vm.revertToState(snap);
        uint256[2] memory d = _sendTx(eoa, eoa, _executeCall(target, data));
        vm.revertToState(snap);
        _delegateToSimple7702();
        uint256[2] memory r = _sendTx(eoa, eoa, _executeCall(target, data));
        emit log_named_uint(string.concat("raw_tx_gas ", name, " pace_delegate"), d[0]);
        emit log_named_uint(string.concat("raw_tx_gas ", name, " simple7702_account"), r[0]);
        (delegateRaw, simpleRaw) = (d[1], r[1]);
    }

    /*//////////////////////////////////////////////////////////////
                                BUILDING
    //////////////////////////////////////////////////////////////*/

    /// @dev Terms on lane 0 at `sender`'s next EntryPoint sequence.
    function _nextTerms(address sender) internal view returns (uint256) {
        // forge-lint: disable-next-line(unsafe-typecast)
        return _termsAt(0, uint64(ep.getNonce(sender, 0)));
    }

    /// @dev Terms on lane 0 at the delegated EOA's next direct-path sequence.
    function _delegateTerms() internal view returns (uint256) {
        return _termsAt(0, dlg.nextSequence(0));
    }

    function _pacePdrOp(Pdr memory p)
        internal
        view
        returns (IPaceAccount.PackedUserOperation memory)
    {
        return _pdrOp(address(account), p);
    }

    /// @dev SimpleAccount's owner-signed user operation of `execute(target, 0, data)`.
    function _simpleOp(address target, bytes memory data)
        internal
        view
        returns (IPaceAccount.PackedUserOperation memory)
    {
        return _ownerOp(simple, ep.getNonce(simple, 0), _executeCall(target, data), OWNER_KEY);
    }

    function _executeCall(address target, bytes memory data) internal pure returns (bytes memory) {
        return abi.encodeWithSignature("execute(address,uint256,bytes)", target, 0, data);
    }

    /// @dev The delegated EOA's direct-path submission of `p` (lean when it has no bounds and
    ///      one call).
    function _delegatePdrCall(Pdr memory p) internal view returns (bytes memory) {
        (bytes32 r, bytes32 vs) =
            vm.signCompact(VERIFIER_KEY, _digest(_delegateDirectDomain(eoa), p));
        if (p.bounds.length == 0 && p.held.length == 0 && p.calls.length == 1) {
            IPaceAccount.Call memory c = p.calls[0];
            return abi.encodeCall(
                dlg.executePDR, (c.target, c.value, c.data, p.attestation, p.terms, r, vs)
            );
        }
        return abi.encodeCall(
            dlg.executeBatchPDR,
            (p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms, r, vs)
        );
    }

    /// @dev A swap of 1 WETH for DAI paid to `holder`, bounded as the signer bounds the typical
    ///      swap when `bounded`, else bare.
    function _swapPdr(address holder, bool bounded) internal view returns (Pdr memory p) {
        p.terms = holder == eoa ? _delegateTerms() : _nextTerms(holder);
        p.calls = _one(address(router), 0, _swapTo(holder));
        p.attestation = _attestation(p.terms);
        if (!bounded) {
            p.bounds = _noBounds();
            p.held = _noHeld();
            return p;
        }
        p.bounds = new IPaceAccount.Bound[](holder == eoa ? 2 : 3);
        p.bounds[0] = _balanceBound(address(dai), 0, 900 ether);
        p.bounds[1] = _balanceBound(address(weth), 1 ether, 0);
        if (holder != eoa) {
            uint256 bits = (uint256(1) << (uint160(address(usdc)) & 15))
                | (uint256(1) << (uint160(address(wbtc)) & 15));
            assertEq(account.grantFilter() & bits, 0, "a bit of the unread tokens is set");
            p.bounds[2] = IPaceAccount.Bound(address(0), OutcomeBounds.UNGRANTED, bits, 0, 0, 0);
            p.held = _noHeld();
            return p;
        }
        p.held = new address[](3);
        (p.held[0], p.held[1], p.held[2]) = (address(0), address(usdc), address(wbtc));
    }

    /// @dev An unbounded PDR of one call of the standalone account.
    function _callPdr(address target, bytes memory data) internal view returns (Pdr memory p) {
        p.terms = _nextTerms(address(account));
        p.calls = _one(target, 0, data);
        p.attestation = _attestation(p.terms);
        p.bounds = _noBounds();
        p.held = _noHeld();
    }

    function _swapTo(address to) internal view returns (bytes memory) {
        return abi.encodeCall(
            router.swapExactTokensForTokens,
            (1 ether, 0, _path(address(weth), address(dai)), to, block.timestamp + 600)
        );
    }

    /// @dev Re-delegates the EOA to `Simple7702Account` (its own transaction).
    function _delegateToSimple7702() internal {
        vm.signAndAttachDelegation(simple7702Impl, EOA_KEY);
        (bool ok,) = eoa.call("");
        require(ok, "re-delegation");
        assertEq(eoa.code, abi.encodePacked(hex"ef0100", simple7702Impl));
    }
}
