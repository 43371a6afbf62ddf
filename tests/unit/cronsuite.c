/*
 * The cron table (tests/data/cron/cases.tsv, made by gen.py beside it with
 * Debian's python3-croniter and a brute-force search, both independent of
 * abx) against lib/base/cron: for every line EXPR FROM WANT SOURCE, cron_parse()
 * must refuse EXPR when WANT is "invalid" (malformed, or it can never
 * fire), else cron_next() from FROM must be WANT.  Counts are printed by
 * SOURCE (both agree; brute: croniter 1.3.5 is wrong there; never; grammar);
 * one miss fails the test.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "base/clock.h"
#include "base/cron.h"
#include "tap.h"

#define TABLE "tests/data/cron/cases.tsv"

static FILE *
open_table(const char *argv0)
{
	FILE *f = fopen(TABLE, "r");
	if (f)
		return f;
	char *copy = strdup(argv0), path[4096];
	snprintf(path, sizeof path, "%s/../data/cron/cases.tsv", dirname(copy));
	free(copy);
	return fopen(path, "r");
}

enum { SRC_BOTH, SRC_BRUTE, SRC_NEVER, SRC_GRAMMAR, NSRC };
static const char *const srcname[NSRC] = {"both", "brute", "never", "grammar"};

int
main(int argc, char **argv)
{
	FILE *f = open_table(argv[0]);
	if (!f) {
		printf("1..0 # SKIP %s not found\n", TABLE);
		return 1;
	}
	int total[NSRC] = {0}, pass[NSRC] = {0}, lines = 0, bad = 0;
	char line[1024];
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		char *expr = line, *from = strchr(expr, '\t'), *want = NULL, *src = NULL;
		if (from)
			*from++ = 0, want = strchr(from, '\t');
		if (want)
			*want++ = 0, src = strchr(want, '\t');
		if (src)
			*src++ = 0;
		int s = -1;
		for (int i = 0; src && i < NSRC; i++)
			if (strcmp(src, srcname[i]) == 0)
				s = i;
		int64_t t;
		if (s < 0 || clock_parse(from, &t) < 0) {
			printf("# line %d is malformed\n", lines + 1);
			bad++;
			continue;
		}
		lines++;
		total[s]++;
		cron_t c;
		const char *why = NULL;
		int rc = cron_parse(expr, &c, &why), good;
		char got[ISO_LEN + 1] = "invalid";
		if (rc == 0) {
			int64_t n = cron_next(&c, t);
			if (n < 0)
				strcpy(got, "none");
			else
				clock_iso(n, got);
			/* the table has whole minutes: compare up to them */
			got[16] = got[16] ? 'Z' : 0, got[17] = 0;
		}
		if (strcmp(want, "invalid") == 0) {
			good = rc < 0;
		} else {
			char w[32];
			snprintf(w, sizeof w, "%.16sZ", want);
			good = rc == 0 && strcmp(got, w) == 0;
		}
		pass[s] += good;
		if (!good)
			printf("# '%s' after %s: got %s%s%s, want %s (%s)\n", expr, from, got, rc < 0 ? ": " : "",
			    rc < 0 ? why : "", want, srcname[s]);
	}
	fclose(f);
	int all = 0, allpass = 0;
	for (int i = 0; i < NSRC; i++)
		all += total[i], allpass += pass[i];
	printf("# cron table: %d lines, %d agree, %d miss\n", all, allpass, all - allpass);
	for (int i = 0; i < NSRC; i++)
		printf("#   %-8s %d of %d\n", srcname[i], pass[i], total[i]);
	plan(3 + NSRC);
	ok(bad == 0, "every line of the table reads");
	ok(all >= 2000, "the table has %d lines", all);
	for (int i = 0; i < NSRC; i++)
		ok(pass[i] == total[i], "%s: %d of %d", srcname[i], pass[i], total[i]);
	ok(allpass == all, "every expression as the independent implementations read it (%d of %d)", allpass, all);
	return done();
}
