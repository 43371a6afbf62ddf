/*
 * tagset.h — a snapshot's tags, one rule wherever a snapshot is made
 * (abx(7) TAGS): the crawl's tags (its tags_str, from abx-add --tag), then
 * the snapshot's own (those of its input record, of abx-add or of the
 * crawl's urls, or of the record a hook discovered it by), as a set in
 * that order: each tag once, trimmed of blanks, none empty.  The hooks'
 * Tag records add to it later (abx-hook(1)).  Tags are stored as one
 * comma-separated string ("a,b"), ArchiveBox's form, so a tag holds no
 * comma and no line break.
 *
 *   tagset_add()        the tags of a comma-separated list, into t
 *   tagset_add_field()  the tags of a record's field: "a,b" or ["a","b"]
 *
 * t is a buf_t holding the set so far ("" or "a,b"); buf_cstr(t) is the
 * value to store.
 */
#ifndef ABX_TAGSET_H
#define ABX_TAGSET_H

#include "base/buf.h"
#include "base/json.h"

void tagset_add(buf_t *t, const char *list);
void tagset_add_field(buf_t *t, const rec_t *r, const char *key);

#endif
