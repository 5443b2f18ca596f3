//! A minimal blocking HTTP/1.1 client: one POST per connection, `Connection: close`.

use crate::error::{Error, Result, excerpt};
use std::{
    io::{Read, Write},
    net::{TcpStream, ToSocketAddrs},
    time::{Duration, Instant},
};

/// Largest response accepted.
const MAX_RESPONSE: usize = 16 << 20;

/// A parsed `http://host[:port][/path]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Url {
    pub(crate) host: String,
    pub(crate) port: u16,
    /// Path prefix without a trailing slash (may be empty).
    pub(crate) path: String,
}

impl Url {
    pub(crate) fn parse(url: &str) -> Result<Self> {
        let bad = |reason| Error::BaseUrl {
            url: url.to_owned(),
            reason,
        };
        let rest = url.strip_prefix("http://").ok_or_else(|| {
            bad(if url.starts_with("https://") {
                "https is not supported; use http:// (e.g. through a local TLS proxy)"
            } else {
                "must start with http://"
            })
        })?;
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        if authority.is_empty() {
            return Err(bad("no host"));
        }
        let port_of = |p: &str| p.parse::<u16>().map_err(|_| bad("bad port"));
        let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
            let (h, rest) = v6.split_once(']').ok_or_else(|| bad("unclosed '['"))?;
            let port = match rest.strip_prefix(':') {
                Some(p) => port_of(p)?,
                None if rest.is_empty() => 80,
                None => return Err(bad("bad port")),
            };
            (format!("[{h}]"), port)
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h.to_owned(), port_of(p)?),
                None => (authority.to_owned(), 80),
            }
        };
        if host.is_empty() || host == "[]" {
            return Err(bad("no host"));
        }
        Ok(Self {
            host,
            port,
            path: path.trim_end_matches('/').to_owned(),
        })
    }

    pub(crate) fn addr(&self) -> String {
        format!("{}:{}", self.host, self.port)
    }
}

/// A response: status and body.
#[derive(Debug)]
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) body: String,
}

/// POSTs `body` (JSON) to `url.path + suffix` with `headers`, waiting at most `timeout` in all.
pub(crate) fn post_json(
    url: &Url,
    suffix: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    timeout: Duration,
) -> Result<Response> {
    let addr = url.addr();
    let start = Instant::now();
    let io = |source: std::io::Error| {
        if matches!(
            source.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ) {
            Error::Timeout {
                addr: url.addr(),
                timeout_ms: timeout.as_millis(),
            }
        } else {
            Error::Io {
                addr: url.addr(),
                source,
            }
        }
    };
    let connect = |source| Error::Connect {
        addr: url.addr(),
        source,
    };
    let addrs: Vec<_> = addr.to_socket_addrs().map_err(connect)?.collect();
    let mut last = std::io::Error::new(std::io::ErrorKind::NotFound, "no address");
    let mut stream = None;
    for a in addrs {
        match TcpStream::connect_timeout(&a, timeout) {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) => last = e,
        }
    }
    let mut stream = stream.ok_or_else(|| connect(last))?;
    stream.set_write_timeout(Some(timeout)).map_err(io)?;

    let mut request = format!(
        "POST {}{} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        url.path,
        suffix,
        addr,
        body.len()
    );
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    stream.write_all(request.as_bytes()).map_err(io)?;
    stream.write_all(body).map_err(io)?;
    stream.flush().map_err(io)?;

    let mut raw = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    loop {
        let left = timeout.saturating_sub(start.elapsed());
        if left.is_zero() {
            return Err(io(std::io::ErrorKind::TimedOut.into()));
        }
        stream.set_read_timeout(Some(left)).map_err(io)?;
        let n = stream.read(&mut buf).map_err(io)?;
        if n == 0 {
            break;
        }
        raw.extend_from_slice(&buf[..n]);
        if raw.len() > MAX_RESPONSE {
            return Err(Error::Http(format!(
                "response larger than {MAX_RESPONSE} bytes"
            )));
        }
        if let Some(done) = complete(&raw) {
            raw.truncate(done);
            break;
        }
    }
    parse_response(&raw)
}

