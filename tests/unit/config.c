/*
 * Unit tests of lib/base/config's value parsers and settings_check(): strict,
 * overflow-safe, and a bad value named with where it came from.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "base/config.h"
#include "base/ids.h"
#include "tick/settings.h"
#include "base/exitcodes.h"
#include "tap.h"

static const struct {
	int (*parse)(const char *, long long *);
	const char *name, *in;
	int rc;
	long long want;
} cases[] = {
	{conf_parse_seconds, "seconds", "60", 0, 60},
	{conf_parse_seconds, "seconds", "1.9", 0, 1},
	{conf_parse_seconds, "seconds", "0", 0, 0},
	{conf_parse_seconds, "seconds", "2592000", 0, 2592000},
	{conf_parse_seconds, "seconds", "2592000.5", -1, 0},
	{conf_parse_seconds, "seconds", "99999999999999999999999999999", -1, 0},
	{conf_parse_seconds, "seconds", "abc", -1, 0},
	{conf_parse_seconds, "seconds", "", -1, 0},
	{conf_parse_seconds, "seconds", "-5", -1, 0},
	{conf_parse_seconds, "seconds", "+5", -1, 0},
	{conf_parse_seconds, "seconds", " 5", -1, 0},
	{conf_parse_seconds, "seconds", "1e3", -1, 0},
	{conf_parse_seconds, "seconds", "0x10", -1, 0},
	{conf_parse_seconds, "seconds", "inf", -1, 0},
	{conf_parse_seconds, "seconds", "nan", -1, 0},
	{conf_parse_seconds, "seconds", "5.", -1, 0},
	{conf_parse_seconds, "seconds", "60s", -1, 0},

	{conf_parse_count, "count", "0", 0, 0},
	{conf_parse_count, "count", "100", 0, 100},
	{conf_parse_count, "count", "9223372036854775807", 0, 9223372036854775807LL},
	{conf_parse_count, "count", "9223372036854775808", -1, 0},
	{conf_parse_count, "count", "-1", -1, 0},
	{conf_parse_count, "count", "1.5", -1, 0},
	{conf_parse_count, "count", "ten", -1, 0},

	{conf_parse_size, "size", "0", 0, 0},
	{conf_parse_size, "size", "500", 0, 500},
	{conf_parse_size, "size", "10k", 0, 10240},
	{conf_parse_size, "size", "10KiB", 0, 10240},
	{conf_parse_size, "size", "2kb", 0, 2048},
	{conf_parse_size, "size", "45mb", 0, 45LL << 20},
	{conf_parse_size, "size", "1.5G", 0, 3LL << 29},
	{conf_parse_size, "size", "1 GB", 0, 1LL << 30},
	{conf_parse_size, "size", "3t", 0, 3LL << 40},
	{conf_parse_size, "size", "100B", 0, 100},
	{conf_parse_size, "size", "8388607T", 0, 8388607LL << 40},
	{conf_parse_size, "size", "8388608T", -1, 0},
	{conf_parse_size, "size", "99999999999T", -1, 0},
	{conf_parse_size, "size", "9223372036854775808", -1, 0},
	{conf_parse_size, "size", "1e9", -1, 0},
	{conf_parse_size, "size", "lots", -1, 0},
	{conf_parse_size, "size", "10x", -1, 0},
	{conf_parse_size, "size", "10kk", -1, 0},
	{conf_parse_size, "size", "-1k", -1, 0},

	{conf_parse_duration, "duration", "", 0, 0},
	{conf_parse_duration, "duration", "0", 0, 0},
	{conf_parse_duration, "duration", "off", 0, 0},
	{conf_parse_duration, "duration", "None", 0, 0},
	{conf_parse_duration, "duration", "0d", 0, 0},
	{conf_parse_duration, "duration", "1h", 0, 3600},
	{conf_parse_duration, "duration", "30d", 0, 30 * 86400},
	{conf_parse_duration, "duration", "12 weeks", 0, 12 * 604800},
	{conf_parse_duration, "duration", "1y", 0, 31536000},
	{conf_parse_duration, "duration", "100000y", 0, 100000LL * 31536000},
	{conf_parse_duration, "duration", "100001y", -1, 0},
	{conf_parse_duration, "duration", "1000000y", -1, 0},
	{conf_parse_duration, "duration", "9223372036854775807h", -1, 0},
	{conf_parse_duration, "duration", "99999999999999999999d", -1, 0},
	{conf_parse_duration, "duration", "106751991167d", -1, 0},
	{conf_parse_duration, "duration", "30m", -1, 0},
	{conf_parse_duration, "duration", "10", -1, 0},
	{conf_parse_duration, "duration", "-5d", -1, 0},
	{conf_parse_duration, "duration", "soon", -1, 0},
};

static const struct {
	const char *in;
	int rc, n;
} plugins[] = {
	{"", 0, 0}, {"wget", 0, 1}, {"wget,title", 0, 2}, {" wget , title ", 0, 2}, {"wget,", 0, 1},
	{"wget title", -1, 0}, {"[\"wget\"]", -1, 0}, {"../x", -1, 0}, {",", -1, 0}, {" , ", -1, 0},
	{" ", -1, 0}, {"wget,../x", -1, 0}, {".hidden", -1, 0},
};

int
main(void)
{
	size_t nc = sizeof cases / sizeof cases[0], np = sizeof plugins / sizeof plugins[0];
	plan((int)(nc + np + 17));
	for (size_t i = 0; i < nc; i++) {
		long long v = -42;
		int rc = cases[i].parse(cases[i].in, &v);
		ok(rc == cases[i].rc && (rc < 0 || v == cases[i].want), "%s '%s': %s (got %d, %lld)",
		    cases[i].name, cases[i].in, cases[i].rc ? "refused" : "accepted", rc, v);
	}
	for (size_t i = 0; i < np; i++) {
		char **v = (char **)1;
		int rc = conf_parse_plugins(plugins[i].in, &v), n = 0;
		for (char **p = v; rc == 0 && p && *p; p++)
			n++;
		ok(rc == plugins[i].rc && (rc < 0 ? v == NULL : n == plugins[i].n), "PLUGINS '%s': %s",
		    plugins[i].in, plugins[i].rc ? "refused" : "accepted");
		if (rc == 0)
			name_list_free(v);
	}
	ok(conf_seconds("abc", 60) == 60 && conf_seconds("0", 60) == 60 && conf_seconds("30", 60) == 30,
	    "conf_seconds: the default for a bad or zero value");

	/* settings_check: where, key, value; 65 for a crawl's, 78 for ours */
	conf_t c = {0};
	buf_t why = {0};
	conf_builtins(&c);
	ok(settings_check(&c, &why) == 0 && why.len == 0, "the built-in defaults are good");
	conf_set(&c, "TIMEOUT", "30", CONF_FILE);
	conf_set(&c, "WGET_TIMEOUT", "45", CONF_CRAWL);
	conf_set(&c, "PLUGINS", "wget,title", CONF_ENV);
	conf_set(&c, "FOO_TIMEOUT", "abc", CONF_ENV);   /* not ours: the environment is everyone's */
	conf_set(&c, "UNRELATED", "anything", CONF_FILE);
	ok(settings_check(&c, &why) == 0, "good values pass, another program's FOO_TIMEOUT too (%s)",
	    why.p ? why.p : "");
	conf_set(&c, "CRAWL_MAX_URLS", "-1", CONF_CRAWL);
	int rc = settings_check(&c, &why);
	ok(rc == EX_DATAERR_, "a bad value in a crawl's config: 65 (got %d)", rc);
	is_str(why.p, "the crawl's --config: CRAWL_MAX_URLS=-1: want a whole number, or 0 for no limit",
	    "the message names where, the key, the value and what is wanted");
	conf_set(&c, "BAR_TIMEOUT", "0", CONF_SNAPSHOT);
	buf_reset(&why);
	ok(settings_check(&c, &why) == EX_DATAERR_ && strstr(why.p, "the snapshot's config: BAR_TIMEOUT=0") &&
	        strstr(why.p, "; the crawl's --config: CRAWL_MAX_URLS=-1"),
	    "every bad value is reported, joined with '; ' (%s)", why.p);
	conf_set(&c, "CRAWL_MAX_SIZE", "1e9", CONF_ENV);
	buf_reset(&why);
	ok(settings_check(&c, &why) == EX_CONFIG_ && strstr(why.p, "the environment: CRAWL_MAX_SIZE=1e9"),
	    "one from the environment makes it 78");
	conf_free(&c);

	/* abx.conf: the line of the value that won */
	char dir[] = "/tmp/abx-unit-config.XXXXXX";
	ok(mkdtemp(dir) != NULL, "a temporary directory");
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	FILE *f = fdopen(openat(dfd, "abx.conf", O_WRONLY | O_CREAT | O_TRUNC, 0644), "w");
	fputs("# comment\n\nDELETE_AFTER=30d\nexport TIMEOUT = 30\nDELETE_AFTER = \"1000000y\"\n", f);
	fclose(f);
	conf_builtins(&c);
	ok(conf_load_file(&c, dfd, "abx.conf") == 0, "abx.conf loads");
	is_str(conf_get(&c, "TIMEOUT"), "30", "blanks around '=' are dropped");
	buf_reset(&why);
	rc = settings_check(&c, &why);
	ok(rc == EX_CONFIG_, "a bad value in abx.conf: 78 (got %d)", rc);
	is_str(why.p, "abx.conf line 5: DELETE_AFTER=1000000y: want a duration of 1h to 100000y such as 30d, "
	    "12w or 1y, or 0 for never", "naming its line, the last one for the key");
	buf_reset(&why);
	ok(settings_check_global(dfd, &why) == EX_CONFIG_ && strstr(why.p, "abx.conf line 5: DELETE_AFTER="),
	    "settings_check_global: abx.conf as every tool loads it");
	buf_reset(&why);
	ok(settings_check_json("{\"TIMEOUT\":30,\"PLUGINS\":\"wget\",\"X\":null}", CONF_CRAWL, &why) == 0,
	    "settings_check_json: a good stored config");
	ok(settings_check_json("{\"TIMEOUT\":\"abc\"}", CONF_CRAWL, &why) == EX_DATAERR_ &&
	        strstr(why.p, "the crawl's --config: TIMEOUT=abc"),
	    "a bad one: 65, named");
	buf_reset(&why);
	ok(settings_check_json("[1]", CONF_SNAPSHOT, &why) == 0 && why.len == 0, "not an object: nothing to check");
	conf_t cp = {0};
	conf_copy(&cp, &c);
	buf_reset(&why);
	ok(settings_check(&cp, &why) == EX_CONFIG_ && strstr(why.p, "abx.conf line 5: "), "a copy keeps the line");
	conf_free(&cp);
	conf_free(&c);
	buf_free(&why);
	unlinkat(dfd, "abx.conf", 0);
	close(dfd);
	rmdir(dir);
	return done();
}
