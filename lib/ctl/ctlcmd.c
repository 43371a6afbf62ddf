/*
 * ctlcmd.c — abx-ctl's commands checked and run: see ctlcmd.h.
 */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/exitcodes.h"
#include "base/ids.h"
#include "ctl/ctlcmd.h"
#include "ctl/pluginsarg.h"
#include "hook/names.h"
#include "tick/repair.h"

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
cmd_retry(store_t *s, int argc, char **argv, const ctlcmd_t *o, buf_t *fatal)
{
	char **names = NULL;
	buf_t why = {0};
	int rc = o->plugins ? plugins_arg(o->plugins, &names, fatal) : 0;
	if (rc)
		return rc;
	if (names && names_plugins(s->dir, names, &why)) {
		buf_addf(fatal, "--plugins: %s", buf_cstr(&why));
		name_list_free(names);
		buf_free(&why);
		return EX_DATAERR_;
	}
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
		int r = ctl_retry_select(s, id, o->failed, names, o->emit, o->arg, &n);
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

static int
cmd_each(store_t *s, const char *cmd, int argc, char **argv, const ctlcmd_t *o)
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
			r = ctl_remove(s, argv[i], o->delete_files, &out);
			if (r == CTL_OK && s->nerr == nerr)
				o->emit(o->arg, &out);
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

int
ctlcmd_check(const char *cmd, int nargs, const ctlcmd_t *o, buf_t *why)
{
	int k = -1;
	for (int i = 0; cmds[i].name; i++)
		if (strcmp(cmds[i].name, cmd) == 0)
			k = i;
	if (k < 0) {
		buf_addf(why, "unknown command %s; the commands are: pause resume cancel retry "
		    "remove status run schedule config version repair", cmd);
		return -1;
	}
	if (nargs < cmds[k].min || (cmds[k].max >= 0 && nargs > cmds[k].max)) {
		buf_addf(why, "%s takes %s", cmd, cmds[k].max == 0 ? "no operand" :
		    cmds[k].min == 2 ? "a schedule id and a cron expression" :
		    cmds[k].max == 1 && cmds[k].min == 1 ? "one id" :
		    cmds[k].max == 1 ? "at most one id" : "one or more ids");
		return -1;
	}
	struct { int set; char opt; const char *name; } given[] = {
		{o->plugins != NULL, 'p', "--plugins"}, {o->failed, 'F', "--failed"},
		{o->delete_files, 'D', "--delete"}, {o->last != 5, 'L', "--last"}, {o->all, 'A', "--all"},
	};
	for (size_t i = 0; i < sizeof given / sizeof given[0]; i++)
		if (given[i].set && !strchr(cmds[k].opts, given[i].opt)) {
			buf_addf(why, "%s does not take %s", cmd, given[i].name);
			return -1;
		}
	if (!strcmp(cmd, "retry") && !nargs && !o->failed) {
		buf_adds(why, "retry wants an ID, or --failed for every crawl");
		return -1;
	}
	return 0;
}

/* run and schedule: one schedule, its crawl enqueued or its cron replaced. */
static int
cmd_schedule(store_t *s, const char *cmd, char **args, const ctlcmd_t *o, buf_t *fatal)
{
	rec_t out;
	const char *why = "";
	int r = !strcmp(cmd, "run") ? ctl_schedule_run(s, args[0], &out)
	                            : ctl_schedule_edit(s, args[0], args[1], &out, &why);
	if (r == CTL_NEVER) {
		buf_addf(fatal, "cron expression %s: %s", args[1], why);
		return EX_DATAERR_;
	}
	if (r == CTL_OK)
		o->emit(o->arg, &out);
	rec_free(&out);
	if (r != CTL_NOOP)
		return report(cmd, args[0], r);
	/* the schedule module disabled it, and said why */
	errorx("schedule %s: no crawl was enqueued", args[0]);
	return EX_DATAERR_;
}

static int
cmd_repair(store_t *s, const ctlcmd_t *o, buf_t *fatal)
{
	repair_stats_t st;
	repair_run(s, &st);
	if (s->nerr) {
		buf_addf(fatal, "repair: %s", s->errmsg);
		return s->err;
	}
	fprintf(o->out, "{\"type\":\"Repair\",\"active\":%d,\"torn\":%d,\"requeued\":%d,"
	    "\"leases_dropped\":%d,\"compacted\":%d,\"tmp_swept\":%d,\"locks_removed\":%d}\n",
	    st.active, st.torn, st.requeued, st.leases_dropped, st.compacted, st.tmp_swept,
	    st.locks_removed);
	return 0;
}

int
ctlcmd_run(store_t *s, const char *cmd, int nargs, char **args, const ctlcmd_t *o, buf_t *fatal)
{
	if (!strcmp(cmd, "repair"))
		return cmd_repair(s, o, fatal);
	if (!strcmp(cmd, "retry"))
		return cmd_retry(s, nargs, args, o, fatal);
	if (!strcmp(cmd, "status")) {
		ctl_status(s, o->last, o->emit, o->arg);
		return 0;
	}
	int named = !strcmp(cmd, "config") || !strcmp(cmd, "run") || !strcmp(cmd, "schedule");
	if (named && nargs && !id_valid(args[0])) {
		buf_addf(fatal, "not an id: %s", args[0]);
		return EX_DATAERR_;
	}
	if (!strcmp(cmd, "config"))
		return report(cmd, nargs ? args[0] : "",
		    ctl_config(s, nargs ? args[0] : NULL, o->all, o->emit, o->arg));
	if (named)
		return cmd_schedule(s, cmd, args, o, fatal);
	return cmd_each(s, cmd, nargs, args, o);
}

int
ctlcmd_deps(store_t *s, const ctlcmd_t *o)
{
	int missing;
	ctl_deps(s, o->emit, o->arg, &missing);
	if (!missing)
		return 0;
	errorx("%d binar%s the enabled plugins need %s missing; install %s (see the Dependency "
	       "lines) or disable the plugin (<PLUGIN>_ENABLED=false)", missing,
	    missing == 1 ? "y" : "ies", missing == 1 ? "is" : "are", missing == 1 ? "it" : "them");
	return EX_UNAVAIL_;
}
