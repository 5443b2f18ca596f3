//! `pace delegate`: an EOA handed to `PaceDelegate` with EIP-7702, its key staying cold.
//!
//! `pace delegate sign` runs offline, where the EOA's key is. It signs two things into one JSON
//! document: the EIP-7702 authorization (the chain, the delegate, the EOA's account nonce) that
//! makes the EOA's code `0xef0100 || delegate`, and the delegate's set-up (the verifier,
//! budgets, lane floors, a set-up nonce usable once and a deadline) as the EIP-712 `Setup` typed
//! data `PaceDelegate.setupDigest` hashes ([`setup_digest`]): domain `"PaceDelegate"`, `"1"`,
//! the chain, the EOA; the struct names the delegate, so the set-up is worthless anywhere else.
//!
//! `pace delegate send` runs at a relayer, which gains no power over the EOA. It checks the
//! document (both signatures recover to the EOA, the chain id, the EOA's current nonce, the
//! deadline, the delegate's code), sends one type-4 transaction to the EOA carrying the
//! authorization and the call `setUp(setup, signature)`, and reads back the EOA's code, verifier
//! and domain salt. The outcome comes from the receipt; a transaction that executed but left
//! the EOA undelegated or not set up (its nonce moved before it landed) is reported as failed.

use crate::{
    EXIT_APPROVE, EXIT_BAD_INPUT, EXIT_REJECT, EXIT_UNCERTAIN,
    deploy::{exit_code, runtime},
    print_stdout, sender,
};
use alloy::{
    network::{
        EthereumWallet, NetworkTransactionBuilder, TransactionBuilder, TransactionBuilder7702,
        eip2718::Encodable2718,
    },
    providers::Provider,
    rpc::types::{Authorization, SignedAuthorization, TransactionRequest},
    signers::{SignerSync, local::PrivateKeySigner},
};
use alloy_primitives::{Address, B256, Bytes, Signature, U256};
use alloy_sol_types::{SolCall, SolInterface};
use clap::{Args, Parser, Subcommand};
use pace_contracts::bindings::PaceAccount;
/// `PaceDelegate` as the relayer calls and reads it (`contracts/interfaces/IPaceDelegate.sol`).
pub use pace_contracts::bindings::PaceDelegate;
use pace_node::{NodeClient, Submission, Tx};
use pace_pipeline::ExecutionResult;
pub use pace_types::account::setup::setup_digest;
use pace_types::account::setup::{DelegationDocument, SignedAuthorizationDoc};
use pace_types::user_op::delegation_designator;
use serde_json::{Value, json};
use std::path::PathBuf;

/// The environment variable holding the EOA's hex key for `sign` (without `--keystore`).
pub const EOA_KEY_ENV: &str = "PACE_EOA_KEY";
/// The environment variable holding the relayer's hex key for `send` (without `--keystore`).
pub const RELAYER_KEY_ENV: &str = "PACE_RELAYER_KEY";
/// Half the secp256k1 group order: EIP-7702 skips an authorization whose `s` is above it.
const SECP256K1N_HALF: U256 = alloy_primitives::uint!(
    0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0_U256
);

/// Delegate an EOA to PaceDelegate with EIP-7702: `sign` offline with the EOA's key, `send`
/// from a relayer as one type-4 transaction.
#[derive(Debug, Parser)]
pub struct DelegateArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: DelegateAction,
}

/// The two steps.
#[derive(Debug, Subcommand)]
pub enum DelegateAction {
    /// Sign the EIP-7702 authorization and the delegate's set-up with the EOA's key, offline;
    /// print (or write) the signed document. Exit 0 signed, 2 bad input.
    Sign(SignArgs),
    /// Send a signed document as a type-4 transaction from a relayer and read the EOA back.
    /// Exit 0 delegated and set up, 1 reverted or not applied, 2 refused before sending,
    /// 3 uncertain (the transaction may still land, or the EOA could not be read back).
    Send(SendArgs),
}

