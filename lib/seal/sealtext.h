/*
 * sealtext.h — a snapshot's page as plain text, text.txt in its directory,
 * written at seal for abx-ls --search (and for a person: `less`).
 *
 * sealtext_write() picks the page's HTML from the results that succeeded:
 * chrome's DOM (chrome/output.html, the page after its scripts ran), else
 * the dom plugin's (dom/output.html), else wget's page (its output_str,
 * wget/<path>); each opened without following a symlink (fs.h), a regular
 * file only, and read up to SEALTEXT_MAX_HTML bytes.  It writes
 * <dir>/text.txt: the snapshot's title (its record's, else the page's
 * <title>) on the first line, a blank line, then the page's text
 * (sealtext_html), at most SEALTEXT_MAX_TEXT bytes of it.  A snapshot with
 * neither title nor page gets no file, and an older text.txt is removed
 * (one written before the lock from a version of the record that changed
 * meanwhile: seal.c, seal_snapshot_ahead).  The file is a hint, written as
 * the other index files are (fs_write_new: in place the first time, by
 * rename at a reseal; with sync, fsync'd as written, fs_write_new_sync):
 * a failure is said on stderr, never the seal's (-1 is returned; else 0).
 * Its cost is one pass over at most SEALTEXT_MAX_HTML bytes (about 10 ms
 * for 4 MiB here), before or under the lock the seal holds.
 *
 * sealtext_html() appends the text of n bytes of HTML to out, at most max
 * bytes (cut at a character): the contents of script, style, noscript,
 * template, svg and the head (title apart) dropped, as are comments, doctypes
 * and tags; character references decoded (numeric ones, and the named
 * ones of Latin-1 and common punctuation; an unknown one stays as
 * written); blanks collapsed to one space, a line break at each block
 * element (p, div, li, h1-h6, br, tr, ...).  The text is UTF-8: the bytes
 * are read as UTF-8 when they are valid UTF-8 or the page's <meta
 * charset> says utf-8, else as Windows-1252 (which covers Latin-1); a
 * sequence that is not UTF-8 in a UTF-8 page becomes U+FFFD, and no
 * control character but the line break is kept.  *title gets the page's
 * <title> text (malloc'd; NULL if none), when title is not NULL.
 */
#ifndef ABX_SEALTEXT_H
#define ABX_SEALTEXT_H

#include "base/buf.h"
#include "store/store.h"

#define SEALTEXT_MAX_HTML (4 << 20)
#define SEALTEXT_MAX_TEXT (1 << 20)
#define SEALTEXT_FILE "text.txt"

int sealtext_write(int dfd, const rec_t *snap, const char *dir, const rec_t *rs, size_t n, int sync);
void sealtext_html(const char *html, size_t n, buf_t *out, size_t max, char **title);

#endif