/// If `raw` holds a complete response with a known length, its length.
fn complete(raw: &[u8]) -> Option<usize> {
    let head_end = find(raw, b"\r\n\r\n")? + 4;
    let head = String::from_utf8_lossy(&raw[..head_end]).to_ascii_lowercase();
    let len = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok())?;
    (raw.len() >= head_end + len).then_some(head_end + len)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn parse_response(raw: &[u8]) -> Result<Response> {
    let head_end = find(raw, b"\r\n\r\n")
        .ok_or_else(|| Error::Http(format!("no end of headers in {} bytes", raw.len())))?;
    let head = std::str::from_utf8(&raw[..head_end])
        .map_err(|_| Error::Http("headers are not UTF-8".into()))?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let mut parts = status_line.splitn(3, ' ');
    let (version, code) = (
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
    );
    if !version.starts_with("HTTP/1.") {
        return Err(Error::Http(format!(
            "bad status line {:?}",
            excerpt(status_line)
        )));
    }
    let status: u16 = code
        .parse()
        .map_err(|_| Error::Http(format!("bad status code in {:?}", excerpt(status_line))))?;
    let mut chunked = false;
    let mut length = None;
    for line in lines {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        let (k, v) = (k.trim().to_ascii_lowercase(), v.trim());
        if k == "transfer-encoding" && v.to_ascii_lowercase().contains("chunked") {
            chunked = true;
        } else if k == "content-length" {
            length = v.parse::<usize>().ok();
        }
    }
    let mut body = &raw[head_end + 4..];
    let owned;
    if chunked {
        owned = dechunk(body)?;
        body = &owned;
    } else if let Some(n) = length {
        if body.len() < n {
            return Err(Error::Http(format!(
                "body cut short: {} of {n} bytes",
                body.len()
            )));
        }
        body = &body[..n];
    }
    Ok(Response {
        status,
        body: String::from_utf8_lossy(body).into_owned(),
    })
}

fn dechunk(mut data: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    // Each chunk consumes at least its size line, so this ends.
    loop {
        let line_end =
            find(data, b"\r\n").ok_or_else(|| Error::Http("chunk size line cut short".into()))?;
        let line = std::str::from_utf8(&data[..line_end])
            .map_err(|_| Error::Http("chunk size is not text".into()))?;
        let size = usize::from_str_radix(line.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| Error::Http(format!("bad chunk size {line:?}")))?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Ok(out);
        }
        if data.len() < size + 2 {
            return Err(Error::Http("chunk cut short".into()));
        }
        out.extend_from_slice(&data[..size]);
        data = &data[size + 2..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let u = Url::parse("http://127.0.0.1:8080/v1/").unwrap();
        assert_eq!(
            (u.host.as_str(), u.port, u.path.as_str()),
            ("127.0.0.1", 8080, "/v1")
        );
        let u = Url::parse("http://localhost").unwrap();
        assert_eq!((u.port, u.path.as_str()), (80, ""));
        assert!(Url::parse("https://api.example.com/v1").is_err());
        assert!(Url::parse("ftp://x").is_err());
        assert!(Url::parse("http://").is_err());
        assert!(Url::parse("http://h:notaport").is_err());
        let u = Url::parse("http://[::1]:8000/v1").unwrap();
        assert_eq!((u.addr().as_str(), u.path.as_str()), ("[::1]:8000", "/v1"));
        assert_eq!(Url::parse("http://[::1]").unwrap().port, 80);
        assert!(Url::parse("http://[::1]x").is_err());
        assert!(Url::parse("http://:80").is_err());
    }

    #[test]
    fn responses() {
        let r = parse_response(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}xx").unwrap();
        assert_eq!((r.status, r.body.as_str()), (200, "{}"));
        let r = parse_response(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n",
        )
        .unwrap();
        assert_eq!(r.body, "abcde");
        assert!(parse_response(b"garbage").is_err());
        assert!(parse_response(b"SMTP 200\r\n\r\n").is_err());
        assert!(parse_response(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nab").is_err());
    }
}
