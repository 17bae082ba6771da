// dot.hpp — an e-graph as Graphviz text: each e-class a cluster of its e-nodes, an edge from an
// e-node to the class of each child (drawn to the cluster's first node, clipped at the cluster).
#pragma once

#include <functional>
#include <string>

#include "egraph/egraph.hpp"

namespace quasi::egraph {

// label(op) names an operator or leaf; the result is escaped here.
template <class A>
std::string to_dot(const EGraph<A>& eg, const std::function<std::string(Op)>& label) {
  auto esc = [](const std::string& s) {
    std::string o;
    for (char c : s) {
      if (c == '"' || c == '\\') o += '\\';
      o += c;
    }
    return o;
  };
  std::string out = "digraph egraph {\n  compound=true;\n  clusterrank=local;\n";
  eg.for_each_class([&](const auto& c) {
    out += "  subgraph cluster_" + std::to_string(c.id) + " {\n    style=dotted;\n    label=\"" +
           std::to_string(c.id) + "\";\n";
    for (size_t i = 0; i < c.nodes.size(); i++)
      out += "    n" + std::to_string(c.id) + "_" + std::to_string(i) + " [label=\"" +
             esc(label(c.nodes[i].op)) + "\"];\n";
    out += "  }\n";
  });
  eg.for_each_class([&](const auto& c) {
    for (size_t i = 0; i < c.nodes.size(); i++) {
      const ENode& n = c.nodes[i];
      for (size_t k = 0; k < n.arity(); k++) {
        Id child = eg.find(n[k]);
        out += "  n" + std::to_string(c.id) + "_" + std::to_string(i) + " -> n" + std::to_string(child) +
               "_0 [lhead=cluster_" + std::to_string(child) + ", label=" + std::to_string(k) + "];\n";
      }
    }
  });
  return out + "}\n";
}

}  // namespace quasi::egraph
