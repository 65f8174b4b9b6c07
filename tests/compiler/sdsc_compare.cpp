#include "sdsc_compare.h"

#include <map>
#include <nlohmann/json.hpp>

namespace spyre::test {

namespace {

Json rename(const Json& j, const std::map<std::string, std::string>& names) {
  auto name = [&](const std::string& s) {
    auto it = names.find(s);
    return it == names.end() ? s : it->second;
  };
  if (j.is_object()) {
    Json out = Json::object();
    for (auto it = j.begin(); it != j.end(); ++it) out[name(it.key())] = rename(it.value(), names);
    return out;
  }
  if (j.is_array()) {
    Json out = Json::array();
    for (const auto& x : j) out.push_back(rename(x, names));
    return out;
  }
  if (j.is_string()) return name(j.get<std::string>());
  return j;
}

void compare(const Json& want, const Json& got, const std::string& path, const std::set<std::string>& extra,
             const std::set<std::string>& ignored, std::vector<std::string>& out) {
  if (want.is_object() && got.is_object()) {
    for (auto it = want.begin(); it != want.end(); ++it) {
      if (ignored.count(it.key())) continue;
      if (!got.contains(it.key())) {
        out.push_back(path + "." + it.key() + ": missing");
      } else {
        compare(it.value(), got[it.key()], path + "." + it.key(), extra, ignored, out);
      }
    }
    for (auto it = got.begin(); it != got.end(); ++it) {
      if (!want.contains(it.key()) && !extra.count(it.key()) && !ignored.count(it.key()))
        out.push_back(path + "." + it.key() + ": unexpected field");
    }
    return;
  }
  if (want.is_array() && got.is_array()) {
    if (want.size() != got.size()) {
      out.push_back(path + ": " + std::to_string(got.size()) + " entries, expected " + std::to_string(want.size()));
      return;
    }
    for (size_t i = 0; i < want.size(); ++i)
      compare(want[i], got[i], path + "[" + std::to_string(i) + "]", extra, ignored, out);
    return;
  }
  // "{}" and {} are both SuperDSC's empty constantInfo_.
  const bool empty_want = (want.is_string() && want == "{}") || (want.is_object() && want.empty());
  const bool empty_got = (got.is_string() && got == "{}") || (got.is_object() && got.empty());
  if (empty_want && empty_got) return;
  if (want != got) out.push_back(path + ": " + got.dump() + ", expected " + want.dump());
}

}  // namespace

Json canonical_sdsc(const Json& sdsc) {
  const std::string top = sdsc.begin().key();
  const Json& body = sdsc.begin().value();
  const Json& dsc = body["dscs_"][0].begin().value();
  std::map<std::string, std::string> names;
  int i = 0;
  for (auto it = dsc["N_"].begin(); it != dsc["N_"].end(); ++it) {
    if (it.key() == "name_") continue;
    const std::string dim = it.key().substr(0, it.key().size() - 1);
    const std::string canonical = "d" + std::to_string(i++);
    names[dim] = canonical;
    names[dim + "_"] = canonical + "_";
  }
  int l = 0;
  for (const auto& t : dsc["labeledDs_"]) {
    const std::string label = t["dsType_"].get<std::string>();
    if (!names.count(label)) names[label] = "L" + std::to_string(l++);
  }
  const auto underscore = top.find('_');
  const std::string op = underscore != std::string::npos && std::isdigit(static_cast<unsigned char>(top[0]))
                             ? top.substr(underscore + 1)
                             : top;
  return Json{{op, rename(body, names)}};
}

std::vector<std::string> sdsc_differences(const Json& expected, const Json& got,
                                          const std::set<std::string>& allowed_extra,
                                          const std::set<std::string>& ignored) {
  std::vector<std::string> out;
  compare(canonical_sdsc(expected), canonical_sdsc(got), "$", allowed_extra, ignored, out);
  return out;
}

}  // namespace spyre::test
