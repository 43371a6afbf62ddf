/*
 * exitcodes.h — the one exit-code vocabulary of every abx tool.
 *
 * Every tool's man page lists these under EXIT STATUS; they follow
 * sysexits(3) so that shell scripts and cron wrappers can tell "nothing to
 * do" from "try again later" from "fix your input".
 */
#ifndef ABX_EXITCODES_H
#define ABX_EXITCODES_H

enum {
	EX_DONE      = 0,   /* did the work / yes */
	EX_NOTHING   = 1,   /* nothing to do / no (nothing due, test false) */
	EX_HOOKSFAILED = 2, /* did the work, but hooks failed in it (abx-tick):
	                     * said on stderr, a line a snapshot */
	EX_USAGE_    = 64,  /* usage error */
	EX_DATAERR_  = 65,  /* malformed input: a bad record, URL or config value */
	EX_UNAVAIL_  = 69,  /* a dependency or hook is missing */
	EX_SOFT_     = 70,  /* internal error */
	EX_CANTCREAT_ = 73, /* cannot create a file */
	EX_IOERR_    = 74,  /* I/O error, including a lost lease */
	EX_TEMPFAIL_ = 75,  /* busy: a lock is held by someone else */
	EX_CONFIG_   = 78,  /* not a data directory, or a bad configuration */
};

#endif
