/*
 * abx-ls — print the current version of records as JSONL (a table when
 * stdout is a terminal), filtered by kind, status, URL, tag, crawl and
 * creation date (verbs_filter.h).
 *
 * With IDs, those records (each unknown id reported; exit 65 at the end).
 * Without, every record that passes the filters: schedules, binaries,
 * crawls, then each crawl's snapshots and results (a removed crawl's
 * journal is skipped; --crawl reads that crawl's journal alone).  When the
 * status asked for is an active one (queued, started, paused) and no
 * filter needs a journal's content, only the active index is read, so the
 * cost follows the work in flight, not the archive's size.  A kind or a
 * status that does not exist is refused with 65, naming the valid ones.
 *
 * The table shows a schedule's cron expression and URLs, and a schedule's
 * template crawl as "template", not "sealed".
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "base/err.h"
#include "base/exitcodes.h"
#include "hook/names.h"
#include "base/sigreset.h"
#include "store/store.h"
#include "tick/progress.h"
#include "base/termsafe.h"
#include "ctl/verbs_filter.h"

static const char usage[] =
    "abx-ls [-d DIR] [-k KIND] [-s STATUS] [--url TEXT] [--tag TAG] [--crawl ID]\n"
    "              [--since DATE] [--until DATE] [--jsonl] [ID...]";

static const char options[] =
    "  -d DIR          the data directory (default: $ABX_DIR, else ~/.local/share/abx)\n"
    "  -k KIND         crawl, snapshot, result (archiveresult), binary, schedule, process\n"
    "  -s STATUS       queued, started, paused, sealed, template (a schedule's crawl),\n"
    "                  succeeded, failed, skipped, noresults, installed, running, exited\n"
    "  --url TEXT      crawls and snapshots whose URL contains TEXT (and their results)\n"
    "  --tag TAG       crawls and snapshots tagged TAG (and their results)\n"
    "  --crawl ID      the crawl ID and the records of its journal\n"
    "  --since DATE    created at or after DATE (2026-12-01, or an ISO 8601 UTC time)\n"
    "  --until DATE    created before DATE\n"
    "  --jsonl         JSONL even to a terminal\n"
    "  -h, --help      print this help and exit\n"
    "  --version       print the version and exit\n";

typedef struct {
	store_t *s;
	filter_t f;
	int table;
	int cols;            /* the terminal's width (table) */
	int bad;             /* an operand named no record */
} lsctx_t;

/* The table's last column: what the record is about. */
static char *
what_of(lsctx_t *c, rec_t *r)
{
	if (rec_streq(r, "type", "CrawlSchedule")) {
		char *expr = rec_str(r, "schedule"), *tid = rec_str(r, "template_id"), *urls = NULL;
		rec_t t;
		if (id_valid(tid) && store_get(c->s, tid, &t) == 0) {
			urls = rec_str(&t, "urls");
			rec_free(&t);
		}
		char *w = xasprintf("%-13s %s", expr ? expr : "?", urls ? urls : "(template gone)");
		free(expr), free(tid), free(urls);
		return w;
	}
	static const char *keys[] = {"url", "plugin", "name", "urls", NULL};
	for (int i = 0; keys[i]; i++) {
		char *w = rec_str(r, keys[i]);
		if (w)
			return w;
	}
	return NULL;
}

static void
print_rec(lsctx_t *c, rec_t *r)
{
	if (!filter_match(&c->f, r))
		return;
	buf_t b = {0};
	if (c->table) {
		char *t = rec_str(r, "type"), *id = rec_str(r, "id"), *st = rec_str(r, "status");
		char *ra = rec_str(r, "retry_at"), *what = what_of(c, r);
		const char *tpl = rec_raw(r, "is_template");
		if (tpl && strcmp(tpl, "true") == 0) {
			free(st);
			st = xstrdup("template");
		}
		if (what)
			for (char *p = what; *p; p++)
				if (*p == '\n' || *p == '\t')
					*p = ' ';
		/* a page's URL: its controls never reach the terminal */
		char *safe = termsafe(what), *sst = termsafe(st ? st : "-");
		buf_addf(&b, "%-13s %-36s %-9s %-19.19s %s", t ? t : "?", id ? id : "?", sst,
		    ra ? ra : "-", safe);
		while (b.len && b.p[b.len - 1] == ' ')
			b.len--;
		/* as ps does: a row fits the terminal, "..." where it is cut
		 * (a column is a UTF-8 character; --jsonl has it all) */
		if (!c->cols)
			c->cols = progress_width();
		size_t at = 0;
		int col = 0;
		for (; at < b.len; at++)
			if ((b.p[at] & 0xC0) != 0x80 && ++col > c->cols - 1)
				break;
		if (at < b.len && c->cols > 4) {
			size_t cut = at;
			for (int k = 0; k < 3 && cut > 0; k++)   /* room for "..." */
				while (--cut > 0 && (b.p[cut] & 0xC0) == 0x80)
					;
			b.len = cut;
			buf_adds(&b, "...");
		}
		free(safe), free(sst);
		free(t), free(id), free(st), free(ra), free(what);
	} else {
		rec_line(r, &b);
	}
	cli_out(b.p, b.len);
	buf_free(&b);
}

static int
each_print(rec_t *r, void *arg)
{
	print_rec(arg, r);
	return 0;
}

static void
print_journal_of(lsctx_t *c, const char *crawl_id)
{
	char j[128];
	store_crawl_journal(crawl_id, j, sizeof j);
	const char *pre = c->f.type && strcmp(c->f.type, "Snapshot") == 0 ? "\"Snapshot\"" : NULL;
	store_each(c->s, j, filter_by_content(&c->f) ? NULL : pre, each_print, c);
	c->f.nsnaps = 0;   /* a journal's results follow its own snapshots */
}

