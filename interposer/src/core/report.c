#define _GNU_SOURCE
#include "core/report.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/config.h"

/* --- reduction over the file's communicator -------------------------------------------------- */

static char *dataset_lines(const struct iot_file *file, int *len)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    for (int i = 0; i < file->ndatasets; i++) {
        const struct iot_dataset *d = file->datasets[i];
        fprintf(out, "%lld %lld %.9f %s\n", d->calls, d->bytes, d->seconds, d->name);
    }
    fclose(out);
    *len = (int)size;
    return text;
}

/* The record named `name`; ranks usually list their datasets in the same order, so the one
 * after the previous match is tried first (*next), which keeps merging linear. */
static struct iot_dataset *dataset_named(struct iot_file *file, const char *name, int *next)
{
    if (*next < file->ndatasets && strcmp(file->datasets[*next]->name, name) == 0)
        return file->datasets[(*next)++];
    for (int i = 0; i < file->ndatasets; i++)
        if (strcmp(file->datasets[i]->name, name) == 0) {
            *next = i + 1;
            return file->datasets[i];
        }
    *next = file->ndatasets + 1;
    return iot_dataset_new(file, -1, name);
}

/* Adds one rank's lines "calls bytes seconds name" to rank 0's records. */
static void merge_dataset_lines(struct iot_file *file, char *text)
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
        struct iot_dataset *d = dataset_named(file, rest, &next);
        d->calls += calls;
        d->bytes += bytes;
        d->seconds = seconds > d->seconds ? seconds : d->seconds;
    }
}

/* Rank 0 gets the other ranks' per-dataset writes (ranks may have written different datasets). */
static void gather_datasets(struct iot_file *file, int rank, int size)
{
    int len = 0;
    char *mine = rank == 0 ? NULL : dataset_lines(file, &len);
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
        merge_dataset_lines(file, all);
    free(all);
    free(lens);
    free(offsets);
    free(mine);
}

static int reduce(struct iot_file *file, int *ranks)
{
    int rank = 0;
    *ranks = 1;
    if (file->comm == MPI_COMM_NULL)
        return 0;
    MPI_Comm_rank(file->comm, &rank);
    MPI_Comm_size(file->comm, ranks);
    /* -t_open: the maximum of its negation is the earliest open */
    double times[6] = {file->open_s, file->write_s, file->flush_s, file->close_s,
                       -file->t_open, file->t_close}, max[6];
    long long counts[2] = {file->bytes, file->writes}, sums[2];
    MPI_Reduce(times, max, 6, MPI_DOUBLE, MPI_MAX, 0, file->comm);
    MPI_Reduce(counts, sums, 2, MPI_LONG_LONG, MPI_SUM, 0, file->comm);
    if (*ranks > 1)
        gather_datasets(file, rank, *ranks);
    if (rank == 0) {
        file->open_s = max[0], file->write_s = max[1], file->flush_s = max[2];
        file->close_s = max[3], file->bytes = sums[0], file->writes = sums[1];
        file->t_open = -max[4], file->t_close = max[5];
    }
    return rank;
}

/* --- the JSON line ----------------------------------------------------------------------------- */

static void write_labels(FILE *out, const char *matched)
{
    char *copy = strdup(matched), *save = NULL;
    int n = 0;
    fputc('[', out);
    for (char *label = strtok_r(copy, ",", &save); label; label = strtok_r(NULL, ",", &save)) {
        fputs(n++ ? ", " : "", out);
        json_string(out, label);
    }
    fputc(']', out);
    free(copy);
}

/* What was set on the dataset's creation list and on its writes' transfer lists. */
static void write_dataset_applied(FILE *out, const struct iot_dataset *d)
{
    int n = d->applied_creation && d->applied_creation[0];
    fputc('{', out);
    if (n)
        fputs(d->applied_creation, out);
    if (d->transfer_set) {
        const struct iot_value *mode = &d->settings.v[IOT_K_DATASET_TRANSFER_MODE];
        fprintf(out, "%s\"transfer_mode\": ", iot_json_sep(&n));
        json_string(out, IOT_KEYS[IOT_K_DATASET_TRANSFER_MODE].values[mode->i]);
    }
    fputc('}', out);
}

static void write_dataset(FILE *out, struct iot_dataset *d)
{
    fputs("{\"name\": ", out);
    json_string(out, d->name);
    fputs(", \"matched\": ", out);
    write_labels(out, d->matched);
    fputs(", \"applied\": ", out);
    write_dataset_applied(out, d);
    fputs(", \"effective\": ", out);
    fputs(d->effective ? d->effective : "null", out);
    fputs(", \"not_effective\": ", out);
    iot_list_write(out, &d->not_effective);
    fprintf(out, ", \"writes\": {\"calls\": %lld, \"bytes\": %lld, \"seconds\": %.6f}}",
            d->calls, d->bytes, d->seconds);
}

static void write_report(FILE *out, struct iot_file *file, const struct iot_run *run, int ranks)
{
    unsigned major = 0, minor = 0, release = 0;
    H5get_libversion(&major, &minor, &release);
    fputs("{\"iotwin_report\": 1, \"file\": ", out);
    json_string(out, file->name);
    fprintf(out, ", \"how\": \"%s\", \"ranks\": %d, \"fs\": \"%s\", \"driver\": \"%s\", "
            "\"hdf5_version\": \"%u.%u.%u\", \"async_api\": ", file->how, ranks, file->fs_type,
            file->mpio ? "mpio" : "other", major, minor, release);
    json_string(out, run->async_api);
    fputs(", \"config\": ", out);
    json_string(out, run->config_path);
    fputs(", \"config_error\": ", out);
    json_string(out, run->config_error);
    fputs(", \"matched\": ", out);
    write_labels(out, file->matched);
    fprintf(out, ", \"applied\": %s, \"effective\": %s, \"not_effective\": ",
            file->applied ? file->applied : "{}", file->effective ? file->effective : "null");
    iot_list_write(out, &file->not_effective);
    fprintf(out, ", \"timings\": {\"open_s\": %.6f, \"write_s\": %.6f, \"flush_s\": %.6f, "
            "\"close_s\": %.6f}, \"span\": {\"open\": %.6f, \"closed\": %.6f}, "
            "\"bytes\": %lld, \"writes\": %lld, \"datasets\": [",
            file->open_s, file->write_s, file->flush_s, file->close_s, file->t_open,
            file->t_close, file->bytes, file->writes);
    for (int i = 0; i < file->ndatasets; i++) {
        fputs(i ? ", " : "", out);
        write_dataset(out, file->datasets[i]);
    }
    fputs("]}\n", out);
}

int iot_append_line(const char *path, const char *text, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    ssize_t written = write(fd, text, len);   /* best effort: never fail the application */
    close(fd);
    return written == (ssize_t)len ? 0 : -1;
}

void iot_report_file(struct iot_file *file, const struct iot_run *run)
{
    int ranks = 1;
    if (reduce(file, &ranks) != 0 || !run->report_path)
        return;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    write_report(out, file, run, ranks);
    fclose(out);
    iot_append_line(run->report_path, text, len);
    free(text);
}
