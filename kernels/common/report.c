#include "report.h"

#include <hdf5.h>
#include <string.h>

#include "json.h"

double phase_clock(MPI_Comm comm)
{
    MPI_Barrier(comm);
    return MPI_Wtime();
}

double phase_total(const phase_times *t)
{
    return t->open_s + t->write_s + t->sync_s + t->close_s;
}

void phase_add(phase_times *sum, const phase_times *t)
{
    sum->open_s += t->open_s;
    sum->write_s += t->write_s;
    sum->sync_s += t->sync_s;
    sum->close_s += t->close_s;
}

double rate_mbs(uint64_t bytes, double seconds)
{
    return seconds > 0 ? (double)bytes / 1e6 / seconds : 0.0;
}

void report_begin(FILE *out, const char *kernel, uint64_t ranks, const char *file,
                  uint64_t bytes)
{
    fputs("{\"kernel\": ", out);
    json_string(out, kernel);
    fprintf(out, ", \"ranks\": %llu, \"file\": ", (unsigned long long)ranks);
    json_string(out, file);
    fprintf(out, ", \"bytes\": %llu", (unsigned long long)bytes);
}

void report_phases(FILE *out, const phase_times *t, uint64_t bytes)
{
    double total = phase_total(t);
    fprintf(out, ", \"open_s\": %.6f, \"write_s\": %.6f, \"sync_s\": %.6f, \"close_s\": %.6f, "
                 "\"total_s\": %.6f, \"rate_mbs\": %.3f",
            t->open_s, t->write_s, t->sync_s, t->close_s, total, rate_mbs(bytes, total));
}

void report_params(FILE *out, const kernel_option *const tables[], size_t ntables,
                   const char *transfer, const char *extra)
{
    fputs(", \"params\": {", out);
    const char *sep = options_write_params(out, tables, ntables) ? ", " : "";
    if (transfer) {
        fprintf(out, "%s\"transfer\": \"%s\"", sep, transfer);
        sep = ", ";
    }
    if (extra) {
        fprintf(out, "%s%s", sep, extra);
        sep = ", ";
    }
    fprintf(out, "%s\"hdf5\": \"%d.%d.%d\"}", sep, H5_VERS_MAJOR, H5_VERS_MINOR, H5_VERS_RELEASE);
}

const char *report_version_member(const char *library, const char *version)
{
    static char text[96];
    size_t len = strcspn(version, " ");
    snprintf(text, sizeof text, "\"%s\": \"%.*s\"", library, (int)(len < 40 ? len : 40),
             version);
    return text;
}