/// `pace delegate sign`.
#[derive(Debug, Args)]
pub struct SignArgs {
    /// The deployed PaceDelegate the EOA delegates to.
    #[arg(long)]
    pub delegate: Address,
    /// The verifier key's address, which signs the PDRs the EOA runs.
    #[arg(long)]
    pub verifier: Address,
    /// The chain the authorization and set-up are for (0, "any chain", is refused).
    #[arg(long)]
    pub chain_id: u64,
    /// The EOA's account nonce when the transaction lands (`eth_getTransactionCount`; a
    /// relayer other than the EOA sends it).
    #[arg(long)]
    pub nonce: u64,
    /// The set-up's nonce, usable once at this EOA.
    #[arg(long)]
    pub setup_nonce: U256,
    /// The last timestamp (seconds, on the chain's clock) the set-up may land at. `send`
    /// refuses a document whose deadline the chain's latest block has reached.
    #[arg(long)]
    pub deadline: u64,
    /// A node of the chain to read its clock from (its latest block's timestamp): a deadline
    /// the chain has already reached is refused here too. Signing itself stays offline; the
    /// machine's own clock is never used, since a chain's time need not be the wall clock's.
    #[arg(long)]
    pub rpc: Option<String>,
    /// A spending budget, as TOKEN:LIMIT:PERIOD (base units per seconds; repeat the flag).
    #[arg(long = "budget", value_name = "TOKEN:LIMIT:PERIOD", value_parser = parse_budget)]
    pub budgets: Vec<(Address, u128, u64)>,
    /// A nonce lane to move forward, as KEY:SEQUENCE (repeat the flag).
    #[arg(long = "lane", value_name = "KEY:SEQUENCE", value_parser = parse_lane)]
    pub lanes: Vec<(u32, u64)>,
    /// Encrypted keystore of the EOA (password in PACE_KEYSTORE_PASSWORD); default: the hex
    /// key in PACE_EOA_KEY.
    #[arg(long)]
    pub keystore: Option<PathBuf>,
    /// Write the document to this file instead of stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// `pace delegate send`.
#[derive(Debug, Args)]
pub struct SendArgs {
    /// The node's JSON-RPC endpoint (http:// or https://).
    #[arg(long)]
    pub rpc: String,
    /// Encrypted keystore of the relayer (password in PACE_KEYSTORE_PASSWORD); default: the
    /// hex key in PACE_RELAYER_KEY.
    #[arg(long)]
    pub keystore: Option<PathBuf>,
    /// The document `pace delegate sign` wrote.
    pub file: PathBuf,
}

fn parse_budget(text: &str) -> Result<(Address, u128, u64), String> {
    let parts: Vec<&str> = text.split(':').collect();
    let [token, limit, period] = parts[..] else {
        return Err(format!("`{text}`: expected TOKEN:LIMIT:PERIOD"));
    };
    Ok((
        token.parse().map_err(|e| format!("token `{token}`: {e}"))?,
        limit.parse().map_err(|e| format!("limit `{limit}`: {e}"))?,
        period
            .parse()
            .map_err(|e| format!("period `{period}`: {e}"))?,
    ))
}

fn parse_lane(text: &str) -> Result<(u32, u64), String> {
    let (key, sequence) = text
        .split_once(':')
        .ok_or_else(|| format!("`{text}`: expected KEY:SEQUENCE"))?;
    Ok((
        key.parse().map_err(|e| format!("key `{key}`: {e}"))?,
        sequence
            .parse()
            .map_err(|e| format!("sequence `{sequence}`: {e}"))?,
    ))
}

/// A signed delegation: what `sign` writes and `send` reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delegation {
    /// The EOA (the key that signed both parts).
    pub eoa: Address,
    /// The chain id both parts bind.
    pub chain_id: u64,
    /// The delegate.
    pub delegate: Address,
    /// The EIP-7702 authorization, signed.
    pub authorization: SignedAuthorization,
    /// The set-up.
    pub setup: PaceDelegate::Setup,
    /// The EOA key's 65-byte `(r, s, v)` signature of [`setup_digest`].
    pub setup_signature: Bytes,
}

