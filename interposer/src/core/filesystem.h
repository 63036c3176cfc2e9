/* The file system holding a path (iotwin_filesystem, the rule the tuner shares), asked of the
 * kernel once per directory: the files of a run mostly share a few directories, and a statfs
 * per file session was one of the system calls the library added to each. */
#pragma once
#include <stddef.h>

#include "iotwin_rules.h"

/* As iotwin_filesystem; an absolute path's answer is its directory's, remembered (a relative
 * one is asked each time: the working directory may change). */
enum iotwin_fs iot_filesystem(const char *path, char *name, size_t len);
