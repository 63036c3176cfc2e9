#include "decomposition.h"

#include <stdlib.h>

static int alloc_axes(decomposition *d, int ndims, const uint64_t grid[])
{
    if (ndims < 1 || ndims > DECOMP_MAX_DIMS)
        return -1;
    d->ndims = ndims;
    for (int a = 0; a < DECOMP_MAX_DIMS; a++) {
        d->grid[a] = a < ndims ? grid[a] : 1;
        d->extent[a] = d->start[a] = NULL;
    }
    for (int a = 0; a < ndims; a++) {
        if (grid[a] == 0)
            goto fail;
        d->extent[a] = malloc(grid[a] * sizeof(uint64_t));
        d->start[a] = malloc(grid[a] * sizeof(uint64_t));
        if (!d->extent[a] || !d->start[a])
            goto fail;
    }
    return 0;
fail:
    decomp_free(d);
    return -1;
}

static void fill_starts(decomposition *d)
{
    for (int a = 0; a < d->ndims; a++) {
        uint64_t next = 0;
        for (uint64_t i = 0; i < d->grid[a]; i++) {
            d->start[a][i] = next;
            next += d->extent[a][i];
        }
    }
}

int decomp_init_uniform(decomposition *d, int ndims, const uint64_t grid[], const uint64_t block[])
{
    if (alloc_axes(d, ndims, grid))
        return -1;
    for (int a = 0; a < ndims; a++)
        for (uint64_t i = 0; i < grid[a]; i++)
            d->extent[a][i] = block[a];
    fill_starts(d);
    return 0;
}

int decomp_init_balanced(decomposition *d, int ndims, const uint64_t grid[], const uint64_t dims[])
{
    if (alloc_axes(d, ndims, grid))
        return -1;
    for (int a = 0; a < ndims; a++) {
        uint64_t base = dims[a] / grid[a], rest = dims[a] % grid[a];
        for (uint64_t i = 0; i < grid[a]; i++)
            d->extent[a][i] = base + (i < rest ? 1 : 0);
    }
    fill_starts(d);
    return 0;
}

int decomp_init_listed(decomposition *d, int ndims, const uint64_t grid[],
                       const uint64_t *const extents[])
{
    if (alloc_axes(d, ndims, grid))
        return -1;
    for (int a = 0; a < ndims; a++)
        for (uint64_t i = 0; i < grid[a]; i++)
            d->extent[a][i] = extents[a][i];
    fill_starts(d);
    return 0;
}

void decomp_free(decomposition *d)
{
    for (int a = 0; a < DECOMP_MAX_DIMS; a++) {
        free(d->extent[a]);
        free(d->start[a]);
        d->extent[a] = d->start[a] = NULL;
    }
}

static void sort_descending(uint64_t v[], int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j] > v[j - 1]; j--) {
            uint64_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

/* Prime factors largest first, each given to the axis with the smallest product so far. */
int decomp_grid_create(uint64_t nwriters, int ndims, uint64_t grid[])
{
    if (nwriters == 0 || ndims < 1 || ndims > DECOMP_MAX_DIMS)
        return -1;
    uint64_t factors[64];
    int nfactors = 0;
    for (uint64_t n = nwriters, p = 2; n > 1;) {
        if (p * p > n)
            p = n;
        if (n % p == 0) {
            factors[nfactors++] = p;
            n /= p;
        } else {
            p++;
        }
    }
    sort_descending(factors, nfactors);
    for (int a = 0; a < ndims; a++)
        grid[a] = 1;
    for (int f = 0; f < nfactors; f++) {
        int smallest = 0;
        for (int a = 1; a < ndims; a++)
            if (grid[a] < grid[smallest])
                smallest = a;
        grid[smallest] *= factors[f];
    }
    sort_descending(grid, ndims);
    return 0;
}

uint64_t decomp_writers(const decomposition *d)
{
    uint64_t n = 1;
    for (int a = 0; a < d->ndims; a++)
        n *= d->grid[a];
    return n;
}

void decomp_dims(const decomposition *d, uint64_t dims[])
{
    for (int a = 0; a < d->ndims; a++) {
        uint64_t last = d->grid[a] - 1;
        dims[a] = d->start[a][last] + d->extent[a][last];
    }
}

void decomp_block(const decomposition *d, uint64_t writer, uint64_t start[], uint64_t count[])
{
    for (int a = d->ndims - 1; a >= 0; a--) {
        uint64_t slot = writer % d->grid[a];
        writer /= d->grid[a];
        start[a] = d->start[a][slot];
        count[a] = d->extent[a][slot];
    }
}

uint64_t decomp_block_elements(const decomposition *d, uint64_t writer)
{
    uint64_t start[DECOMP_MAX_DIMS], count[DECOMP_MAX_DIMS], n = 1;
    decomp_block(d, writer, start, count);
    for (int a = 0; a < d->ndims; a++)
        n *= count[a];
    return n;
}