impl Delegation {
    /// Signs the authorization and the set-up with `key`.
    pub fn sign(
        key: &PrivateKeySigner,
        chain_id: u64,
        delegate: Address,
        nonce: u64,
        setup: PaceDelegate::Setup,
    ) -> Result<Self, String> {
        let authorization = Authorization {
            chain_id: U256::from(chain_id),
            address: delegate,
            nonce,
        };
        let sig = key
            .sign_hash_sync(&authorization.signature_hash())
            .map_err(|e| format!("signing the authorization: {e}"))?;
        let eoa = key.address();
        let digest = setup_digest(chain_id, eoa, delegate, &setup);
        let setup_sig = key
            .sign_hash_sync(&digest)
            .map_err(|e| format!("signing the set-up: {e}"))?;
        Ok(Self {
            eoa,
            chain_id,
            delegate,
            authorization: authorization.into_signed(sig),
            setup,
            setup_signature: setup_sig.as_bytes().to_vec().into(),
        })
    }

    /// The signed document `sign` writes.
    pub fn document(&self) -> DelegationDocument {
        let a = &self.authorization;
        let authorization = SignedAuthorizationDoc {
            address: a.address,
            chain_id: a.chain_id,
            nonce: a.nonce,
            r: B256::from(a.r()),
            s: B256::from(a.s()),
            y_parity: a.y_parity(),
        };
        DelegationDocument::new(
            self.eoa,
            self.chain_id,
            self.delegate,
            authorization,
            &self.setup,
            self.setup_signature.clone(),
        )
    }

    /// The document as JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self.document()).expect("a delegation document serialises")
    }

    /// Reads a document strictly (`pace_types::account::setup`), then checks that both
    /// signatures are the EOA's over what it says.
    pub fn from_json(doc: &Value) -> Result<Self, String> {
        let doc = DelegationDocument::from_json_str(&doc.to_string()).map_err(|e| e.to_string())?;
        Self::from_document(&doc)
    }

    /// The delegation a loaded document signs, once both signatures are checked.
    pub fn from_document(doc: &DelegationDocument) -> Result<Self, String> {
        let a = &doc.authorization;
        let authorization = Authorization {
            chain_id: a.chain_id,
            address: a.address,
            nonce: a.nonce,
        };
        let d = Self {
            eoa: doc.eoa,
            chain_id: doc.chain_id,
            delegate: doc.delegate,
            authorization: SignedAuthorization::new_unchecked(
                authorization,
                a.y_parity,
                a.r.into(),
                a.s.into(),
            ),
            setup: doc.setup(),
            setup_signature: doc.setup_signature.clone(),
        };
        d.check()?;
        Ok(d)
    }

    /// Both signatures recover to the EOA, over this chain and this delegate.
    pub fn check(&self) -> Result<(), String> {
        let a = &self.authorization;
        if a.chain_id != U256::from(self.chain_id) || self.chain_id == 0 {
            return Err(format!(
                "the authorization's chain id {} is not the document's {}",
                a.chain_id, self.chain_id
            ));
        }
        if a.address != self.delegate {
            return Err(format!(
                "the authorization names {}, not the delegate {}",
                a.address, self.delegate
            ));
        }
        if a.s() > SECP256K1N_HALF || a.y_parity() > 1 {
            return Err(
                "the authorization's signature is not canonical (low s, parity 0 or 1): \
                 the chain would skip it"
                    .into(),
            );
        }
        let auth_sig = a
            .signature()
            .map_err(|e| format!("authorization signature: {e}"))?;
        let authority = auth_sig
            .recover_address_from_prehash(&a.signature_hash())
            .map_err(|e| format!("authorization signature: {e}"))?;
        if authority != self.eoa {
            return Err(format!(
                "the authorization is signed by {authority}, not the EOA {}",
                self.eoa
            ));
        }
        let digest = setup_digest(self.chain_id, self.eoa, self.delegate, &self.setup);
        let signer = Signature::from_raw(&self.setup_signature)
            .and_then(|s| s.recover_address_from_prehash(&digest))
            .map_err(|e| format!("set-up signature: {e}"))?;
        if signer != self.eoa || self.setup_signature.len() != 65 {
            return Err(format!(
                "the set-up is signed by {signer}, not the EOA {}",
                self.eoa
            ));
        }
        Ok(())
    }

    /// The EOA's calldata: `setUp(setup, signature)`.
    pub fn calldata(&self) -> Bytes {
        PaceDelegate::setUpCall {
            setup: self.setup.clone(),
            signature: self.setup_signature.clone(),
        }
        .abi_encode()
        .into()
    }
}

