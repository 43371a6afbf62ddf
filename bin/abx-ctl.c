/*
 * abx-ctl — pause, resume, cancel, retry, remove, run and edit schedules,
 * show status, config and dependencies, repair.
 *
 * Each ID is acted on in its own commit; a bad or unknown ID is reported
 * and the others still done (exit 65 at the end).  An ID already in the
 * wanted state is a no-op, not an error.  The verbs are ctl.h's and
 * ctl_verbs.h's; what they change or find is printed as JSONL (a table on
 * a terminal).  repair runs the repair pass (repair.h) and prints what it
 * did as one JSON line.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ctl/ctl.h"
#include "ctl/ctl_verbs.h"
#include "base/err.h"
#include "base/ids.h"
#include "base/exitcodes.h"
#include "hook/names.h"
#include "tick/repair.h"
#include "base/sigreset.h"
#include "store/store.h"
#include "base/termsafe.h"

static const char usage[] =
    "abx-ctl [-v] [-d DIR] pause|resume|cancel ID...\n"
    "       abx-ctl [-d DIR] retry [--plugins P,...] [--failed] [ID...]\n"
    "       abx-ctl [-d DIR] remove [--delete] ID...\n"
    "       abx-ctl [-d DIR] status [--last N]\n"
    "       abx-ctl [-d DIR] run SCHEDULE_ID\n"
    "       abx-ctl [-d DIR] schedule SCHEDULE_ID CRON\n"
    "       abx-ctl [-d DIR] config [--all] [ID]\n"
    "       abx-ctl [-d DIR] version\n"
    "       abx-ctl [-d DIR] repair";

static const char options[] =
    "  -d DIR          the data directory (default: $ABX_DIR, else ~/.local/share/abx)\n"
    "  -v              say what was a no-op, on stderr\n"
    "  --plugins P,... retry: only these plugins (names found on the plugin search path)\n"
    "  --failed        retry: only the plugins whose last result failed; no ID: every crawl\n"
    "  --delete        remove: remove the files too (default: records only, files kept)\n"
    "  --last N        status: show the N latest failed results (default 5)\n"
    "  --all           config: show every environment variable, not only settings\n"
    "  --jsonl         JSONL even to a terminal\n"
    "  -h, --help      print this help and exit\n"
    "  --version       print the version and exit\n"
    "commands:\n"
    "  pause, resume, cancel ID...   crawls, snapshots and schedules\n"
    "  retry ID...     snapshots (or every sealed snapshot of a crawl) queued again\n"
    "  remove ID...    sealed crawls or snapshots removed, as retention does\n"
    "  status          counts by kind and status, sizes, what runs, what failed last\n"
    "  run ID          a schedule's crawl enqueued now\n"
    "  schedule ID CRON  a schedule's cron expression replaced\n"
    "  config [ID]     the effective settings (of a crawl or snapshot) and their source\n"
    "  version         the version, and every binary the enabled plugins need\n"
    "  repair          the repair pass: torn lines, dead leases, the index\n";

typedef struct {
	int table;
} out_t;

static void
human_size(long long b, char *out, size_t n)
{
	static const char u[] = "BKMGTP";
	double v = b;
	int i = 0;
	while (v >= 1024 && i < 5)
		v /= 1024, i++;
	snprintf(out, n, i ? "%.1f%c" : "%.0f%c", v, u[i]);
}

/* One line of a table: the fields that matter for each kind of line. */
static void
table_line(const rec_t *r, buf_t *b)
{
	char *t = rec_str(r, "type");
	static const char *cols[][6] = {
		{"Count", "kind", "status", "count", "output_size", "sealed_reason"},
		{"Running", "kind", "id", "url", NULL},
		{"Failed", "at", "plugin", "url", "reason", NULL},
		{"Retry", "snapshot_id", "plugins", NULL},
		{"Config", "key", "value", "source", NULL},
		{"Dependency", "status", "plugin", "name", "abspath", "version"},
		{NULL},
	};
	int k = -1;
	for (int i = 0; t && cols[i][0]; i++)
		if (strcmp(cols[i][0], t) == 0)
			k = i;
	buf_addf(b, "%-10s", t ? t : "?");
	if (k < 0) {
		static const char *rcols[] = {"id", "status", "url", "urls", "schedule", NULL};
		for (int i = 0; rcols[i]; i++) {
			char *v = rec_str(r, rcols[i]);
			if (v)
				buf_addf(b, " %s", v);
			free(v);
		}
	}
	for (int i = 1; k >= 0 && i < 6 && cols[k][i]; i++) {
		const char *raw = rec_raw(r, cols[k][i]);
		char *v = rec_str(r, cols[k][i]);
		if (strcmp(cols[k][i], "output_size") == 0 && raw) {
			char h[32];
			human_size(rec_int(r, "output_size", 0), h, sizeof h);
			buf_addf(b, " %8s", h);
		} else if (strcmp(cols[k][i], "key") == 0) {
			buf_addf(b, " %-30s", v ? v : "");
		} else if (v) {
			int w = !strcmp(cols[k][i], "kind") ? 13 : !strcmp(cols[k][i], "status") ? 10 :
			        !strcmp(cols[k][i], "plugin") ? 12 : 0;
			buf_addf(b, " %-*s", w, v);
		} else if (raw && strcmp(raw, "null") != 0) {
			buf_addf(b, " %8s", raw);
		} else {
			/* a dash holds the column only if a later one is shown */
			int later = 0;
			for (int j = i + 1; j < 6 && cols[k][j]; j++)
				later |= rec_raw(r, cols[k][j]) != NULL;
			if (later)
				buf_addf(b, " %8s", "-");
		}
		free(v);
	}
	/* a URL or a reason is the web's text: its controls are shown, not
	 * sent to the terminal (termsafe.h); a list of URLs is one line */
	for (size_t i = 0; i < b->len; i++)
		if (b->p[i] == '\n' || b->p[i] == '\t')
			b->p[i] = ' ';
	char *safe = termsafe(buf_cstr(b));
	b->len = 0;
	buf_adds(b, safe);
	free(safe);
	free(t);
}

