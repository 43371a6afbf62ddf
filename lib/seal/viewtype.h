/*
 * viewtype.h — how the snapshot page may link an archived file: raw, as a
 * download, or only through its sandboxed viewer (snappage.h, abx(7)
 * SECURITY).
 *
 * Why: an archive is browsed over HTTP from one origin, so an archived file
 * that a browser runs as a document (HTML, XHTML, SVG, XML...) can read
 * every other file of the archive (index.jsonl, abx.conf) when it is opened
 * raw.  What a browser does with a file depends on the Content-Type its
 * server sends, which static servers take from the name, and, when a server
 * sends none (or one the browser sniffs), on the bytes (WHATWG MIME
 * Sniffing): XHTML saved as image.png runs as a page from such a server.
 * A name, bytes or a type that are not trusted are never trusted alone:
 * abx links a file raw only when all three say the same harmless kind.
 *
 * The allowlist: the kinds a browser shows without running scripts of the
 * file's own.
 *   VK_IMAGE    PNG, JPEG, GIF, WebP, AVIF, BMP, ICO/CUR (never SVG: an
 *               SVG is a document with script)
 *   VK_PDF      PDF (the browser's PDF viewer runs no script in the
 *               archive's origin)
 *   VK_MEDIA    audio and video: MP4/MOV/M4A (ISO BMFF), WebM/Matroska,
 *               Ogg, MP3, WAV, AVI, FLAC
 *   VK_ARCHIVE  zip (and WACZ), gzip, zstd, tar, WARC
 *   VK_TEXT     plain text without markup: .txt .log .md .csv .tsv .cdx,
 *               JSON (.json .jsonl, shown as text), and CSS and JavaScript
 *               (a browser navigated to them shows their source)
 * The other kinds are never linked raw: VK_FONT (woff, woff2, ttf, otf,
 * eot by name; font/ types and application/octet-stream by Content-Type:
 * what a browser saves rather than shows), VK_MARKUP (bytes that may be a
 * document), VK_BINARY (bytes of no kind above), VK_OTHER (a name or a
 * type off the lists, a name with no extension) and VK_NONE (no
 * Content-Type recorded).
 *
 * viewtype_bytes(p, n): the kind of the first n bytes of a file (give at
 * least VIEWTYPE_SNIFF of them, fewer only at the end of the file):
 *   1. A magic number at offset 0: PNG, JPEG, GIF8[79]a, RIFF....WEBPVP,
 *      BM with zero reserved bytes, ICO/CUR (00 00 01|02 00 with an
 *      image count), %PDF-, PK\3\4 / PK\5\6 / PK\7\8, gzip (1f 8b 08),
 *      zstd (28 b5 2f fd), WARC/1., OggS\0, EBML (1a 45 df a3), fLaC,
 *      RIFF....WAVE / AVI , ID3: its kind.
 *   2. Markup: after any UTF-8 byte order mark and ASCII whitespace the
 *      first byte is "<" (stricter than WHATWG's "text/html" patterns,
 *      which need a known tag: this holds any XML root, <svg, <?xml), or
 *      anywhere in the bytes, case-insensitively, "<!--", "<?xml", or
 *      "<" and one of !doctype html head body script iframe frame object
 *      embed svg math style title meta link base form img a div p b br
 *      h1 font table xsl followed by space, tab, CR, LF, FF, "/" or ">":
 *      VK_MARKUP.  A UTF-16 byte order mark: VK_BINARY (never raw).
 *   3. Weaker magic: ....ftyp (AVIF brands avif/avis: VK_IMAGE, others
 *      VK_MEDIA), an MPEG audio frame sync (ff e0 mask), ustar at 257
 *      (tar).
 *   4. No byte WHATWG calls binary (00-08, 0b, 0e-1a, 1c-1f): VK_TEXT
 *      (an empty file too); else VK_BINARY.
 * viewtype_name(name): the kind of the last path component's extension
 * (lower-cased) from the lists above; no extension or another: VK_OTHER.
 * viewtype_ctype(t): the kind of a Content-Type (parameters and case
 * ignored): image/png|jpeg|pjpeg|gif|webp|avif|bmp|x-ms-bmp|x-icon|
 * vnd.microsoft.icon, application/pdf, audio/x and video/x, application/
 * zip|gzip|x-gzip|zstd|x-tar|warc, text/plain|csv|css|javascript,
 * application/json|javascript, font/x and application/octet-stream
 * (VK_FONT); NULL or empty: VK_NONE (not recorded); else VK_OTHER.
 *
 * viewtype_judge(name, p, n, ctype) with B, N, C the three kinds:
 *   VIEW_SANDBOX   B is VK_MARKUP, or C is VK_OTHER (a recorded type off
 *                  the lists: HTML, XML, SVG, unknown)
 *   VIEW_RAW       B is on the allowlist, N == B, and C is VK_NONE or B
 *   VIEW_DOWNLOAD  else, when B is not VK_TEXT and N is not VK_OTHER: bytes
 *                  that sniff as no document under a name a server types
 *                  as no document (a font, a PNG named .txt, a damaged
 *                  image)
 *   VIEW_SANDBOX   else (text or markup under a name off the lists, a
 *                  file with no extension)
 * viewtype_file(dfd, rel, ctype): the same for the file rel below dfd,
 * its first VIEWTYPE_SNIFF bytes read through fs_open (no symlink
 * followed, O_NONBLOCK so a FIFO does not hang); one that cannot be
 * opened or read or is not a regular file: VIEW_SANDBOX.
 *
 * Limits: a server that types names off these lists as HTML, or one that
 * sniffs more than the start of a file, is outside what this judges; the
 * sandbox then still holds for every file not linked raw.
 */
#ifndef ABX_VIEWTYPE_H
#define ABX_VIEWTYPE_H

#include <stddef.h>

#define VIEWTYPE_SNIFF 4096   /* bytes judged: WHATWG sniffs at most 1445 */

enum { VK_NONE, VK_IMAGE, VK_PDF, VK_MEDIA, VK_ARCHIVE, VK_TEXT, VK_FONT, VK_MARKUP, VK_BINARY,
	VK_OTHER };
enum { VIEW_SANDBOX, VIEW_RAW, VIEW_DOWNLOAD };

int viewtype_bytes(const unsigned char *p, size_t n);
int viewtype_name(const char *name);
int viewtype_ctype(const char *ctype);
int viewtype_judge(const char *name, const unsigned char *p, size_t n, const char *ctype);
int viewtype_file(int dfd, const char *rel, const char *ctype);

#endif
