/*
 * abx-add — queue one crawl of the given URLs.
 *
 * URLs come from the arguments, or from stdin when there are none: one per
 * line, "#" comments and blank lines skipped, or JSONL records with "url",
 * "title" and "tags".  Each bad URL is reported with its line number and
 * skipped.  The crawl and its depth-0 snapshots are written in one durable
 * commit, queued and due now, so that abx-claim -k snapshot finds them at
 * once.  The Crawl record is printed on stdout.  Exit 65 if no URL was valid.
 *
 * With --schedule CRON nothing is queued: the crawl is stored sealed, as
 * the template of a CrawlSchedule (schedule.h), and the schedule record is
 * printed; each due period enqueues one copy of it.
 *
 * Values are checked before anything is stored (settings_check(), config.h):
 * a bad --config value, --plugins list or CRON (one that can never fire
 * too) exits 65 before the data directory is touched; a bad value in
 * abx.conf or the environment exits 78, since the crawl would run with it.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "base/config.h"
#include "tick/settings.h"
#include "base/err.h"
#include "base/ids.h"
#include "base/exitcodes.h"
#include "hook/names.h"
#include "store/record.h"
#include "tick/schedule.h"
#include "base/sigreset.h"
#include "store/store.h"
#include "net/url.h"

static const char options[] =
    "  -d DIR          the data directory (default: $ABX_DIR, else ~/.local/share/abx)\n"
    "  --depth N       follow links N levels deep, 0 to 4 (default 0)\n"
    "  --tag T,...     tag the crawl and its snapshots\n"
    "  --plugins P,... run only these plugins (names found on the plugin search path)\n"
    "  --config K=V    a setting for this crawl (repeatable), e.g. --config TIMEOUT=120\n"
    "  --scope S       which outlinks to follow: any (default), page, prefix, host, domain\n"
    "  --schedule CRON store a recurring crawl instead: five cron fields or @daily ...\n"
    "  URL...          the URLs; none: read them from stdin (lines or JSONL records)\n"
    "  -h, --help      print this help and exit\n"
    "  --version       print the version and exit\n";

static const char usage[] =
    "abx-add [-d DIR] [--depth N] [--tag T,...] [--plugins P,...] [--config KEY=VALUE]...\n"
    "               [--scope any|page|prefix|host|domain] [--schedule CRON] [URL...]";

typedef struct {
	char *url, *title, *tags;
} entry_t;

typedef struct {
	entry_t *v;
	size_t n, cap;
	int bad;
} entries_t;

static void
add_entry(entries_t *e, const char *where, long lineno, char *url, char *title, char *tags)
{
	const char *why = "record has no \"url\" string";
	char *canon = url ? url_canon(url, NULL, &why) : NULL;   /* url.h: the stored form */
	if (!canon) {
		warnx_("%s %ld: %s: %s", where, lineno, why, url ? url : "");
		e->bad++;
		free(url), free(title), free(tags);
		return;
	}
	free(url);
	url = canon;
	for (size_t i = 0; i < e->n; i++)
		if (strcmp(e->v[i].url, url) == 0) {
			free(url), free(title), free(tags);
			return;   /* unique per crawl, as in ArchiveBox */
		}
	if (e->n == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 64;
		e->v = xrealloc(e->v, e->cap * sizeof(entry_t));
	}
	e->v[e->n++] = (entry_t){url, title, tags};
}

static void
read_line(entries_t *e, char *line, size_t len, long lineno)
{
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = 0;
	char *p = line;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#')
		return;
	if (*p == '{') {
		rec_t r;
		if (rec_parse(&r, p, strlen(p)) < 0) {
			warnx_("line %ld: malformed JSON record", lineno);
			e->bad++;
			return;
		}
		char *tags = rec_str(&r, "tags");
		const char *raw = rec_raw(&r, "tags");
		if (!tags && raw && raw[0] == '[') {
			/* a JSON array of tags: join with commas */
			rec_t tmp = {0};
			rec_set_raw(&tmp, "t", raw);
			buf_t b = {0};
			size_t l = strlen(raw);
			for (size_t i = 1; i + 1 < l; i++)
				if (raw[i] != '"' && raw[i] != ' ')
					buf_addc(&b, raw[i]);
			tags = buf_cstr(&b);
			rec_free(&tmp);
		}
		add_entry(e, "line", lineno, rec_str(&r, "url"), rec_str(&r, "title"), tags);
		rec_free(&r);
		return;
	}
	add_entry(e, "line", lineno, xstrdup(p), NULL, NULL);
}

