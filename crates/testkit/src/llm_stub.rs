//! A stub OpenAI-compatible chat-completions server: answers a fixed list of replies, one per
//! connection, on 127.0.0.1, and records each request. Every wait is bounded.

use std::{
    io::{Read, Write},
    net::{SocketAddr, TcpListener},
    sync::mpsc::{Receiver, channel},
    thread,
    time::{Duration, Instant},
};

/// What the stub sends for one request.
#[derive(Clone, Debug)]
pub enum Reply {
    /// 200 with this JSON body.
    Ok(String),
    /// 200 with this body, chunked.
    Chunked(String),
    /// This status and body.
    Status(u16, String),
    /// These bytes, verbatim.
    Raw(Vec<u8>),
    /// Nothing, for this long, then close.
    Silent(Duration),
}

/// One request as received.
#[derive(Debug)]
pub struct Request {
    /// `POST`, ...
    pub method: String,
    /// The request target.
    pub path: String,
    /// Header names and values, in order.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Request {
    /// The first header called `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The running stub; its thread stops after the last reply, or when no request came within
/// 60 seconds of the start.
#[derive(Debug)]
pub struct Stub {
    /// Where it listens.
    pub addr: SocketAddr,
    rx: Receiver<Request>,
}

impl Stub {
    /// Serves `replies`, one per connection, in order.
    pub fn serve(replies: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        listener.set_nonblocking(true).unwrap();
        let (tx, rx) = channel();
        thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(60);
            for reply in replies {
                let mut stream = loop {
                    match listener.accept() {
                        Ok((s, _)) => break s,
                        Err(_) if Instant::now() < deadline => {
                            thread::sleep(Duration::from_millis(2));
                        }
                        Err(_) => return,
                    }
                };
                stream.set_nonblocking(false).unwrap();
                stream
                    .set_read_timeout(Some(Duration::from_secs(5)))
                    .unwrap();
                let Some(req) = read_request(&mut stream) else {
                    return;
                };
                let _ = tx.send(req);
                let bytes = match reply {
                    Reply::Ok(body) => response(200, &body),
                    Reply::Status(code, body) => response(code, &body),
                    Reply::Chunked(body) => {
                        let mut out = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n".to_vec();
                        for chunk in body.as_bytes().chunks(100) {
                            out.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
                            out.extend_from_slice(chunk);
                            out.extend_from_slice(b"\r\n");
                        }
                        out.extend_from_slice(b"0\r\n\r\n");
                        out
                    }
                    Reply::Raw(bytes) => bytes,
                    Reply::Silent(d) => {
                        thread::sleep(d);
                        continue;
                    }
                };
                let _ = stream.write_all(&bytes);
            }
        });
        Self { addr, rx }
    }

    /// The requests received so far (waiting briefly for the first).
    pub fn requests(&self) -> Vec<Request> {
        let mut out: Vec<Request> = self
            .rx
            .recv_timeout(Duration::from_secs(5))
            .into_iter()
            .collect();
        out.extend(self.rx.try_iter());
        out
    }
}

/// A chat-completions response body whose assistant message is `content`.
pub fn chat(content: &str) -> String {
    serde_json::json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]
    })
    .to_string()
}

fn response(code: u16, body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 {code} Stub\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn read_request(stream: &mut impl Read) -> Option<Request> {
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = stream.read(&mut buf).ok()?;
        if n == 0 || raw.len() > 1 << 20 {
            return None;
        }
        raw.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8(raw[..head_end].to_vec()).ok()?;
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let (method, path) = (first.next()?.to_owned(), first.next()?.to_owned());
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = raw[head_end + 4..].to_vec();
    while body.len() < len {
        let n = stream.read(&mut buf).ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&buf[..n]);
    }
    Some(Request {
        method,
        path,
        headers,
        body,
    })
}
