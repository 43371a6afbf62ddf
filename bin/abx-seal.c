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
 * index.html from its index.jsonl.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "base/err.h"
#include "base/exitcodes.h"
#include "store/lease.h"
#include "seal/seal.h"
#include "base/sigreset.h"
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
		if (optind != argc || pack || force)
			cli_usage(usage);
		if (store_open(&s, dir, 0) < 0)
			die(s.err, "%s", s.errmsg);
		seal_site_index(&s);
		if (store_close(&s) < 0 || s.nerr)
			die(s.err, "%s", s.errmsg);
		return 0;
	}
	if (optind + 1 != argc || (force && !pack))
		cli_usage(usage);
	const char *id = argv[optind];
	if (!id_valid(id))
		die(EX_DATAERR_, "not an id: %s", id);
	if (store_open(&s, dir, 0) < 0)
		die(s.err, "%s", s.errmsg);
	rec_t r;
	if (store_get(&s, id, &r) < 0) {
		if (s.nerr)
			die(s.err, "%s", s.errmsg);
		die(EX_DATAERR_, "no record with id %s", id);
	}
	int is_crawl = rec_streq(&r, "type", "Crawl");
	if (!is_crawl && !rec_streq(&r, "type", "Snapshot"))
		die(EX_DATAERR_, "%s is not a snapshot or a crawl", id);
	if (pack) {
		if (!record_is_final(&r))
			die(EX_DATAERR_, "%s is not sealed yet; seal it before packing", id);
		rec_free(&r);
		int rc = seal_pack(&s, id, pack, force ? SEAL_PACK_FORCE : 0);
		if (rc == SEAL_BADFORMAT)
			die(EX_CANTCREAT_, "unable to pack %s into %s: unknown suffix (want .wacz .tar.gz "
			    ".tgz .tar.zst .tar.xz .tar .zip)", id, pack);
		if (rc == SEAL_EXISTS)
			die(EX_CANTCREAT_, "unable to pack %s: %s exists (remove it, or pass -f to replace it)",
			    id, pack);
		if (rc != SEAL_OK)
			die(s.err ? s.err : EX_CANTCREAT_, "unable to pack %s into %s: %s", id, pack,
			    s.errmsg[0] ? s.errmsg : "internal error");
		if (store_close(&s) < 0)
			die(s.err, "%s", s.errmsg);
		return 0;
	}
	rec_free(&r);
	int fd = lease_inherited(&s, id);
	int own = 0;
	if (fd < 0) {
		int t = lease_take(&s, id, &fd);
		if (t != LEASE_TAKEN)
			die(EX_TEMPFAIL_, "%s is leased by a worker; try again later", id);
		own = 1;
	}
	rec_t out;
	int rc = is_crawl ? seal_crawl(&s, id, &out) : seal_snapshot(&s, id, &out);
	int code = 0;
	switch (rc) {
	case SEAL_OK: {
		/* acknowledge after durable: a reseal's files too */
		if (store_sync(&s) < 0)
			die(s.err, "unable to seal %s: %s", id, s.errmsg);
		buf_t b = {0};
		rec_line(&out, &b);
		cli_out(b.p, b.len);
		buf_free(&b);
		rec_free(&out);
		if (is_crawl)
			seal_site_index(&s);
		break;
	}
	case SEAL_REQUEUED:
		warnx_("crawl %s has unfinished snapshots; requeued at its earliest child's time", id);
		rec_free(&out);
		code = 1;
		break;
	case SEAL_PAUSED:
		warnx_("%s is paused; resume it first", id);
		code = 1;
		break;
	case SEAL_UNRUN:
		die(EX_DATAERR_, "snapshot %s is queued and none of its hooks ran; sealing it would say "
		    "it was archived: run it (abx-tick) or cancel it (abx-ctl cancel %s)", id, id);
	default:
		die(s.err ? s.err : EX_SOFT_, "unable to seal %s: %s", id,
		    s.errmsg[0] ? s.errmsg : "internal error");
	}
	if (own)
		lease_drop(fd);
	store_close(&s);
	return code;
}
