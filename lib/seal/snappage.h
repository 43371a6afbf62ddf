/*
 * snappage.h — a sealed snapshot's index.html and index.json.
 *
 * snappage_html() appends a self-contained page for the snapshot whose
 * directory is dir below dfd: its title, URL, status, what the site
 * answered ("HTTP 404", html_http: marked when 4xx or 5xx) and metadata, the
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
 * When wget saved the page, the page's offline copy is written now
 * (offline_page, offline.h: DIR/offline.html, without links to the crawl's
 * other pages, which its crawl's seal adds; fsync'd as written when sync
 * is set, and then -1 is returned if it could not be written: else 0) and
 * linked first, "Open the
 * archived page", through the viewer; from a file: URL the viewer opens
 * the copy itself (snappage.c says why that is safe).  The header says
 * "incomplete" with the number of page requisites the results say are
 * missing (snappage_missing).
 *
 * snappage_missing(v, n): the page requisites missing by the results among
 * v[0..n): each result whose output_json has "incomplete": true counts the
 * members of its "missing_requisites" (1 if none are named).
 * snappage_mark(snap, v, n): the seal's mark, "incomplete": true in the
 * snapshot record when some are missing, no such field when none are.
 *
 * snappage_json() appends the snapshot as one pretty JSON object with
 * ArchiveBox's keys: tags as a sorted list, domain, scheme, output_dir =
 * dir, and the number of succeeded and failed results among rv[0..rn);
 * and "incomplete" and "http_status" when the record has them.
 */
#ifndef ABX_SNAPPAGE_H
#define ABX_SNAPPAGE_H

#include "base/buf.h"
#include "store/record.h"

int snappage_html(buf_t *b, const rec_t *snap, const rec_t *v, size_t n, int dfd, const char *dir, int sync);
void snappage_json(buf_t *b, const rec_t *snap, const rec_t *rv, size_t rn, const char *dir);
long snappage_missing(const rec_t *v, size_t n);
void snappage_mark(rec_t *snap, const rec_t *v, size_t n);

#endif
