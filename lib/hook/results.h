/*
 * results.h — what a hook reported, made into ArchiveBox's records.
 *
 * Stdout is JSONL: one JSON object a line.  hookout_read() streams the
 * stdout log with a bounded line buffer and keeps
 *   ArchiveResult  the last one (a hook's later records overwrite earlier);
 *   Tag            "name" — added to the snapshot's comma-separated tags;
 *   Snapshot       "title" and "http_status" (a number from 100 to 999: the
 *                  status the site answered the page with, hookcurl.h),
 *                  when the record has no "url" or this snapshot's;
 *                  other Snapshot records (discovered URLs) are left to
 *                  discovery, which reads them from the stdout log
 *                  (discover.h);
 *   Binary         "name" + absolute "abspath": a resolved binary.
 * Other records, lines that are not JSON objects, and blank lines are
 * ignored; a line longer than RESULT_LINE_MAX is cut off, ignored and
 * reported in the result's notes.  Bytes that are not UTF-8 become U+FFFD
 * before a line is parsed.  A line is parsed strictly (json.h), except that
 * an ArchiveResult with a malformed value (say, a trailing comma in its
 * output_json) still counts: each such value is read as a string of its
 * text, and the notes say which.
 *
 * output_json: a JSON object is stored as it is, absent or null as null;
 * anything else (malformed, or a string, array or number) is stored as a
 * JSON string of its text, with a note, so that every journal line stays
 * JSON that jq reads.
 *
 * The status (result_verdict): exit 0 succeeded, 10 skipped, anything else
 * failed — unless the hook printed an ArchiveResult whose status is one of
 * succeeded, failed, skipped, noresults (or noresult), which is honoured as
 * ArchiveBox does.  A hook killed at its timeout, or interrupted, or that
 * could not be executed, is failed whatever it printed.  A daemon that
 * exits when abx-hook stops it at the end of the phase has ended normally.
 * (abx-hook then judges a Snapshot hook that printed no ArchiveResult as
 * abx-dl does, from its exit status and files: phase_record.c.)
 * notes: the record's "error", else for a failure the reason (timeout,
 * signal) and the last lines of stderr.
 */
#ifndef ABX_RESULTS_H
#define ABX_RESULTS_H

#include "base/buf.h"
#include "base/hookrun.h"
#include "base/json.h"
#include "hook/outfiles.h"

#define RESULT_LINE_MAX 65536

typedef struct {
	rec_t ar;
	int have_ar;
	char **tags;
	size_t ntags;
	char *title;
	long http_status;        /* 0: none printed */
	rec_t *bins;
	size_t nbins;
	long overlong, first_overlong;   /* count, first line number */
	long garbage;
	long bad_records, first_bad_record;   /* lines that began with { but are no JSON record */
	buf_t ar_invalid;        /* the ArchiveResult's malformed fields: "a, b" */
	int ar_oj_invalid;       /* its output_json was malformed */
} hookout_t;

void hookout_read(int fd, const char *snapshot_url, hookout_t *o);
void hookout_free(hookout_t *o);

/* The last lines of a log (at most 10 lines, 2 KiB), trimmed. */
void log_tail(int fd, buf_t *out);

typedef struct {
	const char *status;
	buf_t notes;
} verdict_t;

/* spawn_err: errno of a failed spawn (0 if it ran); path for the message. */
void result_verdict(const proc_t *p, int spawn_err, const char *path, const hookout_t *o,
    const char *stderr_tail, verdict_t *v);

typedef struct {
	const char *crawl_id, *snapshot_id, *plugin, *hook_name;
	const char *id;              /* the result's id (an existing one: upsert) */
	const char *created_at;      /* raw JSON of the existing one, or NULL */
	const char *process_id;      /* NULL: no process ran */
	const proc_t *proc;
	char *const *argv;
	const char *pwd;
	const hookout_t *out;        /* may be NULL */
	const outputs_t *files;      /* may be NULL */
	const char *status, *notes;
	int64_t now;
} result_t;

/*
 * The first line of a result's reason, for a one-line report (abx-tick's
 * failure lines, the crawl page): notes split into lines and "; " parts,
 * noise left out (chromium's D-Bus complaints and its WARNING/INFO log
 * lines, which a headless run prints whatever went wrong), then the first
 * part, with the next one after a bare "exit status N" or "killed by
 * signal N" ("exit status 8: 404 Not Found").  Control characters become
 * spaces; at most 200 bytes (cut at a character).  Appended to out.
 */
void result_reason_line(const char *notes, buf_t *out);

/* The ArchiveResult and Process records of one hook run. */
void result_archive(rec_t *r, const result_t *x);
void result_process(rec_t *r, const result_t *x, const char *host, int running);

#endif
