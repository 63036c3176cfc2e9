/* The layout the interposer gives a file it creates on Lustre, built from a config and made
 * through liblustreapi (interposer/src/lustre/layout.c), then read back:
 *   lustre_layout CFG FILE    one JSON line: {"created": true, "layout": {...}} or
 *                             {"created": false, "reason": "..."} */
#include <stdio.h>

int iotwin_create_with_layout(const char *config_path, const char *path, char *out,
                              size_t len);

int main(int argc, char **argv)
{
    static char text[1 << 14];
    if (argc != 3) {
        fprintf(stderr, "usage: lustre_layout CFG FILE\n");
        return 2;
    }
    int rc = iotwin_create_with_layout(argv[1], argv[2], text, sizeof text);
    printf("%s\n", text);
    return rc < 0 ? 2 : 0;
}
