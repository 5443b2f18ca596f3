//! Every PDR entry path on the in-process EVM, end to end, with the real ERC-4337 EntryPoint
//! v0.8 (npm bytecode, read at run time) at its canonical address:
//!
//! - the standalone `PaceAccount`, called directly (`executeBatchPDR`) and through the
//!   EntryPoint (`handleOps` from a bundler, the prefund paid from the account's deposit);
//! - an EOA delegated to `PaceDelegate` (its code set to the EIP-7702 designator, set up by a
//!   transaction of the EOA to itself), called directly and through the EntryPoint.
//!
//! Each PDR is signed in Rust under its path's domain (`pace_types::pdr::EntryPath`) and must
//! move the tokens it names; the contracts' digests and domain separators must equal the Rust
//! ones on every path; and a PDR signed for one path must be refused on each of the others.

use alloy::signers::{SignerSync, local::PrivateKeySigner};
use alloy_json_abi::JsonAbi;
use alloy_primitives::{Address, B256, Bytes, U256, keccak256};
use alloy_sol_types::{SolCall, SolConstructor, SolStruct, SolValue, sol};
use pace_contracts::bindings::{IERC20, MockERC20, PaceAccount, PaceDelegate};
use pace_evm::{InProcessEvm, Outcome};
use pace_testkit::protocols::npm::{NpmArtifact, Package};
use pace_types::{
    pdr::{Attestation, Bound, Call, EntryPath, Pdr, PdrTerms},
    user_op::{
        ENTRY_POINT_V08, PackedUserOperation, PdrSignature, UserOpGas, delegation_designator,
        pdr_user_op, user_op_hash,
    },
};

alloy_sol_types::sol! {
    /// The EntryPoint v0.8's deposits.
    interface EntryPointDeposits {
        function depositTo(address account) external payable;
        function balanceOf(address account) external view returns (uint256);
    }
}

/// The ERC-4337 contracts, as package.json pins them.
const ACCOUNT_ABSTRACTION: Package = Package {
    name: "@account-abstraction/contracts",
    version: "0.8.0",
};

const CHAIN_ID: u64 = 31_337;
const BLOCK: u64 = 1_000;
const NOW: u64 = 1_700_000_000;
const DEPLOYER: Address = Address::repeat_byte(0xde);
const OWNER: Address = Address::repeat_byte(0x0e);
const BUNDLER: Address = Address::repeat_byte(0xb0);
const BENEFICIARY: Address = Address::repeat_byte(0xbe);
const RELAYER: Address = Address::repeat_byte(0x5e);
const RECIPIENT: Address = Address::repeat_byte(0x7e);
/// What every PDR of these tests sends to [`RECIPIENT`].
const AMOUNT: u64 = 10_000;

sol! {
    /// EntryPoint v0.8's events and errors the tests read.
    interface EntryPointT {
        event UserOperationEvent(
            bytes32 indexed userOpHash,
            address indexed sender,
            address indexed paymaster,
            uint256 nonce,
            bool success,
            uint256 actualGasCost,
            uint256 actualGasUsed
        );
        error FailedOp(uint256 opIndex, string reason);
    }
}

/// The four entry paths a PDR can take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Path {
    StandaloneDirect,
    StandaloneEntryPoint,
    DelegateDirect,
    DelegateEntryPoint,
}

const PATHS: [Path; 4] = [
    Path::StandaloneDirect,
    Path::StandaloneEntryPoint,
    Path::DelegateDirect,
    Path::DelegateEntryPoint,
];

impl Path {
    fn through_entry_point(self) -> bool {
        matches!(self, Self::StandaloneEntryPoint | Self::DelegateEntryPoint)
    }
}

/// The test bed: the EntryPoint, a standalone account, a delegated EOA, a token both hold.
struct Bed {
    evm: InProcessEvm,
    entry_point_abi: JsonAbi,
    verifier: PrivateKeySigner,
    account: Address,
    eoa: Address,
    delegate: Address,
    token: Address,
    salt: B256,
}

