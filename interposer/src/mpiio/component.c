#define _GNU_SOURCE
#include "mpiio/component.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "core/json.h"

/* Open MPI 4.1's OMPIO reads these info keys and no other (v4.1.4, ompi/mca/common/ompio,
 * ompi/mca/fs/lustre): cb_nodes (its aggregator count, over io_ompio_num_aggregators:
 * common_ompio_file_view.c), cb_buffer_size (its collective buffer, over
 * io_ompio_bytes_per_agg: common_ompio_file_open.c), collective_buffering (the individual
 * fcoll component), stripe_size and stripe_width (Lustre striping of a new file). */
static const struct { const char *hint, *why; } OMPIO_IGNORES[] = {
    {"romio_cb_write", "OMPIO ignores ROMIO hints: collective buffering is the fcoll component "
                       "(openmpi.fcoll; individual writes without it)"},
    {"romio_cb_read", "OMPIO ignores ROMIO hints: collective buffering is the fcoll component "
                      "(openmpi.fcoll; individual reads without it)"},
    {"cb_config_list", "OMPIO does not read cb_config_list: it places aggregators itself, "
                       "cb_nodes (or openmpi.num_aggregators) of them"},
    {"striping_factor", "OMPIO does not read striping_factor: its Lustre driver reads info "
                        "stripe_width (MCA fs_lustre_stripe_width)"},
    {"striping_unit", "OMPIO does not read striping_unit: its Lustre driver reads info "
                      "stripe_size (MCA fs_lustre_stripe_size)"},
};

static const char *OMPIO_READS[] = {"cb_nodes", "cb_buffer_size", "collective_buffering",
                                    "stripe_size", "stripe_width"};

const char *iot_ompio_ignores(const char *hint)
{
    for (size_t i = 0; i < sizeof OMPIO_READS / sizeof *OMPIO_READS; i++)
        if (strcmp(hint, OMPIO_READS[i]) == 0)
            return NULL;
    for (size_t i = 0; i < sizeof OMPIO_IGNORES / sizeof *OMPIO_IGNORES; i++)
        if (strcmp(hint, OMPIO_IGNORES[i].hint) == 0)
            return OMPIO_IGNORES[i].why;
    return "OMPIO ignores ROMIO hints (it reads only cb_nodes, cb_buffer_size, "
           "collective_buffering, stripe_size and stripe_width)";
}

const char *iot_ompio_misreads(const char *hint, const char *value)
{
    /* common_ompio_file_open.c compares with strncmp(value, "false", sizeof("true")), which is
     * non-zero for every value but "false" (open-mpi/ompi#13377, fixed after 4.1.8) */
    if (strcmp(hint, "collective_buffering") == 0 && strcmp(value, "false") != 0)
        return "Open MPI 4.1's OMPIO reads collective_buffering backwards: any value but "
               "\"false\" selects the individual fcoll component, i.e. no collective buffering "
               "(open-mpi/ompi#13377)";
    return NULL;
}

/* What does not change while the process runs, read with its first file: the MPI library,
 * the io component (chosen by MCA priorities, the same for every file) and the MCA
 * parameters (read by MPI_Init). */
static struct {
    int have_version, have_component, have_mca;
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    enum iot_mpi_io component;
    struct iot_mca mca;
} known;

/* The MPI library's name and version, on one line. */
static const char *library_version(void)
{
    int len = 0;
    if (known.have_version++)
        return known.version;
    MPI_Get_library_version(known.version, &len);
    known.version[strcspn(known.version, ",\n")] = '\0';
    for (char *c = known.version; *c; c++)
        if (*c == '\t')
            *c = ' ';
    return known.version;
}

/* Whether a component of OMPIO's sub-frameworks is mapped: only OMPIO opens them. */
static int ompio_mapped(void)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[1024];
    int found = 0;
    if (!maps)
        return 0;
    while (!found && fgets(line, sizeof line, maps))
        found = strstr(line, "/mca_fcoll_") != NULL || strstr(line, "/mca_fbtl_") != NULL;
    fclose(maps);
    return found;
}

enum iot_mpi_io iot_mpi_io_component(void)
{
    if (known.have_component++)
        return known.component;
    if (!strstr(library_version(), "Open MPI"))
        return known.component = IOT_MPI_IO_ROMIO;
    return known.component = ompio_mapped() ? IOT_MPI_IO_OMPIO : IOT_MPI_IO_ROMIO321;
}

