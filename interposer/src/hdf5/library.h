/* HDF5 as the program brings it. The library is not linked to HDF5: a program that never uses
 * HDF5 (stock IOR built without it, MPI-IO and POSIX programs) would otherwise have HDF5 and
 * its ~40 dependencies (curl, TLS, Kerberos, LDAP, ...) loaded and relocated at each start.
 * Every HDF5 symbol the library refers to is weak: bound to the program's own HDF5 when it has
 * one, else left unbound, and then no HDF5 hook is ever called. Every file of hdf5/ includes
 * HDF5 through this header; a call to an HDF5 function not listed here fails the link
 * (-Wl,--no-undefined), so the list cannot fall behind the code. */
#pragma once
#include <hdf5.h>

#pragma weak H5Dget_create_plist
#pragma weak H5Dget_offset
#pragma weak H5Dget_space
#pragma weak H5Dget_storage_size
#pragma weak H5Dget_type
#pragma weak H5Eget_auto2
#pragma weak H5Eset_auto2
#pragma weak H5FD_core_init
#pragma weak H5FD_mpio_init
#pragma weak H5FD_sec2_init
#pragma weak H5Fget_obj_count
#pragma weak H5Fget_vfd_handle
#pragma weak H5Iget_file_id
#pragma weak H5Iget_name
#pragma weak H5Iget_ref
#pragma weak H5Iis_valid
#pragma weak H5P_CLS_DATASET_XFER_ID_g
#pragma weak H5P_LST_DATASET_CREATE_ID_g
#pragma weak H5P_LST_FILE_ACCESS_ID_g
#pragma weak H5Pcopy
#pragma weak H5Pcreate
#pragma weak H5Pfill_value_defined
#pragma weak H5Pget
#pragma weak H5Pget_alignment
#pragma weak H5Pget_all_coll_metadata_ops
#pragma weak H5Pget_alloc_time
#pragma weak H5Pget_chunk
#pragma weak H5Pget_coll_metadata_write
#pragma weak H5Pget_driver
#pragma weak H5Pget_dxpl_mpio
#pragma weak H5Pget_fapl_mpio
#pragma weak H5Pget_fill_time
#pragma weak H5Pget_layout
#pragma weak H5Pget_meta_block_size
#pragma weak H5Pget_mpio_actual_io_mode
#pragma weak H5Pget_mpio_no_collective_cause
#pragma weak H5Pget_sieve_buf_size
#pragma weak H5Pset
#pragma weak H5Pset_alignment
#pragma weak H5Pset_all_coll_metadata_ops
#pragma weak H5Pset_alloc_time
#pragma weak H5Pset_chunk
#pragma weak H5Pset_coll_metadata_write
#pragma weak H5Pset_fill_time
#pragma weak H5Pset_meta_block_size
#pragma weak H5Pset_sieve_buf_size
#pragma weak H5Sclose
#pragma weak H5Sget_regular_hyperslab
#pragma weak H5Sget_select_bounds
#pragma weak H5Sget_select_elem_npoints
#pragma weak H5Sget_select_elem_pointlist
#pragma weak H5Sget_select_hyper_blocklist
#pragma weak H5Sget_select_hyper_nblocks
#pragma weak H5Sget_select_npoints
#pragma weak H5Sget_select_type
#pragma weak H5Sget_simple_extent_dims
#pragma weak H5Sis_regular_hyperslab
#pragma weak H5Tclose
#pragma weak H5Tget_size
#pragma weak H5check_version
#pragma weak H5get_libversion
#pragma weak H5open
