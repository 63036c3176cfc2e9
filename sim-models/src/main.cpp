// iosim: the storage-stack simulator. Reads a JSON batch (platform, workload, configs,
// options) from a file or stdin and prints one JSON object with a result per config.
#include <malloc.h>

#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "batch.hpp"

namespace {

constexpr const char* usage =
    "usage: iosim [--jobs N] [INPUT.json | -]\n"
    "  INPUT: {\"platform\": {...}, \"workload\": {...}, \"configs\": [{\"files\": [...]}, ...],\n"
    "          \"options\": {\"aggregate\": true, \"placement\": \"packed\"}}\n"
    "  Prints {\"results\": [...]} with one entry per config, in order.\n";

}  // namespace

int main(int argc, char** argv)
{
    // A write call's pieces can take hundreds of MB, made and freed call after call. Served
    // from mmap, every call faults in fresh zeroed pages (half the run time of a 2048-rank
    // VORPAL-IO step); from the heap they are reused.
    mallopt(M_MMAP_MAX, 0);
    int jobs = 1;
    std::string path = "-";
    for (int i = 1; i < argc; i++) {
        std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            std::cout << usage;
            return 0;
        }
        if (arg == "--jobs" && i + 1 < argc) {
            jobs = std::stoi(argv[++i]);
            continue;
        }
        path = arg;
    }
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
        if (!input.contains("configs"))
            input["configs"] = nlohmann::json::array({nlohmann::json::object()});
        std::cout << iosim::simulate_batch(input, jobs).dump() << "\n";
    } catch (const std::exception& e) {
        std::cerr << "iosim: " << path << ": " << e.what() << "\n";
        return 2;
    }
    return 0;
}
