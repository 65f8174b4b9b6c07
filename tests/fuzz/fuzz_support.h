#pragma once
// What every fuzz target shares: bad input must end in a SpyreError (the
// one-line message the CLI prints); anything else escaping a reader — another
// exception, a crash, a sanitizer report, a hang — is a finding.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace spyre::fuzz {

// The input as text.
std::string as_text(const uint8_t* data, size_t size);

// Writes the input to a scratch file of this process (under $TMPDIR, named
// with `suffix`, e.g. ".npy") and returns its path: for readers that take
// paths, as the CLI's do.
std::string scratch_file(const uint8_t* data, size_t size, const std::string& suffix);

// An empty scratch directory of this process, made afresh on each call.
std::string scratch_dir();

// Runs `read`; a SpyreError is the expected outcome of bad input.
void expect_clean_outcome(const std::function<void()>& read);

// Stops the process with a message: an invariant the input broke.
[[noreturn]] void finding(const std::string& what);

}  // namespace spyre::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
