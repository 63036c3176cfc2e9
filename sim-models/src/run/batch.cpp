#include "run/batch.hpp"

#include <poll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/memory_budget.hpp"
#include "run/simulate.hpp"

namespace iosim {

using nlohmann::json;

namespace {

// All n bytes through read or write, which may move fewer at a time; false on end or error.
template <typename Buffer>
bool transfer_all(ssize_t (*io)(int, Buffer, size_t), int fd, Buffer buf, size_t n)
{
    using Byte = std::conditional_t<std::is_const_v<std::remove_pointer_t<Buffer>>, const char, char>;
    auto* p = static_cast<Byte*>(buf);
    while (n > 0) {
        ssize_t moved = io(fd, p, n);
        if (moved <= 0)
            return false;
        p += moved;
        n -= static_cast<size_t>(moved);
    }
    return true;
}

bool read_exact(int fd, void* buf, size_t n)
{
    return transfer_all<void*>(read, fd, buf, n);
}

bool write_exact(int fd, const void* buf, size_t n)
{
    return transfer_all<const void*>(write, fd, buf, n);
}

json error_entry(const std::string& message)
{
    return {{"ok", false}, {"error", message}};
}

// The worker's side of its two pipes: config indices in, (index, length, JSON) out.
class WorkerChannel {
public:
    WorkerChannel(int requests, int replies) : requests_(requests), replies_(replies) {}

    bool next(uint64_t& index) { return read_exact(requests_, &index, sizeof index); }

