/* gatepace.c — the egress gate's pacing pieces that need no socket
 * (net/gate_int.h): the key a request's host is counted under (the tick's
 * key for the same host: hostpace_key), and the checks of the data
 * directory the gate is given. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net/gate_int.h"
#include "net/hostpace.h"
#include "tap.h"

static const struct {
	const char *host;
	int port, connect;
	const char *key;
} keys[] = {
	{"example.com", 80, 0, "example.com"},
	{"example.com", 443, 1, "example.com"},       /* https's default: the same host */
	{"example.com", 8080, 0, "example.com%3A8080"},
	{"example.com", 8443, 1, "example.com%3A8443"},
	{"example.com", 80, 1, "example.com"},         /* a CONNECT to port 80 is http's */
	{"example.com", 443, 0, "example.com%3A443"},  /* http on 443 is not the default */
	{"127.1", 80, 0, "127.0.0.1"},                 /* as a URL reads it, as the tick does */
	{"[::1]", 443, 1, "%5B%3A%3A1%5D"},
	{"xn--bcher-kva.example", 80, 0, "xn--bcher-kva.example"},
};

int
main(void)
{
	size_t n = sizeof keys / sizeof keys[0];
	plan((int)n + 8);
	for (size_t i = 0; i < n; i++) {
		char out[200] = "";
		int rc = gate_pace_key(keys[i].host, keys[i].port, keys[i].connect, out, sizeof out);
		is_str(rc == 0 ? out : "(none)", keys[i].key, "%s%s:%d is counted as %s", keys[i].connect ? "CONNECT " :
		    "GET http://", keys[i].host, keys[i].port, keys[i].key);
	}
	char key[200], tick[200];
	gate_pace_key("Example.org", 8000, 0, key, sizeof key);
	hostpace_key("http://example.org:8000/page", tick, sizeof tick);
	is_str(key, tick, "the gate's key is the tick's for a URL of that host");

	char tmp[] = "/tmp/abx-gatepace.XXXXXX", path[300];
	ok(mkdtemp(tmp) != NULL, "a directory");
	const char *why;
	ok(gate_pace_open(tmp, 4, &why) < 0 && strstr(why, "not a data directory"), "no locks/: not a data directory (%s)", why);
	snprintf(path, sizeof path, "%s/locks", tmp);
	mkdir(path, 0700);
	ok(gate_pace_open(tmp, 0, &why) < 0 && errno == EINVAL, "0 connections a host: refused");
	ok(gate_pace_open(tmp, HOSTPACE_SLOTS_MAX + 1, &why) < 0, "more than %d: refused", HOSTPACE_SLOTS_MAX);
	int fd = gate_pace_open(tmp, 4, &why);
	struct stat st;
	snprintf(path, sizeof path, "%s/locks/conn", tmp);
	ok(fd >= 0 && stat(path, &st) == 0 && (st.st_mode & 0777) == 0700, "locks/conn is made, 0700");
	close(fd);
	snprintf(path, sizeof path, "%s/locks", tmp);
	chmod(path, 0777);
	ok(gate_pace_open(tmp, 4, &why) < 0 && strstr(why, "others may write"), "a locks/ others may write in is refused");
	chmod(path, 0700);
	snprintf(path, sizeof path, "%s/locks/conn", tmp);
	rmdir(path);
	symlink("/tmp", path);
	ok(gate_pace_open(tmp, 4, &why) < 0, "a symlink for locks/conn is not followed (%s)", why);
	unlink(path);
	rmdir((snprintf(path, sizeof path, "%s/locks", tmp), path));
	rmdir(tmp);
	return done();
}
