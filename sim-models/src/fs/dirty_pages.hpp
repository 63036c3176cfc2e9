// A kernel page cache's dirty pages: they stay in the cache until something writes them back,
// so a write over them changes them there, and the disk later takes them once.
//
// Linux (mm/page-writeback.c): a write marks its pages dirty through folio_mark_dirty; on a
// page already dirty filemap_dirty_folio returns at folio_test_set_dirty, before
// folio_account_dirtied, so the page is neither counted again in the dirty memory
// (vm.dirty_ratio, vm.dirty_background_ratio) nor queued again for writeback. The flusher
// writes a page back once it has been dirty vm.dirty_expire_centisecs (30 s by default), or
// sooner when dirty memory passes vm.dirty_background_ratio, or at fsync
// (Documentation/admin-guide/sysctl/vm.rst). Within a run of seconds that stays below those
// limits, the write-back is the fsync's: it starts there (lustre_client.cpp), not as the
// pages are written. HDF5's fill of a chunked dataset at create and the program's data written
// into the same chunks a moment later are then one write to the disk, and the fill costs the
// writers a memory copy.
//
// Lustre's OSC does not hold pages that way: it sends a dirty page as soon as a full RPC of
// them is ready (max_pages_per_rpc), so its write-back runs beside the writes and a page
// written again later has mostly left; a platform says which it has
// (ClientCache::holds_dirty_pages).
//
// Bytes, not pages: a write over part of a dirty page is counted by its bytes.
//
// The write-back's requests are the dirty runs, not the write calls: a file system's
// writepages gathers the contiguous dirty pages of a file into one extent and sends it as
// block I/O (ext4_writepages, mpage_prepare_extent_to_map), and the block layer builds a
// request up to the device's largest (queue/max_sectors_kb). Two processes of a node that
// write alternate 1 KiB pieces of one file (HDF5's independent transfer of a block of a
// shared array: a write call a row) leave one contiguous dirty run, written back as a few
// large requests, where each call counted alone would be a request of 1 KiB.
//
// A write-back also costs per folio, whatever its size (the walk of the file's dirty folios,
// each locked, marked for write-back and added to a bio). A file system with large folios
// (ext4 from Linux 6.16) makes a folio as large as the write that creates it:
// write_begin_get_folio (include/linux/pagemap.h) asks __filemap_get_folio for the order
// fgf_set_order(len) gives, ilog2 of the write's length, a single page for a write of a page or
// less, up to the largest folio the page cache makes. So 32 MiB written in 1 KiB calls is
// 8,192 folios at the fsync, and written in 16 MiB calls 16 (measured on this project's
// machine: the fsync of 32 MiB takes 136-143 ms after writes of 1 and 4 KiB, 58-63 ms after
// writes of 64 KiB to 16 MiB; local.yaml's writeback_folio_s).
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "model/model.hpp"

namespace iosim {

class DirtyPages {
public:
    // Marks `extent` dirty; returns how many of its bytes were dirty already.
    uint64_t overwritten(const ObjectExtent& extent);
    // The write-back took them all.
    void clear() { runs_.clear(); }

    // The requests a write-back of `extents` (a phase's dirty extents, in any order) sends
    // to each target: each object's extents merged into contiguous runs, each run cut at
    // `max_request_bytes`; indexed by target, `targets` long.
    static std::vector<uint64_t> writeback_requests(std::vector<ObjectExtent> extents,
                                                    uint64_t max_request_bytes, size_t targets);
    // The folio a write of `length` bytes makes: the largest power of two not above it, from
    // a page to `max_folio_bytes`.
    static uint64_t folio_bytes(uint64_t length, uint64_t page_bytes, uint64_t max_folio_bytes);

private:
    using Object = std::tuple<int, uint64_t, int, int>;  // node, file, component, target
    std::map<Object, std::map<uint64_t, uint64_t>> runs_;  // per object: dirty runs, begin -> end
};

}  // namespace iosim
