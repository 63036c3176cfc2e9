/* The PnetCDF layer in the layers' table (core/layer.h).
 *
 * A PnetCDF file is an MPI-IO file PnetCDF describes: its MPI file is opened inside
 * ncmpi_create / ncmpi_open (the MPI-IO layer records its handle in this layer's file:
 * iot_mpiio_expect_file), and PnetCDF's data calls, which are not hooked, reach the MPI-IO
 * hooks as the program's own (iot_mpiio_carry): their writes are counted and captured in this
 * layer's file as in an MPI-IO file's, whose state (file->state) it holds. */
#pragma once

extern const struct iot_layer iot_pnetcdf_layer;
