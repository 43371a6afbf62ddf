/*
 * addcmd.h — what abx-add does beyond reading its options and its URLs
 * (urllist.h): check a crawl's settings before anything is stored, then
 * queue the crawl in one durable commit.
 *
 *   addcmd_set()     one setting of the crawl (--config KEY=VALUE, --scope
 *                    as CRAWL_SCOPE, --plugins as PLUGINS): kept in its
 *                    "config" object, and checked with the others
 *   addcmd_check()   before the data directory is touched: the --plugins
 *                    list (pluginsarg.h), every setting given
 *                    (settings_check(), settings.h), and each plugin named
 *                    by PLUGINS being one found on the search path of dir
 *                    (names_plugins(), names.h).  0, or the exit status
 *                    (65 for a bad value) and the message in why.
 *   addcmd_queue()   with the store open: the settings of abx.conf and the
 *                    environment checked (settings_check_global(): 78 and
 *                    "DIR: why"); the URLs archived already taken out of l,
 *                    each said on stderr (archived.h), unless again or a
 *                    schedule: when none is left, ADDCMD_NOTHING (1) and
 *                    "nothing queued: ..." in why; then under the store
 *                    lock, all or nothing
 *                    (store.h), the Crawl and a depth-0 Snapshot of each
 *                    URL, queued and due now (a snapshot's tags are the
 *                    crawl's and its own); with a schedule, the crawl is
 *                    stored sealed instead, as the template of a
 *                    CrawlSchedule (schedule.h), and no snapshot.  0 and
 *                    the committed record (the Crawl, or the CrawlSchedule)
 *                    as a JSON line in line; else the exit status and the
 *                    message in why ("nothing queued: ..." when the commit
 *                    failed: nothing of it is kept).
 *
 * Nothing here prints or exits.
 */
#ifndef ABX_ADDCMD_H
#define ABX_ADDCMD_H

#include "base/config.h"
#include "ctl/urllist.h"
#include "store/store.h"

typedef struct {
	int depth;                /* --depth, 0 to 4 */
	const char *tags;         /* --tag T,...: "" for none */
	const char *plugins;      /* --plugins, or NULL */
	const char *schedule;     /* --schedule CRON (a good one), or NULL */
	int again;                /* --again: queue URLs archived already too */
	rec_t config;             /* the crawl's own settings */
	conf_t given;             /* the same, as a crawl's layer, to check */
} addcmd_t;

void addcmd_set(addcmd_t *a, const char *key, const char *value);
int addcmd_check(addcmd_t *a, const char *dir, buf_t *why);
enum { ADDCMD_NOTHING = 1 };   /* every URL was archived already */
int addcmd_queue(store_t *s, addcmd_t *a, urllist_t *l, buf_t *line, buf_t *why);
void addcmd_free(addcmd_t *a);

#endif
