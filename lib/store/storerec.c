/*
 * storerec.c — records as the store sees them (store.h): times in and out
 * of a record, whether a record is final or active (in the index), and
 * the journal a record goes to.  Part of the store (store_int.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_int.h"

int64_t
rec_time(const rec_t *r, const char *key)
{
	char *v = rec_str(r, key);
	int64_t us;
	if (!v)
		return -1;
	if (strcmp(v, TIME_MAX_ISO) == 0 || strncmp(v, "9999-", 5) == 0)
		us = INT64_MAX;
	else if (clock_parse(v, &us) < 0)
		us = -1;
	free(v);
	return us;
}

void
rec_set_time(rec_t *r, const char *key, int64_t us)
{
	char iso[ISO_LEN + 1];
	if (us < 0) {
		rec_set_null(r, key);
		return;
	}
	if (us == INT64_MAX)
		strcpy(iso, TIME_MAX_ISO);
	else
		clock_iso(us, iso);
	rec_set_str(r, key, iso);
}

int
record_is_final(const rec_t *r)
{
	char *t = rec_str(r, "type"), *st = rec_str(r, "status");
	int fin = 0;
	if (t && st) {
		if (strcmp(t, "ArchiveResult") == 0)
			fin = strcmp(st, "succeeded") == 0 || strcmp(st, "failed") == 0 ||
			      strcmp(st, "skipped") == 0 || strcmp(st, "noresults") == 0;
		else if (strcmp(t, "Binary") == 0)
			fin = strcmp(st, "installed") == 0;
		else
			fin = strcmp(st, "sealed") == 0;
	}
	free(t);
	free(st);
	return fin;
}

int
record_is_active(const rec_t *r)
{
	char *t = rec_str(r, "type");
	int act = t && (strcmp(t, "Crawl") == 0 || strcmp(t, "Snapshot") == 0 ||
	                strcmp(t, "Binary") == 0 || strcmp(t, "CrawlSchedule") == 0);
	free(t);
	if (!act)
		return 0;
	return !record_is_final(r) || !rec_isnull(r, "retry_at");
}

void
store_crawl_journal(const char *crawl_id, char *out, size_t n)
{
	snprintf(out, n, "crawls/%s/snapshots.jsonl", crawl_id);
}

int
store_journal_of(const rec_t *r, char *out, size_t n)
{
	char *t = rec_str(r, "type");
	int rc = 0;
	if (!t)
		return -1;
	if (strcmp(t, "Crawl") == 0)
		snprintf(out, n, "crawls.jsonl");
	else if (strcmp(t, "CrawlSchedule") == 0)
		snprintf(out, n, "schedules.jsonl");
	else if (strcmp(t, "Binary") == 0)
		snprintf(out, n, "binaries.jsonl");
	else if (strcmp(t, "Snapshot") == 0 || strcmp(t, "ArchiveResult") == 0 ||
	         strcmp(t, "Process") == 0 || strcmp(t, "Tag") == 0) {
		char *c = rec_str(r, "crawl_id");
		if (id_valid(c))
			store_crawl_journal(c, out, n);
		else
			rc = -1;
		free(c);
	} else
		rc = -1;
	free(t);
	return rc;
}
