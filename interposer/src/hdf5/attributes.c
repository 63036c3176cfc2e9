/* The attributes a program writes, for the capture: HDF5 writes them in the file's metadata,
 * which iosim makes again from the workload (capture/capture.h, iot_capture_attribute).
 * netCDF-4 writes its own (_NCProperties, _Netcdf4Coordinates, _Netcdf4Dimid) with H5Acreate1,
 * and its dimensions' through the dimension-scale calls of HDF5's high-level library: those
 * are captured as the calls they are (the references DIMENSION_LIST and REFERENCE_LIST hold
 * live in a global heap, which only the calls make again), the H5A calls made inside them
 * passing through. What an attribute holds does not size it (but for variable-length types,
 * listed unsupported): H5Awrite is not hooked. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>

#include "capture/capture.h"
#include "core/runtime.h"
#include "hdf5/hooks.h"

#define EXPORT __attribute__((visibility("default")))

/* The workload's name of an attribute's element class, NULL for one it cannot make again. */
static const char *element_class(hid_t type)
{
    switch (H5Tget_class(type)) {
    case H5T_INTEGER: return "integer";
    case H5T_FLOAT: return "float";
    case H5T_STRING: return H5Tis_variable_str(type) > 0 ? NULL : "string";
    case H5T_OPAQUE:
    case H5T_BITFIELD: return "opaque";
    default: return NULL;
    }
}

/* The object's absolute name ("/" for the file or its root group), the caller's to free. */
static char *object_name(hid_t object)
{
    ssize_t n = H5Iget_name(object, NULL, 0);
    char *name = n > 0 ? malloc((size_t)n + 1) : NULL;
    if (name && H5Iget_name(object, name, (size_t)n + 1) < 0) {
        free(name);
        return NULL;
    }
    return name;
}

static void captured(struct iot_file *file, const char *object, const char *name, hid_t type,
                     hid_t space)
{
    hsize_t dims[H5S_MAX_RANK];
    struct cap_attribute a = {name, element_class(type), (long long)H5Tget_size(type),
                              H5Sget_simple_extent_dims(space, dims, NULL), dims};
    if (a.element_class && a.rank >= 0 && H5Sget_simple_extent_type(space) != H5S_NULL) {
        iot_capture_attribute(file, object, &a);
        return;
    }
    char label[512];
    snprintf(label, sizeof label, "%s of %s", name, object);
    iot_capture_unsupported(file, "an attribute of a variable-length, compound, reference, "
                            "enumerated or array type, or of no extent:", label);
}

/* The file whose session captures `object`, when the program's own call (not one made
 * inside a hooked call, such as the dimension-scale calls' attributes) succeeded; else NULL. */
static struct iot_file *capturing(int program, int succeeded, hid_t object)
{
    struct iot_file *file = program && succeeded && iot_capture_enabled()
                                ? iot_hdf5_file_of(object) : NULL;
    return file && file->capture ? file : NULL;
}

/* An attribute the program created on `object` (`at`: its name below it, "." itself). */
static void attribute_created(struct iot_file *file, hid_t object, const char *at,
                              const char *name, hid_t type, hid_t space, double start)
{
    if (!file)
        return;
    char *path = at[0] == '.' && at[1] == '\0' ? object_name(object)
                                                : iot_hdf5_full_name(object, at);
    if (path)
        captured(file, path, name, type, space);
    free(path);
    iot_capture_metadata(file, iot_now() - start);
}

/* Each hook: the real call inside iot_depth (the MPI-IO calls it makes are HDF5's), then the
 * capture when the program made it. */
#define REAL(name) static __typeof__(name) *real; \
    if (!real) real = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

EXPORT hid_t H5Acreate2(hid_t loc, const char *name, hid_t type, hid_t space, hid_t acpl,
                        hid_t aapl)
{
    REAL(H5Acreate2);
    int program = iot_depth++ == 0;
    double start = iot_now();
    hid_t id = real(loc, name, type, space, acpl, aapl);
    attribute_created(capturing(program, id >= 0, loc), loc, ".", name, type, space,
                      start);
    iot_depth--;
    return id;
}

EXPORT hid_t H5Acreate1(hid_t loc, const char *name, hid_t type, hid_t space, hid_t acpl)
{
    REAL(H5Acreate1);
    int program = iot_depth++ == 0;
    double start = iot_now();
    hid_t id = real(loc, name, type, space, acpl);
    attribute_created(capturing(program, id >= 0, loc), loc, ".", name, type, space,
                      start);
    iot_depth--;
    return id;
}

EXPORT hid_t H5Acreate_by_name(hid_t loc, const char *object, const char *name, hid_t type,
                               hid_t space, hid_t acpl, hid_t aapl, hid_t lapl)
{
    REAL(H5Acreate_by_name);
    int program = iot_depth++ == 0;
    double start = iot_now();
    hid_t id = real(loc, object, name, type, space, acpl, aapl, lapl);
    attribute_created(capturing(program, id >= 0, loc), loc, object, name, type, space,
                      start);
    iot_depth--;
    return id;
}

/* --- dimension scales (libhdf5_hl, found where the program loaded it) ---------------------- */

/* The high-level library's header is not needed for two prototypes. */
herr_t H5DSset_scale(hid_t dataset, const char *scale_name);
herr_t H5DSattach_scale(hid_t dataset, hid_t scale, unsigned axis);

EXPORT herr_t H5DSset_scale(hid_t dataset, const char *scale_name)
{
    REAL(H5DSset_scale);
    int program = iot_depth++ == 0;
    double start = iot_now();
    herr_t rc = real(dataset, scale_name);
    struct iot_file *file = capturing(program, rc >= 0, dataset);
    char *name = file ? object_name(dataset) : NULL;
    if (name) {
        iot_capture_set_scale(file, name, scale_name);
        iot_capture_metadata(file, iot_now() - start);
    }
    free(name);
    iot_depth--;
    return rc;
}

EXPORT herr_t H5DSattach_scale(hid_t dataset, hid_t scale, unsigned axis)
{
    REAL(H5DSattach_scale);
    int program = iot_depth++ == 0;
    double start = iot_now();
    herr_t rc = real(dataset, scale, axis);
    struct iot_file *file = capturing(program, rc >= 0, dataset);
    char *name = file ? object_name(dataset) : NULL;
    char *scale_name = name ? object_name(scale) : NULL;
    if (scale_name) {
        iot_capture_attach_scale(file, name, scale_name, axis);
        iot_capture_metadata(file, iot_now() - start);
    }
    free(name);
    free(scale_name);
    iot_depth--;
    return rc;
}