static void
emit(void *arg, const rec_t *r)
{
	out_t *o = arg;
	buf_t b = {0};
	if (o->table)
		table_line(r, &b);
	else
		rec_line(r, &b);
	cli_out(b.p, b.len);
	buf_free(&b);
}

static const struct {
	const char *name;
	int (*fn)(store_t *, const char *);
} ops[] = {
	{"pause", ctl_pause}, {"resume", ctl_resume}, {"cancel", ctl_cancel}, {NULL, NULL},
};

/* The message for a verb's result on one id; returns the exit code. */
static int
report(const char *cmd, const char *id, int r)
{
	switch (r) {
	case CTL_OK: return 0;
	case CTL_NOOP:
		if (err_verbose(-1))
			info("%s: nothing to %s", id, cmd);
		return 0;
	case CTL_NOTFOUND:
		errorx("no record with id %s", id);
		return EX_DATAERR_;
	case CTL_NEVER:
		errorx("%s: cannot resume it: its cron expression is bad or can never fire; "
		       "cancel it and add a new schedule", id);
		return EX_DATAERR_;
	case CTL_BUSY:
		errorx("%s: leased by a worker; try again when it is done", id);
		return EX_TEMPFAIL_;
	case CTL_BADSTATE:
		if (strcmp(cmd, "remove") == 0)
			errorx("%s: cannot remove it: only a sealed crawl (all of its snapshots sealed) "
			       "or a sealed snapshot can be; cancel it first (abx-ctl cancel %s)", id, id);
		else if (strcmp(cmd, "config") == 0)
			errorx("%s: not a crawl or a snapshot: config shows theirs", id);
		else if (strcmp(cmd, "retry") == 0)
			errorx("%s: cannot retry it: only snapshots and crawls can be", id);
		else if (strcmp(cmd, "run") == 0 || strcmp(cmd, "schedule") == 0)
			errorx("%s: cannot %s it: only an enabled schedule can be (resume it first; a "
			       "cancelled one stays cancelled)", id, cmd);
		else
			errorx("%s: cannot %s it: only crawls, snapshots and schedules can be; "
			       "a snapshot of a paused crawl resumes with its crawl", id, cmd);
		return EX_DATAERR_;
	}
	return EX_SOFT_;
}

