#include <fnmatch.h>
#include <string.h>

#include "iotwin_rules.h"

int iotwin_rule_matches(const char *pattern, const char *name)
{
    const char *slash = strrchr(name, '/');
    return fnmatch(pattern, name, FNM_NOESCAPE) == 0
        || (slash && fnmatch(pattern, slash + 1, FNM_NOESCAPE) == 0);
}

static void put(int *out_file, int *out_dataset, int max, int *n, int file, int dataset)
{
    if (*n < max) {
        out_file[*n] = file;
        out_dataset[*n] = dataset;
    }
    (*n)++;
}

int iotwin_rules_applying(int nfiles, const char *const *file_patterns, const int *first_dataset,
                          const char *const *dataset_patterns, const char *file_name,
                          const char *dataset_name, int *out_file, int *out_dataset, int max)
{
    int n = 0;
    for (int i = 0; i < nfiles; i++)
        if (iotwin_rule_matches(file_patterns[i], file_name))
            put(out_file, out_dataset, max, &n, i, -1);
    for (int i = 0; dataset_name && i < nfiles; i++) {
        if (!iotwin_rule_matches(file_patterns[i], file_name))
            continue;
        for (int j = first_dataset[i]; j < first_dataset[i + 1]; j++)
            if (iotwin_rule_matches(dataset_patterns[j], dataset_name))
                put(out_file, out_dataset, max, &n, i, j - first_dataset[i]);
    }
    return n;
}
