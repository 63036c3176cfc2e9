// What a simulation's planning may take from the heap: every C++ allocation of the process
// (the global operator new is replaced) is counted, and while a BudgetedWork lives one that
// would pass the budget throws std::bad_alloc, which the batch reports as "out of memory at
// the estimate ..." for the config that ran (batch.cpp). Outside it (reading input, writing
// the answer, SimGrid timing a phase: BudgetPause) nothing is refused: code that cannot take a
// refusal midway (the JSON library, SimGrid's engine) would abort. The process's address space
// is capped above the budget too (RLIMIT_AS), for what C libraries allocate with malloc.
#pragma once

#include <cstddef>

namespace iosim {

// 0: no budget.
void set_memory_budget(size_t bytes);
size_t memory_in_use();

// While one lives (and no BudgetPause), allocations beyond the budget are refused.
class BudgetedWork {
public:
    BudgetedWork();
    ~BudgetedWork();
    BudgetedWork(const BudgetedWork&) = delete;
    BudgetedWork& operator=(const BudgetedWork&) = delete;
};

// While one lives, allocations are counted but never refused: SimGrid's own (an actor's
// stack, its engine's state) must not fail in the middle of timing a phase.
class BudgetPause {
public:
    BudgetPause();
    ~BudgetPause();
    BudgetPause(const BudgetPause&) = delete;
    BudgetPause& operator=(const BudgetPause&) = delete;
};

}  // namespace iosim
