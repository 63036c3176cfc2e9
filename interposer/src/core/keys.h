/* The config's keys as text: a value as it is passed to MPI-IO, and a key's path in the
 * config ("mpiio.cb_nodes"), as reports name them. */
#pragma once
#include <stddef.h>

#include "core/config.h"

/* The text a key's value is passed as in an MPI_Info ("4194304", "enable", "true"). */
void iot_hint_text(int key_id, const struct iot_value *value, char *out, size_t len);

/* Whether a key is a top-level key (not a record's field) of one of `blocks` (1 << block). */
int iot_key_in_blocks(int key_id, unsigned blocks);

/* The text a requested key is reported as ("4", "4194304"); NULL for a record or a list of
 * records (lustre.components), which has no one text. */
const char *iot_requested_text(int key_id, const struct iot_value *value, char *out, size_t len);

/* The path of a key of a block ("openmpi.fcoll"), into out. */
void iot_key_path(int key_id, char *out, size_t len);

/* The key path ("mpiio.cb_nodes", "mpiio.hints.NAME") that asked for a hint, into out. */
void iot_hint_key_path(const char *hint, char *out, size_t len);
