/*
 * offline.h — a snapshot's offline copy of its page, offline.html: wget's
 * page as it was saved, made to work from a file: URL and to link the
 * pages archived beside it.
 *
 * Why: opened from a file: URL, the sandboxed viewer (snappage.h) loads
 * nothing local (Chromium: "Not allowed to load local resource": an opaque
 * origin may not read file: URLs), so the page showed without its CSS and
 * images; and wget, run once a page, writes a link to any page it did not
 * fetch in that run as the live URL, so a link to a page archived in the
 * same crawl led to the live site.  The archived files stay as they are:
 * the copy is another file.
 *
 * offline_source(v, n): the page an offline copy is made from, the
 * output_str of a succeeded wget result among v[0..n) ("wget/HOST/x.html",
 * a relative path without "." or ".." segments, ending in .html or .htm),
 * malloc'd; NULL if there is none.
 *
 * offline_page(dfd, dir, src, url, map, sync) writes DIR/offline.html (by
 * fs_write_new: in place the first time, else temp + rename; not synced
 * unless sync is set, then fsync'd through the descriptor that wrote it:
 * a hint, written again at every seal) from DIR/SRC, the page of URL, when
 * its first bytes are markup (viewtype_bytes) and it is at most
 * OFFLINE_MAX bytes.  The copy is the page's bytes with:
 *   1. <base href="SRCDIR/"> (SRC's directory, percent-encoded) before
 *      the first element other than <html> (after <head> when that comes
 *      first), so that every relative URL (style sheets, images, scripts,
 *      srcset, inline styles: wget's --convert-links made the requisites it
 *      saved relative) resolves as it did beside SRC;
 *   2. each href of <a> and <area> rewritten: "" and "#frag" to this copy
 *      ("#frag" kept); a relative one that names SRC itself to this copy;
 *      an http(s) URL (or "//host/...", resolved against URL) whose
 *      url_canon() form is in map to that snapshot's offline.html
 *      ("../ID/offline.html" from the snapshot directory, "#frag" kept);
 *      anything else as it was (links to pages not archived here stay
 *      live).  Comments, <script>, <style>, <title> and <textarea> are
 *      copied as they are.
 * map may be NULL (no other page known: a snapshot's own seal, before
 * its crawl's pages are).  Returns 0 when written, 1 when there is no copy
 * to make (no page, not markup, too big: an old offline.html is left), -1
 * with errno when it could not be read or written.
 *
 * offline_crawl(s, cid): at a crawl's seal, once its pages are all
 * archived, every sealed snapshot of the crawl with a source page gets its
 * offline.html written again with the map of them all (URL -> snapshot), so
 * that links between pages of the crawl lead to their copies.  A removed
 * snapshot (deleted_at) is none of them: its copy is not written, and a
 * link to it stays the live URL; abx-ctl remove calls this again after a
 * snapshot's removal, so that no copy links the removed one.  Reads the
 * crawl's journal once, without the store lock (the copies are hints: a
 * snapshot removed meanwhile is skipped); a copy that cannot be written is
 * said on stderr, naming it and the cause.  Costs a read and a write of
 * each page.
 *
 * Over HTTP the copy is shown only in the sandboxed viewer, as every
 * archived document is (abx(7) SECURITY); from a file: URL the snapshot
 * page opens it itself (snappage.h): browsers give each file: URL an origin
 * of its own, so its scripts cannot read the archive.
 */
#ifndef ABX_OFFLINE_H
#define ABX_OFFLINE_H

#include <stddef.h>

#include "store/store.h"

#define OFFLINE_MAX (64L << 20)

typedef struct offmap offmap_t;

char *offline_source(const rec_t *v, size_t n);
int offline_page(int dfd, const char *dir, const char *src, const char *url, const offmap_t *map, int sync);
void offline_crawl(store_t *s, const char *cid);

#endif
