/* url.c — see url.h. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "url.h"

const char *
url_check(char *u)
{
	size_t n = strlen(u);
	while (n && isspace((unsigned char)u[n - 1]))
		u[--n] = 0;
	size_t lead = 0;
	while (lead < n && isspace((unsigned char)u[lead]))
		lead++;
	memmove(u, u + lead, n - lead + 1);
	n -= lead;
	if (n == 0)
		return "empty";
	if (n > 65535)
		return "longer than 65535 bytes";
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)u[i] <= 0x20 || u[i] == 0x7f)
			return "contains whitespace or control characters";
	size_t s = 0;
	if (!isalpha((unsigned char)u[0]))
		return "no scheme (want http://, https://, ftp:// or file://)";
	while (s < n && (isalnum((unsigned char)u[s]) || u[s] == '+' || u[s] == '-' || u[s] == '.'))
		s++;
	if (s >= n || u[s] != ':')
		return "no scheme (want http://, https://, ftp:// or file://)";
	if (!(s == 4 && strncasecmp(u, "http", 4) == 0) && !(s == 5 && strncasecmp(u, "https", 5) == 0) &&
	    !(s == 3 && strncasecmp(u, "ftp", 3) == 0) && !(s == 4 && strncasecmp(u, "file", 4) == 0))
		return "unsupported scheme (want http, https, ftp or file)";
	if (strncmp(u + s, "://", 3) != 0)
		return "missing // after the scheme";
	const char *h = u + s + 3;
	if (strncasecmp(u, "file", 4) == 0)
		return *h == '/' ? NULL : "file URLs need an absolute path (file:///path)";
	size_t hl = strcspn(h, "/?#");
	const char *at = memchr(h, '@', hl);
	if (at) {
		hl -= at + 1 - h;
		h = at + 1;
	}
	if (hl == 0 || h[0] == ':')
		return "empty host";
	return NULL;
}

void
url_host(const char *u, char *out, unsigned n)
{
	out[0] = 0;
	const char *p = strstr(u, "://");
	if (!p || n == 0)
		return;
	p += 3;
	size_t hl = strcspn(p, "/?#");
	const char *at = memchr(p, '@', hl);
	if (at) {
		hl -= at + 1 - p;
		p = at + 1;
	}
	if (hl >= n)
		hl = n - 1;
	for (size_t i = 0; i < hl; i++)
		out[i] = tolower((unsigned char)p[i]);
	out[hl] = 0;
}
