// iosim: the storage-stack simulator. Reads a JSON batch (platform, workload, configs,
// options) from a file or stdin and prints one JSON object with a result per config.
#include <malloc.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "batch.hpp"
#include "doc_json.hpp"
#include "workload.hpp"

extern "C" {
#include "workload_check.h"
}

namespace {

constexpr const char* usage =
    "usage: iosim [--jobs N] [INPUT.json | -]\n"
    "       iosim --check-workload WORKLOAD.json...\n"
    "  INPUT: {\"platform\": {...}, \"workload\": {...}, \"configs\": [{\"files\": [...]}, ...],\n"
    "          \"options\": {\"aggregate\": true, \"placement\": \"packed\"}}\n"
    "  Prints {\"results\": [...]} with one entry per config, in order.\n"
    "  --check-workload: a JSON line per file, its verdict (accepted, refused, cannot-run)\n"
    "  with the error or the normal form; status 0 all accepted, 2 one refused, else 3.\n";

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
    try {
        form = iosim::check_workload(iosim::doc_from_json_text(text, source.d), normal.d);
        iosim::read_workload(form);
    } catch (const iosim::NotModelled& e) {
        workload_print_verdict(stdout, path.c_str(), WL_CANNOT_RUN, (path + ": " + e.what()).c_str(),
                               form);
        return WL_CANNOT_RUN;
    } catch (const std::exception& e) {
        workload_print_verdict(stdout, path.c_str(), WL_REFUSED, (path + ": " + e.what()).c_str(),
                               nullptr);
        return WL_REFUSED;
    }
    workload_print_verdict(stdout, path.c_str(), WL_ACCEPTED, nullptr, form);
    return WL_ACCEPTED;
}

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
        if (arg == "--check-workload") {
            wl_verdict worst = WL_ACCEPTED;
            for (int k = i + 1; k < argc; k++)
                worst = workload_worse_verdict(worst, check_workload_file(argv[k]));
            return workload_verdict_status(worst);
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
