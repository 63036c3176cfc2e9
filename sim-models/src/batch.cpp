#include "batch.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>

#include "simulate.hpp"

namespace iosim {

using nlohmann::json;

namespace {

struct Child {
    size_t index;
    FILE* out;
};

[[noreturn]] void run_child(const json& input, FILE* out)
{
    json result;
    try {
        result = simulate_one(input);
    } catch (const std::exception& e) {
        result = {{"ok", false}, {"error", e.what()}};
    }
    std::string text = result.dump();
    fwrite(text.data(), 1, text.size(), out);
    fflush(out);
    _exit(0);  // no library teardown: HDF5 and SimGrid state die with the process
}

json collect(int status, FILE* out)
{
    std::string text;
    rewind(out);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, out)) > 0)
        text.append(buf, n);
    fclose(out);
    if (WIFSIGNALED(status))
        return {{"ok", false}, {"error", "simulation crashed (signal " + std::to_string(WTERMSIG(status)) + ")"}};
    try {
        return json::parse(text);
    } catch (const json::exception&) {
        return {{"ok", false}, {"error", "simulation produced no result (exit status " +
                                             std::to_string(WEXITSTATUS(status)) + ")"}};
    }
}

json one_input(const json& input, const json& config)
{
    return {{"platform", input.at("platform")},
            {"workload", input.at("workload")},
            {"config", config},
            {"options", input.value("options", json::object())}};
}

}  // namespace

json simulate_batch(const json& input, int jobs)
{
    const json& configs = input.at("configs");
    std::vector<json> results(configs.size());
    std::map<pid_t, Child> running;
    size_t next = 0;
    while (next < configs.size() || !running.empty()) {
        while (next < configs.size() && static_cast<int>(running.size()) < std::max(1, jobs)) {
            FILE* out = tmpfile();
            fflush(nullptr);
            pid_t pid = fork();
            if (pid == 0)
                run_child(one_input(input, configs[next]), out);
            if (pid < 0) {
                fclose(out);
                results[next++] = {{"ok", false}, {"error", "fork failed"}};
                continue;
            }
            running[pid] = {next++, out};
        }
        int status = 0;
        pid_t done = wait(&status);
        auto it = running.find(done);
        if (it == running.end())
            continue;
        results[it->second.index] = collect(status, it->second.out);
        running.erase(it);
    }
    return {{"results", results}};
}

}  // namespace iosim
