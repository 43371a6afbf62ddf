/*
 * outfiles.h — what a hook wrote: the files of its cwd before and after.
 *
 * ftree_scan() lists the regular files under a directory (recursively, at
 * most 32 levels and 100000 files, symlinks neither followed nor listed)
 * with size, mtime and inode; abx-hook's own artefacts (on_*.stdout.log,
 * on_*.stderr.log, on_*.daemon.json) are left out.  ftree_outputs() gives
 * the files that are new or changed (size, mtime or inode) in the second
 * scan, as ArchiveBox's output_files object {relpath: {extension, mimetype,
 * size}}, with their total size and output_mimetypes (distinct mimetypes,
 * comma-separated, by bytes descending).  Mimetypes come from a table of
 * extensions (no libmagic); unknown ones are application/octet-stream.
 */
#ifndef ABX_OUTFILES_H
#define ABX_OUTFILES_H

#include <stdint.h>
#include <sys/types.h>
#include "base/buf.h"

typedef struct {
	char *rel;
	long long size;
	int64_t mtime;     /* ns */
	ino_t ino;
} fent_t;

typedef struct {
	fent_t *v;
	size_t n, cap;
} ftree_t;

void ftree_scan(int dirfd, ftree_t *t);
void ftree_free(ftree_t *t);

typedef struct {
	buf_t files;       /* JSON object */
	buf_t mimetypes;   /* CSV */
	long long size;
	size_t n;
	size_t content;    /* of them, not named *.log, *.pid or *.sh: what
	                    * abx-dl counts as a hook's output (output_files.py
	                    * OUTPUT_FILE_METADATA_SUFFIXES) */
} outputs_t;

void ftree_outputs(const ftree_t *before, const ftree_t *after, outputs_t *o);
void outputs_free(outputs_t *o);

/* Mimetype of a file name by extension; ext gets the lower-case extension. */
const char *mime_of(const char *name, char ext[16]);

#endif
