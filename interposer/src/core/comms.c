#include "core/comms.h"

#include <stdlib.h>

static struct shared {
    MPI_Group group;
    MPI_Comm comm;
} *shared;
static int nshared;

MPI_Comm iot_comm_for(MPI_Comm app)
{
    int size = 1, same = MPI_UNEQUAL;
    MPI_Group group;
    if (app == MPI_COMM_NULL || MPI_Comm_size(app, &size) != MPI_SUCCESS || size == 1)
        return MPI_COMM_NULL;
    MPI_Comm_group(app, &group);
    for (int i = 0; i < nshared; i++) {
        MPI_Group_compare(group, shared[i].group, &same);
        if (same == MPI_IDENT) {
            MPI_Group_free(&group);
            return shared[i].comm;
        }
    }
    struct shared *more = realloc(shared, (size_t)(nshared + 1) * sizeof *shared);
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(app, &comm);   /* every member dups: none had this group (see comms.h) */
    if (!more) {   /* out of memory for a few bytes: the process is about to fail anyway */
        MPI_Group_free(&group);
        return comm;
    }
    shared = more;
    shared[nshared++] = (struct shared){group, comm};
    return comm;
}

int iot_comms_count(void)
{
    return nshared;
}

MPI_Comm iot_comms_at(int index)
{
    return shared[index].comm;
}

void iot_comms_free(void)
{
    for (int i = 0; i < nshared; i++) {
        MPI_Group_free(&shared[i].group);
        MPI_Comm_free(&shared[i].comm);
    }
    free(shared);
    shared = NULL;
    nshared = 0;
}
