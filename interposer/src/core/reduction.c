/* A file's report reduced over its communicator (core/report.h): times, bytes and writes,
 * and each part's figures (core/records.h), in one nonblocking reduction posted at the
 * file's close. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/comms.h"
#include "core/layer.h"
#include "core/report.h"

/* --- reduction over the file's communicator -------------------------------------------------- */

static char *part_lines(const struct iot_file *file, int *len)
{
    struct buf out = {NULL, 0, 0, 0};
    for (int i = 0; i < file->nparts; i++) {
        const struct iot_part *d = file->parts[i];
        put_int(&out, d->calls);
        PUT(&out, " ");
        put_int(&out, d->bytes);
        put_format(&out, " %.9f ", d->seconds);
        put(&out, d->name);
        PUT(&out, "\n");
    }
    char *text = buf_take(&out);
    *len = text ? (int)out.len : 0;
    return text;
}

/* The record named `name`; ranks usually list their datasets in the same order, so the one
 * after the previous match is tried first (*next), which keeps merging linear. */
static struct iot_part *part_named(struct iot_file *file, const char *name, int *next)
{
    if (*next < file->nparts && strcmp(file->parts[*next]->name, name) == 0)
        return file->parts[(*next)++];
    for (int i = 0; i < file->nparts; i++)
        if (strcmp(file->parts[i]->name, name) == 0) {
            *next = i + 1;
            return file->parts[i];
        }
    *next = file->nparts + 1;
    return file->layer->part_new(file, name);
}

/* Adds one rank's lines "calls bytes seconds name" to rank 0's records. */
static void merge_part_lines(struct iot_file *file, char *text)
{
    int next = 0;
    for (char *line = text, *next_line; line && *line; line = next_line) {
        next_line = strchr(line, '\n');
        if (next_line)
            *next_line++ = '\0';
        char *rest = line;
        long long calls = strtoll(rest, &rest, 10), bytes = strtoll(rest, &rest, 10);
        double seconds = strtod(rest, &rest);
        if (*rest++ != ' ')
            continue;
        struct iot_part *d = part_named(file, rest, &next);
        d->calls += calls;
        d->bytes += bytes;
        d->seconds = seconds > d->seconds ? seconds : d->seconds;
    }
}

/* Rank 0 gets the other ranks' per-part writes (ranks may have written different parts). */
static void gather_parts(struct iot_file *file, int rank, int size)
{
    int len = 0;
    char *mine = rank == 0 ? NULL : part_lines(file, &len);
    int *lens = rank == 0 ? calloc((size_t)size, sizeof *lens) : NULL;
    int *offsets = rank == 0 ? calloc((size_t)size, sizeof *offsets) : NULL;
    MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, file->comm);
    int total = 0;
    for (int r = 0; rank == 0 && r < size; r++) {
        offsets[r] = total;
        total += lens[r];
    }
    char *all = rank == 0 ? calloc((size_t)total + 1, 1) : NULL;
    MPI_Gatherv(mine, len, MPI_CHAR, all, lens, offsets, MPI_CHAR, 0, file->comm);
    if (rank == 0)
        merge_part_lines(file, all);
    free(all);
    free(lens);
    free(offsets);
    free(mine);
}

/* The figures of a file reduced in one MPI_Allreduce: its times (the slowest rank's; the open
 * as its negation, so that the maximum is the earliest), bytes and writes (summed), and, when
 * every rank lists the same parts (their count and a hash of their names agree), each
 * part's calls, bytes (summed) and seconds (slowest) in one of SLOTS slots. A user op on
 * a datatype of the whole record: MPI may apply a predefined op to parts of a buffer, never a
 * user op to part of one element. */
#define SLOTS 32
enum { R_OPEN, R_WRITE, R_FLUSH, R_CLOSE, R_METADATA, R_T_OPEN, R_T_CLOSE, R_BYTES, R_WRITES,
       R_READ, R_READ_BYTES, R_READS, R_ND, R_ND_NEG, R_HASH, R_HASH_NEG, R_HEADER };
#define R_LEN (R_HEADER + 3 * SLOTS)

static void reduce_records(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int n = 0; n < *len; n++) {
        const double *a = (const double *)in + (size_t)n * R_LEN;
        double *b = (double *)inout + (size_t)n * R_LEN;
        for (int i = 0; i < R_LEN; i++) {
            int sum = i == R_BYTES || i == R_WRITES || i == R_READ_BYTES || i == R_READS
                      || (i >= R_HEADER && (i - R_HEADER) % 3 != 2);
            b[i] = sum ? a[i] + b[i] : (a[i] > b[i] ? a[i] : b[i]);
        }
    }
}

static struct {
    MPI_Datatype type;
    MPI_Op op;
} record_reduction = {MPI_DATATYPE_NULL, MPI_OP_NULL};

static MPI_Datatype record_type(void)
{
    if (record_reduction.type == MPI_DATATYPE_NULL) {
        MPI_Type_contiguous(R_LEN, MPI_DOUBLE, &record_reduction.type);
        MPI_Type_commit(&record_reduction.type);
    }
    return record_reduction.type;
}

static MPI_Op record_op(void)
{
    if (record_reduction.op == MPI_OP_NULL)
        MPI_Op_create(reduce_records, 1, &record_reduction.op);
    return record_reduction.op;
}

void iot_report_free(void)
{
    if (record_reduction.op != MPI_OP_NULL)
        MPI_Op_free(&record_reduction.op);
    if (record_reduction.type != MPI_DATATYPE_NULL)
        MPI_Type_free(&record_reduction.type);
}

