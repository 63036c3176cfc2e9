#include "fs/client_range_locks.hpp"

#include <algorithm>

namespace iosim {

void ClientRangeLocks::write(int client, int process, uint64_t offset, uint64_t end)
{
    if (page_bytes_ == 0 || end <= offset)
        return;
    linked_.push_back(false);
    if (offset % page_bytes_ != 0)
        share(client, process, offset / page_bytes_);
    if (end % page_bytes_ != 0 && (end - 1) / page_bytes_ != offset / page_bytes_)
        share(client, process, (end - 1) / page_bytes_);
}

void ClientRangeLocks::share(int client, int process, uint64_t page)
{
    uint64_t call = linked_.size() - 1;
    auto [writer, fresh] = first_writer_.try_emplace(page, PageWriter{client, process, call});
    if (fresh || writer->client != client || writer->process == process)
        return;
    count(client, writer->call);
    count(client, call);
}

void ClientRangeLocks::count(int client, uint64_t call)
{
    if (linked_[call])
        return;
    linked_[call] = true;
    if (static_cast<size_t>(client) >= chain_.size())
        chain_.resize(static_cast<size_t>(client) + 1, 0);
    longest_chain_ = std::max(longest_chain_, ++chain_[static_cast<size_t>(client)]);
}

void ClientRangeLocks::end_phase()
{
    first_writer_.clear();
    linked_.clear();
    std::fill(chain_.begin(), chain_.end(), 0);
    longest_chain_ = 0;
}

}  // namespace iosim
