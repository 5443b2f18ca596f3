//! The MCP server, `pace` with the crate's version: tools `propose`, `confirm`, `status`,
//! `history` and `pending`; the reads `policy`, `budgets`, `balances` and `quote`; the
//! encoders `encode_erc20_transfer`, `encode_erc20_approve`, `encode_swap`, `encode_wrap` and
//! `encode_unwrap`. Over streamable HTTP (mounted at `/mcp` by [`crate::http`]) or stdio
//! ([`serve_stdio`]). Every tool has a strict input schema ([`crate::schema`]), an output
//! schema, annotations (read-only, destructive, idempotent) and structured content.
//!
//! Over HTTP the caller is the `Authorization: Bearer` token of each request (a request
//! without a valid one never reaches a tool: see [`crate::http`]); over stdio it is the token
//! given at start (the process that spawned the server is the caller). Every refusal a model
//! can act on is a tool result with `isError: true` whose structured content, and text, is
//! `{"error": {"code", "message"}}` as on `/v1`: an argument mistake (`BAD_REQUEST`, the
//! message naming the field and what it accepts, see [`crate::args`]) as much as a refusal by
//! the service. Only what is not a call of a known tool (an unknown tool, a request that is
//! not a `tools/call`) is a JSON-RPC error. A replayed answer carries
//! `_meta: {"pace/idempotent_replayed": true}`.
//!
//! A confirmation that waits for a human (`APPROVAL_REQUIRED`) is put to the user by URL-mode
//! elicitation when the client supports it: the client is asked to open the approval page,
//! where the human decides with a credential the agent does not hold; the tool then answers
//! with what became of the proposal. The elicitation's own answer decides nothing. On protocol
//! versions that allow server requests the elicitation is sent during the call; on later ones
//! it is returned as the call's input request, and the retried call answers.

use crate::{
    Error, Result, Service,
    api::{
        Answer, ConfirmRequest, HistoryRequest, Operation, PendingRequest, ProposeRequest,
        StatusRequest,
    },
    service::Confirmed,
    store::ProposalState,
};
use rmcp::{
    ErrorData, RoleServer, ServerHandler, ServiceExt,
    handler::server::{router::tool::ToolRouter, tool::RequestState, wrapper::Parameters},
    model::{
        CallToolResponse, CallToolResult, ElicitRequest, ElicitRequestParams, Implementation,
        InputRequest, InputRequiredResult, JsonObject, MetaObject, ProtocolVersion,
        ServerCapabilities, ServerConfig, ServerRequest,
    },
    service::RequestContext,
    tool, tool_handler, tool_router,
};
use serde::Serialize;
use std::{sync::Arc, time::Duration};

/// The key of the approval elicitation among a call's input requests.
const APPROVAL_INPUT: &str = "pace_approval";

/// The MCP face of a [`Service`].
#[derive(Clone)]
pub struct McpServer {
    service: Arc<Service>,
    stdio_token: Option<Arc<str>>,
    tool_router: ToolRouter<Self>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer").finish_non_exhaustive()
    }
}

/// How an answer waiting for a human goes on.
enum Approval {
    /// Not waiting: the answer stands.
    Done,
    /// Waiting for proposal `id` at `url`.
    Waiting {
        id: String,
        url: String,
        message: String,
    },
}

impl McpServer {
    /// A server for `service`; `stdio_token` authenticates every call when given (stdio),
    /// otherwise each HTTP request's bearer token does.
    pub fn new(service: Arc<Service>, stdio_token: Option<Arc<str>>) -> Self {
        Self {
            service,
            stdio_token,
            tool_router: Self::tool_router(),
        }
    }

    fn secret(&self, ctx: &RequestContext<RoleServer>) -> Option<String> {
        match &self.stdio_token {
            Some(t) => Some(t.to_string()),
            None => ctx
                .extensions
                .get::<http::request::Parts>()
                .and_then(|p| crate::http::bearer(&p.headers))
                .map(str::to_owned),
        }
    }

