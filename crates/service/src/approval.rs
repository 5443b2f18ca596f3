//! The human in the loop: a proposal its caller confirmed above the caller's approval
//! threshold waits (`awaiting_approval`, listed by `pending`) until a human approves or
//! declines it on the approval page, `/approve/{id}`.
//!
//! The page authenticates the human with a credential the agent does not hold: an API token
//! whose grant is a human's (`caller_type: human`) with the `approve` scope, typed into the
//! page's form, never carried by a cookie or the URL, so the link itself grants nothing (the
//! agent's client sees it, and may open it for the user). The form resists cross-site
//! forgery: it carries a token bound to the proposal and its preview under a key only this
//! process knows, a request whose `Origin` is not the service's own is refused, and the page
//! may not be framed.

use crate::{
    Error, Result, Service,
    audit::{AuditKind, CallerType},
    auth::{Caller, Scope},
    confirm::Repeat,
    preview::Preview,
    service::Confirmed,
    store::{ConfirmMode, Proposal, ProposalState},
};
use alloy_primitives::{B256, keccak256};

/// The headers every approval page is served with: no caching, no framing, no scripts, forms
/// posted only to itself, no referrer.
pub(crate) const PAGE_HEADERS: [(&str, &str); 6] = [
    ("content-type", "text/html; charset=utf-8"),
    ("cache-control", "no-store"),
    ("x-frame-options", "DENY"),
    (
        "content-security-policy",
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    ),
    ("referrer-policy", "no-referrer"),
    ("x-content-type-options", "nosniff"),
];

impl Service {
    /// The anti-forgery token of the approval form of `p`: bound to the proposal, its preview
    /// and its deadline under this process's page key.
    pub(crate) fn form_token(&self, p: &Proposal) -> B256 {
        let mut bytes = b"PACE-RS/approval-form/v1\n".to_vec();
        bytes.extend_from_slice(self.page_secret.as_slice());
        bytes.extend_from_slice(p.preview.hash().as_slice());
        bytes.extend_from_slice(p.id.as_bytes());
        bytes.extend_from_slice(&p.expires_at.to_be_bytes());
        keccak256(bytes)
    }

    /// A human's decision on proposal `id`, waiting for one: `approve` confirms it (recorded
    /// as the human's, then re-checked on fresh state, signed and submitted like any
    /// confirmation); otherwise it is declined for good. The caller must be a human's grant
    /// with the `approve` scope for the proposal's tenant.
    pub fn approve(&self, human: &Caller, id: &str, approve: bool) -> Result<Option<Confirmed>> {
        let mut st = self.state();
        self.authorize(&mut st, human, Scope::Approve)?;
        if human.caller_type != CallerType::Human {
            let e = Error::Forbidden(format!(
                "{} is not a human's credential; only a human approves",
                human.id
            ));
            self.refuse(&mut st, human, None, &e)?;
            return Err(e);
        }
        let mut p = st
            .store
            .proposal(id)?
            .filter(|p| human.serves(&p.tenant))
            .ok_or_else(|| Error::NotFound(id.to_owned()))?;
        if p.state != ProposalState::AwaitingApproval {
            let e = Error::NotConfirmable {
                id: p.id.clone(),
                state: p.state.as_str().to_owned(),
            };
            self.refuse(&mut st, human, Some(&p), &e)?;
            return Err(e);
        }
        if self.now() > p.expires_at {
            p.state = ProposalState::Expired;
            self.advance(&mut p, ProposalState::AwaitingApproval, Vec::new())?;
            return Err(Error::Expired(p.id));
        }
        let mut entry = Self::entry(human, AuditKind::Approve, &[Scope::Approve], Some(&p));
        entry.codes = vec![if approve { "APPROVED" } else { "DECLINED" }.to_owned()];
        entry.detail = serde_json::json!({ "approved": approve, "preview_hash": p.preview.hash() });
        if !approve {
            p.state = ProposalState::Rejected;
            self.advance(&mut p, ProposalState::AwaitingApproval, vec![entry])?;
            return Ok(None);
        }
        self.audit(&mut st, entry)?;
        self.confirm_with(
            st,
            human,
            &mut p,
            ConfirmMode::Human,
            Repeat::Allowed,
            ProposalState::AwaitingApproval,
        )
        .map(Some)
    }

