// No library between the program and the file: it calls MPI-IO itself (`api: mpiio`, a file
// view and MPI_File_write_all or write_at) or POSIX (`api: posix`, whose calls iosim hands to
// the same independent path). Its datasets lie back to back from offset 0, with no metadata.
#pragma once

#include "iolib/io_library.hpp"

namespace iosim {

const IoLibrary& no_library();

}  // namespace iosim
