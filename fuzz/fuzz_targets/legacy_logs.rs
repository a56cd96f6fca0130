//! Fuzz target `legacy_logs`: see `aciproj_fuzz::legacy_logs` for the invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| aciproj_fuzz::legacy_logs(data));
