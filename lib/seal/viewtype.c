/*
 * viewtype.c — see viewtype.h (the allowlist, and why).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fs.h"
#include "seal/viewtype.h"

/* Magic numbers at offset 0 ("." matches any byte). */
static const struct {
	const char *magic;
	size_t len;
	int kind;
} magic0[] = {
	{"\x89PNG\r\n\x1a\n", 8, VK_IMAGE},
	{"\xff\xd8\xff", 3, VK_IMAGE},
	{"GIF87a", 6, VK_IMAGE},
	{"GIF89a", 6, VK_IMAGE},
	{"RIFF....WEBPVP", 14, VK_IMAGE},
	{"%PDF-", 5, VK_PDF},
	{"PK\x03\x04", 4, VK_ARCHIVE},
	{"PK\x05\x06", 4, VK_ARCHIVE},
	{"PK\x07\x08", 4, VK_ARCHIVE},
	{"\x1f\x8b\x08", 3, VK_ARCHIVE},
	{"\x28\xb5\x2f\xfd", 4, VK_ARCHIVE},
	{"WARC/1.", 7, VK_ARCHIVE},
	{"OggS\0", 5, VK_MEDIA},
	{"\x1a\x45\xdf\xa3", 4, VK_MEDIA},
	{"fLaC", 4, VK_MEDIA},
	{"RIFF....WAVE", 12, VK_MEDIA},
	{"RIFF....AVI ", 12, VK_MEDIA},
	{"ID3", 3, VK_MEDIA},
};

static int
at(const unsigned char *p, size_t n, size_t off, const char *m, size_t len)
{
	if (off + len > n)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (m[i] != '.' && p[off + i] != (unsigned char)m[i])
			return 0;
	return 1;
}

/* BMP: "BM", then a size, then four reserved bytes that are zero. */
static int
is_bmp(const unsigned char *p, size_t n)
{
	return n >= 14 && p[0] == 'B' && p[1] == 'M' && !p[6] && !p[7] && !p[8] && !p[9];
}

/* ICO/CUR: reserved 0, type 1 or 2, at least one image. */
static int
is_ico(const unsigned char *p, size_t n)
{
	return n >= 6 && !p[0] && !p[1] && (p[2] == 1 || p[2] == 2) && !p[3] && (p[4] || p[5]);
}

static int
tag_end(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '/' || c == '>';
}

/* "<" and a tag that makes a document, anywhere in the bytes. */
static int
has_markup(const unsigned char *p, size_t n)
{
	static const char *const tags[] = {"!doctype", "html", "head", "body", "script", "iframe", "frame",
	    "object", "embed", "svg", "math", "style", "title", "meta", "link", "base", "form", "img", "a",
	    "div", "p", "b", "br", "h1", "font", "table", "xsl", NULL};
	for (const unsigned char *q = memchr(p, '<', n); q; q = memchr(q + 1, '<', n - (size_t)(q + 1 - p))) {
		size_t left = n - (size_t)(q + 1 - p);
		if ((left >= 3 && memcmp(q + 1, "!--", 3) == 0) ||
		    (left >= 4 && strncasecmp((const char *)q + 1, "?xml", 4) == 0))
			return 1;
		for (int i = 0; tags[i]; i++) {
			size_t l = strlen(tags[i]);
			if (left > l && strncasecmp((const char *)q + 1, tags[i], l) == 0 && tag_end(q[1 + l]))
				return 1;
		}
		if (q + 1 == p + n)
			break;
	}
	return 0;
}

/* The first byte after a UTF-8 byte order mark and whitespace is "<". */
static int
starts_with_markup(const unsigned char *p, size_t n)
{
	size_t i = at(p, n, 0, "\xef\xbb\xbf", 3) ? 3 : 0;
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r' || p[i] == '\f'))
		i++;
	return i < n && p[i] == '<';
}

static int
is_binary_byte(unsigned char c)
{
	return c <= 0x08 || c == 0x0b || (c >= 0x0e && c <= 0x1a) || (c >= 0x1c && c <= 0x1f);
}

int
viewtype_bytes(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < sizeof magic0 / sizeof magic0[0]; i++)
		if (at(p, n, 0, magic0[i].magic, magic0[i].len))
			return magic0[i].kind;
	if (is_bmp(p, n) || is_ico(p, n))
		return VK_IMAGE;
	if (starts_with_markup(p, n) || has_markup(p, n))
		return VK_MARKUP;
	if (at(p, n, 0, "\xfe\xff", 2) || at(p, n, 0, "\xff\xfe", 2))
		return VK_BINARY;   /* UTF-16: its markup would hide from the scan */
	if (at(p, n, 4, "ftyp", 4))
		return at(p, n, 8, "avif", 4) || at(p, n, 8, "avis", 4) ? VK_IMAGE : VK_MEDIA;
	if (n >= 2 && p[0] == 0xff && (p[1] & 0xe0) == 0xe0)
		return VK_MEDIA;
	if (at(p, n, 257, "ustar", 5))
		return VK_ARCHIVE;
	for (size_t i = 0; i < n; i++)
		if (is_binary_byte(p[i]))
			return VK_BINARY;
	return VK_TEXT;
}

