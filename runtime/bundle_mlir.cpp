#include "runtime/bundle_mlir.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <memory>
#include <sstream>

#include "runtime/error.h"
#include "runtime/user_files.h"

namespace spyre {
namespace {

enum class Tok { Ident, Value, Symbol, Alias, Type, Number, String, Punct, Arrow, End };

struct Token {
  Tok kind = Tok::End;
  std::string text;
  int line = 0;
};

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$'; }

std::vector<Token> tokenize(const std::string& text, const std::string& file) {
  std::vector<Token> out;
  int line = 1;
  size_t i = 0;
  auto error = [&](const std::string& msg) { fail(file, "line " + std::to_string(line), msg); };
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '"') {
      size_t j = i + 1;
      while (j < text.size() && text[j] != '"' && text[j] != '\n') ++j;
      if (j >= text.size() || text[j] != '"') error("unterminated string");
      out.push_back({Tok::String, text.substr(i + 1, j - i - 1), line});
      i = j + 1;
    } else if (c == '%' || c == '@' || c == '#' || c == '!') {
      size_t j = i + 1;
      while (j < text.size() && ident_char(text[j])) ++j;
      if (j == i + 1) error(std::string("expected a name after '") + c + "'");
      const Tok kind = c == '%' ? Tok::Value : c == '@' ? Tok::Symbol : c == '#' ? Tok::Alias : Tok::Type;
      out.push_back({kind, text.substr(i + 1, j - i - 1), line});
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])))) ++j;
      out.push_back({Tok::Number, text.substr(i, j - i), line});
      i = j;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < text.size() && ident_char(text[j])) ++j;
      out.push_back({Tok::Ident, text.substr(i, j - i), line});
      i = j;
    } else if (c == '-' && i + 1 < text.size() && text[i + 1] == '>') {
      out.push_back({Tok::Arrow, "->", line});
      i += 2;
    } else if (std::string("(){}[]<>,=:+-*").find(c) != std::string::npos) {
      out.push_back({Tok::Punct, std::string(1, c), line});
      ++i;
    } else {
      error(std::string("unexpected character '") + c + "'");
    }
  }
  out.push_back({Tok::End, "", line});
  return out;
}

// Affine expressions of affine_map<(d0, ...)[s0, ...] -> (expr)>.
struct AffineExpr {
  enum Kind { Const, Dim, Sym, Add, Sub, Mul, FloorDiv, CeilDiv, Mod, Neg } kind = Const;
  int64_t value = 0;
  std::shared_ptr<AffineExpr> a, b;
};
using ExprPtr = std::shared_ptr<AffineExpr>;

struct AffineMap {
  std::vector<std::string> dims, syms;
  ExprPtr result;
};

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

struct Operation {
  enum Kind { Extract, Constant, Binary, Cast, Apply, Execute, For, Return } kind = Return;
  int line = 0;
  std::string result;
  std::string op;
  std::vector<std::string> operands;  // Apply: dim operands then symbol operands
  size_t dim_operands = 0;
  int64_t constant = 0;
  AffineMap map;
  std::string sdsc_file;
  std::vector<int64_t> symbol_ids;
  std::string iv;
  std::vector<Operation> body;
};

class Parser {
 public:
  Parser(std::vector<Token> tokens, std::string file) : toks_(std::move(tokens)), file_(std::move(file)) {}

  // Returns the function body; fills function name and argument names.
  std::vector<Operation> parse(BundleMlir& out) {
    bool have_function = false;
    std::vector<Operation> body;
    while (peek().kind != Tok::End) {
      const Token& t = peek();
      if (t.kind == Tok::Alias) {
        const std::string name = next().text;
        expect_punct("=");
        aliases_[name] = parse_affine_map_literal();
      } else if (t.kind == Tok::Ident && t.text == "module") {
        next();
        if (peek().kind == Tok::Symbol) next();
        if (peek().kind == Tok::Ident && peek().text == "attributes") {
          next();
          skip_balanced("{", "}");
        }
        expect_punct("{");
      } else if (t.kind == Tok::Ident && t.text == "func.func") {
        if (have_function) error(t.line, "more than one func.func in the bundle");
        have_function = true;
        body = parse_function(out);
      } else if (t.kind == Tok::Punct && t.text == "}") {
        next();
      } else {
        error(t.line, "unexpected '" + t.text + "' at top level");
      }
    }
    if (!have_function) error(peek().line, "no func.func found");
    return body;
  }

