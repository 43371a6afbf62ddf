/*
 * abx-ls — print the current version of records as JSONL (a table when
 * stdout is a terminal), filtered by kind and status.
 *
 * With IDs, those records (each unknown id reported; exit 65 at the end).
 * Without, every record of the kind: schedules, binaries, crawls, then each
 * crawl's snapshots and results.  When the status asked for is an active
 * one (queued, started, paused), only the active index is read, so the cost
 * follows the work in flight, not the archive's size.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "err.h"
#include "exitcodes.h"
#include "sigreset.h"
#include "store.h"
#include "termsafe.h"

static const char usage[] =
    "abx-ls [-d DIR] [-k crawl|snapshot|result|binary|schedule|process] [-s STATUS] [--jsonl] [ID...]";

static const struct {
	const char *kind, *type;
} kinds[] = {
	{"crawl", "Crawl"}, {"snapshot", "Snapshot"}, {"result", "ArchiveResult"},
	{"archiveresult", "ArchiveResult"}, {"binary", "Binary"}, {"schedule", "CrawlSchedule"},
	{"process", "Process"}, {NULL, NULL},
};

typedef struct {
	store_t *s;
	const char *type, *status;
	int table;
	long count;
} lsctx_t;

static void
print_rec(lsctx_t *c, rec_t *r)
{
	char *t = rec_str(r, "type");
	if (c->type && (!t || strcmp(t, c->type) != 0)) {
		free(t);
		return;
	}
	if ((c->status && !rec_streq(r, "status", c->status)) || !rec_isnull(r, "deleted_at")) {
		free(t);
		return;   /* a crawl removed by retention stays only as history */
	}
	c->count++;
	buf_t b = {0};
	if (c->table) {
		char *id = rec_str(r, "id"), *st = rec_str(r, "status"), *ra = rec_str(r, "retry_at");
		char *what = rec_str(r, "url");
		if (!what)
			what = rec_str(r, "plugin");
		if (!what)
			what = rec_str(r, "name");
		if (!what)
			what = rec_str(r, "urls");
		if (what)
			for (char *p = what; *p; p++)
				if (*p == '\n' || *p == '\t')
					*p = ' ';
		char *safe = termsafe(what), *sst = termsafe(st ? st : "-");   /* a page's URL */
		buf_addf(&b, "%-13s %-36s %-9s %-19.19s %s", t ? t : "?", id ? id : "?", sst, ra ? ra : "-", safe);
		free(safe), free(sst);
		free(id), free(st), free(ra), free(what);
	} else {
		rec_line(r, &b);
	}
	cli_out(b.p, b.len);
	buf_free(&b);
	free(t);
}

static int
each_print(rec_t *r, void *arg)
{
	print_rec(arg, r);
	return 0;
}

static int
each_crawl(rec_t *crawl, void *arg)
{
	lsctx_t *c = arg;
	char *id = rec_str(crawl, "id");
	if (id_valid(id)) {
		char j[128];
		store_crawl_journal(id, j, sizeof j);
		store_each(c->s, j, c->type && strcmp(c->type, "Snapshot") == 0 ? "\"Snapshot\"" : NULL,
		    each_print, c);
	}
	free(id);
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"jsonl", no_argument, 0, 'J'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
	};
	const char *dir = NULL, *kind = NULL;
	lsctx_t c = {0};
	int c_, jsonl = 0;
	err_init(argv[0]);
	sig_reset();
	while ((c_ = getopt_long(argc, argv, "d:k:s:h", longopts, NULL)) != -1) {
		switch (c_) {
		case 'd': dir = optarg; break;
		case 'k': kind = optarg; break;
		case 's': c.status = optarg; break;
		case 'J': jsonl = 1; break;
		case 'h': cli_help(usage);
		default: cli_usage(usage);
		}
	}
	if (kind) {
		for (int i = 0; kinds[i].kind; i++)
			if (strcmp(kinds[i].kind, kind) == 0)
				c.type = kinds[i].type;
		if (!c.type) {
			warnx_("unknown kind: %s", kind);
			cli_usage(usage);
		}
	}
	c.table = !jsonl && cli_isatty_out();
	store_t s;
	if (store_open(&s, dir, 0) < 0)
		die(s.err, "%s", s.errmsg);
	c.s = &s;
	int bad = 0;
	if (optind < argc) {
		for (int i = optind; i < argc; i++) {
			rec_t r;
			if (!id_valid(argv[i])) {
				warnx_("not an id: %s", argv[i]);
				bad = 1;
			} else if (store_get(&s, argv[i], &r) < 0) {
				if (!s.nerr)
					warnx_("no record with id %s", argv[i]);
				bad = 1;
			} else {
				print_rec(&c, &r);
				rec_free(&r);
			}
		}
	} else if (c.status && (strcmp(c.status, "queued") == 0 || strcmp(c.status, "started") == 0 ||
	                        strcmp(c.status, "paused") == 0) &&
	           c.type && strcmp(c.type, "ArchiveResult") != 0 && strcmp(c.type, "Process") != 0) {
		ient_t *v;
		size_t n = store_active(&s, c.type, &v);
		for (size_t i = 0; i < n; i++) {
			rec_t r;
			if (strcmp(v[i].status, c.status) == 0 && store_get(&s, v[i].id, &r) == 0) {
				print_rec(&c, &r);
				rec_free(&r);
			}
		}
		free(v);
	} else {
		if (!c.type || strcmp(c.type, "CrawlSchedule") == 0)
			store_each(&s, "schedules.jsonl", NULL, each_print, &c);
		if (!c.type || strcmp(c.type, "Binary") == 0)
			store_each(&s, "binaries.jsonl", NULL, each_print, &c);
		if (!c.type || strcmp(c.type, "Crawl") == 0)
			store_each(&s, "crawls.jsonl", NULL, each_print, &c);
		if (!c.type || strcmp(c.type, "Snapshot") == 0 || strcmp(c.type, "ArchiveResult") == 0 ||
		    strcmp(c.type, "Process") == 0)
			store_each(&s, "crawls.jsonl", NULL, each_crawl, &c);
	}
	store_close(&s);
	if (s.nerr) {
		/* what could be read was printed; say what could not */
		errorx("%s", s.errmsg);
		return s.err ? s.err : EX_IOERR_;
	}
	return bad ? EX_DATAERR_ : 0;
}