/* retry: names checked, then each ID (or --failed over every crawl). */
static int
cmd_retry(store_t *s, int argc, char **argv, const char *plugins, int failed, out_t *o)
{
	char **names = NULL;
	const char *bad = NULL;
	buf_t why = {0};
	if (plugins && !(names = name_list(plugins, &bad)))
		die(EX_DATAERR_, "--plugins: not a plugin name: %s", bad);
	if (names && !names[0])
		die(EX_DATAERR_, "--plugins wants one or more plugin names, separated by commas");
	if (names && names_plugins(s->dir, names, &why))
		die(EX_DATAERR_, "--plugins: %s", buf_cstr(&why));
	int rc = 0;
	unsigned total = 0, n;
	for (int i = 0; i < argc; i++)
		if (!id_valid(argv[i])) {
			errorx("not an id: %s", argv[i]);
			rc = EX_DATAERR_;
		}
	for (int i = 0; i < argc || (i == 0 && argc == 0); i++) {
		const char *id = argc ? argv[i] : NULL;
		if (id && !id_valid(id))
			continue;
		unsigned nerr = s->nerr;
		int r = ctl_retry_select(s, id, failed, names, emit, o, &n);
		total += n;
		if (s->nerr != nerr) {
			errorx("retry %s: %s", id ? id : "--failed", s->errmsg);
			rc = s->err;
		} else if (r != CTL_OK) {
			rc = report("retry", id, r);
		}
	}
	name_list_free(names);
	buf_free(&why);
	/* a filter that matched nothing (a crawl with no sealed snapshot, no
	 * failure) is "nothing to do"; a snapshot is always queued */
	if (!rc && !total)
		return EX_NOTHING;
	return rc;
}

/* version: the version, then the dependency check; 69 if one is missing. */
static int
cmd_version(store_t *s, out_t *o)
{
	int missing;
	printf(o->table ? "abx %s\n" : "{\"type\":\"Version\",\"version\":\"%s\"}\n", ABX_VERSION);
	ctl_deps(s, emit, o, &missing);
	if (!missing)
		return 0;
	errorx("%d binar%s the enabled plugins need %s missing; install %s (see the Dependency "
	       "lines) or disable the plugin (<PLUGIN>_ENABLED=false)", missing,
	    missing == 1 ? "y" : "ies", missing == 1 ? "is" : "are", missing == 1 ? "it" : "them");
	return EX_UNAVAIL_;
}

