//! The MCP server: tools `propose`, `confirm`, `status`, `history` and `pending`, over
//! streamable HTTP (mounted at `/mcp` by [`crate::http`]) or stdio ([`serve_stdio`]).
//!
//! Over HTTP the caller is the `Authorization: Bearer` token of each request (a request
//! without a valid one never reaches a tool: see [`crate::http`]); over stdio it is the token
//! given at start (the process that spawned the server is the caller). A tool refusal is a
//! tool-level error carrying `{"error": {"code", "message"}}`. A replayed answer carries
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
        CallToolResponse, CallToolResult, ElicitRequest, ElicitRequestParams, InputRequest,
        InputRequiredResult, MetaObject, ProtocolVersion, ServerCapabilities, ServerConfig,
        ServerRequest,
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
            .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
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

#[tool_router]
impl McpServer {
    /// Simulates and verifies an intent on the latest state; nothing is signed.
    #[tool(
        description = "Propose a transaction intent: simulate it on the latest state, verify it against the policy and return the decision and a preview (per-token deltas in integer and decimal form, counterparties, gas and fees, the outflows' value, violations with codes) with a proposal_id. Nothing is signed. Pass an idempotency_key to make retries safe. With execute (unattended scope) it is confirmed at once; an intent equal to one executed in the last 24 h then needs allow_repeat."
    )]
    async fn propose(
        &self,
        Parameters(req): Parameters<ProposeRequest>,
        RequestState(state): RequestState,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(id) = state {
            return self.outcome(&id, &ctx).await;
        }
        let done = self.call(Operation::Propose, &req, &ctx).await?;
        self.elicit(done, &ctx).await
    }

    /// Confirms a proposal: fresh re-check, sign, submit.
    #[tool(
        description = "Confirm a proposal after showing its preview to the user: re-simulates and re-verifies on fresh state, signs the PDR, submits it and returns the outcome. `confirm` must be the boolean true. Pass an idempotency_key to make retries safe. Fails with PREVIEW_CHANGED if the result moved past the preview's tolerance. Above the token's approval threshold it answers APPROVAL_REQUIRED with an approval_url for a human (asked by URL elicitation when the client supports it)."
    )]
    async fn confirm(
        &self,
        Parameters(req): Parameters<ConfirmRequest>,
        RequestState(state): RequestState,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(id) = state {
            return self.outcome(&id, &ctx).await;
        }
        let done = self.call(Operation::Confirm, &req, &ctx).await?;
        self.elicit(done, &ctx).await
    }

    /// A proposal's state.
    #[tool(
        description = "Status of a proposal: proposed, rejected, confirmed, awaiting_approval, expiring, submitted (tx hashes), executed, reverted (decoded error), uncertain or expired."
    )]
    async fn status(
        &self,
        Parameters(req): Parameters<StatusRequest>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.call(Operation::Status, &req, &ctx).await
    }

    /// The latest proposals.
    #[tool(description = "The latest proposals and their states, newest first.")]
    async fn history(
        &self,
        Parameters(req): Parameters<HistoryRequest>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.call(Operation::History, &req, &ctx).await
    }

    /// The proposals waiting for a human.
    #[tool(description = "Proposals waiting for a human's approval, newest first.")]
    async fn pending(
        &self,
        Parameters(req): Parameters<PendingRequest>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.call(Operation::Pending, &req, &ctx).await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_instructions(
            "PACE: propose a transaction intent, show the preview to the user, then confirm it. \
             Nothing is signed without a confirmation; above the token's approval threshold a \
             human approves on the approval page. An uncertain outcome must be checked with \
             status before proposing the same intent again; pass an idempotency_key so that a \
             retry never executes twice.",
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