    /// Runs `f` as the caller of `ctx` on a blocking thread.
    async fn as_caller<T: Send + 'static>(
        &self,
        ctx: &RequestContext<RoleServer>,
        f: impl FnOnce(&Service, &crate::auth::Caller) -> T + Send + 'static,
        refused: impl FnOnce(Error) -> T + Send + 'static,
    ) -> Result<T, ErrorData> {
        let secret = self.secret(ctx);
        let service = self.service.clone();
        tokio::task::spawn_blocking(move || match service.authenticate(secret.as_deref()) {
            Ok(caller) => f(&service, &caller),
            Err(e) => refused(e),
        })
        .await
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    async fn call<T: Serialize>(
        &self,
        op: Operation,
        request: &T,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let body = serde_json::to_vec(request)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let answer = self
            .as_caller(
                ctx,
                move |s, caller| s.answer(caller, op, &body, None),
                |e| Answer {
                    status: e.http_status(),
                    body: e.to_json().to_string(),
                    replayed: false,
                },
            )
            .await?;
        result(&answer)
    }

    /// What a waiting answer leads to: the answer itself when it does not wait for a human.
    fn waiting(&self, done: &CallToolResult) -> Approval {
        let error = done
            .structured_content
            .as_ref()
            .and_then(|v| v.get("error"))
            .filter(|e| e["code"] == "APPROVAL_REQUIRED");
        let (Some(id), Some(url)) = (
            error.and_then(|e| e["proposal_id"].as_str()),
            error.and_then(|e| e["approval_url"].as_str()),
        ) else {
            return Approval::Done;
        };
        let message = format!(
            "PACE: proposal {id} needs a human's approval. Open the approval page, review the \
             balance changes and approve or decline with your approval credential."
        );
        Approval::Waiting {
            id: id.to_owned(),
            url: url.to_owned(),
            message,
        }
    }

    /// Puts a waiting answer to the user by URL-mode elicitation when the client supports it:
    /// during the call on protocols that allow server requests, as the call's input request
    /// on later ones. Without support, the `APPROVAL_REQUIRED` answer (with the page's URL)
    /// goes back as it is.
    async fn elicit(
        &self,
        done: CallToolResult,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Approval::Waiting { id, url, message } = self.waiting(&done) else {
            return Ok(done.into());
        };
        let supports_url = ctx
            .client_capabilities()
            .and_then(|c| c.elicitation)
            .is_some_and(|e| e.url.is_some());
        if !supports_url {
            return Ok(done.into());
        }
        let params = ElicitRequestParams::UrlElicitationParams {
            meta: None,
            message,
            url,
            elicitation_id: format!("pace-approval-{id}"),
        };
        let modern = ctx
            .protocol_version()
            .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
        if modern {
            let requests = [(
                APPROVAL_INPUT.to_owned(),
                InputRequest::Elicitation(ElicitRequest::new(params)),
            )]
            .into();
            return Ok(InputRequiredResult::new(Some(requests), Some(id)).into());
        }
        let timeout = Duration::from_secs(self.service.config.approval_ttl_secs);
        let sent = ctx
            .peer
            .send_request_with_option(
                ServerRequest::ElicitRequest(ElicitRequest::new(params)),
                rmcp::service::PeerRequestOptions::with_timeout(timeout),
            )
            .await;
        // Whatever the user answered, only the approval page decides: read what became of it.
        if let Ok(handle) = sent {
            let _ = handle.await_response().await;
        }
        self.outcome(&id, ctx).await
    }

    /// What became of proposal `id` that waited for a human, for the caller of `ctx`.
    async fn outcome(
        &self,
        id: &str,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let id = id.to_owned();
        let answer = self
            .as_caller(ctx, move |s, caller| s.waited(caller, &id), Err)
            .await?;
        let body = match answer {
            Ok(c) => serde_json::to_value(c).map(CallToolResult::structured),
            Err(e) => Ok(CallToolResult::structured_error(e.to_json())),
        };
        body.map(Into::into)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }
}

impl Service {
    /// What became of proposal `id`, which waited for a human, for `caller`: the confirmation
    /// once signed, `APPROVAL_REQUIRED` while it still waits, `DECLINED` once declined.
    pub fn waited(&self, caller: &crate::auth::Caller, id: &str) -> Result<Confirmed> {
        let st = self.state();
        let p = self.visible_proposal(&st, caller, id)?;
        if let Some(done) = Confirmed::of(&p) {
            return Ok(done);
        }
        Err(match p.state {
            ProposalState::AwaitingApproval => Error::ApprovalRequired {
                id: p.id.clone(),
                reason: "still waiting for a human".into(),
                url: self.approval_url(&p.id),
            },
            ProposalState::Rejected => Error::Declined(p.id),
            state => Error::NotConfirmable {
                id: p.id,
                state: state.as_str().to_owned(),
            },
        })
    }
}

