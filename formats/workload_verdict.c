/* The check modes' report of a workload file: one JSON line a test or a script reads. */
#include <string.h>

#include "workload_check.h"

void workload_print_verdict(FILE *out, const char *file, wl_verdict verdict, const char *error,
                            const doc_node *normal)
{
    static const char *const names[] = {"accepted", "refused", "cannot-run"};
    fputs("{\"file\": ", out);
    doc_write_json_string(out, file, strlen(file));
    fprintf(out, ", \"verdict\": \"%s\"", names[verdict]);
    if (error) {
        fputs(", \"error\": ", out);
        doc_write_json_string(out, error, strlen(error));
    }
    if (normal) {
        fputs(", \"normal\": ", out);
        doc_write_json(out, normal);
    }
    fputs("}\n", out);
    fflush(out);
}

wl_verdict workload_worse_verdict(wl_verdict a, wl_verdict b)
{
    if (a == WL_REFUSED || b == WL_REFUSED)
        return WL_REFUSED;
    return a == WL_CANNOT_RUN || b == WL_CANNOT_RUN ? WL_CANNOT_RUN : WL_ACCEPTED;
}

int workload_verdict_status(wl_verdict worst)
{
    return worst == WL_ACCEPTED ? 0 : worst == WL_REFUSED ? 2 : 3;
}
