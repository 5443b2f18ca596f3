//! Integration tests of the data model.

mod docs;
mod golden;
mod loaders;
mod pdr_golden;
