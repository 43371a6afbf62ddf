/*
 * abx-seal — finish a snapshot or a crawl; pack one into an archive.
 *
 * A snapshot is sealed and its index.jsonl, index.json and index.html
 * written; a crawl is sealed when none of its snapshots is queued, started
 * or paused, else requeued at its earliest child's time (exit 1, "not
 * finished").  Sealing again rewrites the index files.  abx-seal holds the
 * item's lease while it works: inherited from abx-claim, or taken (exit 75
 * if a worker holds it).  --pack FILE writes the item into an archive
 * chosen by FILE's suffix (a tar or zip of its directory, or a WACZ), never
 * over an existing FILE unless -f; --index rebuilds the data directory's
 * index.html from its index.jsonl.  The library does the work: sealcmd.h.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "base/err.h"
#include "base/exitcodes.h"
#include "base/ids.h"
#include "base/sigreset.h"
#include "ctl/itemlease.h"
#include "ctl/sealcmd.h"
#include "seal/seal.h"
#include "store/lease.h"
#include "store/store.h"

static const char options[] =
    "  -d DIR          the data directory (default: $ABX_DIR, else ~/.local/share/abx)\n"
    "  --pack FILE     pack the sealed snapshot or crawl ID into FILE (.tar.gz, .zip, .wacz ...)\n"
    "  -f              with --pack, replace FILE if it exists\n"
    "  --index         rebuild the site index (index.html) from index.jsonl\n"
    "  ID              the snapshot or crawl to seal\n"
    "  -h, --help      print this help and exit\n"
    "  --version       print the version and exit\n";

static const char usage[] =
    "abx-seal [-d DIR] [-f] [--pack FILE] ID\n"
    "       abx-seal [-d DIR] --index";

static void
emit(void *arg, const rec_t *r)
{
	buf_t b = {0};
	rec_line(r, &b);
	cli_out(b.p, b.len);
	buf_free(&b);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_VERSION_OPT,
		{"pack", required_argument, 0, 'p'}, {"index", no_argument, 0, 'I'},
		{"force", no_argument, 0, 'f'},
		{"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
	};
	const char *dir = NULL, *pack = NULL;
	int c, index_only = 0, force = 0;
	err_init(argv[0]);
	sig_reset();
	while ((c = getopt_long(argc, argv, "d:fh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'f': force = 1; break;
		case 'p': pack = optarg; break;
		case 'I': index_only = 1; break;
		case 'h': cli_help(usage, options);
		case CLI_VERSION: cli_version();
		default: cli_usage(usage);
		}
	}
	if (index_only && (optind != argc || pack || force))
		cli_usage_err(usage, "--index takes no ID, no --pack and no -f");
	if (!index_only && optind + 1 != argc)
		cli_usage_err(usage, optind == argc ? "no ID given" : "one ID only: %s", argv[argc - 1]);
	if (force && !pack)
		cli_usage_err(usage, "-f goes with --pack");
	store_t s;
	if (index_only) {
		if (store_open(&s, dir, 0) < 0)
			die(s.err, "%s", s.errmsg);
		seal_site_index(&s);
		if (store_close(&s) < 0 || s.nerr)
			die(s.err, "%s", s.errmsg);
		return 0;
	}
	const char *id = argv[optind];
	if (!id_valid(id))
		die(EX_DATAERR_, "not an id: %s", id);
	if (store_open(&s, dir, 0) < 0)
		die(s.err, "%s", s.errmsg);
	buf_t why = {0};
	int is_crawl, fd, own, rc = sealcmd_find(&s, id, pack != NULL, &is_crawl, &why);
	if (!why.len && pack)
		rc = sealcmd_pack(&s, id, pack, force, &why);
	if (why.len)
		die(rc, "%s", why.p);
	if (pack) {
		if (store_close(&s) < 0)
			die(s.err, "%s", s.errmsg);
		return 0;
	}
	if (item_lease(&s, id, 0, &fd, &own) != LEASE_TAKEN)
		die(EX_TEMPFAIL_, "%s is leased by a worker; try again later", id);
	rc = sealcmd_seal(&s, id, is_crawl, emit, NULL, &why);
	if (why.len)
		die(rc, "%s", why.p);
	if (own)
		lease_drop(fd);
	store_close(&s);
	return rc;
}
