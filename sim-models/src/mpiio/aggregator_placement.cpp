#include "mpiio/aggregator_placement.hpp"

#include <algorithm>
#include <map>

namespace iosim {

std::vector<int> aggregator_candidates(const std::vector<int>& node_of_writer, int per_node,
                                       AggregatorPlacement placement)
{
    std::map<int, std::vector<int>> by_node;  // node -> its first `per_node` writers, rank order
    std::vector<int> node_order;              // nodes in the order their first writer comes
    for (size_t w = 0; w < node_of_writer.size(); w++) {
        auto& list = by_node[node_of_writer[w]];
        if (list.empty())
            node_order.push_back(node_of_writer[w]);
        if (static_cast<int>(list.size()) < per_node)
            list.push_back(static_cast<int>(w));
    }
    std::vector<int> out;
    out.reserve(std::min<size_t>(node_of_writer.size(), node_order.size() * static_cast<size_t>(std::max(1, per_node))));
    if (placement == AggregatorPlacement::packed) {
        for (int node : node_order)
            for (int w : by_node[node])
                out.push_back(w);
        return out;
    }
    // spread: the k-th writer of every node before any node's (k+1)-th
    for (size_t k = 0;; k++) {
        size_t before = out.size();
        for (int node : node_order) {
            const auto& list = by_node[node];
            if (k < list.size())
                out.push_back(list[k]);
        }
        if (out.size() == before)
            return out;
    }
}

}  // namespace iosim
