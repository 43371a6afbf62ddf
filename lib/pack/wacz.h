/*
 * wacz.h — a sealed crawl or snapshot as a WACZ 1.1.1 file (Web Archive
 * Collection Zipped: a zip that replayweb.page and pywb replay).
 *
 * wacz_write() writes the entries of the WACZ into a, an archive already
 * set to the zip format and opened by the caller (seal_pack: the temp
 * file, the rename, -f):
 *
 *   archive/<snapshot>-<plugin>-<name>.warc.gz
 *       every WARC a snapshot's plugins left (<plugin>/warc/NAME.warc.gz,
 *       <plugin>/warc/NAME.warc, <plugin>/NAME.warc[.gz]; wget's by
 *       default), for each sealed snapshot of the crawl in journal order
 *       that is not removed (deleted_at: abx-ctl remove, with its files
 *       kept or not; neither packed nor warned about) (for a snapshot,
 *       its own).  A WARC whose records are each one gzip
 *       member (wget's, warcio's) is stored byte for byte; any other (plain,
 *       or gzipped whole) is re-encoded record by record into gzip members
 *       first (warc.h).  The damaged tail of a WARC cut short is left out,
 *       with a warning.  All are zip-stored (no second compression), so a
 *       reader seeks to a record by the index's offset.
 *   indexes/index.cdxj
 *       one line per response, revisit and resource record with an http(s)
 *       WARC-Target-URI: "<SURT> <14-digit time> {json}", the JSON giving
 *       url, mime, status, digest, length and offset (of the record's gzip
 *       member in its WARC) and filename (below archive/); sorted bytewise.
 *   pages/pages.jsonl
 *       the "json-pages-1.0" header line, then for each snapshot that has a
 *       response record (in journal order): id (the snapshot's), url (its
 *       URL, or the first response of its WARC if none is for its URL
 *       itself, e.g. wget normalised it), ts (that record's WARC-Date) and
 *       title (the snapshot's, if it has one).
 *   datapackage.json
 *       profile "data-package", wacz_version "1.1.1", title (the crawl's
 *       label, else "abx crawl of <first page>"; a snapshot's title or
 *       URL), created and modified (the item's created_at and modified_at,
 *       so that the same crawl packs to the same metadata), software,
 *       mainPageUrl and mainPageDate (the first page), and resources: name,
 *       path, bytes and "sha256:<hex>" of every other entry.
 *   datapackage-digest.json
 *       path "datapackage.json" and its sha256 hash.
 *
 * A sealed snapshot without a WARC (a plugin selection without wget, or
 * WGET_SAVE_WARC=false) has nothing to replay: it is left out of the WACZ,
 * and *skipped counts it (a warning names the first).  A crawl with no
 * WARC at all still packs (an empty index and pages list).
 *
 * Returns 0, or -1 with s->err and s->errmsg set (store_fail) when a WARC
 * cannot be read or the archive cannot be written.
 */
#ifndef ABX_WACZ_H
#define ABX_WACZ_H

#include <archive.h>
#include "store/store.h"

int wacz_write(store_t *s, const rec_t *item, struct archive *a, int *skipped);

/* A URL's SURT form, as pywb's indexes sort it ("com,example)/a?b=1&c=2"):
 * scheme, user info, "www." and the default port dropped, the host
 * reversed, lowercased, query arguments sorted, fragment dropped. */
void wacz_surt(const char *url, buf_t *out);

#endif
