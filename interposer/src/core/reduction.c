/* A file's report reduced over the processes that opened it (core/report.h). Nothing of it
 * happens while the program runs: at a file's close its record is held, and at MPI_Finalize
 * every process sends the records of the files it did not lead to their leaders (the
 * MPI_COMM_WORLD rank of rank 0 of the file's communicator), which add them to their own and
 * write the lines. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/comms.h"
#include "core/layer.h"
#include "core/report.h"

/* --- a file's figures ------------------------------------------------------------------------ */

/* The figures of a file, reduced over its processes: its times (the slowest rank's; the open
 * as its negation, so that the maximum is the earliest), bytes, writes and reads (summed). */
enum { R_OPEN, R_WRITE, R_FLUSH, R_CLOSE, R_METADATA, R_T_OPEN, R_T_CLOSE, R_BYTES, R_WRITES,
       R_READ, R_READ_BYTES, R_READS, R_LEN };

static void add_figures(const double *a, double *b)
{
    for (int i = 0; i < R_LEN; i++) {
        int sum = i == R_BYTES || i == R_WRITES || i == R_READ_BYTES || i == R_READS;
        b[i] = sum ? a[i] + b[i] : (a[i] > b[i] ? a[i] : b[i]);
    }
}

static void fill_figures(const struct iot_file *file, double *r)
{
    r[R_OPEN] = file->open_s, r[R_WRITE] = file->write_s, r[R_FLUSH] = file->flush_s;
    r[R_CLOSE] = file->close_s, r[R_METADATA] = file->metadata_s;
    r[R_T_OPEN] = -file->t_open, r[R_T_CLOSE] = file->t_close;
    r[R_BYTES] = (double)file->bytes, r[R_WRITES] = (double)file->writes;
    r[R_READ] = file->read_s, r[R_READ_BYTES] = (double)file->read_bytes;
    r[R_READS] = (double)file->reads;
}

static void take_figures(struct iot_file *file, const double *r)
{
    file->open_s = r[R_OPEN], file->write_s = r[R_WRITE], file->flush_s = r[R_FLUSH];
    file->close_s = r[R_CLOSE], file->metadata_s = r[R_METADATA];
    file->t_open = -r[R_T_OPEN], file->t_close = r[R_T_CLOSE];
    file->bytes = (long long)r[R_BYTES], file->writes = (long long)r[R_WRITES];
    file->read_s = r[R_READ], file->read_bytes = (long long)r[R_READ_BYTES];
    file->reads = (long long)r[R_READS];
}

/* --- its parts' figures, as lines "calls bytes seconds name" ---------------------------------- */

