/* Validates config files with the interposer's C parser, one line per file: "ok" or the
 * error. The tests compare these lines with the Python validator's messages. */
#include <stdio.h>

int iotwin_check_config(const char *path, char *err, size_t errlen);

int main(int argc, char **argv)
{
    char err[1024];
    for (int i = 1; i < argc; i++) {
        iotwin_check_config(argv[i], err, sizeof err);
        printf("%s\n", err);
    }
    return 0;
}