    void reply(uint64_t index, const json& result)
    {
        std::string text = result.dump();
        uint64_t length = text.size();
        if (!write_exact(replies_, &index, sizeof index) || !write_exact(replies_, &length, sizeof length) ||
            !write_exact(replies_, text.data(), text.size()))
            _exit(1);
    }

private:
    int requests_, replies_;
};

std::string out_of_memory(const CostEstimate& estimate, const Limits& limits)
{
    std::string cap = limits.memory_bytes > 0 ? bytes_text(static_cast<double>(limits.memory_bytes)) : "none";
    return "out of memory at the estimate " + estimate.text() + " (memory limit " + cap +
           "; raise it with iosim --memory-limit or options.memory_limit)";
}

// Where each worker leaves the estimate of the config it runs, for its parent to report if
// the worker dies (a library that runs out of memory may crash instead of throwing).
class EstimateBoard {
public:
    static constexpr size_t slot_bytes = 1024;
    explicit EstimateBoard(size_t slots) : slots_(slots)
    {
        void* p = mmap(nullptr, slots * slot_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        board_ = p == MAP_FAILED ? nullptr : static_cast<char*>(p);
        if (board_)
            std::memset(board_, 0, slots * slot_bytes);
    }
    ~EstimateBoard()
    {
        if (board_)
            munmap(board_, slots_ * slot_bytes);
    }
    EstimateBoard(const EstimateBoard&) = delete;
    EstimateBoard& operator=(const EstimateBoard&) = delete;
    void post(size_t slot, const std::string& text)
    {
        if (!board_ || slot >= slots_)
            return;
        std::strncpy(board_ + slot * slot_bytes, text.c_str(), slot_bytes - 1);
    }
    std::string read(size_t slot) const
    {
        if (!board_ || slot >= slots_)
            return "";
        return std::string(board_ + slot * slot_bytes, strnlen(board_ + slot * slot_bytes, slot_bytes));
    }

private:
    size_t slots_;
    char* board_ = nullptr;
};

// The answer of a config whose layout or simulation threw, called where it is caught (the
// exception rethrown to tell which): out of memory at the config's estimate, or its message.
json refusal(const Scenario& scenario)
{
    try {
        throw;
    } catch (const std::bad_alloc&) {
        return error_entry(out_of_memory(scenario.estimate(), scenario.limits()));
    } catch (const std::exception& e) {
        return error_entry(e.what());
    }
}

json simulate_config(Scenario& scenario, Backend& backend, PhaseCache& cache)
{
    try {
        return scenario.simulate(backend, cache);
    } catch (const std::exception&) {
        cache.clear();  // room to write the answer
        return refusal(scenario);
    }
}

// The memory limit of a worker: the input's options.memory_limit over the command line's.
uint64_t memory_cap(const json& input, const Limits& limits)
{
    const json& options = input.value("options", json::object());
    if (options.contains("memory_limit") && options["memory_limit"].is_number_unsigned())
        return options["memory_limit"].get<uint64_t>();
    return limits.memory_bytes;
}

// The worker's heap budgeted (memory_budget.hpp): an allocation beyond it throws
// std::bad_alloc and the config gets a clear error, instead of the machine's kernel killing
// the process. Its address space is capped a little above, for the C libraries (HDF5's
// mallocs), whose failures crash the worker instead (reported with the estimate).
constexpr uint64_t address_space_headroom = uint64_t{1} << 30;

void cap_memory(const json& input, const Limits& limits)
{
    uint64_t cap = memory_cap(input, limits);
    if (cap == 0)
        return;
    set_memory_budget(cap);
    rlim_t space = static_cast<rlim_t>(cap + address_space_headroom);
    rlimit limit{space, space};
    setrlimit(RLIMIT_AS, &limit);
}

// The worker's death as its child's: the batch reports a crashed config as it always has.
[[noreturn]] void end_as(int status)
{
    if (WIFSIGNALED(status)) {
        signal(WTERMSIG(status), SIG_DFL);
        raise(WTERMSIG(status));
    }
    _exit(WIFEXITED(status) && WEXITSTATUS(status) != 0 ? WEXITSTATUS(status) : 1);
}

// The child a config went on in, waited for: its death is the worker's.
void wait_for(pid_t child)
{
    int status = 0;
    while (waitpid(child, &status, 0) < 0)
        if (errno != EINTR)
            _exit(1);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        end_as(status);
}

// Thrown in the worker where a config it simulates needs the engine's clock: the config goes
// on in a child forked there, and the worker unwinds it to wait for the child.
struct HandedToChild {
    pid_t child;
};

// A config is simulated in the worker, which stays as it was after building the engine: at
// simulated time zero, with an empty phase cache. A phase's seconds are differences of
// SimGrid's clock, whose rounding grows with the time simulated before, and a phase timed for
// one config would answer the next from cache: a config whose phases need the clock (most are
// timed in closed form and never move it) is forked to a child at its first such phase, so
// that its answer is the one it gets alone, whatever the batch, the order or the number of
// workers, and the clock the worker keeps stays at zero. The phase cache is each config's own.
// Forking every config cost 2-3 ms of page tables and faults each (more than a small config's
// whole simulation). The file layouts are kept from config to config: the worker lays out
// each config (its settings, estimate and files' layouts; a config refused there is answered
// at once) and keeps the layouts for later configs (a layout is the same whoever computes it,
// and costs HDF5 a file written and removed).
void simulate_one(Scenario& scenario, Backend& backend, const json& config, uint64_t index,
                  WorkerChannel& channel, EstimateBoard& board, size_t slot)
{
    board.post(slot, "");
    try {
        scenario.lay_out(config, [&](const CostEstimate& e) { board.post(slot, e.text()); });
    } catch (const std::exception&) {
        return channel.reply(index, refusal(scenario));
    }
    bool forked = false;
    backend.before_clock_moves = [&forked]() {
        if (forked)
            return;
        forked = true;
        fflush(nullptr);
        pid_t pid = fork();
        if (pid != 0)
            throw HandedToChild{pid};  // the worker (or no child: pid < 0)
    };
    try {
        PhaseCache cache;
        json answer = simulate_config(scenario, backend, cache);
        channel.reply(index, answer);
    } catch (const HandedToChild& handed) {
        backend.before_clock_moves = nullptr;
        if (handed.child < 0)
            return channel.reply(index, error_entry("fork failed"));
        return wait_for(handed.child);
    }
    if (forked)
        _exit(0);  // the child: its config answered
    backend.before_clock_moves = nullptr;
}

[[noreturn]] void worker_main(const json& input, const Limits& limits, WorkerChannel channel, EstimateBoard& board,
                              size_t slot)
{
    const json& configs = input.at("configs");
    uint64_t index = 0;
    cap_memory(input, limits);
    try {
        Scenario scenario(input, limits);
        run_simgrid(scenario.platform(), scenario.nodes(), [&](Backend& backend) {
            while (channel.next(index))
                simulate_one(scenario, backend, configs.at(index), index, channel, board, slot);
        });
    } catch (const std::bad_alloc&) {  // reading the workload
        std::string message = out_of_memory(estimate_workload(input.at("workload")), limits);
        while (channel.next(index))
            channel.reply(index, error_entry(message));
    } catch (const std::exception& e) {
        // A bad platform, workload or options: every config gets the error.
        std::string message = e.what();
        while (channel.next(index))
            channel.reply(index, error_entry(message));
    }
    _exit(0);  // no library teardown: HDF5 and SimGrid state die with the process
}

struct Worker {
    pid_t pid = -1;
    int requests = -1;  // parent writes config indices
    int replies = -1;   // parent reads results
    std::optional<uint64_t> running;
    size_t slot = 0;  // on the estimate board
};

class WorkerPool {
public:
    WorkerPool(const json& input, const Limits& limits, std::vector<json>& results, size_t jobs)
        : input_(input), limits_(limits), results_(results), board_(jobs)
    {
    }