static void put_part_lines(struct buf *out, const struct iot_file *file)
{
    for (int i = 0; i < file->nparts; i++) {
        const struct iot_part *d = file->parts[i];
        put_int(out, d->calls);
        PUT(out, " ");
        put_int(out, d->bytes);
        put_format(out, " %.9f ", d->seconds);
        put(out, d->name);
        PUT(out, "\n");
    }
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

/* Adds another rank's part lines to the leader's parts: calls and bytes summed, seconds the
 * slowest rank's (parts only other ranks wrote are added). */
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

/* --- the records held until MPI_Finalize ------------------------------------------------------ */

/* A closed file of a group, with its place among the group's files this process reported:
 * the members of a group close its files in the same order (each close is collective over
 * it), so (group, place, name) names the same file on every member. */
struct held {
    struct iot_file *file;
    const struct iot_run *run;
    const struct iot_group *group;
    long long place;
    double figures[R_LEN];
};

static struct held *held;
static int nheld;

/* A record as it travels to its leader, followed by the file's name and its part lines. */
struct wire {
    double figures[R_LEN];
    unsigned long long members;
    long long place;
    int name_len, parts_len;
};

static void put_wire(struct buf *out, const struct held *h)
{
    struct buf parts = {NULL, 0, 0, 0};
    put_part_lines(&parts, h->file);
    struct wire w = {.members = h->group->members, .place = h->place,
                     .name_len = (int)strlen(h->file->name), .parts_len = (int)parts.len};
    memcpy(w.figures, h->figures, sizeof w.figures);
    put_bytes(out, (const char *)&w, sizeof w);
    put_bytes(out, h->file->name, (size_t)w.name_len);
    put_bytes(out, parts.s ? parts.s : "", parts.len);
    free(parts.s);
}

/* The record this process leads that `w` (named `name`) is another member's figures of. Records
 * arrive in the order they were held, so the one after the previous match is tried first. */
static struct held *led(const struct wire *w, const char *name, size_t name_len, int me, int *next)
{
    for (int tried = 0; tried < nheld; tried++) {
        struct held *h = &held[(*next)++ % nheld];
        if (h->group->leader == me && h->group->members == w->members && h->place == w->place
            && strlen(h->file->name) == name_len && memcmp(h->file->name, name, name_len) == 0)
            return h;
    }
    return NULL;
}

/* Adds the records of one message (one member's, for the files this process leads). */
static void merge_message(const char *data, size_t len, int me)
{
    int next = 0;
    struct wire w;
    for (size_t at = 0; at + sizeof w <= len;) {
        memcpy(&w, data + at, sizeof w);
        const char *name = data + at + sizeof w, *parts = name + w.name_len;
        at += sizeof w + (size_t)w.name_len + (size_t)w.parts_len;
        if (at > len)
            break;
        struct held *h = led(&w, name, (size_t)w.name_len, me, &next);
        char *lines = h ? strndup(parts, (size_t)w.parts_len) : NULL;
        if (!h)
            continue;
        add_figures(w.figures, h->figures);
        merge_part_lines(h->file, lines);
        free(lines);
    }
}

/* One message per leader this process sends to: its records of that leader's files. */
struct outgoing {
    int to;
    struct buf data;
    MPI_Request request;
};

static int outgoing_messages(struct outgoing **out, int me)
{
    int n = 0;
    *out = NULL;
    for (int i = 0; i < nheld; i++) {
        int to = held[i].group->leader, k = 0;
        if (to == me)
            continue;
        while (k < n && (*out)[k].to != to)
            k++;
        if (k == n) {
            struct outgoing *more = realloc(*out, (size_t)(n + 1) * sizeof **out);
            if (!more)
                continue;
            *out = more;
            (*out)[n++] = (struct outgoing){to, {NULL, 0, 0, 0}, MPI_REQUEST_NULL};
        }
        put_wire(&(*out)[k].data, &held[i]);
    }
    return n;
}

enum { TAG = 0x10f };

/* The exchange over `world` (the library's duplicate of MPI_COMM_WORLD): how many messages
 * each process gets (one MPI_Reduce_scatter_block), then the messages themselves. */
static void exchange(MPI_Comm world, int me, int size)
{
    struct outgoing *out;
    int n = outgoing_messages(&out, me), incoming = 0;
    int *senders = calloc((size_t)size, sizeof *senders);
    if (!senders)   /* out of memory for a few bytes a process: the process is failing */
        return;
    for (int k = 0; k < n; k++)
        senders[out[k].to] = 1;
    MPI_Reduce_scatter_block(senders, &incoming, 1, MPI_INT, MPI_SUM, world);
    free(senders);
    for (int k = 0; k < n; k++)
        MPI_Isend(out[k].data.s, (int)out[k].data.len, MPI_BYTE, out[k].to, TAG, world,
                  &out[k].request);
    for (int m = 0; m < incoming; m++) {
        MPI_Status status;
        int len = 0;
        MPI_Probe(MPI_ANY_SOURCE, TAG, world, &status);
        MPI_Get_count(&status, MPI_BYTE, &len);
        char *data = malloc((size_t)len + 1);
        if (!data)
            break;
        MPI_Recv(data, len, MPI_BYTE, status.MPI_SOURCE, TAG, world, MPI_STATUS_IGNORE);
        merge_message(data, (size_t)len, me);
        free(data);
    }
    for (int k = 0; k < n; k++) {
        PMPI_Wait(&out[k].request, MPI_STATUS_IGNORE);   /* the interposer's own: not hooked */
        free(out[k].data.s);
    }
    free(out);
}

/* Writes the lines of the files this process leads (every held file's, its own figures only,
 * when `alone`) and frees the records. */
static void write_held(int me, int alone)
{
    for (int i = 0; i < nheld; i++) {
        struct held *h = &held[i];
        if (alone || h->group->leader == me) {
            take_figures(h->file, h->figures);
            iot_report_write(h->file, h->run, alone ? 1 : h->group->size);
        }
        iot_file_free(h->file);
    }
    free(held);
    held = NULL;
    nheld = 0;
}

void iot_report_settle_all(const struct iot_run *run, int mpi)
{
    int me = 0, size = 1;
    MPI_Comm world = MPI_COMM_NULL;
    if (!run->report_path || !mpi) {
        write_held(me, 1);
        return;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &world);
    MPI_Comm_rank(world, &me);
    MPI_Comm_size(world, &size);
    exchange(world, me, size);
    MPI_Comm_free(&world);
    write_held(me, 0);
}

void iot_report_close(struct iot_file *file, const struct iot_run *run)
{
    iot_file_detach(file);
    if (!run->report_path) {   /* no report (as on every rank): nothing to reduce */
        iot_file_free(file);
        return;
    }
    struct held *more = file->group ? realloc(held, (size_t)(nheld + 1) * sizeof *held) : NULL;
    if (!more) {   /* this process alone (or out of memory: its own figures) */
        iot_report_write(file, run, 1);
        iot_file_free(file);
        return;
    }
    held = more;
    struct held *h = &held[nheld++];
    *h = (struct held){file, run, file->group, file->group->reported++, {0}};
    fill_figures(file, h->figures);
}
