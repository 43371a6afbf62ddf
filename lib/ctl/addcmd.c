/*
 * addcmd.c — a crawl's settings checked, and the crawl queued (or stored
 * as a schedule's template): see addcmd.h.
 */
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/err.h"
#include "base/exitcodes.h"
#include "base/ids.h"
#include "ctl/addcmd.h"
#include "ctl/archived.h"
#include "ctl/pluginsarg.h"
#include "hook/names.h"
#include "store/record.h"
#include "tick/schedule.h"
#include "tick/settings.h"
#include "tick/tagset.h"

void
addcmd_set(addcmd_t *a, const char *key, const char *value)
{
	rec_set_str(&a->config, key, value);
	conf_set(&a->given, key, value, CONF_CRAWL);
}

int
addcmd_check(addcmd_t *a, const char *dir, buf_t *why)
{
	int rc;
	if (a->plugins) {
		char **v;
		if ((rc = plugins_arg(a->plugins, &v, why)) != 0)
			return rc;
		name_list_free(v);
		addcmd_set(a, "PLUGINS", a->plugins);
	}
	if ((rc = settings_check(&a->given, why)) != 0)
		return rc;
	if (settings_unknown_dir(&a->given, CONF_CRAWL, dir, why, "; "))
		return EX_CONFIG_;   /* a typo on the command line: settings.h */
	char **pl = NULL;   /* plugin names must name plugins (names.h) */
	buf_t bad = {0};
	rc = 0;
	if (conf_parse_plugins(conf_get(&a->given, "PLUGINS"), &pl) == 0 &&
	    names_plugins(dir, pl, &bad)) {
		buf_addf(why, "%s: %s", a->plugins ? "--plugins" : "PLUGINS", buf_cstr(&bad));
		rc = EX_DATAERR_;
	}
	name_list_free(pl);
	buf_free(&bad);
	return rc;
}

/* Stage a depth-0 snapshot of each URL, tagged with the crawl's tags, then
 * its own (tagset.h). */
static void
put_snapshots(store_t *s, const char *tags, const urllist_t *l, const char *cid, int64_t now)
{
	for (size_t i = 0; i < l->n; i++) {
		rec_t snap;
		buf_t t = {0};
		tagset_add(&t, tags);
		tagset_add(&t, l->v[i].tags);
		record_snapshot(&snap, now, cid, l->v[i].url, 0, NULL, l->v[i].title, buf_cstr(&t));
		store_put_new(s, &snap);
		rec_free(&snap);
		buf_free(&t);
	}
}

int
addcmd_queue(store_t *s, addcmd_t *a, urllist_t *l, buf_t *line, buf_t *why)
{
	buf_t bad = {0};
	int rc = settings_check_global(s->dfd, &bad);
	if (rc)
		buf_addf(why, "%s: %s", s->dir, bad.p);
	buf_free(&bad);
	if (rc)
		return rc;
	/* a URL archived already is said and left out, unless --again; a
	 * schedule's copies always capture again */
	int dropped = a->schedule || a->again ? 0 : archived_drop(s, l);
	if (l->n == 0) {
		buf_addf(why, "nothing queued: %s archived already (--again queues %s)",
		    dropped == 1 ? "the URL is" : "every URL is", dropped == 1 ? "it" : "them");
		return ADDCMD_NOTHING;
	}
	int64_t now = clock_now();
	buf_t urls = {0}, cfg = {0};
	urllist_text(l, &urls);
	rec_line(&a->config, &cfg);
	rec_t crawl, sr = {0};
	buf_t tags = {0};   /* --tag as a set */
	tagset_add(&tags, a->tags);
	record_crawl(&crawl, now, buf_cstr(&urls), a->depth, buf_cstr(&tags), cfg.p);
	char *cid = rec_str(&crawl, "id");
	rc = store_lock(s);
	if (rc == 0 && a->schedule) {
		/* a template: sealed, never run itself (ArchiveBox's schedule) */
		record_status(&crawl, "sealed", -1);
		rec_set_raw(&crawl, "is_template", "true");
		rec_set_str(&crawl, "notes", "the template of a schedule");
		store_put_new(s, &crawl);
		schedule_create(s, &crawl, a->schedule, &sr);
	} else if (rc == 0) {
		store_put_new(s, &crawl);
		put_snapshots(s, buf_cstr(&tags), l, cid, now);
	}
	/* all or nothing (store.h): on failure no line of it is kept */
	if (rc < 0 || store_unlock(s) < 0) {
		buf_addf(why, "nothing queued: %s", s->errmsg);
		rc = s->err;
	} else {
		rec_line(a->schedule ? &sr : &crawl, line);
	}
	rec_free(&sr);
	buf_free(&urls);
	buf_free(&cfg);
	buf_free(&tags);
	free(cid);
	rec_free(&crawl);
	return rc;
}

void
addcmd_free(addcmd_t *a)
{
	rec_free(&a->config);
	conf_free(&a->given);
}
