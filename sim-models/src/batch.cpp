#include "batch.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "simulate.hpp"

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

json simulate_config(Scenario& scenario, Backend& backend, PhaseCache& cache, const json& config)
{
    try {
        return scenario.simulate(backend, cache, config);
    } catch (const std::bad_alloc&) {
        // iosim holds a write call's pieces (each rank's contiguous runs) in memory at once.
        return error_entry("out of memory: a write call of this workload has more pieces (ranks x "
                           "contiguous runs per rank) than this machine can hold; IOSIM.md, "
                           "'What the simulation costs'");
    } catch (const std::exception& e) {
        return error_entry(e.what());
    }
}

[[noreturn]] void worker_main(const json& input, WorkerChannel channel)
{
    const json& configs = input.at("configs");
    uint64_t index = 0;
    try {
        Scenario scenario(input);
        run_simgrid(scenario.platform(), scenario.nodes(), [&](Backend& backend) {
            PhaseCache cache;
            while (channel.next(index))
                channel.reply(index, simulate_config(scenario, backend, cache, configs.at(index)));
        });
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
};

class WorkerPool {
public:
    WorkerPool(const json& input, std::vector<json>& results) : input_(input), results_(results) {}

    void run(int jobs)
    {
        size_t wanted = std::min<size_t>(std::max(1, jobs), results_.size());
        for (size_t i = 0; i < wanted; i++)
            start_worker();
        while (!workers_.empty())
            serve_one_reply();
    }

private:
    void start_worker()
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
            worker_main(input_, WorkerChannel(requests[0], replies[1]));
        }
        close(requests[0]);
        close(replies[1]);
        if (pid < 0) {
            close(requests[1]);
            close(replies[0]);
            fail_rest("fork failed");
            return;
        }
        workers_.push_back({pid, requests[1], replies[0], std::nullopt});
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
        if (WIFSIGNALED(status))
            results_[*w.running] = error_entry("simulation crashed (signal " + std::to_string(WTERMSIG(status)) + ")");
        else
            results_[*w.running] = error_entry("simulation produced no result (exit status " +
                                               std::to_string(WEXITSTATUS(status)) + ")");
        if (next_ < results_.size())
            start_worker();
    }

    void fail_rest(const std::string& message)
    {
        for (; next_ < results_.size(); next_++)
            results_[next_] = error_entry(message);
    }

    const json& input_;
    std::vector<json>& results_;
    std::vector<Worker> workers_;
    size_t next_ = 0;
};

}  // namespace

json simulate_batch(const json& input, int jobs)
{
    std::vector<json> results(input.at("configs").size());
    // A worker that dies must not take the batch with it through a write to its pipe.
    signal(SIGPIPE, SIG_IGN);
    WorkerPool(input, results).run(jobs);
    return {{"results", results}};
}

}  // namespace iosim
