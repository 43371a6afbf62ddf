/*
 * packfmt.h — the archive formats abx-ctl pack and PACK_ON_SEAL write, by
 * the suffix of the file name: .wacz, .tar.gz, .tgz, .tar.zst, .tar.xz,
 * .tar, .zip.
 *
 * Apart from pack.c so that reading a setting (config.c) does not link a
 * tool against libarchive: only the tools that pack load it.  An empty
 * program linked with libarchive (and so its dozen libraries) took 8 ms
 * of CPU to start and end on the bench machine, 2 ms without (abx-internals(7),
 * "The cost of a page").
 */
#ifndef ABX_PACKFMT_H
#define ABX_PACKFMT_H

#include <stddef.h>

#define PACK_TAR 0
#define PACK_ZIP 1
#define PACK_WACZ 2

typedef struct {
	const char *suffix;  /* ".tar.gz" */
	int kind;            /* PACK_TAR, PACK_ZIP or PACK_WACZ */
	int filter;          /* ARCHIVE_FILTER_* of a tar */
} pack_format_t;

extern const pack_format_t pack_formats[];
extern const size_t pack_nformats;

/* The index in pack_formats of FILE's suffix (not a whole path component), or -1. */
int pack_format_of(const char *file);

/* PACK_ON_SEAL: a list of formats (wacz, tar.gz, tgz, tar.zst, tar.xz,
 * tar, zip) separated by commas or blanks; "" packs nothing.  0 and *out
 * the number of formats, or -1 (settings_check's parser). */
int pack_parse_formats(const char *v, long long *out);

#endif