/// The tool result of an answer.
fn result(answer: &Answer) -> Result<CallToolResult, ErrorData> {
    let value: serde_json::Value = serde_json::from_str(&answer.body)
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    // Structured content is an object: a list (history, pending) is put under `proposals`.
    let value = match value {
        serde_json::Value::Array(list) => serde_json::json!({ "proposals": list }),
        other => other,
    };
    let mut out = if answer.status == 200 {
        CallToolResult::structured(value)
    } else {
        CallToolResult::structured_error(value)
    };
    if answer.replayed {
        let mut meta = MetaObject::new();
        meta.insert("pace/idempotent_replayed".into(), serde_json::json!(true));
        out.meta = Some(meta);
    }
    Ok(out)
}

/// The arguments of a call of `tool` as request `T`, checked against the tool's schema and
/// read back (`null` members absent, metadata pairs an object: see [`crate::args::read`]).
fn args<T: serde::de::DeserializeOwned>(tool: &str, obj: JsonObject) -> Result<T> {
    let value = crate::args::read(tool, serde_json::Value::Object(obj))?;
    serde_json::from_value(value).map_err(|e| Error::BadRequest(e.to_string()))
}

/// A refusal as the tool's answer: `isError`, `{"error": {code, message}}` as structured
/// content and as text, so that a model reads the code and the message and can correct its
/// call.
fn refused(e: &Error) -> CallToolResult {
    CallToolResult::structured_error(e.to_json())
}

/// The `account` argument of a read.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct AccountArg {
    #[serde(default)]
    account: Option<alloy_primitives::Address>,
}

fn schema(name: &str) -> Arc<JsonObject> {
    crate::schema::input_object(name)
}

fn output(name: &str) -> Arc<JsonObject> {
    crate::schema::output_object(name)
}

impl McpServer {
    /// A read for the caller of `ctx`: its structured answer, or a tool error.
    async fn read(
        &self,
        ctx: &RequestContext<RoleServer>,
        f: impl FnOnce(&Service, &crate::auth::Caller) -> Result<serde_json::Value> + Send + 'static,
    ) -> Result<CallToolResult, ErrorData> {
        let out = self.as_caller(ctx, f, Err).await?;
        Ok(match out {
            Ok(v) => CallToolResult::structured(v),
            Err(e) => CallToolResult::structured_error(e.to_json()),
        })
    }
}

