/* Running the file sessions of a workload: files opened (or found still open), datasets
 * created and written in access-sized calls, flushed, synced and closed. Every function is
 * collective over the ranks that share the file. */
#ifndef IOTWIN_REPLAY_IO_H
#define IOTWIN_REPLAY_IO_H

#include <stddef.h>
#include <stdint.h>

#include "common/report.h"
#include "replay_workload.h"

typedef struct {
    phase_times phases;
    uint64_t bytes;        /* payload written by all ranks */
} session_times;

typedef struct open_file open_file;

typedef struct {
    uint64_t ranks, rank;
    int sync;
    open_file *open;       /* files kept open between sessions (keep_open) */
} replay_state;

/* Runs one session; times are measured on rank 0 with barriers between phases. */
int replay_session_run(replay_state *st, const replay_session *s, session_times *times,
                       char *err, size_t errlen);
/* Closes the files still open at the end of the run (adds to times->phases.close_s). */
int replay_close_all(replay_state *st, session_times *times, char *err, size_t errlen);

#endif
