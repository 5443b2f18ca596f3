// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {SafeModuleWorld} from "../safe/SafeModuleWorld.sol";
import {PaceModule} from "../../contracts/PaceModule.sol";
import {IPaceAccount} from "../../contracts/interfaces/IPaceAccount.sol";

/// @notice `PaceModule` without its read of the Safe's configuration around each call: the
///         module path's own cost, for the gas comparison only.
contract PaceModuleWithoutConfigCheck is PaceModule {
    constructor(address safe_, address verifier_) PaceModule(safe_, verifier_) {}

    function _configHash() internal pure override returns (bytes32) {
        return bytes32(uint256(1));
    }
}

/// @notice Gas of PACE on a Safe 1.4.1 (`Safe` singleton, not `SafeL2`; proxies from the real
///         factory), in isolated transactions (`make gas`):
///         `overhead safe_<case> pace=<gas> reference=<gas>`: the whole transaction (gas used,
///         intrinsic and calldata included) of a relayer submitting a PDR to `PaceModule`
///         against the same Safe's own `execTransaction` of the same call, one owner signature
///         (1-of-1), sent by that owner. `safe_<case>_without_config_check` is the module path
///         without its reads of the Safe's configuration (owners, threshold, modules, guard,
///         fallback handler, singleton) before and after the call, on a second, identical
///         Safe. Every case starts from one state in which each Safe has executed one module
///         PDR and one owner transaction before (nonces and balances in steady state).
contract SafeGasTest is SafeModuleWorld {
    address internal safe2;
    PaceModule internal bare;

    function _viaEntryPoint() internal pure override returns (bool) {
        return false;
    }

    function setUp() public override {
        if (!vm.envOr("PACE_GAS_ISOLATED", false)) {
            vm.skip(true);
            return;
        }
        super.setUp();
        safe2 = _createSafe(_keys(SAFE_OWNER_KEY), 1);
        bare = new PaceModuleWithoutConfigCheck(safe2, verifierAddr);
        _enableModule(safe2, address(bare), _keys(SAFE_OWNER_KEY));
        weth.mint(safe2, 100 ether);
        dai.mint(safe2, 100_000 ether);
        address[2] memory safes = [safe, safe2];
        PaceModule[2] memory modules = [module, bare];
        for (uint256 i; i < 2; ++i) {
            require(
                _execSafe(
                    safes[i],
                    address(weth),
                    0,
                    _approveData(type(uint128).max),
                    0,
                    _keys(SAFE_OWNER_KEY)
                ),
                "approval"
            );
            _send(address(modules[i]), _transferCall(modules[i], 1 ether));
        }
    }

    function test_gas_safe_erc20_transfer() public {
        uint256 snap = vm.snapshotState();
        uint256 pace = _send(address(module), _transferCall(module, 500 ether));
        uint256 without = _send(address(bare), _transferCall(bare, 500 ether));
        vm.revertToState(snap);
        uint256 ref = _ownerTx(address(dai), _transferData(500 ether));
        _line("overhead safe_erc20_transfer", pace, ref);
        _line("overhead safe_erc20_transfer_without_config_check", without, ref);
    }

    /// The swap unbounded (`safe_amm_swap`) and as the signer bounds it (`safe_swap_typical_v2`:
    /// DAI must arrive, WETH may leave up to the amount in, ETH held); the reference runs the
    /// same swap.
    function test_gas_safe_swap_typical_v2() public {
        uint256 snap = vm.snapshotState();
        uint256 pace = _send(address(module), _swapCall(module, true));
        uint256 without = _send(address(bare), _swapCall(bare, true));
        vm.revertToState(snap);
        uint256 unbounded = _send(address(module), _swapCall(module, false));
        uint256 unboundedWithout = _send(address(bare), _swapCall(bare, false));
        vm.revertToState(snap);
        uint256 ref = _ownerTx(address(router), _swapData(safe));
        _line("overhead safe_amm_swap", unbounded, ref);
        _line("overhead safe_amm_swap_without_config_check", unboundedWithout, ref);
        _line("overhead safe_swap_typical_v2", pace, ref);
        _line("overhead safe_swap_typical_v2_without_config_check", without, ref);
    }

    /*//////////////////////////////////////////////////////////////
                                MEASURING
    //////////////////////////////////////////////////////////////*/

    function _line(string memory name, uint256 pace, uint256 ref) internal {
        emit log(string.concat(name, " pace=", vm.toString(pace), " reference=", vm.toString(ref)));
    }

    /// @dev Sends `cd` to `to` from a relayer as its own transaction; returns its gas.
    function _send(address to, bytes memory cd) internal returns (uint256) {
        address relayer = makeAddr("relayer");
        vm.prank(relayer, relayer);
        (bool ok, bytes memory ret) = to.call(cd);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(ret, 0x20), mload(ret))
            }
        }
        return vm.lastCallGas().gasTotalUsed;
    }

    /// @dev The Safe's owner sends its own `execTransaction` of (`to`, `data`); returns its gas.
    function _ownerTx(address to, bytes memory data) internal returns (uint256) {
        bytes memory cd = _execCalldata(safe, to, 0, data, 0, _keys(SAFE_OWNER_KEY));
        address o = vm.addr(SAFE_OWNER_KEY);
        vm.prank(o, o);
        (bool ok, bytes memory ret) = safe.call(cd);
        require(ok && abi.decode(ret, (bool)), "the owner's transaction");
        return vm.lastCallGas().gasTotalUsed;
    }

    /*//////////////////////////////////////////////////////////////
                                BUILDING
    //////////////////////////////////////////////////////////////*/

    function _terms(PaceModule m) internal view returns (uint256) {
        Terms memory t = _terms();
        t.sequence = m.nextSequence(0);
        return _pack(t);
    }

    function _signed(PaceModule m, Pdr memory p) internal view returns (bytes32 r, bytes32 vs) {
        bytes32 domain =
            _saltedDomain("PaceModule", "1", address(m), bytes32(uint256(uint160(m.safe()))));
        return vm.signCompact(VERIFIER_KEY, _digest(domain, p));
    }

    /// @dev The lean path (`executePDR`): a DAI transfer without bounds.
    function _transferCall(PaceModule m, uint256 amount) internal view returns (bytes memory) {
        Pdr memory p = _transferPdr(amount, _terms(m));
        p.checks = _noChecks();
        (bytes32 r, bytes32 vs) = _signed(m, p);
        return abi.encodeCall(
            IPaceAccount.executePDR,
            (address(dai), 0, _transferData(amount), p.attestation, p.terms, r, vs)
        );
    }

    function _swapData(address to) internal view returns (bytes memory) {
        return abi.encodeCall(
            router.swapExactTokensForTokens,
            (1 ether, 0, _path(address(weth), address(dai)), to, block.timestamp + 600)
        );
    }

    /// @dev The batch path, with the typical swap's bounds when `bounded`.
    function _swapCall(PaceModule m, bool bounded) internal view returns (bytes memory) {
        Pdr memory p;
        p.terms = _terms(m);
        p.calls = _one(address(router), 0, _swapData(m.safe()));
        p.attestation = _attestation(p.terms);
        p.checks = _noChecks();
        if (!bounded) {
            // Unbounded: the lean path (`executePDR`).
            p.bounds = _noBounds();
            p.held = _noHeld();
            (bytes32 r0, bytes32 vs0) = _signed(m, p);
            return abi.encodeCall(
                IPaceAccount.executePDR,
                (address(router), 0, p.calls[0].data, p.attestation, p.terms, r0, vs0)
            );
        }
        p.bounds = new IPaceAccount.Bound[](2);
        p.bounds[0] = _balanceBound(address(dai), 0, 900 ether);
        p.bounds[1] = _balanceBound(address(weth), 1 ether, 0);
        p.held = new address[](1);
        p.held[0] = address(0);
        p.checks = _noChecks();
        (bytes32 r, bytes32 vs) = _signed(m, p);
        return abi.encodeCall(
            IPaceAccount.executeBatchPDR,
            (p.calls, p.bounds, p.held, p.checks, p.attestation, p.terms, r, vs)
        );
    }
}