static const struct {
	const char *ext;
	int kind;
} exts[] = {
	{"png", VK_IMAGE}, {"apng", VK_IMAGE}, {"jpg", VK_IMAGE}, {"jpeg", VK_IMAGE}, {"jpe", VK_IMAGE},
	{"jfif", VK_IMAGE}, {"gif", VK_IMAGE}, {"webp", VK_IMAGE}, {"avif", VK_IMAGE}, {"bmp", VK_IMAGE},
	{"ico", VK_IMAGE}, {"cur", VK_IMAGE},
	{"pdf", VK_PDF},
	{"mp4", VK_MEDIA}, {"m4a", VK_MEDIA}, {"m4v", VK_MEDIA}, {"mov", VK_MEDIA}, {"webm", VK_MEDIA},
	{"mkv", VK_MEDIA}, {"ogg", VK_MEDIA}, {"oga", VK_MEDIA}, {"ogv", VK_MEDIA}, {"opus", VK_MEDIA},
	{"mp3", VK_MEDIA}, {"wav", VK_MEDIA}, {"flac", VK_MEDIA}, {"aac", VK_MEDIA}, {"avi", VK_MEDIA},
	{"zip", VK_ARCHIVE}, {"wacz", VK_ARCHIVE}, {"gz", VK_ARCHIVE}, {"tgz", VK_ARCHIVE},
	{"zst", VK_ARCHIVE}, {"tar", VK_ARCHIVE}, {"warc", VK_ARCHIVE},
	{"txt", VK_TEXT}, {"text", VK_TEXT}, {"log", VK_TEXT}, {"md", VK_TEXT}, {"csv", VK_TEXT},
	{"tsv", VK_TEXT}, {"cdx", VK_TEXT}, {"json", VK_TEXT}, {"jsonl", VK_TEXT}, {"css", VK_TEXT},
	{"js", VK_TEXT}, {"mjs", VK_TEXT},
	{"woff", VK_FONT}, {"woff2", VK_FONT}, {"ttf", VK_FONT}, {"otf", VK_FONT}, {"eot", VK_FONT},
};

int
viewtype_name(const char *name)
{
	const char *slash = strrchr(name, '/'), *base = slash ? slash + 1 : name;
	const char *dot = strrchr(base, '.');
	if (!dot || dot == base)
		return VK_OTHER;
	for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++)
		if (strcasecmp(dot + 1, exts[i].ext) == 0)
			return exts[i].kind;
	return VK_OTHER;
}

static const struct {
	const char *type;   /* a trailing "/" matches the whole top-level type */
	int kind;
} ctypes[] = {
	{"image/png", VK_IMAGE}, {"image/jpeg", VK_IMAGE}, {"image/pjpeg", VK_IMAGE},
	{"image/gif", VK_IMAGE}, {"image/webp", VK_IMAGE}, {"image/avif", VK_IMAGE},
	{"image/bmp", VK_IMAGE}, {"image/x-ms-bmp", VK_IMAGE}, {"image/x-icon", VK_IMAGE},
	{"image/vnd.microsoft.icon", VK_IMAGE},
	{"application/pdf", VK_PDF},
	{"audio/", VK_MEDIA}, {"video/", VK_MEDIA},
	{"application/zip", VK_ARCHIVE}, {"application/gzip", VK_ARCHIVE},
	{"application/x-gzip", VK_ARCHIVE}, {"application/zstd", VK_ARCHIVE},
	{"application/x-tar", VK_ARCHIVE}, {"application/warc", VK_ARCHIVE},
	{"text/plain", VK_TEXT}, {"text/csv", VK_TEXT}, {"text/css", VK_TEXT},
	{"text/javascript", VK_TEXT}, {"application/json", VK_TEXT},
	{"application/javascript", VK_TEXT},
	{"font/", VK_FONT}, {"application/octet-stream", VK_FONT},
};

int
viewtype_ctype(const char *ctype)
{
	if (!ctype)
		return VK_NONE;
	while (*ctype == ' ' || *ctype == '\t')
		ctype++;
	size_t n = strcspn(ctype, "; \t");
	if (n == 0)
		return VK_NONE;
	for (size_t i = 0; i < sizeof ctypes / sizeof ctypes[0]; i++) {
		size_t l = strlen(ctypes[i].type);
		int prefix = ctypes[i].type[l - 1] == '/';
		if ((prefix ? n > l : n == l) && strncasecmp(ctype, ctypes[i].type, l) == 0)
			return ctypes[i].kind;
	}
	return VK_OTHER;
}

int
viewtype_judge(const char *name, const unsigned char *p, size_t n, const char *ctype)
{
	int b = viewtype_bytes(p, n), k = viewtype_name(name), c = viewtype_ctype(ctype);
	if (b == VK_MARKUP || c == VK_OTHER)
		return VIEW_SANDBOX;
	if (b >= VK_IMAGE && b <= VK_TEXT && k == b && (c == VK_NONE || c == b))
		return VIEW_RAW;
	if (b != VK_TEXT && k != VK_OTHER)
		return VIEW_DOWNLOAD;
	return VIEW_SANDBOX;
}

int
viewtype_file(int dfd, const char *rel, const char *ctype)
{
	unsigned char p[VIEWTYPE_SNIFF];
	size_t n = 0;
	struct stat st;
	int fd = fs_open(dfd, rel, O_RDONLY | O_NONBLOCK, 0);
	if (fd < 0)
		return VIEW_SANDBOX;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return VIEW_SANDBOX;
	}
	while (n < sizeof p) {
		ssize_t r = read(fd, p + n, sizeof p - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			close(fd);
			return VIEW_SANDBOX;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	return viewtype_judge(rel, p, n, ctype);
}