/* A hash of the part names in order, exact in a double (52 bits). */
static double names_hash(const struct iot_file *file)
{
    unsigned long long h = 1469598103934665603ULL;
    for (int i = 0; i < file->nparts; i++)
        for (const char *c = file->parts[i]->name; ; c++) {
            h = (h ^ (unsigned char)*c) * 1099511628211ULL;
            if (!*c)
                break;
        }
    return (double)(h >> 12);
}

static void fill_record(const struct iot_file *file, double *r)
{
    double hash = names_hash(file);
    memset(r, 0, R_LEN * sizeof *r);
    r[R_OPEN] = file->open_s, r[R_WRITE] = file->write_s, r[R_FLUSH] = file->flush_s;
    r[R_CLOSE] = file->close_s, r[R_METADATA] = file->metadata_s;
    r[R_T_OPEN] = -file->t_open, r[R_T_CLOSE] = file->t_close;
    r[R_BYTES] = (double)file->bytes, r[R_WRITES] = (double)file->writes;
    r[R_READ] = file->read_s, r[R_READ_BYTES] = (double)file->read_bytes;
    r[R_READS] = (double)file->reads;
    r[R_ND] = file->nparts, r[R_ND_NEG] = -file->nparts;
    r[R_HASH] = hash, r[R_HASH_NEG] = -hash;
    for (int i = 0; i < file->nparts && i < SLOTS; i++) {
        const struct iot_part *d = file->parts[i];
        double *slot = r + R_HEADER + 3 * i;
        slot[0] = (double)d->calls, slot[1] = (double)d->bytes, slot[2] = d->seconds;
    }
}

static void take_record(struct iot_file *file, const double *r, int same_parts)
{
    file->open_s = r[R_OPEN], file->write_s = r[R_WRITE], file->flush_s = r[R_FLUSH];
    file->close_s = r[R_CLOSE], file->metadata_s = r[R_METADATA];
    file->t_open = -r[R_T_OPEN], file->t_close = r[R_T_CLOSE];
    file->bytes = (long long)r[R_BYTES], file->writes = (long long)r[R_WRITES];
    file->read_s = r[R_READ], file->read_bytes = (long long)r[R_READ_BYTES];
    file->reads = (long long)r[R_READS];
    for (int i = 0; same_parts && i < file->nparts; i++) {
        struct iot_part *d = file->parts[i];
        const double *slot = r + R_HEADER + 3 * i;
        d->calls = (long long)slot[0], d->bytes = (long long)slot[1], d->seconds = slot[2];
    }
}

/* --- reductions in flight ------------------------------------------------------------------- */

/* A file's reduction, posted at its close (MPI_Iallreduce) and finished, with its line
 * written, when the next file on the same communicator closes or MPI_Finalize comes: a file
 * session then waits for no collective of the interposer's, and collectives on one
 * communicator stay in the same order on every rank. */
struct pending {
    struct iot_file *file;
    const struct iot_run *run;
    double r[R_LEN];
    MPI_Request request;
};

static struct pending *pending;
static int npending;

static void finish(struct pending *p)
{
    int rank = 0, ranks = 1;
    MPI_Comm_rank(p->file->comm, &rank);
    MPI_Comm_size(p->file->comm, &ranks);
    PMPI_Wait(&p->request, MPI_STATUS_IGNORE);   /* the interposer's own: not hooked */
    const double *r = p->r;
    int same = r[R_ND] == -r[R_ND_NEG] && r[R_HASH] == -r[R_HASH_NEG] && r[R_ND] <= SLOTS;
    if (!same)   /* ranks wrote different parts: their lines go to rank 0 */
        gather_parts(p->file, rank, ranks);
    take_record(p->file, r, same);
    if (rank == 0)
        iot_report_write(p->file, p->run, ranks);
    iot_file_free(p->file);
}

/* Finishes the reduction in flight on `comm`, if any. */
static void settle(MPI_Comm comm)
{
    for (int i = 0; i < npending; i++)
        if (pending[i].file->comm == comm) {
            finish(&pending[i]);
            pending[i] = pending[--npending];
            return;
        }
}

void iot_report_settle_all(void)
{
    for (int i = 0; i < iot_comms_count(); i++)   /* in the order the communicators were made */
        settle(iot_comms_at(i));
    while (npending)
        settle(pending[0].file->comm);
    free(pending);
    pending = NULL;
}

void iot_report_close(struct iot_file *file, const struct iot_run *run)
{
    iot_file_detach(file);
    if (!run->report_path) {   /* no report (as on every rank): nothing to reduce */
        iot_file_free(file);
        return;
    }
    if (file->comm == MPI_COMM_NULL) {   /* this process alone */
        iot_report_write(file, run, 1);
        iot_file_free(file);
        return;
    }
    settle(file->comm);
    struct pending *more = realloc(pending, (size_t)(npending + 1) * sizeof *pending);
    if (!more) {   /* out of memory: no report, but the same collectives as the other ranks */
        double r[R_LEN];
        fill_record(file, r);
        MPI_Allreduce(MPI_IN_PLACE, r, 1, record_type(), record_op(), file->comm);
        iot_file_free(file);
        return;
    }
    pending = more;
    struct pending *p = &pending[npending++];
    p->file = file, p->run = run;
    fill_record(file, p->r);
    MPI_Iallreduce(MPI_IN_PLACE, p->r, 1, record_type(), record_op(), file->comm, &p->request);
}

