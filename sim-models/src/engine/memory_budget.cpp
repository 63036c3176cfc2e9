#include "engine/memory_budget.hpp"

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace iosim {

namespace {

std::atomic<size_t> budget{0};
std::atomic<size_t> in_use{0};
std::atomic<int> paused{0};
std::atomic<int> working{0};

}  // namespace

void set_memory_budget(size_t bytes)
{
    budget.store(bytes, std::memory_order_relaxed);
}

size_t memory_in_use()
{
    return in_use.load(std::memory_order_relaxed);
}

BudgetedWork::BudgetedWork()
{
    working.fetch_add(1, std::memory_order_relaxed);
}

BudgetedWork::~BudgetedWork()
{
    working.fetch_sub(1, std::memory_order_relaxed);
}

BudgetPause::BudgetPause()
{
    paused.fetch_add(1, std::memory_order_relaxed);
}

BudgetPause::~BudgetPause()
{
    paused.fetch_sub(1, std::memory_order_relaxed);
}

}  // namespace iosim

// The replaceable global allocation functions: the array, nothrow and sized forms of the
// standard library call these two.
void* operator new(std::size_t n)
{
    size_t cap = iosim::budget.load(std::memory_order_relaxed);
    if (cap > 0 && iosim::in_use.load(std::memory_order_relaxed) + n > cap &&
        iosim::working.load(std::memory_order_relaxed) > 0 && iosim::paused.load(std::memory_order_relaxed) == 0)
        throw std::bad_alloc();
    void* p = std::malloc(n == 0 ? 1 : n);
    if (p == nullptr)
        throw std::bad_alloc();
    iosim::in_use.fetch_add(malloc_usable_size(p), std::memory_order_relaxed);
    return p;
}

void operator delete(void* p) noexcept
{
    if (p == nullptr)
        return;
    iosim::in_use.fetch_sub(malloc_usable_size(p), std::memory_order_relaxed);
    std::free(p);
}

void operator delete(void* p, std::size_t) noexcept
{
    operator delete(p);
}
