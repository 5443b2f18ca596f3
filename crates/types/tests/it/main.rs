//! Integration tests of the data model.

mod descriptor_schema;
mod docs;
mod golden;
mod loaders;
mod pdr_golden;