/* One MCA parameter as text; 0 when the library has none of that name. */
static int read_cvar(const char *name, char *text, size_t len, int *number)
{
    int index = 0, count = 0, verbosity, bind, scope, name_len = 0, desc_len = 0, ok = 0;
    MPI_Datatype type;
    MPI_T_enum enumtype;
    MPI_T_cvar_handle handle;
    if (MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS
        || MPI_T_cvar_get_info(index, NULL, &name_len, &verbosity, &type, &enumtype, NULL,
                               &desc_len, &bind, &scope) != MPI_SUCCESS
        || bind != MPI_T_BIND_NO_OBJECT
        || MPI_T_cvar_handle_alloc(index, NULL, &handle, &count) != MPI_SUCCESS)
        return 0;
    *number = type != MPI_CHAR;
    if (type == MPI_CHAR) {
        char *value = calloc((size_t)count + 1, 1);
        ok = value && MPI_T_cvar_read(handle, value) == MPI_SUCCESS;
        if (ok)
            snprintf(text, len, "%s", value);
        free(value);
    } else if (type == MPI_INT || type == MPI_UNSIGNED) {
        int value = 0;
        ok = MPI_T_cvar_read(handle, &value) == MPI_SUCCESS;
        snprintf(text, len, "%d", value);
    } else if (type == MPI_LONG || type == MPI_UNSIGNED_LONG || type == MPI_LONG_LONG
               || type == MPI_UNSIGNED_LONG_LONG || type == MPI_COUNT) {
        long long value = 0;
        ok = MPI_T_cvar_read(handle, &value) == MPI_SUCCESS;
        snprintf(text, len, "%lld", value);
    }
    MPI_T_cvar_handle_free(&handle);
    return ok;
}

void iot_mca_read(struct iot_mca *mca, enum iot_mpi_io component)
{
    int provided = 0;
    if (known.have_mca++) {
        *mca = known.mca;
        return;
    }
    memset(&known.mca, 0, sizeof known.mca);
    if (component != IOT_MPI_IO_ROMIO
        && MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS) {
        for (int id = 0; id < IOT_NKEYS; id++)
            if (IOT_KEYS[id].mca)
                known.mca.known[id] = read_cvar(IOT_KEYS[id].mca, known.mca.text[id],
                                                sizeof known.mca.text[id],
                                                &known.mca.number[id]);
        MPI_T_finalize();
    }
    *mca = known.mca;
}

static void write_mca(struct buf *out, const struct iot_mca *mca)
{
    int k = 0;
    PUT(out, "{");
    for (int id = 0; id < IOT_NKEYS; id++) {
        if (!IOT_KEYS[id].mca)
            continue;
        put(out, iot_json_sep(&k));
        put_string(out, IOT_KEYS[id].mca);
        PUT(out, ": ");
        if (!mca->known[id])
            PUT(out, "null");
        else if (mca->number[id])
            put(out, mca->text[id]);
        else
            put_string(out, mca->text[id]);
    }
    PUT(out, "}");
}

const char *iot_mpi_io_name(enum iot_mpi_io component)
{
    static const char *NAME[] = {"romio", "romio321", "ompio"};
    return NAME[component];
}

void iot_write_mpi_io(struct buf *out, enum iot_mpi_io component, const struct iot_mca *mca)
{
    static const char *EVIDENCE[] = {
        "MPICH writes through ROMIO",
        "no OMPIO sub-framework is loaded: the io component is romio321 (whose "
        "MPI_File_get_info returns the info given, not ROMIO's values)",
        "OMPIO's fcoll and fbtl components are loaded in the process",
    };
    PUT(out, "\"mpi_io\": {\"library\": ");
    put_string(out, library_version());
    PUT(out, ", \"component\": ");
    put_string(out, iot_mpi_io_name(component));
    PUT(out, ", \"evidence\": ");
    put_string(out, EVIDENCE[component]);
    if (component != IOT_MPI_IO_ROMIO) {
        PUT(out, ", \"mca\": ");
        write_mca(out, mca);
    }
    PUT(out, "}");
}