impl DelegateArgs {
    /// Runs the step and returns its exit code.
    pub fn run(self) -> u8 {
        let (name, result) = match &self.action {
            DelegateAction::Sign(args) => ("sign", args.go()),
            DelegateAction::Send(args) => ("send", args.go()),
        };
        result.unwrap_or_else(|e| {
            eprintln!("pace delegate {name}: {e}");
            EXIT_BAD_INPUT
        })
    }
}

impl SignArgs {
    fn go(&self) -> Result<u8, String> {
        if self.chain_id == 0 {
            return Err("--chain-id 0 would let the authorization run on any chain".into());
        }
        if self.delegate.is_zero() || self.verifier.is_zero() {
            return Err("--delegate and --verifier must not be the zero address".into());
        }
        if let Some(url) = &self.rpc {
            let chain = pace_evm::InProcessEvm::fork(url, None)
                .map_err(|e| format!("cannot read the chain's clock at {url}: {e}"))?;
            if chain.chain_id() != self.chain_id {
                return Err(format!(
                    "--rpc serves chain {}, not --chain-id {}",
                    chain.chain_id(),
                    self.chain_id
                ));
            }
            let now = chain.timestamp();
            if self.deadline <= now {
                return Err(format!(
                    "--deadline {} has passed on the chain (latest block at {now})",
                    self.deadline
                ));
            }
        }
        let key = sender::signer(self.keystore.as_deref(), EOA_KEY_ENV)?;
        let setup = PaceDelegate::Setup {
            verifier: self.verifier,
            budgets: self
                .budgets
                .iter()
                .map(|&(token, limit, period)| PaceDelegate::BudgetLimit {
                    token,
                    limit,
                    period,
                })
                .collect(),
            lanes: self
                .lanes
                .iter()
                .map(|&(key, sequence)| PaceDelegate::LaneFloor { key, sequence })
                .collect(),
            nonce: self.setup_nonce,
            deadline: U256::from(self.deadline),
        };
        let delegation = Delegation::sign(&key, self.chain_id, self.delegate, self.nonce, setup)?;
        let text = serde_json::to_string_pretty(&delegation.to_json()).expect("serialises");
        match &self.out {
            Some(path) => std::fs::write(path, format!("{text}\n"))
                .map_err(|e| format!("{}: {e}", path.display()))?,
            None => print_stdout(&text),
        }
        Ok(EXIT_APPROVE)
    }
}

impl SendArgs {
    fn go(&self) -> Result<u8, String> {
        let text = std::fs::read_to_string(&self.file)
            .map_err(|e| format!("{}: {e}", self.file.display()))?;
        let d = DelegationDocument::from_json_str(&text)
            .map_err(|e| e.to_string())
            .and_then(|doc| Delegation::from_document(&doc))
            .map_err(|e| format!("{}: {e}", self.file.display()))?;
        let relayer = sender::signer(self.keystore.as_deref(), RELAYER_KEY_ENV)?;
        runtime()?.block_on(send(&self.rpc, relayer, &d))
    }
}

