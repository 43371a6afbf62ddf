/*
 * snappage.h — a sealed snapshot's index.html and index.json.
 *
 * snappage_html() appends a self-contained page: the snapshot's title,
 * URL, status and metadata, the screenshot if has_shot, and a row for each
 * ArchiveResult among v[0..n) (plugin, hook, status, output, notes, and a
 * link to each output file).  A file a browser would run as a document
 * (.html, .svg, .xml ...) is linked through the page's own viewer,
 * "index.html?view=K", which shows it in an <iframe sandbox> without
 * allow-same-origin: archived script runs in an opaque origin and reads
 * nothing of the archive (abx(7) SECURITY).  The files stay as they are.  snappage_json() appends the snapshot as one
 * pretty JSON object with ArchiveBox's keys:
 * tags as a sorted list, domain, scheme, output_dir = dir, and the
 * number of succeeded and failed results among rv[0..rn).
 */
#ifndef ABX_SNAPPAGE_H
#define ABX_SNAPPAGE_H

#include "base/buf.h"
#include "store/record.h"

void snappage_html(buf_t *b, const rec_t *snap, const rec_t *v, size_t n, int has_shot);
void snappage_json(buf_t *b, const rec_t *snap, const rec_t *rv, size_t rn, const char *dir);

#endif