 private:
  const Token& peek(size_t ahead = 0) const { return toks_[std::min(pos_ + ahead, toks_.size() - 1)]; }
  Token next() {
    Token t = peek();
    if (pos_ < toks_.size() - 1) ++pos_;
    return t;
  }
  bool is_punct(const std::string& p) const { return peek().kind == Tok::Punct && peek().text == p; }
  bool accept_punct(const std::string& p) {
    if (!is_punct(p)) return false;
    next();
    return true;
  }
  void expect_punct(const std::string& p) {
    if (!accept_punct(p)) error(peek().line, "expected '" + p + "', found '" + describe(peek()) + "'");
  }
  std::string expect_value() {
    if (peek().kind != Tok::Value) error(peek().line, "expected an SSA value, found '" + describe(peek()) + "'");
    return next().text;
  }
  void expect_ident(const std::string& word) {
    if (peek().kind != Tok::Ident || peek().text != word)
      error(peek().line, "expected '" + word + "', found '" + describe(peek()) + "'");
    next();
  }
  static std::string describe(const Token& t) { return t.kind == Tok::End ? "end of file" : t.text; }
  [[noreturn]] void error(int line, const std::string& msg) const { fail(file_, "line " + std::to_string(line), msg); }

  int64_t parse_int() {
    bool negative = accept_punct("-");
    if (peek().kind != Tok::Number) error(peek().line, "expected an integer, found '" + describe(peek()) + "'");
    const Token t = next();
    int64_t v = 0;
    try {
      size_t used = 0;
      v = std::stoll(t.text, &used, 0);
      if (used != t.text.size()) throw 0;
    } catch (...) {
      error(t.line, "bad integer '" + t.text + "'");
    }
    return negative ? -v : v;
  }

  void skip_balanced(const std::string& open, const std::string& close) {
    expect_punct(open);
    int depth = 1;
    while (depth > 0) {
      if (peek().kind == Tok::End) error(peek().line, "unbalanced '" + open + "'");
      const Token t = next();
      if (t.kind == Tok::Punct && t.text == open) ++depth;
      if (t.kind == Tok::Punct && t.text == close) --depth;
    }
  }

  // Skips a type (or any trailing tokens) up to the end of the current line.
  void skip_to_line_end(int line) {
    while (peek().kind != Tok::End && peek().line == line && !is_punct("{") && !is_punct("}")) next();
  }

  // Skips a type in an argument list: up to ',' or ')' outside <...>/(...).
  void skip_arg_type() {
    int depth = 0;
    while (peek().kind != Tok::End) {
      if (depth == 0 && (is_punct(",") || is_punct(")"))) return;
      const Token t = next();
      if (t.kind == Tok::Punct && (t.text == "<" || t.text == "(" || t.text == "[" || t.text == "{")) ++depth;
      if (t.kind == Tok::Punct && (t.text == ">" || t.text == ")" || t.text == "]" || t.text == "}")) --depth;
    }
  }

  std::vector<Operation> parse_function(BundleMlir& out) {
    expect_ident("func.func");
    if (peek().kind != Tok::Symbol) error(peek().line, "expected the function name");
    out.function = next().text;
    expect_punct("(");
    if (!is_punct(")")) {
      do {
        out.arguments.push_back(expect_value());
        expect_punct(":");
        skip_arg_type();
      } while (accept_punct(","));
    }
    expect_punct(")");
    while (!is_punct("{")) {
      if (peek().kind == Tok::End) error(peek().line, "missing function body");
      if (peek().kind == Tok::Ident && peek().text == "attributes") {
        next();
        skip_balanced("{", "}");
        continue;
      }
      next();  // result types
    }
    return parse_block();
  }

