// The targets of a striping in stripe order, and moving a target along them: a shared file's
// repetition that writes `places` stripes further than another lands on the targets of that
// other moved by `places` (a plain layout's stripe i on target cycle[i mod count]), so the two
// are the same up to that renaming of targets, which are interchangeable.
#pragma once

#include <cstdint>
#include <vector>

namespace iosim {

struct TargetRotation {
    std::vector<int> cycle;  // the targets in stripe order (empty: no rotation)
    std::vector<int> place;  // target -> its place in cycle, -1 if not in it
    uint64_t per_step = 0;   // places one step moves (a planner period, or a client block)

    bool none() const { return cycle.empty() || per_step % cycle.size() == 0; }
    // `target` moved `steps` steps on (negative: back).
    int moved(int target, long long steps) const
    {
        if (cycle.empty() || target < 0 || static_cast<size_t>(target) >= place.size() || place[target] < 0)
            return target;
        auto n = static_cast<long long>(cycle.size());
        long long by = static_cast<long long>(per_step % cycle.size()) * (steps % n) % n;
        return cycle[static_cast<size_t>(((place[target] + by) % n + n) % n)];
    }
    // Steps after which every target is back (the orbit of one step).
    uint64_t orbit() const
    {
        if (cycle.empty())
            return 1;
        uint64_t n = cycle.size(), r = per_step % n, a = n, b = r;
        while (b != 0) {
            uint64_t t = a % b;
            a = b;
            b = t;
        }
        return r == 0 ? 1 : n / a;
    }
};

// A rotation along `cycle` of `per_step` places a step.
inline TargetRotation rotation_along(const std::vector<int>& cycle, uint64_t per_step, int targets)
{
    TargetRotation r;
    r.cycle = cycle;
    r.per_step = per_step;
    r.place.assign(static_cast<size_t>(targets), -1);
    for (size_t i = 0; i < cycle.size(); i++)
        if (cycle[i] >= 0 && cycle[i] < targets)
            r.place[static_cast<size_t>(cycle[i])] = static_cast<int>(i);
    return r;
}

}  // namespace iosim
