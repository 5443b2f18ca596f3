// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaceAccount} from "./interfaces/IPaceAccount.sol";
import {Budgets} from "./libraries/Budgets.sol";
import {OutcomeBounds} from "./libraries/OutcomeBounds.sol";
import {PdrHash} from "./libraries/PdrHash.sol";
import {PdrTerms} from "./libraries/PdrTerms.sol";

/// @title PaceAccount
/// @notice A smart account that executes a call, or an atomic batch, only under a Policy Decision
///         Record (PDR) signed by its verifier over EIP-712 typed data, and that re-checks the
///         realised outcome against the signed bounds after the calls: per bound, an ERC-20 or
///         ETH balance, an ERC-721 id, an ERC-1155 id's balance or a third party's holdings may
///         change only as signed, and no held asset's balance may fall
///         (`libraries/OutcomeBounds.sol`). The owner keeps a raw path for recovery and
///         administration.
/// @dev    Spending budgets cap what PDR executions can move out of the account, even under a
///         leaked verifier key: the owner gives a token (or ETH) a limit per period, and every
///         PDR execution adds to the period's total (1) every fall of the account's balance
///         across each call of the batch, so a later inflow (a borrow, say) cannot net out an
///         earlier transfer, and (2) every allowance of the token that the batch's `approve` /
///         `increaseAllowance` / `increaseApproval` calls leave standing after it, since a
///         spender can pull that later, outside any PDR. A PDR may call a budgeted token only
///         for transfers and allowance changes, so no other function of it (`approveAndCall`,
///         an operator grant, a multicall) hands out rights unseen. Above the limit the
///         execution reverts. With any budget set, PDRs must use `executeBatchPDR`; the lean
///         `executePDR` path is closed. Budgets see balances and direct allowances only: debt
///         taken on, allowances granted through a third contract (Permit2), a token reachable
///         at a second address, and unbudgeted tokens are not counted. Allowances cannot be
///         listed on-chain: after a key leak the owner zeroes them with `revokeAllowances`.
///         The metering is `libraries/Budgets.sol`.
///
///         Every PDR call goes out of the account (never to itself), starts with at least the
///         signed gas floor, runs under a transient lock (no second PDR starts inside it) and,
///         if it is an ERC-20 `transfer` / `transferFrom` / `approve` that returns false, fails
///         the execution.
///
///         Not for use behind a proxy or as an EIP-7702 delegate: `owner` and the domain
///         separator are the implementation's, and the verifier slot is set by the constructor.
///
///         Gas design (see README "Gas"): the verifier, the pause flag and the sequence of nonce
///         lane 0 share one storage slot, so the common path reads one cold slot and rewrites it
///         (2,100 + 2,900 gas) instead of writing a fresh slot per PDR (22,100). Target, value,
///         calldata, bounds, held assets, chain id and account are all inside the signed digest,
///         so one signer comparison rejects a change to any of them. Each bound and held asset
///         is read once before the calls and once after them.
contract PaceAccount is IPaceAccount {
    using Budgets for Budgets.Ledger;

    /*//////////////////////////////////////////////////////////////
                                 STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @notice The owner: raw execution and administration.
    address public immutable owner;

    uint256 private immutable _cachedChainId;
    bytes32 private immutable _cachedDomainSeparator;

    bytes32 private constant _DOMAIN_TYPEHASH = keccak256(
        "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"
    );
    bytes32 private constant _NAME_HASH = keccak256("PaceAccount");
    bytes32 private constant _VERSION_HASH = keccak256("2");

    /// @dev Transient slot of the reentrancy lock held during every PDR execution, on either path.
    bytes32 private constant _LOCK_SLOT = keccak256("pace.account.lock");

    /// @dev One slot: verifier (bits 0-159) | paused (160-167) | lane-0 sequence (168-231) |
    ///      budgets on (232-239).
    uint256 private _config;

    uint256 private constant _PAUSED_SHIFT = 160;
    uint256 private constant _SEQUENCE_SHIFT = 168;
    uint256 private constant _BUDGETED_SHIFT = 232;
    uint256 private constant _SEQUENCE_MASK = 0xffffffffffffffff;

    /// @dev What a call costs the account besides the gas it forwards, at most, without a
    ///      value transfer: the target's cold access (2,600), the cold access of its code if it
    ///      is an EIP-7702 delegate (2,600) and the instructions between the gas check and the
    ///      call (under 100). Its data is already in memory when the check runs.
    uint256 private constant _CALL_COST = 5300;
    /// @dev What a value transfer adds (the 2,300 the callee receives on top is not counted) ...
    uint256 private constant _VALUE_COST = 9000;
    /// @dev ... and, to an empty account (EIP-161), what creating it adds.
    uint256 private constant _NEW_ACCOUNT_COST = 25_000;

    bytes4 private constant _APPROVE = 0x095ea7b3; // approve(address,uint256)

    /// @dev Sequences of the nonce lanes other than lane 0.
    mapping(uint32 key => uint64 sequence) private _laneSequence;

    /// @dev The spending budgets (slots 2 and 3: per-token budgets, then the budgeted tokens).
    Budgets.Ledger private _budgets;

    /*//////////////////////////////////////////////////////////////
                               CONSTRUCTOR
    //////////////////////////////////////////////////////////////*/

    /// @param owner_ The owner (raw path and administration).
    /// @param verifier_ The address of the verifier's signing key.
    constructor(address owner_, address verifier_) payable {
        // The account as its own owner would let a signed PDR administer it.
        if (owner_ == address(0) || owner_ == address(this)) {
            revert PaceAccountInvalidOwner(owner_);
        }
        if (verifier_ == address(0)) revert PaceAccountZeroVerifier();
        owner = owner_;
        _config = uint256(uint160(verifier_));
        _cachedChainId = block.chainid;
        _cachedDomainSeparator = _buildDomainSeparator();
    }

    /// @notice Accepts ETH.
    receive() external payable {}

    modifier onlyOwner() {
        if (msg.sender != owner) revert PaceAccountNotOwner(msg.sender);
        _;
    }

    /*//////////////////////////////////////////////////////////////
                              PDR EXECUTION
    //////////////////////////////////////////////////////////////*/

    /// @inheritdoc IPaceAccount
    function executePDR(
        address target,
        uint256 value,
        bytes calldata data,
        bytes32 attestation,
        uint256 terms,
        bytes32 r,
        bytes32 vs
    ) external payable returns (bytes memory result) {
        bytes32 structHash = PdrHash.hashPdr(
            attestation,
            PdrHash.hashSingleCallArray(target, value, data),
            PdrHash.EMPTY_ARRAY_HASH,
            PdrHash.EMPTY_ARRAY_HASH,
            terms
        );
        (bytes32 digest, bool budgeted) = _authorize(structHash, terms, r, vs);
        if (budgeted) revert PaceAccountBudgetRequiresBatch();
        emit PdrExecuted(digest);
        _lock();
        _call(0, target, value, data, _floor(terms));
        _unlockAndReturnResult();
    }

    /// @inheritdoc IPaceAccount
    function executeBatchPDR(
        Call[] calldata calls,
        Bound[] calldata bounds,
        address[] calldata held,
        bytes32 attestation,
        uint256 terms,
        bytes32 r,
        bytes32 vs
    ) external payable {
        if (calls.length == 0) revert PaceAccountEmptyBatch();
        (bytes32 digest, bool budgeted) =
            _authorize(_structHash(calls, bounds, held, attestation, terms), terms, r, vs);
        emit PdrExecuted(digest);

        _lock();
        uint256[] memory before = OutcomeBounds.measure(bounds, held);
        if (budgeted) {
            _budgets.charge(_budgets.meter(calls, _floor(terms), _pdrCall));
        } else {
            _executePdrCalls(calls, _floor(terms));
        }
        OutcomeBounds.check(bounds, held, before);
        _unlock();
    }

    /*//////////////////////////////////////////////////////////////
                               OWNER PATH
    //////////////////////////////////////////////////////////////*/

    /// @notice Owner-only raw call, for recovery and administration.
    function execute(address target, uint256 value, bytes calldata data)
        external
        payable
        onlyOwner
        returns (bytes memory result)
    {
        emit OwnerExecuted(target, value);
        bool ok;
        (ok, result) = target.call{value: value}(data);
        if (!ok) revert PaceAccountCallFailed(0, result);
    }

    /// @notice Owner-only raw atomic batch.
    function executeBatch(Call[] calldata calls) external payable onlyOwner {
        for (uint256 i; i < calls.length; ++i) {
            emit OwnerExecuted(calls[i].target, calls[i].value);
        }
        _executeCalls(calls);
    }

    /// @notice Rotates the verifier key. PDRs signed by the previous key stop being accepted.
    /// @dev    Rotating back to an earlier key revives its signed PDRs whose sequences are still
    ///         ahead of their lanes: after rotating away from a leaked key, also `cancelNonces`.
    function setVerifier(address verifier_) external onlyOwner {
        if (verifier_ == address(0)) revert PaceAccountZeroVerifier();
        uint256 config = _config;
        // forge-lint: disable-next-line(unsafe-typecast)
        emit VerifierRotated(address(uint160(config)), verifier_);
        _config = (config >> 160 << 160) | uint160(verifier_);
    }

    /// @notice Pauses or resumes PDR execution. The owner path stays open.
    function setPaused(bool paused_) external onlyOwner {
        uint256 flag = paused_ ? 1 : 0;
        _config = (_config & ~(uint256(0xff) << _PAUSED_SHIFT)) | (flag << _PAUSED_SHIFT);
        emit PauseSet(paused_);
    }

    /// @notice Sets the spending budget of `token` (address(0) = ETH): PDR executions may move at
    ///         most `limit` of it out of the account per `period` seconds, in total. A `period`
    ///         of 0 removes the budget. A new budget starts its first period now.
    function setBudget(address token, uint128 limit, uint64 period) external onlyOwner {
        uint256 on = _budgets.set(token, limit, period) ? 1 : 0;
        _config = (_config & ~(uint256(0xff) << _BUDGETED_SHIFT)) | (on << _BUDGETED_SHIFT);
        emit BudgetSet(token, limit, period);
    }

    /// @notice Sets each listed allowance of the account to 0 (`token.approve(spender, 0)`), the
    ///         first response to a leaked verifier key: allowances cannot be listed on-chain, but
    ///         the account's `Approval` logs name every spender it ever approved.
    /// @dev    Atomic: a token without code, whose `approve` reverts or returns false, reverts
    ///         the whole revocation (`PaceAccountCallFailed` / `PaceAccountCallReturnedFalse`
    ///         with its index), so a revocation that returns has revoked every pair.
    function revokeAllowances(Allowance[] calldata allowances) external onlyOwner {
        for (uint256 i; i < allowances.length; ++i) {
            Allowance calldata a = allowances[i];
            if (a.token.code.length == 0) revert PaceAccountCallFailed(i, "");
            (bool ok, bytes memory ret) =
                a.token.call(abi.encodeWithSelector(_APPROVE, a.spender, uint256(0)));
            if (!ok) revert PaceAccountCallFailed(i, ret);
            if (ret.length > 31 && abi.decode(ret, (uint256)) == 0) {
                revert PaceAccountCallReturnedFalse(i);
            }
            emit AllowanceRevoked(a.token, a.spender);
        }
    }

    /// @notice Moves nonce lane `key` forward to `sequence`, cancelling every signed PDR below it.
    /// @dev    `type(uint64).max` retires the lane for good: no PDR can execute on it again.
    function cancelNonces(uint32 key, uint64 sequence) external onlyOwner {
        uint64 current = _sequenceOf(key);
        if (sequence <= current) revert PaceAccountNonceNotIncreasing(key, current, sequence);
        _setSequence(key, sequence);
        emit NoncesCancelled(key, sequence);
    }

    /*//////////////////////////////////////////////////////////////
                                  VIEWS
    //////////////////////////////////////////////////////////////*/

    /// @notice The key that signs PDRs.
    function verifier() external view returns (address) {
        // forge-lint: disable-next-line(unsafe-typecast)
        return address(uint160(_config));
    }

    /// @notice Whether PDR execution is paused.
    function paused() external view returns (bool) {
        return (_config >> _PAUSED_SHIFT) & 0xff != 0;
    }

    /// @notice The budget of `token` and its current period (all zero when it has none). Once a
    ///         period has ended, the current one is the period a charge now would open: it
    ///         starts now and nothing is spent in it.
    function budget(address token)
        external
        view
        returns (uint128 limit, uint64 period, uint64 windowStart, uint128 spent)
    {
        return _budgets.current(token);
    }

    /// @notice The tokens that have a budget.
    function budgetTokens() external view returns (address[] memory) {
        return _budgets.tokens;
    }

    /// @notice The next sequence number of nonce lane `key`.
    function nextSequence(uint32 key) external view returns (uint64) {
        return _sequenceOf(key);
    }

    /// @notice The EIP-712 domain separator (name "PaceAccount", version "2", the chain id and
    ///         this account).
    function domainSeparator() public view returns (bytes32) {
        return block.chainid == _cachedChainId ? _cachedDomainSeparator : _buildDomainSeparator();
    }

    /// @notice The digest the verifier signs for `calls`, `bounds`, `held`, `attestation` and
    ///         `terms`.
    function pdrDigest(
        Call[] calldata calls,
        Bound[] calldata bounds,
        address[] calldata held,
        bytes32 attestation,
        uint256 terms
    ) external view returns (bytes32) {
        return PdrHash.toTypedDataHash(
            domainSeparator(), _structHash(calls, bounds, held, attestation, terms)
        );
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    /// @dev `hashStruct(Pdr)` of a batch PDR.
    function _structHash(
        Call[] calldata calls,
        Bound[] calldata bounds,
        address[] calldata held,
        bytes32 attestation,
        uint256 terms
    ) private pure returns (bytes32) {
        return PdrHash.hashPdr(
            attestation,
            PdrHash.hashCalls(calls),
            PdrHash.hashBounds(bounds),
            PdrHash.hashAddresses(held),
            terms
        );
    }

    /// @dev Every pre-call check of the PDR whose `hashStruct` is `structHash`, then the nonce
    ///      is consumed (checks-effects-interactions).
    function _authorize(bytes32 structHash, uint256 terms, bytes32 r, bytes32 vs)
        private
        returns (bytes32 digest, bool budgeted)
    {
        uint256 config = _config; // the only cold storage read of the common path
        budgeted = (config >> _BUDGETED_SHIFT) & 0xff != 0;
        if ((config >> _PAUSED_SHIFT) & 0xff != 0) revert PaceAccountPaused();

        _checkWindow(terms);

        digest = PdrHash.toTypedDataHash(domainSeparator(), structHash);
        address recovered = _recover(digest, r, vs);
        // A failed recovery is address(0): never a match, even for an unset verifier slot.
        uint256 mismatch;
        assembly ("memory-safe") {
            mismatch := or(xor(recovered, and(config, sub(shl(160, 1), 1))), iszero(recovered))
        }
        if (mismatch != 0) revert PaceAccountInvalidSigner(recovered);

        uint32 key = PdrTerms.key(terms);
        uint64 seq = PdrTerms.sequence(terms);
        // A retired lane's sequence is type(uint64).max, so `seq + 1` below cannot overflow.
        if (key == 0) {
            // forge-lint: disable-next-line(unsafe-typecast)
            uint64 expected = uint64(config >> _SEQUENCE_SHIFT);
            if (expected == type(uint64).max) revert PaceAccountLaneRetired(0);
            if (seq != expected) revert PaceAccountInvalidNonce(0, expected, seq);
            unchecked {
                _config = _withSequence(config, seq + 1);
            }
        } else {
            uint64 expected = _laneSequence[key];
            if (expected == type(uint64).max) revert PaceAccountLaneRetired(key);
            if (seq != expected) revert PaceAccountInvalidNonce(key, expected, seq);
            unchecked {
                _laneSequence[key] = seq + 1;
            }
        }
    }

    /// @dev The validity window and the simulation's freshness.
    function _checkWindow(uint256 terms) private view {
        uint40 validAfter = PdrTerms.validAfter(terms);
        if (block.timestamp < validAfter) {
            revert PaceAccountNotYetValid(validAfter, block.timestamp);
        }
        uint40 validUntil = PdrTerms.validUntil(terms);
        if (block.timestamp > validUntil) revert PaceAccountExpired(validUntil, block.timestamp);
        uint48 simulationBlock = PdrTerms.simulationBlock(terms);
        if (simulationBlock > block.number) {
            revert PaceAccountSimulationInFuture(simulationBlock, block.number);
        }
        uint16 maxAge = PdrTerms.maxSimulationAge(terms);
        uint256 age;
        unchecked {
            age = block.number - simulationBlock; // simulationBlock <= block.number, checked above
        }
        if (age > maxAge) revert PaceAccountStaleSimulation(simulationBlock, maxAge, block.number);
    }

    /// @dev The signed gas floor in gas (`PdrTerms.callGasKib` KiB; 0: none). The signer sets
    ///      it at 1.5x the simulated gas: room for refunds and the 1/64 each nested call keeps
    ///      back.
    function _floor(uint256 terms) private pure returns (uint256) {
        return uint256(PdrTerms.callGasKib(terms)) << 10;
    }

    /// @dev Runs call `index` of a PDR and returns the gas it used, from just before the gas
    ///      check to just after the call (the call's own cost and all its callee spent). The
    ///      call:
    ///      - may not target the account itself;
    ///      - starts only if its callee gets at least `floor` gas (0: no floor). The check runs
    ///        after the data is copied to memory, right before the call: the callee gets all but
    ///        1/64 of what is left after the call's own cost (EIP-150), which is at most
    ///        `_CALL_COST`, plus `_VALUE_COST` with value, plus `_NEW_ACCOUNT_COST` when that
    ///        value goes to an empty account; so that cost and `floor + floor / 63` suffice;
    ///      - reverts the execution with its revert data if it fails, or if it is an ERC-20
    ///        `transfer`, `transferFrom` or `approve` (by selector) that returns 32 bytes or
    ///        more whose first word is 0. Returning nothing (USDT-style) is success.
    ///      Its result stays in the return data buffer, uncopied.
    function _call(uint256 index, address target, uint256 value, bytes calldata data, uint256 floor)
        private
        returns (uint256 used)
    {
        assembly ("memory-safe") {
            if eq(target, address()) {
                mstore(0x00, shl(224, 0xb9b65a5b)) // PaceAccountSelfCall(uint256)
                mstore(0x04, index)
                revert(0x00, 0x24)
            }
            let m := mload(0x40)
            calldatacopy(m, data.offset, data.length)
            let start := gas()
            if floor {
                let cost := _CALL_COST
                if value {
                    // EXTCODEHASH is 0 for an empty account.
                    cost := add(
                        add(cost, _VALUE_COST),
                        mul(iszero(extcodehash(target)), _NEW_ACCOUNT_COST)
                    )
                }
                let left := gas()
                if lt(left, add(add(floor, div(floor, 63)), cost)) {
                    // What the callee would have got.
                    left := mul(gt(left, cost), sub(left, cost))
                    mstore(m, shl(224, 0xc8f3ee86)) // PaceAccountInsufficientGas(uint256,uint256)
                    mstore(add(m, 0x04), floor)
                    mstore(add(m, 0x24), sub(left, div(left, 64)))
                    revert(m, 0x44)
                }
            }
            let ok := call(gas(), target, value, m, data.length, 0x00, 0x00)
            used := sub(start, gas())
            if iszero(ok) {
                let n := returndatasize()
                mstore(m, shl(224, 0x2acc9d97)) // PaceAccountCallFailed(uint256,bytes)
                mstore(add(m, 0x04), index)
                mstore(add(m, 0x24), 0x40)
                mstore(add(m, 0x44), n)
                returndatacopy(add(m, 0x64), 0x00, n)
                mstore(add(add(m, 0x64), n), 0) // zero padding
                revert(m, add(0x64, and(add(n, 0x1f), not(0x1f))))
            }
            if gt(returndatasize(), 0x1f) {
                let selector := shr(224, calldataload(data.offset))
                if and(
                    gt(data.length, 3),
                    or(
                        or(eq(selector, 0xa9059cbb), eq(selector, 0x23b872dd)), // transfer, transferFrom
                        eq(selector, 0x095ea7b3) // approve
                    )
                ) {
                    returndatacopy(0x00, 0x00, 0x20)
                    if iszero(mload(0x00)) {
                        mstore(0x00, shl(224, 0x535473c5)) // PaceAccountCallReturnedFalse(uint256)
                        mstore(0x04, index)
                        revert(0x00, 0x24)
                    }
                }
            }
        }
    }

    /// @dev Releases the lock and returns from the lean path with the last call's result,
    ///      ABI-encoded as `bytes`, copied once.
    function _unlockAndReturnResult() private {
        bytes32 slot = _LOCK_SLOT;
        assembly ("memory-safe") {
            tstore(slot, 0)
            let m := mload(0x40)
            let n := returndatasize()
            mstore(m, 0x20)
            mstore(add(m, 0x20), n)
            returndatacopy(add(m, 0x40), 0x00, n)
            mstore(add(add(m, 0x40), n), 0) // zero padding
            return(m, add(0x40, and(add(n, 0x1f), not(0x1f))))
        }
    }

    /// @dev The floor left for the next call of a batch once one used `used`.
    function _remaining(uint256 floor, uint256 used) private pure returns (uint256) {
        unchecked {
            return floor > used ? floor - used : 0;
        }
    }

    /// @dev A PDR's calls, each through `_call`: the first starts with the floor, each later one
    ///      with the floor less what the calls before it used.
    function _executePdrCalls(Call[] calldata calls, uint256 floor) private {
        for (uint256 i; i < calls.length; ++i) {
            Call calldata c = calls[i];
            floor = _remaining(floor, _call(i, c.target, c.value, c.data, floor));
        }
    }

    /// @dev Call `index` of a PDR under the budgets (`Budgets.meter` runs the calls): as in
    ///      `_executePdrCalls`, returns the floor left for the next call.
    function _pdrCall(uint256 index, Call calldata c, uint256 floor) private returns (uint256) {
        return _remaining(floor, _call(index, c.target, c.value, c.data, floor));
    }

    /// @dev EIP-2098 compact signature recovery; returns address(0) on failure.
    ///      High-s values need no rejection here: the nonce, not the signature bytes, prevents
    ///      replay, and any signature over the digest is the verifier's approval.
    function _recover(bytes32 digest, bytes32 r, bytes32 vs) private view returns (address signer) {
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(0x00, digest)
            mstore(0x20, add(shr(255, vs), 27))
            mstore(0x40, r)
            mstore(0x60, shr(1, shl(1, vs)))
            let ok := staticcall(gas(), 0x01, 0x00, 0x80, 0x00, 0x20)
            signer := mul(mload(0x00), and(ok, eq(returndatasize(), 0x20)))
            mstore(0x60, 0)
            mstore(0x40, m)
        }
    }

    function _executeCalls(Call[] calldata calls) private {
        for (uint256 i; i < calls.length; ++i) {
            Call calldata c = calls[i];
            (bool ok, bytes memory ret) = c.target.call{value: c.value}(c.data);
            if (!ok) revert PaceAccountCallFailed(i, ret);
        }
    }

    function _sequenceOf(uint32 key) private view returns (uint64) {
        // forge-lint: disable-next-line(unsafe-typecast)
        return key == 0 ? uint64(_config >> _SEQUENCE_SHIFT) : _laneSequence[key];
    }

    function _setSequence(uint32 key, uint64 sequence) private {
        if (key == 0) {
            _config = _withSequence(_config, sequence);
        } else {
            _laneSequence[key] = sequence;
        }
    }

    function _withSequence(uint256 config, uint64 sequence) private pure returns (uint256) {
        return
            (config & ~(_SEQUENCE_MASK << _SEQUENCE_SHIFT)) | (uint256(sequence) << _SEQUENCE_SHIFT);
    }

    /// @dev Takes the lock, or reverts if it is held.
    function _lock() private {
        bytes32 slot = _LOCK_SLOT;
        assembly ("memory-safe") {
            if tload(slot) {
                mstore(0x00, shl(224, 0x80467d42)) // PaceAccountReentrant()
                revert(0x00, 0x04)
            }
            tstore(slot, 1)
        }
    }

    function _unlock() private {
        bytes32 slot = _LOCK_SLOT;
        assembly ("memory-safe") {
            tstore(slot, 0)
        }
    }

    function _buildDomainSeparator() private view returns (bytes32) {
        return keccak256(
            abi.encode(_DOMAIN_TYPEHASH, _NAME_HASH, _VERSION_HASH, block.chainid, address(this))
        );
    }
}
