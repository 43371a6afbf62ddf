/*
 * snappage.h — a sealed snapshot's index.html and index.json.
 *
 * snappage_html() appends a self-contained page for the snapshot whose
 * directory is dir below dfd: its title, URL, status and metadata, the
 * screenshot (screenshot/screenshot.png, shown when it is linked raw), and
 * a row for each ArchiveResult among v[0..n) (plugin, hook, status,
 * output, notes, and a link to each of its first 200 output files).  How a
 * file is linked is judged from its first bytes, its name and, for wget's
 * page, the Content-Type the headers hook recorded in headers/headers.json
 * (viewtype.h, the allowlist): an image, PDF, media, archive or plain text
 * whose name agrees is linked raw; bytes no browser runs under a name no
 * server types as a document (a font) are linked with the download
 * attribute; everything else (HTML, XHTML, SVG, XML, XHTML saved as
 * image.png, anything unknown) only through the page's own viewer,
 * "index.html?view=K", which shows it in an <iframe sandbox> without
 * allow-same-origin: archived script runs in an opaque origin and reads
 * nothing of the archive (abx(7) SECURITY).  The files stay as they are.
 * Each listed file is opened (no symlink followed) and up to 4 KiB read.
 *
 * snappage_json() appends the snapshot as one pretty JSON object with
 * ArchiveBox's keys: tags as a sorted list, domain, scheme, output_dir =
 * dir, and the number of succeeded and failed results among rv[0..rn).
 */
#ifndef ABX_SNAPPAGE_H
#define ABX_SNAPPAGE_H

#include "base/buf.h"
#include "store/record.h"

void snappage_html(buf_t *b, const rec_t *snap, const rec_t *v, size_t n, int dfd, const char *dir);
void snappage_json(buf_t *b, const rec_t *snap, const rec_t *rv, size_t rn, const char *dir);

#endif
