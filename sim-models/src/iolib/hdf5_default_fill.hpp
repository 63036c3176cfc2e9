// Whether a site's parallel HDF5 writes fill values into a dataset the application gave no
// fill value, when it allocates the dataset at create (platform key `hdf5.fills_default_value`).
//
// HDF5's documentation and its source say no for a contiguous dataset: under the default fill
// time (H5D_FILL_TIME_IFSET) H5D__alloc_storage (H5Dint.c, 1.8 and 1.10 alike) fills a
// contiguous dataset only when the fill value is user-defined, and HDF5 1.10.8 here (MPICH,
// strace) leaves a 128 MiB contiguous dataset of doubles unwritten: the file is sparse. The HDF
// Group says otherwise for parallel HDF5 in HDFGroup/hdf5 issue #2037 (2022): "According to the
// documentation, H5D_FILL_TIME_IFSET is the default. But this is not true for parallel, where
// the fill value is always written unless it is disabled. Other factors can influence the
// behavior, such as chunking"; openPMD-api PR #1192 (2022) found its parallel HDF5 output
// "transferring twice the data volume to file, effectively overriding fill values" with no
// fill value set, "reported and confirmed with the HDF5 group", and sets H5D_FILL_TIME_NEVER.
// Which builds do it is not documented, so it is the platform's: on ARCHER's stack (Cray
// MPT, cray-hdf5-parallel) benchio's HDF5 write (default dataset creation properties) takes,
// at every measured scale from 24 to 384 processes and on 4 or 48 OSTs alike, the time of the
// same run's MPI-IO write of the same bytes plus one process writing them all again at
// 1.5-1.7 GB/s: what parallel HDF5's contiguous fill costs (rank 0 alone, 1 MiB at a time,
// H5D__contig_fill; planner.cpp fill_at_allocation).
//
// With the key set, a dataset under fill time ifset whose fill value is HDF5's default is
// filled as under fill time alloc; a fill time the application or a config sets (never,
// alloc) and a user fill value are left as they are.
#pragma once

#include "model/model.hpp"

namespace iosim {

void apply_site_default_fill(DatasetSettings& d, bool fills_default_value);

}  // namespace iosim
