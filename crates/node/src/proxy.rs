//! [`LatencyProxy`]: a loopback HTTP/1.1 forwarder that makes a local node look remote.
//!
//! Every HTTP round trip through it waits a fixed latency before it is forwarded, and is
//! counted: one round trip per HTTP request, and as many JSON-RPC requests as its body holds
//! (a batch of N is one round trip with N requests). The counts are the proxy's, not the
//! client's, so a client that hides requests (batching, concurrency, retries) is still measured
//! by what crossed the wire. Connection setup (TCP/TLS handshakes) is not delayed: the proxy
//! models a kept-alive connection.

use alloy::transports::http::reqwest;
use std::{
    collections::BTreeMap,
    sync::{Arc, Mutex, PoisonError},
    time::Duration,
};
use tokio::{
    io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader},
    net::{TcpListener, TcpStream},
    runtime::Runtime,
};

/// The default latency per round trip: a hosted endpoint across a region.
pub const DEFAULT_PROXY_LATENCY: Duration = Duration::from_millis(50);

/// What went through a [`LatencyProxy`] since it started (or was [`LatencyProxy::reset`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProxyStats {
    /// HTTP requests forwarded (each waited the latency once).
    pub round_trips: u64,
    /// JSON-RPC requests they carried (a batch counts its members).
    pub requests: u64,
    /// JSON-RPC requests by method.
    pub methods: BTreeMap<String, u64>,
}

impl ProxyStats {
    /// What happened between `earlier` and `self`.
    pub fn since(&self, earlier: &Self) -> Self {
        let mut methods = self.methods.clone();
        for (m, n) in &earlier.methods {
            if let Some(v) = methods.get_mut(m) {
                *v -= n;
            }
        }
        methods.retain(|_, n| *n > 0);
        Self {
            round_trips: self.round_trips - earlier.round_trips,
            requests: self.requests - earlier.requests,
            methods,
        }
    }
}

/// A latency-injecting JSON-RPC forwarder on a free port of 127.0.0.1. Stops when dropped.
#[derive(Debug)]
pub struct LatencyProxy {
    url: String,
    latency: Duration,
    stats: Arc<Mutex<ProxyStats>>,
    runtime: Option<Runtime>,
}

impl LatencyProxy {
    /// Starts forwarding to `upstream` (an `http://` URL), waiting `latency` per round trip.
    pub fn start(upstream: &str, latency: Duration) -> crate::Result<Self> {
        let target = upstream
            .parse::<reqwest::Url>()
            .map_err(|e| crate::Error::InvalidUrl {
                url: upstream.to_owned(),
                reason: e.to_string(),
            })?;
        let io = |e: std::io::Error| crate::Error::Proxy(e.to_string());
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("pace-latency-proxy")
            .enable_all()
            .build()
            .map_err(io)?;
        let listener = runtime
            .block_on(TcpListener::bind("127.0.0.1:0"))
            .map_err(io)?;
        let url = format!("http://{}", listener.local_addr().map_err(io)?);
        let stats = Arc::new(Mutex::new(ProxyStats::default()));
        let forward = Forward {
            client: reqwest::Client::new(),
            target,
            latency,
            stats: Arc::clone(&stats),
        };
        runtime.spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let forward = forward.clone();
                tokio::spawn(async move { forward.serve(stream).await });
            }
        });
        Ok(Self {
            url,
            latency,
            stats,
            runtime: Some(runtime),
        })
    }

    /// The proxy's URL, to give clients instead of the node's.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The latency added to every round trip.
    pub fn latency(&self) -> Duration {
        self.latency
    }

    /// The counts so far.
    pub fn stats(&self) -> ProxyStats {
        self.stats
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Sets the counts back to zero.
    pub fn reset(&self) {
        *self.stats.lock().unwrap_or_else(PoisonError::into_inner) = ProxyStats::default();
    }
}

impl Drop for LatencyProxy {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

#[derive(Clone)]
struct Forward {
    client: reqwest::Client,
    target: reqwest::Url,
    latency: Duration,
    stats: Arc<Mutex<ProxyStats>>,
}

impl Forward {
    /// Serves one kept-alive client connection until it closes or sends something that is not
    /// an HTTP/1.1 request with a `Content-Length` body.
    async fn serve(&self, stream: TcpStream) {
        // Each answer goes out in one write, without waiting for an ACK (Nagle's algorithm
        // with delayed ACKs would add ~40 ms to the modelled latency).
        let _ = stream.set_nodelay(true);
        let (read, mut write) = stream.into_split();
        let mut reader = BufReader::new(read);
        while let Some(body) = read_request(&mut reader).await {
            self.count(&body);
            tokio::time::sleep(self.latency).await;
            let (status, answer) = match self.forward(body).await {
                Ok(done) => done,
                Err(e) => (502, e.to_string().into_bytes()),
            };
            let mut out = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                answer.len()
            )
            .into_bytes();
            out.extend_from_slice(&answer);
            if write.write_all(&out).await.is_err() {
                return;
            }
        }
    }

    async fn forward(&self, body: Vec<u8>) -> reqwest::Result<(u16, Vec<u8>)> {
        let response = self
            .client
            .post(self.target.clone())
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await?;
        let status = response.status().as_u16();
        Ok((status, response.bytes().await?.to_vec()))
    }

    fn count(&self, body: &[u8]) {
        let parsed: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
        let calls = match &parsed {
            serde_json::Value::Array(calls) => calls.iter().collect(),
            one => vec![one],
        };
        let mut stats = self.stats.lock().unwrap_or_else(PoisonError::into_inner);
        stats.round_trips += 1;
        for call in calls {
            stats.requests += 1;
            let method = call["method"].as_str().unwrap_or("(not JSON-RPC)");
            *stats.methods.entry(method.to_owned()).or_default() += 1;
        }
    }
}

/// The body of the next request on the connection; `None` at its end or on a malformed request.
async fn read_request<R: tokio::io::AsyncBufRead + Unpin>(reader: &mut R) -> Option<Vec<u8>> {
    let mut length = None;
    let mut first = true;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).await.ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            if first {
                continue;
            }
            break;
        }
        first = false;
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).await.ok()?;
    Some(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_request_is_read_up_to_its_content_length() {
        let raw = b"POST / HTTP/1.1\r\nhost: x\r\nContent-Length: 4\r\n\r\nabcdPOST";
        let mut reader = BufReader::new(&raw[..]);
        assert_eq!(read_request(&mut reader).await.unwrap(), b"abcd");
        // The rest is the start of a request that never completes.
        assert!(read_request(&mut reader).await.is_none());
        let chunked =
            b"POST / HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n4\r\nabcd\r\n0\r\n\r\n";
        assert!(
            read_request(&mut BufReader::new(&chunked[..]))
                .await
                .is_none()
        );
    }

    #[test]
    fn stats_since_subtract_per_method() {
        let mut later = ProxyStats {
            round_trips: 5,
            requests: 9,
            ..ProxyStats::default()
        };
        later.methods.insert("eth_call".into(), 6);
        later.methods.insert("eth_chainId".into(), 3);
        let mut earlier = ProxyStats {
            round_trips: 2,
            requests: 3,
            ..ProxyStats::default()
        };
        earlier.methods.insert("eth_chainId".into(), 3);
        let d = later.since(&earlier);
        assert_eq!((d.round_trips, d.requests), (3, 6));
        assert_eq!(
            d.methods.into_iter().collect::<Vec<_>>(),
            [("eth_call".into(), 6)]
        );
    }
}