static int
cmd_each(store_t *s, const char *cmd, int argc, char **argv, int delete_files, out_t *o)
{
	int (*fn)(store_t *, const char *) = NULL;
	for (int i = 0; ops[i].name; i++)
		if (strcmp(ops[i].name, cmd) == 0)
			fn = ops[i].fn;
	int rc = 0;
	for (int i = 0; i < argc; i++) {
		unsigned nerr = s->nerr;
		if (!id_valid(argv[i])) {
			errorx("not an id: %s", argv[i]);
			rc = EX_DATAERR_;
			continue;
		}
		int r;
		if (fn) {
			r = fn(s, argv[i]);
		} else {
			rec_t out;
			r = ctl_remove(s, argv[i], delete_files, &out);
			if (r == CTL_OK && s->nerr == nerr)
				emit(o, &out);
			rec_free(&out);
		}
		if (s->nerr != nerr) {
			/* the store failed: this one changed nothing (store.h) */
			errorx("%s %s: nothing changed: %s", cmd, argv[i], s->errmsg);
			rc = s->err;
			continue;
		}
		int e = report(cmd, argv[i], r);
		if (e)
			rc = e;
	}
	return rc;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"plugins", required_argument, 0, 'p'}, {"failed", no_argument, 0, 'F'},
		{"delete", no_argument, 0, 'D'}, {"last", required_argument, 0, 'L'},
		{"all", no_argument, 0, 'A'}, {"jsonl", no_argument, 0, 'J'},
		{"help", no_argument, 0, 'h'}, CLI_VERSION_OPT, {0, 0, 0, 0},
	};
	const char *dir = NULL, *plugins = NULL;
	int c, failed = 0, delete_files = 0, last = 5, all = 0, jsonl = 0;
	err_init(argv[0]);
	sig_reset();
	signal(SIGPIPE, SIG_IGN);   /* a closed stdout is EPIPE, after the commit */
	while ((c = getopt_long(argc, argv, "d:hv", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'p': plugins = optarg; break;
		case 'F': failed = 1; break;
		case 'D': delete_files = 1; break;
		case 'A': all = 1; break;
		case 'J': jsonl = 1; break;
		case 'L': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 0 || v > 1000)
				cli_usage_err(usage, "--last wants a count from 0 to 1000: %s", optarg);
			last = v;
			break;
		}
		case 'v': err_verbose(1); break;
		case 'h': cli_help(usage, options);
		case CLI_VERSION: cli_version();
		default: cli_usage(usage);
		}
	}
	if (optind >= argc)
		cli_usage_err(usage, "no command given");
	const char *cmd = argv[optind++];
	int nargs = argc - optind;
	char **args = argv + optind;
	static const struct {
		const char *name;
		int min, max;      /* operands */
		char opts[8];      /* the options it takes: p F D L A */
	} cmds[] = {
		{"pause", 1, -1, ""}, {"resume", 1, -1, ""}, {"cancel", 1, -1, ""},
		{"retry", 0, -1, "pF"}, {"remove", 1, -1, "D"}, {"status", 0, 0, "L"},
		{"run", 1, 1, ""}, {"schedule", 2, 2, ""}, {"config", 0, 1, "A"},
		{"version", 0, 0, ""}, {"repair", 0, 0, ""}, {NULL, 0, 0, ""},
	};
	int k = -1;
	for (int i = 0; cmds[i].name; i++)
		if (strcmp(cmds[i].name, cmd) == 0)
			k = i;
	if (k < 0)
		cli_usage_err(usage, "unknown command %s; the commands are: pause resume cancel retry "
		    "remove status run schedule config version repair", cmd);
	if (nargs < cmds[k].min || (cmds[k].max >= 0 && nargs > cmds[k].max))
		cli_usage_err(usage, "%s takes %s", cmd, cmds[k].max == 0 ? "no operand" :
		    cmds[k].min == 2 ? "a schedule id and a cron expression" :
		    cmds[k].max == 1 && cmds[k].min == 1 ? "one id" :
		    cmds[k].max == 1 ? "at most one id" : "one or more ids");
	struct { int set; char opt; const char *name; } given[] = {
		{plugins != NULL, 'p', "--plugins"}, {failed, 'F', "--failed"},
		{delete_files, 'D', "--delete"}, {last != 5, 'L', "--last"}, {all, 'A', "--all"},
	};
	for (size_t i = 0; i < sizeof given / sizeof given[0]; i++)
		if (given[i].set && !strchr(cmds[k].opts, given[i].opt))
			cli_usage_err(usage, "%s does not take %s", cmd, given[i].name);
	if (!strcmp(cmd, "retry") && !nargs && !failed)
		cli_usage_err(usage, "retry wants an ID, or --failed for every crawl");
	out_t o = {!jsonl && cli_isatty_out()};
	store_t s;
	int rc = 0;
	if (store_open(&s, dir, 0) < 0) {
		if (strcmp(cmd, "version") != 0 || s.err != EX_CONFIG_)
			die(s.err, "%s", s.errmsg);
		/* before the first abx-add: the version and what the plugins
		 * would need, with the built-in settings */
		return cmd_version(NULL, &o);
	}
	if (!strcmp(cmd, "repair")) {
		repair_stats_t st;
		repair_run(&s, &st);
		if (s.nerr)
			die(s.err, "repair: %s", s.errmsg);
		printf("{\"type\":\"Repair\",\"active\":%d,\"torn\":%d,\"requeued\":%d,\"leases_dropped\":%d,"
		       "\"compacted\":%d,\"tmp_swept\":%d,\"locks_removed\":%d}\n",
		    st.active, st.torn, st.requeued, st.leases_dropped, st.compacted, st.tmp_swept,
		    st.locks_removed);
	} else if (!strcmp(cmd, "retry")) {
		rc = cmd_retry(&s, nargs, args, plugins, failed, &o);
	} else if (!strcmp(cmd, "status")) {
		ctl_status(&s, last, emit, &o);
	} else if (!strcmp(cmd, "config")) {
		if (nargs && !id_valid(args[0]))
			die(EX_DATAERR_, "not an id: %s", args[0]);
		rc = report(cmd, nargs ? args[0] : "", ctl_config(&s, nargs ? args[0] : NULL, all, emit, &o));
	} else if (!strcmp(cmd, "version")) {
		rc = cmd_version(&s, &o);
	} else if (!strcmp(cmd, "run") || !strcmp(cmd, "schedule")) {
		rec_t out;
		const char *why = "";
		if (!id_valid(args[0]))
			die(EX_DATAERR_, "not an id: %s", args[0]);
		int r = !strcmp(cmd, "run") ? ctl_schedule_run(&s, args[0], &out)
		                            : ctl_schedule_edit(&s, args[0], args[1], &out, &why);
		if (r == CTL_NEVER)
			die(EX_DATAERR_, "cron expression %s: %s", args[1], why);
		if (r == CTL_OK)
			emit(&o, &out);
		rec_free(&out);
		if (r == CTL_NOOP) {
			/* the schedule module disabled it, and said why */
			errorx("schedule %s: no crawl was enqueued", args[0]);
			rc = EX_DATAERR_;
		} else {
			rc = report(cmd, args[0], r);
		}
	} else {
		rc = cmd_each(&s, cmd, nargs, args, delete_files, &o);
	}
	if (store_close(&s) < 0 || (s.nerr && !rc)) {
		errorx("%s", s.errmsg);
		rc = s.err ? s.err : EX_IOERR_;
	}
	return rc;
}