static int
each_crawl(rec_t *crawl, void *arg)
{
	char *id = rec_str(crawl, "id");
	/* a removed crawl's records are history, even if its files stay */
	if (id_valid(id) && rec_isnull(crawl, "deleted_at"))
		print_journal_of(arg, id);
	free(id);
	return 0;
}

/* Is r a record of a removed crawl's journal (kept with its files)? */
static int
in_removed_crawl(store_t *s, const rec_t *r)
{
	char *cid = rec_str(r, "crawl_id");
	rec_t cr;
	int gone = 0;
	if (id_valid(cid) && !rec_streq(r, "type", "Crawl") && store_get(s, cid, &cr) == 0) {
		gone = !rec_isnull(&cr, "deleted_at");
		rec_free(&cr);
	}
	free(cid);
	return gone;
}

static int
is_active_status(const char *st)
{
	return st && (!strcmp(st, "queued") || !strcmp(st, "started") || !strcmp(st, "paused"));
}

static void
print_all(lsctx_t *c)
{
	store_t *s = c->s;
	const char *type = c->f.type;
	int kids = !type || !strcmp(type, "Snapshot") || !strcmp(type, "ArchiveResult") ||
	           !strcmp(type, "Process");
	if (c->f.crawl) {
		rec_t r;
		if (store_get(s, c->f.crawl, &r) == 0) {
			print_rec(c, &r);
			if (kids && rec_isnull(&r, "deleted_at"))
				print_journal_of(c, c->f.crawl);
			rec_free(&r);
		} else if (!s->nerr) {
			errorx("--crawl: no crawl with id %s", c->f.crawl);
			c->bad = 1;
		}
		return;
	}
	if (is_active_status(c->f.status) && type && strcmp(type, "ArchiveResult") != 0 &&
	    strcmp(type, "Process") != 0 && !filter_by_content(&c->f)) {
		ient_t *v;
		size_t n = store_active(s, type, &v);
		for (size_t i = 0; i < n; i++) {
			rec_t r;
			if (strcmp(v[i].status, c->f.status) == 0 && store_get(s, v[i].id, &r) == 0) {
				print_rec(c, &r);
				rec_free(&r);
			}
		}
		free(v);
		return;
	}
	if (!type || strcmp(type, "CrawlSchedule") == 0)
		store_each(s, "schedules.jsonl", NULL, each_print, c);
	if (!type || strcmp(type, "Binary") == 0)
		store_each(s, "binaries.jsonl", NULL, each_print, c);
	if (!type || strcmp(type, "Crawl") == 0)
		store_each(s, "crawls.jsonl", NULL, each_print, c);
	if (kids)
		store_each(s, "crawls.jsonl", NULL, each_crawl, c);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"jsonl", no_argument, 0, 'J'}, {"url", required_argument, 0, 'U'},
		{"tag", required_argument, 0, 'T'}, {"crawl", required_argument, 0, 'C'},
		{"since", required_argument, 0, 'S'}, {"until", required_argument, 0, 'u'},
		{"help", no_argument, 0, 'h'}, CLI_VERSION_OPT, {0, 0, 0, 0},
	};
	const char *dir = NULL, *kind = NULL;
	lsctx_t c = {0};
	int c_, jsonl = 0;
	buf_t why = {0};
	err_init(argv[0]);
	sig_reset();
	while ((c_ = getopt_long(argc, argv, "d:k:s:h", longopts, NULL)) != -1) {
		switch (c_) {
		case 'd': dir = optarg; break;
		case 'k': kind = optarg; break;
		case 's': c.f.status = optarg; break;
		case 'J': jsonl = 1; break;
		case 'U': c.f.url = optarg; break;
		case 'T': c.f.tag = optarg; break;
		case 'C':
			if (!id_valid(optarg))
				die(EX_DATAERR_, "--crawl wants a crawl id: %s", optarg);
			c.f.crawl = optarg;
			break;
		case 'S':
		case 'u':
			if (filter_date(optarg, c_ == 'S' ? c.f.since : c.f.until) < 0)
				die(EX_DATAERR_, "--%s wants a date (2026-12-01) or an ISO 8601 UTC time "
				    "(2026-12-01T05:33:24Z): %s", c_ == 'S' ? "since" : "until", optarg);
			break;
		case 'h': cli_help(usage, options);
		case CLI_VERSION: cli_version();
		default: cli_usage(usage);
		}
	}
	if (kind && !(c.f.type = names_kind(kind, &why)))
		die(EX_DATAERR_, "-k: %s", buf_cstr(&why));
	if (c.f.status && names_status(c.f.type, c.f.status, &why))
		die(EX_DATAERR_, "-s: %s", buf_cstr(&why));
	if (c.f.crawl && optind < argc)
		cli_usage_err(usage, "--crawl goes without ID operands");
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
				errorx("not an id: %s", argv[i]);
				bad = 1;
			} else if (store_get(&s, argv[i], &r) < 0) {
				if (!s.nerr)
					errorx("no record with id %s", argv[i]);
				bad = 1;
			} else {
				if (!in_removed_crawl(&s, &r))
					print_rec(&c, &r);   /* else history, as in listings */
				rec_free(&r);
			}
		}
	} else {
		print_all(&c);
		bad = c.bad;
	}
	store_close(&s);
	filter_free(&c.f);
	buf_free(&why);
	if (s.nerr) {
		/* what could be read was printed; say what could not */
		errorx("%s", s.errmsg);
		return s.err ? s.err : EX_IOERR_;
	}
	return bad ? EX_DATAERR_ : 0;
}