/// Checks the chain, sends the type-4 transaction, reads the EOA back and prints the outcome.
async fn send(rpc: &str, relayer: PrivateKeySigner, d: &Delegation) -> Result<u8, String> {
    let wallet = EthereumWallet::from(relayer.clone());
    let client = crate::deploy::connect(rpc, relayer).await?;
    let node = |e: pace_node::Error| format!("{}: {e}; nothing was sent", client.url());
    if client.chain_id() != d.chain_id {
        return Err(format!(
            "the node's chain id is {}, the delegation's {}; nothing was sent",
            client.chain_id(),
            d.chain_id
        ));
    }
    let from = client.address();
    let relayer_nonce = client.nonce(from).await.map_err(node)?;
    // The EOA's nonce when the authorization is applied: after its own nonce bump when the EOA
    // sends the transaction itself.
    let eoa_nonce = if from == d.eoa {
        relayer_nonce + 1
    } else {
        client.nonce(d.eoa).await.map_err(node)?
    };
    if d.authorization.nonce != eoa_nonce {
        return Err(format!(
            "the authorization's nonce {} is not the EOA's next {eoa_nonce}: sign again with \
             --nonce {eoa_nonce}; nothing was sent",
            d.authorization.nonce
        ));
    }
    let code = client.code(d.eoa).await.map_err(node)?;
    if !code.is_empty() && !code.starts_with(&pace_types::user_op::EIP7702_PREFIX) {
        return Err(format!(
            "{} holds contract code: it cannot be delegated; nothing was sent",
            d.eoa
        ));
    }
    if client.code(d.delegate).await.map_err(node)?.is_empty() {
        return Err(format!(
            "no code at the delegate {}; nothing was sent",
            d.delegate
        ));
    }
    let block = client.latest_block().await.map_err(node)?;
    if U256::from(block.timestamp) >= d.setup.deadline {
        return Err(format!(
            "the set-up's deadline {} is not after the latest block's time {}; nothing was sent",
            d.setup.deadline, block.timestamp
        ));
    }

    let request = TransactionRequest::default()
        .with_from(from)
        .with_chain_id(d.chain_id)
        .with_nonce(relayer_nonce)
        .with_to(d.eoa)
        .with_input(d.calldata())
        .with_authorization_list(vec![d.authorization.clone()]);
    // Estimated with the authorization applied: a set-up the delegate would refuse is not sent.
    let gas_limit = client
        .provider()
        .estimate_gas(request.clone())
        .await
        .map_err(|e| refused(&e))?;
    let fees = client.fees().await.map_err(node)?;
    let envelope = request
        .with_gas_limit(gas_limit)
        .with_max_fee_per_gas(fees.max_fee_per_gas)
        .with_max_priority_fee_per_gas(fees.max_priority_fee_per_gas)
        .build(&wallet)
        .await
        .map_err(|e| format!("signing the transaction: {e}; nothing was sent"))?;
    if !envelope.is_eip7702() {
        return Err("the transaction did not build as type 4; nothing was sent".into());
    }
    let tx_hash = *envelope.tx_hash();
    let broadcast_error = match client
        .provider()
        .send_raw_transaction(&envelope.encoded_2718())
        .await
    {
        Ok(_) => None,
        Err(e) => match client.provider().get_transaction_by_hash(tx_hash).await {
            Ok(None) if e.is_error_resp() => {
                return Err(format!("the node refused the transaction: {e}; not sent"));
            }
            _ => Some(e.to_string()),
        },
    };
    let submission = Submission {
        tx_hash,
        from,
        nonce: relayer_nonce,
        gas_limit,
        tx: Tx::call(d.eoa, U256::ZERO, d.calldata()).with_gas_limit(gas_limit),
        broadcast_error,
    };
    let result = ExecutionResult::from(client.wait(&submission).await);
    let mut code = exit_code(&result);
    let mut doc = json!({
        "eoa": d.eoa,
        "delegate": d.delegate,
        "chain_id": d.chain_id,
        "tx_hash": tx_hash,
        "execution": result,
    });
    if matches!(result, ExecutionResult::Executed { .. }) {
        // A receipt with status 1 does not show that the authorization applied: the EOA does.
        match read_back(&client, d).await {
            Ok((state, applied)) => {
                doc["state"] = state;
                doc["status"] = if applied { "delegated" } else { "not_applied" }.into();
                if !applied {
                    code = EXIT_REJECT;
                }
            }
            Err(e) => {
                eprintln!("pace delegate send: warning: {e}");
                doc["status"] = "unverified".into();
                code = EXIT_UNCERTAIN;
            }
        }
    }
    print_stdout(&serde_json::to_string_pretty(&doc).expect("serialises"));
    Ok(code)
}

