/*
 * url.h — checking the URLs users queue.
 *
 * url_check() trims surrounding whitespace in place and accepts an absolute
 * URL of a scheme abx can archive (http, https, ftp, file), at most 65535
 * bytes (ArchiveBox's limit), with a host for the network schemes and no
 * whitespace or control bytes inside.  It returns NULL if the URL is good,
 * else a short reason for the diagnostic ("no scheme", "empty host" ...).
 */
#ifndef ABX_URL_H
#define ABX_URL_H

const char *url_check(char *url);
/* The host[:port] part of a URL into out ("" if none). */
void url_host(const char *url, char *out, unsigned n);

#endif
