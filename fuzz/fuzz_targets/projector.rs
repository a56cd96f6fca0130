//! Fuzz target `projector`: see `aciproj_fuzz::projector` for the invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| aciproj_fuzz::projector(data));
