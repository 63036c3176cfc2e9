/* The interposer's config parser and resolution, for the tests that compare them with the
 * Python side's:
 *   config_check CFG...                  one line per file: "ok" or the error
 *   config_check --resolve CFG FILE [DS] the settings CFG gives FILE (and dataset DS), as JSON */
#include <stdio.h>
#include <string.h>

int iotwin_check_config(const char *path, char *err, size_t errlen);
int iotwin_resolve_config(const char *path, const char *file, const char *dataset, char *out,
                          size_t len);

int main(int argc, char **argv)
{
    static char text[1 << 16];
    if (argc >= 4 && strcmp(argv[1], "--resolve") == 0) {
        int rc = iotwin_resolve_config(argv[2], argv[3], argc > 4 ? argv[4] : NULL, text,
                                       sizeof text);
        printf("%s\n", text);
        return rc ? 1 : 0;
    }
    for (int i = 1; i < argc; i++) {
        iotwin_check_config(argv[i], text, sizeof text);
        printf("%s\n", text);
    }
    return 0;
}
