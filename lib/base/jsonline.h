/*
 * jsonline.h — a JSON value as ArchiveBox's runners hand it to a hook:
 * on one line, the way Python's json.dumps() writes it by default — no
 * newline or indentation, ", " between members and elements, ": " after
 * a key, strings as they were written.  abx-dl 1.10.71 writes array and
 * object settings so (config.py dump_to_dotenv_format) and every
 * non-string field of a binary request (binary_service.py), and the real
 * hooks read them with json.loads; a value spread over several lines, as
 * a config.json writes its defaults, reached hooks that way before.
 * (Python also escapes non-ASCII characters as \uXXXX; they are kept as
 * UTF-8 here, which json.loads reads the same.)
 */
#ifndef ABX_JSONLINE_H
#define ABX_JSONLINE_H

#include <stddef.h>
#include "base/buf.h"

/* Append the raw JSON text s[0..n) so written to out (NUL-terminated). */
void json_line(const char *s, size_t n, buf_t *out);

#endif