fn project(name: &str) -> &'static pace_contracts::ContractArtifact {
    pace_contracts::artifacts()
        .expect("embedded artifacts")
        .get(name)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn bed() -> Bed {
    let mut evm = InProcessEvm::new(CHAIN_ID);
    evm.set_block(BLOCK, NOW);

    // The real EntryPoint v0.8, its runtime at the canonical address the accounts trust.
    let ep = NpmArtifact::load(ACCOUNT_ABSTRACTION, "EntryPoint.json").expect("EntryPoint");
    let deployed = evm
        .deploy(DEPLOYER, ep.deploy_code(&[]).unwrap())
        .expect("EntryPoint deploys");
    let runtime = evm.code(deployed).unwrap();
    evm.set_code(ENTRY_POINT_V08, runtime).unwrap();

    let verifier = PrivateKeySigner::from_bytes(&B256::repeat_byte(0x5a)).unwrap();
    let ctor = PaceAccount::constructorCall {
        owner_: OWNER,
        verifier_: verifier.address(),
    };
    let account = evm
        .deploy(
            DEPLOYER,
            project("PaceAccount").deploy_code(&ctor.abi_encode()),
        )
        .expect("PaceAccount deploys");
    let delegate = evm
        .deploy(DEPLOYER, project("PaceDelegate").deploy_code(&[]))
        .expect("PaceDelegate deploys");

    // The EOA, delegated as a type-4 transaction would leave it, sets itself up.
    let eoa = PrivateKeySigner::from_bytes(&B256::repeat_byte(0x0a))
        .unwrap()
        .address();
    evm.set_code(eoa, delegation_designator(delegate)).unwrap();
    let setup = PaceDelegate::setUpCall {
        setup: PaceDelegate::Setup {
            verifier: verifier.address(),
            budgets: vec![],
            lanes: vec![],
            nonce: U256::from(1),
            deadline: U256::from(NOW + 3_600),
        },
        signature: Bytes::new(),
    };
    evm.call_sol(eoa, eoa, U256::ZERO, &setup)
        .expect("the EOA sets itself up");
    let salt = evm.view_sol(eoa, &PaceDelegate::domainSaltCall {}).unwrap();
    assert_ne!(salt, B256::ZERO, "the set-up wrote a salt");
    assert_eq!(
        evm.view_sol(eoa, &PaceDelegate::layoutVersionCall {})
            .unwrap(),
        2
    );
    assert_eq!(
        evm.view_sol(eoa, &PaceAccount::verifierCall {}).unwrap(),
        verifier.address()
    );

    let token_ctor = MockERC20::constructorCall {
        name_: "Token".into(),
        symbol_: "TKN".into(),
        decimals_: 18,
    };
    let token = evm
        .deploy(
            DEPLOYER,
            project("MockERC20").deploy_code(&token_ctor.abi_encode()),
        )
        .expect("MockERC20 deploys");
    for holder in [account, eoa] {
        let mint = MockERC20::mintCall {
            to: holder,
            amount: U256::from(1_000_000u64),
        };
        evm.call_sol(DEPLOYER, token, U256::ZERO, &mint).unwrap();
        // Ether of its own, and a deposit at the EntryPoint, which pays a PDR user
        // operation's prefund (never the account's ether).
        evm.fund(holder, U256::from(10u128.pow(18))).unwrap();
        let deposit = U256::from(10u128.pow(18));
        evm.fund(DEPLOYER, deposit).unwrap();
        evm.call_sol(
            DEPLOYER,
            ENTRY_POINT_V08,
            deposit,
            &EntryPointDeposits::depositToCall { account: holder },
        )
        .unwrap();
    }
    Bed {
        evm,
        entry_point_abi: ep.abi,
        verifier,
        account,
        eoa,
        delegate,
        token,
        salt,
    }
}

/// The PDR every test signs: a transfer of [`AMOUNT`] to [`RECIPIENT`], bounded, on lane 7.
fn pdr(token: Address) -> Pdr {
    let terms = PdrTerms {
        key: 7,
        sequence: 0,
        valid_after: NOW - 60,
        valid_until: NOW + 600,
        simulation_block: BLOCK - 1,
        max_simulation_age: 5,
        call_gas_kib: 0,
    };
    let transfer = IERC20::transferCall {
        to: RECIPIENT,
        value: U256::from(AMOUNT),
    };
    let mut bound = Bound::balance(token);
    bound.maxOut = U256::from(AMOUNT);
    Pdr::new(
        Attestation {
            policyHash: B256::repeat_byte(1),
            intentHash: B256::repeat_byte(2),
            simulationHash: B256::repeat_byte(3),
        },
        vec![Call {
            target: token,
            value: U256::ZERO,
            data: transfer.abi_encode().into(),
        }],
        vec![bound],
        vec![],
        vec![],
        &terms,
    )
}