    void run(int jobs)
    {
        size_t wanted = std::min<size_t>(std::max(1, jobs), results_.size());
        for (size_t i = 0; i < wanted; i++)
            start_worker(i);
        while (!workers_.empty())
            serve_one_reply();
    }

private:
    void start_worker(size_t slot)
    {
        int requests[2], replies[2];
        if (pipe(requests) != 0 || pipe(replies) != 0) {
            fail_rest("cannot create pipes for a simulation worker");
            return;
        }
        fflush(nullptr);
        pid_t pid = fork();
        if (pid == 0) {
            // The other workers' pipe ends must close here too, or they never see end-of-file.
            for (const Worker& w : workers_) {
                close(w.requests);
                close(w.replies);
            }
            close(requests[1]);
            close(replies[0]);
            worker_main(input_, limits_, WorkerChannel(requests[0], replies[1]), board_, slot);
        }
        close(requests[0]);
        close(replies[1]);
        if (pid < 0) {
            close(requests[1]);
            close(replies[0]);
            fail_rest("fork failed");
            return;
        }
        workers_.push_back({pid, requests[1], replies[0], std::nullopt, slot});
        hand_next(workers_.back());
    }

    // Gives the worker the next config, or lets it finish.
    void hand_next(Worker& w)
    {
        w.running.reset();
        if (next_ < results_.size()) {
            uint64_t index = next_++;
            w.running = index;
            if (write_exact(w.requests, &index, sizeof index))
                return;
        }
        close(w.requests);
        w.requests = -1;
    }

    void serve_one_reply()
    {
        std::vector<pollfd> fds;
        for (const Worker& w : workers_)
            fds.push_back({w.replies, POLLIN, 0});
        if (poll(fds.data(), fds.size(), -1) < 0)
            return;  // interrupted: poll again
        for (size_t i = fds.size(); i-- > 0;)
            if (fds[i].revents != 0)
                read_reply(i);
    }

    void read_reply(size_t i)
    {
        Worker& w = workers_[i];
        uint64_t index = 0, length = 0;
        if (read_exact(w.replies, &index, sizeof index) && read_exact(w.replies, &length, sizeof length) &&
            w.running == index) {
            std::string text(length, '\0');
            if (read_exact(w.replies, text.data(), length)) {
                results_[index] = json::parse(text);
                hand_next(w);
                return;
            }
        }
        retire(i);
    }

    // The worker has ended (all done, or crashed): its running config gets the reason, and a
    // replacement takes over the configs still waiting.
    void retire(size_t i)
    {
        Worker w = workers_[i];
        workers_.erase(workers_.begin() + static_cast<long>(i));
        close(w.replies);
        if (w.requests >= 0)
            close(w.requests);
        int status = 0;
        waitpid(w.pid, &status, 0);
        if (!w.running)
            return;
        std::string estimate = board_.read(w.slot);
        std::string at = estimate.empty() ? "" : " at the estimate " + estimate;
        uint64_t cap = memory_cap(input_, limits_);
        if (cap > 0)
            at += " (memory limit " + bytes_text(static_cast<double>(cap)) + ")";
        if (WIFSIGNALED(status))
            results_[*w.running] =
                error_entry("simulation crashed (signal " + std::to_string(WTERMSIG(status)) + ")" + at);
        else
            results_[*w.running] = error_entry("simulation produced no result (exit status " +
                                               std::to_string(WEXITSTATUS(status)) + ")" + at);
        if (next_ < results_.size())
            start_worker(w.slot);
    }

    void fail_rest(const std::string& message)
    {
        for (; next_ < results_.size(); next_++)
            results_[next_] = error_entry(message);
    }

    const json& input_;
    Limits limits_;
    std::vector<json>& results_;
    EstimateBoard board_;
    std::vector<Worker> workers_;
    size_t next_ = 0;
};

}  // namespace

json simulate_batch(const json& input, int jobs, const Limits& limits)
{
    std::vector<json> results(input.at("configs").size());
    // A worker that dies must not take the batch with it through a write to its pipe.
    signal(SIGPIPE, SIG_IGN);
    WorkerPool(input, limits, results, static_cast<size_t>(std::max(1, jobs))).run(jobs);
    return {{"results", results}};
}

}  // namespace iosim
