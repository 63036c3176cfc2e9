/* Writing a layout through PnetCDF (pnetcdf_output.c), a kernel's --method pnetcdf: a CDF-5
 * file, described (--describe) as `api: pnetcdf`, what the run asks of PnetCDF; iosim's PnetCDF
 * model (sim-models/src/iolib/pnetcdf.hpp) adds the header and the alignment. */
#ifndef IOTWIN_PNETCDF_OUTPUT_H
#define IOTWIN_PNETCDF_OUTPUT_H

#include "output.h"

/* NULL in a build without PnetCDF, which says why: */
const output_ops *pnetcdf_output_ops(void);
#define PNETCDF_OUTPUT_MISSING                                                                 \
    "this build has no PnetCDF: Debian's libpnetcdf-dev is built on Open MPI, so only the "    \
    "Open MPI build of the kernels has it (build/openmpi/kernels/; under iotwin, "             \
    "IOTWIN_MPI=openmpi), where that package is installed"

#endif
