/*
 * pack.h — a sealed snapshot or crawl packed into one archive file.
 *
 * seal_pack(): a sealed snapshot's or crawl's directory into an archive
 * through libarchive, the format chosen by the suffix of FILE: .tar.gz,
 * .tgz, .tar.zst, .tar.xz, .tar, .zip (paths inside start with the id; a
 * crawl's holds its record as <id>/crawl.json, and not the directories of
 * its removed snapshots), or .wacz (wacz.h).  FILE appears whole or not
 * at all (pack.c).
 *
 * Symbolic links are packed as links (never followed); sockets, FIFOs and
 * devices are left out; a failed pack leaves no partial archive.
 *
 * The codes are seal.h's: SEAL_OK, SEAL_NOTFOUND, SEAL_BADKIND (not a
 * snapshot or crawl), SEAL_EXISTS (FILE is
 * there and SEAL_PACK_FORCE was not given), SEAL_BADFORMAT (an unknown
 * suffix), SEAL_ERR (s->errmsg says why).
 *
 * pack_on_seal(): PACK_ON_SEAL, after a crawl is sealed: the crawl packed
 * into DIR/packs/<crawl-id>.<format> for each format of the list (its
 * parser: pack_parse_formats, packfmt.h), replacing an older pack; 0, or
 * -1 (s->errmsg).
 */
#ifndef ABX_PACK_H
#define ABX_PACK_H

#include "seal/seal.h"
#include "store/store.h"

#define SEAL_PACK_FORCE 1
int seal_pack(store_t *s, const char *id, const char *file, int flags);
int pack_on_seal(store_t *s, const char *crawl_id, const char *formats);

#endif
