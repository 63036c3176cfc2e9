/* One timed file session of collective MPI-IO writes under one romio_cb_write mode, for
 * bench/romio_cb_write.py: every rank writes RECORDS records of RECORD bytes to one shared
 * file, one MPI_File_write_at_all a record.
 *   interleaved: record i of rank r at (i * ranks + r) * RECORD (IOR's hard pattern);
 *   blocks:      record i of rank r at (r * RECORDS + i) * RECORD (each rank its own block).
 * Prints the slowest rank's seconds from the first write to the close's return, then the
 * slowest rank's median seconds a call: a session's time far above records x median is a few
 * calls' long waits (a rank descheduled while the other waits in a collective), not every
 * call's cost.
 *   romio_cb_write PATH MODE PATTERN RECORD RECORDS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_value(const void* a, const void* b)
{
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static double median(double* values, long n)
{
    qsort(values, (size_t)n, sizeof *values, by_value);
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

static int fail(const char* what)
{
    fprintf(stderr, "romio_cb_write: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 2);
    return 2;
}

static MPI_Offset record_offset(int interleaved, long i, int rank, int ranks, long records, long record)
{
    long slot = interleaved ? i * ranks + rank : (long)rank * records + i;
    return (MPI_Offset)slot * record;
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (argc != 6)
        return fail("usage: romio_cb_write PATH automatic|enable|disable interleaved|blocks RECORD RECORDS");
    const char* pattern = argv[3];
    int interleaved = strcmp(pattern, "interleaved") == 0;
    if (!interleaved && strcmp(pattern, "blocks") != 0)
        return fail("PATTERN must be interleaved or blocks");
    long record = atol(argv[4]), records = atol(argv[5]);
    if (record <= 0 || records <= 0)
        return fail("RECORD and RECORDS must be positive");
    char* buf = malloc((size_t)record);
    double* call_s = malloc((size_t)records * sizeof *call_s);
    if (!buf || !call_s)
        return fail("out of memory");
    memset(buf, 'a' + rank, (size_t)record);

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", argv[2]);
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh) != MPI_SUCCESS)
        return fail("cannot open the file");
    MPI_Info_free(&info);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (long i = 0; i < records; i++) {
        double call = MPI_Wtime();
        MPI_File_write_at_all(fh, record_offset(interleaved, i, rank, ranks, records, record), buf, (int)record,
                              MPI_BYTE, MPI_STATUS_IGNORE);
        call_s[i] = MPI_Wtime() - call;
    }
    MPI_File_close(&fh);
    double took[2] = {MPI_Wtime() - start, median(call_s, records)}, slowest[2];
    MPI_Reduce(took, slowest, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%.6f %.9f\n", slowest[0], slowest[1]);
    free(call_s);
    free(buf);
    MPI_Finalize();
    return 0;
}