  std::vector<Operation> parse_block() {
    expect_punct("{");
    std::vector<Operation> ops;
    while (!accept_punct("}")) {
      if (peek().kind == Tok::End) error(peek().line, "missing '}'");
      ops.push_back(parse_operation());
    }
    return ops;
  }

  Operation parse_operation() {
    Operation op;
    op.line = peek().line;
    if (peek().kind == Tok::Value) {
      op.result = next().text;
      expect_punct("=");
      if (peek().kind != Tok::Ident) error(op.line, "expected an operation name");
      const std::string name = next().text;
      if (name == "sdscbundle.input_arg_extract") {
        op.kind = Operation::Extract;
        if (peek().kind == Tok::Ident && peek().text == "value") next();
        if (peek().kind == Tok::Ident && peek().text == "from") next();
        op.operands.push_back(expect_value());
      } else if (name == "arith.constant") {
        op.kind = Operation::Constant;
        op.constant = parse_int();
      } else if (name == "arith.index_cast" || name == "arith.index_castui") {
        op.kind = Operation::Cast;
        op.operands.push_back(expect_value());
      } else if (name.rfind("arith.", 0) == 0) {
        op.kind = Operation::Binary;
        op.op = name.substr(6);
        static const std::vector<std::string> known = {"addi",  "subi",  "muli",       "divsi",    "divui",
                                                       "remsi", "remui", "floordivsi", "ceildivsi"};
        if (std::find(known.begin(), known.end(), op.op) == known.end())
          error(op.line, "unsupported operation '" + name + "'");
        op.operands.push_back(expect_value());
        expect_punct(",");
        op.operands.push_back(expect_value());
      } else if (name == "affine.apply") {
        op.kind = Operation::Apply;
        if (peek().kind == Tok::Alias) {
          const Token alias = next();
          auto it = aliases_.find(alias.text);
          if (it == aliases_.end()) error(alias.line, "unknown affine map #" + alias.text);
          op.map = it->second;
        } else {
          op.map = parse_affine_map_literal();
        }
        expect_punct("(");
        if (!is_punct(")")) {
          do op.operands.push_back(expect_value());
          while (accept_punct(","));
        }
        expect_punct(")");
        op.dim_operands = op.operands.size();
        if (accept_punct("[")) {
          if (!is_punct("]")) {
            do op.operands.push_back(expect_value());
            while (accept_punct(","));
          }
          expect_punct("]");
        }
        if (op.dim_operands != op.map.dims.size() || op.operands.size() - op.dim_operands != op.map.syms.size()) {
          error(op.line, "affine.apply operand count does not match its map");
        }
      } else {
        error(op.line, "unsupported operation '" + name + "'");
      }
      skip_to_line_end(op.line);
      return op;
    }
    if (peek().kind != Tok::Ident) error(op.line, "unexpected '" + describe(peek()) + "'");
    const std::string name = next().text;
    if (name == "sdscbundle.sdsc_execute") {
      op.kind = Operation::Execute;
      expect_punct("(");
      if (!is_punct(")")) {
        do op.operands.push_back(expect_value());
        while (accept_punct(","));
      }
      expect_punct(")");
      bool have_ids = false;
      if (accept_punct("{")) {
        while (!accept_punct("}")) {
          if (peek().kind != Tok::Ident && peek().kind != Tok::String) error(peek().line, "expected an attribute name");
          const std::string key = next().text;
          expect_punct("=");
          if (key == "sdsc_filename") {
            if (peek().kind != Tok::String) error(peek().line, "sdsc_filename must be a string");
            op.sdsc_file = next().text;
          } else if (key == "symbol_ids") {
            have_ids = true;
            expect_punct("[");
            if (!is_punct("]")) {
              do op.symbol_ids.push_back(parse_int());
              while (accept_punct(","));
            }
            expect_punct("]");
          } else {
            skip_attribute_value();
          }
          accept_punct(",");
        }
      }
      if (op.sdsc_file.empty()) error(op.line, "sdsc_execute without sdsc_filename");
      if (!have_ids && !op.operands.empty()) error(op.line, "sdsc_execute has operands but no symbol_ids");
      if (op.symbol_ids.size() != op.operands.size()) {
        error(op.line, std::to_string(op.operands.size()) + " operands for " + std::to_string(op.symbol_ids.size()) +
                           " symbol_ids");
      }
      return op;
    }
    if (name == "scf.for") {
      op.kind = Operation::For;
      op.iv = expect_value();
      expect_punct("=");
      op.operands.push_back(expect_value());
      expect_ident("to");
      op.operands.push_back(expect_value());
      expect_ident("step");
      op.operands.push_back(expect_value());
      if (accept_punct(":")) {
        while (!is_punct("{") && peek().kind != Tok::End) next();
      }
      op.body = parse_block();
      return op;
    }
    if (name == "return" || name == "func.return" || name == "scf.yield") {
      op.kind = Operation::Return;
      skip_to_line_end(op.line);
      return op;
    }
    error(op.line, "unsupported operation '" + name + "'");
  }

