/* The interposed HDF5 calls. Each hook resolves the settings for its file / dataset, calls
 * the real function with the application's property lists amended (hdf5/apply.h), and records
 * what it applied and what took effect. Any failure on the interposer's side falls back to
 * the application's own call, unchanged: the interposer must never break the application. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture/capture.h"
#include "core/comms.h"
#include "core/runtime.h"
#include "hdf5/apply.h"
#include "hdf5/capture.h"
#include "hdf5/hooks.h"
#include "hdf5/readback.h"
#include "hdf5/records.h"
#include "hdf5/transfer.h"
#include "lustre/lustre.h"
#include "mpiio/file.h"
#include "mpiio/hints.h"

#define EXPORT __attribute__((visibility("default")))

static struct {
    int ready;
    hid_t (*fcreate)(const char *, unsigned, hid_t, hid_t);
    hid_t (*fopen)(const char *, unsigned, hid_t);
    herr_t (*fflush)(hid_t, H5F_scope_t);
    herr_t (*fclose)(hid_t);
    hid_t (*dcreate2)(hid_t, const char *, hid_t, hid_t, hid_t, hid_t, hid_t);
    hid_t (*dcreate1)(hid_t, const char *, hid_t, hid_t, hid_t);
    herr_t (*dwrite)(hid_t, hid_t, hid_t, hid_t, hid_t, const void *);
    herr_t (*dread)(hid_t, hid_t, hid_t, hid_t, hid_t, void *);
    herr_t (*dclose)(hid_t);
    herr_t (*pclose)(hid_t);
    herr_t (*dset_extent)(hid_t, const hsize_t *);
    int (*idec_ref)(hid_t);
    herr_t (*oclose)(hid_t);
    herr_t (*dextend)(hid_t, const hsize_t *);
} iot;

/* --- the I/O mode of writes -------------------------------------------------------------- */

static void record_io_mode(struct iot_dataset *d, hid_t dxpl)
{
    uint32_t local = 0, global = 0;
    d->have_io_mode = H5Pget_mpio_actual_io_mode(dxpl, &d->io_mode) >= 0;
    /* the cause is only reported for a write that did no collective I/O */
    if (d->have_io_mode && d->io_mode == H5D_MPIO_NO_COLLECTIVE
        && H5Pget_mpio_no_collective_cause(dxpl, &local, &global) >= 0)
        d->no_collective_cause = global;
}

/* The actual I/O mode of a dataset's last write is read from the transfer list it used only
 * when it could change or go: before the list carries another dataset's write or any read, is
 * closed, or the dataset is read back (reading it after every write costs a few percent of a
 * small write). */
static struct {
    hid_t dxpl;
    struct iot_dataset *dataset;   /* NULL: nothing pending */
} pending_io_mode = {-1, NULL};

static void settle_io_mode(void)
{
    if (pending_io_mode.dataset)
        record_io_mode(pending_io_mode.dataset, pending_io_mode.dxpl);
    pending_io_mode.dataset = NULL;
}

/* --- start-up -------------------------------------------------------------------------------- */

static void init(void)
{
    if (iot.ready)
        return;
    iot.ready = 1;
    iot.fcreate = dlsym(RTLD_NEXT, "H5Fcreate");
    iot.fopen = dlsym(RTLD_NEXT, "H5Fopen");
    iot.fflush = dlsym(RTLD_NEXT, "H5Fflush");
    iot.fclose = dlsym(RTLD_NEXT, "H5Fclose");
    iot.dcreate2 = dlsym(RTLD_NEXT, "H5Dcreate2");
    iot.dcreate1 = dlsym(RTLD_NEXT, "H5Dcreate1");
    iot.dwrite = dlsym(RTLD_NEXT, "H5Dwrite");
    iot.dread = dlsym(RTLD_NEXT, "H5Dread");
    iot.dclose = dlsym(RTLD_NEXT, "H5Dclose");
    iot.pclose = dlsym(RTLD_NEXT, "H5Pclose");
    iot.dset_extent = dlsym(RTLD_NEXT, "H5Dset_extent");
    iot.idec_ref = dlsym(RTLD_NEXT, "H5Idec_ref");
    iot.oclose = dlsym(RTLD_NEXT, "H5Oclose");
    iot.dextend = dlsym(RTLD_NEXT, "H5Dextend");
    iot_runtime_init();
    iot_hdf5_describe_async_api();
}

