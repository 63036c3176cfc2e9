#include "core/comms.h"

#include <stdlib.h>

static struct known {
    MPI_Group group;
    MPI_Comm comm;            /* MPI_COMM_NULL until a file needs one */
    struct iot_group about;   /* about.leader < 0: not inside MPI_COMM_WORLD */
} **known;
static int nknown;

/* Its size, leader and members' hash, from its members' ranks in MPI_COMM_WORLD. */
static void describe(struct iot_group *about, MPI_Group group, int size)
{
    int *ranks = malloc((size_t)size * sizeof *ranks);
    int *world_ranks = malloc((size_t)size * sizeof *world_ranks);
    MPI_Group world;
    about->size = size;
    about->leader = -1;
    if (!ranks || !world_ranks) {
        free(ranks);
        free(world_ranks);
        return;
    }
    for (int i = 0; i < size; i++)
        ranks[i] = i;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_translate_ranks(group, size, ranks, world, world_ranks);
    MPI_Group_free(&world);
    unsigned long long hash = 1469598103934665603ULL;
    int inside = 1;
    for (int i = 0; i < size; i++) {
        inside &= world_ranks[i] != MPI_UNDEFINED;
        hash = (hash ^ (unsigned long long)world_ranks[i]) * 1099511628211ULL;
    }
    about->members = hash;
    about->leader = inside ? world_ranks[0] : -1;
    free(ranks);
    free(world_ranks);
}

static struct known *known_for(MPI_Comm app)
{
    int size = 1, same = MPI_UNEQUAL;
    MPI_Group group;
    if (app == MPI_COMM_NULL || MPI_Comm_size(app, &size) != MPI_SUCCESS || size == 1)
        return NULL;
    MPI_Comm_group(app, &group);
    for (int i = 0; i < nknown; i++) {
        MPI_Group_compare(group, known[i]->group, &same);
        if (same == MPI_IDENT) {
            MPI_Group_free(&group);
            return known[i];
        }
    }
    struct known *fresh = calloc(1, sizeof *fresh);
    struct known **more = realloc(known, (size_t)(nknown + 1) * sizeof *known);
    known = more ? more : known;
    if (!fresh || !more) {   /* out of memory for a few bytes: the process is about to fail */
        free(fresh);
        MPI_Group_free(&group);
        return NULL;
    }
    fresh->group = group;
    fresh->comm = MPI_COMM_NULL;
    describe(&fresh->about, group, size);
    return known[nknown++] = fresh;
}

void iot_group_and_comm(MPI_Comm app, struct iot_group **group, MPI_Comm *comm)
{
    struct known *k = known_for(app);
    if (group)
        *group = k && k->about.leader >= 0 ? &k->about : NULL;
    if (!comm)
        return;
    if (k && k->comm == MPI_COMM_NULL)
        MPI_Comm_dup(app, &k->comm);   /* every member dups: see comms.h */
    *comm = k ? k->comm : MPI_COMM_NULL;
}

MPI_Comm iot_comm_for(MPI_Comm app)
{
    MPI_Comm comm;
    iot_group_and_comm(app, NULL, &comm);
    return comm;
}

void iot_comms_free(void)
{
    for (int i = 0; i < nknown; i++) {
        MPI_Group_free(&known[i]->group);
        if (known[i]->comm != MPI_COMM_NULL)
            MPI_Comm_free(&known[i]->comm);
        free(known[i]);
    }
    free(known);
    known = NULL;
    nknown = 0;
}
