/* VPIC-IO: the particle dump of the VPIC plasma code as H5Part writes it. Every rank holds the
 * same number of particles; each of the 8 particle variables is one 1D dataset under /Step#0 in
 * one shared file, rank r owning elements [r*N, (r+1)*N). */
#include <stdio.h>

#include "common/kernel.h"

static const struct {
    const char *name;
    element_type type;
} variables[] = {
    {"x", ELEM_FLOAT32},  {"y", ELEM_FLOAT32},  {"z", ELEM_FLOAT32},  {"px", ELEM_FLOAT32},
    {"py", ELEM_FLOAT32}, {"pz", ELEM_FLOAT32}, {"id1", ELEM_INT32}, {"id2", ELEM_INT32},
};

static uint64_t particles = 1u << 20;
static int one_call = 0;

static const kernel_option options[] = {
    {"particles", OPT_COUNT, &particles, 0, 0,
     "particles per rank (default 1048576; paper 8M, Blue Waters 32M)", "particles"},
    {"one-call", OPT_SWITCH, &one_call, 1, 0,
     "write the 8 datasets with one H5Dwrite_multi call (HDF5 >= 1.14 only; on older HDF5 "
     "a real run refuses it and --describe still models it)", "one_call"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

static int lay_out(const run_shape *shape, layout *out, char *err, size_t errlen)
{
    (void)err, (void)errlen; /* every vpic-io option value is valid */
    out->one_call = one_call;
    for (size_t v = 0; v < sizeof variables / sizeof variables[0]; v++) {
        dataset_spec *d = layout_add(out, variables[v].type, "/Step#0/%s", variables[v].name);
        if (!d || decomp_init_uniform(&d->decomp, 1, &shape->ranks, &particles))
            return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const kernel_def vpic = {
        "vpic-io",
        "VPIC-IO: 8 particle variables (x y z px py pz as float, id1 id2 as int) of N particles\n"
        "per rank, one 1D dataset per variable under /Step#0 of one shared HDF5 file (H5Part).",
        "checkpoint", options, lay_out, NULL,
    };
    return kernel_main(argc, argv, &vpic);
}