#[tool_router]
impl McpServer {
    /// Simulates and verifies an intent on the latest state; nothing is signed.
    #[tool(
        title = "Propose a transaction",
        description = "Propose a transaction intent: simulate it on the latest state, verify it against the policy and return the decision and a preview (per-token deltas in integer and decimal form, counterparties, gas and fees, the outflows' value, violations with codes; for wrong or missing claims, implied_claims: the claims the trace implies) with a proposal_id. Nothing is signed. Pass an idempotency_key to make retries safe. With execute (unattended scope) it is confirmed at once; an intent equal to one executed in the last 24 h then needs allow_repeat.",
        input_schema = schema("propose"),
        output_schema = output("propose"),
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = false, open_world_hint = true)
    )]
    async fn propose(
        &self,
        Parameters(obj): Parameters<JsonObject>,
        RequestState(state): RequestState,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(id) = state {
            return self.outcome(&id, &ctx).await;
        }
        let req: ProposeRequest = match args("propose", obj) {
            Ok(r) => r,
            Err(e) => return Ok(refused(&e).into()),
        };
        let done = self.call(Operation::Propose, &req, &ctx).await?;
        self.elicit(done, &ctx).await
    }

    /// Confirms a proposal: fresh re-check, sign, submit.
    #[tool(
        title = "Confirm a proposal",
        description = "Confirm a proposal after showing its preview to the user: re-simulates and re-verifies on fresh state, signs the PDR, submits it and returns the outcome. `confirm` must be the boolean true. Pass an idempotency_key to make retries safe. Fails with PREVIEW_CHANGED if the result moved past the preview's tolerance. Above the token's approval threshold it answers APPROVAL_REQUIRED with an approval_url for a human (asked by URL elicitation when the client supports it). Confirming one proposal twice executes it once.",
        input_schema = schema("confirm"),
        output_schema = output("confirm"),
        annotations(read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = true)
    )]
    async fn confirm(
        &self,
        Parameters(obj): Parameters<JsonObject>,
        RequestState(state): RequestState,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(id) = state {
            return self.outcome(&id, &ctx).await;
        }
        let req: ConfirmRequest = match args("confirm", obj) {
            Ok(r) => r,
            Err(e) => return Ok(refused(&e).into()),
        };
        let done = self.call(Operation::Confirm, &req, &ctx).await?;
        self.elicit(done, &ctx).await
    }

    /// A proposal's state.
    #[tool(
        title = "Proposal status",
        description = "Status of a proposal: proposed, rejected, confirmed, awaiting_approval, expiring, submitted (tx hashes), executed, reverted (decoded error), uncertain or expired.",
        input_schema = schema("status"),
        output_schema = output("status"),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = true)
    )]
    async fn status(
        &self,
        Parameters(obj): Parameters<JsonObject>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        match args::<StatusRequest>("status", obj) {
            Ok(req) => self.call(Operation::Status, &req, &ctx).await,
            Err(e) => Ok(refused(&e)),
        }
    }

    /// The latest proposals.
    #[tool(
        title = "Proposal history",
        description = "The latest proposals and their states, newest first, as {proposals: [...]}.",
        input_schema = schema("history"),
        output_schema = output("history"),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn history(
        &self,
        Parameters(obj): Parameters<JsonObject>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        match args::<HistoryRequest>("history", obj) {
            Ok(req) => self.call(Operation::History, &req, &ctx).await,
            Err(e) => Ok(refused(&e)),
        }
    }

    /// The proposals waiting for a human.
    #[tool(
        title = "Pending approvals",
        description = "Proposals waiting for a human's approval, newest first, as {proposals: [...]}.",
        input_schema = schema("pending"),
        output_schema = output("pending"),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn pending(
        &self,
        Parameters(obj): Parameters<JsonObject>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        match args::<PendingRequest>("pending", obj) {
            Ok(req) => self.call(Operation::Pending, &req, &ctx).await,
            Err(e) => Ok(refused(&e)),
        }
    }

    /// The active policy.
    #[tool(
        title = "Active policy",
        description = "The account's active policy and its hash (the hash previews and PDRs bind to). The metadata patterns are redacted to their count.",
        input_schema = schema("policy"),
        output_schema = output("policy"),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn policy(
        &self,
        Parameters(obj): Parameters<JsonObject>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let a: AccountArg = match args("policy", obj) {
            Ok(a) => a,
            Err(e) => return Ok(refused(&e)),
        };
        self.read(&ctx, move |s, c| s.policy_view(c, a.account))
            .await
    }

    /// The budgets left.
    #[tool(
        title = "Budgets left",
        description = "What is left of each on-chain spending budget of the account in its current period, read from the account on the latest block (limit, spent, left, resets_at).",
        input_schema = schema("budgets"),
        output_schema = output("budgets"),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = true)
    )]
    async fn budgets(
        &self,
        Parameters(obj): Parameters<JsonObject>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let a: AccountArg = match args("budgets", obj) {
            Ok(a) => a,
            Err(e) => return Ok(refused(&e)),
        };
        self.read(&ctx, move |s, c| s.budgets(c, a.account)).await
    }

    /// The balances of the policy's tokens.
    #[tool(
        title = "Balances",
        description = "The account's balances of ether and of the policy's tokens on the latest block, in integer and decimal form.",
        input_schema = schema("balances"),
        output_schema = output("balances"),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = true)
    )]
    async fn balances(
        &self,
        Parameters(obj): Parameters<JsonObject>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let a: AccountArg = match args("balances", obj) {
            Ok(a) => a,
            Err(e) => return Ok(refused(&e)),
        };
        self.read(&ctx, move |s, c| s.balances(c, a.account)).await
    }

    /// Quotes an exact-input swap.
    #[tool(
        title = "Quote a Uniswap swap",
        description = "Quote an exact-input Uniswap V2 swap on the latest state (the router's getAmountsOut): the expected amount_out and min_amount_out for slippage_bps (at most the policy's max_slippage_bps; null: that maximum), to pass to encode_swap. Read-only: nothing is simulated beyond the quote, signed or stored.",
        input_schema = schema("quote"),
        output_schema = output("quote"),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = true)
    )]
    async fn quote(
        &self,
        Parameters(obj): Parameters<JsonObject>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        match crate::args::read("quote", serde_json::Value::Object(obj)) {
            Ok(value) => self.read(&ctx, move |s, c| s.quote(c, value)).await,
            Err(e) => Ok(refused(&e)),
        }
    }

    /// Encodes an ERC-20 transfer.
    #[tool(
        title = "Encode an ERC-20 transfer",
        description = "Encode an ERC-20 transfer from the account into an intent (calls and claims). Nothing is simulated or signed: propose the returned intent.",
        input_schema = schema("encode_erc20_transfer"),
        output_schema = output("encode_erc20_transfer"),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn encode_erc20_transfer(
        &self,
        Parameters(obj): Parameters<JsonObject>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.encode("encode_erc20_transfer", obj, &ctx).await
    }

    /// Encodes an ERC-20 approval.
    #[tool(
        title = "Encode an ERC-20 approval",
        description = "Encode an ERC-20 approve from the account into an intent. Nothing is simulated or signed: propose the returned intent.",
        input_schema = schema("encode_erc20_approve"),
        output_schema = output("encode_erc20_approve"),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn encode_erc20_approve(
        &self,
        Parameters(obj): Parameters<JsonObject>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.encode("encode_erc20_approve", obj, &ctx).await
    }

    /// Encodes a Uniswap V2 swap.
    #[tool(
        title = "Encode a Uniswap swap",
        description = "Encode an exact-input Uniswap V2 swap into an intent: approve the router for amount_in, then swapExactTokensForTokens along path to the account with min_amount_out (the quote tool gives one the policy allows). Nothing is simulated or signed: propose the returned intent.",
        input_schema = schema("encode_swap"),
        output_schema = output("encode_swap"),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn encode_swap(
        &self,
        Parameters(obj): Parameters<JsonObject>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.encode("encode_swap", obj, &ctx).await
    }

    /// Encodes wrapping ether.
    #[tool(
        title = "Encode wrapping ether",
        description = "Encode a WETH deposit of amount wei into an intent. Nothing is simulated or signed: propose the returned intent.",
        input_schema = schema("encode_wrap"),
        output_schema = output("encode_wrap"),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn encode_wrap(
        &self,
        Parameters(obj): Parameters<JsonObject>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.encode("encode_wrap", obj, &ctx).await
    }

    /// Encodes unwrapping ether.
    #[tool(
        title = "Encode unwrapping ether",
        description = "Encode a WETH withdraw of amount wei into an intent. Nothing is simulated or signed: propose the returned intent.",
        input_schema = schema("encode_unwrap"),
        output_schema = output("encode_unwrap"),
        annotations(read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    async fn encode_unwrap(
        &self,
        Parameters(obj): Parameters<JsonObject>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.encode("encode_unwrap", obj, &ctx).await
    }
}

