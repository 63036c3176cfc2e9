#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>

#include "iotwin_rules.h"

/* statfs(2)'s f_type of the file systems a run may meet (linux/magic.h, and Lustre's and
 * GPFS's own: lustre/include/uapi/linux/lustre/lustre_user.h LL_SUPER_MAGIC, GPFS_SUPER_MAGIC). */
static const struct {
    uint32_t magic;
    const char *name;
    enum iotwin_fs fs;
} KNOWN[] = {
    {0x0BD00BD0, "lustre", IOTWIN_FS_LUSTRE}, {0x47504653, "gpfs", IOTWIN_FS_GPFS},
    {0xEF53, "ext4", IOTWIN_FS_OTHER},        {0x58465342, "xfs", IOTWIN_FS_OTHER},
    {0x01021994, "tmpfs", IOTWIN_FS_OTHER},   {0x6969, "nfs", IOTWIN_FS_OTHER},
    {0x794c7630, "overlayfs", IOTWIN_FS_OTHER}, {0x9123683E, "btrfs", IOTWIN_FS_OTHER},
    {0x65735546, "fuse", IOTWIN_FS_OTHER},    {0x2FC12FC1, "zfs", IOTWIN_FS_OTHER},
};

/* statfs of path, else of its nearest existing ancestor; 0 on success. */
static int statfs_existing(const char *path, struct statfs *info)
{
    char *copy = strdup(path);
    int rc = copy ? statfs(copy, info) : -1;
    while (rc != 0 && copy) {
        char *slash = strrchr(copy, '/');
        if (!slash || slash == copy) {   /* a relative name's directory, or the root */
            rc = statfs(slash ? "/" : ".", info);
            break;
        }
        *slash = '\0';
        rc = statfs(copy, info);
    }
    free(copy);
    return rc;
}

enum iotwin_fs iotwin_filesystem(const char *path, char *name, size_t len)
{
    struct statfs info;
    if (statfs_existing(path, &info) != 0) {
        snprintf(name, len, "unknown");
        return IOTWIN_FS_OTHER;
    }
    for (size_t i = 0; i < sizeof KNOWN / sizeof KNOWN[0]; i++)
        if ((uint32_t)info.f_type == KNOWN[i].magic) {
            snprintf(name, len, "%s", KNOWN[i].name);
            return KNOWN[i].fs;
        }
    snprintf(name, len, "0x%lx", (unsigned long)info.f_type);
    return IOTWIN_FS_OTHER;
}
