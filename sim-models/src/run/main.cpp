// iosim: the storage-stack simulator. Reads a JSON batch (platform, workload, configs,
// options) from a file or stdin and prints one JSON object with a result per config.
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "input/doc_json.hpp"
#include "input/workload.hpp"
#include "iolib/io_library.hpp"
#include "run/batch.hpp"

extern "C" {
#include "workload_check.h"
}

namespace {

constexpr const char* usage =
    "usage: iosim [--jobs N] [--max-steps N] [--memory-limit BYTES] [INPUT.json | -]\n"
    "       iosim --serve [--jobs N] [--max-steps N] [--memory-limit BYTES]\n"
    "       iosim --check-workload WORKLOAD.json...\n"
    "       iosim --io-libraries\n"
    "  INPUT: {\"platform\": {...}, \"workload\": {...}, \"configs\": [{\"files\": [...]}, ...],\n"
    "          \"options\": {\"aggregate\": true, \"placement\": \"packed\"}}\n"
    "  Prints {\"results\": [...]} with one entry per config, in order.\n"
    "  --max-steps: refuse a config whose estimated cost is beyond N steps (default 4e9,\n"
    "    about ten minutes); --memory-limit: what each worker may hold (default half the\n"
    "    machine's memory shared by the workers, 1 to 16 GiB each); the input's\n"
    "    options.max_steps and options.memory_limit override them. IOSIM.md, 'What the\n"
    "    simulation costs'.\n"
    "  --serve: one INPUT per line on stdin, its answer on a line of stdout ({\"error\": ...}\n"
    "    for an input it cannot read), until stdin ends: a caller of many small batches\n"
    "    starts iosim (its libraries loaded and linked, most of a small batch's time) once.\n"
    "  --check-workload: a JSON line per file, its verdict (accepted or refused) with the\n"
    "  error or the normal form; status 0 all accepted, 2 one refused.\n"
    "  --io-libraries: each workload api and the I/O library model that simulates it.\n";

// Half the machine's memory shared by the workers, at most 16 GiB and at least 1 GiB each:
// a batch never takes the machine down.
uint64_t default_memory_limit(int jobs)
{
    constexpr uint64_t GiB = uint64_t{1} << 30;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page <= 0)
        return 16 * GiB;
    uint64_t half = static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 2;
    return std::clamp<uint64_t>(half / static_cast<uint64_t>(std::max(1, jobs)), GiB, 16 * GiB);
}

// A number with an optional binary suffix: 1073741824, 1G, 512M.
uint64_t parse_bytes(const std::string& text)
{
    size_t used = 0;
    double value = std::stod(text, &used);
    std::string unit = text.substr(used);
    double scale = unit.empty() ? 1 : unit == "K" ? 1024.0 : unit == "M" ? 1048576.0 : unit == "G" ? 1073741824.0 : -1;
    if (scale < 0 || value < 0)
        throw std::invalid_argument("--memory-limit: a byte count, optionally with K, M or G, got '" + text + "'");
    return static_cast<uint64_t>(value * scale);
}

// The verdict of a workload file as iosim reads workloads (sim-models/WORKLOAD.md): a JSON line
// (formats/workload_check.h).
wl_verdict check_workload_file(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        workload_print_verdict(stdout, path.c_str(), WL_REFUSED, (path + ": cannot read it").c_str(),
                               nullptr);
        return WL_REFUSED;
    }
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    iosim::Document source, normal;
    const doc_node* form = nullptr;
    std::string error;
    try {
        form = iosim::check_workload(iosim::doc_from_json_text(text, source.d, path.c_str()),
                                     normal.d, path.c_str());
        iosim::read_workload(form);
    } catch (const iosim::InputRefused& e) {
        error = e.what();
    } catch (const std::exception& e) {
        error = path + ": " + e.what();
    }
    if (!error.empty()) {
        workload_print_verdict(stdout, path.c_str(), WL_REFUSED, error.c_str(), nullptr);
        return WL_REFUSED;
    }
    workload_print_verdict(stdout, path.c_str(), WL_ACCEPTED, nullptr, form);
    return WL_ACCEPTED;
}

// One batch's answer; an input without configs is simulated under the defaults.
nlohmann::json answer(nlohmann::json input, int jobs, const iosim::Limits& limits)
{
    if (!input.contains("configs"))
        input["configs"] = nlohmann::json::array({nlohmann::json::object()});
    return iosim::simulate_batch(input, jobs, limits);
}

// --serve: a batch per line until stdin ends. A batch is simulated as a one-shot run would
// (its workers forked from this process for it alone), so its answer is the same bits.
int serve(int jobs, const iosim::Limits& limits)
{
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        nlohmann::json reply;
        try {
            reply = answer(nlohmann::json::parse(line), jobs, limits);
        } catch (const std::exception& e) {
            reply = {{"error", e.what()}};
        }
        std::cout << reply.dump() << "\n" << std::flush;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    // A write call's pieces can take hundreds of MB, made and freed call after call. Served
    // from mmap, every call faults in fresh zeroed pages (half the run time of a 2048-rank
    // VORPAL-IO step); from the heap they are reused.
    mallopt(M_MMAP_MAX, 0);
    int jobs = 1;
    iosim::Limits limits;
    bool memory_given = false, serving = false;
    std::string path = "-";
    for (int i = 1; i < argc; i++) {
        std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            std::cout << usage;
            return 0;
        }
        if (arg == "--io-libraries") {
            std::cout << nlohmann::json(iosim::io_library_models()).dump() << "\n";
            return 0;
        }
        if (arg == "--check-workload") {
            wl_verdict worst = WL_ACCEPTED;
            for (int k = i + 1; k < argc; k++)
                worst = workload_worse_verdict(worst, check_workload_file(argv[k]));
            return workload_verdict_status(worst);
        }
        if (arg == "--serve") {
            serving = true;
            continue;
        }
        try {
            if (arg == "--jobs" && i + 1 < argc) {
                jobs = std::stoi(argv[++i]);
                continue;
            }
            if (arg == "--max-steps" && i + 1 < argc) {
                limits.max_steps = std::stod(argv[++i]);
                continue;
            }
            if (arg == "--memory-limit" && i + 1 < argc) {
                limits.memory_bytes = parse_bytes(argv[++i]);
                memory_given = true;
                continue;
            }
        } catch (const std::exception& e) {
            std::cerr << "iosim: " << arg << ": " << e.what() << "\n";
            return 2;
        }
        path = arg;
    }
    if (!memory_given)
        limits.memory_bytes = default_memory_limit(jobs);
    if (serving)
        return serve(jobs, limits);
    nlohmann::json input;
    try {
        if (path == "-") {
            input = nlohmann::json::parse(std::cin);
        } else {
            std::ifstream in(path);
            if (!in) {
                std::cerr << "iosim: cannot read " << path << "\n";
                return 2;
            }
            input = nlohmann::json::parse(in);
        }
        std::cout << answer(std::move(input), jobs, limits).dump() << "\n";
    } catch (const std::exception& e) {
        std::cerr << "iosim: " << path << ": " << e.what() << "\n";
        return 2;
    }
    return 0;
}
