//! Fuzz target `redact`: see `aciproj_fuzz::redact_target` for the invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| aciproj_fuzz::redact_target(data));