  void skip_attribute_value() {
    if (is_punct("[")) {
      skip_balanced("[", "]");
    } else if (is_punct("{")) {
      skip_balanced("{", "}");
    } else {
      accept_punct("-");
      next();
      if (accept_punct(":")) next();
    }
  }

  AffineMap parse_affine_map_literal() {
    expect_ident("affine_map");
    expect_punct("<");
    AffineMap map;
    expect_punct("(");
    if (!is_punct(")")) {
      do {
        if (peek().kind != Tok::Ident) error(peek().line, "expected a dimension name");
        map.dims.push_back(next().text);
      } while (accept_punct(","));
    }
    expect_punct(")");
    if (accept_punct("[")) {
      if (!is_punct("]")) {
        do {
          if (peek().kind != Tok::Ident) error(peek().line, "expected a symbol name");
          map.syms.push_back(next().text);
        } while (accept_punct(","));
      }
      expect_punct("]");
    }
    if (peek().kind != Tok::Arrow) error(peek().line, "expected '->' in affine_map");
    next();
    expect_punct("(");
    current_map_ = &map;
    map.result = parse_affine_sum();
    current_map_ = nullptr;
    if (is_punct(",")) error(peek().line, "unsupported: affine_map with several results");
    expect_punct(")");
    expect_punct(">");
    return map;
  }

  ExprPtr make(AffineExpr::Kind kind, ExprPtr a, ExprPtr b) {
    auto e = std::make_shared<AffineExpr>();
    e->kind = kind;
    e->a = std::move(a);
    e->b = std::move(b);
    return e;
  }

  ExprPtr parse_affine_sum() {
    ExprPtr left = parse_affine_product();
    while (is_punct("+") || is_punct("-")) {
      const bool add = next().text == "+";
      left = make(add ? AffineExpr::Add : AffineExpr::Sub, left, parse_affine_product());
    }
    return left;
  }

  ExprPtr parse_affine_product() {
    ExprPtr left = parse_affine_atom();
    while (true) {
      if (accept_punct("*")) {
        left = make(AffineExpr::Mul, left, parse_affine_atom());
      } else if (peek().kind == Tok::Ident &&
                 (peek().text == "floordiv" || peek().text == "ceildiv" || peek().text == "mod")) {
        const std::string word = next().text;
        const auto kind = word == "floordiv"  ? AffineExpr::FloorDiv
                          : word == "ceildiv" ? AffineExpr::CeilDiv
                                              : AffineExpr::Mod;
        left = make(kind, left, parse_affine_atom());
      } else {
        return left;
      }
    }
  }

