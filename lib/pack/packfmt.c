/*
 * packfmt.c — the pack formats by suffix, and PACK_ON_SEAL's parser (packfmt.h).
 */
#include <archive.h>   /* the ARCHIVE_FILTER_* constants only: nothing is linked */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "pack/packfmt.h"

const pack_format_t pack_formats[] = {
	{".wacz", PACK_WACZ, 0},
	{".tar.gz", PACK_TAR, ARCHIVE_FILTER_GZIP},
	{".tgz", PACK_TAR, ARCHIVE_FILTER_GZIP},
	{".tar.zst", PACK_TAR, ARCHIVE_FILTER_ZSTD},
	{".tar.xz", PACK_TAR, ARCHIVE_FILTER_XZ},
	{".tar", PACK_TAR, ARCHIVE_FILTER_NONE},
	{".zip", PACK_ZIP, 0},
};
const size_t pack_nformats = sizeof pack_formats / sizeof pack_formats[0];

int
pack_format_of(const char *file)
{
	size_t a = strlen(file);
	for (size_t i = 0; i < pack_nformats; i++) {
		size_t b = strlen(pack_formats[i].suffix);
		if (a > b && strcmp(file + a - b, pack_formats[i].suffix) == 0 && file[a - b - 1] != '/')
			return (int)i;
	}
	return -1;
}

int
pack_parse_formats(const char *v, long long *out)
{
	*out = 0;
	if (!v)
		return 0;
	char *list = xstrdup(v);
	int rc = 0;
	for (char *save = NULL, *t = strtok_r(list, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
		int ok = 0;
		for (size_t i = 0; i < pack_nformats; i++)
			ok |= strcmp(t, pack_formats[i].suffix + 1) == 0;
		if (!ok)
			rc = -1;
		else
			(*out)++;
	}
	free(list);
	return rc;
}
