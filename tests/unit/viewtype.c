/*
 * viewtype.c — unit tests for lib/seal/viewtype.c: which archived files the
 * snapshot page links raw, as a download, or through its sandbox.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "seal/viewtype.h"

static const unsigned char png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H',
	'D', 'R', 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0};

static int
judge(const char *name, const char *bytes, const char *ctype)
{
	return viewtype_judge(name, (const unsigned char *)bytes, strlen(bytes), ctype);
}

static int
judgen(const char *name, const void *bytes, size_t n, const char *ctype)
{
	return viewtype_judge(name, bytes, n, ctype);
}

static int
kind(const char *bytes)
{
	return viewtype_bytes((const unsigned char *)bytes, strlen(bytes));
}

static void
put(int dfd, const char *name, const void *p, size_t n)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, p, n) != (ssize_t)n)
		perror(name);
	if (fd >= 0)
		close(fd);
}

int
main(void)
{
	plan(54);
	const char *xhtml = "<?xml version=\"1.0\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\">"
	                    "<script>fetch('/abx.conf')</script></html>";
	const char *svg = "<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>";

	/* the allowlist: name, bytes (and type) agree */
	ok(judgen("real.png", png, sizeof png, NULL) == VIEW_RAW, "a PNG named .png is raw");
	ok(judgen("A.PNG", png, sizeof png, "image/png") == VIEW_RAW, "its name's case and a matching type too");
	ok(judge("x.jpg", "\xff\xd8\xff\xe0\0\x10JFIF", NULL) == VIEW_RAW, "a JPEG");
	ok(judge("x.gif", "GIF89a\1\0\1\0", NULL) == VIEW_RAW, "a GIF");
	ok(judgen("x.webp", "RIFF\x24\0\0\0WEBPVP8 ", 16, NULL) == VIEW_RAW, "a WebP");
	ok(judgen("x.avif", "\0\0\0\x1c" "ftypavif", 12, NULL) == VIEW_RAW, "an AVIF");
	ok(judgen("x.ico", "\0\0\1\0\1\0\x10\x10", 8, NULL) == VIEW_RAW, "an ICO");
	ok(judgen("x.bmp", "BM\x3a\0\0\0\0\0\0\0\x36\0\0\0", 14, NULL) == VIEW_RAW, "a BMP");
	ok(judge("x.jpg", "\xff\xd8\xff\xe0", "image/png") == VIEW_RAW, "an image under another image type");
	ok(judge("output.pdf", "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n<</Type/Catalog>>", NULL) == VIEW_RAW,
	    "a PDF (its dictionaries are not markup)");
	ok(judgen("v.mp4", "\0\0\0\x18" "ftypisom\0\0\2\0", 16, NULL) == VIEW_RAW, "an MP4");
	ok(judge("v.webm", "\x1a\x45\xdf\xa3\x9f", "video/webm") == VIEW_RAW, "a WebM");
	ok(judge("a.mp3", "ID3\3\0\0\0", NULL) == VIEW_RAW, "an MP3");
	ok(judge("a.ogg", "OggS", NULL) == VIEW_SANDBOX, "OggS without its version byte is text");
	ok(judgen("a.ogg", "OggS\0\2", 6, NULL) == VIEW_RAW, "an Ogg");
	ok(judge("w.warc.gz", "\x1f\x8b\x08\0", NULL) == VIEW_RAW, "a gzipped WARC");
	ok(judge("w.warc", "WARC/1.1\r\nWARC-Type: response\r\n\r\n<html><script>", NULL) == VIEW_RAW,
	    "a WARC, the pages in it not judged as its own markup");
	ok(judge("x.wacz", "PK\3\4\x14\0", NULL) == VIEW_RAW, "a WACZ (zip)");
	ok(judge("x.zst", "\x28\xb5\x2f\xfd\x04", NULL) == VIEW_RAW, "a zstd file");
	unsigned char tar[600] = "index.html";
	memcpy(tar + 257, "ustar\0" "00", 8);
	ok(judgen("x.tar", tar, sizeof tar, NULL) == VIEW_RAW, "a tar (ustar at 257)");
	ok(judge("notes.txt", "plain text, 1 < 2 and a <bogus> tag\n", NULL) == VIEW_RAW,
	    "plain text, with < that opens no document tag");
	ok(judge("headers.json", "{\"status\": 200, \"content-type\": \"text/html\"}\n", "application/json") ==
	    VIEW_RAW, "JSON, shown as text");
	ok(judge("empty.txt", "", NULL) == VIEW_RAW, "an empty text file");
	ok(judge("app.js", "var x = 1;\n", "text/javascript") == VIEW_RAW, "JavaScript, shown as its source");

	/* the hostile files of tests/security-viewer-allow.sh */
	ok(judge("image.png", xhtml, NULL) == VIEW_SANDBOX, "XHTML named image.png goes to the sandbox");
	ok(judge("image.png", xhtml, "image/png") == VIEW_SANDBOX, "even under a recorded image type");
	ok(judge("drawing.svg", svg, NULL) == VIEW_SANDBOX, "an SVG goes to the sandbox");
	ok(judge("drawing.svg", "\x1f\x8b\x08\0", NULL) == VIEW_SANDBOX, "an .svgz-like gzip named .svg too");

	/* markup, judged from the bytes */
	ok(kind("\xef\xbb\xbf \n\t<HTML>") == VK_MARKUP, "after a BOM and whitespace, < is markup");
	ok(kind("  <rss version=\"2.0\">") == VK_MARKUP, "any XML root at the start");
	ok(kind("text first\n<SCRIPT>x</script>") == VK_MARKUP, "<script anywhere");
	ok(kind("text first <!-- c -->") == VK_MARKUP, "a comment anywhere");
	ok(kind("text <?XML version") == VK_MARKUP, "<?xml anywhere");
	ok(kind("a link <a href=x>") == VK_MARKUP, "<a followed by a space");
	ok(kind("see <svg/onload=x>") == VK_MARKUP, "<svg followed by /");
	ok(kind("x <p>") == VK_MARKUP, "<p>");
	ok(kind("x <abbr> <pre> <bx>") == VK_TEXT, "tags off the list, not at the start: text");
	ok(kind("x <") == VK_TEXT, "a < at the end");
	ok(viewtype_bytes((const unsigned char *)"\xff\xfe<\0h\0", 6) == VK_BINARY, "UTF-16 is binary");
	ok(viewtype_bytes((const unsigned char *)"abc\0def", 7) == VK_BINARY, "a NUL byte: binary");
	ok(kind("log \x1b[1mbold\x1b[0m\r\n") == VK_TEXT, "ESC and CR are text");

	/* names and types off the lists */
	ok(judgen("page.html", png, sizeof png, NULL) == VIEW_SANDBOX, "a PNG named .html (a polyglot) goes "
	    "to the sandbox");
	ok(judge("127.0.0.1/page", "hello\n", NULL) == VIEW_SANDBOX, "text under a name without extension");
	ok(judge("notes.txt", "hello\n", "text/html; charset=utf-8") == VIEW_SANDBOX,
	    "text recorded as text/html");
	ok(judge("style.css", "body{}", "Text/CSS; charset=x") == VIEW_RAW, "CSS, its type's case ignored");

	/* downloads: bytes no browser runs, under a name a server types as no document */
	ok(judgen("font.woff2", "wOF2\0\1\0\0", 8, NULL) == VIEW_DOWNLOAD, "a font is a download");
	ok(judgen("notes.txt", png, sizeof png, NULL) == VIEW_DOWNLOAD, "a PNG named .txt is a download");
	ok(judgen("x.png", png, sizeof png, "application/octet-stream") == VIEW_DOWNLOAD,
	    "a PNG recorded as octet-stream is a download");

	/* types */
	ok(viewtype_ctype(NULL) == VK_NONE && viewtype_ctype(" ") == VK_NONE, "no type recorded");
	ok(viewtype_ctype("audio/mpeg") == VK_MEDIA && viewtype_ctype("audio/") == VK_OTHER,
	    "audio/x is media, audio/ alone is not");
	ok(viewtype_ctype("image/svg+xml") == VK_OTHER && viewtype_ctype("application/xhtml+xml") == VK_OTHER,
	    "SVG and XHTML types are off the lists");
	ok(viewtype_name(".png") == VK_OTHER && viewtype_name("d.png/x") == VK_OTHER,
	    "a dot file and a directory's extension are no extension");

	/* files: no symlink followed, no FIFO waited on */
	char dir[] = "/tmp/viewtype.XXXXXX";
	if (!mkdtemp(dir))
		return perror("mkdtemp"), 1;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	put(dfd, "real.png", png, sizeof png);
	put(dfd, "image.png", xhtml, strlen(xhtml));
	symlinkat("real.png", dfd, "link.png");
	mkfifoat(dfd, "fifo.png", 0644);
	ok(viewtype_file(dfd, "real.png", NULL) == VIEW_RAW && viewtype_file(dfd, "image.png", NULL) ==
	    VIEW_SANDBOX, "files are judged by their bytes");
	ok(viewtype_file(dfd, "link.png", NULL) == VIEW_SANDBOX && viewtype_file(dfd, "fifo.png", NULL) ==
	    VIEW_SANDBOX && viewtype_file(dfd, "gone.png", NULL) == VIEW_SANDBOX,
	    "a symlink, a FIFO and a missing file go to the sandbox");
	unlinkat(dfd, "real.png", 0), unlinkat(dfd, "image.png", 0), unlinkat(dfd, "link.png", 0);
	unlinkat(dfd, "fifo.png", 0);
	close(dfd);
	rmdir(dir);
	return done();
}