  ExprPtr parse_affine_atom() {
    if (accept_punct("(")) {
      ExprPtr inner = parse_affine_sum();
      expect_punct(")");
      return inner;
    }
    if (accept_punct("-")) return make(AffineExpr::Neg, parse_affine_atom(), nullptr);
    auto e = std::make_shared<AffineExpr>();
    if (peek().kind == Tok::Number) {
      e->kind = AffineExpr::Const;
      e->value = parse_int();
      return e;
    }
    if (peek().kind == Tok::Ident) {
      const Token t = next();
      for (size_t i = 0; i < current_map_->dims.size(); ++i) {
        if (current_map_->dims[i] == t.text) {
          e->kind = AffineExpr::Dim;
          e->value = static_cast<int64_t>(i);
          return e;
        }
      }
      for (size_t i = 0; i < current_map_->syms.size(); ++i) {
        if (current_map_->syms[i] == t.text) {
          e->kind = AffineExpr::Sym;
          e->value = static_cast<int64_t>(i);
          return e;
        }
      }
      error(t.line, "unknown name '" + t.text + "' in affine expression");
    }
    error(peek().line, "bad affine expression at '" + describe(peek()) + "'");
  }

  std::vector<Token> toks_;
  size_t pos_ = 0;
  std::string file_;
  std::map<std::string, AffineMap> aliases_;
  const AffineMap* current_map_ = nullptr;
};

class Interpreter {
 public:
  Interpreter(std::string file, BundleMlir& out) : file_(std::move(file)), out_(out) {}

  void run(const std::vector<Operation>& ops, std::map<std::string, int64_t>& env) {
    for (const auto& op : ops) {
      switch (op.kind) {
        case Operation::Extract:
        case Operation::Cast:
          env[op.result] = value(env, op.operands[0], op.line);
          break;
        case Operation::Constant:
          env[op.result] = op.constant;
          break;
        case Operation::Binary:
          env[op.result] = binary(op, value(env, op.operands[0], op.line), value(env, op.operands[1], op.line));
          break;
        case Operation::Apply: {
          std::vector<int64_t> args;
          for (const auto& name : op.operands) args.push_back(value(env, name, op.line));
          env[op.result] = eval(*op.map.result, args, op.dim_operands, op.line);
          break;
        }
        case Operation::Execute: {
          SdscLaunch launch;
          launch.sdsc_file = op.sdsc_file;
          launch.line = op.line;
          launch.loop_body = loop_body_;
          for (size_t i = 0; i < op.operands.size(); ++i) {
            launch.symbols[op.symbol_ids[i]] = value(env, op.operands[i], op.line);
          }
          out_.launches.push_back(launch);
          if (out_.launches.size() > kMaxLaunches)
            error(op.line, "more than " + std::to_string(kMaxLaunches) + " SDSC launches after unrolling loops");
          break;
        }
        case Operation::For: {
          const int64_t lb = value(env, op.operands[0], op.line);
          const int64_t ub = value(env, op.operands[1], op.line);
          const int64_t step = value(env, op.operands[2], op.line);
          if (step <= 0) error(op.line, "scf.for step must be positive, got " + std::to_string(step));
          // One scope for the whole loop: each iteration redefines the body's
          // values (SSA), so the previous iteration's are overwritten, not seen.
          std::map<std::string, int64_t> scope = env;
          const int64_t enclosing_body = loop_body_;
          int64_t iv = lb;
          for (bool more = iv < ub; more; more = !__builtin_add_overflow(iv, step, &iv) && iv < ub) {
            if (++iterations_ > kMaxIterations)
              error(op.line, "more than " + std::to_string(kMaxIterations) + " scf.for iterations in all");
            scope[op.iv] = iv;
            loop_body_ = iterations_;
            run(op.body, scope);
          }
          loop_body_ = enclosing_body;
          break;
        }
        case Operation::Return:
          break;
      }
    }
  }

 private:
  static constexpr size_t kMaxLaunches = 1000000;
  // Loops that launch nothing still take time: bound the interpretation too.
  static constexpr int64_t kMaxIterations = 1000000;
  int64_t iterations_ = 0;
  int64_t loop_body_ = 0;  // the loop iteration being interpreted (SdscLaunch::loop_body)

