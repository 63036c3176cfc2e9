/* The rules the tuner and the interposer must apply identically, written once:
 *  - which blocks of a config apply to a file (and a dataset): the glob rule and their order;
 *  - which file system holds a path.
 * The interposer links this code; the tuner loads libiotwin_rules.so with ctypes
 * (tuner/iotwin/config/rules.py). No MPI, no HDF5: loading it has no side effect. */
#pragma once
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The one glob rule: fnmatch (`*` also matches `/`, no backslash escapes) on the full name or
 * on its last '/' component. 1 if it matches. */
int iotwin_rule_matches(const char *pattern, const char *name);

/* Which scoped blocks of a config apply to `file_name` (and `dataset_name`; NULL: the file
 * alone), in the order they apply after the top level (which always applies first): every
 * matching files[i] in order, then, for every matching files[i] in order, its matching
 * datasets[j] in order. file_patterns holds the nfiles `files[i].match`; files[i]'s dataset
 * patterns are dataset_patterns[first_dataset[i]] .. dataset_patterns[first_dataset[i + 1] - 1]
 * (first_dataset has nfiles + 1 entries). Writes (i, -1) for a file block and (i, j) for a
 * dataset block into out_file / out_dataset, at most `max` of them; returns how many apply. */
int iotwin_rules_applying(int nfiles, const char *const *file_patterns, const int *first_dataset,
                          const char *const *dataset_patterns, const char *file_name,
                          const char *dataset_name, int *out_file, int *out_dataset, int max);

enum iotwin_fs { IOTWIN_FS_OTHER, IOTWIN_FS_LUSTRE, IOTWIN_FS_GPFS };

/* The file system holding `path`, or its nearest existing ancestor (a file not yet created):
 * Lustre, GPFS or another (ROMIO's generic "ufs" driver); its name ("ext4", "lustre", or the
 * magic number in hex; "unknown" if nothing can be read) into name. */
enum iotwin_fs iotwin_filesystem(const char *path, char *name, size_t len);

#ifdef __cplusplus
}
#endif