/// What the EOA says after an executed transaction, and whether it is delegated and set up as
/// signed.
async fn read_back(client: &NodeClient, d: &Delegation) -> Result<(Value, bool), String> {
    let read = |e: pace_node::Error| format!("executed, but reading {} back: {e}", d.eoa);
    let code = client.code(d.eoa).await.map_err(read)?;
    let delegated = code == delegation_designator(d.delegate);
    if !delegated {
        return Ok((json!({ "code": code }), false));
    }
    let verifier = client
        .call_sol(d.eoa, &PaceAccount::verifierCall {})
        .await
        .map_err(read)?;
    let salt = client
        .call_sol(d.eoa, &PaceDelegate::domainSaltCall {})
        .await
        .map_err(read)?;
    // Set-ups are ordered: the last nonce that landed is this one when it applied.
    let last = client
        .call_sol(d.eoa, &PaceDelegate::setupNonceCall {})
        .await
        .map_err(read)?;
    let used = last == d.setup.nonce;
    let layout = client
        .call_sol(d.eoa, &PaceDelegate::layoutVersionCall {})
        .await
        .map_err(read)?;
    let state = json!({
        "code": code,
        "verifier": verifier,
        "domain_salt": salt,
        "layout_version": layout,
        "setup_nonce": last.to_string(),
        "setup_nonce_used": used,
    });
    Ok((
        state,
        verifier == d.setup.verifier && used && !salt.is_zero(),
    ))
}