impl McpServer {
    /// Runs encoding tool `tool`: its intent written as propose's schema describes it
    /// (metadata as pairs), so that it is propose's `intent` as it is.
    async fn encode(
        &self,
        tool: &'static str,
        obj: JsonObject,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        // Argument mistakes are refused before any read.
        let value = match crate::args::read(tool, serde_json::Value::Object(obj)) {
            Ok(v) => v,
            Err(e) => return Ok(refused(&e)),
        };
        self.read(ctx, move |s, c| {
            s.encode(c, tool, value).map(crate::schema::to_strict)
        })
        .await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("pace", env!("CARGO_PKG_VERSION"))
                    .with_title("PACE transaction guard"),
            )
            .with_instructions(
                "PACE: read the policy, budgets and balances; quote a swap for its \
                 min_amount_out; encode a common action or write an intent; propose it (an \
                 encoder's intent as it is), show the preview to the user, then confirm it. \
                 Nothing is signed without a confirmation; above the token's approval threshold \
                 a human approves on the approval page. A tool error (isError) carries a code \
                 and a message; BAD_REQUEST names the field and what it accepts: correct the \
                 call and try again. A rejected preview with implied_claims names the claims the \
                 simulation shows: check them against what the user asked for before proposing \
                 again with them. An uncertain outcome must be checked with status before \
                 proposing the same intent again; pass an idempotency_key so that a retry never \
                 executes twice.",
            )
    }
}

/// Serves `service` over stdio as the holder of `token` until the client closes the stream.
pub async fn serve_stdio(service: Arc<Service>, token: String) -> Result<()> {
    let server = McpServer::new(service, Some(token.into()))
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| Error::Config(format!("MCP stdio: {e}")))?;
    server
        .waiting()
        .await
        .map_err(|e| Error::Config(format!("MCP stdio: {e}")))?;
    Ok(())
}
