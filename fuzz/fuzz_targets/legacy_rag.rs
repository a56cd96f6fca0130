//! Fuzz target `legacy_rag`: see `aciproj_fuzz::legacy_rag` for the invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| aciproj_fuzz::legacy_rag(data));