void iot_hdf5_forget_pending(void)
{
    pending_io_mode.dataset = NULL;
}

/* HDF5 prints its error stack by default; attempts with amended lists are made quietly. Two
 * calls to HDF5's error API cost a quarter of a small dataset's hook: where nothing can raise
 * an error, `quiet_begin_if(0)` leaves the stack alone. */
struct quiet {
    H5E_auto2_t func;
    void *data;
    int active;
};

static struct quiet quiet_begin_if(int when)
{
    struct quiet q = {NULL, NULL, when};
    if (!when)
        return q;
    H5Eget_auto2(H5E_DEFAULT, &q.func, &q.data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return q;
}

static struct quiet quiet_begin(void)
{
    return quiet_begin_if(1);
}

static void quiet_end(struct quiet q)
{
    if (q.active)
        H5Eset_auto2(H5E_DEFAULT, q.func, q.data);
}

/* --- files ----------------------------------------------------------------------------------- */

typedef hid_t (*open_call)(const char *name, unsigned flags, hid_t fcpl, hid_t fapl);

static hid_t real_create(const char *name, unsigned flags, hid_t fcpl, hid_t fapl)
{
    return iot.fcreate(name, flags, fcpl, fapl);
}

static hid_t real_open(const char *name, unsigned flags, hid_t fcpl, hid_t fapl)
{
    (void)fcpl;
    return iot.fopen(name, flags, fapl);
}

static enum iot_lustre_open lustre_open(open_call call, unsigned flags)
{
    if (call != real_create)
        return IOT_OPENING;
    return flags & H5F_ACC_TRUNC ? IOT_CREATE_REPLACING : IOT_CREATE_EXCLUSIVE;
}

/* Our communicator for the file of access list `fapl` (needed before the open only to create
 * a Lustre file first). */
static MPI_Comm communicator_of(hid_t fapl)
{
    MPI_Comm comm = MPI_COMM_NULL, ours = MPI_COMM_NULL;
    MPI_Info info = MPI_INFO_NULL;
    if (H5Pget_fapl_mpio(fapl, &comm, &info) < 0)
        return MPI_COMM_NULL;
    ours = iot_comm_for(comm);
    MPI_Comm_free(&comm);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    return ours;
}

/* The real open with the settings (the amended access list, the MPI file's hints through the
 * MPI-IO layer, a prefixed name); as the application asked, with its own error reporting, if
 * HDF5 refuses them. The application's list is as it was when this returns. */
static hid_t open_amended(open_call call, struct iot_file *file, const char *name,
                          const char *real_name, unsigned flags, hid_t fcpl, hid_t fapl,
                          struct iot_fapl *amended)
{
    int amending = amended->id >= 0 || real_name != name || file->requested != MPI_INFO_NULL;
    hid_t id = -1;
    iot_mpiio_expect_file(file, 1);
    if (amending) {
        struct quiet q = quiet_begin();
        id = call(real_name, flags, fcpl, amended->id >= 0 ? amended->id : fapl);
        quiet_end(q);
    }
    iot_fapl_restore(amended, &iot_h5(file)->access);
    if (id < 0 && amending)
        iot_not_effective(&file->not_effective, "file", NULL, NULL,
                          "HDF5 refused the amended access list; opened as the application asked");
    if (id < 0) {
        iot_h5(file)->access = amended->own;
        iot_mpiio_expect_file(file, 0);
        id = call(name, flags, fcpl, fapl);
    }
    iot_mpiio_expect_file(NULL, 0);
    return id;
}

static hid_t open_file(open_call call, const char *how, const char *name, unsigned flags,
                       hid_t fcpl, hid_t fapl)
{
    if (iot_nothing_to_do())   /* no config, report or capture: no record, as MPI-IO's opens */
        return call(name, flags, fcpl, fapl);
    char prefixed[4096];
    struct iot_file *file = iot_file_new(&iot_hdf5_layer, name, how);
    hid_t given = fapl == H5P_DEFAULT ? H5P_FILE_ACCESS_DEFAULT : fapl;
    iot_settings_for(&file->settings, file->matched, name, NULL);
    struct quiet q = quiet_begin();
    struct iot_fapl amended;
    iot_apply_fapl(file, given, &amended);
    const char *real_name = iot_bglockless_name(file, name, prefixed, sizeof prefixed);
    enum iot_lustre_open lustre = lustre_open(call, flags);
    if (file->collective && iot_lustre_precreates(file, name, lustre))
        file->comm = communicator_of(given);
    iot_lustre_before_open(file, name, lustre);
    quiet_end(q);
    double start = iot_now(), epoch = iot_capture_clock();
    hid_t id = open_amended(call, file, name, real_name, flags, fcpl, fapl, &amended);
    file->open_s = iot_now() - start;
    file->t_open = epoch;
    if (id < 0) {
        iot_file_forget(file);
        return id;
    }
    iot_h5(file)->id = id;
    q = quiet_begin();
    iot_h5capture_open(file, &amended.own, epoch, iot_capture_clock());
    iot_readback_file(file);
    quiet_end(q);
    return id;
}

EXPORT hid_t H5Fcreate(const char *name, unsigned flags, hid_t fcpl, hid_t fapl)
{
    init();
    return IOT_HDF5_INSIDE(open_file(real_create, "create", name, flags, fcpl, fapl));
}

EXPORT hid_t H5Fopen(const char *name, unsigned flags, hid_t fapl)
{
    init();
    return IOT_HDF5_INSIDE(open_file(real_open, "open", name, flags, H5P_DEFAULT, fapl));
}

struct iot_file *iot_hdf5_file_of(hid_t object)
{
    struct iot_file *file = iot_hdf5_file_find(object);   /* the object is often the file itself */
    if (file || iot_nothing_to_do())   /* no file has a record: no need to ask HDF5 */
        return file;
    struct quiet q = quiet_begin();
    hid_t fid = H5Iget_file_id(object);
    quiet_end(q);
    if (fid < 0)
        return NULL;
    file = iot_hdf5_file_find(fid);
    iot.idec_ref(fid);
    return file;
}

static herr_t h5fflush_hooked(hid_t object, H5F_scope_t scope)
{
    init();
    struct iot_file *file = iot_hdf5_file_of(object);
    double start = iot_now(), epoch = iot_capture_clock();
    herr_t rc = iot.fflush(object, scope);
    if (file)
        file->flush_s += iot_now() - start;
    if (file && rc >= 0)
        iot_capture_flush(file, epoch, iot_capture_clock());
    return rc;
}

typedef int (*closer)(hid_t id);   /* H5Fclose, H5Dclose, or H5Idec_ref of the last reference */

static int close_file(struct iot_file *file, hid_t id, closer close)
{
    settle_io_mode();
    struct quiet q = quiet_begin();
    for (int i = 0; i < file->nparts; i++) {   /* datasets the application left open */
        struct iot_dataset *d = iot_dataset_at(file, i);
        if (d->id >= 0 && !d->read_back)
            iot_readback_dataset(d, file);
    }
    quiet_end(q);
    double start = iot_now(), epoch = iot_capture_clock();
    int rc = close(id);
    file->close_s = iot_now() - start;
    file->t_close = iot_capture_clock();
    iot_capture_close(file, epoch, file->t_close);
    iot_datasets_closed_with(file);
    iot_report_close(file, &iot_rt.run);
    return rc;
}

static herr_t h5fclose_hooked(hid_t id)
{
    init();
    struct iot_file *file = iot_hdf5_file_find(id);
    return file ? close_file(file, id, iot.fclose) : iot.fclose(id);
}

/* --- datasets -------------------------------------------------------------------------------- */

char *iot_hdf5_full_name(hid_t loc, const char *name)
{
    char base[2048] = "";
    char *out = NULL;
    if (name[0] != '/') {
        struct quiet q = quiet_begin();
        if (H5Iget_name(loc, base, sizeof base) < 0)
            base[0] = '\0';
        quiet_end(q);
    }
    size_t n = strlen(base), len = strlen(name);
    if (name[0] != '/' && (n == 0 || base[n - 1] != '/'))
        base[n++] = '/';   /* H5Iget_name's buffer holds at most sizeof base - 1 characters */
    if (!(out = malloc(n + len + 1)))
        return NULL;
    memcpy(out, base, n);
    memcpy(out + n, name, len + 1);
    return out;
}

/* The time since `start` in a dataset's create or close: the file's metadata time, and not
 * computation in its capture. */
static void metadata_time(struct iot_file *file, double start)
{
    if (!file)
        return;
    double seconds = iot_now() - start;
    file->metadata_s += seconds;
    iot_capture_metadata(file, seconds);
}

static hid_t create_dataset(hid_t loc, const char *name, hid_t type, hid_t space, hid_t lcpl,
                            hid_t dcpl, hid_t dapl, int version)
{
    struct iot_file *file = iot_hdf5_file_of(loc);
    char *path = file ? iot_hdf5_full_name(loc, name) : NULL;
    struct iot_dataset *d = path ? iot_dataset_new(file, -1, path) : NULL;
    hid_t id = -1;
    int amended = 0;   /* HDF5 created the dataset with the settings' list */
    double start = iot_now();
    /* the application's own settings: read once, for the settings, the read-back and the
     * capture; and those of the amended list */
    struct iot_creation own, given;
    int have_own = 0;
    free(path);
    if (d && iot_sets_dcpl(&d->resolved->settings)) {
        struct iot_dcpl settings;
        struct quiet q = quiet_begin();
        have_own = iot_read_creation(dcpl, &own);
        iot_apply_dcpl(d, file, dcpl, have_own ? &own : NULL, &given, type, space, &settings);
        int tried = settings.id >= 0;
        if (tried)
            id = version == 1 ? iot.dcreate1(loc, name, type, space, settings.id)
                              : iot.dcreate2(loc, name, type, space, lcpl, settings.id, dapl);
        iot_dcpl_restore(&settings);   /* before a create with the application's list */
        quiet_end(q);
        amended = tried && id >= 0;
        if (tried && id < 0)
            iot_not_effective(&d->not_effective, "dataset", NULL, NULL,
                              "HDF5 refused the amended creation list; created as the "
                              "application asked");
    }
    if (id < 0)
        id = version == 1 ? iot.dcreate1(loc, name, type, space, dcpl)
                          : iot.dcreate2(loc, name, type, space, lcpl, dcpl, dapl);
    metadata_time(file, start);
    if (d && id >= 0) {
        iot_dataset_opened(file, d, id);
        /* reading the lists HDF5 accepted raises no error: only the capture's calls do */
        struct quiet q = quiet_begin_if(file->capture != NULL);
        if (!have_own && file->capture)
            have_own = iot_read_creation(dcpl, &own);
        if (iot_sets_dcpl(&d->resolved->settings))
            iot_readback_created(d, file, dcpl, amended ? &given : have_own ? &own : NULL);
        iot_h5capture_created(file, d, type, space, have_own ? &own : NULL);
        quiet_end(q);
    }
    return id;
}

static hid_t h5dcreate2_hooked(hid_t loc, const char *name, hid_t type, hid_t space, hid_t lcpl,
                                       hid_t dcpl, hid_t dapl)
{
    init();
    return create_dataset(loc, name, type, space, lcpl, dcpl, dapl, 2);
}

static hid_t h5dcreate1_hooked(hid_t loc, const char *name, hid_t type, hid_t space, hid_t dcpl)
{
    init();
    return create_dataset(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT, 1);
}

/* A dataset the application opened rather than created: known from its first write on. */
static struct iot_dataset *dataset_of(hid_t id, struct iot_file **file)
{
    struct iot_dataset *d = iot_dataset_find(id, file);
    if (d || !(*file = iot_hdf5_file_of(id)))
        return d;
    char *path = iot_hdf5_full_name(id, "");
    d = iot_dataset_new(*file, id, path ? path : "?");
    free(path);
    struct quiet q = quiet_begin();
    iot_h5capture_opened(*file, d, id);
    quiet_end(q);
    return d;
}

static long long selected_bytes(hid_t dataset, hid_t mem_type, hid_t mem_space, hid_t file_space,
                                hssize_t file_points)
{
    hssize_t points;
    if (file_space != H5S_ALL)
        points = file_points;
    else if (mem_space != H5S_ALL)
        points = H5Sget_select_npoints(mem_space);
    else {
        hid_t space = H5Dget_space(dataset);
        points = H5Sget_select_npoints(space);
        H5Sclose(space);
    }
    return points > 0 ? (long long)points * (long long)H5Tget_size(mem_type) : 0;
}

/* The transfer list a write uses: the application's, or the dataset's own for H5P_DEFAULT (so
 * that the actual I/O mode can be read back). Returns the mode to restore afterwards, if any. */
static hid_t transfer_list(struct iot_dataset *d, const struct iot_file *file, hid_t dxpl,
                           int *restore, H5FD_mpio_xfer_t *previous)
{
    H5FD_mpio_xfer_t wanted;
    int change = file->collective && iot_transfer_mode(&d->resolved->settings, &wanted);
    *restore = 0;
    if (!file->collective)
        return dxpl;
    d->transfer_set |= change;
    if (dxpl == H5P_DEFAULT) {
        if (d->dxpl < 0) {
            d->dxpl = H5Pcreate(H5P_DATASET_XFER);
            if (change)
                iot_transfer_set(d->dxpl, wanted);
        }
        return d->dxpl >= 0 ? d->dxpl : dxpl;
    }
    if (change && iot_transfer_mode_of(dxpl, previous) >= 0 && *previous != wanted)
        *restore = iot_transfer_set(dxpl, wanted) >= 0;
    return dxpl;
}

static herr_t h5dwrite_hooked(hid_t dataset, hid_t mem_type, hid_t mem_space, hid_t file_space,
                              hid_t dxpl, const void *buf)
{
    init();
    struct iot_file *file = NULL;
    struct iot_dataset *d = dataset_of(dataset, &file);
    if (!d) {
        settle_io_mode();   /* the write may use the pending transfer list */
        return iot.dwrite(dataset, mem_type, mem_space, file_space, dxpl, buf);
    }
    int restore = 0;
    H5FD_mpio_xfer_t previous = H5FD_MPIO_INDEPENDENT;
    hid_t used = transfer_list(d, file, dxpl, &restore, &previous);
    if (pending_io_mode.dataset != d || pending_io_mode.dxpl != used)
        settle_io_mode();
    int capture = file->capture != NULL;
    double start = iot_now();
    herr_t rc = iot.dwrite(dataset, mem_type, mem_space, file_space, used, buf);
    double seconds = iot_now() - start;
    hssize_t file_points = rc >= 0 && file_space != H5S_ALL ? H5Sget_select_npoints(file_space)
                                                            : -1;
    if (capture && rc >= 0)
        iot_h5capture_write(file, d, file_space, file_points, dxpl, iot_capture_epoch_of(start),
                          iot_capture_epoch_of(start + seconds));
    if (restore)
        iot_transfer_set(dxpl, previous);
    if (file->collective && used != H5P_DEFAULT) {
        pending_io_mode.dataset = d;
        pending_io_mode.dxpl = used;
    }
    long long bytes = rc >= 0 ? selected_bytes(dataset, mem_type, mem_space, file_space,
                                               file_points) : 0;
    d->part.calls++;
    d->part.bytes += bytes;
    d->part.seconds += seconds;
    file->writes++;
    file->bytes += bytes;
    file->write_s += seconds;
    return rc;
}

static int close_dataset(struct iot_dataset *d, struct iot_file *file, hid_t id, closer close)
{
    double start = iot_now();
    if (d && pending_io_mode.dataset == d)
        settle_io_mode();
    if (d && !d->read_back) {   /* without a creation list to read: H5Dget_offset and
                                 * _storage_size only, which raise no error, even where there is
                                 * no offset */
        struct quiet q = quiet_begin_if(!d->have_creation
                                        && iot_sets_dcpl(&d->resolved->settings));
        iot_readback_dataset(d, file);
        quiet_end(q);
    }
    int rc = close(id);
    metadata_time(file, start);
    if (d)
        iot_dataset_closed(d);
    return rc;
}

static herr_t h5dclose_hooked(hid_t id)
{
    init();
    struct iot_file *file = NULL;
    struct iot_dataset *d = iot_dataset_find(id, &file);
    return close_dataset(d, file, id, iot.dclose);
}

/* H5Oclose closes any object, a dataset too. */
static herr_t h5oclose_hooked(hid_t id)
{
    init();
    struct iot_file *file = NULL;
    struct iot_dataset *d = iot_dataset_find(id, &file);
    return d ? close_dataset(d, file, id, iot.oclose) : iot.oclose(id);
}

/* Some bindings (h5py) close every object by dropping its last reference, never calling
 * H5Fclose or H5Dclose: the last reference of a file or dataset is their close. */
static int h5idec_ref_hooked(hid_t id)
{
    init();
    if (pending_io_mode.dataset && pending_io_mode.dxpl == id)
        settle_io_mode();
    iot_transfer_forget(id);
    struct iot_file *file = iot_hdf5_file_find(id);
    if (file && H5Iget_ref(id) == 1)
        return close_file(file, id, iot.idec_ref);
    struct iot_dataset *d = file ? NULL : iot_dataset_find(id, &file);
    if (d && H5Iget_ref(id) == 1)
        return close_dataset(d, file, id, iot.idec_ref);
    return iot.idec_ref(id);
}

/* The hooks where HDF5 writes: calls inside them are HDF5's (iot_depth). */
EXPORT herr_t H5Fflush(hid_t object, H5F_scope_t scope)
{
    init();
    return IOT_HDF5_INSIDE(h5fflush_hooked(object, scope));
}

EXPORT herr_t H5Fclose(hid_t id)
{
    init();
    return IOT_HDF5_INSIDE(h5fclose_hooked(id));
}

EXPORT hid_t H5Dcreate2(hid_t loc, const char *name, hid_t type, hid_t space, hid_t lcpl,
                        hid_t dcpl, hid_t dapl)
{
    init();
    return IOT_HDF5_INSIDE(h5dcreate2_hooked(loc, name, type, space, lcpl, dcpl, dapl));
}

EXPORT hid_t H5Dcreate1(hid_t loc, const char *name, hid_t type, hid_t space, hid_t dcpl)
{
    init();
    return IOT_HDF5_INSIDE(h5dcreate1_hooked(loc, name, type, space, dcpl));
}

EXPORT herr_t H5Dwrite(hid_t dataset, hid_t mem_type, hid_t mem_space, hid_t file_space,
                       hid_t dxpl, const void *buf)
{
    init();
    return IOT_HDF5_INSIDE(h5dwrite_hooked(dataset, mem_type, mem_space, file_space, dxpl, buf));
}

EXPORT herr_t H5Dclose(hid_t id)
{
    init();
    return IOT_HDF5_INSIDE(h5dclose_hooked(id));
}

EXPORT herr_t H5Oclose(hid_t id)
{
    init();
    return IOT_HDF5_INSIDE(h5oclose_hooked(id));
}

EXPORT int H5Idec_ref(hid_t id)
{
    init();
    return IOT_HDF5_INSIDE(h5idec_ref_hooked(id));
}

/* A read sets the actual I/O mode of its transfer list too. */
EXPORT herr_t H5Dread(hid_t dataset, hid_t mem_type, hid_t mem_space, hid_t file_space,
                      hid_t dxpl, void *buf)
{
    init();
    settle_io_mode();
    return iot.dread(dataset, mem_type, mem_space, file_space, dxpl, buf);
}

EXPORT herr_t H5Pclose(hid_t list)
{
    init();
    if (pending_io_mode.dataset && pending_io_mode.dxpl == list)
        settle_io_mode();
    iot_transfer_forget(list);
    return iot.pclose(list);
}

/* The transfer mode remembered for the list is stale once the program changes it. */
EXPORT herr_t H5Pset_dxpl_mpio(hid_t list, H5FD_mpio_xfer_t mode)
{
    iot_transfer_forget(list);
    return iot_transfer_set(list, mode);
}

/* Changing a dataset's extent is not expressible in a captured workload (yet). */
static void extent_changed(hid_t dataset, const char *call)
{
    struct iot_file *file = NULL;
    struct iot_dataset *d = iot_dataset_find(dataset, &file);
    if (d)
        iot_capture_unsupported(file, call, d->part.name);
}

EXPORT herr_t H5Dset_extent(hid_t dataset, const hsize_t size[])
{
    init();
    extent_changed(dataset, "H5Dset_extent on");
    return iot.dset_extent(dataset, size);
}

EXPORT herr_t H5Dextend(hid_t dataset, const hsize_t size[])
{
    init();
    extent_changed(dataset, "H5Dextend on");
    return iot.dextend(dataset, size);
}
