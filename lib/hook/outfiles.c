/* outfiles.c — see outfiles.h. */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "hook/outfiles.h"

#define MAX_DEPTH 32
#define MAX_FILES 100000

static const struct {
	const char *ext, *mime;
} mimes[] = {
	{"7z", "application/x-7z-compressed"}, {"avif", "image/avif"}, {"bmp", "image/bmp"},
	{"css", "text/css"}, {"csv", "text/csv"}, {"epub", "application/epub+zip"},
	{"gif", "image/gif"}, {"gz", "application/gzip"}, {"htm", "text/html"},
	{"html", "text/html"}, {"ico", "image/vnd.microsoft.icon"}, {"jpeg", "image/jpeg"},
	{"jpg", "image/jpeg"}, {"js", "text/javascript"}, {"json", "application/json"},
	{"jsonl", "application/jsonl"}, {"m4a", "audio/mp4"}, {"md", "text/markdown"},
	{"mhtml", "multipart/related"}, {"mjs", "text/javascript"}, {"mkv", "video/x-matroska"},
	{"mp3", "audio/mpeg"}, {"mp4", "video/mp4"}, {"oga", "audio/ogg"}, {"ogg", "audio/ogg"},
	{"ogv", "video/ogg"}, {"otf", "font/otf"}, {"pdf", "application/pdf"},
	{"png", "image/png"}, {"rss", "application/rss+xml"}, {"svg", "image/svg+xml"},
	{"tar", "application/x-tar"}, {"tif", "image/tiff"}, {"tiff", "image/tiff"},
	{"ttf", "font/ttf"}, {"txt", "text/plain"}, {"wasm", "application/wasm"},
	{"warc", "application/warc"}, {"wav", "audio/wav"}, {"webm", "video/webm"},
	{"webp", "image/webp"}, {"woff", "font/woff"}, {"woff2", "font/woff2"},
	{"xhtml", "application/xhtml+xml"}, {"xml", "application/xml"}, {"zip", "application/zip"},
};

const char *
mime_of(const char *name, char ext[16])
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	const char *dot = strrchr(base, '.');
	ext[0] = 0;
	if (!dot || dot == base || strlen(dot + 1) >= 16)
		return "application/octet-stream";
	size_t i = 0;
	for (const char *c = dot + 1; *c; c++)
		ext[i++] = *c >= 'A' && *c <= 'Z' ? *c + 32 : *c;
	ext[i] = 0;
	for (size_t k = 0; k < sizeof mimes / sizeof mimes[0]; k++)
		if (strcmp(mimes[k].ext, ext) == 0)
			return mimes[k].mime;
	return "application/octet-stream";
}

static int
artefact(const char *name)
{
	static const char *ends[] = {".stdout.log", ".stderr.log", ".daemon.json", ".pid", NULL};
	if (strncmp(name, "on_", 3) != 0)
		return 0;
	size_t n = strlen(name);
	for (int i = 0; ends[i]; i++) {
		size_t e = strlen(ends[i]);
		if (n > e && strcmp(name + n - e, ends[i]) == 0)
			return 1;
	}
	return 0;
}

static void
scan(int fd, const char *prefix, ftree_t *t, int depth)
{
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	for (struct dirent *e; (e = readdir(d)) && t->n < MAX_FILES;) {
		const char *nm = e->d_name;
		struct stat st;
		if (strcmp(nm, ".") == 0 || strcmp(nm, "..") == 0 || (depth == 0 && artefact(nm)) ||
		    fstatat(dirfd(d), nm, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		char *rel = *prefix ? xasprintf("%s/%s", prefix, nm) : xstrdup(nm);
		if (S_ISDIR(st.st_mode) && depth < MAX_DEPTH) {
			int sub = openat(dirfd(d), nm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				scan(sub, rel, t, depth + 1);
			free(rel);
		} else if (S_ISREG(st.st_mode)) {
			if (t->n == t->cap) {
				t->cap = t->cap ? t->cap * 2 : 32;
				t->v = xrealloc(t->v, t->cap * sizeof *t->v);
			}
			t->v[t->n++] = (fent_t){rel, st.st_size,
			    (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec, st.st_ino};
		} else {
			free(rel);
		}
	}
	closedir(d);
}

static int
fent_cmp(const void *a, const void *b)
{
	return strcmp(((const fent_t *)a)->rel, ((const fent_t *)b)->rel);
}

void
ftree_scan(int dirfd, ftree_t *t)
{
	memset(t, 0, sizeof *t);
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	scan(fd, "", t, 0);
	if (t->n)
		qsort(t->v, t->n, sizeof *t->v, fent_cmp);
}

void
ftree_free(ftree_t *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].rel);
	free(t->v);
	memset(t, 0, sizeof *t);
}

typedef struct {
	const char *mime;
	long long bytes;
} mimesum_t;

static int
mimesum_cmp(const void *a, const void *b)
{
	const mimesum_t *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return strcmp(x->mime, y->mime);
}

static int
metadata_name(const char *rel)
{
	static const char *const suffixes[] = {".log", ".pid", ".sh"};
	size_t n = strlen(rel);
	for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
		size_t l = strlen(suffixes[i]);
		if (n >= l && strcmp(rel + n - l, suffixes[i]) == 0)
			return 1;
	}
	return 0;
}

void
ftree_outputs(const ftree_t *before, const ftree_t *after, outputs_t *o)
{
	memset(o, 0, sizeof *o);
	mimesum_t *ms = NULL;
	size_t nms = 0;
	buf_addc(&o->files, '{');
	for (size_t i = 0; i < after->n; i++) {
		const fent_t *a = &after->v[i];
		const fent_t *b = before->n ? bsearch(a, before->v, before->n, sizeof *a, fent_cmp) : NULL;
		if (b && b->size == a->size && b->mtime == a->mtime && b->ino == a->ino)
			continue;
		char ext[16];
		const char *mime = mime_of(a->rel, ext);
		if (o->n++)
			buf_addc(&o->files, ',');
		buf_json_strz(&o->files, a->rel);
		buf_adds(&o->files, ":{\"extension\":");
		buf_json_strz(&o->files, ext);
		buf_addf(&o->files, ",\"mimetype\":\"%s\",\"size\":%lld}", mime, a->size);
		o->size += a->size;
		o->content += !metadata_name(a->rel);
		size_t k;
		for (k = 0; k < nms && strcmp(ms[k].mime, mime) != 0; k++)
			;
		if (k == nms) {
			ms = xrealloc(ms, (nms + 1) * sizeof *ms);
			ms[nms++] = (mimesum_t){mime, 0};
		}
		ms[k].bytes += a->size;
	}
	buf_addc(&o->files, '}');
	if (nms)
		qsort(ms, nms, sizeof *ms, mimesum_cmp);
	for (size_t k = 0; k < nms; k++) {
		if (k)
			buf_addc(&o->mimetypes, ',');
		buf_adds(&o->mimetypes, ms[k].mime);
	}
	buf_cstr(&o->mimetypes);
	free(ms);
}

void
outputs_free(outputs_t *o)
{
	buf_free(&o->files);
	buf_free(&o->mimetypes);
}
