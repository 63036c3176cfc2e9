/* GCRM-IO: the history output of the Global Cloud Resolving Model on its geodesic grid.
 *
 * The icosahedral grid of resolution r has 10*4^r + 2 cells (hexagons and 12 pentagons),
 * 30*4^r edges and 20*4^r corners. GCRM cuts it into 10*4^s subdomains (subdomain resolution
 * s <= r): 10 rhombi of 2^s x 2^s blocks, each of 4^(r-s) cells, 3*4^(r-s) edges and 2*4^(r-s)
 * corners; the two polar cells belong to no block. Ranks own whole subdomains (as evenly as
 * possible, the first ranks take the remainder), so each variable is stored as
 * (subdomain, element-in-subdomain, level), chunked one subdomain per chunk; the bytes are laid
 * out as GCRM's (element, level) arrays would be. The polar cells of each cell variable are a
 * small (2, level) dataset written by the first ranks. Values are float64.
 */
#include <stdio.h>

#include "common/kernel.h"

#define MAX_RESOLUTION 24
#define MAX_CHUNK_BYTES ((uint64_t)1 << 32) /* HDF5's limit on one chunk */

static uint64_t resolution = 6;
static uint64_t subdomain_resolution = 2;
static uint64_t levels = 25;
static uint64_t cell_vars = 2, edge_vars = 1, corner_vars = 1;
static uint64_t steps = 1;

static const kernel_option options[] = {
    {"resolution", OPT_LEVEL, &resolution, 0, 0, "grid resolution r: 10*4^r+2 cells (default 6)",
     "resolution"},
    {"subdomain-resolution", OPT_LEVEL, &subdomain_resolution, 0, 0,
     "subdomain resolution s <= r: 10*4^s subdomains (default 2)", "subdomain_resolution"},
    {"levels", OPT_COUNT, &levels, 0, 0, "vertical levels (default and paper 25)", "levels"},
    {"cell-vars", OPT_LEVEL, &cell_vars, 0, 0, "cell variables (default 2)", "cell_vars"},
    {"edge-vars", OPT_LEVEL, &edge_vars, 0, 0, "edge variables (default 1)", "edge_vars"},
    {"corner-vars", OPT_LEVEL, &corner_vars, 0, 0, "corner variables (default 1)", "corner_vars"},
    {"steps", OPT_COUNT, &steps, 0, 0, "time steps in the file (default and paper 1)", "steps"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

typedef struct {
    const char *name;
    const uint64_t *count;
    uint64_t per_block_cells; /* elements of this kind per cell of a subdomain */
} element_kind;

static const element_kind kinds[] = {
    {"cell", &cell_vars, 1}, {"edge", &edge_vars, 3}, {"corner", &corner_vars, 2}};

static int check_options(char *err, size_t errlen)
{
    if (cell_vars + edge_vars + corner_vars == 0) {
        snprintf(err, errlen, "--cell-vars, --edge-vars and --corner-vars are all 0: nothing to "
                 "write");
        return -1;
    }
    if (resolution > MAX_RESOLUTION) {
        snprintf(err, errlen, "--resolution %llu is above %d", (unsigned long long)resolution,
                 MAX_RESOLUTION);
        return -1;
    }
    if (subdomain_resolution > resolution) {
        snprintf(err, errlen, "--subdomain-resolution %llu is above --resolution %llu",
                 (unsigned long long)subdomain_resolution, (unsigned long long)resolution);
        return -1;
    }
    uint64_t cells_per_block = (uint64_t)1 << (2 * (resolution - subdomain_resolution));
    if (cells_per_block * 3 * levels * sizeof(double) >= MAX_CHUNK_BYTES) {
        snprintf(err, errlen, "one subdomain of edges is over HDF5's 4 GiB chunk limit: raise "
                 "--subdomain-resolution (now %llu) or lower --levels",
                 (unsigned long long)subdomain_resolution);
        return -1;
    }
    return 0;
}

static dataset_spec *add_variable(layout *out, uint64_t step, const char *kind, uint64_t v,
                                  const char *suffix)
{
    return layout_add(out, ELEM_FLOAT64, "/Step#%llu/%s_%llu%s", (unsigned long long)step, kind,
                      (unsigned long long)v, suffix);
}

static int add_step(layout *out, uint64_t step, uint64_t ranks)
{
    uint64_t subdomains = 10 * ((uint64_t)1 << (2 * subdomain_resolution));
    uint64_t cells_per_block = (uint64_t)1 << (2 * (resolution - subdomain_resolution));
    uint64_t grid[3] = {ranks, 1, 1};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (uint64_t v = 0; v < *kinds[k].count; v++) {
            uint64_t dims[3] = {subdomains, kinds[k].per_block_cells * cells_per_block, levels};
            dataset_spec *d = add_variable(out, step, kinds[k].name, v, "");
            if (!d || decomp_init_balanced(&d->decomp, 3, grid, dims))
                return -1;
            d->chunked = 1;
            d->chunk[0] = 1;
            d->chunk[1] = dims[1];
            d->chunk[2] = levels;
        }
    for (uint64_t v = 0; v < cell_vars; v++) {
        uint64_t poles[2] = {2, levels};
        dataset_spec *d = add_variable(out, step, "cell", v, "_poles");
        if (!d || decomp_init_balanced(&d->decomp, 2, grid, poles))
            return -1;
    }
    return 0;
}

static int lay_out(const run_shape *shape, layout *out, char *err, size_t errlen)
{
    if (check_options(err, errlen))
        return -1;
    for (uint64_t t = 0; t < steps; t++)
        if (add_step(out, t, shape->ranks))
            return -1;
    return 0;
}

int main(int argc, char **argv)
{
    const kernel_def gcrm = {
        "gcrm-io",
        "GCRM-IO: cell, edge and corner variables (float64) x vertical levels on a geodesic\n"
        "grid; ranks own whole subdomains; chunked datasets /Step#t/{cell,edge,corner}_<v>,\n"
        "and /Step#t/cell_<v>_poles for the two polar cells.",
        "visualisation", options, lay_out, NULL,
    };
    return kernel_main(argc, argv, &gcrm);
}
