// A node's writes to one file under a client that lets them in one at a time: what the node's
// client takes into the file when several of its processes write it.
//
// Lustre clients before range locks (client_range_locks.hpp; Linux staging Lustre before 4.9,
// the Lustre 2.5-era clients of Cray's CLE 5) hold one write mutex per file and node
// (`lli_write_mutex`, taken by `ll_file_io_generic` around each write call): a node's writers of
// a file copy into its cache one call at a time, however many there are. One writer alone goes
// at its own rate (`process_write_mbs`). With several, a call that follows another process's
// call also pays the hand-over: the waiter's wake-up and the file's client state (its pages'
// tree, its extent locks, its OSCs' dirty accounting) moving to another core. That cost is
// taken per byte, a byte following another process's call with probability 1 - 1/w among w
// writers taking turns, so the node's rate into the file falls from the process's to
// `contended_write_mbs` as its writers grow:
//
//     1 / rate(w) = 1 / process + (1 / contended - 1 / process) * (1 - 1 / w)
//
// Each file has its own mutex: a node's writers of different files (one file per process)
// do not wait for each other, and a phase's contended copy is its longest (node, file) one
// (WritePhaseBuilder::contended_write_s).
//
// The form is an assumption; its one constant is fitted to benchio's shared-file rows on
// ARCHER, where a node's rate into a file striped over every OST (24 aggregators a node, Cray's
// cb_nodes being the stripe count) is 650 MB/s against 900 on 4 OSTs (4 aggregators), and
// judged leave-one-scale-out (validation/data/README.md).
#pragma once

#include <cstdint>

#include "model/model.hpp"

namespace iosim {

// What one node's client takes into one file from `writers` of its processes; 0: no limit.
inline double contended_write_Bps(const ClientCache& cache, uint32_t writers)
{
    if (cache.contended_write_Bps <= 0 || cache.process_write_Bps <= 0 || writers == 0)
        return 0;
    double alone = 1 / cache.process_write_Bps;
    double taking_turns = 1 - 1 / static_cast<double>(writers);
    return 1 / (alone + (1 / cache.contended_write_Bps - alone) * taking_turns);
}

}  // namespace iosim
