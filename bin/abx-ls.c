/*
 * abx-ls — print the current version of records as JSONL (a table when
 * stdout is a terminal), filtered by kind, status, URL, tag, crawl and
 * the date it last changed (verbs_filter.h), in the order listing.h gives them.
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
 * template crawl as "template", not "sealed".  --search keeps the
 * snapshots whose title or archived text holds every word (lssearch.h);
 * --csv and --html print rows in those formats (lsformat.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "base/err.h"
#include "base/exitcodes.h"
#include "base/ids.h"
#include "base/sigreset.h"
#include "ctl/listing.h"
#include "ctl/lsformat.h"
#include "ctl/lssearch.h"
#include "ctl/lstable.h"
#include "ctl/verbs_filter.h"
#include "hook/names.h"
#include "store/store.h"
#include "tick/progress.h"

static const char usage[] =
    "abx-ls [-d DIR] [-k KIND] [-s STATUS] [--url TEXT] [--tag TAG] [--crawl ID]\n"
    "              [--since DATE] [--until DATE] [--search WORDS]\n"
    "              [--jsonl | --csv FIELDS | --html] [ID...]";

static const char options[] =
    "  -d DIR          the data directory (default: $ABX_DIR, else ~/.local/share/abx)\n"
    "  -k KIND         crawl, snapshot, result (archiveresult), binary, schedule, process\n"
    "  -s STATUS       queued, started, paused, sealed, template (a schedule's crawl),\n"
    "                  succeeded, failed, skipped, noresults, installed, running, exited\n"
    "  --url TEXT      crawls and snapshots whose URL contains TEXT (and their results)\n"
    "  --tag TAG       crawls and snapshots tagged TAG (and their results)\n"
    "  --crawl ID      the crawl ID and the records of its journal\n"
    "  --since DATE    last changed (modified_at) at or after DATE (2026-12-01, or an\n"
    "                  ISO 8601 UTC time)\n"
    "  --until DATE    last changed before DATE\n"
    "  --search WORDS  snapshots whose title or archived text holds every word\n"
    "                  (\"a phrase\" in double quotes; any case); ripgrep if installed\n"
    "  --jsonl         JSONL even to a terminal\n"
    "  --csv FIELDS    CSV (RFC 4180) of these keys, with a header: id,url,title\n"
    "  --html          an HTML page: a table of type, id, status, modified_at, url, title\n"
    "  -h, --help      print this help and exit\n"
    "  --version       print the version and exit\n";

typedef struct {
	store_t *s;
	int table;
	int cols;            /* the terminal's width (table) */
	lsfmt_t fmt;         /* CSV or HTML when kind is set */
} lsout_t;

typedef struct {
	const char *dir, *kind, *search, *csv;
	int jsonl, html;
	filter_t f;
} lsargs_t;

/* A record as JSONL, a line of the table on a terminal, or a CSV or HTML row. */
static void
emit(void *arg, const rec_t *r)
{
	lsout_t *o = arg;
	buf_t b = {0};
	if (o->fmt.kind) {
		lsfmt_row(&o->fmt, r, &b);
	} else if (o->table) {
		if (!o->cols)
			o->cols = progress_width();
		ls_table_line(o->s, r, o->cols, &b);
	} else {
		rec_line(r, &b);
	}
	cli_out(b.p, b.len);
	buf_free(&b);
}