/// Why nothing was sent: the delegate's error when gas estimation reverted.
fn refused(e: &alloy::transports::TransportError) -> String {
    let why = match e.as_error_resp().and_then(|p| p.as_revert_data()) {
        Some(data) => match PaceDelegate::PaceDelegateErrors::abi_decode(&data) {
            Ok(error) => format!("the set-up would revert: {error:?}"),
            Err(_) => format!(
                "the set-up would revert: {}",
                pace_abi::revert::decode_revert_reason(&data)
            ),
        },
        None => crate::causes(e),
    };
    format!("{why}; nothing was sent")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pace_evm::InProcessEvm;

    fn setup(verifier: Address) -> PaceDelegate::Setup {
        PaceDelegate::Setup {
            verifier,
            budgets: vec![PaceDelegate::BudgetLimit {
                token: Address::repeat_byte(0x70),
                limit: 5_000,
                period: 86_400,
            }],
            lanes: vec![
                PaceDelegate::LaneFloor {
                    key: 3,
                    sequence: 9,
                },
                PaceDelegate::LaneFloor {
                    key: 0,
                    sequence: 2,
                },
            ],
            nonce: U256::from(77),
            deadline: U256::from(2_000_000_000u64),
        }
    }

    /// The digest against the contract's `setupDigest`, and the relayer's `setUp` on revm.
    #[test]
    fn the_digest_is_the_contracts_and_the_signed_set_up_lands() {
        let chain_id = 31_337;
        let mut evm = InProcessEvm::new(chain_id);
        evm.set_block(10, 1_900_000_000);
        let code = pace_contracts::artifacts()
            .unwrap()
            .get("PaceDelegate")
            .unwrap()
            .deploy_code(&[]);
        let delegate = evm.deploy(Address::repeat_byte(0xde), code).unwrap();
        let key = PrivateKeySigner::from_bytes(&B256::repeat_byte(0x0a)).unwrap();
        let eoa = key.address();
        evm.set_code(eoa, delegation_designator(delegate)).unwrap();
        let verifier = Address::repeat_byte(0x5a);
        for s in [
            setup(verifier),
            PaceDelegate::Setup {
                budgets: vec![],
                lanes: vec![],
                ..setup(verifier)
            },
        ] {
            let view = PaceDelegate::setupDigestCall { setup: s.clone() };
            assert_eq!(
                evm.view_sol(eoa, &view).unwrap(),
                setup_digest(chain_id, eoa, delegate, &s)
            );
            assert_ne!(
                setup_digest(chain_id, eoa, Address::repeat_byte(1), &s),
                setup_digest(chain_id, eoa, delegate, &s),
                "the delegate is signed"
            );
            assert_ne!(
                setup_digest(1, eoa, delegate, &s),
                setup_digest(chain_id, eoa, delegate, &s),
                "the chain is signed"
            );
        }

        let d = Delegation::sign(&key, chain_id, delegate, 0, setup(verifier)).unwrap();
        let round = Delegation::from_json(&d.to_json()).unwrap();
        assert_eq!(round, d);
        let relayer = Address::repeat_byte(0x5e);
        let outcome = evm.call(relayer, eoa, U256::ZERO, d.calldata()).unwrap();
        assert!(outcome.success, "{outcome:?}");
        assert_eq!(
            evm.view_sol(eoa, &PaceAccount::verifierCall {}).unwrap(),
            verifier
        );
        assert_eq!(
            evm.view_sol(eoa, &PaceDelegate::setupNonceCall {}).unwrap(),
            U256::from(77)
        );
        // Once only: a set-up's nonce must be above the last one that landed.
        let again = evm.call(relayer, eoa, U256::ZERO, d.calldata()).unwrap();
        assert!(matches!(
            again.decode_revert::<PaceDelegate::PaceDelegateErrors>(),
            Some(PaceDelegate::PaceDelegateErrors::PaceDelegateSetupNonceNotIncreasing(_))
        ));
    }

    #[test]
    fn a_tampered_document_is_refused() {
        let key = PrivateKeySigner::from_bytes(&B256::repeat_byte(0x0a)).unwrap();
        let d = Delegation::sign(
            &key,
            1,
            Address::repeat_byte(0xd1),
            4,
            setup(Address::repeat_byte(0x5a)),
        )
        .unwrap();
        let good = d.to_json();
        // Each change with the digest recomputed, as anyone can: the signatures must catch it.
        let tamper = |path: &[&str], value: Value| {
            let mut doc = good.clone();
            let mut at = &mut doc;
            for key in path {
                at = &mut at[*key];
            }
            *at = value;
            if path != ["setup_digest"]
                && let Ok(mut typed) = serde_json::from_value::<DelegationDocument>(doc.clone())
            {
                typed.setup_digest =
                    setup_digest(typed.chain_id, typed.eoa, typed.delegate, &typed.setup());
                doc = serde_json::to_value(typed).unwrap();
            }
            Delegation::from_json(&doc).unwrap_err()
        };
        assert!(
            tamper(&["setup", "verifier"], json!(Address::repeat_byte(0x66))).contains("set-up")
        );
        assert!(tamper(&["setup", "nonce"], json!("78")).contains("set-up"));
        assert!(tamper(&["setup", "nonce"], json!(78)).contains("setup.nonce"));
        let e = tamper(&["delegate"], json!(Address::repeat_byte(0xd2)));
        assert!(e.contains("names"), "{e}");
        assert!(tamper(&["authorization", "nonce"], json!(5)).contains("authorization"));
        assert!(tamper(&["chain_id"], json!(2)).contains("chain id"));
        assert!(tamper(&["eoa"], json!(Address::repeat_byte(0x0b))).contains("not the EOA"));
        assert!(tamper(&["format"], json!("other")).contains("format"));
        assert!(tamper(&["setup_digest"], json!(B256::repeat_byte(1))).contains("setup_digest"));
        assert!(tamper(&["extra"], json!(1)).contains("unknown field `extra`"));
        let mut extra = good.clone();
        extra["setup"]["lanes"][0]["x"] = json!(1);
        assert!(
            Delegation::from_json(&extra)
                .unwrap_err()
                .contains("unknown field `x`")
        );
    }

    #[test]
    fn budgets_and_lanes_parse() {
        let t = Address::repeat_byte(1);
        assert_eq!(parse_budget(&format!("{t}:5:60")).unwrap(), (t, 5, 60));
        assert!(parse_budget(&format!("{t}:5")).is_err());
        assert!(
            parse_budget(&format!("{t}:x:60"))
                .unwrap_err()
                .contains("limit")
        );
        assert_eq!(parse_lane("3:9").unwrap(), (3, 9));
        assert!(parse_lane("3").is_err());
    }
}
