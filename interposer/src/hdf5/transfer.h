/* The MPI-IO transfer mode a program's transfer list holds, remembered for the last list read:
 * programs pass one list to many writes, and reading the property costs as much as a small
 * write's bookkeeping. Forgotten when the program changes the list (a hooked
 * H5Pset_dxpl_mpio) or closes it; the library's own temporary changes, put back before the
 * write returns, go to HDF5 directly and leave it standing. The library's own lists are
 * closed past the hook too. */
#pragma once
#include <hdf5.h>

/* The list's mode (not H5P_DEFAULT); < 0 when HDF5 cannot tell (not a transfer list). */
herr_t iot_transfer_mode_of(hid_t dxpl, H5FD_mpio_xfer_t *mode);
/* The program changed or closed `dxpl`. */
void iot_transfer_forget(hid_t dxpl);
/* HDF5's H5Pset_dxpl_mpio, past the hook. */
herr_t iot_transfer_set(hid_t dxpl, H5FD_mpio_xfer_t mode);
/* HDF5's H5Pclose, past the hook: a list of the library's own (a copy, a dataset's transfer
 * list); its remembered mode forgotten (HDF5 reuses the id). */
herr_t iot_list_close(hid_t list);