  [[noreturn]] void error(int line, const std::string& msg) const { fail(file_, "line " + std::to_string(line), msg); }

  int64_t value(const std::map<std::string, int64_t>& env, const std::string& name, int line) const {
    auto it = env.find(name);
    if (it == env.end()) error(line, "use of undefined value %" + name);
    return it->second;
  }

  // a + b ('a'), a - b ('s') or a * b ('m'); addresses past 64 bits are bad input.
  int64_t exact(char op, int64_t a, int64_t b, int line, const std::string& where) const {
    int64_t r = 0;
    const bool overflow = op == 'a'   ? __builtin_add_overflow(a, b, &r)
                          : op == 's' ? __builtin_sub_overflow(a, b, &r)
                                      : __builtin_mul_overflow(a, b, &r);
    if (overflow) error(line, "64-bit overflow in " + where);
    return r;
  }

  int64_t binary(const Operation& op, int64_t a, int64_t b) const {
    const std::string& o = op.op;
    if (o == "addi" || o == "subi" || o == "muli") return exact(o[0], a, b, op.line, "arith." + o);
    if (b == 0) error(op.line, "division by zero in arith." + o);
    if ((a == INT64_MIN && b == -1) || (o == "ceildivsi" && a == INT64_MIN))
      error(op.line, "64-bit overflow in arith." + o);
    if (o == "divsi") return a / b;
    if (o == "divui") return static_cast<int64_t>(static_cast<uint64_t>(a) / static_cast<uint64_t>(b));
    if (o == "remsi") return a % b;
    if (o == "remui") return static_cast<int64_t>(static_cast<uint64_t>(a) % static_cast<uint64_t>(b));
    if (o == "floordivsi") return floor_div(a, b);
    return -floor_div(-a, b);  // ceildivsi
  }

  int64_t eval(const AffineExpr& e, const std::vector<int64_t>& args, size_t dims, int line) const {
    switch (e.kind) {
      case AffineExpr::Const:
        return e.value;
      case AffineExpr::Dim:
        return args[static_cast<size_t>(e.value)];
      case AffineExpr::Sym:
        return args[dims + static_cast<size_t>(e.value)];
      case AffineExpr::Neg:
        return exact('s', 0, eval(*e.a, args, dims, line), line, "affine map");
      default:
        break;
    }
    const int64_t a = eval(*e.a, args, dims, line);
    const int64_t b = eval(*e.b, args, dims, line);
    switch (e.kind) {
      case AffineExpr::Add:
        return exact('a', a, b, line, "affine map");
      case AffineExpr::Sub:
        return exact('s', a, b, line, "affine map");
      case AffineExpr::Mul:
        return exact('m', a, b, line, "affine map");
      default:
        break;
    }
    if (b == 0) error(line, "division by zero in affine map");
    if (a == INT64_MIN && (b == -1 || e.kind == AffineExpr::CeilDiv)) error(line, "64-bit overflow in affine map");
    if (e.kind == AffineExpr::FloorDiv) return floor_div(a, b);
    if (e.kind == AffineExpr::CeilDiv) return -floor_div(-a, b);
    const int64_t m = a % b;  // mod: result has the sign of the divisor
    return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m;
  }

  std::string file_;
  BundleMlir& out_;
};

}  // namespace

BundleMlir parse_bundle_mlir(const std::string& text, const std::string& file,
                             const std::function<int64_t(size_t)>& arg_value) {
  BundleMlir out;
  Parser parser(tokenize(text, file), file);
  std::vector<Operation> body = parser.parse(out);
  std::map<std::string, int64_t> env;
  for (size_t i = 0; i < out.arguments.size(); ++i) env[out.arguments[i]] = arg_value(i);
  Interpreter(file, out).run(body, env);
  return out;
}

BundleMlir read_bundle_mlir(const std::string& path, const std::function<int64_t(size_t)>& arg_value) {
  return parse_bundle_mlir(read_input_file(path), path, arg_value);
}

}  // namespace spyre