static int
config_key_ok(const char *k, size_t n)
{
	if (n == 0 || !(k[0] >= 'A' && k[0] <= 'Z'))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((k[i] >= 'A' && k[i] <= 'Z') || (k[i] >= '0' && k[i] <= '9') || k[i] == '_'))
			return 0;
	return 1;
}

/*
 * Print a record that is committed (durably): from here on the work is
 * done, so a failure to print it is reported with the record's id and the
 * exit status stays 0 — a retry by a script would queue it twice.
 */
static void
committed_out(const char *line, size_t n, const char *what)
{
	if (fwrite(line, 1, n, stdout) == n && putchar('\n') != EOF && fflush(stdout) != EOF)
		return;
	if (errno == EPIPE)
		return;
	warnsys("the %s is queued, but its record could not be printed (%.*s)", what,
	    (int)(n > 60 ? 60 : n), line);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_VERSION_OPT,
		{"depth", required_argument, 0, 'D'}, {"tag", required_argument, 0, 't'},
		{"plugins", required_argument, 0, 'p'}, {"config", required_argument, 0, 'c'},
		{"schedule", required_argument, 0, 'S'}, {"help", no_argument, 0, 'h'},
		{"scope", required_argument, 0, 'o'}, {0, 0, 0, 0},
	};
	const char *dir = NULL, *tags = "", *plugins = NULL, *sched = NULL;
	int depth = 0, c;
	rec_t config = {0};
	conf_t given = {0};   /* the operands, checked as a crawl's config */
	err_init(argv[0]);
	sig_reset();
	signal(SIGPIPE, SIG_IGN);   /* a closed stdout is EPIPE, after the commit */
	while ((c = getopt_long(argc, argv, "d:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'D': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 0 || v > 4) {
				cli_usage_err(usage, "--depth must be 0 to 4: %s", optarg);
			}
			depth = v;
			break;
		}
		case 't': tags = optarg; break;
		case 'S': {
			cron_t cr;
			const char *why;
			if (cron_parse(optarg, &cr, &why) < 0)
				die(EX_DATAERR_, "--schedule %s: %s", optarg, why);
			sched = optarg;
			break;
		}
		case 'p': plugins = optarg; break;
		case 'o':   /* CRAWL_SCOPE, checked with the other settings */
			rec_set_str(&config, "CRAWL_SCOPE", optarg);
			conf_set(&given, "CRAWL_SCOPE", optarg, CONF_CRAWL);
			break;
		case 'c': {
			const char *eq = strchr(optarg, '=');
			if (!eq || !config_key_ok(optarg, eq - optarg)) {
				cli_usage_err(usage, "--config wants KEY=VALUE with KEY in [A-Z0-9_]: %s", optarg);
			}
			char *k = xstrndup(optarg, eq - optarg);
			rec_set_str(&config, k, eq + 1);
			conf_set(&given, k, eq + 1, CONF_CRAWL);
			free(k);
			break;
		}
		case 'h': cli_help(usage, options);
		case CLI_VERSION: cli_version();
		default: cli_usage(usage);
		}
	}
	if (plugins) {
		const char *bad;
		char **v = name_list(plugins, &bad);
		if (!v)
			die(EX_DATAERR_, "--plugins: not a plugin name: %s", bad);
		int none = !v[0];
		name_list_free(v);
		if (none)
			die(EX_DATAERR_, "--plugins wants one or more plugin names, separated by commas");
		rec_set_str(&config, "PLUGINS", plugins);
		conf_set(&given, "PLUGINS", plugins, CONF_CRAWL);
	}
	buf_t why = {0};
	int rc = settings_check(&given, &why);
	if (rc)
		die(rc, "%s", why.p);
	char **pl = NULL;   /* plugin names must name plugins (names.h) */
	if (conf_parse_plugins(conf_get(&given, "PLUGINS"), &pl) == 0 &&
	    names_plugins(cli_dir(dir), pl, &why))
		die(EX_DATAERR_, "%s: %s", plugins ? "--plugins" : "PLUGINS", buf_cstr(&why));
	name_list_free(pl);
	conf_free(&given);

	entries_t e = {0};
	if (optind < argc) {
		for (int i = optind; i < argc; i++)
			add_entry(&e, "argument", i - optind + 1, xstrdup(argv[i]), NULL, NULL);
	} else {
		char *line = NULL;
		size_t cap = 0;
		ssize_t n;
		long lineno = 0;
		while ((n = getline(&line, &cap, stdin)) != -1)
			read_line(&e, line, n, ++lineno);
		free(line);
	}
	if (e.n == 0)
		die(EX_DATAERR_, "no valid URL%s", e.bad ? " (all were rejected)" : " given");

	store_t s;
	if (store_open(&s, dir, 1) < 0)
		die(s.err, "%s", s.errmsg);
	if ((rc = settings_check_global(s.dfd, &why)) != 0)
		die(rc, "%s: %s", s.dir, why.p);
	int64_t now = clock_now();
	buf_t urls = {0}, cfg = {0};
	for (size_t i = 0; i < e.n; i++) {
		if (e.v[i].title || e.v[i].tags) {
			/* keep the record form so a later run knows title and tags */
			rec_t l = {0};
			rec_set_str(&l, "url", e.v[i].url);
			if (e.v[i].title)
				rec_set_str(&l, "title", e.v[i].title);
			if (e.v[i].tags)
				rec_set_str(&l, "tags", e.v[i].tags);
			rec_line(&l, &urls);
			rec_free(&l);
		} else {
			buf_adds(&urls, e.v[i].url);
		}
		buf_addc(&urls, '\n');
	}
	rec_line(&config, &cfg);
	rec_t crawl;
	record_crawl(&crawl, now, buf_cstr(&urls), depth, tags, cfg.p);
	char *cid = rec_str(&crawl, "id");
	if (store_lock(&s) < 0)
		die(s.err, "nothing queued: %s", s.errmsg);
	if (sched) {
		/* a template: sealed, never run itself (ArchiveBox's schedule) */
		record_status(&crawl, "sealed", -1);
		rec_set_raw(&crawl, "is_template", "true");
		rec_set_str(&crawl, "notes", "the template of a schedule");
		store_put(&s, &crawl);
		rec_t sr;
		schedule_create(&s, &crawl, sched, &sr);
		if (store_unlock(&s) < 0)
			die(s.err, "nothing queued: %s", s.errmsg);
		buf_t o = {0};
		rec_line(&sr, &o);
		committed_out(o.p, o.len, "schedule");
		buf_free(&o);
		rec_free(&sr);
		store_close(&s);
		goto out;
	}
	store_put(&s, &crawl);
	for (size_t i = 0; i < e.n; i++) {
		rec_t snap;
		buf_t t = {0};
		buf_adds(&t, tags);
		if (e.v[i].tags && *e.v[i].tags) {
			if (t.len)
				buf_addc(&t, ',');
			buf_adds(&t, e.v[i].tags);
		}
		record_snapshot(&snap, now, cid, e.v[i].url, 0, NULL, e.v[i].title, buf_cstr(&t));
		store_put(&s, &snap);
		rec_free(&snap);
		buf_free(&t);
	}
	/* all or nothing (store.h): on failure no line of it is kept */
	if (store_unlock(&s) < 0)
		die(s.err, "nothing queued: %s", s.errmsg);
	buf_t out = {0};
	rec_line(&crawl, &out);
	committed_out(out.p, out.len, "crawl");
	buf_free(&out);
	store_close(&s);
out:
	buf_free(&why);
	buf_free(&urls);
	buf_free(&cfg);
	free(cid);
	rec_free(&crawl);
	rec_free(&config);
	for (size_t i = 0; i < e.n; i++)
		free(e.v[i].url), free(e.v[i].title), free(e.v[i].tags);
	free(e.v);
	return 0;
}
