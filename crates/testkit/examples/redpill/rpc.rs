//! A blocking JSON-RPC client over plain HTTP/1.1 on loopback, enough for anvil: the harness
//! sends as impersonated accounts (`eth_sendTransaction`), reads with `eth_call` and uses the
//! node's development methods, none of which needs a signing provider.

use serde_json::{Value, json};
use std::{
    cell::Cell,
    io::{Read, Write},
    net::TcpStream,
    time::Duration,
};

/// One node's JSON-RPC endpoint.
pub(crate) struct Rpc {
    host: String,
    next_id: Cell<u64>,
}

impl Rpc {
    /// The endpoint at `url` (`http://127.0.0.1:PORT`).
    pub(crate) fn new(url: &str) -> Result<Self, String> {
        let host = url
            .strip_prefix("http://")
            .ok_or_else(|| format!("{url}: not an http:// URL"))?
            .trim_end_matches('/')
            .to_owned();
        Ok(Self {
            host,
            next_id: Cell::new(1),
        })
    }

    /// Calls `method` with `params`; the result, or the node's error message.
    pub(crate) fn call(&self, method: &str, params: &Value) -> Result<Value, String> {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let body = serde_json::to_vec(&body).map_err(|e| e.to_string())?;
        let text = self.post(&body).map_err(|e| format!("{method}: {e}"))?;
        let reply: Value =
            serde_json::from_slice(&text).map_err(|e| format!("{method}: reply: {e}"))?;
        if let Some(error) = reply.get("error") {
            return Err(format!("{method}: {error}"));
        }
        Ok(reply.get("result").cloned().unwrap_or(Value::Null))
    }

    fn post(&self, body: &[u8]) -> Result<Vec<u8>, String> {
        let mut stream = TcpStream::connect(&self.host).map_err(|e| e.to_string())?;
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .map_err(|e| e.to_string())?;
        let head = format!(
            "POST / HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n",
            self.host,
            body.len()
        );
        stream
            .write_all(head.as_bytes())
            .and_then(|()| stream.write_all(body))
            .map_err(|e| e.to_string())?;
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).map_err(|e| e.to_string())?;
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .ok_or("no HTTP header in the reply")?;
        let header = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
        let payload = &raw[split + 4..];
        let status = header.split_whitespace().nth(1).unwrap_or("");
        if status != "200" {
            return Err(format!(
                "HTTP {status}: {}",
                String::from_utf8_lossy(payload)
            ));
        }
        if header.contains("transfer-encoding: chunked") {
            dechunk(payload)
        } else {
            Ok(payload.to_vec())
        }
    }
}

/// The body of a chunked transfer encoding.
fn dechunk(mut data: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    loop {
        let line = data
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("truncated chunk header")?;
        let size_text = String::from_utf8_lossy(&data[..line]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|e| format!("chunk size {size_text:?}: {e}"))?;
        data = &data[line + 2..];
        if size == 0 {
            return Ok(out);
        }
        if data.len() < size + 2 {
            return Err("truncated chunk".into());
        }
        out.extend_from_slice(&data[..size]);
        data = &data[size + 2..];
    }
}
