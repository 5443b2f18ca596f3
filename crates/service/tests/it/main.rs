//! Integration tests of `pace serve` on the embedded world and on anvil (`node`): one test per
//! invariant, each naming the gate it exercises, plus lanes, the HTTP API, an MCP client
//! session, the tools' arguments, encoders and quote.

mod arguments;
mod common;
mod edge;
mod encoders;
mod faulty;
mod human;
mod invariants;
mod lanes;
mod node;
mod operator;
mod outage;
mod quote;
mod races;
mod retries;
mod serve;
mod tenants;
mod tls;
mod tools;