fn gas() -> UserOpGas {
    UserOpGas {
        verification_gas_limit: 300_000,
        call_gas_limit: 400_000,
        pre_verification_gas: 50_000,
        max_priority_fee_per_gas: 1_000_000_000,
        max_fee_per_gas: 2_000_000_000,
    }
}

/// EIP-2098 compact `(r, vs)` of `digest` by `signer`, as the accounts take it.
fn sign(signer: &PrivateKeySigner, digest: B256) -> (B256, B256) {
    let sig = signer.sign_hash_sync(&digest).expect("signs");
    let compact = sig.as_erc2098();
    (
        B256::from_slice(&compact[..32]),
        B256::from_slice(&compact[32..]),
    )
}

fn selector(abi: &JsonAbi, name: &str) -> [u8; 4] {
    abi.function(name).unwrap_or_else(|| panic!("no {name}"))[0]
        .selector()
        .0
}

impl Bed {
    /// The sender of `path`: the standalone account or the delegated EOA.
    /// `who`'s deposit at the EntryPoint.
    fn deposit(&self, who: Address) -> U256 {
        self.evm
            .view_sol(
                ENTRY_POINT_V08,
                &EntryPointDeposits::balanceOfCall { account: who },
            )
            .unwrap()
    }

    fn sender(&self, path: Path) -> Address {
        match path {
            Path::StandaloneDirect | Path::StandaloneEntryPoint => self.account,
            Path::DelegateDirect | Path::DelegateEntryPoint => self.eoa,
        }
    }

    /// The unsigned user operation carrying `pdr` from `path`'s sender.
    fn user_op(&self, path: Path, pdr: &Pdr) -> (PackedUserOperation, B256) {
        let op = pdr_user_op(self.sender(path), pdr, &gas(), Bytes::new());
        let hash = user_op_hash(&op, ENTRY_POINT_V08, CHAIN_ID, None).unwrap();
        let on_chain = {
            let mut data = selector(&self.entry_point_abi, "getUserOpHash").to_vec();
            data.extend((op.clone(),).abi_encode_params());
            B256::from_slice(&self.evm.view(ENTRY_POINT_V08, data.into()).unwrap())
        };
        assert_eq!(on_chain, hash, "getUserOpHash");
        (op, hash)
    }

    /// `path`'s `EntryPath` for `pdr` (an EntryPoint path binds the user operation's hash).
    fn entry_path(&self, path: Path, pdr: &Pdr) -> EntryPath {
        match path {
            Path::StandaloneDirect => EntryPath::Direct {
                account: self.account,
            },
            Path::StandaloneEntryPoint => EntryPath::EntryPoint {
                account: self.account,
                user_op_hash: self.user_op(path, pdr).1,
            },
            Path::DelegateDirect => EntryPath::Delegate {
                eoa: self.eoa,
                setup_salt: self.salt,
            },
            Path::DelegateEntryPoint => EntryPath::DelegateEntryPoint {
                eoa: self.eoa,
                setup_salt: self.salt,
                user_op_hash: self.user_op(path, pdr).1,
            },
        }
    }

    /// `pdr`'s digest on `path`, computed in Rust and checked against the contract's views:
    /// `pdrDigest` on a direct path; `userOpDomainSeparator(userOpHash)` with the struct hash
    /// on an EntryPoint path.
    fn checked_digest(&self, path: Path, pdr: &Pdr) -> B256 {
        let entry = self.entry_path(path, pdr);
        let rust = pdr.digest_on(CHAIN_ID, &entry);
        let domain = entry.domain(CHAIN_ID);
        assert_eq!(pdr.digest_in(&domain), rust, "{path:?}: digest_in");
        let at = self.sender(path);
        match entry.user_op_hash() {
            None => {
                let view = PaceAccount::pdrDigestCall {
                    calls: pdr.calls.iter().map(Into::into).collect(),
                    bounds: pdr.bounds.iter().map(Into::into).collect(),
                    held: pdr.held.clone(),
                    checks: pdr.checks.iter().map(Into::into).collect(),
                    attestation: pdr.attestation_hash(),
                    terms: pdr.terms().pack(),
                };
                assert_eq!(
                    self.evm.view_sol(at, &view).unwrap(),
                    rust,
                    "{path:?}: pdrDigest"
                );
                assert_eq!(
                    self.evm
                        .view_sol(at, &PaceAccount::domainSeparatorCall {})
                        .unwrap(),
                    domain.separator(),
                    "{path:?}: domainSeparator"
                );
            }
            Some(hash) => {
                let separator = self
                    .evm
                    .view_sol(
                        at,
                        &PaceAccount::userOpDomainSeparatorCall { userOpHash: hash },
                    )
                    .unwrap();
                assert_eq!(
                    separator,
                    domain.separator(),
                    "{path:?}: userOpDomainSeparator"
                );
                let preimage = [
                    &[0x19, 0x01][..],
                    separator.as_slice(),
                    pdr.eip712_hash_struct().as_slice(),
                ]
                .concat();
                assert_eq!(
                    keccak256(preimage),
                    rust,
                    "{path:?}: separator + struct hash"
                );
            }
        }
        rust
    }

