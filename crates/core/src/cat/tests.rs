//! The engines against the definitions.