static void
parse(int argc, char **argv, lsargs_t *a)
{
	static const struct option longopts[] = {
		{"jsonl", no_argument, 0, 'J'}, {"url", required_argument, 0, 'U'},
		{"tag", required_argument, 0, 'T'}, {"crawl", required_argument, 0, 'C'},
		{"since", required_argument, 0, 'S'}, {"until", required_argument, 0, 'u'},
		{"search", required_argument, 0, 'Q'}, {"csv", required_argument, 0, 'V'},
		{"html", no_argument, 0, 'H'},
		{"help", no_argument, 0, 'h'}, CLI_VERSION_OPT, {0, 0, 0, 0},
	};
	int c;
	while ((c = getopt_long(argc, argv, "d:k:s:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': a->dir = optarg; break;
		case 'k': a->kind = optarg; break;
		case 's': a->f.status = optarg; break;
		case 'J': a->jsonl = 1; break;
		case 'U': a->f.url = optarg; break;
		case 'T': a->f.tag = optarg; break;
		case 'Q': a->search = optarg; break;
		case 'V': a->csv = optarg; break;
		case 'H': a->html = 1; break;
		case 'C':
			if (!id_valid(optarg))
				die(EX_DATAERR_, "--crawl wants a crawl id: %s", optarg);
			a->f.crawl = optarg;
			break;
		case 'S':
		case 'u':
			if (filter_date(optarg, c == 'S' ? a->f.since : a->f.until) < 0)
				die(EX_DATAERR_, "--%s wants a date (2026-12-01) or an ISO 8601 UTC time "
				    "(2026-12-01T05:33:24Z): %s", c == 'S' ? "since" : "until", optarg);
			break;
		case 'h': cli_help(usage, options);
		case CLI_VERSION: cli_version();
		default: cli_usage(usage);
		}
	}
	if (a->jsonl + a->html + (a->csv != NULL) > 1)
		cli_usage_err(usage, "--jsonl, --csv and --html go one at a time");
	if (a->f.crawl && optind < argc)
		cli_usage_err(usage, "--crawl goes without ID operands");
}

int
main(int argc, char **argv)
{
	lsargs_t a = {0};
	lsout_t o = {0};
	buf_t why = {0};
	err_init(argv[0]);
	sig_reset();
	parse(argc, argv, &a);
	filter_t *f = &a.f;
	if (a.kind && !(f->type = names_kind(a.kind, &why)))
		die(EX_DATAERR_, "-k: %s", buf_cstr(&why));
	if (a.search && f->type && strcmp(f->type, "Snapshot") != 0)
		die(EX_DATAERR_, "--search finds snapshots: -k %s is another kind", a.kind);
	if (a.search)
		f->type = "Snapshot";
	if (f->status && names_status(f->type, f->status, &why))
		die(EX_DATAERR_, "-s: %s", buf_cstr(&why));
	if (a.csv && lsfmt_csv(&o.fmt, a.csv, &why) < 0)
		die(EX_DATAERR_, "--csv: %s", buf_cstr(&why));
	if (a.html)
		lsfmt_html(&o.fmt);
	o.table = !a.jsonl && !o.fmt.kind && cli_isatty_out();
	o.fmt.safe = o.fmt.kind == LSFMT_CSV && cli_isatty_out();
	store_t s;
	if (store_open(&s, a.dir, 0) < 0)
		die(s.err, "%s", s.errmsg);
	o.s = &s;
	buf_t b = {0};
	if (o.fmt.kind)
		lsfmt_head(&o.fmt, &b), cli_out(b.p, b.len), buf_reset(&b);
	char **ids = argv + optind;
	int nids = argc - optind, bad;
	if (a.search && (bad = ls_search(&s, f, ids, nids, a.search, emit, &o, &why)) < 0)
		die(EX_DATAERR_, "--search: %s", buf_cstr(&why));
	else if (!a.search)
		bad = nids ? listing_ids(&s, f, ids, nids, emit, &o) : listing_all(&s, f, emit, &o);
	if (o.fmt.kind && (lsfmt_tail(&o.fmt, &b), b.len))
		cli_out(b.p, b.len);
	store_close(&s);
	filter_free(f);
	lsfmt_free(&o.fmt);
	buf_free(&why), buf_free(&b);
	if (s.nerr) {
		/* what could be read was printed; say what could not */
		errorx("%s", s.errmsg);
		return s.err ? s.err : EX_IOERR_;
	}
	return bad ? EX_DATAERR_ : 0;
}