    /// Submits `pdr` with the signature `(r, vs)` on `path`: `executeBatchPDR` from a relayer,
    /// or `handleOps` from the bundler. Returns the transaction's outcome.
    fn submit(&mut self, path: Path, pdr: &Pdr, (r, vs): (B256, B256)) -> Outcome {
        let at = self.sender(path);
        if path.through_entry_point() {
            let (mut op, _) = self.user_op(path, pdr);
            op.signature = PdrSignature {
                attestation: pdr.attestation_hash(),
                r,
                vs,
            }
            .encode();
            let mut data = selector(&self.entry_point_abi, "handleOps").to_vec();
            data.extend((vec![op], BENEFICIARY).abi_encode_params());
            self.evm
                .call(BUNDLER, ENTRY_POINT_V08, U256::ZERO, data.into())
                .unwrap()
        } else {
            let call = PaceAccount::executeBatchPDRCall {
                calls: pdr.calls.iter().map(Into::into).collect(),
                bounds: pdr.bounds.iter().map(Into::into).collect(),
                held: pdr.held.clone(),
                checks: pdr.checks.iter().map(Into::into).collect(),
                attestation: pdr.attestation_hash(),
                terms: pdr.terms().pack(),
                r,
                vs,
            };
            self.evm
                .call(RELAYER, at, U256::ZERO, call.abi_encode().into())
                .unwrap()
        }
    }

    fn token_balance(&self, holder: Address) -> U256 {
        self.evm
            .view_sol(self.token, &IERC20::balanceOfCall { account: holder })
            .unwrap()
    }
}

/// Whether `outcome` ran the PDR: the transaction succeeded and, through the EntryPoint, its
/// `UserOperationEvent` reports success for `sender`.
fn ran(path: Path, outcome: &Outcome, sender: Address) -> bool {
    if !outcome.success {
        return false;
    }
    if !path.through_entry_point() {
        return true;
    }
    let events = outcome.events::<EntryPointT::UserOperationEvent>();
    assert_eq!(events.len(), 1, "{path:?}: one user operation");
    let (emitter, event) = &events[0];
    assert_eq!(*emitter, ENTRY_POINT_V08);
    assert_eq!(event.sender, sender);
    event.success
}

#[test]
fn each_entry_path_runs_its_pdr_and_the_digests_match_the_contracts() {
    let mut bed = bed();
    assert_ne!(bed.delegate, bed.account);
    let pdr = pdr(bed.token);
    let start = bed.evm.snapshot();
    let mut digests = Vec::new();
    for path in PATHS {
        bed.evm.restore(&start);
        let sender = bed.sender(path);
        let digest = bed.checked_digest(path, &pdr);
        digests.push(digest);
        let signature = sign(&bed.verifier, digest);
        let (sender_before, recipient_before) =
            (bed.token_balance(sender), bed.token_balance(RECIPIENT));
        let eth_before = bed.evm.balance(sender).unwrap();
        let deposit_before = bed.deposit(sender);
        let outcome = bed.submit(path, &pdr, signature);
        assert!(ran(path, &outcome, sender), "{path:?}: {outcome:?}");
        assert_eq!(
            bed.token_balance(RECIPIENT) - recipient_before,
            U256::from(AMOUNT),
            "{path:?}: the transfer landed"
        );
        assert_eq!(
            sender_before - bed.token_balance(sender),
            U256::from(AMOUNT),
            "{path:?}: from the account"
        );
        let executed = outcome.events::<PaceAccount::PdrExecuted>();
        if path.through_entry_point() {
            // The EntryPoint's event is the record, under the user operation's hash; the
            // account paid for its gas.
            assert!(
                executed.is_empty(),
                "{path:?}: no PdrExecuted of the account's own"
            );
            let event = &outcome.events::<EntryPointT::UserOperationEvent>()[0].1;
            assert_eq!(event.userOpHash, bed.user_op(path, &pdr).1);
            assert!(event.actualGasCost > U256::ZERO);
            assert!(
                bed.deposit(sender) < deposit_before,
                "{path:?}: the prefund came from the sender's deposit"
            );
            assert_eq!(
                bed.evm.balance(sender).unwrap(),
                eth_before,
                "{path:?}: none of it from the sender's ether"
            );
            assert_eq!(event.nonce, pdr.nonce);
        } else {
            assert_eq!(executed.len(), 1, "{path:?}: one PdrExecuted");
            assert_eq!(executed[0].0, sender);
            assert_eq!(executed[0].1.digest, digest);
        }
        // The same signed PDR again: its nonce is spent.
        let again = bed.submit(path, &pdr, signature);
        assert!(!ran(path, &again, sender), "{path:?}: replayed");
    }
    let mut distinct = digests.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 4, "one digest per path: {digests:?}");
}