    /// The approval page of proposal `id`: its preview, and the form (status, HTML).
    pub fn approval_page(&self, id: &str) -> (u16, String) {
        let p = match self.state().store.proposal(id) {
            Ok(Some(p)) => p,
            Ok(None) => return (404, page("Not found", "<p>No such proposal.</p>")),
            Err(e) => {
                return (
                    500,
                    page("Error", &format!("<p>{}</p>", esc(&e.to_string()))),
                );
            }
        };
        let waiting = p.state == ProposalState::AwaitingApproval && self.now() <= p.expires_at;
        let mut body = preview_html(&p);
        if waiting {
            body.push_str(&format!(
                r#"<form method="post" action="/approve/{id}">
<input type="hidden" name="token" value="{token}">
<p><label>Your approval credential (a human's API token with the approve scope):<br>
<input type="password" name="credential" autocomplete="off" required size="60"></label></p>
<p><button type="submit" name="decision" value="approve">Approve and execute</button>
<button type="submit" name="decision" value="decline">Decline</button></p>
</form>"#,
                id = esc(&p.id),
                token = self.form_token(&p),
            ));
        } else {
            body.push_str(&format!(
                "<p>This proposal is <b>{}</b>: there is nothing to approve.</p>",
                esc(crate::service::StatusState::of(p.state, p.expires_at, self.now()).as_str())
            ));
        }
        (200, page(&format!("Approve {}", p.id), &body))
    }

    /// The approval form posted for proposal `id` with the request's `origin` header and its
    /// url-encoded `form`: checks the origin, the anti-forgery token and the human's
    /// credential, then decides (status, HTML).
    pub fn approval_post(
        &self,
        id: &str,
        origin: Option<&str>,
        form: &[(String, String)],
    ) -> (u16, String) {
        let Ok(_in_flight) = self.begin(None) else {
            return (
                503,
                page(
                    "Shutting down",
                    "<p>The service is shutting down; nothing was decided. Try again once it is back.</p>",
                ),
            );
        };
        let own = self
            .approval_base
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        if let Some(origin) = origin
            && own.as_deref() != Some(origin.trim_end_matches('/'))
        {
            return (
                403,
                page(
                    "Refused",
                    "<p>This form may only be posted from its own page.</p>",
                ),
            );
        }
        let field = |name: &str| {
            form.iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        let p = match self.state().store.proposal(id) {
            Ok(Some(p)) => p,
            _ => return (404, page("Not found", "<p>No such proposal.</p>")),
        };
        let expected = self.form_token(&p).to_string();
        let token_ok =
            field("token").is_some_and(|t| constant_time_eq(t.as_bytes(), expected.as_bytes()));
        if !token_ok {
            return (
                403,
                page(
                    "Refused",
                    "<p>The form is stale or was not served by this page; reload it.</p>",
                ),
            );
        }
        let approve = match field("decision") {
            Some("approve") => true,
            Some("decline") => false,
            _ => return (400, page("Refused", "<p>Choose approve or decline.</p>")),
        };
        let human = match self.authenticate(field("credential")) {
            Ok(h) => h,
            Err(e) => {
                return (
                    e.http_status(),
                    page("Refused", &format!("<p>{}</p>", esc(&e.to_string()))),
                );
            }
        };
        match self.approve(&human, id, approve) {
            Ok(Some(done)) => (
                200,
                page(
                    "Approved",
                    &format!(
                        "<p>Approved. Proposal {} is <b>{}</b>.</p>",
                        esc(&done.proposal_id),
                        esc(done.state.as_str())
                    ),
                ),
            ),
            Ok(None) => (
                200,
                page("Declined", "<p>Declined: it will not execute.</p>"),
            ),
            Err(e) => (
                e.http_status(),
                page(
                    "Not executed",
                    &format!("<p>{}: {}</p>", esc(e.code()), esc(&e.to_string())),
                ),
            ),
        }
    }
}

/// Compares two byte strings in time independent of where they differ.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// `s` escaped for HTML text and attribute values.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A whole page.
fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{t}</title>\
         <style>body{{font-family:sans-serif;max-width:48em;margin:2em auto}}\
         td,th{{padding:.2em .6em;text-align:left}}</style></head>\
         <body><h1>{t}</h1>{body}</body></html>",
        t = esc(title)
    )
}

/// What the human approves: the account, the calls, every balance change, who is paid, the
/// value moved and why approval is needed.
fn preview_html(p: &Proposal) -> String {
    let v: &Preview = &p.preview;
    let mut out = format!(
        "<p>Proposal <code>{}</code> of <b>{}</b> (tenant {}), account <code>{}</code> on chain {}.</p>",
        esc(&p.id),
        esc(&p.caller),
        esc(&p.tenant),
        v.account,
        v.chain_id
    );
    out.push_str("<h2>Balance changes</h2><table><tr><th>token</th><th>change</th></tr>");
    for d in &v.deltas {
        out.push_str(&format!(
            "<tr><td>{} <code>{}</code></td><td>{}</td></tr>",
            esc(&d.symbol),
            d.token,
            esc(&d.human)
        ));
    }
    out.push_str("</table><h2>Calls</h2><ul>");
    for c in &v.calls {
        out.push_str(&format!(
            "<li><code>{}</code> selector {} value {} wei</li>",
            c.target,
            esc(c.selector.as_deref().unwrap_or("none")),
            esc(&c.value)
        ));
    }
    out.push_str("</ul><h2>Counterparties</h2><ul>");
    for a in &v.counterparties {
        out.push_str(&format!("<li><code>{a}</code></li>"));
    }
    out.push_str(&format!(
        "</ul><p>Outflows worth <b>{}</b> wei at pre-execution prices; the relayer pays at most \
         {} wei in fees.</p>",
        esc(v
            .outflow_value_wei
            .as_deref()
            .unwrap_or("an unpriced amount of")),
        esc(&v.max_fee_wei)
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_is_escaped_and_tokens_compare_whole() {
        assert_eq!(
            esc(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
    }
}
