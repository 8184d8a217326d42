//===- ExplainCommand.cpp - intentc explain FILE ---------------------------===//
//
// Compiles each selected kernel to the provider stage in memory (no cache, no
// files written) and prints the explain record: the structural family and the
// facts that chose it, every declared physical parameter, every profile row with
// its source, requested values, bound values or rejection class and reason, and
// the number of candidates (spec/tuning.md sections 4 and 5).
//
//===----------------------------------------------------------------------===//
#include "intent/CLI/Commands.h"
#include "intent/CLI/RequestOptions.h"
#include "intent/Driver/Driver.h"

#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>
#include <algorithm>
#include <iostream>
#include <map>
#include <sstream>

using namespace intent;
using json = nlohmann::ordered_json;

namespace {
struct ExplainOptions : cli::RequestOptions {
  bool json = false;
};

std::string scalar(const json &v) {
  if (v.is_string())
    return v.get<std::string>();
  if (v.is_null())
    return "-";
  return v.dump();
}

/// "{1, 2, 4}" for an integer array, the text for a string ("bound at launch").
std::string domainText(const json &d) {
  if (!d.is_array())
    return scalar(d);
  std::string s = "{";
  for (size_t i = 0; i < d.size(); ++i)
    s += (i ? ", " : "") + scalar(d[i]);
  return s + "}";
}

/// "k=v k=v" of an object.
std::string bindingText(const json &o) {
  std::string s;
  for (auto it = o.begin(); it != o.end(); ++it)
    s += (s.empty() ? "" : " ") + it.key() + "=" + scalar(it.value());
  return s;
}

/// "[v, v, ...]" of an object's values in order.
std::string valuesText(const json &o) {
  std::string s = "[";
  bool first = true;
  for (auto it = o.begin(); it != o.end(); ++it) {
    s += (first ? "" : ", ") + scalar(it.value());
    first = false;
  }
  return s + "]";
}

/// Prints rows of cells with columns padded to their widest cell.
void printTable(std::ostream &os, const std::string &indent,
                const std::vector<std::vector<std::string>> &rows) {
  std::vector<size_t> width;
  for (const auto &r : rows)
    for (size_t c = 0; c < r.size(); ++c) {
      if (width.size() <= c)
        width.push_back(0);
      width[c] = std::max(width[c], r[c].size());
    }
  for (const auto &r : rows) {
    std::string line = indent;
    for (size_t c = 0; c < r.size(); ++c) {
      line += r[c];
      if (c + 1 < r.size())
        line += std::string(width[c] - r[c].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    os << line << "\n";
  }
}

void printHuman(std::ostream &os, const std::string &name, const json &ex) {
  os << "kernel " << name << "\n";
  os << "  family: " << scalar(ex.value("family", json())) << " (structure "
     << scalar(ex.value("structure", json())) << ")\n";
  os << "  facts:\n";
  for (const json &f : ex.value("facts", json::array()))
    os << "    - " << scalar(f) << "\n";
  os << "  parameters:\n";
  std::vector<std::vector<std::string>> pt{{"symbol", "role", "kind", "column", "domain"}};
  for (const json &p : ex.value("parameters", json::array()))
    pt.push_back({scalar(p.value("symbol", json())), scalar(p.value("role", json())),
                  scalar(p.value("kind", json())), scalar(p.value("column", json())),
                  domainText(p.value("domain", json()))});
  printTable(os, "    ", pt);
  const json rows = ex.value("rows", json::array());
  os << "  rows (" << rows.size() << "):\n";
  std::vector<std::vector<std::string>> rt{{"source", "index", "requested", "status", "bound / reason"}};
  for (const json &r : rows) {
    std::string status = scalar(r.value("status", json()));
    std::string detail;
    if (status == "kept" || status == "unknown")
      detail = bindingText(r.value("bound", json::object()));
    if (r.contains("reason"))
      detail += (detail.empty() ? "" : "; ") + scalar(r["reason"]);
    rt.push_back({scalar(r.value("source", json())), scalar(r.value("index", json())),
                  valuesText(r.value("requested", json::object())), status, detail});
  }
  printTable(os, "    ", rt);
  os << "  candidates: " << scalar(ex.value("candidates", json(0))) << "\n";
}
} // namespace

cli::Action cli::registerExplain(CLI::App &app) {
  auto o = std::make_shared<ExplainOptions>();
  cli::addRequestOptions(app, *o, "Explain only this kernel");
  app.add_flag("--json", o->json, "Print the explain records as JSON");
  return [o]() {
    driver::CompileRequest req;
    if (!cli::buildRequest(*o, req))
      return 1;
    req.stage = driver::Stage::Provider; // in memory: no cache, no files
    req.keepFailedKernels = true;
    driver::Environment env{driver::defaultConfigDir()};
    driver::CompileResult res = driver::compile(req, env, nullptr);

    json kernels = json::array();
    std::vector<std::pair<std::string, json>> records;
    for (const auto &k : res.kernels) {
      json ex = k.explainJson.empty() ? json()
                                      : json::parse(k.explainJson, nullptr, /*exceptions=*/false);
      if (ex.is_discarded() || ex.is_null()) {
        if (k.family.empty())
          continue; // failed before a family was chosen; the diagnostic says why
        // No tuning table involved (e.g. --target reference): one fixed program.
        ex = json{{"kernel", k.name}, {"family", k.family}, {"structure", k.family},
                  {"facts", json::array()}, {"parameters", json::array()},
                  {"rows", json::array()}, {"candidates", k.candidates}};
      }
      records.emplace_back(k.name, ex);
      kernels.push_back(ex);
    }
    if (o->json) {
      std::cout << json{{"kernels", kernels}}.dump(2) << "\n";
    } else {
      for (size_t i = 0; i < records.size(); ++i) {
        if (i)
          std::cout << "\n";
        printHuman(std::cout, records[i].first, records[i].second);
      }
    }
    std::cout.flush();
    llvm::errs() << res.diagnostics;
    return res.ok ? 0 : 1;
  };
}