#[test]
fn a_pdr_signed_for_one_path_is_refused_on_every_other() {
    let mut bed = bed();
    let pdr = pdr(bed.token);
    let start = bed.evm.snapshot();
    let signatures: Vec<(Path, (B256, B256))> = PATHS
        .iter()
        .map(|&p| (p, sign(&bed.verifier, bed.checked_digest(p, &pdr))))
        .collect();
    for &(signed_for, signature) in &signatures {
        for submitted_on in PATHS {
            bed.evm.restore(&start);
            let sender = bed.sender(submitted_on);
            let recipient_before = bed.token_balance(RECIPIENT);
            let outcome = bed.submit(submitted_on, &pdr, signature);
            let landed = bed.token_balance(RECIPIENT) != recipient_before;
            if signed_for == submitted_on {
                assert!(ran(submitted_on, &outcome, sender) && landed);
                continue;
            }
            assert!(
                !outcome.success && !landed,
                "signed for {signed_for:?}, ran on {submitted_on:?}: {outcome:?}"
            );
            if submitted_on.through_entry_point() {
                // Refused in validation (SIG_VALIDATION_FAILED), not in execution.
                let reason = outcome
                    .decode_revert::<EntryPointT::EntryPointTErrors>()
                    .map(|e| match e {
                        EntryPointT::EntryPointTErrors::FailedOp(f) => f.reason,
                    });
                assert_eq!(
                    reason.as_deref(),
                    Some("AA24 signature error"),
                    "signed for {signed_for:?}, on {submitted_on:?}"
                );
            } else {
                let error = outcome.decode_revert::<PaceAccount::PaceAccountErrors>();
                assert!(
                    matches!(
                        error,
                        Some(PaceAccount::PaceAccountErrors::PaceAccountInvalidSigner(_))
                    ),
                    "signed for {signed_for:?}, on {submitted_on:?}: {error:?}"
                );
            }
        }
    }
}

#[test]
fn a_new_set_up_retires_the_delegates_pdrs() {
    let mut bed = bed();
    let pdr = pdr(bed.token);
    let digest = bed.checked_digest(Path::DelegateDirect, &pdr);
    let signature = sign(&bed.verifier, digest);
    // The EOA sets itself up again (a re-delegation's return, say): a new salt.
    bed.evm.set_block(BLOCK + 1, NOW + 12);
    let setup = PaceDelegate::setUpCall {
        setup: PaceDelegate::Setup {
            verifier: bed.verifier.address(),
            budgets: vec![],
            lanes: vec![],
            nonce: U256::from(2),
            deadline: U256::from(NOW + 3_600),
        },
        signature: Bytes::new(),
    };
    bed.evm
        .call_sol(bed.eoa, bed.eoa, U256::ZERO, &setup)
        .unwrap();
    let salt = bed
        .evm
        .view_sol(bed.eoa, &PaceDelegate::domainSaltCall {})
        .unwrap();
    assert_ne!(salt, bed.salt);
    let outcome = bed.submit(Path::DelegateDirect, &pdr, signature);
    assert!(!outcome.success, "the old salt's PDR is refused");
    bed.salt = salt;
    let fresh = sign(
        &bed.verifier,
        bed.checked_digest(Path::DelegateDirect, &pdr),
    );
    let outcome = bed.submit(Path::DelegateDirect, &pdr, fresh);
    assert!(outcome.success, "{outcome:?}");
}
