#include "runtime/error.h"

namespace spyre {

void fail(const std::string& file, const std::string& where, const std::string& reason) {
  std::string message;
  if (!file.empty()) message += file + ": ";
  if (!where.empty()) message += where + ": ";
  message += reason;
  throw SpyreError(message);
}

}  // namespace spyre
