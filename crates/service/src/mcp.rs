//! The MCP server: tools `propose`, `confirm`, `status` and `history`, over streamable HTTP
//! (mounted at `/mcp` by [`crate::http`]) or stdio ([`serve_stdio`]).
//!
//! Over HTTP the caller is the `Authorization: Bearer` token of each request; over stdio it is
//! the token given at start (the process that spawned the server is the caller). A tool
//! refusal is a tool-level error carrying `{"error": {"code", "message"}}`.

use crate::{
    Error, Result, Service,
    api::{ConfirmRequest, HistoryRequest, Operation, ProposeRequest, StatusRequest},
    error_response,
};
use rmcp::{
    ErrorData, RoleServer, ServerHandler, ServiceExt,
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{CallToolResult, ServerCapabilities, ServerConfig},
    service::RequestContext,
    tool, tool_handler, tool_router,
};
use serde::Serialize;
use std::sync::Arc;

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

    async fn call<T: Serialize>(
        &self,
        op: Operation,
        request: &T,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let secret = match &self.stdio_token {
            Some(t) => Some(t.to_string()),
            None => ctx
                .extensions
                .get::<http::request::Parts>()
                .and_then(|p| crate::http::bearer(&p.headers))
                .map(str::to_owned),
        };
        let body = serde_json::to_vec(request)
            .map_err(|e| ErrorData::invalid_params(e.to_string(), None))?;
        let service = self.service.clone();
        let (status, body) =
            tokio::task::spawn_blocking(move || match service.authenticate(secret.as_deref()) {
                Ok(caller) => service.handle(&caller, op, &body),
                Err(e) => error_response(&e),
            })
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let value: serde_json::Value = serde_json::from_str(&body)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(if status == 200 {
            CallToolResult::structured(value)
        } else {
            CallToolResult::structured_error(value)
        })
    }
}

#[tool_router]
impl McpServer {
    /// Simulates and verifies an intent on the latest state; nothing is signed.
    #[tool(
        description = "Propose a transaction intent: simulate it on the latest state, verify it against the policy and return the decision and a preview (per-token deltas in integer and decimal form, counterparties, gas and fees, violations with codes) with a proposal_id. Nothing is signed."
    )]
    async fn propose(
        &self,
        Parameters(req): Parameters<ProposeRequest>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.call(Operation::Propose, &req, &ctx).await
    }

    /// Confirms a proposal: fresh re-check, sign, submit.
    #[tool(
        description = "Confirm a proposal after showing its preview to the user: re-simulates and re-verifies on fresh state, signs the PDR, submits it and returns the outcome. `confirm` must be the boolean true. Fails with PREVIEW_CHANGED if the result moved past the preview's tolerance."
    )]
    async fn confirm(
        &self,
        Parameters(req): Parameters<ConfirmRequest>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.call(Operation::Confirm, &req, &ctx).await
    }

    /// A proposal's state.
    #[tool(
        description = "Status of a proposal: proposed, rejected, confirmed, expiring, submitted (tx hashes), executed, reverted (decoded error), uncertain or expired."
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
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_instructions(
            "PACE: propose a transaction intent, show the preview to the user, then confirm it. \
             Nothing is signed without a confirmation; an uncertain outcome must be checked \
             with status before proposing the same intent again.",
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
