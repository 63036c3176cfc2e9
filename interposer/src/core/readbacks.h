/* What a file's read-back found (its `effective` record and the `not_effective` entries the
 * read-back listed), remembered for the next files whose read-back would find the same: what
 * decides it (the layer, the file system, the communicator, the settings, the program's own
 * hints, ...) is the key a layer gives, as text. A program writing many files the same way
 * (IOR's iterations, a checkpoint per step) has its files' hints read back once: reading them
 * back (MPI_File_get_info, each of ROMIO's ~20 hints written out and compared with the ones
 * asked for) was most of the library's own work in a file session. */
#pragma once
#include <stddef.h>

#include "core/records.h"

/* Where a file's not_effective list stood before its read-back. */
struct iot_list_mark {
    size_t len;
    int n;
};

struct iot_list_mark iot_list_mark(const struct iot_list *list);

/* Gives the file what the read-back of `key` found (its effective record, and its not_effective
 * entries added after the file's own); 0 when no read-back of that key is remembered. */
int iot_readback_recall(struct iot_file *file, const char *key);
/* Remembers what the file's read-back found: its effective record and the entries added to its
 * not_effective list since `before`. */
void iot_readback_remember(struct iot_file *file, const char *key, struct iot_list_mark before);
void iot_readbacks_free(void);
