/* Regular writes: every rank of the file's communicator wrote one box of the same extents,
 * at origin + unravel(rank, grid) * extents. Three rounds of MPI_Allreduce over all writes at
 * once find them, whatever the number of ranks: (1) all one box? extents equal? their origin
 * (the smallest start); (2) every start a whole number of blocks from the origin? the grid
 * (the largest coordinate + 1) has as many cells as ranks; (3) every rank at
 * unravel(rank, grid). */
#include <stdlib.h>

#include "capture/session.h"

/* Scratch of the rounds: per write g, `lo[g]` / `hi[g]`, then per axis x `lo[W + x]`... */
struct rounds {
    int W;
    size_t T;                      /* axes of all writes */
    long long *lo, *hi;
    const long long **box;         /* this rank's box start per write, or NULL */
};

/* 1 if this rank wrote exactly one non-empty box in a write: its start and extents. */
static int one_box(const long long *sel, int rank, const long long **start,
                   const long long **extents)
{
    if (!sel || sel[0] != 1 || rank == 0)
        return 0;
    const long long *h = sel + 1;
    for (int a = 0; a < rank; a++)
        if (h[rank + a] != 1 || h[3 * rank + a] != 1 || h[2 * rank + a] <= 0)
            return 0;
    *start = h;
    *extents = h + 2 * rank;
    return 1;
}

static int unravel_matches(int writer, const long long *coord, const long long *grid, int rank)
{
    for (int a = rank - 1; a >= 0; a--) {
        if (coord[a] != writer % grid[a])
            return 0;
        writer /= (int)grid[a];
    }
    return writer == 0;
}

/* The per-write axis offsets and the arrays of the session and of the rounds. */
static int allocate(struct session *s, const struct iot_capture *c, struct rounds *r)
{
    int W = s->nwrites;
    s->axis = malloc(((size_t)W + 1) * sizeof *s->axis);
    s->regular = calloc((size_t)W + 1, sizeof *s->regular);
    if (!s->axis || !s->regular)
        return 0;
    s->naxes = 0;
    for (int g = 0; g < W; g++) {
        s->axis[g] = s->naxes;
        s->naxes += (size_t)session_axes(s, c, g);
    }
    r->W = W;
    r->T = s->naxes;
    r->lo = malloc(((size_t)W + 2 * r->T + 1) * sizeof *r->lo);
    r->hi = malloc(((size_t)W + r->T + 1) * sizeof *r->hi);
    r->box = malloc(((size_t)W + 1) * sizeof *r->box);
    s->grid = malloc((r->T + 1) * sizeof *s->grid);
    s->block = malloc((r->T + 1) * sizeof *s->block);
    s->origin = malloc((r->T + 1) * sizeof *s->origin);
    return r->lo && r->hi && r->box && s->grid && s->block && s->origin;
}

/* Round 1: all one box? the extents' minimum and maximum, the starts' minimum (the origin). */
static void round_boxes(struct session *s, const struct iot_capture *c, struct rounds *r)
{
    int W = r->W;
    size_t T = r->T;
    for (int g = 0; g < W; g++) {
        const long long *start = NULL, *ext = NULL;
        int one = one_box(session_selection(s, c, g), session_axes(s, c, g), &start, &ext);
        r->box[g] = one ? start : NULL;
        r->lo[g] = one;
        for (int a = 0; a < session_axes(s, c, g); a++) {
            r->lo[W + s->axis[g] + a] = one ? ext[a] : 0;
            r->lo[W + T + s->axis[g] + a] = one ? start[a] : 0;
            r->hi[s->axis[g] + a] = one ? ext[a] : 0;
        }
    }
    session_allreduce(s, r->lo, W + 2 * (int)T, MPI_LONG_LONG, MPI_MIN);
    session_allreduce(s, r->hi, (int)T, MPI_LONG_LONG, MPI_MAX);
    for (int g = 0; g < W; g++) {
        s->regular[g] = r->lo[g] == 1;
        for (int a = 0; a < session_axes(s, c, g); a++) {
            size_t x = s->axis[g] + a;
            s->block[x] = r->lo[W + x];
            s->origin[x] = r->lo[W + T + x];
            s->regular[g] &= r->lo[W + x] == r->hi[x];
        }
    }
}

/* Round 2: coordinates in blocks from the origin; the grid is their maximum + 1. */
static void round_grid(struct session *s, const struct iot_capture *c, struct rounds *r)
{
    int W = r->W;
    for (int g = 0; g < W; g++) {
        const long long *start = s->regular[g] ? r->box[g] : NULL;
        r->hi[g] = 0;
        for (int a = 0; a < session_axes(s, c, g); a++) {
            size_t x = s->axis[g] + a;
            long long offset = start ? start[a] - s->origin[x] : 0;
            r->hi[g] |= start && offset % s->block[x] != 0;
            r->hi[W + x] = start ? offset / s->block[x] : 0;
        }
    }
    session_allreduce(s, r->hi, W + (int)r->T, MPI_LONG_LONG, MPI_MAX);
    for (int g = 0; g < W; g++) {
        long long writers = 1;
        for (int a = 0; a < session_axes(s, c, g); a++) {
            s->grid[s->axis[g] + a] = r->hi[W + s->axis[g] + a] + 1;
            writers *= s->grid[s->axis[g] + a];
        }
        s->regular[g] &= !r->hi[g] && writers == s->size;
    }
}

/* Round 3: every rank sits at unravel(rank, grid). */
static void round_places(struct session *s, const struct iot_capture *c, struct rounds *r)
{
    for (int g = 0; g < r->W; g++) {
        int n = session_axes(s, c, g);
        const long long *start = s->regular[g] ? r->box[g] : NULL;
        long long coord[MAXR];
        for (int a = 0; start && a < n; a++)
            coord[a] = (start[a] - s->origin[s->axis[g] + a]) / s->block[s->axis[g] + a];
        r->lo[g] = start && unravel_matches(s->rank, coord, s->grid + s->axis[g], n);
    }
    session_allreduce(s, r->lo, r->W, MPI_LONG_LONG, MPI_MIN);
    for (int g = 0; g < r->W; g++)
        s->regular[g] = s->regular[g] && r->lo[g];
}

int session_find_regular(struct session *s, const struct iot_capture *c)
{
    struct rounds r = {0, 0, NULL, NULL, NULL};
    int ok = session_all_ok(s, allocate(s, c, &r));
    if (ok) {
        round_boxes(s, c, &r);
        round_grid(s, c, &r);
        round_places(s, c, &r);
    }
    free(r.lo), free(r.hi), free(r.box);
    return ok;
}
