// Replays fuzz inputs through a target without libFuzzer: what CI runs on
// the normal build. Arguments: DIR[:REGEX] ... — every regular file under DIR
// (recursively) whose name matches REGEX (default: all) is one input. Exits
// non-zero when a directory is missing or holds no input; a finding aborts.

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include "fuzz_support.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  for (int a = 1; a < argc; ++a) {
    std::string arg = argv[a], pattern = ".*";
    if (const auto colon = arg.find(':'); colon != std::string::npos) {
      pattern = arg.substr(colon + 1);
      arg = arg.substr(0, colon);
    }
    if (!fs::is_directory(arg)) {
      std::fprintf(stderr, "%s: no such directory\n", arg.c_str());
      return 1;
    }
    const std::regex name(pattern);
    std::vector<fs::path> inputs;
    for (const auto& entry : fs::recursive_directory_iterator(arg)) {
      if (entry.is_regular_file() && std::regex_match(entry.path().filename().string(), name))
        inputs.push_back(entry.path());
    }
    if (inputs.empty()) {
      std::fprintf(stderr, "%s: no file matches %s\n", arg.c_str(), pattern.c_str());
      return 1;
    }
    std::sort(inputs.begin(), inputs.end());
    for (const auto& path : inputs) {
      std::ifstream in(path, std::ios::binary);
      const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    }
    std::printf("%s: %zu inputs replayed\n", arg.c_str(), inputs.size());
  }
  return 0;
}
